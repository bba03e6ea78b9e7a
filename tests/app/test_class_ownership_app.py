"""The class belongs to its teacher, not to a browser session (streamlit.testing; the store: a fresh SQLite
file per test).

* a reload (a new session on the same address), another computer (the pasted teacher key) takes the class
  back, and Step moves the class again; the teacher key never reaches a link students get;
* the teacher's open page keeps the class from reading "away";
* opening a class needs the teacher key even where no share key is set;
* a publish that fails (SQLite's write lock held by another process) is said in the lesson's own part of the
  page (what a Step reruns), and the class gets the teacher's state once the store answers; the same when
  the store is a PostgreSQL server that freezes.
"""
from __future__ import annotations

import sqlite3
import time

import pytest
from streamlit.testing.v1 import AppTest

from kit import ROOT, classroom
from kit.apptest import page_text, run
from kit.classroom import CSV, QUERY, class_state, open_class
from kit.pg import own_server

APP = str(ROOT / "dashboard" / "app.py")


@pytest.fixture(autouse=True)
def fresh_store(tmp_path, monkeypatch):
    yield from classroom.fresh_store(tmp_path, monkeypatch, no_stall_pause=True)


def new_app(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in (QUERY if query is None else query).items():
        at.query_params[k] = v
    return run(at)


def leading(at: AppTest) -> dict | None:
    from dashboard.ui import state
    return at.session_state[state.CLASS_OPEN] if state.CLASS_OPEN in at.session_state else None


def address(at: AppTest) -> dict:
    """The page's address as the browser keeps it (what a reload opens)."""
    return {k: at.query_params[k][-1] if isinstance(at.query_params[k], list) else at.query_params[k]
            for k in at.query_params}


def step(at: AppTest) -> AppTest:
    at.button(key="step").click()
    return run(at)


def test_a_reload_takes_the_class_back_and_step_moves_it_again():
    at = new_app()
    open_class(at)
    cls = leading(at)
    step(at)
    step(at)
    assert class_state(cls["cid"])["t"] == 2
    url = address(at)
    assert url["teacher"] == f"{cls['cid']}.{cls['key']}"
    # F5: a new session on the same address
    again = new_app(url)
    got = leading(again)
    assert got and got["cid"] == cls["cid"], page_text(again)[-1500:]
    assert any(f"/class/{cls['cid']}" in c.value for c in again.sidebar.code)
    assert not [b for b in again.sidebar.button if b.key == "class_open_btn"]
    v_before = class_state(cls["cid"])["v"]
    step(again)
    st = class_state(cls["cid"])
    assert st["t"] == 3 and st["v"] > v_before
    assert not again.sidebar.error


def test_the_pasted_teacher_key_takes_the_class_back_on_another_computer():
    at = new_app()
    open_class(at)
    cls = leading(at)
    token = f"{cls['cid']}.{cls['key']}"
    assert any(c.value == token for c in at.sidebar.code)     # in the panel's "keep it" expander
    other = new_app()                                          # no teacher= in its address
    assert leading(other) is None
    other.text_input(key="class_claim_typed").input("  not-a-key ")
    other.button(key="class_claim_btn").click()
    run(other)
    assert leading(other) is None
    assert any("not a teacher key" in e.value for e in other.sidebar.error)
    other.text_input(key="class_claim_typed").input(f"{cls['cid']}.{'x' * 32}")   # a class id with another key
    other.button(key="class_claim_btn").click()
    run(other)
    assert leading(other) is None
    assert any("not the class's write key" in e.value for e in other.sidebar.error)
    # the teacher's page address pasted whole works as well as the key alone
    other.text_input(key="class_claim_typed").input(f"http://lab.example/?dataset=toy_spam&teacher={token}")
    other.button(key="class_claim_btn").click()
    run(other)
    assert leading(other)["cid"] == cls["cid"]
    step(other)
    assert class_state(cls["cid"])["t"] == 1
    assert address(other)["teacher"] == token


def test_a_bad_teacher_key_in_the_address_is_said_and_dropped():
    at = new_app({**QUERY, "teacher": "AAAAAAAAAAAAAAAA." + "b" * 32})
    assert leading(at) is None
    assert any("not on the server" in e.value for e in at.sidebar.error), page_text(at)[-1500:]
    assert "teacher" not in address(at)
    assert [b for b in at.sidebar.button if b.key == "class_open_btn"]


def test_the_teacher_key_never_reaches_a_link_students_get():
    at = new_app()
    at.file_uploader(key="uploader").upload("mail.csv", CSV, "text/csv")
    run(at)
    at.button(key="share_upload").click()
    run(at)
    open_class(at)
    cls = leading(at)
    assert cls, page_text(at)[-1500:]
    run(at)
    links = [c.value for c in at.sidebar.code if "data=" in c.value or "/class/" in c.value]
    assert len(links) >= 2, links      # the share's class link and the class link
    assert all(cls["key"] not in link and "teacher=" not in link for link in links), links


def test_the_open_teacher_page_keeps_the_class_from_reading_away():
    from dashboard.class_link import store as CS
    from dashboard.ui import state
    at = new_app()
    open_class(at)
    cls = leading(at)
    db = sqlite3.connect(CS.get_store().path)
    db.execute("UPDATE nblab_classes SET updated = ? WHERE id = ?", (time.time() - CS.AWAY_AFTER - 5, cls["cid"]))
    db.commit()
    db.close()
    assert class_state(cls["cid"]).get("away") is True     # nothing heard from the teacher's page for a while
    at.session_state[state.CLASS_OPEN] = {**cls, "touched": time.monotonic() - CS.HEARTBEAT - 1}
    run(at)                                                # the page's heartbeat (its fragment, or any rerun)
    assert "away" not in class_state(cls["cid"])


def test_without_a_share_key_a_student_cannot_open_a_class():
    from dashboard.class_link import store as CS
    at = new_app()
    at.button(key="class_open_btn").click()
    run(at)
    assert leading(at) is None
    assert any("needs its teacher key" in e.value and "terminal" in e.value and "missing" in e.value
               for e in at.sidebar.error), page_text(at)[-1500:]
    open_class(at, key="a guess")
    assert leading(at) is None
    assert any("not it" in e.value for e in at.sidebar.error)
    with CS.get_store()._tx(write=False) as db:
        assert db.execute("SELECT COUNT(*) FROM nblab_classes").fetchone()[0] == 0
    open_class(at)      # the key the server made (its terminal shows it)
    assert leading(at)


def test_a_failed_publish_is_said_next_to_the_controls_and_the_class_gets_the_state_after(monkeypatch):
    from dashboard.class_link import store as CS
    from dashboard.lesson.panels import class_link
    monkeypatch.setattr(class_link, "RETRY_S", 600.0)   # no retry falls due on its own within this test's steps
    at = new_app()
    open_class(at)
    cls = leading(at)
    path = CS.get_store().path
    other = sqlite3.connect(path, isolation_level=None, timeout=60)   # waits out the server's own writes
    other.execute("BEGIN IMMEDIATE")      # another process holds SQLite's write lock
    try:
        step(at)
        main = [w.value for w in at.main.warning]
        assert any("Your class did not get this change" in w and "iteration 0" in w for w in main), \
            page_text(at)[-2000:]
        assert not [e for e in at.sidebar.error if "class" in e.value]
        assert class_state(cls["cid"])["t"] == 0    # readers are not blocked (WAL): the class is still at 0
    finally:
        other.execute("ROLLBACK")
        other.close()
    # a Step within RETRY_S of the failure is not held up by another try (the lock is gone: a try would have
    # published): the newest state waits for the retry
    step(at)
    assert leading(at)["pending"] and class_state(cls["cid"])["t"] == 0
    assert any("did not get" in w.value for w in at.main.warning)
    # RETRY_S later (the fragment's tick, or the next run's): the class gets the teacher's newest state
    from dashboard.ui import state
    at.session_state[state.CLASS_OPEN] = {**leading(at), "failed_at": time.monotonic() - 10_000}
    run(at)
    st = class_state(cls["cid"])
    assert st["t"] == 2, st
    assert not any("did not get" in w.value for w in at.main.warning)


@pytest.fixture
def pg_store(monkeypatch):
    """The store on a PostgreSQL server of this test alone (tests/kit/pg.py), after ``fresh_store`` emptied
    the process's stores: the server the test may freeze."""
    from dashboard.class_link import store
    with own_server("nblab_class") as server:
        monkeypatch.setenv("NBLAB_STORE_URL", server.url)
        store._STORES.clear()
        store.clear_cache()
        try:
            yield server
        finally:
            for made in list(store._STORES.values()):
                made.close()
            store._STORES.clear()


def _answers(cid: str, deadline_s: float = 60.0) -> dict:
    """The class's state once the store answers again (the calls a freeze stalled end first)."""
    from dashboard.data.store import StoreUnavailable
    end = time.monotonic() + deadline_s
    while True:
        try:
            return class_state(cid)
        except StoreUnavailable:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)


