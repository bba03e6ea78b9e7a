"""The class answers (dashboard/class_link/answers.py and their routes under /class/<cid>/q/<qid>/), on SQLite and
on a real PostgreSQL: the teacher's questions, students' answers over HTTP (one per token, replaced), every
refusal with its status and message, the tally against a count made by hand, two processes on one database,
a store closed and opened again, hostile answers counted nowhere, and only the token's hash kept."""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import signal
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest
from starlette.responses import Response
from starlette.testclient import TestClient

from dashboard import class_link as C
from dashboard.class_link import answers as A
from dashboard.class_link import entry, routes
from dashboard.class_link import store as CS
from dashboard.data import store as S
from kit.answers import fresh_answer_store, token
from kit.server import streamlit_server

STATE = {"data": "toy_spam", "t": 0}
JSON = {"content-type": "application/json"}


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path, monkeypatch):
    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
    yield from fresh_answer_store(tmp_path, monkeypatch, pg_url=url)


def client(budget: entry.Budget | None = None) -> TestClient:
    """The class routes behind the class link's middleware (entry.ClassLink), as the app serves them."""
    async def app(scope, receive, send):   # what Streamlit would answer: nothing under /class/ gets here
        await Response(b"streamlit", status_code=599)(scope, receive, send)
    mw = entry.ClassLink(app, routes=routes.routes(), refuse=routes.too_many, base_url="",
                         budget=budget or entry.Budget(rate=1e6), bytes_budget=entry.Budget(rate=1e6))
    return TestClient(mw)


def post(c: TestClient, cid: str, qid: str, body, *, raw: bytes | None = None, headers=None):
    data = raw if raw is not None else json.dumps(body).encode()
    return c.post(f"/class/{cid}/q/{qid}/answer", content=data, headers=JSON if headers is None else headers)


def said(r, status: int, message: str) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    assert r.json() == {"error": message}


def opened(store, qid="q1", **spec):
    cid, key = C.open_class("toy_spam", STATE, store=store)
    A.ask(cid, key, qid, spec.pop("kind", "choice"), **(spec or {"options": ["up", "down", "same"]}), store=store)
    return cid, key


def rows(store, table="nblab_answers") -> list[tuple]:
    with store._tx(write=False) as db:
        return [tuple(r) for r in db.execute(f"SELECT * FROM {table}").fetchall()]


# ---- answers and tallies ----------------------------------------------------------------------------------

def test_answers_are_counted_once_per_token_and_a_change_replaces(store):
    cid, key = opened(store)
    c = client()
    toks = [token() for _ in range(7)]
    picks = ["up", "up", "down", "same", "up", "down", "up"]
    for t, p in zip(toks, picks):
        r = post(c, cid, "q1", {"token": t, "answer": p})
        assert r.status_code == 200 and r.json() == {"question": "q1", "answer": p, "replaced": False}
        assert r.headers["cache-control"] == "no-store"
    # two students change their minds: their first answers no longer count
    assert post(c, cid, "q1", {"token": toks[0], "answer": "down"}).json()["replaced"] is True
    assert post(c, cid, "q1", {"token": toks[3], "answer": "up"}).json()["replaced"] is True
    final = ["down", "up", "down", "up", "up", "down", "up"]
    t = A.tally(cid, key, "q1", store=store)
    assert t["n"] == 7 and t["counts"] == {"up": final.count("up"), "down": final.count("down"), "same": 0}
    assert t["counts"] == {"up": 4, "down": 3, "same": 0}
    assert list(t["counts"]) == ["up", "down", "same"] and t["open"] is True and t["right"] is None
    assert len(rows(store)) == 7


def test_a_number_questions_tally_is_its_histogram_and_quantiles(store):
    cid, key = opened(store, "acc", kind="number", lo=0, hi=1)
    c = client()
    xs = [0.0, 0.12, 0.5, 0.5, 0.73, 0.74, 0.99, 1.0, 1]
    for x in xs:
        assert post(c, cid, "acc", {"token": token(), "answer": x}).status_code == 200
    t = A.tally(cid, key, "acc", store=store)
    counts, edges = np.histogram(xs, bins=A.NUMBER_BINS, range=(0, 1))   # the last bin closed at hi, as numpy's
    assert t["n"] == len(xs) and t["bins"] == counts.tolist() and t["bins"] == [1, 1, 0, 0, 0, 2, 0, 2, 0, 3]
    assert np.allclose(t["edges"], edges)
    assert np.allclose(t["quantiles"], np.quantile(xs, [0, 0.25, 0.5, 0.75, 1]))
    assert t["mean"] == pytest.approx(np.mean(xs))
    assert t["lo"] == 0 and t["hi"] == 1
    empty_cid, empty_key = opened(store, "e", kind="number", lo=-5, hi=5)
    e = A.tally(empty_cid, empty_key, "e", store=store)
    assert e["n"] == 0 and e["bins"] == [0] * 10 and e["quantiles"] is None and e["mean"] is None


def test_two_processes_on_one_database_count_the_same_answers(store):
    other = S.open_store(store.test_url, clock=store.test_clock)
    try:
        cid, key = opened(store)
        toks = [token() for _ in range(6)]
        for i, t in enumerate(toks):   # the answers go to one process or the other, as HAProxy spreads them
            A.answer(cid, "q1", t, ["up", "down"][i % 2], store=(store, other)[i % 3 == 0])
        A.answer(cid, "q1", toks[1], "same", store=other)     # a change through the other process replaces
        a, b = A.tally(cid, key, "q1", store=store), A.tally(cid, key, "q1", store=other)
        assert a == b and a["n"] == 6 and a["counts"] == {"up": 3, "down": 2, "same": 1}
        assert A.mine(cid, "q1", toks[1], store=store)["answer"] == "same"
    finally:
        other.close()


