"""Heavy work (parsing and vectorising an upload or a shared file, a run's build and a link's recomputed
iterations through LessonRun's ``busy=`` (:func:`busy`), running EM to convergence (:func:`converge`)) goes
through :func:`heavy`: at most ``NBLAB_HEAVY_SLOTS`` such jobs run at once in a server process (default 1),
queued fairly between clients (dashboard/serve/gate.py). A job that waits shows a "waiting" notice with
how many go first. Light work (a Step, a λ change) never waits, so one client's heavy runs cannot starve
another student's Step. The parts of heavy work that are pure Python (parsing, guessing columns,
vectorising) run in a short-lived worker process (dashboard/serve/offload.py), so they do not hold the
server's GIL while other students' scripts run. After heavy work free memory goes back to the system
(dashboard/serve/memory.py).
"""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from typing import Iterator

import streamlit as st

from dashboard.serve import memory, sessions
from dashboard.serve.env import env_int
from dashboard.serve.gate import FairGate

DEFAULT_SLOTS = 1

GATE = FairGate(env_int("NBLAB_HEAVY_SLOTS", DEFAULT_SLOTS, 1))


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
        with GATE.hold(sessions.client(), on_wait=on_wait, on_granted=on_granted):
            with (st.spinner(what) if what else nullcontext()):
                yield
    finally:
        memory.request()


def busy(text: str):
    """The lesson run's "working on it" indicator (nblab.lesson_run.Busy) as heavy work: pass it as
    ``busy=`` to LessonRun.sync / restore_to instead of st.spinner."""
    return heavy(text)


def converge(lr, progress) -> None:
    """``lr.converge(progress)`` (a LessonRun running EM to convergence) as heavy work."""
    with heavy():
        lr.converge(progress)
