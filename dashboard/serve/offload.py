"""Heavy Python work run in a short-lived worker process (no Streamlit here).

Parsing a CSV, guessing its columns and vectorising its text are pure Python most of the time
(the csv module, tokenising, counting words). In the server process such work holds the GIL: even
with one heavy-work slot (:mod:`dashboard.serve.gate`), every other student's Step then gets only
part of the interpreter, and waits. EM itself is not the problem: its sparse products release the
GIL. So the GIL-bound parts of heavy work run here, in a process of their own:

* one process per job, forked from a *forkserver* that has imported nbcore and the readers once,
  so a job starts in milliseconds, not after a second of imports;
* the arguments go in and the result comes back pickled (a 4.9 MB upload's data set: a few MB);
* the process exits when its job is done, so the memory parsing needed (the peak of a big file)
  goes back to the system at once, whatever the allocator would have kept;
* the worker runs at a lower CPU priority (``NBLAB_HEAVY_NICE``, default 10): when the cores are
  busy, the server's light work (a Step) goes first and the upload takes the time left over;
* an error in the job comes back as the same kind of exception with the same message (a
  ``ValueError`` stays a ``ValueError``: the upload's messages are unchanged); a worker that dies
  (killed, out of memory) raises :class:`WorkerDied` instead of hanging the page.

``NBLAB_HEAVY_PROCESS=0`` runs the work in the calling thread instead (as before: platforms
without fork, debugging).
"""
from __future__ import annotations

import builtins
import multiprocessing as mp
import os
import threading
from typing import Any, Callable

# what the forkserver imports once, so that a worker starts with it in memory
PRELOAD = ["dashboard.serve.worker_log", "numpy", "scipy.sparse", "sklearn.feature_extraction.text", "nbcore", "nblab.advice",
           "dashboard.data.uploads"]

_LOCK = threading.Lock()
_CTX: list = []
_STATS = {"jobs": 0, "died": 0}


class WorkerDied(RuntimeError):
    """The worker process ended without an answer (killed, out of memory)."""


def enabled() -> bool:
    """Whether heavy work runs in a worker process (``NBLAB_HEAVY_PROCESS``, default on)."""
    return os.environ.get("NBLAB_HEAVY_PROCESS", "1").strip() not in ("0", "false", "no", "off")


def stats() -> dict:
    """Jobs run in workers in this process, and workers that died."""
    with _LOCK:
        return dict(_STATS)


def _context():
    with _LOCK:
        if not _CTX:
            method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
            ctx = mp.get_context(method)
            if method == "forkserver":
                ctx.set_forkserver_preload(PRELOAD)
            _CTX.append(ctx)
        return _CTX[0]


def warm() -> None:
    """Start the forkserver now (it imports PRELOAD in the background), so that the first upload
    does not wait for those imports. A no-op when work runs in the calling thread."""
    if not enabled():
        return
    ctx = _context()
    if ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver
        forkserver.ensure_running()


def _nice() -> int:
    try:
        return max(0, min(19, int(os.environ.get("NBLAB_HEAVY_NICE", "10"))))
    except ValueError:
        return 10


def _child(conn, nice: int, fn: Callable, args: tuple, kwargs: dict) -> None:
    from dashboard.serve import worker_log  # no session here, by design: Streamlit's warnings about it are noise

    worker_log.quiet()
    try:
        if nice:
            try:
                os.nice(nice)
            except OSError:   # not allowed here: run at the server's priority
                pass
        try:
            out = ("ok", fn(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001 - every error goes back to the caller
            out = ("error", (type(e).__name__, isinstance(e, ValueError), str(e)))
        conn.send(out)
    finally:
        conn.close()


def _rebuild(name: str, is_value_error: bool, message: str) -> BaseException:
    """The worker's exception for the caller: a ValueError (nbcore's DataError included) as a
    ValueError with its message, a built-in exception as itself, anything else as RuntimeError."""
    if is_value_error:
        return ValueError(message)
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(message)
        except Exception:  # noqa: BLE001 - a built-in that wants other arguments
            pass
    return RuntimeError(f"{name}: {message}")


def run(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a worker process (``fn`` a module-level function; arguments and
    result picklable); in this thread when :func:`enabled` is off. Blocks until the answer."""
    if not enabled():
        return fn(*args, **kwargs)
    ctx = _context()
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, _nice(), fn, args, kwargs), daemon=True,
                       name="nblab-heavy-worker")
    proc.start()
    send.close()
    with _LOCK:
        _STATS["jobs"] += 1
    try:
        try:
            kind, payload = receive.recv()
        except EOFError:
            proc.join(5)
            with _LOCK:
                _STATS["died"] += 1
            raise WorkerDied(f"the server's worker process stopped (exit code {proc.exitcode}) "
                             "before it finished") from None
    finally:
        receive.close()
        proc.join(10)
        if proc.is_alive():
            proc.kill()
    if kind == "ok":
        return payload
    raise _rebuild(*payload)
