"""The shared-data-set store (dashboard/store): the same suite against SQLite and a real
PostgreSQL server (tests/kit/pg.py starts a throwaway one; never a mock).

Numbers are checked against what they must be independently of the store's code:
SHA-256 from hashlib, sizes from len(), eviction order from the order of use.
"""
from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import subprocess
import sys
import textwrap

import pytest

from dashboard.data import store as S
from dashboard.data.store.sqlite import SQLiteStore
from kit import ROOT

CSV = b"text,label\nwin money now,spam\nlunch at noon,ham\nfree money,\n"
KB = 1024


class Clock:
    """A clock the tests move by hand (TTL and LRU without sleeping)."""

    def __init__(self, t: float = 1_800_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, s: float) -> None:
        self.t += s


@pytest.fixture(params=["sqlite", "postgresql"])
def make(request, tmp_path):
    """make(**limits) -> (store, clock): an empty store of the parametrised backend."""
    opened = []
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_url")
        from kit.pg import drop_tables
        drop_tables(url)
    else:
        url = "sqlite:///" + str(tmp_path / "store" / "shares.sqlite3")

    def _make(clock=None, **limits):
        clock = clock or Clock()
        st = S.open_store(url, S.Limits(**limits), clock=clock)
        opened.append(st)
        return st, clock

    _make.url = url
    _make.kind = request.param
    yield _make
    for st in opened:
        st.close()


# ---- put / lookup / read ------------------------------------------------------------------

def test_round_trip_keeps_bytes_name_and_options(make):
    st, clock = make()
    opts = {"text_column": "text", "ngram_range": [1, 2], "binary": False, "min_df": 1, "note": None}
    r = st.put("lesson.csv", CSV, opts, owner="teacher")
    got = st.lookup(r.id)
    assert got.name == "lesson.csv"
    assert got.options == opts
    assert got.size == len(CSV)
    assert got.sha256 == hashlib.sha256(CSV).hexdigest()
    assert st.read(r.id) == CSV
    assert st.usage() == (1, len(CSV))


def test_ids_are_random_144_bit_tokens(make):
    st, _ = make(shares_per_hour=1000)
    ids = [st.put("a.csv", CSV, owner="t").id for _ in range(60)]
    assert len(set(ids)) == 60
    for i in ids:
        assert len(i) == 24 and S.valid_id(i)
        assert len(base64.urlsafe_b64decode(i)) * 8 >= 128
        assert "/" not in i and "." not in i
    # not sequential: consecutive ids share no long common prefix
    common = [len(os.path.commonprefix([a, b])) for a, b in zip(ids, ids[1:])]
    assert max(common) < 6


def test_display_name_is_never_a_path_or_control_characters(make):
    st, _ = make()
    r = st.put("../../etc/passwd\x00\n<script>.csv", CSV, owner="t")
    name = st.lookup(r.id).name
    assert "/" not in name and "\x00" not in name and "\n" not in name
    assert name.endswith("<script>.csv")  # kept as text; the UI escapes it, never renders it


@pytest.mark.parametrize("bad", ["", "abc", "../../etc/passwd", "a" * 23, "a" * 25, "a" * 100_000,
                                 "aaaaaaaaaaaaaaaaaaaaaaa.", "aaaaaaaaaaaaaaaaaaaaaaa\n", "ääääääääääääääääääääääää",
                                 "1 OR 1=1; DROP TABLE x--"])
def test_malformed_ids_are_refused_without_a_query(make, bad, monkeypatch):
    st, _ = make()
    monkeypatch.setattr(st, "_tx", lambda write: pytest.fail("queried the store for a malformed id"))
    with pytest.raises(S.BadId, match="not valid"):
        st.lookup(bad)
    with pytest.raises(S.BadId):
        st.read(bad)
    assert st.delete(bad, "x" * 32) is False


def test_unknown_id_is_not_found(make):
    st, _ = make()
    st.put("a.csv", CSV, owner="t")
    with pytest.raises(S.NotFound, match="No shared data set"):
        st.lookup("A" * 24)


