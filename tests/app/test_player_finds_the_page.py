"""What the browser player writes into, drawn by the server under the names it sends the player.

The player (dashboard/lesson/player/js/bridge.js) finds the Step button, the status line, the "Showing
iteration" caption and the metrics row by the keys and labels of ``player.dom()`` (the main mount's data):
a key or a label renamed on one side only fails here, not silently in the browser. With the player on, the
caption's element is there at the latest iteration too (empty), so a drag back has something to write into.
"""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")
LESSON = {"dataset": "synthetic_spam", "hidden": "90", "lam": "1", "init": "labeled", "tol": "1e-06"}


def _open(player: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"player": player, **LESSON})
    at.run()
    assert not at.exception, at.exception
    return at


def _keys(at: AppTest) -> set[str]:
    """The user keys of the page's keyed containers (a block's id ends with "-<key>")."""
    out = set()

    def walk(node):
        p = getattr(node, "proto", None)
        if p is not None and getattr(p, "id", ""):
            out.add(p.id.rsplit("-", 1)[-1])
        children = getattr(node, "children", None)
        for c in (children.values() if isinstance(children, dict) else []):
            walk(c)

    walk(at._tree)
    return out


def test_the_keys_and_labels_the_player_is_sent_are_those_on_the_page():
    from dashboard.lesson import player

    dom = player.dom()
    at = _open("off")
    at.button(key=dom["step"])                                   # raises when there is no such button
    assert {dom["status"], dom["showing"]} <= _keys(at), _keys(at)
    labels = [m.label for m in at.metric]
    assert dom["iteration"] in labels, labels
    assert f"{dom['accuracy']}0)" in labels, labels               # the player writes prefix + t + ")"


def test_the_showing_caption_is_there_at_the_latest_iteration_with_the_player_on():
    from dashboard.lesson.panels import run_controls

    on = [c.value for c in _open("on").caption]
    assert run_controls.EMPTY_CAPTION in on, on                   # the element the player writes into
    assert run_controls.EMPTY_CAPTION.strip()                     # not whitespace: it renders a paragraph
    off = [c.value for c in _open("off").caption]
    assert run_controls.EMPTY_CAPTION not in off, off             # no player: nothing to fill
