"""The lesson player's traffic, as dashboard/lesson/player/player.js sends it, for a simulated student.

The player is a components-v2 element mounted as ``PLAYER`` (Play, the iteration slider, the charts) and
``LOWER`` (the marker of the panels below the charts); both keys are the app's own. What the browser sends:

* a student with the panels below the charts in view sends ``LOWER``'s trigger ``refresh`` whenever they
  show another state than the charts (``PLAYER``'s ``lower`` against ``LOWER``'s ``drawn``);
* Play: the state ``view`` = {run, t, revealed, playing: true, play}; then, while the playhead advances
  at the page's fps over the iterations received, the trigger ``need`` = {run, upto, t, revealed, play}
  whenever fewer than max(3, fps) iterations are left ahead (at most one outstanding per 3 s); Pause
  (or the run's end) = the state ``view`` with playing false;
* a drag of the slider: 250 ms after release, the state ``view`` with the iteration dropped on.
"""
from __future__ import annotations

import asyncio
import time

from dashboard.lesson.player import LOWER_KEY as LOWER
from dashboard.lesson.player import MAIN_KEY as PLAYER

__all__ = ["PLAYER", "LOWER", "VIEW", "NEED", "REFRESH", "view_state", "lower_wanted", "refresh_lower",
           "Playhead", "PlayerMoves"]

#: the player's state and trigger names (the ``on_<name>_change`` callbacks of dashboard/lesson/player)
VIEW, NEED, REFRESH = "view", "need", "refresh"


def view_state(run, t: int, revealed: int, playing: bool, play_id: int) -> dict:
    """The state ``view``: the iteration shown, the latest one revealed, whether it plays, the Play's id."""
    return {"run": run, "t": int(t), "revealed": int(revealed), "playing": playing, "play": play_id}


def lower_wanted(s) -> str | None:
    """The state the panels below the charts should show when it is not the one they show, else None."""
    main, low = s.component(PLAYER), s.component(LOWER)
    if main is None or low is None:
        return None
    want = main.head.get("lower")
    if not want or want == low.head.get("drawn"):
        return None
    return want


async def refresh_lower(s):
    """Ask for the panels below the charts (trigger ``refresh``: one rerun of their fragment) when they
    show another state than the charts; the run's result, or None when nothing was sent."""
    want = lower_wanted(s)
    return None if want is None else await s.component_trigger(LOWER, REFRESH, want)


def _n(head: dict) -> int:
    return int(head.get("n") or 1)


