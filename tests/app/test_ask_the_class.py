"""Ask the class (dashboard/lesson/panels/ask_class.py) under streamlit.testing: the teacher asks, students
answer through the store's own answer call (as the class route does), the count and the distribution show,
Reveal marks nbcore's right answer (an nbcore run driven here) and runs the Step predicted; the question and
Pause travel in the class's state; each message the panel can show is asked for."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import nbcore
from kit import ROOT, classroom
from kit.answers import token
from kit.apptest import page_text, run
from kit.classroom import QUERY, class_state, open_class

APP = str(ROOT / "dashboard" / "app.py")


@pytest.fixture(autouse=True)
def fresh_store(tmp_path, monkeypatch):
    yield from classroom.fresh_store(tmp_path, monkeypatch)


def teacher(**query) -> tuple[AppTest, dict]:
    at = AppTest.from_file(APP, default_timeout=90)
    for k, v in {**QUERY, **query}.items():
        at.query_params[k] = v
    run(at)
    open_class(at)
    from dashboard.ui import state
    return at, at.session_state[state.CLASS_OPEN]


def ask(at: AppTest, kind: str, **pick) -> dict:
    at.selectbox(key="class_q_kind").set_value(kind)
    run(at)
    for key, v in pick.items():
        at.selectbox(key=key).set_value(v)
        run(at)
    at.button(key="class_ask_btn").click()
    run(at)
    return at.session_state["class_question"]


def oracle_alpha(steps: int, hidden=50, data="toy_spam"):
    """α after ``steps`` and one more Step, with nbcore alone (the lesson's settings: QUERY's)."""
    ds = nbcore.load_dataset(data)
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=hidden / 100, random_state=0)
    r = nbcore.EM(model="bernoulli", n_classes=ds.n_classes, smoothing=1.0, init="labeled", max_iter=100, tol=1e-6,
                  random_state=0).start(ds.for_model("bernoulli"), np.asarray(y_obs))
    for _ in range(steps):
        r.step()
    before = r.current.alpha.copy()
    r.step()
    return before, r.current.alpha.copy()


def test_ask_answer_show_reveal_runs_the_step_with_nbcores_answer():
    from dashboard.class_link import answers
    at, cls = teacher()
    at.button(key="step").click()
    run(at)
    cur = ask(at, "alpha", class_q_class=1)
    qid = cur["q"].qid
    assert qid == "q1-a1" and cur["phase"] == "open"
    st = class_state(cls["cid"])
    assert st["question"] == {"id": qid, "phase": "open"} and st["t"] == 1
    for choice in ("up", "up", "down"):
        answers.answer(cls["cid"], qid, token(), choice)
    run(at)
    assert "3 answered" in page_text(at)
    at.button(key="class_show_btn").click()
    run(at)
    table = at.sidebar.dataframe[0].value
    assert list(table["answer"]) == ["up", "down"] and list(table["count"]) == [2, 1]
    before, after = oracle_alpha(1)
    want = "up" if after[1] > before[1] else "down"
    at.button(key="class_reveal_btn").click()
    run(at)
    assert f"Right answer: {want}" in page_text(at)
    st = class_state(cls["cid"])
    assert st["question"] == {"id": qid, "phase": "revealed"} and st["t"] == 2   # the Step predicted ran
    assert answers.public_tally(cls["cid"], qid)["right"] == want
    np.testing.assert_allclose(at.session_state["lesson"].run.current.alpha, after)
    at.button(key="class_qclose_btn").click()   # Done
    run(at)
    assert "question" not in class_state(cls["cid"])


def test_a_number_question_reveals_the_accuracy_at_convergence_without_a_step():
    from dashboard.class_link import answers
    at, cls = teacher()
    cur = ask(at, "acc")
    qid = cur["q"].qid
    assert qid == "q1-acc"
    answers.answer(cls["cid"], qid, token(), 50)
    at.button(key="class_show_btn").click()
    run(at)
    assert "mean 50.0, median 50.0" in page_text(at)
    at.button(key="class_reveal_btn").click()
    run(at)
    ds = nbcore.load_dataset("toy_spam")
    y = np.asarray(ds.y)
    y_obs, _ = nbcore.hide_labels(y, fraction=0.5, random_state=0)
    r = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled", max_iter=100, tol=1e-6,
                  random_state=0).start(ds.for_model("bernoulli"), np.asarray(y_obs))
    r.run_to_convergence()
    hidden = np.asarray(y_obs) < 0
    want = float((r.predict()[hidden] == y[hidden]).mean() * 100)
    assert answers.public_tally(cls["cid"], qid)["right"] == pytest.approx(want)
    assert f"Right answer: {want:.1f}%" in page_text(at)
    assert class_state(cls["cid"])["t"] == 0   # a question about convergence runs nothing


def test_pause_and_resume_travel_in_the_state():
    at, cls = teacher()
    at.button(key="class_pause_btn").click()
    run(at)
    assert class_state(cls["cid"]).get("paused") is True
    assert "Your class is paused" in page_text(at)
    at.button(key="class_pause_btn").click()
    run(at)
    assert "paused" not in class_state(cls["cid"])


def test_close_ends_the_question_and_closing_the_class_ends_both():
    from dashboard.class_link import answers
    at, cls = teacher()
    qid = ask(at, "alpha")["q"].qid
    at.button(key="class_qclose_btn").click()
    run(at)
    with pytest.raises(answers.QuestionClosed):
        answers.answer(cls["cid"], qid, token(), "up")
    ask(at, "acc")
    at.button(key="class_pause_btn").click()
    run(at)
    at.button(key="class_close_btn").click()
    run(at)
    assert at.session_state["class_question"] is None and at.session_state["class_paused"] is False


# ---- each message ----------------------------------------------------------------------------------------

def test_a_kind_that_cannot_be_asked_says_why():
    at, _ = teacher()   # toy_spam has three words: no "four words" question
    at.selectbox(key="class_q_kind").set_value("beta")
    run(at)
    assert "The data have fewer than 4 words." in page_text(at)
    assert at.button(key="class_ask_btn").disabled


def test_a_question_the_run_no_longer_allows_says_why(monkeypatch):
    from nblab import questions
    at, _ = teacher()
    at.selectbox(key="class_q_kind").set_value("alpha")
    run(at)
    monkeypatch.setattr(questions, "_check", lambda *a: (_ for _ in ()).throw(questions.NotAskable("EM has stopped.")))
    at.button(key="class_ask_btn").click()
    run(at)
    assert "This question cannot be asked now: EM has stopped." in page_text(at)


def test_a_store_that_fails_is_said_on_ask_count_reveal_and_close(monkeypatch):
    from dashboard.class_link import answers
    from dashboard.data.store import StoreUnavailable
    at, _ = teacher()

    def down(*a, **k):
        raise StoreUnavailable("The store did not answer in time.")
    real_ask = answers.ask
    monkeypatch.setattr(answers, "ask", down)
    at.selectbox(key="class_q_kind").set_value("alpha")
    run(at)
    at.button(key="class_ask_btn").click()
    run(at)
    assert "Could not ask the class: The store did not answer in time." in page_text(at)
    monkeypatch.setattr(answers, "ask", real_ask)
    at.button(key="class_ask_btn").click()
    run(at)
    monkeypatch.setattr(answers, "tally", down)
    monkeypatch.setattr(answers, "reveal", down)
    monkeypatch.setattr(answers, "close", down)
    run(at)
    assert "answers cannot be counted right now: The store did not answer in time." in page_text(at)
    at.button(key="class_reveal_btn").click()
    run(at)
    assert "Could not reveal the answer: The store did not answer in time." in page_text(at)
    at.button(key="class_qclose_btn").click()
    run(at)
    assert "Could not close the question: The store did not answer in time." in page_text(at)


def test_a_rebuilt_run_cannot_reveal_and_says_so():
    at, _ = teacher()
    at.button(key="step").click()
    run(at)
    ask(at, "alpha")
    at.button(key="reset").click()
    run(at)
    at.button(key="class_reveal_btn").click()
    run(at)
    assert "The run was rebuilt since the question was asked" in page_text(at)


def test_a_right_answer_that_cannot_be_computed_says_why(monkeypatch):
    from nblab import questions
    at, _ = teacher()
    ask(at, "alpha")
    monkeypatch.setattr(questions, "right_answer",
                        lambda *a: (_ for _ in ()).throw(questions.NotAskable("An E-step is pending.")))
    at.button(key="class_reveal_btn").click()
    run(at)
    assert "The right answer cannot be computed: An E-step is pending." in page_text(at)


def test_a_reveal_after_the_teacher_stepped_answers_about_the_iteration_asked():
    from dashboard.class_link import answers
    at, cls = teacher()
    qid = ask(at, "alpha")["q"].qid   # asked at t = 0
    at.button(key="step").click()
    run(at)
    at.button(key="step").click()
    run(at)
    before, after = oracle_alpha(0)
    want = "up" if after[0] > before[0] else "down"
    at.button(key="class_reveal_btn").click()
    run(at)
    assert answers.public_tally(cls["cid"], qid)["right"] == want
    assert class_state(cls["cid"])["t"] == 2   # the Step asked about was taken already: no other one runs


def _address(at: AppTest) -> dict:
    """The page's address as the browser keeps it (what a reload opens)."""
    return {k: at.query_params[k][-1] if isinstance(at.query_params[k], list) else at.query_params[k]
            for k in at.query_params}