# ---- limits -------------------------------------------------------------------------------

def test_file_over_the_per_file_limit_is_refused_and_nothing_stored(make):
    st, _ = make(max_file_bytes=10 * KB)
    with pytest.raises(S.TooBig, match="at most 10 KB"):
        st.put("big.csv", b"x" * (10 * KB + 1), owner="t")
    with pytest.raises(S.TooBig, match="empty"):
        st.put("empty.csv", b"", owner="t")
    assert st.usage() == (0, 0)
    st.put("ok.csv", b"x" * (10 * KB), owner="t")
    assert st.usage() == (1, 10 * KB)


def test_age_eviction_ttl_counts_from_last_open(make):
    day = 86400.0
    st, clock = make(ttl_seconds=7 * day)
    a = st.put("a.csv", CSV, owner="t").id
    b = st.put("b.csv", CSV, owner="t").id
    clock.advance(5 * day)
    st.lookup(a)                       # opened on day 5: lives until day 12
    clock.advance(3 * day)             # day 8: b (last opened day 0) is past its 7 days
    assert st.lookup(a).id == a
    with pytest.raises(S.Gone, match="not opened for 7 days") as e:
        st.lookup(b)
    assert e.value.reason == "expired"
    assert st.usage() == (1, len(CSV))
    clock.advance(7 * day + 1)         # a, last opened day 8, is expired on day 15 too
    assert st.evict() == 1
    assert st.usage() == (0, 0)
    with pytest.raises(S.Gone, match="not opened"):
        st.lookup(a)


DAY = 86400.0


def test_size_eviction_removes_least_recently_used_first(make):
    # days apart, so every share but the newest is past the 24 hours in which none is evicted
    st, clock = make(max_total_bytes=3 * KB, max_file_bytes=2 * KB)
    ids = {}
    for name in "abc":
        ids[name] = st.put(name + ".csv", b"x" * KB, owner=name).id
        clock.advance(2 * DAY)
    st.lookup(ids["a"])                # a is now the most recently used; b the least
    clock.advance(2 * DAY)
    ids["d"] = st.put("d.csv", b"y" * KB, owner="d").id     # needs 1 KB: b goes
    assert st.usage() == (3, 3 * KB)
    with pytest.raises(S.Gone, match="least recently used") as e:
        st.lookup(ids["b"])
    assert e.value.reason == "evicted"
    for name in "acd":
        assert st.lookup(ids[name]).id == ids[name]
    clock.advance(2 * DAY)
    st.lookup(ids["d"])                                        # order of use now: c, a, d (all > 24 h ago)
    clock.advance(2 * DAY)
    st.put("e.csv", b"z" * 2 * KB, owner="e")                  # needs 2 KB: the two LRU (c, then a) go
    n, total = st.usage()
    assert total <= 3 * KB and n == 2
    with pytest.raises(S.Gone):
        st.lookup(ids["c"])
    with pytest.raises(S.Gone):
        st.lookup(ids["a"])
    assert st.read(ids["d"]) == b"y" * KB


def test_shares_per_client_per_hour(make):
    st, clock = make(shares_per_hour=3)
    for _ in range(3):
        st.put("a.csv", CSV, owner="address:192.0.2.1")
    with pytest.raises(S.RateLimited, match=r"3 data sets .* in the last hour \(the limit is 3\)"):
        st.put("a.csv", CSV, owner="address:192.0.2.1")
    st.put("a.csv", CSV, owner="address:192.0.2.2")      # another client is not limited by the first
    clock.advance(3601)
    st.put("a.csv", CSV, owner="address:192.0.2.1")      # an hour later it may share again
    assert st.usage()[0] == 5