def test_answers_at_once_from_two_processes_are_all_counted(store):
    """Forty students answering at once through two store objects (two app processes), ten threads each (fewer
    than a store's MAX_STALLED calls at once), two answers a thread: the store's write transactions lose none
    and count none twice."""
    other = S.open_store(store.test_url, clock=store.test_clock)
    try:
        cid, key = opened(store)
        picks = [("up", "down", "same")[i % 3] for i in range(40)]
        errors = []

        def two(i: int) -> None:
            try:
                for j in (i, i + 20):
                    A.answer(cid, "q1", token(), picks[j], store=(store, other)[i % 2])
            except Exception as e:  # noqa: BLE001 - the test reports it
                errors.append(e)
        assert 10 < S.MAX_STALLED
        threads = [threading.Thread(target=two, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert A.tally(cid, key, "q1", store=other)["counts"] == {"up": picks.count("up"), "down": picks.count("down"),
                                                                   "same": picks.count("same")}
        assert A.tally(cid, key, "q1", store=store)["n"] == 40 == len(rows(store))
    finally:
        other.close()


def test_tallies_survive_closing_and_reopening_the_store(store):
    cid, key = opened(store)
    toks = [token() for _ in range(5)]
    for t, p in zip(toks, ["up", "down", "down", "same", "down"]):
        A.answer(cid, "q1", t, p, store=store)
    before = A.tally(cid, key, "q1", store=store)
    store.close()
    again = S.open_store(store.test_url, clock=store.test_clock)
    try:
        assert A.tally(cid, key, "q1", store=again) == before
        assert before["counts"] == {"up": 1, "down": 3, "same": 1}
        assert A.mine(cid, "q1", toks[3], store=again)["answer"] == "same"
        A.answer(cid, "q1", toks[0], "same", store=again)
        assert A.tally(cid, key, "q1", store=again)["counts"] == {"up": 0, "down": 3, "same": 2}
    finally:
        again.close()


def test_a_reload_gets_its_own_answer_back(store):
    cid, key = opened(store)
    c = client()
    mine, other = token(), token()
    r = c.get(f"/class/{cid}/q/q1/mine", headers={"X-NBLab-Token": mine})
    assert r.status_code == 200 and r.json()["answer"] is None
    assert r.json()["question"] == {"question": "q1", "kind": "choice", "open": True, "revealed": False,
                                    "right": None, "options": ["up", "down", "same"]}
    post(c, cid, "q1", {"token": mine, "answer": "down"})
    post(c, cid, "q1", {"token": other, "answer": "up"})
    assert c.get(f"/class/{cid}/q/q1/mine", headers={"X-NBLab-Token": mine}).json()["answer"] == "down"
    assert c.get(f"/class/{cid}/q/q1/mine", headers={"X-NBLab-Token": other}).json()["answer"] == "up"
    said(c.get(f"/class/{cid}/q/q1/mine"), 400, A.BAD_TOKEN)
    said(c.get(f"/class/{cid}/q/q1/mine", headers={"X-NBLab-Token": "short"}), 400, A.BAD_TOKEN)
    # a number question gives its number back
    A.ask(cid, key, "acc", "number", lo=0, hi=100, store=store)
    post(c, cid, "acc", {"token": mine, "answer": 42.5})
    assert c.get(f"/class/{cid}/q/acc/mine", headers={"X-NBLab-Token": mine}).json()["answer"] == 42.5


def test_the_tally_is_the_students_only_after_the_reveal(store):
    cid, key = opened(store)
    c = client()
    for p in ["up", "down", "down"]:
        post(c, cid, "q1", {"token": token(), "answer": p})
    said(c.get(f"/class/{cid}/q/q1/tally"), 403, A.NOT_REVEALED)
    q = c.get(f"/class/{cid}/q/q1").json()
    assert q["open"] is True and q["right"] is None and "counts" not in q
    A.clear_cache()
    shown = A.reveal(cid, key, "q1", "down", store=store)
    assert shown["right"] == "down" and shown["open"] is False and shown["counts"] == {"up": 1, "down": 2, "same": 0}
    r = c.get(f"/class/{cid}/q/q1/tally")
    assert r.status_code == 200 and r.json() == shown
    assert c.get(f"/class/{cid}/q/q1").json()["right"] == "down"
    # revealed once; the right answer must be one the question takes
    with pytest.raises(A.BadQuestion, match="revealed already"):
        A.reveal(cid, key, "q1", "up", store=store)
    A.ask(cid, key, "q2", "choice", options=["a", "b"], store=store)
    with pytest.raises(A.BadQuestion, match=r"right: The answer is not one of this question's options \(a, b\)\."):
        A.reveal(cid, key, "q2", "c", store=store)
    with pytest.raises(A.BadQuestion, match="right: the question's right answer"):
        A.reveal(cid, key, "q2", None, store=store)
    with pytest.raises(C.WrongKey):
        A.reveal(cid, "x" * 32, "q2", "a", store=store)
    with pytest.raises(C.WrongKey):
        A.tally(cid, "x" * 32, "q2", store=store)
    A.ask(cid, key, "n", "number", lo=0, hi=1, store=store)
    with pytest.raises(A.BadQuestion, match="right: The answer must be a number from 0 to 1."):
        A.reveal(cid, key, "n", 1.5, store=store)
    assert A.reveal(cid, key, "n", 0.25, store=store)["right"] == 0.25
    # the lesson's numbers are numpy's (nbcore computes the right answer): taken as the numbers they are
    A.ask(cid, key, "n2", "number", lo=np.int64(0), hi=np.float32(10), store=store)
    assert A.reveal(cid, key, "n2", np.int64(7), store=store)["right"] == 7.0
    A.ask(cid, key, "n3", "number", lo=0, hi=1, store=store)
    with pytest.raises(A.BadQuestion, match="right: This question's answer is a number."):
        A.reveal(cid, key, "n3", np.bool_(True), store=store)
    assert A.reveal(cid, key, "n3", np.float64(0.875), store=store)["right"] == 0.875


def test_no_route_takes_a_right_answer_or_changes_a_question(store):
    cid, key = opened(store)
    c = client()
    for path in ("reveal", "close", "open", "right", "tally", "mine"):
        r = c.post(f"/class/{cid}/q/q1/{path}", content=b'{"right": "up"}', headers=JSON)
        assert r.status_code in (404, 405), (path, r.status_code)
    for path in (f"/class/{cid}/q/q1", f"/class/{cid}/q", f"/class/{cid}/state.json", f"/class/{cid}"):
        assert c.post(path, content=b'{"right": "up", "open": false}', headers=JSON).status_code in (404, 405)
    assert A.tally(cid, key, "q1", store=store)["right"] is None
    assert A.question(cid, "q1", store=store)["open"] is True and rows(store) == []


def test_another_site_cannot_post_answers(store):
    """A JSON POST from another site's page needs the browser's CORS preflight; the routes grant none (no
    Access-Control-Allow-Origin on any answer), so only the class page itself (same origin) can answer."""
    cid, _ = opened(store)
    c = client()
    pre = c.options(f"/class/{cid}/q/q1/answer", headers={"Origin": "https://evil.example",
                                                          "Access-Control-Request-Method": "POST",
                                                          "Access-Control-Request-Headers": "content-type"})
    assert pre.status_code >= 400 and "access-control-allow-origin" not in pre.headers
    r = c.post(f"/class/{cid}/q/q1/answer", content=json.dumps({"token": token(), "answer": "up"}).encode(),
               headers={**JSON, "Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in r.headers
    # a form's POST (no preflight: text/plain or form-encoded) is refused before anything is read
    said(c.post(f"/class/{cid}/q/q1/answer", content=b'{"token": "%s", "answer": "up"}' % token().encode(),
                headers={"content-type": "text/plain", "Origin": "https://evil.example"}), 400, routes.NOT_JSON_TYPE)
    assert len(rows(store)) == 1


# ---- every refusal, its status and its message; refused answers are counted nowhere -----------------------

def test_bad_bodies_are_400_with_their_message(store):
    cid, key = opened(store)
    A.ask(cid, key, "acc", "number", lo=0, hi=1, store=store)
    c = client()
    t = token()
    said(post(c, cid, "q1", None, raw=b'{"token":"%s","answer":"up"}' % t.encode(),
              headers={"content-type": "text/plain"}), 400, routes.NOT_JSON_TYPE)
    said(post(c, cid, "q1", None, raw=b"token=x&answer=up",
              headers={"content-type": "application/x-www-form-urlencoded"}), 400, routes.NOT_JSON_TYPE)
    said(post(c, cid, "q1", None, raw=b'{"token":"%s","answer":"up"}' % t.encode(), headers={}), 400,
         routes.NOT_JSON_TYPE)
    for raw in (b"{not json", b"", b'{"token": "' + t.encode() + b'", "answer": "up"', b"\xff\xfe{}", b"[" * 600):
        said(post(c, cid, "q1", None, raw=raw), 400, A.NOT_JSON)
    for raw in (b'{"token":"%s","answer":NaN}', b'{"token":"%s","answer":Infinity}', b'{"token":"%s","answer":-Infinity}'):
        said(post(c, cid, "acc", None, raw=raw % t.encode()), 400, A.NOT_FINITE)
    for body in ([t, "up"], "up", 3, None, {"token": t}, {"answer": "up"}, {"token": t, "answer": "up", "name": "Ann"},
                 {"token": t, "answer": "up", "text": "free text"}):
        said(post(c, cid, "q1", body), 400, A.SHAPE)
    said(post(c, cid, "q1", None, raw=b'{"token":"%s","answer":"up","answer":"down"}' % t.encode()), 400, A.SHAPE)
    for bad in ("short", "x" * 65, "é" * 30, "a/" * 15, "a b" * 10, 12345678901234567890123, None, ["x" * 30],
                {"t": "x" * 30}, "<script>" * 4):
        said(post(c, cid, "q1", {"token": bad, "answer": "up"}), 400, A.BAD_TOKEN)
    opts = "The answer is not one of this question's options (up, down, same)."
    for bad in ("UP", "left", "", 1, 0, True, None, ["up"], {"up": 1}, "up ", "up\u202e"):
        said(post(c, cid, "q1", {"token": t, "answer": bad}), 400, opts)
    for bad in ("0.5", True, False, None, [0.5], {"v": 0.5}):
        said(post(c, cid, "acc", {"token": t, "answer": bad}), 400, A.NOT_A_NUMBER)
    rng = "The answer must be a number from 0 to 1."
    for bad in (-0.001, 1.0000001, 2, -1, 10**30):
        said(post(c, cid, "acc", {"token": t, "answer": bad}), 400, rng)
    said(post(c, cid, "acc", None, raw=b'{"token":"%s","answer":1e400}' % t.encode()), 400, rng)
    said(post(c, cid, "acc", None, raw=b'{"token":"%s","answer":%s}' % (t.encode(), b"9" * 500)), 400, rng)
    said(c.post(f"/class/{cid}/q/q1/answer", content=b'{"token":"%s","answer":"up"}' % t.encode(),
                headers={"content-type": "application/json", "content-length": "abc"}), 400,
         "The request's Content-Length is not a number.")
    # nothing of all that was counted or kept: no answer, no token's budget spent
    assert rows(store) == [] and rows(store, "nblab_answer_rate") == []
    assert A.tally(cid, key, "q1", store=store)["n"] == 0 and A.tally(cid, key, "acc", store=store)["n"] == 0


def test_a_body_over_1_kb_is_413(store):
    cid, key = opened(store)
    c = client()
    t = token()
    pad = {"token": t, "answer": "up" + " " * 2000}
    said(post(c, cid, "q1", pad), 413, routes.TOO_BIG)
    big = json.dumps({"token": t, "answer": "up"}).encode() + b" " * (A.MAX_BODY - 40)
    assert len(big) > A.MAX_BODY
    said(post(c, cid, "q1", None, raw=big), 413, routes.TOO_BIG)
    # without a Content-Length (a chunked body), the route stops reading past 1 KB all the same
    chunks = iter([b'{"token":"' + t.encode() + b'","answer":"up"', b" " * 700, b" " * 700, b"}"])
    said(c.post(f"/class/{cid}/q/q1/answer", content=chunks, headers=JSON), 413, routes.TOO_BIG)
    exact = json.dumps({"token": t, "answer": "up"}).encode()
    exact += b" " * (A.MAX_BODY - len(exact))
    assert len(exact) == A.MAX_BODY and post(c, cid, "q1", None, raw=exact).status_code == 200
    assert len(rows(store)) == 1


def test_unknown_classes_and_questions_are_404(store):
    cid, key = opened(store)
    c = client()
    body = {"token": token(), "answer": "up"}
    for bad in ("short", "A" * 17, "<script>alert1", "A" * 15 + "'"):
        r = post(c, bad, "q1", body)
        said(r, 404, routes.NO_CLASS)
        assert "script" not in r.text
    said(post(c, "..%2F..%2Fetc", "q1", body), 404, "There is nothing here.")
    said(post(c, "A" * 16, "q1", body), 404, "This class is not on the server (it was closed or never opened).")
    said(post(c, cid, "nope", body), 404, A.NO_QUESTION)
    said(post(c, cid, "q" * 33, body), 404, A.NO_QUESTION)
    said(post(c, cid, "q.1", body), 404, A.NO_QUESTION)
    said(c.get(f"/class/{cid}/q/nope"), 404, A.NO_QUESTION)
    said(c.get(f"/class/{cid}/q/nope/tally"), 404, A.NO_QUESTION)
    said(c.get(f"/class/{cid}/q/nope/mine", headers={"X-NBLab-Token": token()}), 404, A.NO_QUESTION)
    said(c.get("/class/AAAAAAAAAAAAAAAA/q/q1"), 404, "This class is not on the server (it was closed or never opened).")
    said(c.post("/class/nothing/here/at/all", content=b"{}", headers=JSON), 404, "There is nothing here.")
    assert rows(store) == []


def test_a_closed_question_is_409_and_a_replay_changes_nothing(store):
    cid, key = opened(store)
    c = client()
    t, u = token(), token()
    assert post(c, cid, "q1", {"token": t, "answer": "up"}).status_code == 200
    before = A.close(cid, key, "q1", store=store)
    assert before["open"] is False and before["counts"] == {"up": 1, "down": 0, "same": 0}
    said(post(c, cid, "q1", {"token": t, "answer": "down"}), 409, A.CLOSED)   # the same request again, changed
    said(post(c, cid, "q1", {"token": t, "answer": "up"}), 409, A.CLOSED)     # replayed as it was
    said(post(c, cid, "q1", {"token": u, "answer": "down"}), 409, A.CLOSED)   # a latecomer
    assert A.tally(cid, key, "q1", store=store) == before
    assert A.mine(cid, "q1", t, store=store)["answer"] == "up" and len(rows(store)) == 1
    A.reveal(cid, key, "q1", "up", store=store)
    said(post(c, cid, "q1", {"token": u, "answer": "up"}), 409, A.CLOSED)
    assert len(rows(store)) == 1


def test_a_closed_or_expired_class_is_410(store):
    cid, key = opened(store)
    c = client()
    t = token()
    assert post(c, cid, "q1", {"token": t, "answer": "up"}).status_code == 200
    C.publish(cid, key, {**STATE, "open": False}, store=store)   # Close ends the class, and its questions
    said(post(c, cid, "q1", {"token": t, "answer": "down"}), 410, A.CLASS_CLOSED)
    said(post(c, cid, "q1", {"token": token(), "answer": "down"}), 410, A.CLASS_CLOSED)
    with pytest.raises(A.ClassClosed, match="has ended"):
        A.ask(cid, key, "q2", "choice", options=["a", "b"], store=store)
    A.clear_cache()
    assert c.get(f"/class/{cid}/q/q1").json()["open"] is False   # the students' pages say it is closed
    got = c.get(f"/class/{cid}/q/q1/mine", headers={"X-NBLab-Token": t}).json()
    assert got["question"]["open"] is False and got["answer"] == "up"
    assert A.tally(cid, key, "q1", store=store)["counts"] == {"up": 1, "down": 0, "same": 0}
    # a class nobody touched for 12 hours: gone
    cid2, key2 = opened(store)
    store.test_clock.now += CS.CLASS_TTL + 1
    said(post(c, cid2, "q1", {"token": t, "answer": "up"}), 410,
         "This class was not used for 12 hours and was closed.")
    A.clear_cache()
    said(c.get(f"/class/{cid2}/q/q1"), 410, "This class was not used for 12 hours and was closed.")
    assert len(rows(store)) == 1


def test_a_flood_from_one_token_is_429_with_retry_after(store):
    cid, key = opened(store)
    c = client()
    t = token()
    picks = ["up", "down"] * A.ANSWERS_PER_MINUTE
    for p in picks[:A.ANSWERS_PER_MINUTE]:
        assert post(c, cid, "q1", {"token": t, "answer": p}).status_code == 200
    r = post(c, cid, "q1", {"token": t, "answer": "same"})
    wait = 60 // A.ANSWERS_PER_MINUTE   # one answer's worth of the bucket comes back in this many seconds
    said(r, 429, f"Too many answers from this browser: wait {wait} seconds.")
    assert r.headers["retry-after"] == str(wait)
    assert A.mine(cid, "q1", t, store=store)["answer"] == "down"   # the refused one changed nothing
    assert A.tally(cid, key, "q1", store=store)["counts"] == {"up": 0, "down": 1, "same": 0}
    # another token is not held back; the flooder may answer again once the bucket refills
    assert post(c, cid, "q1", {"token": token(), "answer": "up"}).status_code == 200
    store.test_clock.now += wait
    assert post(c, cid, "q1", {"token": t, "answer": "same"}).status_code == 200
    assert post(c, cid, "q1", {"token": t, "answer": "up"}).status_code == 429
    assert A.tally(cid, key, "q1", store=store)["counts"] == {"up": 1, "down": 0, "same": 1}
    # the bucket is the token's in the class, whichever question it answers
    A.ask(cid, key, "q2", "choice", options=["a", "b"], store=store)
    assert post(c, cid, "q2", {"token": t, "answer": "a"}).status_code == 429


def test_a_question_takes_at_most_max_answers(store, monkeypatch):
    monkeypatch.setattr(A, "MAX_ANSWERS", 3)
    cid, key = opened(store)
    c = client()
    toks = [token() for _ in range(4)]
    for t in toks[:3]:
        assert post(c, cid, "q1", {"token": t, "answer": "up"}).status_code == 200
    r = post(c, cid, "q1", {"token": toks[3], "answer": "down"})
    said(r, 429, "This question has taken as many answers as it may (3).")
    assert r.headers["retry-after"] == "60"
    assert post(c, cid, "q1", {"token": toks[0], "answer": "down"}).status_code == 200   # a change still counts
    assert A.tally(cid, key, "q1", store=store)["counts"] == {"up": 2, "down": 1, "same": 0}


def test_a_client_over_its_request_budget_is_429(store):
    cid, key = opened(store)
    # one request costs 1 token, an answer ANSWER_COST more: a bucket of 4 takes one answer, not two
    c = client(entry.Budget(rate=0.01, burst=1 + entry.ANSWER_COST + 1))
    assert post(c, cid, "q1", {"token": token(), "answer": "up"}).status_code == 200
    r = post(c, cid, "q1", {"token": token(), "answer": "up"})
    said(r, 429, "Too many requests from this computer: wait a few seconds and try again.")
    assert int(r.headers["retry-after"]) >= 1
    assert len(rows(store)) == 1


def test_a_store_that_cannot_answer_is_503(store, monkeypatch):
    cid, _ = opened(store)

    def down(*a, **k):
        raise S.StoreUnavailable(S.UNAVAILABLE_MSG)
    monkeypatch.setattr(A, "answer", down)
    r = post(client(), cid, "q1", {"token": token(), "answer": "up"})
    said(r, 503, "The server's store cannot answer right now. Try again in a moment.")
    assert r.headers["retry-after"] == "5"


def test_only_the_tokens_hash_is_stored(store):
    cid, key = opened(store)
    t = token()
    post(client(), cid, "q1", {"token": t, "answer": "same"})
    (got,) = rows(store)
    assert t not in json.dumps([str(x) for x in got])
    expect = hashlib.sha256(f"nblab-answer:{cid}:{t}".encode()).hexdigest()
    with store._tx(write=False) as db:
        row = db.execute("SELECT class_id, qid, token_hash, choice, num FROM nblab_answers").fetchone()
        rate = db.execute("SELECT class_id, token_hash FROM nblab_answer_rate").fetchall()
    assert tuple(row) == (cid, "q1", expect, "same", None)
    assert [tuple(r) for r in rate] == [(cid, expect)]
    # the same browser's token in another class is another hash: its answers cannot be linked
    cid2, _ = opened(store)
    A.answer(cid2, "q1", t, "up", store=store)
    hashes = {r[2] for r in rows(store)}
    assert len(hashes) == 2 and expect in hashes and A.token_hash(cid2, t) in hashes


# ---- the teacher's questions ------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, message", [
    ({"kind": "choice", "options": ["a"]}, "options: a list of 2–6 option ids"),
    ({"kind": "choice", "options": list("abcdefg")}, "options: a list of 2–6 option ids"),
    ({"kind": "choice", "options": "ab"}, "options: a list of 2–6 option ids"),
    ({"kind": "choice", "options": ["a", "a"]}, "options: each option once"),
    ({"kind": "choice", "options": ["a", "b c"]}, "options: each an id of 1–32 characters"),
    ({"kind": "choice", "options": ["a", 1]}, "options: each an id of 1–32 characters"),
    ({"kind": "number", "lo": 1, "hi": 1}, "lo < hi: the range of the answers"),
    ({"kind": "number", "lo": 0, "hi": float("nan")}, "hi: a finite number"),
    ({"kind": "number", "lo": float("-inf"), "hi": 1}, "lo: a finite number"),
    ({"kind": "number", "lo": 0, "hi": 1e10}, "hi: a finite number within"),
    ({"kind": "number", "lo": "0", "hi": 1}, "lo: a finite number"),
    ({"kind": "number", "lo": 0, "hi": True}, "hi: a finite number"),
    ({"kind": "text"}, 'kind: "choice", "number" or "report"'),
    ({"kind": "report"}, "fields: 1–16 named ranges"),
    ({"kind": "report", "fields": {}}, "fields: 1–16 named ranges"),
    ({"kind": "report", "fields": {f"f{i}": (0, 1) for i in range(17)}}, "fields: 1–16 named ranges"),
    ({"kind": "report", "fields": {"a b": (0, 1)}}, "fields: each name 1–32 characters"),
    ({"kind": "report", "fields": {"acc": 1}}, "fields: acc's range a pair"),
    ({"kind": "report", "fields": {"acc": (1, 0)}}, "fields: acc's lo < hi"),
    ({"kind": "report", "fields": {"acc": (0, float("inf"))}}, "acc hi: a finite number"),
    ({"kind": "report", "fields": {"acc": (0, 1)}, "shares": []}, "shares: a list of 1–32 labelled shares"),
    ({"kind": "report", "fields": {"acc": (0, 1)}, "shares": [0.1, 0]}, "shares: a list of 1–32 labelled shares"),
    ({"kind": "report", "fields": {"acc": (0, 1)}, "shares": [1.5]}, "shares: a list of 1–32 labelled shares"),
    ({"kind": "report", "fields": {"acc": (0, 1)}, "shares": ["0.1"]}, "shares: a finite number"),
])
def test_a_bad_question_is_refused(store, spec, message):
    cid, key = C.open_class("toy_spam", STATE, store=store)
    with pytest.raises(A.BadQuestion, match=message.replace("(", r"\(").replace(")", r"\)")):
        spec = dict(spec)
        A.ask(cid, key, "q", spec.pop("kind"), **spec, store=store)
    assert rows(store, "nblab_questions") == []


def test_question_ids_keys_and_limits(store, monkeypatch):
    cid, key = C.open_class("toy_spam", STATE, store=store)
    with pytest.raises(A.BadQuestion, match="id: 1–32 characters"):
        A.ask(cid, key, "a b", "choice", options=["x", "y"], store=store)
    with pytest.raises(C.WrongKey):
        A.ask(cid, "k" * 32, "q", "choice", options=["x", "y"], store=store)
    with pytest.raises(C.ClassNotFound):
        A.ask("A" * 16, key, "q", "choice", options=["x", "y"], store=store)
    A.ask(cid, key, "q", "choice", options=["x", "y"], store=store)
    with pytest.raises(A.BadQuestion, match="asked a question with this id already"):
        A.ask(cid, key, "q", "choice", options=["x", "y"], store=store)
    monkeypatch.setattr(A, "MAX_QUESTIONS", 2)
    A.ask(cid, key, "q2", "number", lo=0, hi=1, store=store)
    with pytest.raises(A.BadQuestion, match="asked 2 questions, as many as it may"):
        A.ask(cid, key, "q3", "number", lo=0, hi=1, store=store)
    with pytest.raises(A.NoQuestion, match="no such question"):
        A.close(cid, key, "zz", store=store)


def test_the_answers_of_a_class_that_is_gone_are_removed(store):
    cid, key = opened(store)
    A.answer(cid, "q1", token(), "up", store=store)
    store.test_clock.now += CS.CLASS_TTL + 1
    cid2, key2 = C.open_class("toy_spam", STATE, store=store)   # opening a class removes the expired ones
    A.ask(cid2, key2, "q1", "choice", options=["a", "b"], store=store)   # asking removes their answers
    assert rows(store) == [] and rows(store, "nblab_answer_rate") == []
    assert [r[0] for r in rows(store, "nblab_questions")] == [cid2]


def test_a_student_gets_the_question_from_the_cache(store):
    cid, key = opened(store)
    c = client()
    A.clear_cache()
    assert not A.is_cached("question", cid, "q1")
    assert c.get(f"/class/{cid}/q/q1").json()["open"] is True
    assert A.is_cached("question", cid, "q1")
    A.close(cid, key, "q1", store=store)   # this process's own change is seen at once
    assert not A.is_cached("question", cid, "q1")
    assert c.get(f"/class/{cid}/q/q1").json()["open"] is False


def test_status_of_every_error():
    assert [A.status_of(e) for e in (A.BadAnswer("x"), A.NoQuestion("x"), A.NotRevealed("x"), A.QuestionClosed("x"),
                                     A.ClassClosed("x"), A.TooManyAnswers("x", 3), CS.ClassGone("x"),
                                     CS.ClassNotFound("x"), CS.BadClassId("x"))] == [400, 404, 403, 409, 410, 429,
                                                                                        410, 404, 404]


def test_a_token_made_as_the_page_makes_it_is_valid():
    assert A.TOKEN_RE.fullmatch(token()) and A.TOKEN_RE.fullmatch(secrets.token_urlsafe(16))
    assert not A.TOKEN_RE.fullmatch(secrets.token_urlsafe(15))


# ---- through the app's own server: a student's answer survives the server process's kill -------------------

def _http(url: str, data: bytes | None = None, headers: dict | None = None) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def test_answers_through_the_app_server_survive_its_kill(tmp_path, monkeypatch):
    """`streamlit run dashboard/server.py` answers the POST (ahead of Streamlit's own middleware); the teacher's
    process (this one) counts what the server stored; the server killed (SIGKILL) and started again still
    has every answer, and serves the tally once revealed."""
    monkeypatch.setenv("NBLAB_STORE_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("NBLAB_STORE_URL", raising=False)
    monkeypatch.setattr(CS, "_STORES", {})
    CS.clear_cache()
    A.clear_cache()
    env = {"NBLAB_STORE_DIR": str(tmp_path / "store")}
    cid, key = C.open_class("toy_spam", STATE)
    A.ask(cid, key, "q1", "choice", options=["up", "down"])
    toks = [token() for _ in range(3)]
    with streamlit_server(env=env, timeout=90.0, log_path=tmp_path / "server1.log") as srv:
        base = f"{srv.url}/class/{cid}/q/q1"
        for t, p in zip(toks, ["up", "down", "down"]):
            status, h, body = _http(base + "/answer", json.dumps({"token": t, "answer": p}).encode(), JSON)
            assert status == 200 and json.loads(body)["answer"] == p, (status, body)
        status, _, body = _http(base + "/answer", b'{"token": "%s", "answer": NaN}' % toks[0].encode(), JSON)
        assert status == 400 and json.loads(body) == {"error": A.NOT_FINITE}
        status, _, body = _http(base + "/tally")
        assert status == 403 and json.loads(body) == {"error": A.NOT_REVEALED}
        os.killpg(srv.proc.pid, signal.SIGKILL)
        srv.proc.wait(30)
    assert A.tally(cid, key, "q1")["counts"] == {"up": 1, "down": 2}
    A.reveal(cid, key, "q1", "down")
    with streamlit_server(env=env, timeout=90.0, log_path=tmp_path / "server2.log") as srv:
        base = f"{srv.url}/class/{cid}/q/q1"
        status, _, body = _http(base + "/tally")
        assert status == 200, body
        got = json.loads(body)
        assert got["counts"] == {"up": 1, "down": 2} and got["n"] == 3 and got["right"] == "down"
        status, _, body = _http(base + "/mine", headers={"X-NBLab-Token": toks[0]})
        assert status == 200 and json.loads(body)["answer"] == "up"
        status, _, body = _http(base + "/answer", json.dumps({"token": toks[0], "answer": "down"}).encode(), JSON)
        assert status == 409 and json.loads(body) == {"error": A.CLOSED}


# ---- report questions: each page's own numbers (its own EM start, the class's label-budget curve) -----------

FIELDS = {"loglik": (-1e6, 0), "acc": (0, 1), "alpha0": (0, 1), "switched": (0, 1)}


def seed_expected(cid: str, qid: str, t: str) -> int:
    """The seed the contract promises a browser: from the SHA-256 of the class, the question and its token."""
    th = hashlib.sha256(f"nblab-answer:{cid}:{t}".encode()).hexdigest()
    return int(hashlib.sha256(f"nblab-seed:{qid}:{th}".encode()).hexdigest()[:16], 16) % 2 ** 31


def assign(c: TestClient, cid: str, qid: str, t: str):
    return c.post(f"/class/{cid}/q/{qid}/assignment", content=json.dumps({"token": t}).encode(), headers=JSON)


def test_each_page_reports_its_own_start_and_the_teacher_gets_every_run(store):
    cid, key = opened(store, "starts", kind="report", fields=FIELDS)
    c = client()
    toks = [token() for _ in range(4)]
    sent = [{"loglik": -1234.5, "acc": 0.91, "alpha0": 0.4, "switched": 0},
            {"loglik": -1250.25, "acc": 0.09, "alpha0": 0.6, "switched": 1},
            {"loglik": -1234.5, "acc": 0.91, "alpha0": 0.4, "switched": 0},
            {"loglik": -1300, "acc": 0.5, "alpha0": 0.5, "switched": 0}]
    for t, rep in zip(toks, sent):
        r = assign(c, cid, "starts", t)
        assert r.status_code == 200 and r.json() == {"question": "starts", "seed": seed_expected(cid, "starts", t),
                                                     "share": None}
        assert assign(c, cid, "starts", t).json() == r.json()   # the same seed after a reload
        got = post(c, cid, "starts", {"token": t, "answer": rep})
        assert got.status_code == 200 and got.json()["answer"] == {k: float(v) for k, v in rep.items()}
    mine = c.get(f"/class/{cid}/q/starts/mine", headers={"X-NBLab-Token": toks[1]}).json()
    assert mine["answer"] == {k: float(v) for k, v in sent[1].items()}
    assert mine["seed"] == seed_expected(cid, "starts", toks[1]) and mine["share"] is None
    t = A.tally(cid, key, "starts", store=store)
    assert t["n"] == 4 and t["fields"] == {k: list(map(float, v)) for k, v in FIELDS.items()}
    assert sorted((r["seed"], r["values"]["loglik"]) for r in t["reports"]) == sorted(
        (seed_expected(cid, "starts", tk), float(rep["loglik"])) for tk, rep in zip(toks, sent))
    for name in FIELDS:
        xs = [rep[name] for rep in sent]
        assert np.allclose(t["summary"][name]["quantiles"], np.quantile(xs, [0, 0.25, 0.5, 0.75, 1]))
        assert t["summary"][name]["mean"] == pytest.approx(np.mean(xs))
    # the reveal marks the teacher's own run; the students then get the summary, not every page's numbers
    teacher = {"loglik": -1234.5, "acc": 0.91, "alpha0": 0.4, "switched": 0}
    assert A.reveal(cid, key, "starts", teacher, store=store)["right"] == {k: float(v) for k, v in teacher.items()}
    pub = c.get(f"/class/{cid}/q/starts/tally").json()
    assert "reports" not in pub and pub["summary"] == t["summary"] and pub["n"] == 4
    said(assign(c, cid, "starts", token()), 409, A.CLOSED)


def test_a_bad_report_is_400_and_counted_nowhere(store):
    cid, key = opened(store, "starts", kind="report", fields=FIELDS)
    c = client()
    t = token()
    good = {"loglik": -10, "acc": 0.5, "alpha0": 0.5, "switched": 1}
    exact = "The report must hold exactly this question's numbers: loglik, acc, alpha0, switched."
    for bad in ({k: v for k, v in good.items() if k != "acc"}, {**good, "name": 1}, {**good, "note": "hi"}, [1, 2, 3, 4],
                -10, "report", None):
        said(post(c, cid, "starts", {"token": t, "answer": bad}), 400, exact)
    for bad in ("0.5", True, None, [0.5], {"x": 1}):
        said(post(c, cid, "starts", {"token": t, "answer": {**good, "acc": bad}}), 400, "The report's acc must be a number.")
    for name, bad in (("acc", 1.5), ("acc", -0.1), ("loglik", 1), ("alpha0", 2), ("switched", -1)):
        lo, hi = FIELDS[name]
        said(post(c, cid, "starts", {"token": t, "answer": {**good, name: bad}}), 400,
             f"The report's {name} must be a number from {lo:g} to {hi:g}.")
    raw = json.dumps({"token": t, "answer": good}).replace('"acc": 0.5', '"acc": NaN').encode()
    said(post(c, cid, "starts", None, raw=raw), 400, A.NOT_FINITE)
    raw = json.dumps({"token": t, "answer": good}).replace('"acc": 0.5', '"acc": 1e400').encode()
    said(post(c, cid, "starts", None, raw=raw), 400, "The report's acc must be a number from 0 to 1.")
    said(c.post(f"/class/{cid}/q/starts/assignment", content=json.dumps({"token": t, "x": 1}).encode(), headers=JSON),
         400, A.TOKEN_SHAPE)
    said(c.post(f"/class/{cid}/q/starts/assignment", content=b'{"token": "short"}', headers=JSON), 400, A.BAD_TOKEN)
    said(assign(c, cid, "q1", t), 404, A.NO_QUESTION)
    A.ask(cid, key, "pick", "choice", options=["a", "b"], store=store)
    said(assign(c, cid, "pick", t), 400, A.NO_ASSIGNMENT)
    assert rows(store) == [] and rows(store, "nblab_answer_rate") == [] and rows(store, "nblab_assignments") == []
    assert A.tally(cid, key, "starts", store=store)["n"] == 0


def test_the_label_budget_shares_go_round_robin_across_processes(store):
    shares = [0.05, 0.1, 0.2]
    cid, key = opened(store, "budget", kind="report", fields={"nb": (0, 1), "em": (0, 1)}, shares=shares)
    other = S.open_store(store.test_url, clock=store.test_clock)
    try:
        toks = [token() for _ in range(7)]
        got = [A.assign(cid, "budget", t, store=(store, other)[i % 2])["share"] for i, t in enumerate(toks)]
        assert got == [0.05, 0.1, 0.2, 0.05, 0.1, 0.2, 0.05]   # spread over the list in the order they asked
        assert A.assign(cid, "budget", toks[1], store=other)["share"] == 0.1   # asked again: the same share
        assert len(rows(store, "nblab_assignments")) == 7
        # a page that was handed no share cannot report
        c = client()
        said(post(c, cid, "budget", {"token": token(), "answer": {"nb": 0.8, "em": 0.9}}), 409, A.NOT_ASSIGNED)
        accs = [(0.6 + i / 100, 0.7 + i / 100) for i in range(7)]
        for i, (t, (nb, em)) in enumerate(zip(toks, accs)):
            A.answer(cid, "budget", t, {"nb": nb, "em": em}, store=(store, other)[i % 3 == 0])
        t = A.tally(cid, key, "budget", store=other)
        assert t["shares"] == shares and t["n"] == 7
        by_seed = {r["seed"]: r for r in t["reports"]}
        for tk, share, (nb, em) in zip(toks, got, accs):
            r = by_seed[seed_expected(cid, "budget", tk)]
            assert r["share"] == share and r["values"] == {"nb": nb, "em": em}
        assert A.mine(cid, "budget", toks[2], store=store)["share"] == 0.2
    finally:
        other.close()


def test_a_report_question_hands_out_at_most_max_answers_shares(store, monkeypatch):
    monkeypatch.setattr(A, "MAX_ANSWERS", 3)
    cid, key = opened(store, "budget", kind="report", fields={"nb": (0, 1)}, shares=[0.1, 0.5])
    toks = [token() for _ in range(4)]
    for t in toks[:3]:
        A.assign(cid, "budget", t, store=store)
    r = assign(client(), cid, "budget", toks[3])
    said(r, 429, "This question has taken as many browsers as it may (3).")
    assert r.headers["retry-after"] == "60" and len(rows(store, "nblab_assignments")) == 3
