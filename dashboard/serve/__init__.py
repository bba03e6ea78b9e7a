"""A fair share of the server per client, and memory given back (the Streamlit side).

* Heavy work (parsing and vectorising an upload or a shared file, a run's build and a link's
  recomputed iterations through LessonRun's ``busy=`` (:func:`busy`), running EM to convergence
  (:func:`converge`)) goes through :func:`heavy`: at most
  ``NBLAB_HEAVY_SLOTS`` such jobs run at once in a server process (default 1), queued fairly between
  clients (dashboard/serve/gate.py). A job that waits shows a "waiting" notice with how many go
  first. Light work (a Step, a λ change) never waits, so one client's heavy runs cannot starve
  another student's Step. The parts of heavy work that are pure Python (parsing, guessing columns,
  vectorising) run in a short-lived worker process (dashboard/serve/offload.py), so they do not
  hold the server's GIL while other students' scripts run.
* Per client (its network address; every client without one counts as one): at most
  ``NBLAB_SESSIONS_PER_CLIENT`` open sessions (tabs; default 80, enough for a class behind one NAT
  address with two tabs each) and ``NBLAB_UPLOADS_PER_CLIENT`` sessions holding an upload (20).
  A tab over the limit gets a short page saying so instead of the lesson.
* Memory: after heavy work and when sessions end, free memory goes back to the system
  (dashboard/serve/memory.py: malloc_trim, at most every few seconds, from a janitor thread; a
  garbage collection too when sessions ended).

Process-wide state here is about the server's load, never about what a user sees.
"""
from __future__ import annotations

import ipaddress
import os
import threading
import weakref
from contextlib import contextmanager, nullcontext
from typing import Iterator

import streamlit as st

from dashboard.serve import memory, offload
from dashboard.serve.gate import FairGate

memory.tune_allocator()   # before the script threads allocate: fewer arenas, big arrays given back

DEFAULT_SLOTS = 1
DEFAULT_SESSIONS_PER_CLIENT = 80
DEFAULT_UPLOADS_PER_CLIENT = 20


def _env_int(name: str, default: int, minimum: int) -> int:
    raw = os.environ.get(name, "")
    try:
        v = int(raw)
    except ValueError:
        return default
    return v if v >= minimum else default


GATE = FairGate(_env_int("NBLAB_HEAVY_SLOTS", DEFAULT_SLOTS, 1))

_LOCK = threading.Lock()
_SESSIONS: dict[str, str] = {}     # session id -> client
_UPLOADS: set[str] = set()         # session ids holding an upload
_HELD: dict[str, weakref.ref] = {}  # session id -> its AppSession, weakly (see _release_ended)
_JANITOR: list = []


# ---- who is asking --------------------------------------------------------------------------------

def client() -> str:
    """The client a session belongs to: its network address (an IPv6 one by its /64), or
    "address:unknown" for every client Streamlit gives no address for (localhost, a proxy that does
    not forward it): the same rule as the share quota's (dashboard.data.sharing)."""
    try:
        ip = getattr(st.context, "ip_address", None)
    except Exception:  # noqa: BLE001 - no script run context (a tool, a test)
        ip = None
    if not isinstance(ip, str):
        return "address:unknown"
    try:
        addr = ipaddress.ip_address(ip.split("%")[0])
    except ValueError:
        return "address:unknown"
    if addr.version == 6:
        if addr.ipv4_mapped is not None:
            return "address:" + str(addr.ipv4_mapped)
        return "address:" + str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return "address:" + str(addr)


def _session_id() -> str | None:
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
        ctx = get_script_run_ctx()
        return ctx.session_id if ctx else None
    except Exception:  # noqa: BLE001
        return None


def _live_session_ids() -> set[str] | None:
    """Ids of the sessions the Streamlit server holds now (connected, or kept for a reconnect);
    None when there is no server (AppTest, a tool): then nothing is pruned."""
    try:
        from streamlit.runtime import Runtime
        if not Runtime.exists():
            return None
        return {s.session.id for s in Runtime.instance()._session_mgr.list_sessions()}
    except Exception:  # noqa: BLE001 - a Streamlit internals change: count what we registered
        return None


def _prune() -> None:
    live = _live_session_ids()
    if live is None:
        return
    with _LOCK:
        for sid in [s for s in _SESSIONS if s not in live]:
            _SESSIONS.pop(sid, None)
        _UPLOADS.intersection_update(live)


def sessions_of(who: str) -> int:
    """Open sessions of a client (as registered by :func:`page_run`)."""
    with _LOCK:
        return sum(1 for c in _SESSIONS.values() if c == who)


def uploads_of(who: str) -> int:
    with _LOCK:
        return sum(1 for s in _UPLOADS if _SESSIONS.get(s) == who)


def sessions_per_client() -> int:
    return _env_int("NBLAB_SESSIONS_PER_CLIENT", DEFAULT_SESSIONS_PER_CLIENT, 1)


def uploads_per_client() -> int:
    return _env_int("NBLAB_UPLOADS_PER_CLIENT", DEFAULT_UPLOADS_PER_CLIENT, 1)


# ---- heavy work -------------------------------------------------------------------------------------

