"""Open classes in the shared store (dashboard/class_link/store.py), on SQLite and on a real PostgreSQL:
open, publish, the write key, versions, expiry, hostile states and ids, and the per-process read cache."""
from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager

import pytest

from dashboard import class_link as C
from dashboard.class_link import store as CS
from dashboard.data import store as S

STATE = {"settings": {"dataset": "sms_spam", "model": "bernoulli", "hidden": 99, "lam": 0.01, "init": "labeled",
                      "seed": 0, "max_iter": 100, "tol": 1e-6}, "t": 0, "half": None, "open": True}


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self):
        return self.now


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    clock = Clock()
    if request.param == "sqlite":
        st = S.open_store("sqlite:///" + str(tmp_path / "s.sqlite3"), clock=clock)
    else:
        url = request.getfixturevalue("pg_url")
        import psycopg
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS nblab_classes")
        st = S.open_store(url, clock=clock)
    st.test_clock = clock
    CS.clear_cache()
    yield st
    CS.clear_cache()
    st.close()


def _state(raw: bytes) -> dict:
    return json.loads(raw)


def test_open_publish_read(store):
    cid, key = C.open_class("sms_spam", STATE, store=store)
    assert C.valid_class_id(cid) and len(cid) == 16
    assert key != cid and len(key) >= 20
    v, raw = C.read(cid, store=store)
    got = _state(raw)
    assert v == 1 and got == {"class": cid, "v": 1, "data": "sms_spam", "settings": STATE["settings"], "t": 0,
                              "half": None, "open": True}
    assert list(got) == ["class", "v", "data", "settings", "t", "half", "open"]
    v2 = C.publish(cid, key, {**STATE, "data": "sms_spam", "t": 4, "half": "e"}, store=store)
    assert v2 == 2
    v, raw = C.read(cid, store=store)   # publish drops this process's cached copy
    assert v == 2 and _state(raw)["t"] == 4 and _state(raw)["half"] == "e"
    assert C.publish(cid, key, {**STATE, "t": 5}, store=store) == 3
    assert C.publish(cid, key, {**STATE, "t": 5, "open": False}, store=store) == 4
    assert _state(C.read(cid, store=store)[1])["open"] is False
    # the write key is not stored, only its hash
    with store._tx(write=False) as db:
        row = db.execute("SELECT key_hash, state FROM nblab_classes WHERE id = ?", (cid,)).fetchone()
    assert key not in str(row[0]) and key not in str(row[1])


def test_wrong_key_is_refused_and_changes_nothing(store):
    cid, key = C.open_class("toy_spam", {"t": 1}, store=store)
    other_cid, other_key = C.open_class("toy_spam", {"t": 1}, store=store)
    for bad in (other_key, key[:-1] + ("A" if key[-1] != "A" else "B"), "", "short", None, "x" * 500):
        with pytest.raises(C.WrongKey):
            C.publish(cid, bad, {"data": "toy_spam", "t": 9}, store=store)
    assert C.read(cid, store=store)[0] == 1
    assert _state(C.read(cid, store=store)[1])["t"] == 1


def test_unknown_and_bad_ids(store):
    with pytest.raises(C.ClassNotFound):
        C.read("A" * 16, store=store)
    with pytest.raises(C.ClassNotFound):
        C.publish("A" * 16, "k" * 32, {"data": "toy_spam"}, store=store)
    calls = []
    orig = store._tx
    store._tx = lambda *a, **k: calls.append(1) or orig(*a, **k)
    try:
        for bad in ("", "short", "A" * 17, "A" * 15 + "/", "../../etc/passwd", "A" * 15 + "'", None, 12,
                    "<script>alert(1)</scr"):
            with pytest.raises(C.BadClassId):
                C.read(bad, store=store)
            with pytest.raises(C.BadClassId):
                C.publish(bad, "k" * 32, {"data": "toy_spam"}, store=store)
    finally:
        store._tx = orig
    assert calls == []   # refused before the database is asked


