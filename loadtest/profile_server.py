#!/usr/bin/env python
"""Where the server's CPU goes for one kind of interaction, with the browser player on (the default page).

    python loadtest/profile_server.py                       # step, lam, session: 30 each
    python loadtest/profile_server.py --phases step --repeat 60 --out /tmp/prof

Starts `streamlit run dashboard/app.py`, and for each phase plays one interaction over and over with
one client (the load test's protocol, loadtest/stclient.py), with py-spy sampling the server
(`py-spy record --format raw`, all threads, idle frames left out):

  step     press Step (Reset when the run has converged; those runs are left out of the CPU figure)
  lam      move "Smoothing λ" to the next value (the run continues with its history)
  session  a new browser tab: connect, first page, what the browser sends after it, close

With --lower-in-view the client has the panels below the charts in view: after each interaction it sends
their "refresh" when they show another state than the charts (loadtest/cpu_per_interaction.py).

Prints, per phase, the server's whole-process CPU per interaction (utime+stime from /proc around
each one) and the functions with the most samples (inclusive, as a share of the phase's working
samples and as ms of the mean; threads waiting and the frames every sample passes are left out),
and writes the raw stacks to --out/<phase>.txt (flamegraph.pl reads them). Needs py-spy
(`pip install py-spy`) and the right to ptrace the server (root, or ptrace_scope 0).
"""
from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from loadtest import spy  # noqa: E402
from loadtest.cpu_per_interaction import after_page, follow_lower  # noqa: E402
from loadtest.procstat import cpu_seconds  # noqa: E402
from loadtest.server import free_port, start_server, stop_server, wait_health  # noqa: E402
from loadtest.stclient import Session  # noqa: E402


async def phase(name: str, port: int, pid: int, repeat: int, in_view: bool = False) -> list[float]:
    """CPU seconds of the server per interaction, `repeat` times."""
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    out: list[float] = []

    async def measured(coro):
        await asyncio.sleep(0.1)   # the previous run's messages are out
        c0 = cpu_seconds(pid)
        r = await coro
        await asyncio.sleep(0.1)
        if r is None or not r.ok:
            raise RuntimeError(f"{name}: {r}")
        out.append(cpu_seconds(pid) - c0)

    if name == "session":
        for _ in range(repeat):
            s = Session(url, run_timeout=60)
            await asyncio.sleep(0.1)
            c0 = cpu_seconds(pid)
            await s.connect()
            r = await s.load()
            r = await after_page(s, in_view) or r
            await s.close()
            await asyncio.sleep(0.1)
            if not r.ok:
                raise RuntimeError(f"session: {r}")
            out.append(cpu_seconds(pid) - c0)
        return out
    s = Session(url, run_timeout=60)
    await s.connect()
    try:
        r = await s.load()
        await after_page(s, in_view)
        lams = list(s.widget("lam").proto.options)
        i = 0
        while len(out) < repeat:
            if name == "step":
                w = s.widget("step")
                if w is None or w.disabled:
                    await s.click("reset")
                    continue
                await measured(_then_lower(s.click("step"), s, in_view))
            else:
                i += 1
                await measured(_then_lower(s.set_value("lam", lams[i % len(lams)]), s, in_view))
    finally:
        await s.close()
    return out


async def _then_lower(action, s: Session, in_view: bool):
    """The interaction, then what the browser sends for it when the panels below the charts are in view."""
    r = await action
    if r is not None and r.ok:
        r = await follow_lower(s, in_view) or r
    return r


#: a sample whose innermost frame is one of these is a thread waiting, not working
IDLE_LEAVES = ("select (", "wait (", "sleep (", "acquire (", "epoll", "_worker (concurrent")
#: frames every working sample passes through (threads, the event loop, Streamlit's script runner,
#: the app's entry and page modules): left out of the table, which is about where the time differs
GENERIC = ("threading.py", "asyncio/", "click/", "runpy", "bootstrap.py", "streamlit/web/cli", "streamlit/__main__",
           "script_runner.py", "exec_code.py", "fragment.py", "navigation/page.py", "metrics_util.py")


def top_functions(raw: Path, n: int) -> tuple[int, list[tuple[str, float, float]]]:
    """(working samples, [(function, inclusive share, self share)]) from py-spy's raw output
    (`frame;frame;... count`); waiting threads and the generic frames are left out."""
    return spy.top_functions(raw, n, IDLE_LEAVES, GENERIC)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phases", default="step,lam,session")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    ap.add_argument("--out", default="/tmp/nblab_profile")
    ap.add_argument("--lower-in-view", action="store_true",
                    help="the client has the panels below the charts in view (sends their refresh)")
    args = ap.parse_args(argv)
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]
    bad = [p for p in phases if p not in ("step", "lam", "session")]
    if bad:
        ap.error(f"unknown phase(s) {bad}: step, lam, session")
    spy = shutil.which("py-spy")
    if spy is None:
        print("py-spy is not installed (pip install py-spy)", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    proc = start_server("dashboard/app.py", port, out / "server.log")
    try:
        wait_health(port, proc)
        asyncio.run(phase("session", port, proc.pid, 2))   # warm: imports, caches
        for name in phases:
            raw = out / f"{name}.txt"
            rec = subprocess.Popen([spy, "record", "--pid", str(proc.pid), "--rate", str(args.rate), "--format", "raw",
                                    "--output", str(raw), "--nonblocking"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(1.0)
            cpu = asyncio.run(phase(name, port, proc.pid, args.repeat, args.lower_in_view))
            rec.send_signal(signal.SIGINT)
            try:
                rec.wait(30)
            except subprocess.TimeoutExpired:
                rec.kill()
            ms = [1000 * c for c in cpu]
            mean = statistics.fmean(ms)
            print(f"\n== {name}: server CPU per interaction mean {mean:.1f} ms, median {statistics.median(ms):.1f} ms "
                  f"(n={len(ms)}; /proc counts in 10 ms ticks)")
            if raw.exists():
                total, rows = top_functions(raw, args.top)
                print(f"  {total} working samples; ms = share of them x the mean")
                for f, inc, own in rows:
                    print(f"  {100 * inc:5.1f} % {inc * mean:5.1f} ms incl  {100 * own:5.1f} % self  {f[:140]}")
            else:
                print("  (py-spy wrote nothing: " + rec.stderr.read().decode(errors="replace")[-300:] + ")")
    finally:
        stop_server(proc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
