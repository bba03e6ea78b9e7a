"""Per client (its network address; every client without one counts as one): at most
``NBLAB_SESSIONS_PER_CLIENT`` open sessions (tabs; default 80, enough for a class behind one NAT address
with two tabs each) and ``NBLAB_UPLOADS_PER_CLIENT`` sessions holding an upload (20). A tab over the limit
gets a short page saying so instead of the lesson (dashboard/serve/page_run.py).

Process-wide state here is about the server's load, never about what a user sees.
"""
from __future__ import annotations

import threading

from dashboard.serve import sessions
from dashboard.serve.env import env_int

DEFAULT_SESSIONS_PER_CLIENT = 80
DEFAULT_UPLOADS_PER_CLIENT = 20

_LOCK = threading.Lock()
_SESSIONS: dict[str, str] = {}     # session id -> client
_UPLOADS: set[str] = set()         # session ids holding an upload


def _prune() -> None:
    live = sessions.live_session_ids()
    if live is None:
        return
    with _LOCK:
        for sid in [s for s in _SESSIONS if s not in live]:
            _SESSIONS.pop(sid, None)
        _UPLOADS.intersection_update(live)


def sessions_of(who: str) -> int:
    """Open sessions of a client (as registered by :func:`register`)."""
    with _LOCK:
        return sum(1 for c in _SESSIONS.values() if c == who)


def uploads_of(who: str) -> int:
    with _LOCK:
        return sum(1 for s in _UPLOADS if _SESSIONS.get(s) == who)


def sessions_per_client() -> int:
    return env_int("NBLAB_SESSIONS_PER_CLIENT", DEFAULT_SESSIONS_PER_CLIENT, 1)


def uploads_per_client() -> int:
    return env_int("NBLAB_UPLOADS_PER_CLIENT", DEFAULT_UPLOADS_PER_CLIENT, 1)


def register() -> tuple[bool, str | None]:
    """Register this session under its client. (new, refusal): ``new`` is True on the session's
    first run; ``refusal`` is the message when the client already has its limit of sessions (then
    this one is not registered)."""
    sid = sessions.session_id()
    if sid is None:
        return False, None
    who = sessions.client()
    with _LOCK:
        if sid in _SESSIONS:
            return False, None
    _prune()
    cap = sessions_per_client()
    with _LOCK:
        n = sum(1 for c in _SESSIONS.values() if c == who)
        if n >= cap:
            return True, (f"This computer already has {n} pages of the lab open on this server, its limit "
                          f"({cap}), so that one computer cannot slow the lesson down for the class. Close "
                          "some tabs of the lab, then reload this one.")
        _SESSIONS[sid] = who
    return True, None


def note_upload(held: bool) -> None:
    """This session now holds an upload (True) or no longer does (False)."""
    sid = sessions.session_id()
    if sid is None:
        return
    with _LOCK:
        (_UPLOADS.add if held else _UPLOADS.discard)(sid)


def upload_refusal() -> str | None:
    """Why this session may not take a new upload now (its client holds its limit of them), or None."""
    sid = sessions.session_id()
    _prune()
    who, cap = sessions.client(), uploads_per_client()
    with _LOCK:
        if sid in _UPLOADS:
            return None            # replacing this session's own upload
        n = sum(1 for s in _UPLOADS if _SESSIONS.get(s) == who)
    if n >= cap:
        return (f"this computer already has {n} uploaded files open on this server (its limit is {cap}). "
                "Close a tab that holds an upload, or use the class link your teacher shares.")
    return None
