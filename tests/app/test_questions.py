"""The lesson's questions (nblab/questions.py): each right answer checked against nbcore driven directly on
the same data, labels hidden and settings (an independent run, stepped or run to convergence here)."""
from __future__ import annotations

import numpy as np
import pytest

import nbcore
from nblab import questions as Q
from nblab.config import DataConfig
from nblab.lesson_run import LessonRun

CFG = DataConfig(dataset="synthetic_spam", model="bernoulli", hidden_pct=90, init="labeled", seed=0,
                 unlabeled_weight=1.0, max_iter=100, tol=1e-8)


def oracle(cfg: DataConfig = CFG, smoothing: float = 1.0):
    """The same run with nbcore alone, and the hidden rows' labels."""
    ds = nbcore.load_dataset(cfg.dataset)
    y = np.asarray(ds.y)
    y_obs, _ = nbcore.hide_labels(y, fraction=cfg.hidden_pct / 100, random_state=cfg.seed)
    run = nbcore.EM(model=cfg.model, n_classes=ds.n_classes, smoothing=smoothing, init=cfg.init,
                    unlabeled_weight=cfg.unlabeled_weight, max_iter=cfg.max_iter, tol=cfg.tol,
                    random_state=cfg.seed).start(ds.for_model(cfg.model), np.asarray(y_obs))
    return run, y, np.asarray(y_obs)


@pytest.fixture
def lr():
    lesson = LessonRun()
    assert lesson.sync(CFG, 1.0)
    lesson.step(2)
    return lesson


def test_alpha_direction_is_nbcores_next_step(lr):
    ref, _, _ = oracle()
    ref.step(); ref.step()
    before = ref.current.alpha.copy()
    ref.step()
    for k in range(2):
        q = Q.make("alpha", 1, lr.run, lr.prep, k=k)
        assert q.qid == f"q1-a{k}" and q.options == ("up", "down")
        want = "up" if ref.current.alpha[k] > before[k] else "down"
        assert Q.right_answer(q, lr.run, lr.prep) == want
    # α sums to 1 over two classes: one goes up, the other down
    assert {Q.right_answer(Q.make("alpha", 2, lr.run, lr.prep, k=k), lr.run, lr.prep) for k in range(2)} == {"up", "down"}
    assert lr.run.current.iteration == 2   # the teacher's run is untouched


def test_beta_word_is_the_one_nbcore_moves_most(lr):
    ref, _, _ = oracle()
    ref.step(); ref.step()
    b0 = np.asarray(ref.current.beta).copy()
    ref.step()
    move = np.abs(np.asarray(ref.current.beta) - b0).max(axis=1)
    q = Q.make("beta", 3, lr.run, lr.prep)
    assert len(q.options) == 4 == len(set(q.options)) and q.qid == "q3-b"
    assert [f"f{j}" for j in q.words] == list(q.options)
    words = [int(o[1:]) for o in q.options]
    assert Q.right_answer(q, lr.run, lr.prep) == f"f{max(words, key=lambda j: move[j])}"
    # the word the next Step moves most of all is among the four: the right answer is it
    assert Q.right_answer(q, lr.run, lr.prep) == f"f{int(move.argmax())}"


def test_doc_class_and_accuracy_are_nbcores_at_convergence(lr):
    ref, y, y_obs = oracle()
    ref.run_to_convergence()
    proba = ref.predict_proba()
    q = Q.make("doc", 4, lr.run, lr.prep)
    assert y_obs[q.doc] < 0 and q.qid == f"q4-d{q.doc}" and q.options == ("c0", "c1")
    assert Q.right_answer(q, lr.run, lr.prep) == f"c{int(proba[q.doc].argmax())}"
    q2 = Q.make("doc", 5, lr.run, lr.prep, doc=7)
    assert Q.right_answer(q2, lr.run, lr.prep) == f"c{int(proba[7].argmax())}"
    hidden = y_obs < 0
    want = float((proba.argmax(axis=1)[hidden] == y[hidden]).mean() * 100)
    a = Q.make("acc", 6, lr.run, lr.prep)
    assert (a.answers, a.lo, a.hi, a.qid) == ("number", 0.0, 100.0, "q6-acc")
    assert Q.right_answer(a, lr.run, lr.prep) == pytest.approx(want, abs=1e-9)
    assert lr.run.current.iteration == 2


def test_the_step_the_lesson_then_runs_agrees_with_the_answer(lr):
    q = Q.make("alpha", 7, lr.run, lr.prep, k=0)
    right = Q.right_answer(q, lr.run, lr.prep)
    before = float(lr.run.current.alpha[0])
    lr.step()
    assert right == ("up" if float(lr.run.current.alpha[0]) > before else "down")


