"""What one client can make the class routes do (dashboard/class_link/routes.py, entry.py), in this process
through the middleware stack the server uses: a data set answers from bytes made once whatever the client
asks (identity, gzip, ``gzip;q=0``: never decompressed or compressed per request), says ``Vary`` once,
and a client's flood of data downloads, state polls or random class ids meets its budget (429 with
Retry-After) after exactly as many store reads as its tokens pay for."""
from __future__ import annotations

import gzip
import json
import math
import zlib

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from dashboard import class_link as C
from dashboard.class_link import entry, routes
from dashboard.class_link import store as CS


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def app_with(budget: entry.Budget | None = None, bytes_budget: entry.Budget | None = None) -> Starlette:
    """The server's order: the class routes' middleware first, then (inside it) a gzip middleware as
    Streamlit's, then the app (here one page)."""
    async def home(request):
        return PlainTextResponse("the app " * 200)

    return Starlette(routes=[Route("/", home)], middleware=[
        Middleware(entry.ClassLink, routes=routes.routes(), refuse=routes.too_many, base_url="", budget=budget,
                   bytes_budget=bytes_budget or entry.Budget(rate=1e9)),
        Middleware(GZipMiddleware, minimum_size=500)])


def raw(client: TestClient, path: str, enc: str) -> tuple[int, object, bytes]:
    """(status, headers, the body's bytes as sent: not decoded by the client)."""
    with client.stream("GET", path, headers={"Accept-Encoding": enc}) as r:
        return r.status_code, r.headers, b"".join(r.iter_raw())


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("NBLAB_STORE_DIR", str(tmp_path))
    monkeypatch.delenv("NBLAB_STORE_URL", raising=False)
    CS._STORES.clear()
    CS.clear_cache()
    yield CS.get_store()
    CS._STORES.clear()
    CS.clear_cache()


def test_accept_encoding_q_values():
    from starlette.requests import Request

    def takes(value):
        return routes._accepts_gzip(Request({"type": "http", "headers": [(b"accept-encoding", value.encode())]}))

    assert takes("gzip") and takes("gzip, deflate, br") and takes("x-gzip") and takes("*")
    assert takes("gzip;q=0.5") and takes("*;q=0, gzip") and takes("deflate, *")
    assert not takes("") and not takes("identity") and not takes("br") and not takes("gzip;q=0")
    assert not takes("gzip;q=0.0, *") and not takes("*;q=0") and not takes("GZIP; Q=0")


def test_every_encoding_is_served_from_bytes_made_once(store):
    client = TestClient(app_with(entry.Budget(rate=1e6)))
    status, h, body = raw(client, "/class/data/spam_assassin.json", "gzip")
    assert status == 200 and h["content-encoding"] == "gzip"
    want = json.loads(gzip.decompress(body))
    built = routes.build_count()

    # from now on nothing may compress or decompress: each answer is bytes the cache holds
    def refuse(*a, **k):
        raise AssertionError("a data request compressed or decompressed")
    import starlette.middleware.gzip as sgz
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gzip, "compress", refuse)
        mp.setattr(gzip, "decompress", refuse)
        mp.setattr(sgz.GZipResponder, "apply_compression", refuse)
        for enc, gzipped in [("identity", False), ("gzip;q=0", False), ("gzip;q=0, identity", False),
                             ("", False), ("gzip", True), ("br, gzip;q=0.8", True), ("*", True),
                             ("gzip;q=0, *", False)]:
            status, h, body = raw(client, "/class/data/spam_assassin.json", enc)
            assert status == 200, (enc, status, body[:200])
            assert h.get("content-encoding") == ("gzip" if gzipped else None), enc
            assert h.get_list("vary") == ["Accept-Encoding"], (enc, h.get_list("vary"))
            assert json.loads(zlib.decompress(body, 31) if gzipped else body) == want, enc
    assert routes.build_count() == built

    # the class page and the state too (the page is built, and compressed, once): one Vary, no gzip when
    # it is not acceptable
    cid, _ = C.open_class("spam_assassin", {"t": 1}, store=store)
    for path in (f"/class/{cid}", f"/class/{cid}/state.json"):
        status, h, _ = raw(client, path, "gzip;q=0")
        assert status == 200 and "content-encoding" not in h, path
        assert len(h.get_list("vary")) <= 1, (path, h.get_list("vary"))
    # the rest of the app still goes through its own middleware (here: compressed)
    status, h, _ = raw(client, "/", "gzip")
    assert status == 200 and h["content-encoding"] == "gzip"


