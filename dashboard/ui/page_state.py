"""Each teaching page's session state: one typed object under one session key.

A page keeps what it must remember between reruns (an iteration, a run it steps, a result it
computed) in one dataclass from this module, stored under the page's own key, as the lesson keeps
its :class:`nblab.lesson_run.LessonRun`. Widget keys stay widget keys (Streamlit owns their values,
and they double as URL parameters); only the state no widget holds lives here.

The pages' keys: ``cl_run`` (Why EM climbs) and ``mx_run`` (the 2-D picture): :class:`HalfSteps`;
``trap``: :class:`SteppedRun`; ``sbs`` (side by side) and ``evm`` (event models): :class:`SteppedRuns`;
``rs`` (restarts): :class:`Restarts`; ``lb`` (label budget), ``voc`` (vocabulary) and ``cp``
(components): :class:`Result`; ``coin``: :class:`Coin`; ``smp`` (sampling): :class:`Sampling`;
``insp`` (the inspector): :class:`Inspector`; ``mx_points`` (the 2-D picture's points): :class:`EditedPoints`.

The classes live here and not in the view files: a view file is run again on every rerun, so a
class defined there would be a new class each time and the stored object never an instance of it.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, TypeVar

import streamlit as st

T = TypeVar("T")


def get(key: str, cls: type[T]) -> T:
    """The page's state object under ``key``, a new ``cls()`` the first time."""
    s = st.session_state.get(key)
    if not isinstance(s, cls):
        s = cls()
        st.session_state[key] = s
    return s


def for_config(key: str, cls: type[T], config: Any) -> T:
    """The page's state object under ``key`` while it belongs to ``config`` (the page's settings), else
    a new ``cls(config=config)`` stored in its place: the settings changed, what was kept is for others."""
    s = st.session_state.get(key)
    if not isinstance(s, cls) or s.config != config:
        s = cls(config=config)
        st.session_state[key] = s
    return s


@dataclass
class HalfSteps:
    """An EM run taken one half-step at a time: iteration ``t`` and whether the E-step at θ_t is done.

    ``config`` is the page's settings the run belongs to; ``t_max`` the last iteration it may reach.
    The methods are the toolbar's button callbacks (dashboard/ui/stepper.py)."""
    config: Any = None
    t: int = 0
    e_done: bool = False
    t_max: int = 200

    def e_step(self) -> None:
        self.e_done = True

    def m_step(self) -> None:
        if self.e_done and self.t < self.t_max:
            self.t += 1
            self.e_done = False

    def steps(self, n: int) -> None:
        self.t = min(self.t_max, self.t + n)
        self.e_done = False

    def reset(self) -> None:
        self.t, self.e_done = 0, False


@dataclass
class EditedPoints:
    """Points a reader edits in a table that is drawn only while its expander is open: ``frame`` the points
    as last edited (None: not edited), ``start`` the frame the open editor started from (its edits are
    relative to it), ``opened`` how many times the editor was opened (a new editor each time) and whether it
    was open in the last run. ``config`` is the page's settings the points belong to."""
    config: Any = None
    frame: Any = None
    start: Any = None
    opened: int = 0
    was_open: bool = False


@dataclass
class Result:
    """A page's last long computation and the settings it was computed for (``config``), kept so that
    a rerun that changes nothing in them shows it again without computing, and one that changes
    them can say so."""
    config: Any = None
    value: Any = None


@dataclass
class Restarts(Result):
    """The restarts page: its last result, and the lesson page's URL parameters once "Open start …"
    put a start into the lesson (read once, by the run that switches to the lesson)."""
    switch_to: dict | None = None


@dataclass
class SteppedRuns:
    """Runs the page steps together: the runs by name (None once Reset is pressed), the accuracy each
    has had at every iteration so far, and the supervised baselines with the settings they were
    computed for."""
    config: Any = None
    runs: dict | None = None
    acc: dict = field(default_factory=dict)
    base: Any = None
    base_config: Any = None

    def step(self, n: int) -> None:
        """n EM iterations of every run that has not converged (a button's callback)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(n):
                for r in self.runs.values():
                    if not r.done:
                        r.step()

    def reset(self) -> None:
        """Forget the runs: the page starts them again (a button's callback)."""
        self.runs = None


@dataclass
class SteppedRun:
    """One EM run the page steps (``None`` until it is started, and again after Reset), and the settings
    it was started with (``config``)."""
    config: Any = None
    run: Any = None

    def step(self, n: int) -> None:
        """n EM iterations, fewer if the run converges first (a button's callback)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(n):
                if self.run.done:
                    break
                self.run.step()

    def reset(self) -> None:
        """Forget the run: the page starts it again (a button's callback)."""
        self.run = None


@dataclass
class Coin:
    """The coin page: the last flips typed that could be read (shown while the typed text cannot be)."""
    last_valid: str = "HHTH"


@dataclass
class Sampling:
    """The sampling page: how many times "Draw again" was pressed (the draws' random seed with the page's)."""
    draws: int = 0


@dataclass
class Inspector:
    """The posterior inspector: the message and the two classes it last compared by itself
    ``(message, a, b)``, so that a pair the reader picked for the same message is kept."""
    ab_auto: tuple | None = None