def test_a_publish_during_a_postgresql_freeze_is_said_and_the_class_gets_the_state_after(pg_store, monkeypatch):
    """The database freezes (every PostgreSQL process stopped, connections open, nothing answers) while the
    teacher steps twice: the lesson's part of the page says the class did not get the change, the Steps
    are not held up, and once the database runs again the retry gives the class the newest state."""
    from dashboard.lesson.panels import class_link
    from dashboard.ui import state
    monkeypatch.setattr(class_link, "RETRY_S", 600.0)   # no retry falls due on its own within this test's steps
    at = new_app()
    open_class(at)
    cls = leading(at)
    assert class_state(cls["cid"])["t"] == 0
    with pg_store.frozen():
        step(at)
        assert any("Your class did not get this change" in w.value for w in at.main.warning), page_text(at)[-2000:]
        step(at)
        assert leading(at)["pending"]
        assert any("did not get" in w.value for w in at.main.warning)
    # thawed: a try the deadline gave up on may land now (the database had it queued): the class shows
    # what it had or the teacher's first Step, never anything else
    assert _answers(cls["cid"])["t"] in (0, 1)
    at.session_state[state.CLASS_OPEN] = {**leading(at), "failed_at": time.monotonic() - 10_000}
    run(at)                                          # the retry falls due: the teacher's newest state
    assert class_state(cls["cid"])["t"] == 2
    assert not any("did not get" in w.value for w in at.main.warning)


