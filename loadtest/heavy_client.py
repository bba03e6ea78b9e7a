#!/usr/bin/env python
"""One client's heavy sessions against another student's Step, and the memory a wave leaves behind.

    python loadtest/heavy_client.py --sessions 12            # this checkout
    python loadtest/heavy_client.py --sessions 30 --root /tmp/wt --after 180

Starts one server (``server.start_server``, from ``--root``: a checkout or worktree), opens
``--sessions`` tabs of one client that each upload a ~4.9 MB, 20,000-word CSV and press Run to
convergence, while another student (its own tab) presses Step every ``--step-every`` seconds. Reports
that student's Step latency (p50 / p95 / max, over the wave), the heavy sessions' own times, the
server's RSS before the wave, at its peak and ``--after`` seconds after the wave's tabs closed
(Streamlit drops a closed tab's session after server.disconnectedSessionTTL, set here with
``--ttl``), and the 1-minute load average before and during the run.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadtest import procstat, stclient  # noqa: E402
from loadtest.server import free_port, start_server, stop_server, wait_health  # noqa: E402


def make_csv(limit: int = 4_900_000, vocab: int = 30_000, seed: int = 0) -> bytes:
    import numpy as np

    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocab)])
    lines, size = ["text,label"], 11
    while size < limit - 200:
        doc = " ".join(rng.choice(words, 8))
        line = f"{doc},{'abcd'[rng.integers(4)] if rng.random() < 0.05 else ''}"
        lines.append(line)
        size += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


def rss_mb(pid: int) -> float:
    """The process's RSS in MB (NaN when it cannot be read, so the printed lines still format)."""
    v = procstat.rss_mb(pid)
    return float("nan") if v is None else v


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


async def heavy_tab(url: str, i: int, data: bytes, out: list) -> "stclient.Session":
    s = stclient.Session(url, name=f"heavy{i}", run_timeout=900)
    await s.connect()
    t0 = time.perf_counter()
    await s.load()
    r = await stclient.upload_file(s, "uploader", f"big{i}.csv", data)
    up = time.perf_counter() - t0
    # the upload must have been read (its "Loaded …" message, no "Could not …"), not only answered
    said = [b for _, b in s.alerts] + list(s.texts)
    loaded = any("Loaded “" in b for b in said) and not any(b.startswith("Could not") for b in said)
    conv = None
    if s.widget("converge") is not None:
        t1 = time.perf_counter()
        r = await s.click("converge")
        conv = time.perf_counter() - t1
    waited = any("Waiting for the server" in b for _, b in s.alerts) or any("Waiting for the server" in t
                                                                           for t in s.texts)
    out.append({"upload": up, "converge": conv, "ok": r.ok and loaded, "status": r.status, "waited": waited,
                "loaded": loaded})
    return s


async def student(url: str, stop: asyncio.Event, every: float, lat: list, errors: list) -> None:
    s = stclient.Session(url, name="student", run_timeout=120, query_string="dataset=sms_spam")
    await s.connect()
    await s.load()
    while not stop.is_set():
        if s.widget("step") is None or s.widget("step").disabled:
            r = await s.click("reset") if s.widget("reset") is not None else await s.load()
        else:
            r = await s.click("step")
            (lat if r.ok else errors).append(r.latency if r.ok else r.status)
        try:
            await asyncio.wait_for(stop.wait(), timeout=every)
        except asyncio.TimeoutError:
            pass
    await s.close()


async def main_async(args) -> int:
    port = free_port()
    log = Path(tempfile.gettempdir()) / f"heavy_client_{port}.log"
    extra = [f"--server.disconnectedSessionTTL={args.ttl}"]
    proc = start_server(args.app, port, log, extra, root=Path(args.root))
    wait_health(port, proc)
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    data = make_csv()
    print(f"server pid {proc.pid} (log {log}); CSV {len(data) / 1e6:.2f} MB; root {args.root}", flush=True)
    try:
        # warm up: one tab, so the process has imported everything and cached the shipped sets
        warm = stclient.Session(url, name="warm", query_string="dataset=sms_spam")
        await warm.connect()
        await warm.load()
        await warm.close()
        await asyncio.sleep(3)
        rss0 = rss_mb(proc.pid)
        w = await wave(url, proc.pid, data, args, rss0)
        print_wave(args, w, rss0)
        await watch_after(proc.pid, args.after, rss0, max(w["peak"]))
    finally:
        stop_server(proc)
    return 0


