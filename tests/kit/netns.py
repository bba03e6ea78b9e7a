"""Two network namespaces joined by a veth pair, made by the test and removed after it: a "room" with the
teacher's laptop (``room.teacher``) and a student's phone (``room.student``), nothing else.

* :func:`room` ``(routes_out=False)`` — the two namespaces (context manager). Each has its loopback and one
  end of the pair, with addresses in 10.231.N.0/24 (N from the test process's id) that exist only inside
  them. ``routes_out=True`` gives each namespace a default route to the other end and a resolver at
  192.0.2.53 (TEST-NET-1, nobody's address): every attempt to reach anything beyond the room — a connection,
  a DNS query — then leaves on the veth, where :class:`Recorder` sees it, instead of failing inside the
  kernel unseen. Forwarding is off in a new namespace, so nothing goes further.
* :func:`Room.run` / :func:`Room.popen`: a command inside one namespace (``ip netns exec``).
* :class:`Browser`: Chromium (Playwright) inside a namespace, driven from the test by one JSON line per call
  (``tests/kit/netns_browser.py`` is its other end).
* :class:`Recorder`: every IPv4/IPv6 packet on a namespace's veth whose source or destination is outside the
  room (a raw AF_PACKET socket, ``tests/kit/netns_capture.py``).
* :func:`streamlit_in` the app (``streamlit run dashboard/server.py``) inside a namespace, waited on by its
  health route.

Skips the test, saying why, where namespaces cannot be made (not root, no ``ip``, a container without
CAP_NET_ADMIN).
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from kit import ROOT, free_port

HERE = Path(__file__).resolve().parent
#: the resolver the namespaces are given with routes_out: an address of TEST-NET-1 that no one answers at
RESOLVER = "192.0.2.53"


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


def unavailable() -> str | None:
    """Why network namespaces cannot be made here, or None when they can."""
    if not sys.platform.startswith("linux"):
        return "network namespaces are Linux's"
    if shutil.which("ip") is None:
        return "no `ip` command (iproute2)"
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    probe = f"nbemprobe{os.getpid()}"
    r = _ip("netns", "add", probe, check=False)
    if r.returncode != 0:
        return f"`ip netns add` failed here: {r.stderr.strip() or r.returncode}"
    _ip("netns", "del", probe, check=False)
    return None


@dataclass
class End:
    ns: str      # the namespace's name
    dev: str     # its end of the veth pair
    addr: str    # its address


@dataclass
class Room:
    teacher: End
    student: End
    subnet: str

    def cmd(self, end: End, argv: list[str]) -> list[str]:
        return ["ip", "netns", "exec", end.ns, *argv]

    def run(self, end: End, argv: list[str], **kw) -> subprocess.CompletedProcess:
        return subprocess.run(self.cmd(end, argv), capture_output=True, text=True, **kw)

    def popen(self, end: End, argv: list[str], **kw) -> subprocess.Popen:
        return subprocess.Popen(self.cmd(end, argv), **kw)


@contextlib.contextmanager
def room(routes_out: bool = False):
    """The two namespaces and their veth pair (see the module's docstring); removed afterwards."""
    import pytest

    why = unavailable()
    if why:
        pytest.skip(f"network namespaces cannot be made here: {why}")
    n = os.getpid() % 250 + 1
    tag = f"nbem{os.getpid()}"
    t = End(f"{tag}t", f"{tag[:10]}t", f"10.231.{n}.1")
    s = End(f"{tag}s", f"{tag[:10]}s", f"10.231.{n}.2")
    made: list[str] = []
    etc = Path("/etc/netns")
    try:
        for e in (t, s):
            _ip("netns", "add", e.ns)
            made.append(e.ns)
        _ip("link", "add", t.dev, "type", "veth", "peer", "name", s.dev)
        for e, peer in ((t, s), (s, t)):
            _ip("link", "set", e.dev, "netns", e.ns)
            _ip("-n", e.ns, "link", "set", "lo", "up")
            _ip("-n", e.ns, "addr", "add", f"{e.addr}/24", "dev", e.dev)
            _ip("-n", e.ns, "link", "set", e.dev, "up")
            if routes_out:
                _ip("-n", e.ns, "route", "add", "default", "via", peer.addr)
                (etc / e.ns).mkdir(parents=True, exist_ok=True)
                (etc / e.ns / "resolv.conf").write_text(f"nameserver {RESOLVER}\n")
        yield Room(t, s, f"10.231.{n}.0/24")
    finally:
        for ns in made:
            _ip("netns", "del", ns, check=False)
            shutil.rmtree(etc / ns, ignore_errors=True)


#: the share key of a server started by streamlit_in, which is its teachers' key for opening a class
TEACHER_KEY = "room-teacher-key-0123456789"


def open_class_as_teacher(b, name: str) -> None:
    """In ``b``'s page ``name`` (a lesson of a streamlit_in server): type the teacher key, Open for the class."""
    b.call("fill", name=name, role="textbox", label="Teacher key (to open a class)", value=TEACHER_KEY)
    b.call("click_role", name=name, role="button", label="Open for the class")


@contextlib.contextmanager
def streamlit_in(rm: Room, end: End, *extra: str, address: str = "0.0.0.0", timeout: float = 180.0,
                 env: dict | None = None):
    """``streamlit run dashboard/server.py`` inside ``end``'s namespace, listening on ``address``; yields
    (port, log path) once its health route answers inside the namespace; stopped afterwards."""
    import pytest

    port = free_port()
    log_path = Path(tempfile.gettempdir()) / f"streamlit_netns_{port}.log"
    log = open(log_path, "w")
    store = tempfile.mkdtemp(prefix="nblab-netns-store-")
    # opening a class needs the teacher key: where a share key is set it is the share key (TEACHER_KEY)
    proc = rm.popen(end, [sys.executable, "-m", "streamlit", "run", "dashboard/server.py", "--server.headless",
                          "true", "--server.port", str(port), "--server.address", address, *extra],
                    cwd=str(ROOT), stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                    env={**os.environ, "NBLAB_STORE_DIR": store, "NBLAB_SHARE_KEY": TEACHER_KEY, **(env or {})})
    try:
        probe = ("import sys, time, urllib.request\n"
                 f"end = time.time() + {timeout}\n"
                 "while time.time() < end:\n"
                 "    try:\n"
                 f"        urllib.request.urlopen('http://127.0.0.1:{port}/_stcore/health', timeout=1); sys.exit(0)\n"
                 "    except OSError:\n"
                 "        time.sleep(0.2)\n"
                 "sys.exit(1)\n")
        waiter = rm.popen(end, [sys.executable, "-c", probe])
        while waiter.poll() is None:
            if proc.poll() is not None:
                waiter.kill()
                pytest.fail(f"streamlit exited ({proc.returncode}) in the namespace; see {log_path}")
            time.sleep(0.2)
        if waiter.returncode != 0:
            pytest.fail(f"streamlit did not answer in the namespace within {timeout:.0f} s; see {log_path}")
        yield port, log_path
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait(5)
        log.close()
        shutil.rmtree(store, ignore_errors=True)


class Browser:
    """Chromium inside ``end``'s namespace. ``b.call(op, **args)`` sends one command to
    tests/kit/netns_browser.py and returns its answer (an AssertionError carries the driver's error)."""

    def __init__(self, rm: Room, end: End):
        self.proc = rm.popen(end, [sys.executable, str(HERE / "netns_browser.py")], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, bufsize=1)

    def call(self, op: str, **args):
        self.proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"the namespace's browser driver exited ({self.proc.wait()}) during {op}")
        out = json.loads(line)
        if "error" in out:
            raise AssertionError(f"{op} {args}: {out['error']}")
        return out.get("value")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.call("quit")
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


