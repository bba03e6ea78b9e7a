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
