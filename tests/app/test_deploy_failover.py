"""The deployment's proxy (deploy/nblab_deploy.py: HAProxy in front of 2 app processes, PostgreSQL) for a
killed process, one greedy client and its own answers: after ``kill -9`` of the process a tab's cookie names,
that tab's next request goes to the other process at once (``option redispatch``), not after the health
checks fail; a client over ``--class-rate`` under /class/ gets 429 from the proxy while another address is
served; the proxy's own error pages under /class/ carry the security headers (all but the 400 HAProxy 2.6
sends for a request line it cannot parse, which no rule or errorfile of its configuration reaches)."""
from __future__ import annotations

import http.client
import os
import signal
import time

import pytest

from kit.deploy import deployment as kit_deployment
from kit.deploy import require_deploy_programs

require_deploy_programs()
pytest.importorskip("psycopg")

CLASS_RATE = 5     # requests a second per client address under /class/ (so 10 s hold 50)
CLASS_MB_PER_S = 2  # MB a second of data and assets per client address (so 10 s hold 20 MB)


@pytest.fixture(scope="module")
def deployment():
    with kit_deployment("nblab_deploy_failover_", args=("--class-rate", str(CLASS_RATE),
                                                                 "--class-mb-per-s", str(CLASS_MB_PER_S))) as info:
        info["host"], info["port"] = info["url"].split("//")[1].split(":")
        yield info


def request(dep, method: str, path: str, headers: dict | None = None, body: bytes | None = None,
            source: str = "127.0.0.1") -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection(dep["host"], int(dep["port"]), timeout=30, source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def raw(dep, data: bytes) -> bytes:
    """Send ``data`` as it is and return everything the proxy answers."""
    import socket
    with socket.create_connection((dep["host"], int(dep["port"])), timeout=30) as s:
        s.sendall(data)
        got = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return got
            got += chunk


def secure(h: dict) -> None:
    assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "no-referrer", h


def test_the_proxy_s_own_error_pages_have_the_security_headers(deployment):
    status, h, body = request(deployment, "POST", "/class/AAAAAAAAAAAAAAAA/state.json", body=b"{}")
    assert status == 405
    secure(h)
    assert "default-src 'none'" in h["content-security-policy"] and "frame-ancestors 'none'" in \
        h["content-security-policy"] and h["x-frame-options"] == "DENY"
    # a body over the upload limit: the proxy's 413, before the app sees it
    answer = raw(deployment, b"POST /class/AAAAAAAAAAAAAAAA HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n")
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
    assert head.split("\r\n")[0].endswith("413 payload too large"), head
    assert "x-content-type-options: nosniff" in head and "content-security-policy: default-src 'none'" in head
    assert "x-frame-options: deny" in head and "referrer-policy: no-referrer" in head
    # the app's own answers keep their own policy (not the proxy's)
    status, h, _ = request(deployment, "GET", "/")
    assert status == 200 and "frame-ancestors 'self'" in h["content-security-policy"]
    secure(h)


def test_a_client_over_its_class_rate_is_refused_by_the_proxy(deployment):
    # a cheap request (a 404 the app answers without the store) in a tight loop from one address (one no
    # other test uses)
    got = [request(deployment, "GET", "/class/assets/none.js", source="127.0.0.3")
           for _ in range(3 * CLASS_RATE * 10)]
    codes = [s for s, _, _ in got]
    # the window of 10 s lets 10 × CLASS_RATE through (a few more when the loop outlasts a second of it)
    first = codes.index(429)
    assert 10 * CLASS_RATE <= first <= 10 * CLASS_RATE + 5 and set(codes[:first]) == {404}, codes
    status, h, body = got[first]
    assert h["retry-after"] == "10" and b"Too many requests" in body
    secure(h)
    # another address is served meanwhile, the app itself too
    assert request(deployment, "GET", "/class/assets/none.js", source="127.0.0.2")[0] == 404
    assert request(deployment, "GET", "/_stcore/health")[0] == 200


def test_a_client_over_its_download_rate_is_refused_by_the_proxy_and_keeps_following(deployment):
    # sms_spam's data as it is (757 KB), again and again from one address: after the first, the proxy's cache
    # answers; the window of 10 s lets CLASS_MB_PER_S × 10 MB through, then 429
    path = "/class/data/sms_spam.json"
    size = len(request(deployment, "GET", path, {"Accept-Encoding": "identity"}, source="127.0.0.5")[2])
    assert size > 700_000
    codes = [request(deployment, "GET", path, {"Accept-Encoding": "identity"}, source="127.0.0.4")[0]
             for _ in range(40)]
    first = codes.index(429)
    window = CLASS_MB_PER_S * 10 * 1024 * 1024
    assert window // size - 1 <= first <= window // size + 2 and set(codes[:first]) == {200}, codes
    status, h, body = request(deployment, "GET", path, source="127.0.0.4")
    assert status == 429 and h["retry-after"] == "10" and b"Too many requests" in body
    secure(h)
    # the same address still follows its class (a state poll is no download), another address downloads
    assert request(deployment, "GET", "/class/AAAAAAAAAAAAAAAA/state.json", source="127.0.0.4")[0] == 404
    assert request(deployment, "GET", path, {"Accept-Encoding": "identity"}, source="127.0.0.6")[0] == 200


def test_a_killed_process_s_tab_goes_to_the_other_process_at_once(deployment):
    status, h, _ = request(deployment, "GET", "/")
    assert status == 200
    cookie = h["set-cookie"].split(";")[0]            # NBLAB=app<i>
    name = cookie.split("=", 1)[1]
    victim = next(p for p in deployment["processes"] if p["name"] == name)
    other = next(p for p in deployment["processes"] if p["name"] != name)
    assert request(deployment, "GET", "/_stcore/health", {"Cookie": cookie})[0] == 200
    os.kill(victim["pid"], signal.SIGKILL)
    t0 = time.monotonic()
    while True:   # the process is gone when its port refuses
        try:
            http.client.HTTPConnection("127.0.0.1", victim["port"], timeout=2).request("GET", "/_stcore/health")
        except OSError:
            break
        assert time.monotonic() - t0 < 10, "the killed process still answers"
    # the tab's next request (its reconnect) with the dead process's cookie: served by the other one at
    # once (the health checks have not even noticed yet), and the tab's cookie now names that one
    status, h, _ = request(deployment, "GET", "/_stcore/health", {"Cookie": cookie})
    waited = time.monotonic() - t0
    assert status == 200, status
    assert h.get("set-cookie", "").startswith(f"NBLAB={other['name']}"), h
    assert waited < 3, waited
    # the page itself too (a reload of the tab)
    status, h, body = request(deployment, "GET", "/", {"Cookie": cookie})
    assert status == 200 and b"<html" in body.lower()