class Recorder:
    """Every packet on ``end``'s veth whose source or destination is outside ``rm.subnet`` (or not IP at all
    but for ARP and IPv6 neighbour discovery), recorded by tests/kit/netns_capture.py into a file, one JSON
    line each. :meth:`mark` sends a datagram beyond the room and waits until the recorder has seen it, so
    everything sent before it is in the file (and the recorder is shown to see such packets at all)."""

    def __init__(self, rm: Room, end: End):
        self.rm, self.end = rm, end
        self.path = Path(tempfile.mkstemp(prefix=f"netns-capture-{end.ns}-", suffix=".jsonl")[1])
        self.proc = rm.popen(end, [sys.executable, str(HERE / "netns_capture.py"), end.dev, rm.subnet,
                                   str(self.path)], start_new_session=True)
        self._wait(lambda rows: any(r.get("ready") for r in rows), "start")

    def rows(self) -> list[dict]:
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return []
        return [json.loads(x) for x in text.splitlines() if x.strip()]

    def _wait(self, cond, what: str, timeout: float = 30.0) -> list[dict]:
        deadline = time.time() + timeout
        while time.time() < deadline:
            rows = self.rows()
            if cond(rows):
                return rows
            if self.proc.poll() is not None:
                raise AssertionError(f"the packet recorder in {self.end.ns} exited ({self.proc.returncode})")
            time.sleep(0.05)
        raise AssertionError(f"the packet recorder in {self.end.ns} did not {what} within {timeout:.0f} s")

    def mark(self, port: int) -> None:
        """Send one UDP datagram to 192.0.2.99:``port`` from this namespace and wait until it is recorded."""
        send = ("import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
                f"s.sendto(b'nbem-mark', ('192.0.2.99', {port}))")
        self.rm.run(self.end, [sys.executable, "-c", send], check=True)
        self._wait(lambda rows: any(r.get("dst") == "192.0.2.99" and r.get("dport") == port for r in rows),
                   "see the marker datagram")

    def beyond(self, marker_ports=()) -> list[dict]:
        """What was sent beyond the room, the markers left out."""
        return [r for r in self.rows() if not r.get("ready")
                and not (r.get("dst") == "192.0.2.99" and r.get("dport") in marker_ports)]

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 15)
        self.proc.wait(10)