def test_a_class_untouched_for_12_hours_is_gone(store):
    clock = store.test_clock
    cid, key = C.open_class("toy_spam", {"t": 0}, store=store)
    clock.now += CS.CLASS_TTL - 60
    assert C.publish(cid, key, {"data": "toy_spam", "t": 2}, store=store) == 2   # publishing keeps it
    clock.now += CS.CLASS_TTL - 60
    CS.clear_cache()
    assert C.read(cid, store=store)[0] == 2
    clock.now += 120
    CS.clear_cache()
    with pytest.raises(C.ClassGone):
        C.read(cid, store=store)
    with pytest.raises(C.ClassGone):
        C.publish(cid, key, {"data": "toy_spam", "t": 3}, store=store)
    # opening another class removes it for good
    C.open_class("toy_spam", {"t": 0}, store=store)
    CS.clear_cache()
    with pytest.raises(C.ClassNotFound):
        C.read(cid, store=store)


@pytest.mark.parametrize("state", [
    {"evil": 1},
    {"settings": {"dataset": "x" * 500}},
    {"settings": {"lam": float("nan")}},
    {"settings": {"lam": float("inf")}},
    {"settings": {"tol": -1}},
    {"settings": {"hidden": 101}},
    {"settings": {"hidden": True}},
    {"settings": {"seed": 1.5}},
    {"settings": {"model": ["bernoulli"]}},
    {"settings": {"init": {"a": 1}}},
    {"settings": {"__proto__": 1}},
    {"settings": "lam=1"},
    {"settings": {"dataset": "a\u2028b"}},
    {"t": -1},
    {"t": 10**9},
    {"t": "3"},
    {"half": "m"},
    {"open": "yes"},
    {"data": "../etc/passwd"},
    {"data": "<script>"},
    {"data": "other_set"},
    [],
    "state",
])
def test_hostile_states_are_refused(store, state):
    with pytest.raises(C.BadState):
        C.open_class("toy_spam", state, store=store)
    cid, key = C.open_class("toy_spam", {"t": 0}, store=store)
    if isinstance(state, dict) and state.get("data") == "other_set":
        # a publish may move the class to another data set (a valid key), but never to a bad one
        assert C.publish(cid, key, state, store=store) == 2
        return
    with pytest.raises(C.BadState):
        C.publish(cid, key, {"data": "toy_spam", **state} if isinstance(state, dict) else state, store=store)
    assert C.read(cid, store=store)[0] == 1


def test_state_size_is_capped(store):
    big = {"settings": {k: "x" * 120 for k in ("dataset", "model", "init")}, "t": 1}
    C.open_class("toy_spam", big, store=store)   # every string at its cap still fits the 4 KB
    with pytest.raises(C.BadState):
        C.open_class("x" * 65, {}, store=store)


def test_quota_per_owner(store, monkeypatch):
    monkeypatch.setattr(CS, "CLASSES_PER_HOUR", 3)
    for _ in range(3):
        C.open_class("toy_spam", {}, owner="address:10.0.0.1", store=store)
    with pytest.raises(C.TooManyClasses):
        C.open_class("toy_spam", {}, owner="address:10.0.0.1", store=store)
    C.open_class("toy_spam", {}, owner="address:10.0.0.2", store=store)
    store.test_clock.now += 3601
    C.open_class("toy_spam", {}, owner="address:10.0.0.1", store=store)


def test_one_address_cannot_use_up_the_stores_hourly_classes(store, monkeypatch):
    """Refused opens cost nothing, and one address's quota is a small share of the store's: the store's hourly
    budget needs many addresses (each a teacher with the teacher key) to run out."""
    assert CS.STORE_CLASSES_PER_HOUR >= 30 * CS.CLASSES_PER_HOUR
    monkeypatch.setattr(CS, "CLASSES_PER_HOUR", 3)
    monkeypatch.setattr(CS, "STORE_CLASSES_PER_HOUR", 6)
    refused = 0
    for _ in range(20):     # one address, over and over
        try:
            C.open_class("toy_spam", {}, owner="key:address:10.0.0.9", store=store)
        except C.TooManyClasses as e:
            refused += 1
            assert "from this computer" in str(e)
    assert refused == 17
    for _ in range(3):      # the store still has room for another teacher's classes
        C.open_class("toy_spam", {}, owner="key:address:10.0.0.10", store=store)
    with pytest.raises(C.TooManyClasses, match="as many classes as it may"):
        C.open_class("toy_spam", {}, owner="key:address:10.0.0.11", store=store)


class CacheClock:
    """The class cache's clock: store.py reads ``time.monotonic()`` for READ_TTL; this one stands still
    until the test moves it (every other ``time`` function is the real one)."""

    def __init__(self):
        self.now = time.monotonic()

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def __getattr__(self, name):
        return getattr(time, name)


