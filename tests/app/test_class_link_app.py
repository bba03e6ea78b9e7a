"""Open for the class in the lesson view, under streamlit.testing (the store: a fresh SQLite file per test).

What the class reads is read back from the store (dashboard.class_link.read, as the class routes answer a
student), and compared with the lesson on the teacher's screen; each message the panel can show is asked
for: an upload not shared yet, the server's share key missing or wrong.
"""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from kit import ROOT, classroom
from kit.apptest import page_text, run
from kit.classroom import CSV, QUERY, class_state, open_class

APP = str(ROOT / "dashboard" / "app.py")


@pytest.fixture(autouse=True)
def fresh_store(tmp_path, monkeypatch):
    yield from classroom.fresh_store(tmp_path, monkeypatch)


def new_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in {**QUERY, **query}.items():
        at.query_params[k] = v
    return run(at)


def opened(at: AppTest) -> dict:
    from dashboard.ui import state
    cls = at.session_state[state.CLASS_OPEN]
    assert cls and len(cls["cid"]) == 16, page_text(at)[-1500:]
    return cls


def test_opening_a_class_publishes_the_lesson_on_screen_and_every_change_after_it():
    at = new_app()
    open_class(at)
    cls = opened(at)
    st = class_state(cls["cid"])
    assert st["data"] == "toy_spam" and st["t"] == 0 and st["half"] is None and st["open"] is True
    assert st["settings"] == {"model": "bernoulli", "hidden": 50, "lam": 1.0, "init": "labeled", "seed": 0,
                              "max_iter": 100, "tol": 1e-6}
    # the sidebar shows the link students open
    assert any(f"/class/{cls['cid']}" in c.value for c in at.sidebar.code)
    # a Step is published (the store's version goes up by one), a rerun with nothing new publishes nothing
    at.button(key="step").click()
    run(at)
    st = class_state(cls["cid"])
    assert st["t"] == 1 and st["v"] == 2
    run(at)
    assert class_state(cls["cid"])["v"] == 2
    # the E-step half
    at.button(key="e_step").click()
    run(at)
    st = class_state(cls["cid"])
    assert st["t"] == 1 and st["half"] == "e" and st["v"] == 3
    # Close the class: the last state, closed
    at.button(key="class_close_btn").click()
    run(at)
    from dashboard.ui import state
    assert at.session_state[state.CLASS_OPEN] is None
    st = class_state(cls["cid"])
    assert st["open"] is False and st["t"] == 1 and st["v"] == 4
    assert at.button(key="class_open_btn")      # and the teacher can open another


def test_an_upload_not_shared_yet_is_said_so():
    at = new_app()
    at.file_uploader(key="uploader").upload("mail.csv", CSV, "text/csv")
    run(at)
    open_class(at)
    from dashboard.ui import state
    assert at.session_state[state.CLASS_OPEN] is None
    assert any("Share this data set first" in e.value for e in at.sidebar.error), page_text(at)[-1500:]


def test_with_a_share_key_only_its_holder_opens_a_class(monkeypatch):
    monkeypatch.setenv("NBLAB_SHARE_KEY", "k3y-for-teachers-only")
    at = new_app()
    at.button(key="class_open_btn").click()
    run(at)
    from dashboard.ui import state
    assert at.session_state[state.CLASS_OPEN] is None
    assert any("needs its teacher key" in e.value and "missing" in e.value for e in at.sidebar.error)
    at.text_input(key="class_key_typed").input("not-the-key")
    at.button(key="class_open_btn").click()
    run(at)
    assert at.session_state[state.CLASS_OPEN] is None
    assert any("not it" in e.value for e in at.sidebar.error)
    at.text_input(key="class_key_typed").input("k3y-for-teachers-only")
    at.button(key="class_open_btn").click()
    run(at)
    assert opened(at)
    assert not at.sidebar.error


def test_the_class_panel_speaks_the_pages_language(monkeypatch):
    """With ?lang=de the class panel's labels, its refusals and the open class's box are German (a few by
    name, the rest the catalogue's own texts)."""
    from dashboard.ui import state
    from nblab import i18n
    monkeypatch.setenv("NBLAB_SHARE_KEY", "k3y-for-teachers-only")
    at = new_app(lang="de")
    assert any(b.key == "class_open_btn" and b.label == "Für die Klasse öffnen" for b in at.sidebar.button)
    assert any(t.key == "class_key_typed" and t.label == "Lehrkraft-Schlüssel (um eine Klasse zu öffnen)"
               for t in at.sidebar.text_input)
    at.button(key="class_open_btn").click()
    run(at)
    want = i18n.gettext("de", "Opening a class on this server needs its teacher key ({where}), and the key typed is "
                              "missing.", where=i18n.gettext("de", "its administrator gives it to teachers"))
    assert want.startswith("Um auf diesem Server") and want in [e.value for e in at.sidebar.error]
    open_class(at, "k3y-for-teachers-only")
    assert at.session_state[state.CLASS_OPEN] is not None
    text = page_text(at)
    assert "Ihre Klasse folgt dieser Lektion." in text
    assert {"QR-Code", "Klasse schließen"} <= {b.label for b in at.sidebar.button}