def test_shares_per_hour_on_the_whole_store(make):
    # 4 clients, 2 each allowed, 5 for the whole store: the 6th share of the hour is refused
    # whoever makes it, and nothing is stored for it
    st, clock = make(shares_per_hour=2, store_shares_per_hour=5)
    made = [st.put("a.csv", CSV, owner=f"address:198.51.100.{i % 3}") for i in range(5)]
    with pytest.raises(S.RateLimited, match=r"5 data sets were shared on this server in the last hour"):
        st.put("a.csv", CSV, owner="address:198.51.100.99")          # a new client: still refused
    assert st.usage() == (5, 5 * len(CSV))
    clock.advance(1800)
    with pytest.raises(S.RateLimited, match="about 30 minutes"):     # the first share leaves the hour at 60 min
        st.put("a.csv", CSV, owner="address:198.51.100.99")
    clock.advance(1801)
    st.put("a.csv", CSV, owner="address:198.51.100.99")
    assert all(st.lookup(r.id).id == r.id for r in made)


def test_a_share_used_in_the_last_24_hours_is_never_evicted(make):
    # the store holds 3 KB; three 1 KB shares made within the last day fill it: a fourth
    # client's share is refused, and all three stay
    st, clock = make(max_total_bytes=3 * KB, max_file_bytes=2 * KB)
    teacher = [st.put(f"t{i}.csv", b"t" * KB, owner=f"address:203.0.113.{i}").id for i in range(3)]
    clock.advance(23 * 3600)
    with pytest.raises(S.StoreFull, match="full") as e:
        st.put("flood.csv", b"f" * KB, owner="address:192.0.2.66")
    assert "24 hours" in str(e.value) and "Traceback" not in str(e.value)
    assert st.usage() == (3, 3 * KB)
    for sid in teacher:
        assert st.read(sid) == b"t" * KB
    # 2 days later nobody opened t0 or t2, but t1 was opened an hour ago: t0 goes first, then t2
    clock.advance(2 * DAY)
    st.lookup(teacher[1])
    clock.advance(3600)
    st.put("new.csv", b"n" * 2 * KB, owner="address:192.0.2.66")
    for gone in (teacher[0], teacher[2]):
        with pytest.raises(S.Gone, match="least recently used"):
            st.lookup(gone)
    assert st.read(teacher[1]) == b"t" * KB


def test_room_that_needs_a_recent_share_is_not_made_at_all(make):
    # one old share (1 KB, opened 3 days ago) and one opened an hour ago (1 KB), 3 KB in all:
    # a 2 KB file fits after removing the old one; a second 2 KB file would need the recent
    # one too, so it is refused and the old-enough ones that remain are not removed for nothing
    st, clock = make(max_total_bytes=3 * KB, max_file_bytes=2 * KB)
    old = st.put("old.csv", b"o" * KB, owner="a").id
    clock.advance(3 * DAY)
    recent = st.put("recent.csv", b"r" * KB, owner="b").id
    clock.advance(3600)
    big = st.put("big.csv", b"b" * 2 * KB, owner="c").id          # old goes: 1 + 2 = 3 KB
    with pytest.raises(S.Gone):
        st.lookup(old)
    clock.advance(3600)
    with pytest.raises(S.StoreFull):
        st.put("big2.csv", b"c" * 2 * KB, owner="d")
    assert st.usage() == (2, 3 * KB)
    assert st.read(recent) == b"r" * KB and st.read(big) == b"b" * 2 * KB


def test_sharing_can_be_turned_off(make):
    st, _ = make(shares_per_hour=0)
    with pytest.raises(S.RateLimited, match="turned off"):
        st.put("a.csv", CSV, owner="t")


# ---- delete link --------------------------------------------------------------------------

def test_delete_needs_the_right_secret_and_works_once(make):
    st, _ = make()
    r = st.put("a.csv", CSV, owner="t")
    other = st.put("b.csv", CSV, owner="t")
    assert st.delete(r.id, other.delete_secret) is False       # another share's secret
    assert st.delete(r.id, "A" * len(r.delete_secret)) is False
    assert st.delete(r.id, r.delete_secret[:-1]) is False
    assert st.delete(r.id, "") is False
    assert st.read(r.id) == CSV                                # wrong secrets did nothing
    assert st.delete(r.id, r.delete_secret) is True
    assert st.delete(r.id, r.delete_secret) is False           # one time only
    with pytest.raises(S.Gone, match="deleted") as e:
        st.lookup(r.id)
    assert e.value.reason == "deleted"
    assert st.lookup(other.id).id == other.id                  # the other share is untouched


