"""Real browser, a real server and its SQLite store: the class belongs to the teacher, not to a browser session.

* the teacher reloads the page (F5): the sidebar still leads the class, and Step moves it again;
* another process holds SQLite's write lock while the teacher steps: the lesson's own part of the page says
  the class did not get the change, and once the lock is gone the class gets it with no click of the
  teacher's (the page retries on its own);
* the teacher's server is killed (kill -9) and another process on the same store opens the teacher's page
  address: the class is taken back, and Step moves it.
"""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
import urllib.request

import pytest

from kit.browser import ITER_JS, require_chromium, wait_idle
from kit.classroom import server_teacher_key
from kit.server import streamlit_server

pytestmark = pytest.mark.browser
sync_api = require_chromium()

QUERY = "/?dataset=toy_spam&hidden=50&lam=1&init=labeled"


def class_t(base: str, cid: str) -> int:
    with urllib.request.urlopen(f"{base}/class/{cid}/state.json", timeout=30) as r:
        return json.loads(r.read())["t"]


def wait_class_t(base: str, cid: str, t: int, timeout: float = 60.0) -> None:
    """Poll the class's state (the server's read cache lives 0.25 s) until it is at ``t``; the deadline is a guard."""
    deadline = time.monotonic() + timeout
    while class_t(base, cid) != t:
        assert time.monotonic() < deadline, f"the class is still at t = {class_t(base, cid)}, not {t}"
        time.sleep(0.1)


def step(page, n: int) -> None:
    """Step from iteration n - 1 to n. The press waits until the page shows n - 1 and no script runs: after a
    reload the lesson is first computed again to the link's iteration, and a press that lands inside that
    rerun can be taken by it."""
    page.wait_for_function(f"() => ({ITER_JS})() === {n - 1}", timeout=120_000)
    wait_idle(page)
    page.locator(".st-key-step button:visible").first.click(timeout=60_000)
    page.wait_for_function(f"() => ({ITER_JS})() === {n}", timeout=120_000)


def class_id(page) -> str:
    page.get_by_text("Your class follows this lesson").wait_for(timeout=60_000)
    code = page.locator('[data-testid="stSidebar"] code').filter(has_text="/class/").first.inner_text()
    return code.strip().rsplit("/class/", 1)[1]


def test_reload_lock_and_kill_the_class_follows_the_teacher(browser, tmp_path):
    store_dir = tmp_path / "store"
    env = {"NBLAB_STORE_DIR": str(store_dir)}
    old = os.environ.get("NBLAB_STORE_DIR")
    os.environ["NBLAB_STORE_DIR"] = str(store_dir)      # the key this test types is that server's own
    try:
        key = server_teacher_key()
    finally:
        if old is None:
            os.environ.pop("NBLAB_STORE_DIR", None)
        else:
            os.environ["NBLAB_STORE_DIR"] = old
    srv_b = None
    with streamlit_server(env=env, timeout=120.0) as srv:
        teacher = browser.new_page(viewport={"width": 1280, "height": 900})
        teacher.goto(srv.url + QUERY, wait_until="domcontentloaded")
        wait_idle(teacher)
        teacher.get_by_role("textbox", name="Teacher key (to open a class)").fill(key)
        teacher.get_by_role("button", name="Open for the class").click()
        teacher.get_by_role("dialog").wait_for(timeout=60_000)
        teacher.keyboard.press("Escape")
        cid = class_id(teacher)
        step(teacher, 1)
        step(teacher, 2)
        wait_class_t(srv.url, cid, 2)

        # F5: the same address, a new session: the class is still the teacher's. The address takes the
        # iteration a moment after the page shows it; the reload waits for it (a reload before that returns to
        # the iteration the address had)
        teacher.wait_for_function("() => new URLSearchParams(location.search).get('t') === '2'", timeout=60_000)
        teacher.reload(wait_until="domcontentloaded")
        wait_idle(teacher)
        assert class_id(teacher) == cid
        assert teacher.get_by_role("button", name="Open for the class").count() == 0
        step(teacher, 3)
        wait_class_t(srv.url, cid, 3)

        # another process holds the store's write lock while the teacher steps
        # waits for the server's own writes (a claim's touch) to end rather than failing on them
        db = sqlite3.connect(store_dir / "shares.sqlite3", isolation_level=None, timeout=60)
        db.execute("BEGIN IMMEDIATE")
        try:
            step(teacher, 4)
            msg = teacher.locator('[data-testid="stMain"]').get_by_text("Your class did not get this change")
            msg.wait_for(timeout=60_000)
            assert "students still see iteration 3" in msg.inner_text()
            assert class_t(srv.url, cid) == 3
        finally:
            db.execute("ROLLBACK")
            db.close()
        # no click: the page retries on its own until the class has the teacher's state
        wait_class_t(srv.url, cid, 4)
        teacher.locator('[data-testid="stMain"]').get_by_text("Your class has your lesson again").wait_for(timeout=60_000)
        address = teacher.url
        assert "teacher=" in address

        # the teacher's server dies; another process on the same store opens the teacher's page address
        os.killpg(srv.proc.pid, signal.SIGKILL)
        srv.proc.wait(30)
        with streamlit_server(env=env, timeout=120.0) as srv_b:
            teacher.goto(srv_b.url + address[address.index("/?"):], wait_until="domcontentloaded")
            wait_idle(teacher)
            assert class_id(teacher) == cid
            step(teacher, 5)
            wait_class_t(srv_b.url, cid, 5)
        teacher.close()
