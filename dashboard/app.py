"""Naive Bayes + EM Lab — the frame: page config and navigation.

Run from the repo root:   streamlit run dashboard/app.py

Imports: `streamlit run` puts only dashboard/ on sys.path and AppTest adds
nothing, so we put the repository root on sys.path here (before any page runs).
Every dashboard module is then imported by its package name
(`from dashboard import charts`), and `import nbcore` works without installing.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

st.set_page_config(page_title="Naive Bayes + EM Lab", page_icon="🧪", layout="wide",
                   initial_sidebar_state="expanded")

# One entry per view. Other views (posterior inspector, smoothing explorer, …)
# are added as files in dashboard/pages/ and listed here.
PAGES = [
    st.Page(HERE / "pages" / "lesson.py", title="Watch EM learn", icon="📈", default=True),
]

st.navigation(PAGES).run()
