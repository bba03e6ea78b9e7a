#!/usr/bin/env python
"""Load test: N simulated students on one Streamlit server.

    python loadtest/run_load.py                 # 30 sessions, 60 s, + 2 real-browser checks
    python loadtest/run_load.py --quick         # 3 sessions, 10 s, no browser (CI smoke)
    python loadtest/run_load.py --sessions 50 --duration 120 --json out.json
    python loadtest/run_load.py --deploy 2 --profile calm --sessions 300   # through HAProxy, 2 processes
    python loadtest/run_load.py --proxy http://host:8080 --sessions 30     # an existing deployment
    python loadtest/run_load.py --deploy 2 --class-link --sessions 300 --json out.json   # the class link

With --class-link (loadtest/class_link.py) the students are not Streamlit sessions: a teacher opens a
class and Steps every 3-5 s, the students open /class/<cid> as a browser does (the page, its assets,
the data) and poll its state.json every 2 s; the summary gives page_p95, follow_p95, teacher_step_p95,
errors, bytes and requests per student and the server's CPU per student per minute.

It starts `streamlit run dashboard/app.py` itself on 127.0.0.1 and a free port
(or, with --deploy K, deploy/nblab_deploy.py's K processes behind HAProxy with
the shares on PostgreSQL; with --proxy URL it uses a deployment that runs),
waits for /_stcore/health, opens the page once (cold start, timed apart), then
runs the students: each is a websocket client speaking Streamlit's own protocol
(loadtest/stclient.py: BackMsg.rerun_script with widget_states, ForwardMsg
deltas / script_finished / auto_rerun), and does what a student does for
`--duration` seconds with a think time between actions (--profile busy:
0.5-2 s, calm: 3-8 s): moves the "labels hidden" and "λ" sliders, presses
Step, Play and Pause, drags the iteration slider, Reset, Run to convergence,
now and then another data set.

Play and the iteration slider belong to the lesson's browser player (the
components-v2 element `nbem_player_main`); the students send its traffic as
dashboard/lesson/player/player.js does: a student with the panels below the charts
in view (--lower-in-view, the share of students) sends the `refresh` trigger of
their marker (`nbem_player_lower`) whenever they show another state than the
charts (after the first page, after every action); Play = state `view` {run, t, revealed, playing: true, play}, then
while the playhead advances at the page's fps, a `need` trigger {run, upto,
t, revealed, play} whenever fewer than max(3, fps) iterations are left ahead
(at most one outstanding per 3 s, as the JS), Pause (or the run's end) = state
`view` with playing false; a drag of the slider = state `view` with the
iteration dropped on. Without the player (?player=off) Play is the server's
button and its auto-reruns, as before.

Through a proxy (--proxy/--deploy) a student first GETs the page, as a
browser does, and keeps the cookies the proxy sets (HAProxy's stickiness
cookie) for the websocket and uploads: which process each student landed on
is reported.

Measured:
  latency  send of a BackMsg -> ForwardMsg.script_finished of the run it caused
           (FINISHED_EARLY_FOR_RERUN is not an end: st.rerun(scope="app") from
           the fragment continues into a full run). Page loads and Play ticks
           (auto-reruns) are reported apart from interactions.
  errors   exception elements in the ForwardMsg deltas, compile errors,
           timeouts (> --run-timeout), dropped websockets, failed connects,
           tracebacks in the server log.
  memory   VmRSS of the server pid from /proc every second; peak, and growth
           over the warm second half of the run (MB and KB per interaction).

Every loop is bounded in count and time; the server is stopped at the end
(SIGTERM, then SIGKILL after 10 s), also on Ctrl-C. Exit status 0 when the
targets hold (0 errors, p95 < --p95-target s, warm growth < --growth-target
KB/interaction), 1 otherwise, 2 when the server did not start.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from loadtest.stclient import Session  # noqa: E402

MAX_ACTIONS_PER_SESSION = 2000   # hard bound on top of the time bound
MAX_TICKS_PER_PLAY = 40          # a Play lasts at most this many auto-reruns
PLAYER = "nbem_player_main"      # the lesson player's component key (dashboard/lesson/player)
LOWER = "nbem_player_lower"       # the marker of the panels below the charts (drawn when in view)
#: think time between a student's actions, seconds (--profile)
PROFILES = {"busy": (0.5, 2.0), "calm": (3.0, 8.0)}


# ---------------------------------------------------------------------------- server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(app: str, port: int, log_path: Path, extra: list[str] | None = None,
                 root: Path = ROOT) -> subprocess.Popen:
    """`streamlit run <app>` from the checkout ``root`` (its own packages first on the path)."""
    cmd = [sys.executable, "-m", "streamlit", "run", app,
           "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
           "--server.runOnSave", "false"] + list(extra or [])
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if root != ROOT:
        env["PYTHONPATH"] = str(root)
    return subprocess.Popen(cmd, cwd=str(root), stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)


def wait_health(port: int, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    t0 = time.perf_counter()
    url = f"http://127.0.0.1:{port}/_stcore/health"
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return time.perf_counter() - t0
        except Exception:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"no answer from {url} within {timeout:.0f} s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process (and its waited-for children), from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return sum(int(x) for x in fields[11:15]) / ticks
    except (OSError, ValueError, IndexError):
        return None


def rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


# ---------------------------------------------------------------------------- stats
@dataclass
class Stats:
    latencies: dict = field(default_factory=lambda: {"interaction": [], "load": [], "tick": [], "need": [],
                                                     "lower": []})
    by_action: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)        # (session, action, what)
    error_alerts: list = field(default_factory=list)  # st.error texts shown (not counted as errors)
    interactions: int = 0
    sessions_started: int = 0
    sessions_completed: int = 0
    shared_seen: int = 0      # --shared: students whose first page showed the shared data set
    play_s: float = 0.0       # seconds students spent playing (the player's playhead running)
    stall_s: float = 0.0      # of which the playhead waited at the last iteration received (need late)
    plays: int = 0
    backends: Counter = field(default_factory=Counter)   # proxy cookie value -> students

    def record(self, name: str, action: str, res, kind: str = "interaction", detail: str = "") -> None:
        if res is None:
            return
        self.latencies[kind].append(res.latency)
        self.by_action.setdefault(action, []).append(res.latency)
        if kind != "load":
            self.interactions += 1
        if not res.ok:
            what = res.status if not res.exceptions else "; ".join(res.exceptions)[:300]
            self.errors.append((name, action, what, detail))


def pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


# ---------------------------------------------------------------------------- a student
class Student:
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
        try:
            if self.via_proxy:
                code = await self.s.fetch_page()
                if code != 200:
                    self.stats.errors.append((self.name, "page", f"HTTP {code} for the page"))
                    return
                self.stats.backends[self.s.cookies.get(self.cookie_name, "(no cookie)")] += 1
            await self.s.connect()
        except Exception as e:  # noqa: BLE001
            self.stats.errors.append((self.name, "connect", repr(e)[:300]))
            return
        try:
            res = await self.s.load()
            if not self._check("load", res, "load"):
                return
            if self.reads_lower and self.s.component(LOWER) is not None:
                # the browser draws the charts (about a second), then asks for the panels below them
                await self._sleep(self.rng.uniform(0.5, 1.5))
                if not await self.follow_lower():
                    return
            if self.expect_text is not None:
                if any(self.expect_text in t for t in self.s.texts):
                    self.stats.shared_seen += 1
                else:
                    self.stats.errors.append((self.name, "load", f"shared data set not shown (no '{self.expect_text}')"))
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

    async def follow_lower(self) -> bool:
        """What the player does for a student who has the panels below the charts in view: when they show
        another state than the charts (their marker's ``drawn`` against the main mount's ``lower``), it
        asks for them (trigger ``refresh``: one rerun of their fragment)."""
        if not self.reads_lower:
            return True
        main, low = self.s.component(PLAYER), self.s.component(LOWER)
        if main is None or low is None:
            return True
        want = main.head.get("lower")
        if not want or want == low.head.get("drawn"):
            return True
        return self._check("lower", await self.s.component_trigger(LOWER, "refresh", want), "lower")

    async def act(self) -> bool:
        rng, s = self.rng, self.s
        choices = [("hidden", 3), ("lam", 3), ("step", 5), ("play", 3), ("scrub", 2), ("reset", 1),
                   ("converge", 1), ("dataset", 1)]
        action = rng.choices([c for c, _ in choices], [w for _, w in choices])[0]
        # Play and the iteration slider are the browser player's when the page has it
        player = s.component(PLAYER)
        if action == "play" and player is not None:
            return await self.play_player()
        if action == "scrub" and player is not None:
            return await self.drag_player()
        if action in ("step", "converge", "reset", "play") and not self._usable(action):
            action = "reset" if self._usable("reset") else "hidden"
        scrub = self._scrub_key()
        if action == "scrub" and scrub is None:
            action = "step" if self._usable("step") else "lam"
        if action == "hidden" and self._usable("hidden"):
            v = rng.randrange(10, 100, 5)
            self.detail = f"hidden={v}"
            return self._check(action, await s.set_value("hidden", v))
        if action == "lam" and self._usable("lam"):
            v = rng.choice(list(s.widget("lam").proto.options))
            self.detail = f"lam={v}"
            return self._check(action, await s.set_value("lam", v))
        if action == "scrub":
            w = s.widget(scrub)
            return self._check(action, await s.set_value(scrub, rng.randint(int(w.proto.min), int(w.proto.max))))
        if action == "dataset" and self._usable("dataset"):
            opts = [o for o in s.widget("dataset").proto.options if o != "upload"]
            v = rng.choice(opts)
            self.detail = f"dataset={v} (page: {[t for t in s.texts if t.startswith('**Status:**')][-1:]})"
            return self._check(action, await s.set_value("dataset", v))
        if action == "play":
            return await self.play()
        if action in ("step", "reset", "converge") and self._usable(action):
            self.detail = action
            return self._check(action, await s.click(action))
        return True

    def _scrub_key(self) -> str | None:
        """The server's iteration scrubber (without the player): its key is scrub_<run serial>_<snapshots>,
        the newest enabled one is on the page."""
        keys = [k for k, w in self.s.widgets.items() if k.startswith("scrub_") and k[6:7].isdigit() and not w.disabled]
        return keys[-1] if keys else None

    def _view(self, t: int, revealed: int, playing: bool) -> dict:
        h = self.s.component(PLAYER).head
        return {"run": h.get("run"), "t": int(t), "revealed": int(revealed), "playing": playing, "play": self.play_id}

    async def drag_player(self) -> bool:
        """Drag the player's iteration slider: the browser redraws by itself and, 250 ms after the
        pointer is released, reports the iteration shown (state `view`, playing false)."""
        h = self.s.component(PLAYER).head
        n = int(h.get("n") or 1)
        if n <= 1:   # nothing to drag yet: a Step instead, as a student would
            self.detail = "step (nothing to drag)"
            return self._check("step", await self.s.click("step")) if self._usable("step") else True
        t = self.rng.randrange(n)
        self.detail = f"drag to t={t} of {n - 1}"
        await asyncio.sleep(0.25)
        return self._check("scrub", await self.s.set_component_state(PLAYER, "view", self._view(t, n - 1, False)))

    async def play_player(self) -> bool:
        """Play in the browser player for 2-5 s, sending what player.js sends, then Pause."""
        s, rng = self.s, self.rng
        h = s.component(PLAYER).head
        n, done, fps = int(h.get("n") or 1), bool(h.get("done")), max(1, int(h.get("fps") or 5))
        if n <= 1 and done:
            return True
        run = h.get("run")
        t = int(h.get("t") or 0)
        if t >= n - 1 and done:
            t = 0                      # at the end of a finished run: play it again from the start
        revealed = max(int(h.get("revealed") or 0), t)
        self.play_id += 1
        self.detail = f"play from t={t} of {n - 1}"
        if not self._check("play", await s.set_component_state(PLAYER, "view", self._view(t, revealed, True))):
            return False
        self.stats.plays += 1
        start = time.perf_counter()
        until = min(self.deadline, start + rng.uniform(2.0, 5.0))
        pending = 0.0
        chunk = max(5, -(-fps * 3 // 2))
        advanced_at = start
        why = "click"
        while True:
            now = time.perf_counter()
            # the playhead moves at fps over the iterations the browser held until now (n from before
            # the last need's answer): steps past the last one are time the playhead stood waiting
            steps = int((now - advanced_at) * fps)
            if steps:
                advanced_at += steps / fps
                if not done and t + steps > n - 1:
                    self.stats.stall_s += (t + steps - (n - 1)) / fps
                t = min(n - 1, t + steps)
                revealed = max(revealed, t)
            h = s.component(PLAYER).head
            if h.get("run") != run:     # a new run (another student action cannot happen here; a rebuild)
                why = "new run"
                break
            if int(h.get("n") or 1) != n or bool(h.get("done")) != done:
                pending = 0.0           # the frames asked for have come
            n, done = int(h.get("n") or 1), bool(h.get("done"))
            if t >= n - 1 and done:
                why = "end"
                break
            if now >= until:
                break
            if not done and n - 1 - t < max(3, fps) and (not pending or now - pending >= 3.0):
                pending = now
                need = {"run": run, "upto": n - 1 + chunk, "t": t, "revealed": revealed, "play": self.play_id}
                self.detail = f"need upto {need['upto']} at t={t}"
                if not self._check("need", await s.component_trigger(PLAYER, "need", need), "need"):
                    return False
                continue
            await asyncio.sleep(min(1.0 / fps, max(0.0, until - now)) or 0.01)
        self.stats.play_s += time.perf_counter() - start
        if why == "new run":
            return True
        self.detail = f"pause ({why}) at t={t} of {n - 1}"
        return self._check("pause", await s.set_component_state(PLAYER, "view", self._view(t, revealed, False)))

    async def play(self) -> bool:
        """Play, follow the auto-reruns like the browser does for a few seconds, then Pause."""
        s = self.s
        if not self._check("play", await s.click("play")):
            return False
        until = min(self.deadline, time.perf_counter() + self.rng.uniform(2.0, 5.0))
        ticks = 0
        while s.auto_reruns and time.perf_counter() < until and ticks < MAX_TICKS_PER_PLAY:
            interval = next(iter(s.auto_reruns.values()))
            await asyncio.sleep(interval)
            ticks += 1
            if not self._check("tick", await s.auto_tick(), "tick"):
                return False
        w = s.widget("pause")
        if s.auto_reruns and w is not None and not w.disabled:
            return self._check("pause", await s.click("pause"))
        return True


# ---------------------------------------------------------------------------- real browsers
async def browser_check(url: str, n: int, deadline: float, executable: str) -> dict:
    """A few real Chromium pages next to the simulated students: load, Step, look for tracebacks."""
    out = {"pages": n, "loaded": 0, "steps": 0, "step_latencies": [], "load_latencies": [], "errors": []}
    try:
        from playwright.async_api import async_playwright
    except Exception as e:  # noqa: BLE001
        out["errors"].append(f"playwright unavailable: {e!r}")
        return out
    if not Path(executable).exists():
        out["errors"].append(f"{executable} not found: browser check skipped")
        return out
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=executable, args=args, headless=True)
        try:
            async def one(i: int):
                ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
                page = await ctx.new_page()
                try:
                    t0 = time.perf_counter()
                    await page.goto(url, timeout=90_000)
                    await page.get_by_text("Iteration", exact=True).first.wait_for(timeout=90_000)
                    out["load_latencies"].append(time.perf_counter() - t0)
                    out["loaded"] += 1
                    k = 0
                    while time.perf_counter() < deadline and k < 20:
                        k += 1
                        # .first: while a rerun replaces the fragment, the old and new button can coexist
                        step = page.get_by_role("button", name=re.compile("Step")).first
                        if await step.is_disabled():
                            await page.get_by_role("button", name=re.compile("Reset")).first.click()
                            await page.wait_for_timeout(1500)
                            continue
                        metric = page.locator('[data-testid="stMetricValue"]').first
                        before = (await metric.inner_text()).strip()
                        t0 = time.perf_counter()
                        await step.click()
                        for _ in range(300):  # bounded wait for the iteration number to change
                            if (await metric.inner_text()).strip() != before:
                                break
                            await page.wait_for_timeout(20)
                        out["step_latencies"].append(time.perf_counter() - t0)
                        out["steps"] += 1
                        if await page.locator('[data-testid="stException"]').count():
                            out["errors"].append(f"browser {i}: exception shown: "
                                                 + (await page.locator('[data-testid="stException"]').first.inner_text())[:300])
                            break
                        await page.wait_for_timeout(1500)
                except Exception as e:  # noqa: BLE001
                    out["errors"].append(f"browser {i}: {type(e).__name__}: {str(e)[:200]}")
                finally:
                    await ctx.close()
            await asyncio.gather(*(one(i) for i in range(n)))
        finally:
            await browser.close()
    return out


# ---------------------------------------------------------------------------- main
async def run_students(ports: list[int], args, stats: Stats, pids: list[int]) -> dict:
    """Students are spread round-robin over the servers (= sticky sessions behind a proxy), or all
    go to the proxy (--proxy/--deploy), which spreads them."""
    if args.proxy:
        http_base = args.proxy.rstrip("/")
        urls = [http_base.replace("https://", "wss://").replace("http://", "ws://") + "/_stcore/stream"]
    else:
        http_base = f"http://127.0.0.1:{ports[0]}"
        urls = [f"ws://127.0.0.1:{p}/_stcore/stream" for p in ports]

    def total_rss():
        vals = [rss_mb(p) for p in pids]
        return None if not vals or any(v is None for v in vals) else sum(vals)
    mem: list[tuple[float, float, int]] = []   # (t, rss MB, interactions so far)
    loadavg: list[tuple[float, float]] = []    # (t, 1-minute load average)
    per_proc_peak = [0.0] * len(pids)          # MB, each server process
    t_start = time.perf_counter()
    stop = asyncio.Event()

    async def sampler():
        n = 0
        while not stop.is_set() and n < int(args.waves * (args.ramp + args.duration + args.settle + 2 * args.run_timeout + 120) + 60):
            n += 1
            r = total_rss()
            if r is not None:
                mem.append((time.perf_counter() - t_start, r, stats.interactions))
                for i, pid in enumerate(pids):
                    per_proc_peak[i] = max(per_proc_peak[i], rss_mb(pid) or 0.0)
            loadavg.append((time.perf_counter() - t_start, os.getloadavg()[0]))
            try:
                await asyncio.wait_for(stop.wait(), timeout=1.0)
            except asyncio.TimeoutError:
                pass

    samp = asyncio.create_task(sampler())

    # cold start: the first page view imports numpy/plotly/sklearn in the server; timed apart
    cold = None
    # through the proxy: one cold page per process, each pinned by its stickiness cookie
    colds = [(urls[0], {args.cookie_name: v}) for v in args.backend_cookies] if args.proxy else \
        [(u, {}) for u in urls]
    for u, jar in colds:
        first = Session(u, name="cold", run_timeout=max(60.0, args.run_timeout), cookies=jar)
        try:
            await first.connect()
            r = await first.load()
            cold = r.latency if cold is None else max(cold, r.latency)
            if not r.ok:
                stats.errors.append(("cold", "load", r.status + " " + "; ".join(r.exceptions)[:300]))
        except Exception as e:  # noqa: BLE001
            stats.errors.append(("cold", "connect", repr(e)[:300]))
        finally:
            await first.close()
    rss_warm0 = total_rss()
    cpu0 = [cpu_seconds(p) for p in pids]
    gen0 = cpu_seconds(os.getpid())
    n0 = stats.interactions + len(stats.latencies["load"])   # every script run: interactions, ticks, page loads

    t_students = time.perf_counter()
    master = random.Random(args.seed)
    browser = None
    waves = []
    for wave in range(args.waves):
        w_start = time.perf_counter()
        deadline = w_start + args.ramp + args.duration
        students = [Student(wave * 1000 + i, urls[i % len(urls)], stats, deadline, random.Random(master.random()),
                            (args.think_min, args.think_max), args.run_timeout, not args.no_initial_values,
                            query_string=args.query_string, expect_text=args.expect_text,
                            via_proxy=bool(args.proxy), cookie_name=args.cookie_name,
                            reads_lower=int((i + 1) * args.lower_in_view) > int(i * args.lower_in_view))
                    for i in range(args.sessions)]

        async def start(st: Student, delay: float):
            await asyncio.sleep(delay)
            await st.run()

        tasks = [start(st, args.ramp * i / max(1, args.sessions)) for i, st in enumerate(students)]
        if args.browsers > 0 and wave == 0:
            http = http_base + "/" + (f"?{args.query_string}" if args.query_string else "")
            tasks.append(browser_check(http, args.browsers, deadline, args.chromium))
        hard_limit = args.ramp + args.duration + 2 * args.run_timeout + 120
        try:
            results = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), timeout=hard_limit)
        except asyncio.TimeoutError:
            results = []
            stats.errors.append(("all", "run", f"hard time limit {hard_limit:.0f} s hit"))
        for r in results:
            if isinstance(r, BaseException):
                stats.errors.append(("task", "run", repr(r)[:300]))
            elif isinstance(r, dict):
                browser = r
        w_end = time.perf_counter()
        peak = max((m[1] for m in mem if w_start - t_start <= m[0]), default=None)
        settled = None
        if args.waves > 1:
            # all students of this wave have closed their tabs: wait until the server may drop
            # their sessions (server.disconnectedSessionTTL, set by --waves), then read RSS
            await asyncio.sleep(args.settle)
            settled = total_rss()
        waves.append({"wave": wave + 1, "peak_rss_mb": _r(peak, 1), "settled_rss_mb": _r(settled, 1),
                      "seconds": round(w_end - w_start, 1), "interactions_so_far": stats.interactions})
    t_end = time.perf_counter() - t_start
    cpu1 = [cpu_seconds(p) for p in pids]
    gen1 = cpu_seconds(os.getpid())
    server_cpu = None
    if all(c is not None for c in cpu0 + cpu1):
        server_cpu = sum(b - a for a, b in zip(cpu0, cpu1))
    n_runs = stats.interactions + len(stats.latencies["load"]) - n0
    await asyncio.sleep(2.0)
    stop.set()
    await samp
    return {"mem": mem, "cold_load_s": cold, "rss_after_cold_mb": rss_warm0,
            "students_start_s": t_students - t_start, "students_end_s": t_end, "browser": browser,
            "waves": waves, "server_cpu_s": server_cpu, "server_runs": n_runs,
            "loadavg": loadavg, "per_process_peak_mb": per_proc_peak,
            "loadgen_cpu_s": None if gen0 is None or gen1 is None else gen1 - gen0,
            "students_wall_s": t_end - (t_students - t_start)}


def summarise(args, stats: Stats, run: dict, log_text: str, startup_s: float) -> dict:
    mem = run["mem"]
    rss = [m[1] for m in mem]
    t0, t1 = run["students_start_s"], run["students_end_s"]
    during = [m for m in mem if t0 <= m[0] <= t1]
    # warm phase: the second half of the student period
    mid = t0 + (t1 - t0) / 2
    warm = [m for m in during if m[0] >= mid]
    growth_mb = growth_kb_per = slope = None
    if len(warm) >= 2:
        growth_mb = warm[-1][1] - warm[0][1]
        n_int = warm[-1][2] - warm[0][2]
        growth_kb_per = (growth_mb * 1024 / n_int) if n_int else None
        # least-squares slope of RSS against interactions over the warm phase (robust to one spike)
        xs = [m[2] for m in warm]
        ys = [m[1] for m in warm]
        if len(set(xs)) > 1:
            mx, my = statistics.fmean(xs), statistics.fmean(ys)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs) * 1024
    tracebacks = log_text.count("Traceback (most recent call last)")
    lat = stats.latencies
    inter = lat["interaction"]
    summary = {
        "sessions": args.sessions, "replicas": args.replicas, "echo_initial_values": not args.no_initial_values, "duration_s": args.duration, "ramp_s": args.ramp,
        "think_s": [args.think_min, args.think_max], "profile": args.profile,
        "proxy": args.proxy, "deploy": args.deploy,
        "students_per_process": dict(sorted(stats.backends.items())) if args.proxy else None,
        "cpu_count": os.cpu_count(), "loadavg_before": args.loadavg_before,
        "server_startup_s": round(startup_s, 2),
        "cold_first_load_s": None if run["cold_load_s"] is None else round(run["cold_load_s"], 2),
        "sessions_started": stats.sessions_started, "sessions_completed": stats.sessions_completed,
        "interactions": len(inter), "play_ticks": len(lat["tick"]),
        "player": {"plays": stats.plays, "need_triggers": len(lat["need"]), "lower_refreshes": len(lat["lower"]),
                   "play_s": _r(stats.play_s, 1), "stalled_s": _r(stats.stall_s, 1),
                   "stalled_fraction": _r(stats.stall_s / stats.play_s, 3) if stats.play_s else None},
        "errors": len(stats.errors) + tracebacks, "server_log_tracebacks": tracebacks,
        "error_samples": stats.errors[:10],
        "st_error_messages_shown": len(stats.error_alerts),
        "st_error_samples": sorted(set(e[2] for e in stats.error_alerts))[:5],
        "latency_s": {
            kind: {"n": len(xs), "p50": _r(pct(xs, 0.5)), "p95": _r(pct(xs, 0.95)), "max": _r(max(xs) if xs else None)}
            for kind, xs in lat.items()},
        "latency_by_action_s": {a: {"n": len(xs), "p50": _r(pct(xs, 0.5)), "p95": _r(pct(xs, 0.95))}
                                for a, xs in sorted(stats.by_action.items())},
        "rss_mb": {"after_cold_load": _r(run["rss_after_cold_mb"], 1), "peak": _r(max(rss) if rss else None, 1),
                   "end": _r(rss[-1] if rss else None, 1),
                   "warm_growth": _r(growth_mb, 1), "warm_growth_kb_per_interaction": _r(growth_kb_per, 1),
                   "warm_slope_kb_per_interaction": _r(slope, 1)},
        "waves": run["waves"],
        "server_cpu": {
            "cpu_s": _r(run["server_cpu_s"], 1), "runs": run["server_runs"],
            "cpu_s_per_run": _r(run["server_cpu_s"] / run["server_runs"]) if run["server_cpu_s"] and run["server_runs"] else None,
            "cores_used": _r(run["server_cpu_s"] / run["students_wall_s"], 2) if run["server_cpu_s"] else None},
        "rss_samples": [(round(t, 1), round(r, 1), n) for t, r, n in mem],
        "rss_peak_per_process_mb": [_r(x, 1) for x in run["per_process_peak_mb"]],
        "loadavg_1min": _loadavg_summary(run["loadavg"], t0, t1),
        "loadgen_cores_used": _r(run["loadgen_cpu_s"] / run["students_wall_s"], 2) if run["loadgen_cpu_s"] else None,
        "browser": run["browser"],
    }
    if args.shared:
        # one "nblab: parsed shared data set" line per parse (dashboard/data/sharing.py), per server log
        parses = [text.count("nblab: parsed shared data set") for text in args.log_texts]
        summary["shared"] = {"file": args.shared, "bytes": args.shared_bytes, "id_prefix": args.share_id[:6],
                             "students_seeing_it": stats.shared_seen, "parses_per_process": parses,
                             "store_dir": args.store_dir}
    b = run["browser"]
    if b:
        b["step_p50"] = _r(pct(b["step_latencies"], 0.5))
        b["step_p95"] = _r(pct(b["step_latencies"], 0.95))
        b["load_max"] = _r(max(b["load_latencies"]) if b["load_latencies"] else None)
    p95 = pct(inter, 0.95)
    waves = run["waves"]
    wave_growth = None
    if len(waves) > 1 and all(w["settled_rss_mb"] is not None for w in waves):
        # the first wave also warms caches (imports, st.cache_data of the shipped sets, allocator
        # arenas): with 3+ waves compare the last wave with the second
        ref = waves[1] if len(waves) >= 3 else waves[0]
        wave_growth = waves[-1]["settled_rss_mb"] - ref["settled_rss_mb"]
        summary["rss_mb"]["growth_between_waves"] = _r(wave_growth, 1)
        summary["rss_mb"]["growth_compared"] = f"wave {ref['wave']} -> wave {waves[-1]['wave']}"
    if not rss:   # --proxy without --deploy-state: the servers' memory is not visible here
        summary["rss_mb"]["note"] = "server processes not known (give --deploy-state): memory not measured"
    checks = {
        "zero_errors": summary["errors"] == 0 and stats.sessions_completed == stats.sessions_started == args.sessions * args.waves,
        f"p95_under_{args.p95_target:g}s": p95 is not None and p95 < args.p95_target,
        "memory_bounded": (wave_growth < args.wave_growth_target if wave_growth is not None
                           else growth_kb_per is not None and growth_kb_per < args.growth_target),
    }
    if not rss:
        del checks["memory_bounded"]
    if b:
        checks["browsers_ok"] = not b["errors"] and b["loaded"] == b["pages"]
    if args.shared:
        checks["shared_parsed_once_per_process"] = summary["shared"]["parses_per_process"] == [1] * args.replicas
        checks["every_student_saw_the_shared_data"] = stats.shared_seen == args.sessions * args.waves
    summary["checks"] = checks
    summary["passed"] = all(checks.values())
    return summary


def _loadavg_summary(samples, t0: float, t1: float) -> dict:
    """The 1-minute load average while the students acted: its peak, its mean over the second half
    (the 1-minute average lags the start by about a minute) and its value at the end."""
    during = [v for t, v in samples if t0 <= t <= t1]
    late = [v for t, v in samples if t0 + (t1 - t0) / 2 <= t <= t1]
    return {"peak": _r(max(during), 2) if during else None,
            "mean_second_half": _r(statistics.fmean(late), 2) if late else None,
            "end": _r(during[-1], 2) if during else None}


def _r(x, nd=3):
    return None if x is None else round(x, nd)


def print_table(s: dict) -> None:
    L = s["latency_s"]
    rows = [
        ("sessions (started / completed)", f"{s['sessions_started']} / {s['sessions_completed']} of {s['sessions'] * len(s['waves'])}"
                                           f" on {s['replicas']} server process(es)"),
        ("machine: cores / load average before", f"{s['cpu_count']} / {s['loadavg_before']}"),
        ("load average (1 min) during: peak / mean 2nd half / end",
         f"{s['loadavg_1min']['peak']} / {s['loadavg_1min']['mean_second_half']} / {s['loadavg_1min']['end']}"
         f"   (load generator itself: {s['loadgen_cores_used']} cores)"),
        ("duration per student", f"{s['duration_s']:g} s (ramp {s['ramp_s']:g} s, profile {s['profile']}: "
                                 f"think {s['think_s'][0]:g}-{s['think_s'][1]:g} s)"),
        ("server start / cold first page", f"{s['server_startup_s']} s / {s['cold_first_load_s']} s"),
        ("interactions / Play ticks", f"{s['interactions']} / {s['play_ticks']}"),
        ("errors (of which server tracebacks)", f"{s['errors']} ({s['server_log_tracebacks']})"),
        ("st.error messages shown to students", f"{s['st_error_messages_shown']}"),
        ("interaction -> script_finished p50 / p95 / max",
         f"{L['interaction']['p50']} / {L['interaction']['p95']} / {L['interaction']['max']} s"),
        ("Play tick p50 / p95 (server Play, ?player=off)", f"{L['tick']['p50']} / {L['tick']['p95']} s"),
        ("player: plays / need triggers / lower refreshes", f"{s['player']['plays']} / {s['player']['need_triggers']} / "
                                                            f"{s['player']['lower_refreshes']}"),
        ("player: need -> frames p50 / p95 / max", f"{L['need']['p50']} / {L['need']['p95']} / {L['need']['max']} s"),
        ("player: time playing / playhead waiting for frames",
         f"{s['player']['play_s']} s / {s['player']['stalled_s']} s ({s['player']['stalled_fraction']})"),
        ("server CPU per run (interaction or tick) / cores used",
         f"{s['server_cpu']['cpu_s_per_run']} s / {s['server_cpu']['cores_used']}"),
        ("page load p50 / p95 / max", f"{L['load']['p50']} / {L['load']['p95']} / {L['load']['max']} s"),
        ("server RSS (all replicas) after cold load / peak / end",
         f"{s['rss_mb']['after_cold_load']} / {s['rss_mb']['peak']} / {s['rss_mb']['end']} MB"),
        ("RSS per wave (peak / after it left)",
         "  ".join(f"#{w['wave']}: {w['peak_rss_mb']} / {w['settled_rss_mb']}" for w in s["waves"]) + " MB"),
        ("RSS growth, warm half", f"{s['rss_mb']['warm_growth']} MB = {s['rss_mb']['warm_growth_kb_per_interaction']} KB/interaction "
                                  f"(slope {s['rss_mb']['warm_slope_kb_per_interaction']} KB/interaction)"),
    ]
    if s.get("proxy"):
        rows.insert(1, ("through the proxy / students per process",
                        f"{s['proxy']} / {s['students_per_process']}  (RSS peak per process "
                        f"{s['rss_peak_per_process_mb']} MB)"))
    if s.get("shared"):
        sh = s["shared"]
        rows.append(("shared link: students who saw it / parses per process",
                     f"{sh['students_seeing_it']} / {sh['parses_per_process']} ({sh['file']}, {sh['bytes']:,} bytes)"))
    b = s.get("browser")
    if b:
        rows.append(("real browsers (loaded / steps / errors)", f"{b['loaded']}/{b['pages']} / {b['steps']} / {len(b['errors'])}"))
        rows.append(("browser Step -> new iteration p50 / p95", f"{b['step_p50']} / {b['step_p95']} s"))
    w = max(len(r[0]) for r in rows)
    print()
    for k, v in rows:
        print(f"  {k:<{w}}  {v}")
    print("\n  by action (n, p50, p95 s):  " + ",  ".join(
        f"{a} {d['n']} {d['p50']} {d['p95']}" for a, d in s["latency_by_action_s"].items()))
    for e in s["error_samples"]:
        print("  ERROR", e)
    if b:
        for e in b["errors"]:
            print("  BROWSER", e)
    print("\n  checks: " + ", ".join(f"{k}={'ok' if v else 'FAIL'}" for k, v in s["checks"].items())
          + f"  => {'PASS' if s['passed'] else 'FAIL'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=30, help="simulated students (default 30)")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds each student keeps interacting (default 60)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 3 sessions, 10 s, no browsers")
    ap.add_argument("--ramp", type=float, default=None,
                    help="students join evenly over this many seconds (default 5; 10 with --class-link)")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="busy",
                    help="how often a student acts: busy = every 0.5-2 s, calm = every 3-8 s (default busy)")
    ap.add_argument("--think-min", type=float, default=None, help="seconds between actions, low end (overrides --profile)")
    ap.add_argument("--think-max", type=float, default=None, help="seconds between actions, high end (overrides --profile)")
    ap.add_argument("--browsers", type=int, default=None,
                    help="real Chromium pages beside the clients (default 2, 0 = none; with --class-link default 0)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--run-timeout", type=float, default=30.0, help="a run slower than this is an error")
    ap.add_argument("--p95-target", type=float, default=2.0)
    ap.add_argument("--growth-target", type=float, default=50.0, help="KB of RSS per interaction, warm half")
    ap.add_argument("--waves", type=int, default=1,
                    help="run the students this many times one after the other (new sessions each wave); "
                         "with >1 the server gets --server.disconnectedSessionTTL 5 and the memory check compares "
                         "the RSS after each wave has left (no growth from wave to wave = no leak)")
    ap.add_argument("--settle", type=float, default=15.0, help="seconds to wait after a wave before reading RSS")
    ap.add_argument("--wave-growth-target", type=float, default=10.0,
                    help="MB of RSS growth allowed from wave 2 to the last wave (wave 1 to 2 when --waves 2)")
    ap.add_argument("--no-initial-values", action="store_true",
                    help="do not echo the values of widgets the student never touched (the browser does); "
                         "a workaround for measuring around a bug that this echo triggers")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--lower-in-view", type=float, default=0.5, metavar="FRACTION",
                    help="share of students with the panels below the charts in view: the browser asks for them "
                         "after every action (default 0.5; 0 = nobody scrolls down, 1 = everybody reads them)")
    ap.add_argument("--app", default="dashboard/app.py")
    ap.add_argument("--port", type=int, default=0, help="default: a free port")
    ap.add_argument("--replicas", type=int, default=1,
                    help="start this many servers; students are spread over them like sticky sessions (default 1)")
    ap.add_argument("--proxy", metavar="URL",
                    help="go through a running deployment's proxy (http://host:port) instead of starting servers; "
                         "with --deploy-state its processes' memory and CPU are measured too")
    ap.add_argument("--deploy-state", metavar="DIR",
                    help="with --proxy: the state directory of deploy/nblab_deploy.py (pids, logs, cookie values)")
    ap.add_argument("--deploy", type=int, metavar="K", default=0,
                    help="start deploy/nblab_deploy.py with K processes behind HAProxy and shares on PostgreSQL "
                         "(a temporary state directory), go through its proxy, stop it at the end")
    ap.add_argument("--shared", metavar="CSV",
                    help="shared-link scenario: store this CSV in a fresh share store (a temporary NBLAB_STORE_DIR "
                         "the servers use too) and have every student open the same ?dataset=shared&data=<id> link "
                         "(use --ramp 0 for all at once); checks that the file is parsed once per server process")
    ap.add_argument("--class-link", action="store_true",
                    help="class-link scenario (loadtest/class_link.py): a teacher opens a class and Steps every "
                         "--teacher-every seconds; --sessions students open /class/<cid> like a browser (page, "
                         "assets, data) and poll its state.json; reports page_p95, follow_p95, teacher_step_p95")
    ap.add_argument("--class-data", default="sms_spam", help="--class-link: the class's data key (default sms_spam)")
    ap.add_argument("--teacher-every", type=float, nargs=2, default=[3.0, 5.0], metavar=("MIN", "MAX"),
                    help="--class-link: seconds between the teacher's Steps (default 3 5)")
    ap.add_argument("--teacher", choices=["auto", "streamlit", "store"], default="auto",
                    help="--class-link: the teacher is a Streamlit session pressing 'Open for the class' and Step "
                         "(streamlit), or dashboard.classroom.publish called directly (store); auto = streamlit "
                         "when the lesson page has the button, else store")
    ap.add_argument("--spy", metavar="DIR",
                    help="--class-link: py-spy records each app process while the students are there (raw stacks "
                         "in DIR/app<i>.txt); the summary's `profile` lists the functions with the most samples")
    ap.add_argument("--json", metavar="FILE", help="also write the summary as JSON ('-' = stdout)")
    ap.add_argument("--server-arg", action="append", default=[], help="extra `streamlit run` flag, repeatable")
    args = ap.parse_args(argv)
    if args.ramp is None:
        args.ramp = 10.0 if args.class_link else 5.0
    if args.browsers is None:
        args.browsers = 0 if args.class_link else 2
    if args.quick:
        args.sessions, args.duration, args.browsers, args.ramp = 3, 10.0, 0, 1.0
    lo, hi = PROFILES[args.profile]
    args.think_min = lo if args.think_min is None else args.think_min
    args.think_max = hi if args.think_max is None else args.think_max
    if not 0 <= args.think_min <= args.think_max:
        ap.error(f"think times must satisfy 0 <= min <= max (got {args.think_min:g}..{args.think_max:g})")
    if args.deploy and args.proxy:
        ap.error("--deploy starts its own proxy: give --deploy or --proxy, not both")
    if args.deploy_state and not args.proxy:
        ap.error("--deploy-state goes with --proxy URL")
    if (args.deploy or args.proxy) and (args.replicas != 1 or args.shared):
        ap.error("--replicas and --shared start their own servers; with --deploy/--proxy the deployment decides")
    if args.proxy and not re.match(r"^https?://[^/\s]+/?$", args.proxy):
        ap.error(f"--proxy wants the deployment's address like http://host:8080 (got {args.proxy!r})")
    if not 0 <= args.deploy <= 8:
        ap.error("--deploy takes 1 to 8 processes")
    if args.class_link and (args.shared or args.waves != 1 or args.replicas != 1):
        ap.error("--class-link goes with --deploy K, --proxy URL [--deploy-state DIR] or one server it starts; "
                 "not with --shared, --waves or --replicas")
    args.sessions = max(1, min(args.sessions, 5000 if args.class_link else 500))
    args.duration = max(1.0, min(args.duration, 3600.0))

    args.replicas = max(1, min(args.replicas, 8))
    args.waves = max(1, min(args.waves, 10))
    if args.waves > 1:
        args.server_arg = ["--server.disconnectedSessionTTL", "5"] + list(args.server_arg)
    args.loadavg_before = [round(x, 2) for x in os.getloadavg()]
    args.query_string, args.expect_text = "", None
    if args.shared:
        import importlib
        try:   # the store package's place in the app (it moved with the dashboard's subfolders)
            share_store = importlib.import_module("dashboard.data.store")
        except ModuleNotFoundError:
            share_store = importlib.import_module("dashboard.store")
        data = Path(args.shared).read_bytes()
        args.store_dir = tempfile.mkdtemp(prefix="loadtest_store_")
        os.environ["NBLAB_STORE_DIR"] = args.store_dir       # the servers inherit it
        os.environ.pop("NBLAB_STORE_URL", None)
        url, limits = share_store.settings()
        st_ = share_store.open_store(url, limits)
        receipt = st_.put(Path(args.shared).name, data, {}, owner="loadtest")
        st_.close()
        args.share_id, args.shared_bytes = receipt.id, len(data)
        args.query_string = f"dataset=shared&data={receipt.id}"
        args.expect_text = share_store.clean_name(Path(args.shared).name)
        print(f"shared {args.shared} ({len(data):,} bytes) as data={receipt.id[:6]}… in {args.store_dir}", flush=True)
    args.cookie_name, args.backend_cookies = "NBLAB", []
    if args.class_link:
        args.teacher_every = sorted(max(0.2, x) for x in args.teacher_every)
        return run_class_link(args)
    if args.deploy or args.proxy:
        return run_through_proxy(args)
    ports = [args.port or free_port()] + [free_port() for _ in range(args.replicas - 1)]
    procs, logs = [], []
    try:
        for port in ports:
            log_path = Path(tempfile.gettempdir()) / f"loadtest_server_{port}.log"
            print(f"starting streamlit on 127.0.0.1:{port} (log {log_path}) ...", flush=True)
            logs.append(log_path)
            procs.append(start_server(args.app, port, log_path, args.server_arg))
        try:
            startup = max(wait_health(port, proc) for port, proc in zip(ports, procs))
        except RuntimeError as e:
            print(f"server did not start: {e}\n{logs[-1].read_text()[-3000:]}", file=sys.stderr)
            return 2
        print(f"{len(procs)} server(s) up in {startup:.1f} s (pids {[p.pid for p in procs]}); "
              f"{args.sessions} students for {args.duration:g} s ...", flush=True)
        stats = Stats()
        run = asyncio.run(run_students(ports, args, stats, [p.pid for p in procs]))
    finally:
        for proc in procs:
            stop_server(proc)
    args.log_texts = [p.read_text(errors="replace") for p in logs]
    return report(args, stats, run, startup)


def report(args, stats: Stats, run: dict, startup: float) -> int:
    log_text = "\n".join(args.log_texts)
    summary = summarise(args, stats, run, log_text, startup)
    if summary["server_log_tracebacks"]:
        i = log_text.find("Traceback")
        summary["server_log_excerpt"] = log_text[i:i + 2000]
    print_table(summary)
    if args.json:
        text = json.dumps(summary, indent=2, default=str)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text)
    return 0 if summary["passed"] else 1


def run_through_proxy(args) -> int:
    """--deploy K: start deploy/nblab_deploy.py (K processes, HAProxy, PostgreSQL) in a temporary state
    directory, run the students through its proxy, stop it. --proxy URL: a deployment that runs."""
    state_dir = args.deploy_state
    started = False
    t0 = time.perf_counter()
    if args.deploy:
        state_dir = start_deployment(args)
        if state_dir is None:
            return 2
        started = True
    try:
        st = {}
        if state_dir:
            try:
                st = json.loads((Path(state_dir) / "state.json").read_text())
            except (OSError, ValueError) as e:
                print(f"no deployment state in {state_dir}: {e}", file=sys.stderr)
                return 2
        args.proxy = args.proxy or st["url"]
        procs = st.get("processes", [])
        pids = [p["pid"] for p in procs]
        args.cookie_name = st.get("cookie", "NBLAB")
        args.backend_cookies = [p["name"] for p in procs]
        args.replicas = len(procs) or 1
        logs = [Path(p["log"]) for p in procs]
        offsets = [f.stat().st_size if f.exists() else 0 for f in logs]   # this run's part of each log
        try:
            with urllib.request.urlopen(args.proxy.rstrip("/") + "/_stcore/health", timeout=10) as r:
                ok = r.status == 200
        except OSError as e:
            print(f"the proxy at {args.proxy} does not answer: {e}", file=sys.stderr)
            return 2
        if not ok:
            print(f"the proxy at {args.proxy} answers but not healthy", file=sys.stderr)
            return 2
        startup = time.perf_counter() - t0
        print(f"through {args.proxy} ({len(procs) or '?'} process(es), pids {pids or 'not known'}); "
              f"{args.sessions} students, profile {args.profile}, for {args.duration:g} s ...", flush=True)
        stats = Stats()
        run = asyncio.run(run_students([], args, stats, pids))
        args.log_texts = []
        for f, off in zip(logs, offsets):
            with open(f, "rb") as fh:
                fh.seek(off)
                args.log_texts.append(fh.read().decode(errors="replace"))
    finally:
        if started:
            stop_deployment(state_dir)
    return report(args, stats, run, startup)


def start_deployment(args) -> str | None:
    """deploy/nblab_deploy.py start with --deploy K processes in a temporary state directory; its path, or
    None (said why) when it did not start."""
    state_dir = tempfile.mkdtemp(prefix="loadtest_deploy_")
    prefix = [sys.executable, str(ROOT / "deploy" / "nblab_deploy.py")]
    cmd = prefix + ["start", "--processes", str(args.deploy),
                    "--port", str(free_port()), "--bind", "127.0.0.1", "--state-dir", state_dir] + (
        ["--allow-root"] if os.geteuid() == 0 else [])
    for a in args.server_arg:
        cmd += ["--streamlit-arg=" + a]
    print("starting deploy/nblab_deploy.py", " ".join(cmd[len(prefix):]), flush=True)
    r = subprocess.run(cmd, cwd=str(ROOT), timeout=300)
    if r.returncode != 0:
        print(f"the deployment did not start (exit {r.returncode})", file=sys.stderr)
        return None
    return state_dir


def stop_deployment(state_dir: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "deploy" / "nblab_deploy.py"), "stop", "--purge",
                    "--state-dir", state_dir], cwd=str(ROOT), timeout=120)


# ---------------------------------------------------------------------------- --class-link
def run_class_link(args) -> int:
    """--class-link: a teacher's class link (/class/<cid>) opened by --sessions students who follow it
    (loadtest/class_link.py). With --deploy K / --proxy URL [--deploy-state DIR] through a deployment,
    else one `streamlit run dashboard/server.py` with a temporary SQLite store."""
    from loadtest import class_link

    started_deploy = None
    proc = None
    logs: list[Path] = []
    offsets: list[int] = []
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    t0 = time.perf_counter()
    try:
        if args.deploy or args.proxy:
            state_dir = args.deploy_state
            if args.deploy:
                state_dir = started_deploy = start_deployment(args)
                if state_dir is None:
                    return 2
            st = {}
            if state_dir:
                try:
                    st = json.loads((Path(state_dir) / "state.json").read_text())
                except (OSError, ValueError) as e:
                    print(f"no deployment state in {state_dir}: {e}", file=sys.stderr)
                    return 2
            base = (args.proxy or st["url"]).rstrip("/")
            procs = st.get("processes", [])
            groups = {"app": [p["pid"] for p in procs]}
            if st.get("haproxy"):
                groups["haproxy"] = [st["haproxy"]["pid"]]
            pg_data = st.get("pg_data")
            warm_targets = [f"http://127.0.0.1:{p['port']}" for p in procs if p.get("port")]
            logs = [Path(p["log"]) for p in procs]
            try:   # the key teachers type to open a class (deploy/nblab_deploy.py keeps it there)
                env["NBLAB_SHARE_KEY"] = (Path(state_dir) / "share_key").read_text().strip() if state_dir else \
                    env.get("NBLAB_SHARE_KEY", "")
            except OSError:
                pass
            if st.get("store_url"):
                env["NBLAB_STORE_URL"] = st["store_url"]
                env.pop("NBLAB_STORE_DIR", None)
            elif not os.environ.get("NBLAB_STORE_URL") and not os.environ.get("NBLAB_STORE_DIR"):
                print("warning: the deployment's store is not known (no --deploy-state): the teacher uses "
                      "this environment's store settings", file=sys.stderr)
            args.replicas = len(procs) or 1
            args.app_entry = "(the deployment's)"
        else:
            store_dir = tempfile.mkdtemp(prefix="loadtest_class_store_")
            env["NBLAB_STORE_DIR"] = store_dir
            env.pop("NBLAB_STORE_URL", None)
            port = args.port or free_port()
            log_path = Path(tempfile.gettempdir()) / f"loadtest_class_server_{port}.log"
            logs = [log_path]
            app = args.app if args.app != "dashboard/app.py" else "dashboard/server.py"
            args.app_entry = app
            print(f"starting streamlit run {app} on 127.0.0.1:{port} (store {store_dir}, log {log_path}) ...", flush=True)
            saved = dict(os.environ)
            os.environ.clear()
            os.environ.update(env)
            try:
                proc = start_server(app, port, log_path, args.server_arg)
            finally:
                os.environ.clear()
                os.environ.update(saved)
            try:
                wait_health(port, proc)
            except RuntimeError as e:
                print(f"server did not start: {e}\n{log_path.read_text()[-3000:]}", file=sys.stderr)
                return 2
            base = f"http://127.0.0.1:{port}"
            groups, pg_data, warm_targets = {"app": [proc.pid]}, None, [base]
        offsets = [f.stat().st_size if f.exists() else 0 for f in logs]
        startup = time.perf_counter() - t0
        print(f"class link through {base}: {args.sessions} students over {args.ramp:g} s, following for "
              f"{args.duration:g} s; a teacher Steps every {args.teacher_every[0]:g}-{args.teacher_every[1]:g} s"
              + (f"; {args.browsers} Chromium page(s)" if args.browsers else "") + " ...", flush=True)
        try:
            summary = asyncio.run(class_link.run_class(args, base, env, groups, pg_data, warm_targets))
        except RuntimeError as e:
            print(f"class-link run failed: {e}", file=sys.stderr)
            return 2
        texts = []
        for f, off in zip(logs, offsets):
            try:
                with open(f, "rb") as fh:
                    fh.seek(off)
                    texts.append(fh.read().decode(errors="replace"))
            except OSError:
                texts.append("")
    finally:
        if proc is not None:
            stop_server(proc)
        if started_deploy:
            stop_deployment(started_deploy)
    log_text = "\n".join(texts)
    tb = log_text.count("Traceback (most recent call last)")
    summary["server_log_tracebacks"] = tb
    if tb:
        i = log_text.find("Traceback")
        summary["server_log_excerpt"] = log_text[i:i + 2000]
        summary["errors"] += tb
        summary["checks"]["zero_errors"] = False
        summary["passed"] = False
    summary = {"mode": "class-link", "sessions": args.sessions, "duration_s": args.duration, "ramp_s": args.ramp,
               "deploy": args.deploy, "proxy": args.proxy, "processes": args.replicas, "entry": args.app_entry,
               "browsers": args.browsers, "teacher_every_s": list(args.teacher_every), "poll": "follow.intervalMs of the page",
               "cpu_count": os.cpu_count(), "loadavg_before": args.loadavg_before,
               "loadavg_after": [round(x, 2) for x in os.getloadavg()], "server_startup_s": round(startup, 1),
               **summary}
    class_link.print_summary(summary)
    if args.json:
        text = json.dumps(summary, indent=2, default=str)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text)
    return 0 if summary["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