def test_a_flood_of_random_class_ids_stops_at_its_budget(store):
    clock = Clock()
    burst = 100
    budget = entry.Budget(rate=1.0, burst=burst, clock=clock)
    client = TestClient(app_with(budget))
    reads0 = CS.db_reads(store)
    answers = [client.get(f"/class/{'A' * 15}{c}/state.json").status_code
               for c in "BCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"]
    # each unknown id costs its request (1) and a store read (STORE_READ_COST): the burst pays for
    # floor(100 / 21) = 4 of them; after that every request is refused without asking the store
    per = 1 + entry.STORE_READ_COST
    paid = burst // per
    assert CS.db_reads(store) - reads0 == paid
    assert answers[:paid] == [404] * paid and set(answers[paid:]) == {429}, answers
    r = client.get(f"/class/{'A' * 16}/state.json")
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    assert r.headers["content-type"].startswith("application/json") and set(r.json()) == {"error"}
    page = client.get(f"/class/{'A' * 16}")
    assert page.status_code == 429 and page.headers["content-type"].startswith("text/html")
    assert "Too many requests" in page.text and "A" * 16 not in page.text
    # another client is not affected; and the flooder is served again once its bucket refilled
    other = TestClient(app_with(budget), client=("10.1.2.3", 5000))
    assert other.get(f"/class/{'B' * 16}/state.json").status_code == 404
    clock.t += per + 1 + entry.STORE_READ_COST
    assert client.get(f"/class/{'C' * 16}/state.json").status_code == 404


def test_a_class_followed_from_one_address_is_not_refused(store):
    """A lecture behind one NAT address: polls answered from the process's read cache cost one token each,
    so 300 students polling every 2 s (150 a second) stay inside the default 200 a second."""
    clock = Clock()
    budget = entry.Budget(clock=clock)
    assert budget.rate == entry.DEFAULT_RATE
    client = TestClient(app_with(budget))
    cid, _ = C.open_class("toy_spam", {"t": 1}, store=store)
    CS.read(cid, store=store)
    refused = 0
    for second in range(8):
        clock.t += 1.0
        for i in range(150):
            if i % 40 == 0:
                CS.read(cid, store=store)      # the cache stays fresh (its TTL runs on the real clock)
            r = client.get(f"/class/{cid}/state.json", headers={"If-None-Match": '"1"'})
            refused += r.status_code == 429
    assert refused == 0


def test_a_flood_of_identity_downloads_is_charged_by_its_bytes(store):
    clock = Clock()
    burst = 200                            # units of 64 KiB: 12.5 MB
    downloads = entry.Budget(rate=10.0, burst=burst, clock=clock)
    client = TestClient(app_with(entry.Budget(rate=1e6), bytes_budget=downloads))
    size = len(client.get("/class/data/spam_assassin.json", headers={"Accept-Encoding": "identity"}).content)
    clock.t += 1e6                         # a full bucket again
    cost = size / entry.BODY_UNIT          # what one identity download costs
    got = [client.get("/class/data/spam_assassin.json", headers={"Accept-Encoding": "identity"}).status_code
           for _ in range(40)]
    # a download is let in while the client is not in debt; each spends its bytes: the bucket pays for
    # ceil(burst / cost) of them (the last one into debt), then the client waits
    served = got.count(200)
    assert cost > 20 and served == math.ceil(burst / cost) and set(got[served:]) == {429}, (cost, got)
    r = client.get("/class/data/spam_assassin.json")
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    # its polls of a class go on meanwhile (their bucket is another)
    cid, _ = C.open_class("toy_spam", {"t": 1}, store=store)
    assert client.get(f"/class/{cid}/state.json").status_code == 200
    # and once its debt is paid back, it downloads again
    clock.t += math.ceil((cost * served - burst) / 10.0) + 1
    assert client.get("/class/data/spam_assassin.json").status_code == 200


def test_random_class_ids_never_push_a_followed_class_out_of_the_read_cache(store, monkeypatch):
    """The read cache keeps missing ids apart: MISS_ENTRIES + 50 unknown ids leave the followed class's
    entry where it was (before, they shared CACHE_ENTRIES slots with it)."""
    monkeypatch.setattr(CS, "CACHE_ENTRIES", 8)
    monkeypatch.setattr(CS, "MISS_ENTRIES", 16)
    monkeypatch.setattr(CS, "READ_TTL", 3600.0)     # nothing expires during the test
    cid, _ = C.open_class("toy_spam", {"t": 2}, store=store)
    assert CS.read(cid, store=store)[0] == 1
    for i in range(16 + 50):
        with pytest.raises(CS.ClassNotFound):
            CS.read(f"{i:016d}", store=store)
    reads = CS.db_reads(store)
    assert CS.peek(cid, store=store) is not None and CS.read(cid, store=store)[0] == 1
    assert CS.db_reads(store) == reads         # answered from the cache: the class was not pushed out
    # the newest missing ids are remembered too (no store read for them)
    with pytest.raises(CS.ClassNotFound):
        CS.read(f"{16 + 49:016d}", store=store)
    assert CS.db_reads(store) == reads