def test_a_reload_keeps_the_open_question_and_the_pause_and_reveal_still_gives_nbcores_answer():
    from dashboard.class_link import answers
    at, cls = teacher()
    at.button(key="step").click()
    run(at)
    qid = ask(at, "alpha", class_q_class=0)["q"].qid
    at.button(key="class_pause_btn").click()
    run(at)
    answers.answer(cls["cid"], qid, token(), "down")
    url = _address(at)
    assert "teacher" in url and url.get("t") == "1"
    # F5: a new session on the same address takes the class back, with its question and its Pause
    again = AppTest.from_file(APP, default_timeout=90)
    for k, v in url.items():
        again.query_params[k] = v
    run(again)
    cur = again.session_state["class_question"]
    assert cur is not None and cur["q"].qid == qid and cur["phase"] == "open", page_text(again)[-1500:]
    assert "1 answered" in page_text(again) and "Your class is paused" in page_text(again)
    st = class_state(cls["cid"])
    assert st["question"] == {"id": qid, "phase": "open"} and st.get("paused") is True
    before, after = oracle_alpha(1)
    want = "up" if after[0] > before[0] else "down"
    again.button(key="class_reveal_btn").click()
    run(again)
    assert f"Right answer: {want}" in page_text(again)
    assert answers.public_tally(cls["cid"], qid)["right"] == want
    assert class_state(cls["cid"])["t"] == 2          # the Step predicted ran in the new session
    # the next question of the new session does not take the id of the one it took back
    again.button(key="class_qclose_btn").click()
    run(again)
    assert ask(again, "acc")["q"].qid == "q2-acc"


