"""Around a whole page run (dashboard/app.py): the client's quota of tabs, the janitor started once per
server process, and a heavy-work slot for a run that does heavy work from its start."""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from typing import Iterator

import streamlit as st

from dashboard.serve import heavy_work, janitor, quotas, sessions


@contextmanager
def page_run() -> Iterator[None]:
    """Around a whole page run (dashboard/app.py): a tab over its client's limit of sessions gets a
    short page instead; a run that does heavy work from its start (a file the uploader just handed
    over) holds a heavy-work slot for the whole run."""
    janitor.start()
    new, refused = quotas.register()
    if refused is not None:
        st.warning(refused, icon=":material/tab_close:")
        st.stop()
    if new:
        janitor.hold(sessions.session_id())   # its state can be found again once the session ends
    # A session's first build and a link's recomputed iterations take their slot where they happen
    # (LessonRun's busy=, see heavy_work.busy), not for the whole first run: a page waiting for the shares'
    # store must not hold a slot that other students' work needs.
    heavy_now = bool(st.session_state.get("pending_upload"))  # dashboard.ui.state.PENDING_UPLOAD
    with (heavy_work.heavy() if heavy_now else nullcontext()):
        yield
