"""The class link in the app's tests: the server's teacher key, opening a class as a teacher does, and what
the class reads back from the store (as the class routes answer a student)."""
from __future__ import annotations

import json


def server_teacher_key() -> str:
    """The key a server started with this process's environment made for its teachers (no share key set),
    as its terminal shows it: the file in the store's folder (NBLAB_STORE_DIR, else the default)."""
    from dashboard.class_link import teacher_key
    return teacher_key.own_key(teacher_key.key_dir(), say=lambda _: None)


def open_class(at, key: str | None = None):
    """The teacher types the teacher key (default: the server's own) and presses Open for the class."""
    at.text_input(key="class_key_typed").input(server_teacher_key() if key is None else key)
    at.button(key="class_open_btn").click()
    at.run()
    assert not at.exception, at.exception
    return at


def class_state(cid: str) -> dict:
    """The class's state.json as a student reads it now (the read cache dropped first)."""
    from dashboard import class_link
    class_link.store.clear_cache()
    v, body = class_link.read(cid)
    st = json.loads(body)
    assert st["v"] == v
    return st


#: the lesson both class-link app tests open, and an upload with two unlabelled rows
QUERY = {"dataset": "toy_spam", "hidden": "50", "lam": "1", "init": "labeled"}
CSV = (b"text,label\nwin cash now,spam\nfree prize inside,spam\nmeeting at noon,ham\nlunch tomorrow,ham\n"
       b"claim your free cash,\nnotes from the meeting,\n")


def fresh_store(tmp_path, monkeypatch, *, no_stall_pause: bool = False):
    """A fresh SQLite store for one test (a fixture's body: yields once), no share key set, the process's
    store, class read cache and open-share cache emptied before and after. ``no_stall_pause``: a call that
    reaches the store's deadline on a loaded machine does not pause the store, so a try after a lock's
    release shows the store itself answering again."""
    from dashboard.class_link import store
    from dashboard.data.store import base
    from dashboard.lesson import sharing
    monkeypatch.setenv("NBLAB_STORE_DIR", str(tmp_path / "store"))
    for var in ("NBLAB_STORE_URL", "NBLAB_SHARE_KEY"):
        monkeypatch.delenv(var, raising=False)
    if no_stall_pause:
        monkeypatch.setattr(base, "STALL_PAUSE", 0.0)
    store._STORES.clear()
    store.clear_cache()
    sharing._open.clear()
    yield
    store._STORES.clear()
    store.clear_cache()
    sharing._open.clear()
