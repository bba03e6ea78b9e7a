#!/usr/bin/env python
"""A student's wait for the page when the shares' PostgreSQL stalls (a locked table, a frozen server).

    python loadtest/store_stall.py --students 12

Starts a throwaway PostgreSQL (tests/kit/pg.py, Unix socket) and one app server on it, shares a
file, then for each fault (the shares table locked by another session; the database server frozen
with SIGSTOP) opens the class link in ``--students`` tabs at once and reports how long each waited
for its page (the end of the page's run) and whether the page showed the store's notice with the
link kept (data= and dataset= still in the URL).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from loadtest import stclient  # noqa: E402
from loadtest.server import free_port, start_server, stop_server, wait_health  # noqa: E402

CSV = b"text,label\nwin money now,spam\nlunch at noon,ham\nlunch at one,ham\nwin a prize,spam\nfree money,\n"


async def open_link(url: str, qs: str, i: int) -> tuple[float, bool]:
    s = stclient.Session(url, name=f"st{i}", query_string=qs, run_timeout=120)
    await s.connect()
    r = await s.load()
    shown = " ".join(b for _, b in s.alerts)
    await s.close()
    return r.latency, ("link is kept" in shown or "not available right now" in shown)


async def wave(url: str, qs: str, n: int) -> list[tuple[float, bool]]:
    return await asyncio.gather(*(open_link(url, qs, i) for i in range(n)))


def report(name: str, got) -> None:
    lat = sorted(x for x, _ in got)
    print(f"{name}: {len(got)} students, page wait p50 {statistics.median(lat):.2f} s, max {lat[-1]:.2f} s; "
          f"{sum(ok for _, ok in got)} showed the store's notice", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--students", type=int, default=12)
    args = ap.parse_args()
    import psycopg
    import pytest  # noqa: F401  (kit.pg reports through pytest)

    from dashboard.data import store as S
    from kit.pg import cluster
    with cluster("nblab_stall") as pg_url:
        sid = S.open_store(pg_url).put("lesson.csv", CSV, owner="teacher").id
        port = free_port()
        log = Path(tempfile.gettempdir()) / f"store_stall_{port}.log"
        os.environ["NBLAB_STORE_URL"] = pg_url
        proc = start_server("dashboard/app.py", port, log)
        try:
            wait_health(port, proc)
            url = f"ws://127.0.0.1:{port}/_stcore/stream"
            qs = f"dataset=shared&data={sid}&t=2"
            report("store answering (first page of each tab)", asyncio.run(wave(url, qs, 2)))
            with psycopg.connect(pg_url) as admin:
                admin.execute("LOCK TABLE nblab_shares IN ACCESS EXCLUSIVE MODE")
                report("shares table locked by another session", asyncio.run(wave(url, qs, args.students)))
                admin.rollback()
            tmp = Path(parse_qs(urlparse(pg_url).query)["host"][0])
            master = int((tmp / "data" / "postmaster.pid").read_text().split()[0])
            kids = subprocess.run(["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True,
                                  text=True).stdout.split()
            pids = [master] + [int(k) for k in kids]
            for p in pids:
                os.kill(p, signal.SIGSTOP)
            try:
                report("database server frozen (SIGSTOP)", asyncio.run(wave(url, qs, args.students)))
            finally:
                for p in pids:
                    os.kill(p, signal.SIGCONT)
            time.sleep(4)
            report("after the database is back", asyncio.run(wave(url, qs, 2)))
        finally:
            stop_server(proc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
