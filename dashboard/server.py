"""The app's ASGI entry: the Streamlit app (dashboard/app.py) plus the class link's routes under /class/.

Run from the repo root:   python -m streamlit run dashboard/server.py   (same flags as app.py)

``streamlit run`` finds ``app = st.App(...)`` below and serves it with its own server (uvicorn): every page
of dashboard/app.py as before, and the plain-HTTP routes of dashboard/class_link/routes.py (the class page,
its assets, the data and the teacher's state; the class-link contract, docs/class_link.md), which a
middleware serves ahead of Streamlit's own (dashboard/class_link/entry.py). They add nothing
to a Streamlit session and need no websocket, so any app process answers them from the shared store.
``python dashboard/server.py`` runs the same thing (``App.run``); ``streamlit run dashboard/app.py``
still runs the app alone, without the class routes (and without the warming below).

Imports: like dashboard/app.py, the repository root goes on sys.path first, so ``dashboard`` and
``nblab`` import by their package names whichever way this file is loaded.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# glibc's arena limit only holds if it is set before the process has made 9 arenas, and Streamlit's
# server threads make them soon after it starts: tune the allocator first (dashboard/serve/memory.py).
from dashboard.serve.memory import tune_allocator  # noqa: E402

tune_allocator()

from dashboard.serve import http_limits, modules  # noqa: E402

http_limits.install()   # header and body limits in the HTTP server itself (dashboard/serve/http_limits.py)

modules.serve()  # before any component registers: they get stubs importing their module from its route

import streamlit as st  # noqa: E402

from dashboard.serve.offline import stay_offline  # noqa: E402

stay_offline()  # no external-IP probe, no usage statistics: a room without internet (dashboard/serve/offline.py)

from dashboard.class_link import routes as class_routes  # noqa: E402
from dashboard.serve import early, headers  # noqa: E402

# outermost first: security headers on every response (dashboard/serve/headers.py); /class/ to the class
# routes ahead of Streamlit's middleware, within a budget per client (dashboard/class_link/entry.py); a chart
# page's HTML starts loading plotly.js at once (dashboard/serve/early.py)
app = st.App("app.py", routes=modules.routes(),
             middleware=headers.middleware() + class_routes.middleware() + early.middleware())

# A fresh process warms itself in a daemon thread (imports, the shipped data sets, the default lesson's
# run: dashboard/pagekit/warm.py), so the first visitor's lesson does not wait for that work. NBLAB_WARM=0: off.
from dashboard.pagekit import warm  # noqa: E402

warm.start()

if __name__ == "__main__":
    app.run()
