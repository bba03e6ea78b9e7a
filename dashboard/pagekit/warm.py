"""Warm a fresh server process in the background, so that its first visitor does not pay for it.

A new server process has imported Streamlit and little else: the first session's run imports numpy,
scipy, pandas, plotly, nbcore and the app's modules, reads the lesson's data set and builds its first
run, all while the visitor waits. :func:`start` (called by dashboard/server.py when the server starts)
does that work once, in a daemon thread, before anyone asks:

1. imports what dashboard/app.py and the pages import;
2. reads the shipped data sets into the process's shared cache (``datasets.load_shipped``,
   Streamlit's resource cache: the same objects every session then reads), the default lesson's first;
3. builds the default lesson's run (nblab.prepare.build_run with nblab.defaults.DEFAULTS) and takes a
   few EM steps: numpy's, scipy's and nbcore's code paths are loaded, the run is dropped.

It is best effort: a failure is logged and changes nothing (the session does the work as before).
What it computes is the same for every session and is keyed like the pages' own calls, so a session
that arrives while it runs waits on the same cache entry instead of computing it a second time
(Streamlit's resource cache holds a lock per key). ``NBLAB_WARM=0`` turns it off.
"""
from __future__ import annotations

import importlib
import os
import sys
import threading
import time

#: modules the pages import, loaded before the first session (dashboard/app.py imports the rest)
MODULES = (
    "numpy", "scipy.sparse", "pandas", "plotly.graph_objects", "nbcore",
    "dashboard.pages", "dashboard.charts.theme", "dashboard.charts.lesson", "dashboard.data.datasets",
    "dashboard.data.uploads", "dashboard.lesson.sharing", "dashboard.lesson.guided", "dashboard.lesson.metrics",
    "dashboard.lesson.session", "dashboard.lesson.specs", "dashboard.lesson.player",
    "dashboard.lesson.panels.maths", "dashboard.ui.controls", "dashboard.pagekit.page_kit", "dashboard.pagekit.figures",
    "dashboard.pagekit.lean_chart", "nblab.prepare", "nblab.lesson_run",
)
#: EM steps taken on the default lesson's throw-away run
STEPS = 3

_LOCK = threading.Lock()
_STATE: dict = {"thread": None, "done": None, "steps": [], "error": None}


def default_config():
    """(DataConfig, λ) of the lesson a new visitor opens (nblab.defaults.DEFAULTS, the first model the data
    set allows, its default text settings)."""
    from dashboard.data import datasets
    from nblab.config import DataConfig
    from nblab.defaults import DEFAULTS

    name = DEFAULTS["dataset"]
    model = datasets.models_for(name)[0]
    cfg = DataConfig(dataset=name, model=model, hidden_pct=int(DEFAULTS["hidden"]), init=DEFAULTS["init"],
                     seed=int(DEFAULTS["seed"]), unlabeled_weight=float(DEFAULTS["uw"]),
                     max_iter=int(DEFAULTS["max_iter"]), tol=float(DEFAULTS["tol"]),
                     text=datasets.default_pipeline(name))
    return cfg, float(DEFAULTS["lam"])


def warm() -> list[tuple[str, float]]:
    """Do the warming now (in the calling thread; a thread other than the main one ends it at the lowest CPU
    priority); returns (what, seconds) for each part."""
    done: list[tuple[str, float]] = []

    def part(what: str, fn) -> None:
        t0 = time.perf_counter()
        fn()
        done.append((what, time.perf_counter() - t0))

    for name in MODULES:
        part(f"import {name}", lambda n=name: importlib.import_module(n))

    import nbcore
    from dashboard.data import datasets
    from nblab import prepare as prep_mod
    from nblab.defaults import DEFAULTS

    names = [DEFAULTS["dataset"]] + [n for n in nbcore.list_datasets() if n != DEFAULTS["dataset"]]
    part(f"data set {names[0]}", lambda: datasets.load_shipped(names[0]))

    def lesson() -> None:
        cfg, lam = default_config()
        _, run = prep_mod.build_run(cfg, lam, datasets.get_dataset)
        for _ in range(STEPS):
            run.step()

    part("default lesson's run", lesson)
    # the other data sets wait for nobody yet: this thread yields the CPU to the sessions (Linux: a
    # thread's own nice value) while it reads them
    if threading.current_thread() is not threading.main_thread():
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except (AttributeError, OSError):
            pass
    for name in names[1:]:
        part(f"data set {name}", lambda n=name: datasets.load_shipped(n))
    return done


def _run() -> None:
    t0 = time.perf_counter()
    try:
        steps = warm()
        _STATE["steps"] = steps
        # one line in the server's log (Streamlit's logging shows only its own loggers)
        print(f"nblab: server warmed in {time.perf_counter() - t0:.1f} s (" +
              ", ".join(f"{w} {s:.2f} s" for w, s in steps if s >= 0.05) + ")", file=sys.stderr, flush=True)
    except Exception as e:  # noqa: BLE001 - best effort: the first session does the work instead
        _STATE["error"] = repr(e)
        print(f"nblab: warming the server failed (the first visitor does the work instead): {e!r}",
              file=sys.stderr, flush=True)
    finally:
        _STATE["done"] = time.perf_counter() - t0


def start() -> threading.Thread | None:
    """Start warming in a daemon thread, once per process (``NBLAB_WARM=0``: not at all). Returns the thread."""
    if os.environ.get("NBLAB_WARM", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    with _LOCK:
        if _STATE["thread"] is None:
            t = threading.Thread(target=_run, name="nblab-warm", daemon=True)
            _STATE["thread"] = t
            t.start()
        return _STATE["thread"]


def status() -> dict:
    """What the warming did: seconds taken (None while it runs), each part's time, the error if any."""
    return {"done": _STATE["done"], "steps": list(_STATE["steps"]), "error": _STATE["error"]}
