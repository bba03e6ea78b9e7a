"""The run guard (dashboard/lesson/run_guard.js) watches the lesson's run buttons and their clicker keys by the
names run_guard.config() sends it: each must be a button the lesson draws, and each key must be the shortcut
Streamlit gives that button (or, for Page Down, the hidden button that carries it beside Step). A button
renamed or a shortcut changed on one side only fails here, not silently in the browser (where the guard would
let a quick second press be merged again)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.lesson import run_guard
from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")
LESSON = {"dataset": "synthetic_spam", "hidden": "90", "lam": "1", "init": "labeled", "tol": "1e-06"}
#: KeyboardEvent.key of the guard → Streamlit's name of the shortcut (st.button(shortcut=...), lower-cased)
STREAMLIT_NAME = {"ArrowRight": "right", "PageDown": "pagedown", "Home": "home", "e": "e", "m": "m"}


@pytest.mark.parametrize("player", ["on", "off"])
def test_the_guard_names_buttons_the_lesson_draws_and_their_own_shortcuts(player):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"player": player, **LESSON})
    at.run()
    assert not at.exception, at.exception
    shortcut = {b.key: b.proto.shortcut.lower() for b in at.button}
    cfg = run_guard.config()
    assert cfg["step"] in cfg["buttons"]
    for name in cfg["buttons"]:
        assert name in shortcut, f"the guard watches a button {name!r} the lesson does not draw"
    for key, name in cfg["keys"].items():
        carriers = {b for b, s in shortcut.items() if s == STREAMLIT_NAME[key]}
        assert carriers, f"no button of the lesson has the shortcut {key!r}"
        # the key presses the button the guard replays it on: that button, or the hidden Page Down twin of Step
        assert name in carriers or (name == cfg["step"] and carriers == {"step_pgdn"}), (key, name, carriers)
    # and every shortcut of the run buttons is one the guard knows
    run_shortcuts = {s for b, s in shortcut.items() if s and b in set(cfg["buttons"]) | {"step_pgdn"}}
    assert run_shortcuts == {STREAMLIT_NAME[k] for k in cfg["keys"]}

