"""Memory handed back to the system when heavy work or sessions end (no Streamlit here).

What held the memory of a wave of heavy sessions after their tabs closed, measured (a janitor
counting live objects after the wave): first the sessions themselves. Streamlit keeps a closed tab's
session for a reconnect (server.disconnectedSessionTTL) in a TTL cache that only drops expired
entries when another session is stored or removed, so after a wave, with nobody else leaving, every
session of the wave (its upload, its run, its whole history) stayed in memory for good. The janitor
reaps the expired ones (dashboard.serve.janitor.reap_expired_sessions). Then glibc's allocator. Parsing a CSV, vectorising it and running EM allocate many mid-sized blocks
(below numpy's mmap threshold) in the arenas of the threads that ran them; freed, they stay in those
arenas, and RSS stays at the peak. ``malloc_trim(0)`` gives every arena's free pages back to the
system. It costs a few milliseconds per hundred MB, so :func:`trim` runs it at most once every
``TRIM_EVERY`` seconds, and :class:`Janitor` calls it in its own thread after heavy work finished
and after sessions ended (it notices the count of sessions going down); only the latter also runs a
full garbage collection, which holds the GIL (every student's script waits) for as long as it takes.

:func:`tune_allocator` (called when dashboard.serve is imported, so on a laptop's ``streamlit run``
too) sets two glibc options the environment has not set: at most 2 arenas (``M_ARENA_MAX``: each
script thread otherwise may get an arena of its own, which keeps freed memory apart), and a fixed
4 MB mmap threshold (``M_MMAP_THRESHOLD``: by default glibc raises the threshold to the size of the
largest block freed, up to 32 MB, so a run's big arrays end up inside the arenas, where freeing them
gives nothing back; above a fixed threshold every such array is its own mapping, returned when
freed). glibc fixes its arena limit the first time a process has more than 8 arenas and needs
another, and Streamlit's server threads get there soon after start (measured: 13 arenas after one
page): so dashboard/server.py, the deployment's entry, tunes before anything else, and on
``streamlit run dashboard/app.py`` the limit may come too late (set ``MALLOC_ARENA_MAX=2`` in the
environment there). The deployment also sets ``MALLOC_ARENA_MAX=2`` in the environment.

Last, a session the server no longer holds may still be alive: measured after waves of heavy tabs,
one ended session per wave stayed in memory, shut down and out of Streamlit's session manager, its
state (an upload, its run's history) with it. The janitor's reap empties such a session's state
(dashboard.serve.janitor.release_ended).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import os
import threading
import time
from typing import Callable

log = logging.getLogger(__name__)

TRIM_EVERY = 5.0    # s: malloc_trim at most this often
_LOCK = threading.Lock()
_STATE = {"last": 0.0, "trims": 0, "pending": False}


def _libc():
    name = ctypes.util.find_library("c")
    try:
        lib = ctypes.CDLL(name) if name else None
        return lib if lib is not None and hasattr(lib, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _libc()

M_MMAP_THRESHOLD, M_ARENA_MAX = -3, -8      # glibc's mallopt parameters (malloc.h)
MMAP_THRESHOLD = 4 * 2**20
ARENA_MAX = 2
_TUNED: list = []


def tune_allocator(environ=None) -> dict:
    """Set glibc's arena limit and a fixed mmap threshold (see the module's docstring), each unless
    the environment sets it (``MALLOC_ARENA_MAX``, ``MALLOC_MMAP_THRESHOLD_``) or
    ``NBLAB_MALLOC_TUNE=0``. Once per process; returns what was set (empty where nothing was)."""
    env = os.environ if environ is None else environ
    if _TUNED:
        return _TUNED[0]
    done: dict = {}
    if _LIBC is not None and hasattr(_LIBC, "mallopt") and env.get("NBLAB_MALLOC_TUNE", "1") != "0":
        if "MALLOC_ARENA_MAX" not in env and _LIBC.mallopt(M_ARENA_MAX, ARENA_MAX) == 1:
            done["arena_max"] = ARENA_MAX
        if "MALLOC_MMAP_THRESHOLD_" not in env and _LIBC.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1:
            done["mmap_threshold"] = MMAP_THRESHOLD
    _TUNED.append(done)
    return done


def available() -> bool:
    """Whether this process's C library can trim (glibc: yes; musl, macOS: no)."""
    return _LIBC is not None


def rss_bytes() -> int:
    """This process's resident memory now (Linux /proc; 0 where there is none)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def trim(force: bool = False, collect: bool = False) -> bool:
    """Give the allocator's free memory back to the system (and first collect garbage when
    ``collect``: after sessions ended, whose objects hold reference cycles); at most once every
    TRIM_EVERY seconds unless ``force``. Returns whether it ran.

    ``malloc_trim`` is called through ctypes, which releases the GIL: other threads (every other
    student's Step) keep running while it works. A full ``gc.collect`` holds the GIL for as long as
    it walks every object of the process, so it is done only when sessions went away."""
    now = time.monotonic()
    with _LOCK:
        if not force and now - _STATE["last"] < TRIM_EVERY:
            _STATE["pending"] = True      # the janitor runs it when the interval has passed
            return False
        _STATE["last"], _STATE["pending"] = now, False
    if collect:
        gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
    with _LOCK:
        _STATE["trims"] += 1
    return True


def trims() -> int:
    """How many times :func:`trim` ran in this process."""
    with _LOCK:
        return _STATE["trims"]


def request() -> None:
    """Heavy work finished: the janitor trims at its next look. Never in the caller's thread: that is
    a student's script run, which would wait for it."""
    with _LOCK:
        _STATE["pending"] = True


class Janitor:
    """One daemon thread per process: every ``every`` seconds it asks ``count_sessions()`` and trims
    when sessions ended since its last look, or a trim was asked for while the last one was recent."""

    def __init__(self, count_sessions: Callable[[], int], every: float = 10.0,
                 reap: Callable[[], int] | None = None):
        self.count_sessions = count_sessions
        self.reap = reap
        self.every = every
        self._last = None
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="nblab-memory-janitor", daemon=True)

    def start(self) -> "Janitor":
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def look(self) -> bool:
        """One look: trims when sessions went away or a trim is pending. Returns whether it trimmed."""
        reaped = 0
        try:
            if self.reap is not None:
                reaped = int(self.reap())
            n = int(self.count_sessions())
        except Exception:  # noqa: BLE001 - the runtime went away (shutdown): nothing to do
            return False
        fewer = reaped > 0 or (self._last is not None and n < self._last)
        last, self._last = self._last, n
        with _LOCK:
            pending = _STATE["pending"]
        if fewer or pending:
            before = rss_bytes()
            trim(force=True, collect=fewer)
            # one line per trim in the server log: the operator sees memory going back
            log.warning("nblab memory: %s sessions (was %s); RSS %.0f MB -> %.0f MB after %smalloc_trim",
                        n, last, before / 2**20, rss_bytes() / 2**20, "gc + " if fewer else "")
            return True
        return False

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.look()
            except Exception:  # noqa: BLE001 - a janitor never takes the server down
                log.exception("memory janitor")
