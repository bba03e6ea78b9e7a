"""A new session on the same link (a reload, a server restart, a student opening the teacher's
link) comes back at the iteration the link names, with the same numbers: EM is deterministic."""
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


def _open(query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query)
    at.run()
    assert not at.exception
    return at


@pytest.mark.parametrize("player", ["on", "off"])
def test_a_new_session_on_the_link_recomputes_the_run_to_its_iteration(player):
    first = _open({"player": player, "hidden": "80"})
    for _ in range(5):
        first.button(key="step").click().run()
    assert first.query_params["t"] == "5"
    link = dict(first.query_params)
    # the server restarted: a new process and a new session open the same URL
    again = _open(link)
    a, b = first.session_state["lesson"].run, again.session_state["lesson"].run
    assert b.current.iteration == 5
    for s, s2 in zip(a.history, b.history, strict=True):       # the same numbers, exactly
        np.testing.assert_array_equal(s.alpha, s2.alpha)
        np.testing.assert_array_equal(np.asarray(s.beta), np.asarray(s2.beta))
    notices = " ".join(e.value for e in again.success)
    assert "Recomputed to iteration 5" in notices
    assert next(m for m in again.metric if m.label == "Iteration").value == "5"


def test_a_link_past_convergence_stops_where_em_stops_and_says_so():
    at = _open({"player": "off", "t": "1000"})
    run = at.session_state["lesson"].run
    assert run.converged and run.current.iteration < 1000
    assert f"EM stopped at t = {run.current.iteration} (converged) before 1000" in " ".join(
        e.value for e in at.success)


def _notices(at) -> str:
    from kit.apptest import page_text
    return page_text(at)


@pytest.mark.parametrize("raw", ["-3", "abc", "2.5"])
def test_a_hostile_iteration_value_is_refused_with_a_notice_and_no_steps(raw):
    at = _open({"player": "off", "t": raw})
    if raw != "2.5":                                              # 2.5: a whole number near it, said
        assert at.session_state["lesson"].run.current.iteration == 0
    assert "t=" in _notices(at)                                   # the guard names what it refused


def test_an_iteration_past_the_range_is_brought_into_it_with_a_notice():
    at = _open({"player": "off", "t": "1e9"})
    run = at.session_state["lesson"].run
    assert run.converged and "t=" in _notices(at)


def test_settings_changes_reset_the_iteration_in_the_link():
    at = _open({"player": "off"})
    for _ in range(3):
        at.button(key="step").click().run()
    assert at.query_params["t"] == "3"
    at.slider(key="hidden").set_value(50).run()                 # a new run from iteration 0
    assert "t" not in at.query_params
