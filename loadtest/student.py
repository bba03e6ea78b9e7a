"""One simulated student: a browser tab of the lesson page over Streamlit's websocket (stclient.Session),
doing what a student does for a while with a think time between actions."""
from __future__ import annotations

import asyncio
import random
import time

from dashboard.ui.controls import (
    K_CONVERGE,
    K_DATASET,
    K_HIDDEN,
    K_LAM,
    K_PAUSE,
    K_PLAY,
    K_RESET,
    K_SCRUB,
    K_STEP,
    UPLOAD,
)
from loadtest.player_protocol import LOWER, PLAYER, PlayerMoves
from loadtest.stats import Stats
from loadtest.stclient import Session

MAX_ACTIONS_PER_SESSION = 2000   # hard bound on top of the time bound
MAX_TICKS_PER_PLAY = 40          # a Play lasts at most this many auto-reruns
#: what a student does, with its weight; a name is the widget's key and the label in the summary
ACTIONS = [(K_HIDDEN, 3), (K_LAM, 3), (K_STEP, 5), (K_PLAY, 3), (K_SCRUB, 2), (K_RESET, 1), (K_CONVERGE, 1),
           (K_DATASET, 1)]


class Student(PlayerMoves):
    def __init__(self, idx: int, url: str, stats: Stats, deadline: float, rng: random.Random,
                 think: tuple[float, float], run_timeout: float, report_initial_values: bool = True,
                 query_string: str = "", expect_text: str | None = None, via_proxy: bool = False,
                 cookie_name: str = "NBLAB", reads_lower: bool = False):
        self.name = f"s{idx:02d}"
        self.reads_lower = reads_lower  # the panels below the charts are in this student's view
        self.s = Session(url, name=self.name, query_string=query_string, run_timeout=run_timeout,
                         report_initial_values=report_initial_values)
        self.via_proxy = via_proxy     # GET the page first (the proxy's stickiness cookie)
        self.cookie_name = cookie_name
        self.play_id = rng.randrange(10 ** 6)   # the player's playId: one per Play press
        self.expect_text = expect_text   # --shared: a text the first page must show (the shared file's name)
        self.stats = stats
        self.deadline = deadline
        self.rng = rng
        self.think = think
        self.seen_alerts = 0
        self.detail = ""   # what the last action set, for error reports

    def _check(self, action: str, res, kind: str = "interaction") -> bool:
        self.stats.record(self.name, action, res, kind, self.detail)
        for fmt, body in self.s.alerts:
            if fmt == "ERROR":
                self.stats.error_alerts.append((self.name, action, body[:200]))
        self.s.alerts.clear()
        return res is None or res.status not in ("timeout",) and not res.status.startswith("disconnected")

    def _usable(self, key: str) -> bool:
        w = self.s.widget(key)
        return w is not None and not w.disabled

    async def _sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, min(seconds, self.deadline - time.perf_counter())))

    async def run(self) -> None:
        self.stats.sessions_started += 1
        if not await self._open():
            return
        try:
            if not await self._first_page():
                return
            n = 0
            while time.perf_counter() < self.deadline and n < MAX_ACTIONS_PER_SESSION:
                n += 1
                if not await self.act() or not await self.follow_lower():
                    return
                await self._sleep(self.rng.uniform(*self.think))
            if self.s.reader_error is None:
                self.stats.sessions_completed += 1
        finally:
            await self.s.close()

    async def _open(self) -> bool:
        """Through a proxy, GET the page first (its cookies); then the websocket."""
        try:
            if self.via_proxy:
                code = await self.s.fetch_page()
                if code != 200:
                    self.stats.errors.append((self.name, "page", f"HTTP {code} for the page"))
                    return False
                self.stats.backends[self.s.cookies.get(self.cookie_name, "(no cookie)")] += 1
            await self.s.connect()
        except Exception as e:  # noqa: BLE001
            self.stats.errors.append((self.name, "connect", repr(e)[:300]))
            return False
        return True

    async def _first_page(self) -> bool:
        """The page load, the panels below the charts when in view, the shared data set's check."""
        if not self._check("load", await self.s.load(), "load"):
            return False
        if self.reads_lower and self.s.component(LOWER) is not None:
            # the browser draws the charts (about a second), then asks for the panels below them
            await self._sleep(self.rng.uniform(0.5, 1.5))
            if not await self.follow_lower():
                return False
        if self.expect_text is not None:
            if any(self.expect_text in t for t in self.s.texts):
                self.stats.shared_seen += 1
            else:
                self.stats.errors.append((self.name, "load", f"shared data set not shown (no '{self.expect_text}')"))
        return True

    async def act(self) -> bool:
        rng, s = self.rng, self.s
        action = rng.choices([c for c, _ in ACTIONS], [w for _, w in ACTIONS])[0]
        # Play and the iteration slider are the browser player's when the page has it
        if s.component(PLAYER) is not None and action in (K_PLAY, K_SCRUB):
            return await (self.play_player() if action == K_PLAY else self.drag_player())
        if action in (K_STEP, K_CONVERGE, K_RESET, K_PLAY) and not self._usable(action):
            action = K_RESET if self._usable(K_RESET) else K_HIDDEN
        scrub = self._scrub_key()
        if action == K_SCRUB and scrub is None:
            action = K_STEP if self._usable(K_STEP) else K_LAM
        if action in (K_HIDDEN, K_LAM, K_DATASET):
            return await self._set(action) if self._usable(action) else True
        if action == K_SCRUB:
            w = s.widget(scrub)
            return self._check(action, await s.set_value(scrub, rng.randint(int(w.proto.min), int(w.proto.max))))
        if action == K_PLAY:
            return await self.play()
        if action in (K_STEP, K_RESET, K_CONVERGE) and self._usable(action):
            self.detail = action
            return self._check(action, await s.click(action))
        return True

    async def _set(self, key: str) -> bool:
        """Move a sidebar widget to a random value: labels hidden, λ, another data set."""
        rng, s = self.rng, self.s
        if key == K_HIDDEN:
            v = rng.randrange(10, 100, 5)
            self.detail = f"hidden={v}"
        elif key == K_LAM:
            v = rng.choice(list(s.widget(key).proto.options))
            self.detail = f"lam={v}"
        else:
            v = rng.choice([o for o in s.widget(key).proto.options if o != UPLOAD])
            self.detail = f"dataset={v} (page: {[t for t in s.texts if t.startswith('**Status:**')][-1:]})"
        return self._check(key, await s.set_value(key, v))

    def _scrub_key(self) -> str | None:
        """The server's iteration scrubber (without the player): its key is scrub_<run serial>_<snapshots>,
        the newest enabled one is on the page."""
        p = K_SCRUB + "_"
        keys = [k for k, w in self.s.widgets.items()
                if k.startswith(p) and k[len(p):len(p) + 1].isdigit() and not w.disabled]
        return keys[-1] if keys else None

    async def play(self) -> bool:
        """Play, follow the auto-reruns like the browser does for a few seconds, then Pause."""
        s = self.s
        if not self._check(K_PLAY, await s.click(K_PLAY)):
            return False
        until = min(self.deadline, time.perf_counter() + self.rng.uniform(2.0, 5.0))
        ticks = 0
        while s.auto_reruns and time.perf_counter() < until and ticks < MAX_TICKS_PER_PLAY:
            interval = next(iter(s.auto_reruns.values()))
            await asyncio.sleep(interval)
            ticks += 1
            if not self._check("tick", await s.auto_tick(), "tick"):
                return False
        w = s.widget(K_PAUSE)
        if s.auto_reruns and w is not None and not w.disabled:
            return self._check(K_PAUSE, await s.click(K_PAUSE))
        return True