def test_a_reload_after_the_reveal_shows_the_right_answer_and_done():
    from dashboard.class_link import answers
    at, cls = teacher()
    qid = ask(at, "acc")["q"].qid
    at.button(key="class_reveal_btn").click()
    run(at)
    right = answers.public_tally(cls["cid"], qid)["right"]
    again = AppTest.from_file(APP, default_timeout=90)
    for k, v in _address(at).items():
        again.query_params[k] = v
    run(again)
    cur = again.session_state["class_question"]
    assert cur["phase"] == "revealed" and cur["right"] == right
    assert f"Right answer: {right:.1f}%" in page_text(again)
    assert not [b for b in again.sidebar.button if b.key == "class_reveal_btn" and not b.disabled]


def test_the_panel_speaks_the_pages_language():
    """With ?lang=de the panel's controls, its prompt, why a kind cannot be asked and the revealed number are
    German (the catalogue's texts, a few by name), and the number in the locale's spelling (decimal comma)."""
    from dashboard.class_link import answers
    from nblab import i18n
    at, cls = teacher(lang="de")
    assert "Die Klasse fragen" in [e.label for e in at.sidebar.expander]
    assert any(b.label == "Klasse anhalten" for b in at.sidebar.button)
    at.button(key="converge").click()
    run(at)
    at.selectbox(key="class_q_kind").set_value("alpha")
    run(at)
    assert i18n.gettext("de", "EM has stopped: there is no next Step to predict. Reset or change a setting "
                              "first.") in [c.value for c in at.sidebar.caption]
    assert any(b.key == "class_ask_btn" and b.label == "Fragen" and b.disabled for b in at.sidebar.button)
    qid = ask(at, "acc")["q"].qid
    assert i18n.gettext("de", "What will the accuracy on the hidden labels be at convergence (in %)?") in page_text(at)
    assert "Eine Zahl von 0 bis 100" in page_text(at)
    at.button(key="class_reveal_btn").click()
    run(at)
    right = answers.public_tally(cls["cid"], qid)["right"]
    shown = f"Richtige Antwort: {right:.1f}".replace(".", ",")
    assert shown in page_text(at), page_text(at)[-800:]
    assert {b.label for b in at.sidebar.button if b.key in ("class_reveal_btn", "class_show_btn", "class_qclose_btn")} \
        == {"Aufdecken", "Ausblenden", "Fertig"}
