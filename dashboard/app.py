"""Naive Bayes + EM Lab — the frame: page config and navigation.

Run from the repo root:   python3 -m streamlit run dashboard/server.py   (the README's command: this app plus
the class link's routes; ``streamlit run dashboard/app.py`` runs this app alone, without them)

Imports: `streamlit run` puts only dashboard/ on sys.path and AppTest adds
nothing, so we put the repository root on sys.path here (before any page runs).
Every dashboard module is then imported by its package name
(`from dashboard.charts import theme`), and `import nbcore` works without installing.
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

# Streamlit calls gc.collect(2) after every script run (runner.postScriptGC). A full collection
# walks every object the cyclic GC tracks, and ~130 000 of them are the imported libraries
# (streamlit, plotly, pandas, numpy): ~50 ms of server CPU per rerun, about half of a Step.
# gc.freeze() moves the objects that exist now to the permanent generation, which collections
# skip. Done once per server process, before any page runs, so every session's objects are
# created afterwards and collected as before (freezing never stops reference counting).
# The "done" flag lives on the dashboard package (imported once per process): gc.get_freeze_count()
# walks the whole permanent generation, ~14 ms per call with ~130 000 frozen objects.
import dashboard  # noqa: E402

# Import what every view uses before the first gc.freeze() below.
import nbcore  # noqa: E402,F401
from dashboard import pages  # noqa: E402
from dashboard.charts import lesson as _lesson_charts  # noqa: E402,F401
from dashboard.charts import theme as _theme  # noqa: E402,F401
from dashboard.data import datasets as _datasets  # noqa: E402,F401
from dashboard.data import uploads as _uploads  # noqa: E402,F401
from dashboard.lesson import guided as _guided  # noqa: E402,F401
from dashboard.lesson import metrics as _metrics  # noqa: E402,F401
from dashboard.lesson import session as _session  # noqa: E402,F401
from dashboard.lesson.panels import maths as _maths  # noqa: E402,F401
from dashboard.pagekit import page_kit as _page_kit  # noqa: E402,F401
from dashboard.ui import controls as _controls  # noqa: E402,F401
from dashboard.ui import page_state as _page_state  # noqa: E402,F401

if not getattr(dashboard, "_gc_frozen", False):
    # One BLAS thread per server process: numpy's OpenBLAS starts a thread per core and its idle
    # threads spin. The matrices here are small and the sessions are the parallelism; on digits
    # (dense) a Step cost ~150 ms of server CPU for ~60 ms of wall time, 40 ms with one thread
    # (scripts/measure_rerun.py --query dataset=digits). threadpoolctl comes with scikit-learn.
    import scipy.linalg  # noqa: F401  (loads scipy's own OpenBLAS now, so the limit covers it too)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    gc.collect()
    gc.freeze()
    dashboard._gc_frozen = True

# Classroom mode (a projector) gives the charts the screen's width: the sidebar starts collapsed (its
# arrow opens it). Otherwise "auto": open on a laptop or a projector, closed on a phone, where an open
# sidebar covers the whole page. Streamlit applies the initial state when it changes, so a sidebar
# opened by hand stays open from page to page, and switching classroom mode off opens it again.
st.set_page_config(page_title=_controls._("Naive Bayes + EM Lab"), page_icon="🧪", layout="wide",
                   initial_sidebar_state="collapsed" if _controls.classroom_wanted() else "auto")

from dashboard.serve.page_run import page_run  # noqa: E402

# A fair share of the server per client: a tab over its client's limit of sessions is refused, and a
# run that does heavy work from its start holds one of the process's heavy-work slots (dashboard/serve/page_run.py).
with page_run():
    st.navigation(pages.navigation()).run()  # the page list is dashboard/pages.py
