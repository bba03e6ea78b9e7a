"""The shared-data store when its database fails: how long a page waits, how soon it works
again, what the user is told and what the server log gets.

PostgreSQL is a real throwaway server of its own (tests/kit/pg.py), stopped and started
again inside the test; an unresponsive server is a TCP socket that accepts and never answers.
Times are checked against the budget a page may spend (about the 2 s connect timeout), measured
with time.monotonic() around the call.
"""
from __future__ import annotations

import logging
import socket
import time

import pytest

from dashboard.data import store as S
from kit.pg import own_server

CSV = b"text,label\nwin money now,spam\nlunch at noon,ham\n"
BUDGET = 3.5   # s: the 2 s connect timeout plus slack for a busy machine; the old pool waited 10 s


def _timed(fn):
    t0 = time.monotonic()
    try:
        return fn(), time.monotonic() - t0
    except Exception as e:  # noqa: BLE001 - returned to the test, which checks the type
        return e, time.monotonic() - t0


def test_unresponsive_postgresql_fails_within_the_connect_timeout(caplog):
    pytest.importorskip("psycopg")
    from dashboard.data.store.postgres import PostgresStore
    with socket.socket() as silent:               # accepts connections (the kernel does) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        port = silent.getsockname()[1]
        with caplog.at_level(logging.ERROR, logger="dashboard.data.store"):
            err, took = _timed(lambda: PostgresStore(f"postgresql://nobody:pw-not-logged@127.0.0.1:{port}/x"))
    assert isinstance(err, S.StoreUnavailable), err
    assert took < BUDGET, f"waited {took:.1f} s for an unresponsive server"
    assert "cannot be reached" in str(err) and "administrator" in str(err)
    rec = [r for r in caplog.records if r.name.startswith("dashboard.data.store")]
    assert rec and not rec[-1].exc_info and "pw-not-logged" not in rec[-1].getMessage()   # one line


@pytest.fixture
def own_pg():
    """A PostgreSQL server of this test alone (tests/kit/pg.py's OwnServer)."""
    with own_server() as server:
        yield server


def test_postgresql_down_fails_fast_and_works_again_at_once(own_pg, caplog):
    url, stop, start = own_pg.url, own_pg.stop, own_pg.start
    st = S.open_store(url)
    try:
        r = st.put("lesson.csv", CSV, owner="teacher")
        assert st.lookup(r.id).id == r.id and st.read(r.id) == CSV     # pooled connections now idle
        stop()
        with caplog.at_level(logging.ERROR, logger="dashboard.data.store"):
            for _ in range(2):                      # every page while it is down, not only the first
                err, took = _timed(lambda: st.lookup(r.id))
                assert isinstance(err, S.StoreUnavailable), err
                assert took < BUDGET, f"a page waited {took:.1f} s for a stopped server"
        assert "not available right now" in str(err) and "Traceback" not in str(err)
        rec = [x for x in caplog.records if x.name == "dashboard.data.store"]
        assert rec and "lookup" in rec[-1].getMessage() and not rec[-1].exc_info   # one line, no traceback
        start()
        got, took = _timed(lambda: st.lookup(r.id))  # the first request after it is back
        assert not isinstance(got, Exception), got
        assert got.id == r.id and took < 1.5, f"first lookup after the restart took {took:.1f} s"
        assert st.read(r.id) == CSV
        assert st.put("more.csv", CSV, owner="teacher").id
    finally:
        st.close()


def test_postgresql_restarted_between_requests_is_not_noticed(own_pg):
    # idle connections from before a restart are dead; the next request must not fail on one
    url, stop, start = own_pg.url, own_pg.stop, own_pg.start
    st = S.open_store(url)
    try:
        r = st.put("lesson.csv", CSV, owner="teacher")
        stop()
        start()
        got, took = _timed(lambda: st.lookup(r.id))
        assert not isinstance(got, Exception), got
        assert took < 1.5 and st.read(r.id) == CSV
    finally:
        st.close()