def test_ids_say_what_they_ask():
    assert Q.parse_qid("q1-a0") == {"n": 1, "kind": "alpha", "k": 0}
    assert Q.parse_qid("q12-b") == {"n": 12, "kind": "beta"}
    assert Q.parse_qid("q3-d145") == {"n": 3, "kind": "doc", "doc": 145}
    assert Q.parse_qid("q4-acc") == {"n": 4, "kind": "acc"}
    for bad in ("", "q-a0", "q1-x", "q1-a0 ", "r1-b", None, "q1-acc2"):
        assert Q.parse_qid(bad) is None
    a = Q.Question("q1-acc", "acc", "number", lo=0.0, hi=100.0).ask_args()
    assert a == {"qid": "q1-acc", "kind": "number", "lo": 0.0, "hi": 100.0}


def test_what_cannot_be_asked_says_why(lr):
    with pytest.raises(Q.NotAskable, match="Unknown kind of question"):
        Q.make("nope", 1, lr.run, lr.prep)
    with pytest.raises(Q.NotAskable, match="n: a whole number"):
        Q.make("alpha", -1, lr.run, lr.prep)
    with pytest.raises(Q.NotAskable, match="There is no class 5"):
        Q.make("alpha", 1, lr.run, lr.prep, k=5)
    with pytest.raises(Q.NotAskable, match="There is no document"):
        Q.make("doc", 1, lr.run, lr.prep, doc=10**6)
    with pytest.raises(Q.NotAskable, match="Start a run first"):
        Q.make("alpha", 1, None, None)
    lr.run.e_step()
    with pytest.raises(Q.NotAskable, match="An E-step is pending"):
        Q.make("beta", 1, lr.run, lr.prep)
    assert Q.available(lr.run, lr.prep)["alpha"].startswith("An E-step is pending")
    lr.run.m_step()
    lr.converge()
    av = Q.available(lr.run, lr.prep)
    assert av["alpha"].startswith("EM has stopped") and av["doc"] is None and av["acc"] is None


def test_models_and_data_without_a_question_say_why():
    g = LessonRun()
    assert g.sync(DataConfig(dataset="play_tennis", model="categorical", hidden_pct=50, init="labeled", seed=0,
                             unlabeled_weight=1.0, max_iter=50, tol=1e-8), 1.0)
    assert Q.available(g.run, g.prep)["beta"].startswith("This event model has no β")
    prep = g.prep
    none_hidden = type(prep)(prep.ds, prep.X, prep.y_obs, prep.hidden, np.full_like(prep.y_eval, -1),
                             prep.n_classes, prep.class_names, prep.feature_names)
    assert Q.available(g.run, none_hidden)["acc"].startswith("No hidden label is known")
    many = type(prep)(prep.ds, prep.X, prep.y_obs, prep.hidden, prep.y_eval, 7, prep.class_names, prep.feature_names)
    assert Q.available(g.run, many)["doc"].startswith("A question offers at most 6 classes")


def test_a_document_is_named_by_its_number_and_text(lr):
    name = Q.doc_name(lr.prep, 3)
    assert name.startswith("#3")


def test_a_question_is_made_again_from_its_id_and_what_the_store_kept(lr):
    """A teacher's new session goes on with a question from its id and its stored options or range: the same
    question as the one asked, and the same right answer."""
    for kind, pick in (("alpha", {"k": 1}), ("beta", {}), ("doc", {"doc": 3}), ("acc", {})):
        q = Q.make(kind, 7, lr.run, lr.prep, **pick)
        args = q.ask_args()
        again = Q.from_spec(q.qid, args.get("options"), args.get("lo"), args.get("hi"))
        assert again == q, kind
        assert Q.right_answer(again, lr.run, lr.prep) == Q.right_answer(q, lr.run, lr.prep)


@pytest.mark.parametrize("qid, options, lo, hi", [
    ("nonsense", ["up", "down"], None, None),
    ("q1-a0", ["down", "up"], None, None),           # α's options are up, down
    ("q1-b", ["f1", "f2", "f3"], None, None),        # four words, not three
    ("q1-b", ["f1", "f2", "f3", "x4"], None, None),
    ("q1-d2", ["c1", "c0"], None, None),             # classes in their order
    ("q1-d2", [], None, None),
    ("q1-acc", None, "a", 100),
])
def test_an_id_and_a_spec_that_do_not_make_a_question_give_none(qid, options, lo, hi):
    assert Q.from_spec(qid, options, lo, hi) is None


def test_a_document_is_named_by_its_number_before_its_data_are_loaded():
    assert Q.doc_name(None, 4) == "#4"
