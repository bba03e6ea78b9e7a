#!/usr/bin/env python
"""Server cost of one rerun of the lesson page, measured on a real server.

Starts `streamlit run dashboard/app.py`, connects ONE websocket client
(loadtest/stclient.py, the browser's protocol) and plays a fixed script of
interactions one after the other (Step, scrubber, Play ticks, Pause, the
"Labels hidden" and λ sliders, the parameters view, another data set). For each
it reads the server's CPU time (utime+stime from /proc) before and after, so the
figure is the server's whole cost of that interaction (script + Streamlit's
serialisation + websocket), free of other clients.

    python scripts/measure_rerun.py                 # default data set
    python scripts/measure_rerun.py --query "dataset=digits"
    python scripts/measure_rerun.py --repeat 3 --json out.json

The script drags the server's own iteration scrubber and presses its Play, so the
browser player is switched off (``player=off`` is added to the query unless given).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadtest.procstat import cpu_seconds  # noqa: E402
from loadtest.server import free_port, start_server, stop_server, wait_health  # noqa: E402
from loadtest.stclient import Session  # noqa: E402


def scrub_key(s: Session) -> str:
    """The iteration scrubber's key is scrub_<run serial>_<snapshots>: the newest enabled one."""
    keys = [k for k, w in s.widgets.items() if k.startswith("scrub_") and k[6:7].isdigit() and not w.disabled]
    return keys[-1]


async def script(port: int, pid: int, query: str) -> dict[str, list[tuple[float, float]]]:
    s = Session(f"ws://127.0.0.1:{port}/_stcore/stream", query_string=query, run_timeout=60)
    await s.connect()
    out: dict[str, list[tuple[float, float]]] = {}

    async def measure(name, coro):
        await asyncio.sleep(0.15)  # let the server finish sending the previous run
        c0 = cpu_seconds(pid)
        r = await coro
        await asyncio.sleep(0.15)
        c1 = cpu_seconds(pid)
        assert r is not None and r.ok, (name, r)
        out.setdefault(name, []).append((c1 - c0 - 0.0, r.latency))
        return r

    try:
        await measure("load", s.load())
        await measure("play", s.click("play"))
        for _ in range(8):
            if not s.auto_reruns:
                break
            await measure("play_tick", s.auto_tick())
        if "Pause" in s.widget("play").proto.label:
            await measure("pause", s.click("play"))
        await measure("reset", s.click("reset"))
        for _ in range(6):
            await measure("step", s.click("step"))
        for v in (1, 3, 5, 2):
            await measure("scrub", s.set_value(scrub_key(s), v))
        await measure("param_view", s.set_value("param_view", "Heatmap"))
        await measure("param_view", s.set_value("param_view", "Top features"))
        await measure("hidden", s.set_value("hidden", 80))
        for _ in range(3):
            await measure("step", s.click("step"))
        await measure("lam", s.set_value("lam", "0.1"))
        for _ in range(3):
            await measure("step", s.click("step"))
        await measure("converge", s.click("converge"))
        for v in (0, 4, 8):
            await measure("scrub", s.set_value(scrub_key(s), v))
        await measure("reset", s.click("reset"))
        for _ in range(3):
            await measure("step", s.click("step"))
    finally:
        await s.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--query", default="", help="query string of the first load, e.g. dataset=digits")
    ap.add_argument("--repeat", type=int, default=2, help="play the script this many times (fresh sessions)")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    if "player=" not in args.query:  # the server-side scrubber and Play button are what is measured
        args.query = "&".join(q for q in (args.query, "player=off") if q)
    port = free_port()
    log = Path(tempfile.gettempdir()) / f"measure_rerun_{port}.log"
    load0 = os.getloadavg()
    proc = start_server("dashboard/app.py", port, log)
    try:
        wait_health(port, proc)
        asyncio.run(asyncio.wait_for(script(port, proc.pid, args.query), 300))  # warm-up (imports, caches)
        runs: dict[str, list[tuple[float, float]]] = {}
        for _ in range(args.repeat):
            for k, v in asyncio.run(asyncio.wait_for(script(port, proc.pid, args.query), 300)).items():
                runs.setdefault(k, []).extend(v)
    finally:
        stop_server(proc)
    rows = {}
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load0)}   after: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'interaction':12s} {'n':>3s} {'server CPU ms (median)':>23s} {'mean':>7s} {'latency ms (median)':>20s}")
    all_cpu = []
    for k, v in runs.items():
        cpu = [c * 1000 for c, _ in v]
        lat = [l * 1000 for _, l in v]
        if k != "load":
            all_cpu += cpu
        rows[k] = {"n": len(v), "cpu_ms_median": round(statistics.median(cpu), 1),
                   "cpu_ms_mean": round(statistics.mean(cpu), 1), "latency_ms_median": round(statistics.median(lat), 1)}
        print(f"{k:12s} {len(v):3d} {statistics.median(cpu):23.0f} {statistics.mean(cpu):7.0f} "
              f"{statistics.median(lat):20.0f}")
    summary = {"per_interaction": rows, "cpu_ms_mean_all_but_load": round(statistics.mean(all_cpu), 1),
               "cpu_ms_median_all_but_load": round(statistics.median(all_cpu), 1), "query": args.query,
               "loadavg_before": [round(x, 2) for x in load0], "when": time.strftime("%Y-%m-%d %H:%M")}
    print(f"all interactions but the first load: mean {summary['cpu_ms_mean_all_but_load']} ms, "
          f"median {summary['cpu_ms_median_all_but_load']} ms of server CPU")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