def test_only_the_hash_of_the_delete_secret_is_stored(make):
    st, _ = make()
    r = st.put("a.csv", CSV, owner="t")
    with st._tx(write=False) as db:
        (stored,) = db.execute("SELECT delete_hash FROM nblab_shares WHERE id = ?", (r.id,)).fetchone()
    assert stored == hashlib.sha256(r.delete_secret.encode()).hexdigest()
    assert r.delete_secret not in json.dumps(str(stored))


def test_no_public_call_lists_shares(make):
    st, _ = make()
    public = [n for n in dir(st) if not n.startswith("_")]
    assert not [n for n in public if any(w in n.lower() for w in ("list", "all", "ids", "iter", "keys"))]


# ---- configuration and failure ------------------------------------------------------------

def test_settings_from_environment_and_secrets(tmp_path):
    url, lim = S.settings({}, None)
    assert url.startswith("sqlite:///") and url.endswith("/nblab/shares.sqlite3")
    from nblab.limits import UPLOAD_MAX_BYTES
    assert lim == S.Limits() and lim.max_file_bytes == UPLOAD_MAX_BYTES == 5 * 1024 * 1024
    url, lim = S.settings({"NBLAB_STORE_DIR": str(tmp_path), "NBLAB_STORE_MAX_MB": "2", "NBLAB_SHARE_TTL_DAYS": "0.5",
                           "NBLAB_SHARES_PER_HOUR": "4", "NBLAB_SHARE_MAX_MB": "1"}, None)
    assert url == "sqlite:///" + str(tmp_path / "shares.sqlite3")
    assert lim == S.Limits(1024 * 1024, 2 * 1024 * 1024, 43200.0, 4)
    _, lim = S.settings({"NBLAB_STORE_SHARES_PER_HOUR": "40", "NBLAB_SHARE_KEEP_HOURS": "6"}, None)
    assert lim.store_shares_per_hour == 40 and lim.keep_recent_seconds == 6 * 3600.0
    _, lim = S.settings({}, {"store_shares_per_hour": 7, "share_keep_hours": 48})
    assert lim.store_shares_per_hour == 7 and lim.keep_recent_seconds == 2 * 86400.0
    text = S.describe_limits(S.Limits(shares_per_hour=3, store_shares_per_hour=40, keep_recent_seconds=6 * 3600.0))
    assert "3 shares per hour from one computer" in text and "40 per hour on this server" in text
    assert "never one made in the last 6 hours" in text
    url, lim = S.settings({"NBLAB_STORE_MAX_MB": "3"}, {"store_url": "postgresql://h/db", "store_max_mb": 9,
                                                        "shares_per_hour": 2})
    assert url == "postgresql://h/db" and lim.max_total_bytes == 3 * 1024 * 1024 and lim.shares_per_hour == 2
    for bad in ({"NBLAB_STORE_MAX_MB": "lots"}, {"NBLAB_SHARE_TTL_DAYS": "-1"}, {"NBLAB_SHARES_PER_HOUR": "nan"},
                {"NBLAB_STORE_SHARES_PER_HOUR": "-2"}, {"NBLAB_SHARE_KEEP_HOURS": "soon"}):
        with pytest.raises(ValueError, match="NBLAB_"):
            S.settings(bad, None)
    with pytest.raises(ValueError, match="sqlite:/// .* or postgresql://"):
        S.open_store("mysql://x/y")


def test_sqlite_is_one_file_in_wal_mode(tmp_path):
    st = S.open_store("sqlite:///" + str(tmp_path / "d" / "s.sqlite3"))
    assert isinstance(st, SQLiteStore) and st.journal_mode() == "wal"
    st.put("a.csv", CSV, owner="t")
    assert {p.name for p in (tmp_path / "d").iterdir()} <= {"s.sqlite3", "s.sqlite3-wal", "s.sqlite3-shm"}