# ---- each message of the class panel ------------------------------------------------------------------------------

def test_a_teacher_key_in_the_address_that_is_none_is_said_and_dropped():
    at = new_app({**QUERY, "teacher": "<b>not a key</b>"})
    assert leading(at) is None
    assert any("The teacher key in this page's address is not one" in e.value for e in at.sidebar.error)
    assert "teacher" not in address(at)


def test_a_store_that_cannot_answer_keeps_the_key_and_takes_the_class_back_on_a_later_run(monkeypatch):
    from dashboard import class_link
    from dashboard.data.store import StoreUnavailable
    at = new_app()
    open_class(at)
    cls = leading(at)
    url = address(at)
    real = class_link.claim

    def busy(*a, **kw):
        raise StoreUnavailable("The shared store is busy right now.")
    monkeypatch.setattr(class_link, "claim", busy)
    again = new_app(url)
    assert leading(again) is None
    assert any("Could not take your class back yet" in e.value and "busy" in e.value for e in again.sidebar.error)
    assert address(again)["teacher"] == url["teacher"]      # kept: the class may well be there
    # pasted on another computer while the store is still busy: said, nothing lost
    other = new_app()
    other.text_input(key="class_claim_typed").input(url["teacher"])
    other.button(key="class_claim_btn").click()
    run(other)
    assert leading(other) is None
    assert any("Could not take the class back yet" in e.value for e in other.sidebar.error)
    monkeypatch.setattr(class_link, "claim", real)
    run(again)                                              # the store answers: the next run takes it back
    assert leading(again)["cid"] == cls["cid"]
    assert not again.sidebar.error


def test_a_class_gone_from_the_server_is_said_where_the_teacher_looks_and_is_let_go():
    from dashboard.class_link import store as CS
    at = new_app()
    open_class(at)
    cls = leading(at)
    with CS.get_store()._tx(write=True) as db:
        db.execute("DELETE FROM nblab_classes WHERE id = ?", (cls["cid"],))
    step(at)
    assert leading(at) is None
    assert any("no longer on the server, so it stopped following" in w.value for w in at.main.warning)
    run(at)     # the sidebar (drawn before the lesson's part on each run) says it from the next run on
    assert any("no longer on the server" in e.value for e in at.sidebar.error)
    assert "teacher" not in address(at)
    assert [b for b in at.sidebar.button if b.key == "class_open_btn"]


def test_the_heartbeat_finds_the_class_gone():
    from dashboard.class_link import store as CS
    from dashboard.ui import state
    at = new_app()
    open_class(at)
    cls = leading(at)
    with CS.get_store()._tx(write=True) as db:
        db.execute("DELETE FROM nblab_classes WHERE id = ?", (cls["cid"],))
    at.session_state[state.CLASS_OPEN] = {**cls, "touched": time.monotonic() - CS.HEARTBEAT - 1}
    run(at)
    assert leading(at) is None
    assert any("The class is no longer on the server" in e.value for e in at.sidebar.error)


def test_a_server_that_cannot_keep_its_teacher_key_says_so(tmp_path):
    import os
    from pathlib import Path
    (Path(os.environ["NBLAB_STORE_DIR"]) / "teacher_key").mkdir(parents=True)   # in the way of the key's file
    at = new_app()
    open_class(at, key="anything")
    assert leading(at) is None
    assert any("cannot keep its teacher key" in e.value and "NBLAB_SHARE_KEY" in e.value for e in at.sidebar.error)