@pytest.fixture
def cache_clock(monkeypatch):
    clock = CacheClock()
    monkeypatch.setattr(CS, "time", clock)
    return clock


def test_read_cache_costs_the_database_a_few_reads(store, cache_clock):
    cid, key = C.open_class("toy_spam", {"t": 0}, store=store)
    CS.clear_cache()
    before = CS.db_reads(store)
    # 40 threads polling through 1 s of the cache's clock (four READ_TTL windows, 10 polls per thread in
    # each, all at once): the database is asked about once per READ_TTL, not once per poll
    windows = round(1.0 / CS.READ_TTL)
    polls = []

    def poll():
        for _ in range(10):
            polls.append(C.read(cid, store=store)[0])
    for _ in range(windows):
        threads = [threading.Thread(target=poll) for _ in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        cache_clock.advance(CS.READ_TTL)
    reads = CS.db_reads(store) - before
    assert len(polls) == windows * 400, len(polls)
    assert reads <= 1.0 / CS.READ_TTL + 3, (reads, len(polls))
    # another process's publish shows within READ_TTL (this process's publish at once)
    other = S.open_store(store.pool._url if hasattr(store, "pool") else "sqlite:///" + str(store.path),
                         clock=store.test_clock)
    try:
        assert C.publish(cid, key, {"data": "toy_spam", "t": 7}, store=other) == 2
    finally:
        other.close()
    cache_clock.advance(CS.READ_TTL)
    assert C.read(cid, store=store)[0] == 2
    # a publish through this process is seen at once
    assert C.publish(cid, key, {"data": "toy_spam", "t": 8}, store=store) == 3
    assert C.read(cid, store=store)[0] == 3


def _stall(store, gate: threading.Event, wait: float):
    """Every transaction of ``store`` waits at ``gate`` (at most ``wait`` s) before it starts, as on a database
    that stopped answering. Returns the store's own ``_tx``, to put back, and an event set once a stalled
    transaction has ended (committed or rolled back)."""
    orig = store._tx
    ended = threading.Event()

    @contextmanager
    def stalled(*a, **k):
        gate.wait(wait)
        try:
            with orig(*a, **k) as db:
                yield db
        finally:
            ended.set()
    store._tx = stalled
    return orig, ended


def test_a_stalled_store_answers_unavailable(store):
    cid, _ = C.open_class("toy_spam", {}, store=store)
    CS.clear_cache()
    store.deadline = 0.3
    gate = threading.Event()
    orig, _ = _stall(store, gate, 5)
    try:
        t0 = time.monotonic()
        with pytest.raises(S.StoreUnavailable):
            C.read(cid, store=store)
        assert time.monotonic() - t0 < 2
    finally:
        gate.set()
        store._tx = orig
        store._stalled_until = 0.0


def test_peek_answers_from_the_cache_only(store, cache_clock):
    cid, _ = C.open_class("toy_spam", {"t": 0}, store=store)
    CS.clear_cache()
    assert CS.peek(cid, store=store) is None
    before = CS.db_reads(store)
    got = C.read(cid, store=store)
    assert CS.peek(cid, store=store) == got and CS.db_reads(store) == before + 1
    cache_clock.advance(CS.READ_TTL)
    assert CS.peek(cid, store=store) is None
    with pytest.raises(C.BadClassId):
        CS.peek("<bad>", store=store)
    missing = "B" * 16
    with pytest.raises(C.ClassNotFound):
        C.read(missing, store=store)
    with pytest.raises(C.ClassNotFound):   # a missing class is remembered for READ_TTL too
        CS.peek(missing, store=store)


# ---- the λ history a state may carry ([[t, λ], ...]) ------------------------------------------------------------

def test_a_lambda_history_is_kept_and_served():
    import json as _json

    from dashboard.class_link.store import clean_state, state_bytes
    st = clean_state({"data": "toy_spam", "settings": {"lam": 0.3}, "t": 7, "lams": [[0, 1], [6, 0.3]]})
    assert st["lams"] == [[0, 1.0], [6, 0.3]]
    served = _json.loads(state_bytes("AbCdEfGhIjKlMnOp", 4, _json.dumps(st)))
    assert served["lams"] == [[0, 1.0], [6, 0.3]]
    assert "lams" not in _json.loads(state_bytes("AbCdEfGhIjKlMnOp", 4, _json.dumps(
        clean_state({"data": "toy_spam", "t": 1}))))


@pytest.mark.parametrize("lams", [[], [[1, 1.0]], [[0, 1.0], [0, 0.3]], [[0, 1.0], [3, -1]], [[0, "1"]], [[0, 1, 2]],
                                  "[[0, 1]]", [[0, float("nan")]], [[i, 1.0] for i in range(65)], [[0, True]]])
def test_a_bad_lambda_history_is_refused(lams):
    from dashboard.class_link.store import BadState, clean_state
    with pytest.raises(BadState, match="lams"):
        clean_state({"data": "toy_spam", "t": 1, "lams": lams})


# ---- the class belongs to its write key's holder: claimed back in a new session; away when untouched --------

def test_the_holder_of_the_write_key_claims_the_class_back(store):
    cid, key = C.open_class("sms_spam", STATE, store=store)
    C.publish(cid, key, {**STATE, "data": "sms_spam", "t": 7, "half": "e"}, store=store)
    v, state = C.claim(cid, key, store=store)     # a new session of the teacher: the class as the students see it
    assert v == 2 and state["t"] == 7 and state["half"] == "e" and state["data"] == "sms_spam"
    assert state["settings"] == STATE["settings"]
    assert C.publish(cid, key, {**state, "t": 8}, store=store) == 3
    with pytest.raises(C.WrongKey):
        C.claim(cid, "x" * 32, store=store)
    with pytest.raises(C.WrongKey):
        C.claim(cid, "", store=store)
    with pytest.raises(C.ClassNotFound):
        C.claim("A" * 16, key, store=store)
    store.test_clock.now += CS.CLASS_TTL + 1
    with pytest.raises(C.ClassGone):
        C.claim(cid, key, store=store)


def test_a_class_whose_teacher_is_gone_is_read_away_and_back_when_touched(store):
    cid, key = C.open_class("sms_spam", STATE, store=store)
    clock = store.test_clock
    clock.now += CS.AWAY_AFTER - 1
    CS.clear_cache()
    assert "away" not in _state(C.read(cid, store=store)[1])
    # the teacher's page touches the class every HEARTBEAT seconds: it never looks away
    for _ in range(4):
        clock.now += CS.HEARTBEAT
        assert C.touch(cid, key, store=store) == 1
        CS.clear_cache()
        assert "away" not in _state(C.read(cid, store=store)[1])
    clock.now += CS.AWAY_AFTER + 0.5           # the teacher's tab closed, its process crashed
    CS.clear_cache()
    v, raw = C.read(cid, store=store)
    got = _state(raw)
    assert v == 1 and got["away"] is True and got["t"] == 0 and got["open"] is True
    assert C.touch(cid, key, store=store) == 1  # back (touch drops the cached "away" itself)
    assert "away" not in _state(C.read(cid, store=store)[1])
    with pytest.raises(C.WrongKey):
        C.touch(cid, "y" * 32, store=store)
    # touching keeps a class alive past the 12 hours its last publish began
    for _ in range(int(CS.CLASS_TTL // 3600) + 1):
        clock.now += 3600
        C.touch(cid, key, store=store)
    assert C.publish(cid, key, {**STATE, "data": "sms_spam", "t": 1}, store=store) == 2


@pytest.mark.parametrize("stored", ["{not json", "[]", '{"data": "sms_spam", "t": -3}',
                                    '{"data": "../etc", "t": 0}', '{"data": "sms_spam", "t": 0, "evil": 1}', ""])
def test_a_corrupted_row_is_refused_not_served_at_t_0(store, stored):
    cid, key = C.open_class("sms_spam", STATE, store=store)
    with store._tx(write=True) as db:
        db.execute("UPDATE nblab_classes SET state = ? WHERE id = ?", (stored, cid))
    CS.clear_cache()
    with pytest.raises(C.BadState, match="cannot be read"):
        C.read(cid, store=store)
    with pytest.raises(C.BadState):            # and from the cache, within READ_TTL
        C.read(cid, store=store)
    with pytest.raises(C.BadState):
        C.claim(cid, key, store=store)


def test_a_publish_that_lands_late_never_replaces_a_newer_state(store):
    """A publish the page gave up on (the database stalled past the deadline) finishes when the database
    answers; by then the page has published the teacher's next state. The class keeps the newer one."""
    cid, key = C.open_class("toy_spam", {**STATE, "t": 3}, store=store)
    store.deadline = 0.3
    gate = threading.Event()
    orig, ended = _stall(store, gate, 60)
    try:
        with pytest.raises(S.StoreUnavailable):
            C.publish(cid, key, {**STATE, "t": 4}, store=store)     # its thread waits at the gate
    finally:
        store._tx = orig
        store._stalled_until = 0.0
    store.test_clock.now += 1.0
    assert C.publish(cid, key, {**STATE, "t": 5}, store=store) == 2
    gate.set()
    assert ended.wait(60), "the abandoned publish never finished"
    CS.clear_cache()
    v, raw = C.read(cid, store=store)
    assert (v, _state(raw)["t"]) == (2, 5)
    # an older state handed in on purpose is dropped the same way, and says the version is unchanged
    assert C.publish(cid, key, {**STATE, "t": 1}, store=store, made=store.test_clock.now - 10) == 2
    assert _state(C.read(cid, store=store)[1])["t"] == 5


OLD_CLASSES_TABLE = ("CREATE TABLE nblab_classes (id TEXT PRIMARY KEY, key_hash TEXT NOT NULL, owner TEXT NOT NULL, "
                     "state TEXT NOT NULL, v BIGINT NOT NULL, created DOUBLE PRECISION NOT NULL, "
                     "updated DOUBLE PRECISION NOT NULL)")


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_store_made_before_the_made_column_gains_it_and_keeps_its_classes(kind, request, tmp_path):
    if kind == "sqlite":
        import sqlite3
        path = tmp_path / "old.sqlite3"
        with sqlite3.connect(path) as db:
            db.execute(OLD_CLASSES_TABLE)
            db.execute("INSERT INTO nblab_classes VALUES ('AAAAAAAAAAAAAAAA', 'h', 'o', '{}', 7, 1, 1)")
        url = "sqlite:///" + str(path)
    else:
        url = request.getfixturevalue("pg_url")
        import psycopg
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS nblab_classes")
            conn.execute(OLD_CLASSES_TABLE)
            conn.execute("INSERT INTO nblab_classes VALUES ('AAAAAAAAAAAAAAAA', 'h', 'o', '{}', 7, 1, 1)")
    CS.clear_cache()
    st = S.open_store(url)
    try:
        with st._tx(write=False) as db:
            assert db.execute("SELECT v, made FROM nblab_classes WHERE id = 'AAAAAAAAAAAAAAAA'").fetchone() == (7, 0)
        cid, key = C.open_class("toy_spam", STATE, store=st)
        assert C.publish(cid, key, {**STATE, "t": 2}, store=st) == 2
        assert _state(C.read(cid, store=st)[1])["t"] == 2
        S.open_store(url).close()           # opening it again adds nothing and fails on nothing
    finally:
        CS.clear_cache()
        st.close()


# ---- the teacher's question and Pause, in the state ------------------------------------------------------------

def test_a_question_and_pause_are_kept_and_served():
    import json as _json

    from dashboard.class_link.store import clean_state, state_bytes
    st = clean_state({"data": "toy_spam", "t": 2, "question": {"id": "q1-a0", "phase": "open"}, "paused": True})
    assert st["question"] == {"id": "q1-a0", "phase": "open"} and st["paused"] is True
    served = _json.loads(state_bytes("AbCdEfGhIjKlMnOp", 4, _json.dumps(st)))
    assert served["question"] == {"id": "q1-a0", "phase": "open"} and served["paused"] is True
    plain = _json.loads(state_bytes("AbCdEfGhIjKlMnOp", 4, _json.dumps(clean_state(
        {"data": "toy_spam", "t": 1, "paused": False}))))
    assert "question" not in plain and "paused" not in plain


@pytest.mark.parametrize("question", ["q1", {"id": "q1"}, {"id": "q 1", "phase": "open"}, {"id": "q1", "phase": "x"},
                                      {"id": "q1", "phase": "open", "x": 1}, {"id": 1, "phase": "open"},
                                      {"id": "a" * 33, "phase": "open"}])
def test_a_bad_question_in_a_state_is_refused(question):
    from dashboard.class_link.store import BadState, clean_state
    with pytest.raises(BadState, match="question: "):
        clean_state({"data": "toy_spam", "t": 1, "question": question})


def test_a_pause_that_is_not_a_bool_is_refused():
    from dashboard.class_link.store import BadState, clean_state
    with pytest.raises(BadState, match="paused: true or false"):
        clean_state({"data": "toy_spam", "t": 1, "paused": 1})