def test_unusable_sqlite_path_is_a_message(tmp_path, caplog):
    (tmp_path / "f").write_text("a file, not a directory")
    with caplog.at_level(logging.ERROR, logger="dashboard.data.store"):
        with pytest.raises(S.StoreUnavailable, match="cannot be used") as e:
            S.open_store("sqlite:///" + str(tmp_path / "f" / "s.sqlite3"))
    assert str(tmp_path) not in str(e.value) and "/" not in str(e.value)     # no server path for users
    assert "administrator" in str(e.value)
    # the log has the path and the cause, for whoever runs the server
    logged = [r for r in caplog.records if r.name.startswith("dashboard.data.store")]
    assert logged and str(tmp_path / "f") in logged[-1].getMessage() and not logged[-1].exc_info   # one line


GARBAGE = bytes(range(256)) * 32    # 8 KB that do not start with SQLite's header


def test_corrupt_sqlite_file_says_damaged_and_no_retry(tmp_path, caplog):
    path = tmp_path / "s.sqlite3"
    path.write_bytes(GARBAGE)
    with caplog.at_level(logging.ERROR, logger="dashboard.data.store"):
        with pytest.raises(S.StoreDamaged) as e:
            S.open_store("sqlite:///" + str(path))
    msg = str(e.value)
    assert "damaged" in msg and "administrator" in msg
    assert "try again" not in msg.lower() and "minute" not in msg and str(tmp_path) not in msg
    assert any(str(path) in r.getMessage() for r in caplog.records)


def test_sqlite_file_corrupted_after_opening_says_damaged(tmp_path, caplog):
    path = tmp_path / "s.sqlite3"
    st = S.open_store("sqlite:///" + str(path))
    r = st.put("a.csv", CSV, owner="t")
    for p in tmp_path.iterdir():
        p.unlink()
    path.write_bytes(GARBAGE)
    with caplog.at_level(logging.ERROR, logger="dashboard.data.store"):
        with pytest.raises(S.StoreDamaged) as e:
            st.lookup(r.id)
    msg = str(e.value)
    assert "damaged" in msg and "try again" not in msg.lower() and str(tmp_path) not in msg
    rec = [x for x in caplog.records if x.name == "dashboard.data.store"]
    # one line for the administrator: the store's path, the call, the driver's error (no traceback)
    assert rec and "lookup" in rec[-1].getMessage() and str(path) in rec[-1].getMessage() and not rec[-1].exc_info
    assert "DatabaseError" in rec[-1].getMessage() and "\n" not in rec[-1].getMessage()


def test_unreachable_postgresql_is_a_message(tmp_path):
    pytest.importorskip("psycopg")
    from dashboard.data.store.postgres import PostgresStore
    with pytest.raises(S.StoreUnavailable, match="cannot be reached"):
        PostgresStore(f"postgresql://nobody@/x?host={tmp_path}&port=1", timeout=1)


def test_store_unavailable_after_opening_is_a_message(tmp_path, caplog):
    st = S.open_store("sqlite:///" + str(tmp_path / "s.sqlite3"))
    r = st.put("a.csv", CSV, owner="t")
    for p in tmp_path.iterdir():
        p.unlink()
    (tmp_path / "s.sqlite3").mkdir()   # the file is replaced by a directory: sqlite cannot open it
    with caplog.at_level(logging.ERROR, logger="dashboard.data.store"):
        with pytest.raises(S.StoreUnavailable, match="not available right now") as e:
            st.lookup(r.id)
    assert not isinstance(e.value, S.StoreDamaged) and str(tmp_path) not in str(e.value)
    rec = [x for x in caplog.records if x.name == "dashboard.data.store"]
    # the details, in the log, on one line
    assert rec and "OperationalError" in rec[-1].getMessage() and not rec[-1].exc_info


# ---- several processes on one store -------------------------------------------------------

