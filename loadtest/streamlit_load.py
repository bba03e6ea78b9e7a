"""The Streamlit load run: simulated students (student.py) on servers this run starts (``run_local``) or
through a deployment's proxy (``run_through_proxy``), with the servers' memory and CPU measured."""
from __future__ import annotations

import asyncio
import os
import random
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from loadtest import server
from loadtest.browsers import browser_check
from loadtest.procstat import cpu_seconds, rss_mb
from loadtest.report import report
from loadtest.stats import Stats, rnd
from loadtest.stclient import Session
from loadtest.student import Student


# ---------------------------------------------------------------------------- where the servers are
def run_local(args) -> int:
    """--replicas servers of --app started here; the students spread over them like sticky sessions."""
    ports = [args.port or server.free_port()] + [server.free_port() for _ in range(args.replicas - 1)]
    procs, logs = [], []
    try:
        for port in ports:
            log_path = Path(tempfile.gettempdir()) / f"loadtest_server_{port}.log"
            print(f"starting streamlit on 127.0.0.1:{port} (log {log_path}) ...", flush=True)
            logs.append(log_path)
            procs.append(server.start_server(args.app, port, log_path, args.server_arg))
        try:
            startup = max(server.wait_health(port, proc) for port, proc in zip(ports, procs))
        except RuntimeError as e:
            print(f"server did not start: {e}\n{logs[-1].read_text()[-3000:]}", file=sys.stderr)
            return 2
        print(f"{len(procs)} server(s) up in {startup:.1f} s (pids {[p.pid for p in procs]}); "
              f"{args.sessions} students for {args.duration:g} s ...", flush=True)
        stats = Stats()
        run = asyncio.run(run_students(ports, args, stats, [p.pid for p in procs]))
    finally:
        for proc in procs:
            server.stop_server(proc)
    args.log_texts = [p.read_text(errors="replace") for p in logs]
    return report(args, stats, run, startup)


def run_through_proxy(args) -> int:
    """--deploy K: start deploy/nblab_deploy.py (K processes, HAProxy, PostgreSQL) in a temporary state
    directory, run the students through its proxy, stop it. --proxy URL: a deployment that runs."""
    state_dir = args.deploy_state
    started = False
    t0 = time.perf_counter()
    if args.deploy:
        state_dir = server.start_deployment(args.deploy, args.server_arg)
        if state_dir is None:
            return 2
        started = True
    try:
        st = server.deployment_state(state_dir)
        if st is None:
            return 2
        procs = _use_deployment(args, st)
        pids = [p["pid"] for p in procs]
        logs = [Path(p["log"]) for p in procs]
        offsets = server.log_offsets(logs)   # this run's part of each log
        if not _proxy_healthy(args.proxy):
            return 2
        startup = time.perf_counter() - t0
        print(f"through {args.proxy} ({len(procs) or '?'} process(es), pids {pids or 'not known'}); "
              f"{args.sessions} students, profile {args.profile}, for {args.duration:g} s ...", flush=True)
        stats = Stats()
        run = asyncio.run(run_students([], args, stats, pids))
        args.log_texts = server.read_from(logs, offsets)
    finally:
        if started:
            server.stop_deployment(state_dir)
    return report(args, stats, run, startup)


def _use_deployment(args, st: dict) -> list[dict]:
    """The deployment's proxy, cookie and processes into args; its processes."""
    args.proxy = args.proxy or st["url"]
    procs = st.get("processes", [])
    args.cookie_name = st.get("cookie", "NBLAB")
    args.backend_cookies = [p["name"] for p in procs]
    args.replicas = len(procs) or 1
    return procs


def _proxy_healthy(proxy: str) -> bool:
    try:
        with urllib.request.urlopen(proxy.rstrip("/") + "/_stcore/health", timeout=10) as r:
            ok = r.status == 200
    except OSError as e:
        print(f"the proxy at {proxy} does not answer: {e}", file=sys.stderr)
        return False
    if not ok:
        print(f"the proxy at {proxy} answers but not healthy", file=sys.stderr)
    return ok


# ---------------------------------------------------------------------------- the students
class Sampler:
    """The servers' RSS (their sum and each one's peak) and the 1-minute load average, every second."""

    def __init__(self, pids: list[int], stats: Stats, t_start: float, max_samples: int):
        self.pids, self.stats, self.t_start, self.max_samples = pids, stats, t_start, max_samples
        self.mem: list[tuple[float, float, int]] = []   # (t, rss MB, interactions so far)
        self.loadavg: list[tuple[float, float]] = []    # (t, 1-minute load average)
        self.per_proc_peak = [0.0] * len(pids)          # MB, each server process
        self.stop = asyncio.Event()

    def total_rss(self) -> float | None:
        vals = [rss_mb(p) for p in self.pids]
        return None if not vals or any(v is None for v in vals) else sum(vals)

    async def run(self) -> None:
        n = 0
        while not self.stop.is_set() and n < self.max_samples:
            n += 1
            r = self.total_rss()
            if r is not None:
                self.mem.append((time.perf_counter() - self.t_start, r, self.stats.interactions))
                for i, pid in enumerate(self.pids):
                    self.per_proc_peak[i] = max(self.per_proc_peak[i], rss_mb(pid) or 0.0)
            self.loadavg.append((time.perf_counter() - self.t_start, os.getloadavg()[0]))
            try:
                await asyncio.wait_for(self.stop.wait(), timeout=1.0)
            except asyncio.TimeoutError:
                pass


