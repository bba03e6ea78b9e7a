"""The "Event models side by side" page (dashboard/views/event_models.py) and its chart helpers
(dashboard/event_model_charts.py): the supervised baselines and the EM runs against scikit-learn
and nbcore computed here from the raw text, and one document's log-likelihood split by part."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB, MultinomialNB
from streamlit.testing.v1 import AppTest

import nbcore
from dashboard.charts import event_models as event_models_charts
from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")


def open_page(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page("views/event_models.py")
    at.run()
    assert not at.exception, at.exception
    return at


def metrics(at: AppTest, label: str) -> list[str]:
    return [m.value for m in at.metric if m.label == label]


@pytest.fixture(scope="module")
def sms():
    """sms_spam's words counted by scikit-learn directly (the shipped settings: words of letters and
    digits, lower-cased, in at least 2 messages), and its labels hidden as every page hides them."""
    ds = nbcore.load_dataset("sms_spam")
    vec = CountVectorizer(token_pattern=r"(?u)\b\w+\b", min_df=2, lowercase=True)
    Xc = vec.fit_transform(list(ds.texts)).astype(np.float64).tocsr()
    y = np.asarray(ds.y)
    return ds, Xc, y


def hidden_labels(y, hidden_pct, seed=0):
    y_obs, _ = nbcore.hide_labels(y, fraction=hidden_pct / 100.0, random_state=seed)
    return np.asarray(y_obs)


def test_supervised_baselines_and_em_runs_match_sklearn_and_nbcore(sms):
    ds, Xc, y = sms
    at = open_page(evm_hidden="95")
    y_obs = hidden_labels(y, 95)
    lab, hid = y_obs >= 0, y_obs < 0
    Xb = (Xc > 0).astype(np.float64)
    expected = {}
    for name, clf, X in (("bernoulli", BernoulliNB(alpha=1.0), Xb), ("multinomial", MultinomialNB(alpha=1.0), Xc)):
        clf.fit(X[lab], y[lab])
        expected[name] = float(np.mean(clf.predict(X[hid]) == y[hid]))
    # the two "Supervised only" metrics: Bernoulli column first, then the multinomial's
    assert metrics(at, "Supervised only") == [f"{expected['bernoulli']:.1%}", f"{expected['multinomial']:.1%}"]
    assert expected["multinomial"] > expected["bernoulli"] + 0.05  # the lesson: counts win at 95 % hidden

    runs = at.session_state["evm"].runs
    assert set(runs) == {"bernoulli", "multinomial"}
    np.testing.assert_array_equal(runs["bernoulli"].y, runs["multinomial"].y)
    np.testing.assert_array_equal(runs["bernoulli"].y, y_obs)
    assert runs["bernoulli"].smoothing == runs["multinomial"].smoothing == 1.0

    assert not at.button(key="evm_step").click().run().exception
    assert metrics(at, "Iteration") == ["1", "1"]
    assert not at.button(key="evm_conv").click().run().exception
    runs, acc = at.session_state["evm"].runs, at.session_state["evm"].acc
    assert all(r.done for r in runs.values())
    # the same EM, run here on scikit-learn's matrices: the same accuracy at every iteration
    for name, X in (("bernoulli", Xb), ("multinomial", Xc)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = nbcore.EM(model=name, n_classes=2, smoothing=1.0, init="labeled", max_iter=200,
                            random_state=0).start(X, y_obs)
            run.run_to_convergence()
        mine = [float(np.mean(run.predict(t=t)[hid] == y[hid])) for t in range(len(run.history))]
        assert acc[name] == pytest.approx(mine, abs=1e-12)
        assert acc[name][0] == pytest.approx(expected[name], abs=1e-12)  # t = 0 is the supervised fit
    # at 95 % hidden, Bernoulli EM calls every message ham; multinomial EM gains on its baseline
    assert acc["multinomial"][-1] > expected["multinomial"]
    assert acc["bernoulli"][-1] < acc["multinomial"][-1] - 0.05
    assert len(at.get("plotly_chart")) == 2


def test_document_parts_add_up_to_each_models_log_likelihood(sms):
    ds, Xc, y = sms
    rng = np.random.default_rng(0)
    V, K = Xc.shape[1], 2
    beta_b = rng.uniform(0.01, 0.99, size=(V, K))
    raw = rng.uniform(0.01, 1.0, size=(V, K))
    beta_m = raw / raw.sum(axis=0)
    Xb = (Xc > 0).astype(np.float64)
    for i in (0, 2, 11):
        x = Xc[i].toarray().ravel()
        parts = event_models_charts.likelihood_parts(x, np.log(beta_b), np.log1p(-beta_b), np.log(beta_m))
        b = parts["bernoulli"]["words present"] + parts["bernoulli"]["words absent"]
        m = parts["multinomial"]["first occurrences"] + parts["multinomial"]["repeats (counts > 1)"]
        np.testing.assert_allclose(b, nbcore.get_model("bernoulli").log_likelihood(Xb[i], {"beta": beta_b})[0])
        np.testing.assert_allclose(m, nbcore.get_model("multinomial").log_likelihood(Xc[i], {"beta": beta_m})[0])
        # the same split as the engine's own (what the lesson's documents table shows)
        present, absent = nbcore.get_model("bernoulli").log_likelihood_by_presence(Xb[i], {"beta": beta_b})
        np.testing.assert_allclose(parts["bernoulli"]["words present"], present[0])
        np.testing.assert_allclose(parts["bernoulli"]["words absent"], absent[0])
        table = event_models_charts.parts_table(parts, ["ham", "spam"])
        share = table["absent share"].to_numpy()
        np.testing.assert_allclose(share, np.abs(absent[0]) / (np.abs(absent[0]) + np.abs(present[0])))
        assert ((share > 0) & (share < 1)).all()


def test_page_shows_the_chosen_documents_split_and_finds_disagreements(sms):
    ds, Xc, y = sms
    at = open_page(evm_hidden="95")
    at.button(key="evm_conv").click().run()
    doc = at.number_input(key="evm_doc").value
    y_obs = hidden_labels(y, 95)
    assert y_obs[doc] < 0 and y[doc] == 1  # the first hidden document of the smallest class (spam)
    # the parts table, drawn as tables that fit the page (figures.show_table), each led by its class column
    parts = [d.value for d in at.dataframe if "class" in d.value.columns
             and any(c.startswith(("Bernoulli", "multinomial")) or c.endswith("share") for c in d.value.columns)]
    table = pd.concat([f.set_index("class") for f in parts], axis=1).reset_index()
    beta_b = np.asarray(at.session_state["evm"].runs["bernoulli"].current.params["beta"])
    present, absent = nbcore.get_model("bernoulli").log_likelihood_by_presence((Xc[doc] > 0).astype(float),
                                                                               {"beta": beta_b})
    np.testing.assert_allclose(table["Bernoulli: absent"], absent[0])
    np.testing.assert_allclose(table["Bernoulli: present"], present[0])
    # few spam labels and λ = 1 pull spam's β up for every word: the words a message lacks make up
    # most of its Bernoulli log-likelihood under spam, far more than under ham
    share = table["absent share"].to_numpy()
    assert share[1] > 0.5 and share[1] > 3 * share[0]
    at.button(key="evm_differ").click().run()
    assert not at.exception
    new = at.number_input(key="evm_doc").value
    runs = at.session_state["evm"].runs
    assert runs["bernoulli"].predict()[new] != runs["multinomial"].predict()[new]
    assert y_obs[new] < 0


def test_top_words_rank_class_specific_words():
    beta = np.array([[0.5, 0.5], [0.4, 0.01], [0.02, 0.3], [0.9, 0.9]])
    df = event_models_charts.top_words(beta, ["the", "meeting", "free", "a"], ["ham", "spam"], n=2)
    assert df["ham"].tolist()[0] == "meeting" and df["spam"].tolist()[0] == "free"
    assert df["β(spam)"].tolist()[0] == pytest.approx(0.3)


def test_vocabulary_filter_on_the_page_and_classroom_mode():
    at = open_page(evm_vocab="300", classroom="true")
    runs = at.session_state["evm"].runs
    assert runs["bernoulli"].current.params["beta"].shape == (300, 2)
    assert not at.button(key="evm_step").click().run().exception
    assert metrics(at, "Iteration") == ["1", "1"]


def test_settings_come_from_the_url_and_a_new_setting_restarts_both():
    at = open_page(evm_hidden="97", evm_lam="0.1", evm_seed="3")
    runs = at.session_state["evm"].runs
    assert runs["multinomial"].smoothing == 0.1
    np.testing.assert_array_equal(runs["bernoulli"].y, hidden_labels(np.asarray(nbcore.load_dataset("sms_spam").y),
                                                                     97, seed=3))
    at.button(key="evm_step").click().run()
    at.select_slider(key="evm_lam").set_value(1.0).run()
    runs = at.session_state["evm"].runs
    assert runs["bernoulli"].iteration == runs["multinomial"].iteration == 0


# ---- the label-budget page's model choice ----------------------------------------------------

def test_label_budget_both_models_on_text(sms):
    ds, Xc, y = sms
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    for k, v in {"lb_dataset": "sms_spam", "lb_model": "both", "lb_seeds": "1", "lb_uw": "0.5"}.items():
        at.query_params[k] = v
    at.switch_page("views/budget.py")
    at.run()
    assert not at.exception, at.exception
    assert at.radio(key="lb_model").value == "both"
    at.select_slider(key="lb_range").set_value((8, 64)).run()
    at.button(key="lb_go").click().run()
    assert not at.exception, at.exception
    rows = at.session_state["lb"].value
    assert {(r["model"], r["n_labelled"]) for r in rows} == {(m, n) for m in ("bernoulli", "multinomial")
                                                             for n in (8, 16, 32, 64)}
    # the same curve computed here on scikit-learn's matrices: word counts for the multinomial,
    # their presence for Bernoulli, unlabelled weight 0.5
    Xb = (Xc > 0).astype(np.float64)
    for name, X in (("bernoulli", Xb), ("multinomial", Xc)):
        mine = nbcore.label_budget_curve(name, X, y, [8, 16, 32, 64], [0], 2, smoothing=1.0,
                                         unlabeled_weight=0.5, max_iter=50)
        page = sorted((r for r in rows if r["model"] == name), key=lambda r: r["n_labelled"])
        assert [r["acc_supervised"] for r in page] == pytest.approx([r["acc_supervised"] for r in mine], abs=1e-12)
        assert [r["acc_em"] for r in page] == pytest.approx([r["acc_em"] for r in mine], abs=1e-12)
    # one supervised point against scikit-learn, on the subset label_budget_curve labels (one per class
    # first, then the rest of a seeded permutation)
    order = np.random.default_rng(0).permutation(len(y))
    first = [order[y[order] == k][0] for k in range(2)]
    chosen = first + [i for i in order if i not in set(first)][:16 - 2]
    lab = np.zeros(len(y), dtype=bool)
    lab[chosen] = True
    clf = MultinomialNB(alpha=1.0).fit(Xc[lab], y[lab])
    page16 = next(r for r in rows if r["model"] == "multinomial" and r["n_labelled"] == 16)
    assert page16["acc_supervised"] == pytest.approx(float(np.mean(clf.predict(Xc[~lab]) == y[~lab])), abs=1e-12)
    assert len(at.get("plotly_chart")) == 1
    assert [m.label for m in at.metric] == ["Bernoulli EM with 8 labels", "Multinomial EM with 8 labels"]
    # one model at a time still draws the one-model chart
    at.radio(key="lb_model").set_value("multinomial").run()
    at.button(key="lb_go").click().run()
    assert not at.exception, at.exception
    rows = at.session_state["lb"].value
    assert {r["model"] for r in rows} == {"multinomial"} and len(rows) == 4
    assert "The multinomial reads the words' counts." in " ".join(c.value for c in at.caption)
