"""The server's own limits on a request's size (dashboard/serve/http_limits.py), on a real
``streamlit run dashboard/server.py`` without any proxy in front: a header over 64 KB is answered 431 as soon
as its first 64 KB arrived (never read whole), eight of them at once leave the process's memory where it
was, a Content-Length over the body limit is answered 413 before the app sees it, and a request within
the limits is served as before."""
from __future__ import annotations

import select
import socket
import threading
import time
from pathlib import Path

import pytest

from kit.server import streamlit_server

CHUNK = 64 * 1024
LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("http_limits")
    with streamlit_server(env={"NBLAB_STORE_DIR": str(d), "NBLAB_WARM": "0"}, timeout=90.0,
                          log_path=Path(d) / "server.log") as srv:
        yield srv


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def status_of(answer: bytes) -> int | None:
    line = answer.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) >= 2 and line[1].isdigit() else None


def send_big_header(port: int, total: int) -> tuple[int | None, int, float]:
    """Send a request whose one header grows by 64 KB at a time up to ``total`` bytes, stopping as soon as
    the server answers or closes; (the answer's status or None, bytes sent, seconds taken)."""
    t0 = time.monotonic()
    sent = 0
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"GET /_stcore/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
        try:
            while sent < total:
                if select.select([s], [], [], 0)[0]:
                    break
                s.sendall(b"a" * CHUNK)
                sent += CHUNK
            else:
                s.sendall(b"\r\n\r\n")
            s.settimeout(30)
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
                if b"\r\n\r\n" in answer:
                    break
        except (ConnectionResetError, BrokenPipeError):
            pass
    return status_of(answer), sent, time.monotonic() - t0


def test_an_oversized_header_is_answered_431_at_once(server):
    status, sent, took = send_big_header(server.port, 96 * 1024 * 1024)
    assert status == 431, (status, sent)
    # the answer came after the limit's bytes (plus what the sockets' buffers held), not after 96 MB
    assert LIMIT <= sent < 16 * 1024 * 1024 and took < 10, (sent, took)


def test_eight_oversized_headers_at_once_leave_the_memory_where_it_was(server):
    send_big_header(server.port, 1024 * 1024)       # the code path warmed once
    before = rss_mb(server.proc.pid)
    results = []
    threads = [threading.Thread(target=lambda: results.append(send_big_header(server.port, 32 * 1024 * 1024)))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    after = rss_mb(server.proc.pid)
    assert [r[0] for r in results] == [431] * 8, results
    # 8 × 32 MB held would be 256 MB; the limit keeps at most 8 × (64 KB + a read's chunk)
    assert after - before < 30, (before, after)


def test_a_body_over_the_limit_is_refused_before_the_app(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"POST /_stcore/upload_file/x/y HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Length: 104857600\r\nContent-Type: application/octet-stream\r\n\r\n")
        s.settimeout(30)
        answer = s.recv(65536)
    assert status_of(answer) == 413 and b"larger than this server takes" in answer, answer[:300]


def test_requests_within_the_limits_are_served(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"GET /_stcore/health HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: c=" + b"b" * (40 * 1024)
                  + b"\r\nConnection: close\r\n\r\n")
        s.settimeout(30)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    assert status_of(answer) == 200, answer[:300]
    # and the server still answers everyone after the refusals above
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"GET /_stcore/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        s.settimeout(30)
        assert status_of(s.recv(65536)) == 200
    assert "Traceback" not in server.log_path.read_text()
