#!/usr/bin/env python
"""Server cost of a student opening the lesson page: one new session's first run.

Starts `streamlit run dashboard/app.py` twice, side by side: as the repository configures it
(.streamlit/config.toml: no file watcher) and with Streamlit's default file watcher
(``--server.fileWatcherType auto``, the named baseline). For each it opens --sessions new
websocket sessions one after the other (loadtest/stclient.py, the browser's protocol; the first
one of a process also builds the data set and is reported apart), reading the server's CPU time
(utime+stime from /proc) around each: the figure is the server's whole cost of a new student.
Not a test: nothing is asserted. Prints medians and the ratio repository / default.

    python scripts/measure_new_session.py
    python scripts/measure_new_session.py --sessions 20 --query "dataset=digits"
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadtest.procstat import cpu_seconds  # noqa: E402
from loadtest.server import free_port, stop_server, wait_health  # noqa: E402
from loadtest.stclient import Session  # noqa: E402


def start(port: int, watcher: str | None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", "dashboard/app.py", "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    if watcher:
        cmd += ["--server.fileWatcherType", watcher]
    return subprocess.Popen(cmd, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"), start_new_session=True)


async def new_sessions(port: int, proc: subprocess.Popen, n: int, query: str) -> tuple[list[float], list[float]]:
    walls, cpus, open_ = [], [], []
    for _ in range(n + 1):
        s = Session(f"ws://127.0.0.1:{port}/_stcore/stream", query_string=query, run_timeout=120)
        c0, t0 = cpu_seconds(proc.pid), time.perf_counter()
        await s.connect()
        await s.load()
        walls.append(1000 * (time.perf_counter() - t0))
        await asyncio.sleep(0.3)  # what the server does right after the run (watchers, cleanup) counts too
        cpus.append(1000 * (cpu_seconds(proc.pid) - c0))
        open_.append(s)
    for s in open_:
        await s.close()
    return walls, cpus


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--query", default="", help="URL query of the page, e.g. dataset=digits")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    rows = {}
    for label, watcher in (("repository config", None), ("file watcher (Streamlit default)", "auto")):
        port = free_port()
        proc = start(port, watcher)
        try:
            wait_health(port, proc)
            walls, cpus = await new_sessions(port, proc, args.sessions, args.query)
        finally:
            stop_server(proc)
        rows[label] = statistics.median(cpus[1:])
        print(f"{label:34s} first session of the process: {cpus[0]:.0f} ms CPU; then median "
              f"{statistics.median(cpus[1:]):.0f} ms CPU, {statistics.median(walls[1:]):.0f} ms wall "
              f"(n={len(cpus) - 1}; CPU in 10 ms ticks)")
    a, b = rows.values()
    print(f"new-session server CPU, repository / Streamlit default = {a / b:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
