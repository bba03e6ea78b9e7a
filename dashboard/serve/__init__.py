"""A fair share of the server per client, and memory given back (the Streamlit side), one job a module:

* dashboard/serve/sessions.py: who is asking (the client's address, the session, the server's sessions);
* dashboard/serve/quotas.py: tabs and uploads per client;
* dashboard/serve/heavy_work.py: the heavy-work gate (dashboard/serve/gate.py's FairGate) and its notice;
* dashboard/serve/offload.py: heavy pure-Python work in a worker process;
* dashboard/serve/janitor.py and memory.py: ended sessions' state and free memory given back;
* dashboard/serve/page_run.py: all of it around a page run (dashboard/app.py);
* dashboard/serve/early.py, modules.py: what the server sends before and beside the page.

Importing the package tunes the allocator (:func:`dashboard.serve.memory.tune_allocator`), before the
script threads allocate: fewer arenas, big arrays given back.
"""
from __future__ import annotations

from dashboard.serve import memory

memory.tune_allocator()