_WORKER = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {root!r})
    from dashboard.data import store as S
    # keep_recent_seconds=0: every share may be evicted, so the two writers evict each other's
    st = S.open_store({url!r}, S.Limits(max_total_bytes=64 * 1024, shares_per_hour=10_000,
                                        store_shares_per_hour=10_000, keep_recent_seconds=0))
    cmd = sys.argv[1]
    if cmd == "put":
        r = st.put("from-" + sys.argv[2] + ".csv", sys.argv[3].encode(), {{"who": sys.argv[2]}}, owner=sys.argv[2])
        print(json.dumps({{"id": r.id, "secret": r.delete_secret}}))
    elif cmd == "get":
        s = st.lookup(sys.argv[2])
        print(json.dumps({{"name": s.name, "options": s.options, "data": st.read(sys.argv[2]).decode()}}))
    elif cmd == "hammer":
        n_ok = 0
        for i in range(int(sys.argv[3])):
            r = st.put(f"{{sys.argv[2]}}-{{i}}.csv", (sys.argv[2] * 1500).encode(), owner=sys.argv[2])
            try:
                assert st.read(r.id).decode() == sys.argv[2] * 1500
            except S.NotFound:   # evicted by the other process already: allowed
                pass
            n_ok += 1
        print(json.dumps({{"ok": n_ok}}))
    st.close()
""")


def _proc(make, *args) -> subprocess.Popen:
    code = _WORKER.format(root=str(ROOT), url=make.url)
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=str(ROOT))


def _result(p: subprocess.Popen) -> dict:
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def test_a_share_made_in_one_process_opens_in_another(make):
    st, _ = make()   # schema exists, tables empty
    made = _result(_proc(make, "put", "teacher", "text,label\nhello world,a\nbye now,b\n"))
    got = _result(_proc(make, "get", made["id"]))
    assert got == {"name": "from-teacher.csv", "options": {"who": "teacher"},
                   "data": "text,label\nhello world,a\nbye now,b\n"}
    assert st.delete(made["id"], made["secret"]) is True      # and this (third) process can delete it


def test_two_processes_writing_at_once_keep_the_store_consistent(make):
    st, _ = make()
    procs = [_proc(make, "hammer", who, "25") for who in ("p", "q")]
    assert [_result(p)["ok"] for p in procs] == [25, 25]
    st.limits = S.Limits(max_total_bytes=64 * 1024)
    n, total = st.usage()
    assert total <= 64 * 1024 and total == n * 1500


def test_opening_a_share_every_day_does_not_keep_it_for_ever(make):
    # a full store of shares someone opens every day: once a share is older than the week in which
    # opening protects it, it can make room for a new one (least recently used first), so nobody can
    # keep the store full by opening their own shares
    st, clock = make(max_total_bytes=3 * KB, max_file_bytes=2 * KB)
    kept = [st.put(f"k{i}.csv", b"k" * KB, owner=f"address:192.0.2.{i}").id for i in range(3)]
    for _ in range(6):                                   # opened daily for six days: still protected
        clock.advance(DAY)
        for sid in kept:
            st.lookup(sid)
    with pytest.raises(S.StoreFull):
        st.put("teacher.csv", b"t" * KB, owner="address:203.0.113.5")
    for _ in range(2):                                   # a week on, the openings no longer protect them
        clock.advance(DAY)
        for sid in kept:
            st.lookup(sid)
    sid = st.put("teacher.csv", b"t" * KB, owner="address:203.0.113.5").id
    assert st.read(sid) == b"t" * KB and st.usage() == (3, 3 * KB)


def test_one_client_cannot_fill_the_store(make):
    # one address may keep owner_max_bytes in the store; others still have room
    st, _ = make(max_total_bytes=10 * KB, max_file_bytes=2 * KB, owner_max_bytes=3 * KB)
    for _ in range(3):
        st.put("a.csv", b"a" * KB, owner="address:192.0.2.1")
    with pytest.raises(S.StoreFull, match="from this computer already take 3 KB"):
        st.put("a.csv", b"a" * KB, owner="address:192.0.2.1")
    st.put("b.csv", b"b" * KB, owner="address:192.0.2.2")
    assert st.usage() == (4, 4 * KB)
