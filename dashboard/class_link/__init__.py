"""The class link: students follow the teacher's lesson at ``/class/<cid>`` (the class-link contract).

* :func:`open_class` ``(data_key, state, *, owner="") -> (cid, write_key)`` and
  :func:`publish` ``(cid, write_key, state) -> v``: the teacher's session (dashboard/class_link/store.py);
* :func:`claim` ``(cid, write_key) -> (v, state)``: the class back for its teacher in a new session, and
  :func:`touch` ``(cid, write_key)``: the teacher's page is still open (the students hear when it is not);
* :func:`read` ``(cid) -> (v, state.json bytes)``: what the routes answer students with;
* :mod:`dashboard.class_link.answers`: the teacher's questions (``ask``, ``close``, ``reveal``, ``tally``:
  Python only, with the write key) and the students' answers to them, in the shared store;
* :mod:`dashboard.class_link.routes`: the Starlette routes under ``/class/`` that dashboard/server.py
  adds to the Streamlit app (the page, its assets, the data, the state, the answers).

Nothing here imports Streamlit at import time.
"""
from __future__ import annotations

from dashboard.class_link.store import (  # noqa: F401
    AWAY_AFTER,
    CLASS_TTL,
    HEARTBEAT,
    BadClassId,
    BadState,
    ClassError,
    ClassGone,
    ClassNotFound,
    TooManyClasses,
    WrongKey,
    claim,
    open_class,
    peek,
    publish,
    read,
    touch,
    valid_class_id,
    valid_data_key,
)

__all__ = ["open_class", "publish", "read", "claim", "touch", "valid_class_id", "valid_data_key", "ClassError",
           "BadClassId", "ClassNotFound", "ClassGone", "WrongKey", "BadState", "TooManyClasses", "CLASS_TTL", "AWAY_AFTER",
           "HEARTBEAT"]
