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

import gc  # noqa: E402

import streamlit as st  # noqa: E402

# Import what every view uses before the first gc.freeze() below.
import nbcore  # noqa: E402,F401
from dashboard import charts, controls, derive, lessons, maths, runner, state  # noqa: E402,F401

# Streamlit calls gc.collect(2) after every script run (runner.postScriptGC). A full collection
# walks every object the cyclic GC tracks, and ~130 000 of them are the imported libraries
# (streamlit, plotly, pandas, numpy): ~50 ms of server CPU per rerun, about half of a Step.
# gc.freeze() moves the objects that exist now to the permanent generation, which collections
# skip. Done once per server process, before any page runs, so every session's objects are
# created afterwards and collected as before (freezing never stops reference counting).
if gc.get_freeze_count() == 0:
    gc.collect()
    gc.freeze()

st.set_page_config(page_title="Naive Bayes + EM Lab", page_icon="🧪", layout="wide",
                   initial_sidebar_state="expanded")

# One entry per view. Other views (posterior inspector, smoothing explorer, …)
# are added as files in dashboard/views/ and listed here.
PAGES = [
    st.Page(HERE / "views" / "lesson.py", title="Watch EM learn", icon=":material/monitoring:", default=True),
    # depth views (one page per view; pure charts in depth_charts.py, lesson texts in lessons.py)
    st.Page(HERE / "views" / "guided.py", title="Guided lessons", icon=":material/school:"),
    st.Page(HERE / "views" / "inspector.py", title="Posterior inspector", icon=":material/search:"),
    st.Page(HERE / "views" / "smoothing.py", title="Smoothing explorer", icon=":material/tune:"),
    st.Page(HERE / "views" / "trap.py", title="The symmetric trap", icon=":material/balance:"),
    st.Page(HERE / "views" / "restarts.py", title="Restarts & local optima", icon=":material/landscape:"),
    st.Page(HERE / "views" / "switching.py", title="Label switching", icon=":material/swap_horiz:"),
    st.Page(HERE / "views" / "budget.py", title="Label-budget curve", icon=":material/stacked_line_chart:"),
    st.Page(HERE / "views" / "side_by_side.py", title="Side by side", icon=":material/compare:"),
    st.Page(HERE / "views" / "sampling.py", title="Sampling from the model", icon=":material/casino:"),
    st.Page(HERE / "views" / "gaussian.py", title="Gaussian NB corner", icon=":material/ssid_chart:"),
]

st.navigation(PAGES).run()