async def wave(url: str, pid: int, data: bytes, args, rss0: float) -> dict:
    """The heavy tabs of one client while another student Steps; RSS and load average sampled."""
    load0 = os.getloadavg()[0]
    stop = asyncio.Event()
    lat, errors = [], []
    stud = asyncio.create_task(student(url, stop, args.step_every, lat, errors))
    await asyncio.sleep(3)
    base = list(lat)
    peak = [rss0]
    loads = []

    async def sample():
        while not stop.is_set():
            peak.append(rss_mb(pid))
            loads.append(os.getloadavg()[0])
            await asyncio.sleep(0.5)
    sampler = asyncio.create_task(sample())
    t0 = time.perf_counter()
    heavy: list = []
    tabs = await asyncio.gather(*(heavy_tab(url, i, data, heavy) for i in range(args.sessions)),
                                return_exceptions=True)
    seconds = time.perf_counter() - t0
    during = lat[len(base):]
    stop.set()
    await stud
    await sampler
    for t in tabs:
        if isinstance(t, stclient.Session):
            await t.close()
    return {"seconds": seconds, "heavy": heavy, "tabs": tabs, "base": base, "during": during, "errors": errors,
            "peak": peak, "loads": loads, "load0": load0}


def print_wave(args, w: dict, rss0: float) -> None:
    heavy, tabs, during, loads = w["heavy"], w["tabs"], w["during"], w["loads"]
    print(f"wave: {args.sessions} heavy tabs done in {w['seconds']:.1f} s; "
          f"{sum(1 for h in heavy if h['ok'])} ok, {sum(1 for h in heavy if h['waited'])} saw the waiting "
          f"notice; errors {[str(t)[:80] for t in tabs if not isinstance(t, stclient.Session)]}", flush=True)
    if heavy:
        ups = [h["upload"] for h in heavy]
        convs = [h["converge"] for h in heavy if h["converge"] is not None]
        print(f"heavy tab: upload → parsed p50 {statistics.median(ups):.1f} s max {max(ups):.1f} s; "
              f"Run to convergence p50 {statistics.median(convs) if convs else float('nan'):.1f} s "
              f"max {max(convs) if convs else float('nan'):.1f} s", flush=True)
    print(f"other student's Step during the wave: n={len(during)} p50 {pct(during, .5):.2f} s "
          f"p95 {pct(during, .95):.2f} s max {max(during) if during else float('nan'):.2f} s; "
          f"before the wave p50 {pct(w['base'], .5):.2f} s; errors {len(w['errors'])}", flush=True)
    print(f"load average (1 min): {w['load0']:.2f} before, mean {statistics.mean(loads) if loads else 0:.2f} "
          f"during, max {max(loads) if loads else 0:.2f}", flush=True)
    print(f"RSS: before {rss0:.0f} MB, peak {max(w['peak']):.0f} MB", flush=True)


async def watch_after(pid: int, after: float, rss0: float, peak_rss: float) -> None:
    """RSS every 15 s for ``after`` seconds once the wave's tabs closed."""
    t_end = time.perf_counter()
    while time.perf_counter() - t_end < after:
        await asyncio.sleep(15)
        print(f"  {time.perf_counter() - t_end:5.0f} s after the wave: RSS {rss_mb(pid):.0f} MB", flush=True)
    rss = rss_mb(pid)
    print(f"RSS: before {rss0:.0f} MB, peak {peak_rss:.0f} MB, {after:.0f} s after {rss:.0f} MB "
          f"({rss - rss0:+.0f} MB over before)", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=12)
    ap.add_argument("--root", default=str(ROOT), help="the checkout to serve (default: this one)")
    ap.add_argument("--step-every", type=float, default=0.5)
    ap.add_argument("--after", type=float, default=180.0, help="seconds to watch RSS after the wave")
    ap.add_argument("--ttl", type=int, default=60, help="server.disconnectedSessionTTL, s")
    ap.add_argument("--app", default="dashboard/server.py",
                    help="the entry to serve: the deployment's (default) or dashboard/app.py")
    return asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