def _urls(ports: list[int], args) -> tuple[str, list[str]]:
    """The page's HTTP base and the websocket URL(s) the students are spread over."""
    if args.proxy:
        http_base = args.proxy.rstrip("/")
        return http_base, [http_base.replace("https://", "wss://").replace("http://", "ws://") + "/_stcore/stream"]
    return f"http://127.0.0.1:{ports[0]}", [f"ws://127.0.0.1:{p}/_stcore/stream" for p in ports]


async def cold_pages(urls: list[str], args, stats: Stats) -> float | None:
    """The first page view of each server process (it imports numpy/plotly/sklearn), timed apart; through
    the proxy one per process, each pinned by its stickiness cookie."""
    cold = None
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
    return cold


def _students(args, wave: int, urls: list[str], stats: Stats, deadline: float, master: random.Random) -> list:
    return [Student(wave * 1000 + i, urls[i % len(urls)], stats, deadline, random.Random(master.random()),
                    (args.think_min, args.think_max), args.run_timeout, not args.no_initial_values,
                    query_string=args.query_string, expect_text=args.expect_text,
                    via_proxy=bool(args.proxy), cookie_name=args.cookie_name,
                    reads_lower=int((i + 1) * args.lower_in_view) > int(i * args.lower_in_view))
            for i in range(args.sessions)]


async def run_wave(args, wave: int, urls: list[str], http_base: str, stats: Stats, master: random.Random,
                   sampler: Sampler) -> tuple[dict, dict | None]:
    """One wave of --sessions students arriving over the ramp (and, in the first, the browsers): the
    wave's RSS (peak, and settled after it left when there are several waves) and the browsers' result."""
    w_start = time.perf_counter()
    deadline = w_start + args.ramp + args.duration

    async def start(st: Student, delay: float):
        await asyncio.sleep(delay)
        await st.run()

    students = _students(args, wave, urls, stats, deadline, master)
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
    browser = None
    for r in results:
        if isinstance(r, BaseException):
            stats.errors.append(("task", "run", repr(r)[:300]))
        elif isinstance(r, dict):
            browser = r
    w_end = time.perf_counter()
    peak = max((m[1] for m in sampler.mem if w_start - sampler.t_start <= m[0]), default=None)
    settled = None
    if args.waves > 1:
        # all students of this wave have closed their tabs: wait until the server may drop
        # their sessions (server.disconnectedSessionTTL, set by --waves), then read RSS
        await asyncio.sleep(args.settle)
        settled = sampler.total_rss()
    return {"wave": wave + 1, "peak_rss_mb": rnd(peak, 1), "settled_rss_mb": rnd(settled, 1),
            "seconds": round(w_end - w_start, 1), "interactions_so_far": stats.interactions}, browser


async def run_students(ports: list[int], args, stats: Stats, pids: list[int]) -> dict:
    """Students are spread round-robin over the servers (= sticky sessions behind a proxy), or all
    go to the proxy (--proxy/--deploy), which spreads them."""
    http_base, urls = _urls(ports, args)
    t_start = time.perf_counter()
    sampler = Sampler(pids, stats, t_start, int(args.waves * (args.ramp + args.duration + args.settle
                                                              + 2 * args.run_timeout + 120) + 60))
    samp = asyncio.create_task(sampler.run())
    cold = await cold_pages(urls, args, stats)
    rss_warm0 = sampler.total_rss()
    cpu0, gen0 = [cpu_seconds(p) for p in pids], cpu_seconds(os.getpid())
    n0 = stats.interactions + len(stats.latencies["load"])   # every script run: interactions, ticks, page loads
    t_students = time.perf_counter()
    master = random.Random(args.seed)
    browser, waves = None, []
    for wave in range(args.waves):
        w, b = await run_wave(args, wave, urls, http_base, stats, master, sampler)
        waves.append(w)
        browser = b or browser
    t_end = time.perf_counter() - t_start
    cpu1, gen1 = [cpu_seconds(p) for p in pids], cpu_seconds(os.getpid())
    server_cpu = sum(b - a for a, b in zip(cpu0, cpu1)) if all(c is not None for c in cpu0 + cpu1) else None
    n_runs = stats.interactions + len(stats.latencies["load"]) - n0
    await asyncio.sleep(2.0)
    sampler.stop.set()
    await samp
    return {"mem": sampler.mem, "cold_load_s": cold, "rss_after_cold_mb": rss_warm0,
            "students_start_s": t_students - t_start, "students_end_s": t_end, "browser": browser,
            "waves": waves, "server_cpu_s": server_cpu, "server_runs": n_runs,
            "loadavg": sampler.loadavg, "per_process_peak_mb": sampler.per_proc_peak,
            "loadgen_cpu_s": None if gen0 is None or gen1 is None else gen1 - gen0,
            "students_wall_s": t_end - (t_students - t_start)}