def _waiting_notice():
    """(on_wait, on_granted) drawing a "waiting" notice in the current container while a job waits."""
    box: dict = {}

    def on_wait(ahead: int) -> None:
        slot = box.get("slot")
        if slot is None:
            slot = box["slot"] = st.empty()
        jobs = "1 job goes" if ahead == 1 else f"{ahead} jobs go"
        slot.info(f"Waiting for the server: {jobs} before yours. Uploads and long runs are done "
                  f"{GATE.slots} at a time, so that every student's Step stays quick.",
                  icon=":material/hourglass_top:")

    def on_granted() -> None:
        if box.get("slot") is not None:
            box["slot"].empty()

    return on_wait, on_granted


@contextmanager
def heavy(what: str | None = None, notice: bool = True) -> Iterator[None]:
    """Hold one of the process's heavy-work slots for this client while the block runs (waiting,
    with a visible notice, if they are taken), then let memory go back to the system. Re-entrant:
    heavy work inside heavy work holds one slot. ``what`` (e.g. "Reading your file …"), when
    given, is shown as a spinner while the work runs. ``notice=False`` waits without drawing
    anything (inside a cached function, whose elements Streamlit would replay)."""
    on_wait, on_granted = _waiting_notice() if notice else (None, None)
    try:
        with GATE.hold(client(), on_wait=on_wait, on_granted=on_granted):
            with (st.spinner(what) if what else nullcontext()):
                yield
    finally:
        memory.request()


def busy(text: str):
    """The lesson run's "working on it" indicator (nblab.lesson_run.Busy) as heavy work: pass it as
    ``busy=`` to LessonRun.sync / restore_to instead of st.spinner."""
    return heavy(text)


# ---- a page run ---------------------------------------------------------------------------------------

def _register() -> tuple[bool, str | None]:
    """Register this session under its client. (new, refusal): ``new`` is True on the session's
    first run; ``refusal`` is the message when the client already has its limit of sessions (then
    this one is not registered)."""
    sid = _session_id()
    if sid is None:
        return False, None
    who = client()
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
    _hold(sid)
    return True, None


def _hold(sid: str) -> None:
    """Keep a weak reference to this session's AppSession, so that :func:`_release_ended` can find
    its state once the server no longer holds the session."""
    try:
        from streamlit.runtime import Runtime
        info = Runtime.instance()._session_mgr.get_active_session_info(sid)
        if info is not None:
            with _LOCK:
                _HELD[sid] = weakref.ref(info.session)
    except Exception:  # noqa: BLE001 - no server (AppTest) or a Streamlit internals change
        pass


def _release_ended(live: set[str]) -> int:
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


def note_upload(held: bool) -> None:
    """This session now holds an upload (True) or no longer does (False)."""
    sid = _session_id()
    if sid is None:
        return
    with _LOCK:
        (_UPLOADS.add if held else _UPLOADS.discard)(sid)


def upload_refusal() -> str | None:
    """Why this session may not take a new upload now (its client holds its limit of them), or None."""
    sid = _session_id()
    _prune()
    who, cap = client(), uploads_per_client()
    with _LOCK:
        if sid in _UPLOADS:
            return None            # replacing this session's own upload
        n = sum(1 for s in _UPLOADS if _SESSIONS.get(s) == who)
    if n >= cap:
        return (f"this computer already has {n} uploaded files open on this server (its limit is {cap}). "
                "Close a tab that holds an upload, or use the class link your teacher shares.")
    return None


def _reap_expired_sessions() -> int:
    """Drop the sessions of closed tabs whose reconnect time (server.disconnectedSessionTTL) is over,
    and shut them down; returns how many. Streamlit keeps them in a TTL cache that removes expired
    entries only when another session is stored or removed there, so after a wave of students left
    and nobody else did, every one of their sessions (uploads, runs, histories) stayed in memory."""
    try:
        from streamlit.runtime import Runtime
        if not Runtime.exists():
            return 0
        mgr = Runtime.instance()._session_mgr
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
    live = _live_session_ids()
    released = _release_ended(live) if live is not None else 0
    return len(removed) + released


def _start_janitor() -> None:
    with _LOCK:
        if _JANITOR:
            return
        live = _live_session_ids()
        if live is None:
            return                 # no server (AppTest): nothing ends sessions
        offload.warm()             # the heavy-work worker's imports, before the first upload needs them
        _JANITOR.append(memory.Janitor(lambda: len(_live_session_ids() or ()),
                                       reap=_reap_expired_sessions).start())


@contextmanager
def page_run() -> Iterator[None]:
    """Around a whole page run (dashboard/app.py): a tab over its client's limit of sessions gets a
    short page instead; a run that does heavy work from its start (a file the uploader just handed
    over) holds a heavy-work slot for the whole run."""
    _start_janitor()
    new, refused = _register()
    if refused is not None:
        st.warning(refused, icon=":material/tab_close:")
        st.stop()
    # A session's first build and a link's recomputed iterations take their slot where they happen
    # (LessonRun's busy=, see busy()), not for the whole first run: a page waiting for the shares'
    # store must not hold a slot that other students' work needs.
    heavy_now = bool(st.session_state.get("pending_upload"))  # dashboard.ui.state.PENDING_UPLOAD
    with (heavy() if heavy_now else nullcontext()):
        yield


def converge(lr, progress) -> None:
    """``lr.converge(progress)`` (a LessonRun running EM to convergence) as heavy work."""
    with heavy():
        lr.converge(progress)