def test_class_link_while_postgresql_is_down_then_back(own_pg, monkeypatch):
    """A server process that starts while the database is down: the class link's page shows one
    short message quickly, and the same link opens the data set as soon as the database is back."""
    from streamlit.testing.v1 import AppTest

    from dashboard.lesson import sharing
    from kit import ROOT
    from kit.apptest import page_text
    url, stop, start = own_pg.url, own_pg.stop, own_pg.start
    made = S.open_store(url)
    r = made.put("lesson.csv", CSV + b"lunch at one,ham\nwin a prize,spam\nfree money now,\n", owner="teacher")
    made.close()
    monkeypatch.setenv("NBLAB_STORE_URL", url)
    sharing._open.clear()
    sharing._parsed.clear()

    def page():
        at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
        at.query_params["dataset"] = "shared"
        at.query_params["data"] = r.id
        at.query_params["t"] = "3"
        at.run()
        assert not at.exception, at.exception
        return at

    try:
        stop()
        t0 = time.monotonic()
        down = page()
        took = time.monotonic() - t0
        shown = " ".join(e.value for e in list(down.warning) + list(down.error))
        assert "cannot be reached" in shown and "is not a data set here" not in page_text(down)
        assert "link is kept" in shown
        assert url not in page_text(down) and "nblab_pg_" not in page_text(down)   # no server address or path
        # the student's link is whole: nothing was dropped from the URL, and no default lesson was shown
        assert down.query_params["data"] == r.id and down.query_params["dataset"] == "shared"
        assert down.query_params["t"] == "3" and not down.selectbox
        assert took < 15, f"the page took {took:.1f} s"   # an AppTest page on a busy machine; the store's part is < 3 s
        start()
        up = page()                      # the very next page after the database is back
        assert up.selectbox(key="dataset").value == "shared"
        assert any("as the link says" in e.value for e in list(up.info) + list(up.success) + list(up.markdown)
                   + list(up.caption)) or up.query_params.get("t") == "3"
    finally:
        sharing._open.clear()
        sharing._parsed.clear()


# ---- a database that holds a lock or stops answering: every call ends within its deadline ----------

NOTICE_BUDGET = 3.0   # s: the longest a student may wait for the page's notice (store calls end at 2.5 s)


def test_a_locked_table_ends_every_call_within_the_deadline(own_pg):
    """Another session holds an exclusive lock on the shares table (a migration, a stuck admin
    transaction): lookups, reads and shares fail within the deadline with the short message (the
    server's lock_timeout and the call's own deadline), and work at once when the lock is gone."""
    import psycopg

    url = own_pg.url
    st = S.open_store(url)
    try:
        r = st.put("lesson.csv", CSV, owner="teacher")
        with psycopg.connect(url) as admin:          # a transaction holding ACCESS EXCLUSIVE
            admin.execute("LOCK TABLE nblab_shares IN ACCESS EXCLUSIVE MODE")
            for call in (lambda: st.lookup(r.id), lambda: st.read(r.id),
                         lambda: st.put("b.csv", CSV, owner="teacher")):
                err, took = _timed(call)
                assert isinstance(err, S.StoreUnavailable), err
                assert took < NOTICE_BUDGET, f"a call waited {took:.1f} s behind a locked table"
            admin.rollback()
        got, took = _timed(lambda: st.lookup(r.id))
        assert not isinstance(got, Exception) and got.id == r.id, got
    finally:
        st.close()


def test_a_frozen_server_on_a_unix_socket_ends_every_call_within_the_deadline(own_pg):
    """The database server is frozen (SIGSTOP: every backend and the postmaster), reached over a Unix
    socket where no TCP timeout applies: an open store's calls and a new store's opening both give
    up within the deadline; once the server runs again the same store works."""
    url = own_pg.url
    st = S.open_store(url)
    r = st.put("lesson.csv", CSV, owner="teacher")
    with own_pg.frozen():
        for call in (lambda: st.lookup(r.id), lambda: S.open_store(url)):
            err, took = _timed(call)
            assert isinstance(err, S.StoreUnavailable), err
            assert took < NOTICE_BUDGET, f"waited {took:.1f} s for a frozen server"
    deadline = time.monotonic() + 30
    while True:                                      # the stalled calls finish; the store answers again
        got, _ = _timed(lambda: st.lookup(r.id))
        if not isinstance(got, Exception) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert not isinstance(got, Exception), got
    st.close()


def test_sqlite_busy_with_another_writer_ends_within_the_deadline(tmp_path, monkeypatch):
    """Another process holds SQLite's write lock: a share waits at most the busy timeout (2 s), not 30 s."""
    import sqlite3

    from dashboard.data.store import base

    # On a loaded machine the call may reach the store's whole deadline before SQLite's busy timeout; the
    # store would then answer at once for STALL_PAUSE seconds. Without that pause the share after the
    # lock's release shows the store itself working again, with no wait on the clock.
    monkeypatch.setattr(base, "STALL_PAUSE", 0.0)
    st = S.open_store(f"sqlite:///{tmp_path / 'shares.sqlite3'}")
    other = sqlite3.connect(tmp_path / "shares.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        err, took = _timed(lambda: st.put("a.csv", CSV, owner="teacher"))
        assert isinstance(err, S.StoreUnavailable), err
        assert took < NOTICE_BUDGET, f"waited {took:.1f} s for SQLite's write lock"
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert st.put("a.csv", CSV, owner="teacher").id
