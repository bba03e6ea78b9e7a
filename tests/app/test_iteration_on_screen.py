"""One iteration on screen: the URL's t=, the share link, the status line, the metrics, the stop rules'
numbers, the maths panel and the downloads' names all name the iteration the teacher shows, not the
latest one computed (streamlit.testing; the browser player's own cases are in
tests/browser/test_iteration_on_screen.py).

The numbers come from nbcore, run here with the lesson's settings (EM is deterministic)."""
from __future__ import annotations

import json
import re
from urllib.parse import unquote_plus

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import nbcore
from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")
LESSON = {"dataset": "synthetic_spam", "hidden": "90", "lam": "1", "init": "labeled", "tol": "1e-06"}


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


def _open(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"player": "off", **LESSON, **query})
    return _run(at)


def _steps(at: AppTest, n: int) -> AppTest:
    for _ in range(n):
        at.button(key="step").click()
        _run(at)
    return at


def _scrub(at: AppTest, t: int) -> AppTest:
    at.slider(key=next(s.key for s in at.slider if s.label == "Show iteration")).set_value(t)
    return _run(at)


def _metric(at: AppTest, prefix: str):
    return next(m for m in at.metric if m.label.startswith(prefix))


def _status(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Status:**"))


def _oracle(max_iter: int = 100):
    """The lesson's run, computed here with nbcore: synthetic_spam, 90 % hidden, λ = 1, labelled start, seed 0."""
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    run = nbcore.EM(model="bernoulli", n_classes=ds.n_classes, smoothing=1.0, init="labeled", max_iter=max_iter,
                    tol=1e-6, random_state=0).start(ds.for_model("bernoulli"), y_obs)
    run.run_to_convergence()
    return run


def test_dragging_back_moves_the_url_the_status_line_the_metrics_and_the_stop_rules_with_it():
    at = _steps(_open(), 5)
    assert at.query_params["t"] == "5"
    _scrub(at, 2)
    # the URL names the iteration on screen (it said t=5, the latest computed)
    assert at.query_params["t"] == "2"
    assert _metric(at, "Iteration").value == "2"
    assert _metric(at, "Accuracy (t=").label == "Accuracy (t=2)"
    status = _status(at)
    assert "t = 2" in status and "Paused at t = 5" not in status, status
    # the stop rules' numbers are the step 1 -> 2, checked against nbcore's own run
    oracle = _oracle()
    a, b = oracle.history[1], oracle.history[2]
    rel = abs(b.objective - a.objective) / abs(a.objective)
    m = _metric(at, "|ΔL| / |L|")
    assert m.label == "|ΔL| / |L| at t=2"
    assert float(m.value) == pytest.approx(rel, rel=6e-3)
    # a new session on that URL (a reload, a student) lands where the teacher is
    again = _open(**dict(at.query_params))
    assert _metric(again, "Iteration").value == "2"
    assert again.session_state["lesson"].latest == 2


def test_the_e_step_leaves_the_maths_panel_asking_for_the_m_step():
    at = _open()
    at.button(key="e_step").click()
    _run(at)
    infos = " ".join(e.value for e in at.info)
    assert "Press **M-step** (or Step) to fill these in" in infos, infos
    assert "Press **Step** to fill these in" not in infos
    # later in the run too: between the half-steps the maths panel names the M-step as what comes next
    at.button(key="m_step").click()
    _run(at)
    _steps(at, 1)
    at.button(key="e_step").click()
    _run(at)
    captions = " ".join(c.value for c in at.caption)
    assert "press **M-step** (or Step) to make θ⁽3⁾" in captions, captions


def _deferred_names(monkeypatch) -> dict:
    """{file name: the callable that makes the file} of every download button drawn from now on."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    got: dict = {}
    real = MediaFileManager.add_deferred

    def spy(self, data, *args, **kwargs):
        got[kwargs.get("file_name")] = data
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", spy)
    return got


def _opens_at(page: bytes) -> int:
    m = re.search(rb'<script type="application/json" id="nblab-config">(.*?)</script>', page, flags=re.S)
    return int(json.loads(m.group(1))["defaults"]["t"])


def test_the_downloads_are_named_after_the_iterations_they_hold(monkeypatch):
    names = _deferred_names(monkeypatch)
    at = _scrub(_steps(_open(), 4), 3)
    at.session_state["download_open"] = True
    at.session_state["exports_open"] = True
    _run(at)
    assert "nbem_lesson_synthetic_spam_t0-3.html" in names, sorted(n for n in names if n)
    assert _opens_at(names["nbem_lesson_synthetic_spam_t0-3.html"]()) == 3
    assert {"alpha_t3.csv", "params_t3.csv", "em_history_t0-4.csv"} <= set(names)
    names.clear()
    at.checkbox(key="download_converge").check()
    _run(at)
    oracle = _oracle()
    want = f"nbem_lesson_synthetic_spam_t0-{oracle.iteration}.html"
    assert oracle.iteration > 4 and want in names, sorted(n for n in names if n)
    assert _opens_at(names[want]()) == oracle.iteration
    assert at.session_state["lesson"].latest == 4          # the page's run did not move


def _player_lesson(monkeypatch):
    """A session's lesson with the browser player on (no Streamlit run): synthetic_spam, 90 % hidden, at t = 0."""
    import streamlit as st

    from dashboard.lesson import player, session
    from dashboard.ui import state
    monkeypatch.setattr(st, "session_state", {}, raising=False)
    monkeypatch.setattr(player, "enabled", lambda: True)
    state.init()
    lr = session.lesson()
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    lr.run = nbcore.EM(n_classes=2, init="labeled", tol=1e-6, max_iter=100, random_state=0).start(ds.X, y_obs)
    lr.serial = 1
    return lr


def test_a_replay_in_the_browser_is_what_the_page_says_it_shows(monkeypatch):
    """The player's reports (what the browser sends while it replays a finished run from t = 0): the page's
    iteration on screen is the one drawn, not the furthest one revealed before."""
    from dashboard.lesson import player, session, status
    lr = _player_lesson(monkeypatch)
    lr.run.run_to_convergence()
    lr.follow_latest()
    latest = lr.latest
    tok = player._token()
    player.apply_view({"run": tok, "t": 0, "revealed": latest, "playing": True, "play": 1})   # Play, from 0
    player.apply_need({"run": tok, "upto": latest, "t": 3, "revealed": latest, "play": 1})     # drawing t = 3
    assert session.on_screen() == 3
    said = status.text(status.templates(lr.run), session.on_screen(), playing=True)
    assert "t = 3" in said and f"t = {latest} " not in said + " ", said
    player.apply_view({"run": tok, "t": 5, "revealed": latest, "playing": False, "play": 1})  # Pause at 5
    assert session.on_screen() == 5 and lr.latest == latest


CSV = (b"text,label\n"
       b"win cash now,spam\nfree prize inside,spam\ncheap pills cash,spam\nwin a free cruise,spam\n"
       b"meeting at noon,ham\nlunch tomorrow,ham\nproject notes attached,ham\nsee you at lunch,ham\n"
       b"claim your free cash,\nnotes from the meeting,\nprize cruise win,\nlunch meeting moved,\n"
       b"cash prize now,\nproject lunch,\n")


def test_the_share_link_names_the_iteration_on_screen(tmp_path, monkeypatch):
    from dashboard.lesson import sharing
    monkeypatch.setenv("NBLAB_STORE_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("NBLAB_STORE_URL", raising=False)
    sharing._open.clear()
    sharing._parsed.clear()
    try:
        at = AppTest.from_file(APP, default_timeout=120)
        at.query_params.update({"player": "off", "hidden": "50", "tol": "1e-12"})
        _run(at)
        at.file_uploader(key="uploader").upload("mail.csv", CSV, "text/csv")
        _run(at)
        _scrub(_steps(at, 4), 3)
        at.button(key="share_upload").click()
        _run(at)
        link = next(c.value for c in at.code if "data=" in c.value and "delete=" not in c.value)
        query = dict(p.split("=", 1) for p in link.split("?", 1)[1].split("&"))
        assert query["t"] == "3" == at.query_params["t"], link          # it said t=4, the latest computed
        student = AppTest.from_file(APP, default_timeout=120)
        student.query_params.update({k: unquote_plus(v) for k, v in query.items()})
        _run(student)
        assert _metric(student, "Iteration").value == "3"
        # the link follows the teacher: further back, and it names t = 1
        _scrub(at, 1)
        link = next(c.value for c in at.code if "data=" in c.value and "delete=" not in c.value)
        assert "t=1" in link.split("?", 1)[1].split("&"), link
    finally:
        sharing._open.clear()
        sharing._parsed.clear()


def test_playing_a_finished_run_says_replaying_only_for_iterations_shown_before():
    """A first Play through iterations the server computed ahead of the screen is running, not a replay;
    a Play back through iterations already shown is a replay (player.js statusText: the same rule)."""
    from dashboard.lesson import status
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    run = nbcore.EM(n_classes=2, init="labeled", tol=1e-6, max_iter=100, random_state=0).start(ds.X, y_obs)
    tpl = status.templates(run)
    assert tpl["replay"] is None                     # not finished: playing is always running
    assert status.text(tpl, 0, playing=True, seen=5) == "Running … t = 0"
    run.run_to_convergence()
    latest = len(run.history) - 1
    assert latest > 4
    tpl = status.templates(run)
    # the first Play from t = 0: nothing after 0 was on screen before
    assert status.text(tpl, 3, playing=True, seen=0) == f"Running … t = 3 of {latest}"
    # a Play from 0 after the whole run was shown (e.g. after "Run to convergence")
    assert status.text(tpl, 3, playing=True, seen=latest) == f"Replaying … t = 3 of {latest}"
    # dragged back to 1 after seeing up to 4: 1 … 4 replay, 5 on is new
    assert status.text(tpl, 4, playing=True, seen=4).startswith("Replaying")
    assert status.text(tpl, 5, playing=True, seen=4).startswith("Running")
    # stopped: the run's own status at its end, "Showing" an earlier iteration, whatever was seen
    assert status.text(tpl, 2, playing=False, seen=0).startswith(f"Showing t = 2 of {latest}")


def test_the_server_says_running_through_a_first_play_it_computed_ahead(monkeypatch):
    """The browser's first Play from t = 0: the server computes the run ahead to its end (the player's
    "need"), and the status line it draws says Running for the iterations the screen had not shown; after a
    Pause, what was shown is what a later Play replays."""
    from dashboard.lesson import player, session, status
    lr = _player_lesson(monkeypatch)
    lr.follow_latest()
    tok = player._token()
    player.apply_view({"run": tok, "t": 0, "revealed": 0, "playing": False, "play": 0})
    assert player.seen_before_play() == 0
    player.apply_view({"run": tok, "t": 0, "revealed": 0, "playing": True, "play": 1})     # Play
    player.apply_need({"run": tok, "upto": 200, "t": 0, "revealed": 0, "play": 1})        # more, please
    assert lr.run.done, "the need should have run synthetic_spam to convergence"
    player.apply_need({"run": tok, "upto": 200, "t": 3, "revealed": 3, "play": 1})        # drawing t = 3
    latest = len(lr.run.history) - 1
    said = status.text(status.templates(lr.run), session.on_screen(), True, seen=player.seen_before_play())
    assert said == f"Running … t = 3 of {latest}", said
    player.apply_view({"run": tok, "t": 5, "revealed": 5, "playing": False, "play": 1})   # Pause at 5
    assert player.seen_before_play() == 5
