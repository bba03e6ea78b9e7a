"""Where the servers' CPU goes: py-spy records app processes (raw stacks) and the samples are summed by
function and by module."""
from __future__ import annotations

import collections
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

#: a sample whose innermost frame is one of these is a thread waiting (py-spy shows no frame for a C call
#: such as time.sleep or select: the waiting line itself is the leaf)
IDLE_LEAVES = ("select (", "wait (", "sleep (", "acquire (", "epoll", "_worker (concurrent",
               "polling_path_watcher.py:90)")
#: frames every working sample of the class routes' server passes through: left out of the table
GENERIC = ("threading.py", "asyncio/", "click/", "runpy", "bootstrap.py", "streamlit/web/cli", "streamlit/__main__",
           "concurrent/futures/thread.py", "uvicorn/_compat.py", "uvicorn/server.py", "starlette_server.py")


def start_spies(out_dir: str | None, pids: list[int], rate: int = 100) -> list | None:
    """--spy DIR: py-spy records each app process (raw stacks, all threads, --nonblocking) while the
    students are there; stop_spies() summarises them."""
    if not out_dir:
        return None
    spy = shutil.which("py-spy") or (str(Path(sys.executable).parent / "py-spy")
                                     if (Path(sys.executable).parent / "py-spy").exists() else None)
    if spy is None:
        print("--spy: py-spy is not installed (pip install py-spy)", file=sys.stderr)
        return None
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    out = []
    for i, pid in enumerate(pids):
        raw = Path(out_dir) / f"app{i}.txt"
        proc = subprocess.Popen([spy, "record", "--pid", str(pid), "--rate", str(rate), "--format", "raw",
                                 "--output", str(raw), "--nonblocking", "--threads"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        out.append((f"app{i}", pid, raw, proc))
    return out


def working_samples(raw: Path, idle: tuple[str, ...] = IDLE_LEAVES) -> Iterator[tuple[list[str], int]]:
    """(frames, count) of each stack in py-spy's raw output (`frame;frame;... count`) whose innermost
    frame is not a wait."""
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = [f for f in stack.split(";") if f and not f.startswith("process ") and not f.startswith("thread ")]
        if not frames or any(k in frames[-1] for k in idle):
            continue
        yield frames, int(count)


def top_functions(raw: Path, n: int, idle: tuple[str, ...] = IDLE_LEAVES,
                  generic: tuple[str, ...] = GENERIC) -> tuple[int, list[tuple[str, float, float]]]:
    """(working samples, [(function, inclusive share, self share)]) from py-spy's raw output; waiting
    threads and the ``generic`` frames every sample passes are left out."""
    incl: collections.Counter = collections.Counter()
    own: collections.Counter = collections.Counter()
    total = 0
    for frames, c in working_samples(raw, idle):
        total += c
        for f in set(frames):
            incl[f] += c
        own[frames[-1]] += c
    if not total:
        return 0, []
    rows = [(f, c / total, own[f] / total) for f, c in incl.most_common() if not any(g in f for g in generic)]
    return total, rows[:n]


def self_by_module(raw: Path, n: int = 15) -> list:
    """Working samples by the package of their innermost frame (where the CPU is spent: h11, starlette,
    gzip, json, the store, ...)."""
    by: collections.Counter = collections.Counter()
    total = 0
    for frames, c in working_samples(raw):
        total += c
        m = re.search(r"\(([^:()]+)", frames[-1])
        path = m.group(1) if m else frames[-1]
        parts = path.split("/")
        by["/".join(parts[:2]) if len(parts) > 1 else path] += c
    return [[k, round(v / total, 3)] for k, v in by.most_common(n)] if total else []


def stop_spies(spies: list | None, top: int = 25) -> dict | None:
    if not spies:
        return None
    res = {}
    for name, pid, raw, proc in spies:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if not raw.exists():
            res[name] = {"error": (proc.stderr.read().decode(errors="replace") if proc.stderr else "")[-300:]}
            continue
        total, rows = top_functions(raw, top)
        res[name] = {"pid": pid, "raw": str(raw), "working_samples": total,
                     "self_by_module": self_by_module(raw),
                     "top": [[f[:160], round(inc, 3), round(own, 3)] for f, inc, own in rows]}
    return res
