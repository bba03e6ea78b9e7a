"""The maths panel's "Feature j" picker on a long vocabulary (a rerun no longer ships
every word of sms_spam / udhr_langid). It offers the 15 features whose β differs most between
the classes at the iteration on screen, then the words of the picked document; a word picked
before stays pickable, and the M-step line shows the engine's β for the word picked.
Expectations are derived here from the run's raw parameters and the document's row of X."""
from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

from dashboard.lesson.panels import maths
from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")


def test_feature_choices_top_rows_then_the_document_by_count():
    doc = np.array([0.0, 1.0, 0.0, 3.0, 1.0, 2.0])
    # top rows 5 and 0; the document's features by count: 3 (3), 5 (2, already listed), 1 and 4 (1 each)
    assert maths.feature_choices(np.array([5, 0]), doc) == [5, 0, 3, 1, 4]
    assert maths.feature_choices(np.array([], dtype=int), np.zeros(4)) == []


def _app():
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["dataset"] = "sms_spam"
    # λ = 1 and 90 % hidden: no two words of the top 15 tie on their spread (with λ = 0.01, words seen in one
    # class only tie, and the order among equals is the chart's own choice)
    at.query_params["lam"] = "1"
    at.query_params["hidden"] = "90"
    at.query_params["player"] = "off"
    at.run()
    for _ in range(2):
        at.button(key="step").click().run()
    assert not at.exception, at.exception
    return at


def _expected(at, doc: int) -> tuple[list[str], set[str]]:
    run, prep = at.session_state["lesson"].run, at.session_state["lesson"].prep
    beta = np.asarray(run.history[-1].params["beta"], dtype=float)  # (V, K), t = latest
    logb = np.log(np.clip(beta, 1e-12, None))
    spread = logb.max(axis=1) - logb.min(axis=1)
    top = [str(prep.feature_names[j]) for j in np.argsort(-spread, kind="stable")[:15]]
    row = prep.X[doc]
    row = np.asarray(row.toarray() if hasattr(row, "toarray") else row).ravel()
    words = {str(prep.feature_names[j]) for j in np.flatnonzero(row)}
    return top, words


def test_the_picker_offers_the_top_separating_words_then_the_documents_words():
    at = _app()
    prep = at.session_state["lesson"].prep
    V = len(prep.feature_names)
    assert V > 1000
    sb = at.selectbox(key="word")
    doc = int(at.number_input(key="doc").value)
    top, words = _expected(at, doc)
    opts = list(sb.options)
    names = [str(w) for w in prep.feature_names]
    assert opts[:15] == top
    assert set(opts) <= set(top) | words | {names[int(sb.value)]} and set(top) | words <= set(opts)
    assert len(opts) < 200 < V
    picked = names[int(sb.value)]  # the default: the top separating word when the panel first showed

    # another document: its words are offered; pick one of them that is not a top word
    other = next(i for i in range(50) if i != doc and _expected(at, i)[1] - set(top))
    at.number_input(key="doc").set_value(other).run()
    assert not at.exception, at.exception
    top2, words2 = _expected(at, other)
    assert set(at.selectbox(key="word").options) == set(top2) | words2 | {picked}  # the pick stays offered
    word = sorted(words2 - set(top2) - {picked})[0]
    j = names.index(word)
    at.selectbox(key="word").set_value(j).run()
    assert not at.exception, at.exception
    beta = np.asarray(at.session_state["lesson"].run.history[-1].params["beta"], dtype=float)
    latex = " ".join(l.value for l in at.latex)
    assert "\\text{" + word in latex  # the M-step line of the word picked (short ASCII words need no escaping)
    for k in range(beta.shape[1]):
        assert f"= {beta[j, k]:.3f}" in latex

    # back to the first document: the word picked is still offered and still picked
    at.number_input(key="doc").set_value(doc).run()
    assert not at.exception, at.exception
    assert word in at.selectbox(key="word").options and at.selectbox(key="word").value == j
