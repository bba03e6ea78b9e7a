"""The session's lesson: one :class:`~nblab.lesson_run.LessonRun` in ``st.session_state``,
and the widget callbacks that call its methods.

Everything user-specific lives in the session, so one student's run is never visible to another.
"""
from __future__ import annotations

import streamlit as st

from dashboard.data import datasets
from dashboard.serve import heavy_work
from dashboard.ui import controls, state, urlguard
from dashboard.ui.controls import Settings
from nblab.lesson_run import LessonRun

#: the session-state key of the session's LessonRun
KEY = state.LESSON
#: URL key holding the iteration on screen, so a reloaded page, a new session after a server restart,
#: or a student opening the teacher's link comes back at the iteration the teacher showed.
K_ITERATION = "t"


def lesson() -> LessonRun:
    """The session's lesson (created empty on first use)."""
    got = st.session_state.get(KEY)
    if got is None:

        got = st.session_state[KEY] = LessonRun(load=datasets.get_dataset)
    return got


def sync(settings: Settings) -> None:
    """Bring the run in line with the controls; a session's first run goes to the URL's ``t=``."""
    lr = lesson()
    if lr.sync(settings.data, settings.smoothing, busy=heavy_work.busy):
        asked = int(urlguard.value_of(K_ITERATION, urlguard.spec_of(K_ITERATION), 0) or 0)
        lr.restore_to(asked, busy=heavy_work.busy)


def on_screen() -> int:
    """The iteration on screen: the one source the URL's ``t=``, the share link, the status line, the
    metrics, the stop rules' numbers, the maths panel and the downloads' names read.

    The iteration picked on the scrubber (or the latest); while the browser player plays, the one it
    reported showing (the run is computed a little ahead of it, and a replay of a finished run shows
    iterations far behind the latest)."""
    lr = lesson()
    if lr.run is None:
        return 0
    from dashboard.lesson import player  # imports this module: imported when first asked
    return player.on_screen(lr)


def remember_iteration(t: int | None = None) -> None:
    """Keep ``t=<iteration on screen>`` in the URL (nothing when it is already there)."""
    if lesson().run is None:
        return
    t = str(on_screen() if t is None else int(t))
    try:
        if st.query_params.get(K_ITERATION) != t:
            if t == "0":
                st.query_params.pop(K_ITERATION, None)
            else:
                st.query_params[K_ITERATION] = t
    except Exception:  # noqa: BLE001 - the URL is a convenience; never break the page over it
        pass


# ---- widget callbacks (they run before the page reruns) ---------------------------------------------

def on_step() -> None:
    """Step (→, Page Down, a clicker's "next"). The browser may show its result already."""
    lr = lesson()
    if lr.run is None or lr.run.done or lr.playing:
        return
    lr.step(1)
    lr.follow_latest()


def on_play(playing: bool) -> None:
    """Play (True) or Pause (False). Sets, never toggles: a click delivered twice stays one click."""
    lr = lesson()
    if lr.set_playing(playing):
        lr.app_rerun = True  # the refresh interval changes: needs a whole-page rerun


def on_reset() -> None:
    lr = lesson()
    was_playing = lr.playing
    lr.reset()
    lr.follow_latest()
    # a whole-page rerun only when needed: Play stops (the interval changes) or the rebuild failed
    # (the error is shown above the fragment); otherwise only the fragment reruns
    if was_playing or lr.error:
        lr.app_rerun = True


def on_converge() -> None:
    lesson().converge_pending = True


def on_scrub(key: str) -> None:
    lesson().scrub(st.session_state.get(key))


def advance(speed: str) -> None:
    """Move the run on: to convergence if that was asked for (with a progress bar), or one Play
    tick's worth of steps while the server plays."""
    lr = lesson()
    if lr.converge_pending:
        lr.converge_pending = False
        if not lr.run.done:
            bar = st.progress(0.0, text="Running EM to convergence …")
            heavy_work.converge(lr, lambda frac, t: bar.progress(frac, text=f"Running EM … t = {t}"))
            bar.empty()
            lr.follow_latest()
    if lr.playing:
        if lr.run.done:
            lr.playing = False
            st.rerun(scope="app")
        lr.step(controls.SPEEDS.get(speed, controls.SPEEDS[controls.DEFAULTS["speed"]])[0])
