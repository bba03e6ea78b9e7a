"""What the server's processes use, read from /proc: CPU seconds, resident memory, the CPU of a group of
processes over a run (PostgreSQL's backends included), and the machine's CPU pressure."""
from __future__ import annotations

import os
import time
from pathlib import Path


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process (and its waited-for children), from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return sum(int(x) for x in fields[11:15]) / ticks
    except (OSError, ValueError, IndexError):
        return None


def proc_cpu(pid: int) -> float | None:
    """utime + stime of a process alone, from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def rss_mb(pid: int) -> float | None:
    """VmRSS of a process in MB, None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                out += [int(x) for x in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def postgres_pids(pg_data: str | None) -> list[int]:
    """The postmaster of the deployment's PostgreSQL and its backends (pids at the time of the call)."""
    if not pg_data:
        return []
    try:
        pm = int(Path(pg_data, "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    return [pm] + children(pm)


def cpu_pressure_total() -> int | None:
    """/proc/pressure/cpu's "some" total (microseconds some task waited for a CPU), or None."""
    try:
        for line in Path("/proc/pressure/cpu").read_text().splitlines():
            if line.startswith("some "):
                return int(line.rsplit("total=", 1)[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


class CpuMeter:
    """utime+stime of groups of pids between start() and stop(); the PostgreSQL backends that come and go
    during the run are summed from their own start (a backend gone before stop() is lost: a lower bound)."""

    def __init__(self, groups: dict[str, list[int]], pg_data: str | None = None):
        self.groups, self.pg_data = groups, pg_data
        self.t0 = self.t1 = None
        self.c0: dict = {}
        self.pg0: dict[int, float] = {}
        self.pg_seen: dict[int, float] = {}

    def start(self) -> None:
        self.t0 = time.monotonic()
        self.c0 = {g: [proc_cpu(p) for p in pids] for g, pids in self.groups.items()}
        for pid in postgres_pids(self.pg_data):
            c = proc_cpu(pid)
            if c is not None:
                self.pg0[pid] = c
                self.pg_seen[pid] = c

    def sample(self) -> None:
        """Call now and then: PostgreSQL backends that started since are counted from 0."""
        for pid in postgres_pids(self.pg_data):
            c = proc_cpu(pid)
            if c is not None:
                self.pg0.setdefault(pid, 0.0)
                self.pg_seen[pid] = c

    def stop(self) -> dict:
        self.t1 = time.monotonic()
        self.sample()
        out = {}
        for g, pids in self.groups.items():
            c1 = [proc_cpu(p) for p in pids]
            vals = [b - a for a, b in zip(self.c0[g], c1) if a is not None and b is not None]
            out[g] = round(sum(vals), 2) if vals else None
            if len(vals) > 1:
                out[g + "_each"] = [round(v, 2) for v in vals]
        if self.pg_data:
            out["postgresql"] = round(sum(self.pg_seen[p] - self.pg0.get(p, 0.0) for p in self.pg_seen), 2)
        out["seconds"] = round(self.t1 - self.t0, 1)
        return out
