#!/usr/bin/env python
"""Server CPU per interaction of this checkout against a baseline checkout, measured in the same run.

    git worktree add /tmp/nblab-base <commit>
    python loadtest/cpu_per_interaction.py --baseline /tmp/nblab-base --repeat 40
    python loadtest/cpu_per_interaction.py --baseline /tmp/nblab-base --lower-in-view   # a reader of the panels

Starts `streamlit run dashboard/app.py` from each checkout (same Python, same flags), and for each phase
plays one interaction over and over with one client per server (the load test's protocol,
loadtest/stclient.py), in blocks of --block interactions that alternate between the two servers, so both
see the same machine load. The figure is the server's whole-process CPU (utime+stime from /proc, 10 ms
ticks) over a block divided by its interactions; the table gives the mean per interaction and the ratio
this/baseline.

  step     press Step (Reset when the run has converged, not counted)
  lam      move "Smoothing λ" to the next value (the run continues with its history)
  session  a new browser tab: connect, first page, what the browser sends after it, close

What the browser sends besides the interaction itself is sent too: after the first page, the old
player's "painted" trigger when the page asks for it (data ``lowerWaiting``); with --lower-in-view, the
"refresh" trigger of the panels below the charts whenever their marker shows another state than the
charts (a student who has them in view). Its CPU counts in the interaction.
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
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from loadtest.player_protocol import PLAYER, refresh_lower  # noqa: E402
from loadtest.procstat import cpu_seconds  # noqa: E402
from loadtest.server import free_port, start_server, stop_server, wait_health  # noqa: E402
from loadtest.stclient import Session  # noqa: E402


async def after_page(s: Session, in_view: bool):
    """What the browser sends after the first page: the old player's "painted" (when asked for), or, for a
    reader of the panels below the charts, their "refresh"."""
    main = s.component(PLAYER)
    if main is not None and main.head.get("lowerWaiting"):
        return await s.component_trigger(PLAYER, "painted", True)
    return await follow_lower(s, in_view)


async def follow_lower(s: Session, in_view: bool):
    """For a reader of the panels below the charts: their "refresh" when they lag (None: nothing sent)."""
    return await refresh_lower(s) if in_view else None


class Client:
    """One server and the client that plays the phase on it."""

    def __init__(self, name: str, root: Path, port: int, proc: subprocess.Popen, in_view: bool):
        self.name, self.root, self.port, self.proc, self.in_view = name, root, port, proc, in_view
        self.url = f"ws://127.0.0.1:{port}/_stcore/stream"
        self.s: Session | None = None
        self.lams: list[str] = []
        self.i = 0
        self.samples: list[float] = []

    async def open(self) -> None:
        self.s = Session(self.url, run_timeout=60)
        await self.s.connect()
        await self.s.load()
        await after_page(self.s, self.in_view)
        self.lams = list(self.s.widget("lam").proto.options)

    async def close(self) -> None:
        if self.s is not None:
            await self.s.close()
            self.s = None

    async def once(self, phase: str) -> bool:
        """One interaction (and what the browser sends after it). False: not counted (a Reset)."""
        if phase == "session":
            s = Session(self.url, run_timeout=60)
            await s.connect()
            r = await s.load()
            await after_page(s, self.in_view)
            await s.close()
            _ok(r, phase)
            return True
        s = self.s
        if phase == "step":
            w = s.widget("step")
            if w is None or w.disabled:
                await s.click("reset")
                await follow_lower(s, self.in_view)
                return False
            r = await s.click("step")
        else:
            self.i += 1
            r = await s.set_value("lam", self.lams[self.i % len(self.lams)])
        _ok(r, phase)
        _ok(await follow_lower(s, self.in_view), phase)
        return True

    async def block(self, phase: str, n: int) -> None:
        await asyncio.sleep(0.2)  # the previous block's messages are out
        c0, done = cpu_seconds(self.proc.pid), 0
        while done < n:
            if await self.once(phase):
                done += 1
            else:  # a Reset: start the block again
                await asyncio.sleep(0.2)
                c0, done = cpu_seconds(self.proc.pid), 0
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.15)
        # the sleeps are idle time of the server (no timers run in an idle Streamlit process)
        self.samples.append((cpu_seconds(self.proc.pid) - c0) / n)


def _ok(r, phase: str) -> None:
    if r is not None and not r.ok:
        raise RuntimeError(f"{phase}: {r}")


async def run(args) -> int:
    roots = [("this", ROOT), ("baseline", Path(args.baseline).resolve())]
    clients = []
    try:
        for name, root in roots:
            port = free_port()
            proc = start_server("dashboard/app.py", port, Path(args.out) / f"server-{name}.log", root=root)
            clients.append(Client(name, root, port, proc, args.lower_in_view))
        for c in clients:
            wait_health(c.port, c.proc, timeout=120)
        for c in clients:  # warm-up, not measured: the first sessions load the data set and fill the caches
            for _ in range(2):
                await c.open()
                for phase in ("step", "step", "lam"):
                    await c.once(phase)
                await c.close()
        print(f"# {time.strftime('%Y-%m-%d %H:%M')} · load average {os.getloadavg()[0]:.2f} · "
              f"{'panels below the charts in view' if args.lower_in_view else 'panels below the charts out of view'}")
        print("| interaction | this (ms) | baseline (ms) | this / baseline |")
        print("|---|---|---|---|")
        for phase in args.phases.split(","):
            for c in clients:
                c.samples = []
                if phase != "session":
                    await c.open()
            for _ in range(args.repeat // args.block):
                for c in clients:
                    await c.block(phase, args.block)
            for c in clients:
                await c.close()
            this, base = (statistics.mean(c.samples) * 1000 for c in clients)
            print(f"| {phase} | {this:.1f} | {base:.1f} | {this / base:.2f} |", flush=True)
        print(f"load average at the end {os.getloadavg()[0]:.2f}; baseline: {roots[1][1]}")
    finally:
        for c in clients:
            stop_server(c.proc)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required=True, help="another checkout of the app (e.g. a git worktree of main)")
    ap.add_argument("--phases", default="step,lam,session")
    ap.add_argument("--repeat", type=int, default=40, help="interactions per phase and server (default 40)")
    ap.add_argument("--block", type=int, default=5, help="interactions per block; blocks alternate servers")
    ap.add_argument("--lower-in-view", action="store_true",
                    help="the client has the panels below the charts in view (sends their refresh)")
    ap.add_argument("--out", default="/tmp", help="folder for the two servers' logs")
    args = ap.parse_args(argv)
    if not (Path(args.baseline) / "dashboard" / "app.py").is_file():
        print(f"--baseline {args.baseline}: no dashboard/app.py there", file=sys.stderr)
        return 2
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
