"""The class link's routes on a real server (`python -m streamlit run dashboard/server.py`), over plain HTTP:
the page, its assets, the data (shipped and shared), the state (ETag, 304), caching, gzip, security
headers, and 404s for bad and unknown ids that never echo the id. No websocket is opened."""
from __future__ import annotations

import gzip
import json
import os
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from dashboard import class_link as C
from dashboard.class_link import store as CS
from kit.server import streamlit_server

IMMUTABLE = "public, max-age=31536000, immutable"
# a share's data: the browser keeps it, a shared cache (the deployment's proxy) must not (RFC 9111, 5.2.2.7)
PRIVATE = "private, max-age=31536000, immutable"
CSV = b"text,label\n" + b"".join(b"win cash now %d,spam\nsee you at lunch %d,ham\n" % (i, i) for i in range(30))


def get(url: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def poll_until_version(base: str, cid: str, v: int, since: int, timeout: float = 60.0):
    """Revalidate the class's state.json (If-None-Match: the version ``since``) until it answers version
    ``v``; returns (the answer, every answer before it). The server answers from its process's cache until
    READ_TTL has passed on its own clock, which the test cannot move: it polls, the deadline only a guard."""
    before = []
    deadline = time.monotonic() + timeout
    while True:
        status, h, body = get(f"{base}/class/{cid}/state.json", {"If-None-Match": f'"{since}"'})
        if h.get("etag") == f'"{v}"':
            return (status, h, body), before
        before.append((status, h.get("etag"), body))
        assert time.monotonic() < deadline, f"state.json still at {before[-1]} after {timeout} s"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    d = tmp_path_factory.mktemp("class_store")
    env = {"NBLAB_STORE_DIR": str(d)}
    env_old = {k: os.environ.get(k) for k in ("NBLAB_STORE_DIR", "NBLAB_STORE_URL")}
    os.environ["NBLAB_STORE_DIR"] = str(d)   # this test process opens the same store (the app's settings)
    os.environ.pop("NBLAB_STORE_URL", None)
    CS._STORES.clear()
    try:
        store = CS.get_store()
        share = store.put("class words.csv", CSV, {}, owner="test")
        with streamlit_server(env=env, timeout=90.0,
                              log_path=Path(env["NBLAB_STORE_DIR"]) / "server.log") as srv:
            base, log_path = srv.url, srv.log_path
            yield {"base": base, "store": store, "share": share.id, "log": log_path}
    finally:
        for k, v in env_old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        CS._STORES.clear()


SETTINGS = {"dataset": "toy_spam", "model": "bernoulli", "hidden": 50, "lam": 1.0, "init": "labeled", "seed": 3,
            "max_iter": 50, "tol": 1e-6}


def config_of(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="nblab-config">(.*?)</script>', html, re.S)
    assert m, html[:500]
    return json.loads(m.group(1))


def test_page_assets_data_and_state(served):
    base = served["base"]
    cid, key = C.open_class("toy_spam", {"settings": SETTINGS, "t": 2}, store=served["store"])

    # the page: the shell, settings from the teacher, relative data and state URLs, security headers
    status, h, body = get(f"{base}/class/{cid}", {"Accept-Encoding": "gzip"})
    assert status == 200 and h["content-type"].startswith("text/html")
    assert h.get("content-encoding") == "gzip"
    html = gzip.decompress(body).decode()
    assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "no-referrer"
    csp = h["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-eval" not in csp
    assert h["cache-control"] == "no-cache"
    assert '<div id="nblab" class="lab-root">' in html and "<base" not in html
    cfg = config_of(html)
    assert cfg["dataUrl"] == "data/toy_spam.json"
    assert cfg["follow"] == {"state": f"{cid}/state.json", "intervalMs": 2000}
    assert cfg["defaults"]["hidden"] == 50 and cfg["defaults"]["seed"] == 3 and cfg["defaults"]["lam"] == 1.0
    assert key not in html
    # a reload revalidates: the same bytes have the same ETag, and If-None-Match gets a 304 with no body
    status2, h2, body2 = get(f"{base}/class/{cid}", {"Accept-Encoding": "gzip"})
    assert status2 == 200 and gzip.decompress(body2).decode() == html and h2["etag"] == h["etag"]
    status3, h3, body3 = get(f"{base}/class/{cid}", {"If-None-Match": h["etag"]})
    assert status3 == 304 and body3 == b""

    # the assets the page names: immutable, gzip when asked, plain otherwise, 304 on their ETag
    srcs = re.findall(r'(?:src|href)="(assets/[^"]+)"', html)
    assert {re.sub(r"\.[0-9a-f]{12}\.", ".H.", s) for s in srcs} == {"assets/lab.H.js", "assets/plotly.H.js",
                                                                      "assets/lab.H.css"}
    for src in srcs:
        status, h, body = get(f"{base}/class/{src}", {"Accept-Encoding": "gzip"})
        assert status == 200 and h["cache-control"] == IMMUTABLE and h["content-encoding"] == "gzip", src
        plain = gzip.decompress(body)
        status2, h2, body2 = get(f"{base}/class/{src}")
        assert status2 == 200 and "content-encoding" not in h2 and body2 == plain
        import hashlib
        assert hashlib.sha256(plain).hexdigest()[:12] in src   # the name is the bytes' hash
        assert h["content-type"].startswith("text/css" if src.endswith(".css") else "text/javascript")
        status3, h3, body3 = get(f"{base}/class/{src}", {"If-None-Match": h["etag"]})
        assert status3 == 304 and body3 == b""

    # the data: the lab's format, immutable, ETag and 304, gzip
    status, h, body = get(f"{base}/class/data/toy_spam.json", {"Accept-Encoding": "gzip"})
    assert status == 200 and h["cache-control"] == IMMUTABLE and h["content-encoding"] == "gzip"
    assert h["content-type"].startswith("application/json") and h["etag"]
    data = json.loads(gzip.decompress(body))
    from nblab.data import lab_data
    want = json.loads(json.dumps(lab_data("toy_spam")))
    assert data["format"] == "nblab-data/1" and data == want
    status, h2, body = get(f"{base}/class/data/toy_spam.json")
    assert status == 200 and "content-encoding" not in h2 and json.loads(body) == want
    status, _, body = get(f"{base}/class/data/toy_spam.json", {"If-None-Match": h["etag"]})
    assert status == 304 and body == b""

    # the state: the contract's object, ETag "<v>", no-cache, 304 while unchanged
    status, h, body = get(f"{base}/class/{cid}/state.json")
    assert status == 200 and h["etag"] == '"1"' and h["cache-control"] == "no-cache"
    assert h["content-type"].startswith("application/json")
    st = json.loads(body)
    assert st == {"class": cid, "v": 1, "data": "toy_spam", "settings": SETTINGS, "t": 2, "half": None,
                  "open": True}
    status, h, body = get(f"{base}/class/{cid}/state.json", {"If-None-Match": '"1"'})
    assert status == 304 and body == b"" and h["etag"] == '"1"'
    # the teacher publishes: the next poll (after the server's cache's 0.25 s) has the new version
    assert C.publish(cid, key, {"settings": SETTINGS, "t": 3, "half": "e"}, store=served["store"]) == 2
    (status, h, body), before = poll_until_version(base, cid, 2, since=1)
    assert all(a == (304, '"1"', b"") for a in before), before     # until then: unchanged, no body
    assert status == 200 and h["etag"] == '"2"'
    st = json.loads(body)
    assert st["v"] == 2 and st["t"] == 3 and st["half"] == "e"
    # HEAD answers too
    req = urllib.request.Request(f"{base}/class/{cid}/state.json", method="HEAD")
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 200


def test_the_page_follows_the_teachers_settings_and_revalidates(served):
    base = served["base"]
    cid, key = C.open_class("toy_spam", {"settings": SETTINGS, "t": 2}, store=served["store"])
    status, h, body = get(f"{base}/class/{cid}")
    assert status == 200 and config_of(body.decode())["defaults"]["hidden"] == 50
    assert get(f"{base}/class/{cid}", {"If-None-Match": h["etag"]})[0] == 304
    # the teacher's settings change: a new page (the page cache is keyed by the settings too)
    v = C.publish(cid, key, {"settings": dict(SETTINGS, hidden=70), "t": 2}, store=served["store"])
    poll_until_version(base, cid, v, since=v - 1)     # the server's read cache of the state has the new version
    status4, h4, body4 = get(f"{base}/class/{cid}", {"If-None-Match": h["etag"]})
    assert status4 == 200 and h4["etag"] != h["etag"] and config_of(body4.decode())["defaults"]["hidden"] == 70


def test_a_shared_data_set_is_served_like_an_upload(served):
    base, share = served["base"], served["share"]
    cid, _ = C.open_class(share, {"settings": {"hidden": 40}, "t": 0}, store=served["store"])
    status, h, body = get(f"{base}/class/{cid}")
    assert status == 200
    cfg = config_of(body.decode())
    assert cfg["dataUrl"] == f"data/{share}.json"
    status, h, body = get(f"{base}/class/data/{share}.json", {"Accept-Encoding": "gzip"})
    assert status == 200 and h["cache-control"] == PRIVATE
    data = json.loads(gzip.decompress(body))
    from dashboard.data import uploads
    from nblab.data import lab_data
    want = json.loads(json.dumps(lab_data(uploads.read_upload(CSV, {}))))
    assert data == want and data["n"] == 60
    # deleted: the data stops at once (the page too)
    receipt = served["store"].put("gone.csv", CSV + b"x y,ham\n", {}, owner="test2")
    assert get(f"{base}/class/data/{receipt.id}.json")[0] == 200
    assert served["store"].delete(receipt.id, receipt.delete_secret)
    status, h, body = get(f"{base}/class/data/{receipt.id}.json")
    assert status == 404 and json.loads(body)["error"] and receipt.id.encode() not in body


@pytest.mark.parametrize("path", [
    "/class/short", "/class/AAAAAAAAAAAAAAAA", "/class/AAAAAAAAAAAAAAAAA", "/class/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
    "/class/AAAAAAAA%3Cb%3EAAAA", "/class/x/y/z", "/class/", "/class",
    "/class/AAAAAAAAAAAAAAAA/state.json", "/class/%3Cscript%3E/state.json", "/class/short/state.json",
    "/class/data/nope.json", "/class/data/toy_spam", "/class/data/..%2F..%2Fetc%2Fpasswd.json",
    "/class/data/%3Cscript%3E.json", "/class/data/AAAAAAAAAAAAAAAAAAAAAAAA.json",
    "/class/assets/lab.000000000000.js", "/class/assets/..%2F..%2Fnblab%2Fsite.py",
])
def test_bad_and_unknown_ids_are_404_without_echo(served, path):
    status, h, body = get(served["base"] + path)
    text = body.decode("utf-8", "replace")
    if ".." in path and status == 400:   # Streamlit's path security refuses a traversal before any route
        assert "passwd" not in text and "Traceback" not in text
        return
    assert status == 404, (path, status, body[:200])
    assert "Traceback" not in text and "<script" not in text.lower()
    for bit in ("AAAAAAAA", "script", "passwd", "short", "nope"):
        if bit in path:
            assert bit not in text, (path, text)
    assert h["x-content-type-options"] == "nosniff"
    if h["content-type"].startswith("application/json"):
        assert set(json.loads(body)) == {"error"}


def test_the_app_itself_is_still_served(served):
    status, h, body = get(served["base"] + "/")
    assert status == 200 and b"<html" in body.lower()
    assert get(served["base"] + "/_stcore/health")[0] == 200
    log = served["log"].read_text()
    assert "Traceback" not in log, log[-3000:]


def _until(fn, what: str, timeout: float = 30.0):
    """Ask again until ``fn()`` answers something truthy (the server's read cache lives READ_TTL); the
    deadline is only a guard."""
    deadline = time.monotonic() + timeout
    while True:
        got = fn()
        if got:
            return got
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_a_class_whose_teacher_is_gone_reads_away_and_a_corrupted_row_is_refused(served):
    base, store = served["base"], served["store"]
    cid, key = C.open_class("toy_spam", {"settings": SETTINGS, "t": 2}, store=store)
    status, h, body = get(f"{base}/class/{cid}/state.json")
    assert status == 200 and h["etag"] == '"1"' and "away" not in json.loads(body)
    with store._tx(write=True) as db:      # nothing heard from the teacher's page for a while
        db.execute("UPDATE nblab_classes SET updated = ? WHERE id = ?", (time.time() - CS.AWAY_AFTER - 5, cid))

    def away():
        status, h, body = get(f"{base}/class/{cid}/state.json", {"If-None-Match": '"1"'})
        return (status, h, body) if status == 200 else None
    status, h, body = _until(away, "state.json never answered the class away")
    st = json.loads(body)
    assert h["etag"] == '"1a"' and st["away"] is True and st["t"] == 2 and st["v"] == 1
    assert get(f"{base}/class/{cid}/state.json", {"If-None-Match": '"1a"'})[0] == 304
    C.touch(cid, key, store=store)          # the teacher's page is back
    _until(lambda: get(f"{base}/class/{cid}/state.json")[1].get("etag") == '"1"', "still away after a touch")

    with store._tx(write=True) as db:      # a row that is no state any more
        db.execute("UPDATE nblab_classes SET state = ? WHERE id = ?", ('{"data": "toy_spam", "t": "x"}', cid))
    # (publish refuses such a state: the row was written behind the store's back)
    status, h, body = _until(lambda: (lambda r: r if r[0] != 200 else None)(get(f"{base}/class/{cid}/state.json")),
                             "a corrupted row was still served")
    assert status == 500 and json.loads(body) == {"error": "This class's state on the server cannot be read."}
    status, h, body = get(f"{base}/class/{cid}")
    assert status == 500 and b"This class cannot be shown" in body and b"Traceback" not in body
    log = Path(served["log"]).read_text(errors="replace")
    assert "Traceback" not in log[-20000:]


def test_a_data_set_without_gzip_is_sent_as_it_is_with_one_vary(served):
    """q=0 means not acceptable: the identity bytes, never compressed again by Streamlit's middleware."""
    base = served["base"]
    plain = get(f"{base}/class/data/toy_spam.json")[2]
    for enc in ("identity", "gzip;q=0", "gzip;q=0, deflate"):
        status, h, body = get(f"{base}/class/data/toy_spam.json", {"Accept-Encoding": enc})
        assert status == 200 and "content-encoding" not in h, (enc, h)
        assert body == plain and h["vary"] == "Accept-Encoding", (enc, h.get("vary"))
    cid, _ = C.open_class("toy_spam", {"t": 1}, store=served["store"])
    for path in (f"/class/{cid}", f"/class/{cid}/state.json"):
        status, h, _ = get(base + path, {"Accept-Encoding": "gzip;q=0"})
        assert status == 200 and "content-encoding" not in h and h.get("vary", "Accept-Encoding") == \
            "Accept-Encoding", (path, h)


def _raw_get(base: str, path: str) -> tuple[int, dict, bytes]:
    """A GET of ``path`` exactly as written (urllib would not send /./ or ; unchanged)."""
    import http.client
    host, port = base.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/", "/CLASS/AAAAAAAAAAAAAAAA", "/class;x/AAAAAAAAAAAAAAAA",
                                  "/./class/AAAAAAAAAAAAAAAA", "/lesson", "/no/such/page"])
def test_streamlit_s_own_html_has_the_security_headers(served, path):
    status, h, body = _raw_get(served["base"], path)
    assert status == 200 and h["content-type"].startswith("text/html"), (path, status)
    assert b"<html" in body.lower()
    csp = h["content-security-policy"]
    assert "frame-ancestors 'self'" in csp and "object-src 'none'" in csp and "base-uri 'self'" in csp
    assert h["x-frame-options"] == "SAMEORIGIN"
    assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "no-referrer"


def test_other_responses_have_nosniff_and_the_class_page_keeps_its_own_policy(served):
    status, h, _ = _raw_get(served["base"], "/_stcore/health")
    assert status == 200 and h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "no-referrer"
    cid, _ = C.open_class("toy_spam", {"t": 1}, store=served["store"])
    status, h, _ = _raw_get(served["base"], f"/class/{cid}")
    assert status == 200 and "frame-ancestors 'none'" in h["content-security-policy"]
    assert h["x-frame-options"] == "DENY"