class Playhead:
    """The browser's playhead while it plays: it moves at ``fps`` over the iterations the browser holds
    (``n``, until the answer to a ``need`` brings more)."""

    def __init__(self, head: dict, t: int, now: float):
        self.run = head.get("run")
        self.n, self.done = _n(head), bool(head.get("done"))
        self.fps = max(1, int(head.get("fps") or 5))
        self.t, self.revealed = t, max(int(head.get("revealed") or 0), t)
        self.advanced_at = now
        self.pending = 0.0                                 # when the outstanding need was sent (0: none)
        self.chunk = max(5, -(-self.fps * 3 // 2))         # iterations a need asks for beyond the last held

    def advance(self, now: float) -> float:
        """Move to ``now``; the seconds the playhead stood at the last iteration held, waiting."""
        steps = int((now - self.advanced_at) * self.fps)
        stall = 0.0
        if steps:
            self.advanced_at += steps / self.fps
            if not self.done and self.t + steps > self.n - 1:
                stall = (self.t + steps - (self.n - 1)) / self.fps
            self.t = min(self.n - 1, self.t + steps)
            self.revealed = max(self.revealed, self.t)
        return stall

    def receive(self, head: dict) -> None:
        """The page's latest head: frames that came answer the outstanding need."""
        if _n(head) != self.n or bool(head.get("done")) != self.done:
            self.pending = 0.0
        self.n, self.done = _n(head), bool(head.get("done"))

    def at_end(self) -> bool:
        return self.t >= self.n - 1 and self.done

    def wants_more(self, now: float) -> bool:
        return (not self.done and self.n - 1 - self.t < max(3, self.fps)
                and (not self.pending or now - self.pending >= 3.0))

    def need(self, play_id: int) -> dict:
        return {"run": self.run, "upto": self.n - 1 + self.chunk, "t": self.t, "revealed": self.revealed,
                "play": play_id}


class PlayerMoves:
    """What a student does in the player. The host class has ``s`` (a stclient.Session), ``rng``, ``stats``,
    ``deadline``, ``detail``, ``play_id``, ``reads_lower``, ``_check`` and ``_usable``."""

    def _view(self, t: int, revealed: int, playing: bool) -> dict:
        return view_state(self.s.component(PLAYER).head.get("run"), t, revealed, playing, self.play_id)

    async def follow_lower(self) -> bool:
        """For a student who has the panels below the charts in view: ask for them when they lag."""
        if not self.reads_lower:
            return True
        res = await refresh_lower(self.s)
        return True if res is None else self._check("lower", res, "lower")

    async def drag_player(self) -> bool:
        """Drag the player's iteration slider: the browser redraws by itself and, 250 ms after the
        pointer is released, reports the iteration shown (state `view`, playing false)."""
        n = _n(self.s.component(PLAYER).head)
        if n <= 1:   # nothing to drag yet: a Step instead, as a student would
            self.detail = "step (nothing to drag)"
            return self._check("step", await self.s.click("step")) if self._usable("step") else True
        t = self.rng.randrange(n)
        self.detail = f"drag to t={t} of {n - 1}"
        await asyncio.sleep(0.25)
        return self._check("scrub", await self.s.set_component_state(PLAYER, VIEW, self._view(t, n - 1, False)))

    async def play_player(self) -> bool:
        """Play in the browser player for 2-5 s, sending what player.js sends, then Pause."""
        s = self.s
        h = s.component(PLAYER).head
        n, done = _n(h), bool(h.get("done"))
        if n <= 1 and done:
            return True
        t = int(h.get("t") or 0)
        if t >= n - 1 and done:
            t = 0                      # at the end of a finished run: play it again from the start
        start = time.perf_counter()
        ph = Playhead(h, t, start)
        self.play_id += 1
        self.detail = f"play from t={t} of {n - 1}"
        if not self._check("play", await s.set_component_state(PLAYER, VIEW, self._view(t, ph.revealed, True))):
            return False
        self.stats.plays += 1
        start = ph.advanced_at = time.perf_counter()
        why = await self._follow_playhead(ph, min(self.deadline, start + self.rng.uniform(2.0, 5.0)))
        if why is None:
            return False
        self.stats.play_s += time.perf_counter() - start
        if why == "new run":
            return True
        self.detail = f"pause ({why}) at t={ph.t} of {ph.n - 1}"
        return self._check("pause", await s.set_component_state(PLAYER, VIEW, self._view(ph.t, ph.revealed, False)))

    async def _follow_playhead(self, ph: Playhead, until: float) -> str | None:
        """Play until ``until``, the run's end or a new run, sending ``need`` as the playhead runs short;
        why it stopped ("click", "end", "new run"), or None when a need failed."""
        while True:
            now = time.perf_counter()
            self.stats.stall_s += ph.advance(now)
            h = self.s.component(PLAYER).head
            if h.get("run") != ph.run:     # a new run (another student action cannot happen here; a rebuild)
                return "new run"
            ph.receive(h)
            if ph.at_end():
                return "end"
            if now >= until:
                return "click"
            if ph.wants_more(now):
                ph.pending = now
                need = ph.need(self.play_id)
                self.detail = f"need upto {need['upto']} at t={ph.t}"
                if not self._check("need", await self.s.component_trigger(PLAYER, NEED, need), "need"):
                    return None
                continue
            await asyncio.sleep(min(1.0 / ph.fps, max(0.0, until - now)) or 0.01)
