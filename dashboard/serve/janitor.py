"""Memory given back when sessions end: a janitor thread (dashboard/serve/memory.py's Janitor) that reaps
the sessions of closed tabs whose reconnect time is over, empties the state of sessions the server no
longer holds, and lets free memory go back to the system.
"""
from __future__ import annotations

import threading
import weakref
from contextlib import nullcontext

from streamlit import runtime as st_runtime

from dashboard.serve import memory, offload, sessions

_LOCK = threading.Lock()
_HELD: dict[str, weakref.ref] = {}  # session id -> its AppSession, weakly (see release_ended)
_JANITOR: list = []


def hold(sid: str) -> None:
    """Keep a weak reference to this session's AppSession, so that :func:`release_ended` can find
    its state once the server no longer holds the session."""
    try:
        info = st_runtime.Runtime.instance()._session_mgr.get_active_session_info(sid)
        if info is not None:
            with _LOCK:
                _HELD[sid] = weakref.ref(info.session)
    except Exception:  # noqa: BLE001 - no server (AppTest) or a Streamlit internals change
        pass


def release_ended(live: set[str]) -> int:
    """Empty the session state of every session the server no longer holds (neither connected nor
    kept for a reconnect) whose AppSession object is still alive; returns how many.

    Measured after waves of heavy tabs: one ended session in each wave stayed alive, shut down
    (SHUTDOWN_REQUESTED), out of Streamlit's session manager, referenced by an ActiveSessionInfo that
    nothing the garbage collector sees holds. Its state (an upload's data, its run's whole history:
    ~50 MB for a 5 MB file) stayed with it. Nobody can reach that session again, so its state goes."""
    with _LOCK:
        ended = [(sid, ref) for sid, ref in _HELD.items() if sid not in live]
        for sid, _ in ended:
            _HELD.pop(sid, None)
    released = 0
    for _, ref in ended:
        session = ref()
        state = getattr(session, "_session_state", None)
        if state is None:
            continue
        try:
            state.clear()
            released += 1
        except Exception:  # noqa: BLE001 - a Streamlit internals change: memory goes as before
            pass
    return released


def reap_expired_sessions() -> int:
    """Drop the sessions of closed tabs whose reconnect time (server.disconnectedSessionTTL) is over,
    and shut them down; returns how many. Streamlit keeps them in a TTL cache that removes expired
    entries only when another session is stored or removed there, so after a wave of students left
    and nobody else did, every one of their sessions (uploads, runs, histories) stayed in memory."""
    try:
        if not st_runtime.Runtime.exists():
            return 0
        mgr = st_runtime.Runtime.instance()._session_mgr
        cache = getattr(getattr(mgr, "_session_storage", None), "_cache", None)
        expire = getattr(cache, "expire", None)
        if expire is None:
            return 0
        lock = getattr(mgr, "_storage_lock", None)
        with (lock if lock is not None else nullcontext()):
            removed = expire()
    except Exception:  # noqa: BLE001 - a Streamlit internals change: sessions go as before
        return 0
    for _, info in removed:
        try:
            info.session.shutdown()
        except Exception:  # noqa: BLE001 - already shut down
            pass
    live = sessions.live_session_ids()
    released = release_ended(live) if live is not None else 0
    return len(removed) + released


def start() -> None:
    with _LOCK:
        if _JANITOR:
            return
        live = sessions.live_session_ids()
        if live is None:
            return                 # no server (AppTest): nothing ends sessions
        offload.warm()             # the heavy-work worker's imports, before the first upload needs them
        _JANITOR.append(memory.Janitor(lambda: len(sessions.live_session_ids() or ()),
                                       reap=reap_expired_sessions).start())
