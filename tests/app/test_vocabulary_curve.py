"""The "Vocabulary curve" page (dashboard/views/vocabulary.py): the supervised points against
scikit-learn's CountVectorizer(max_features=V) + BernoulliNB / MultinomialNB(alpha=λ), the EM points
against nbcore on the same matrices, and the cache."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB, MultinomialNB
from streamlit.testing.v1 import AppTest

import nbcore
from dashboard.charts import event_models as event_models_charts
from kit import ROOT
from nbcore.text import TextPipeline, vectorize

APP = str(ROOT / "dashboard" / "app.py")


def open_page(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page("views/vocabulary.py")
    at.run()
    assert not at.exception, at.exception
    return at


def test_vocabulary_columns_keep_the_most_frequent_words_like_the_text_pipeline():
    texts = list(nbcore.load_dataset("sms_spam").texts)
    full, _, _ = vectorize(texts, TextPipeline(binary=False, min_df=2))
    for v in (100, 1000):
        capped, vec, _ = vectorize(texts, TextPipeline(binary=False, min_df=2), cap=v)
        cols = event_models_charts.vocabulary_columns(full, v)
        assert (full[:, cols] != capped).nnz == 0
    assert len(event_models_charts.vocabulary_columns(full, 10**6)) == full.shape[1]


def test_curve_matches_sklearn_and_nbcore_and_is_cached():
    at = open_page(voc_hidden="95")
    assert "Draw the curve" in " ".join(i.value for i in at.info)
    at.button(key="voc_go").click().run()
    assert not at.exception, at.exception
    key, rows = at.session_state["voc"].config, at.session_state["voc"].value
    ds = nbcore.load_dataset("sms_spam")
    texts, y = list(ds.texts), np.asarray(ds.y)
    y_obs = np.asarray(nbcore.hide_labels(y, fraction=0.95, random_state=0)[0])
    lab, hid = y_obs >= 0, y_obs < 0
    sizes = sorted({r["V"] for r in rows})
    assert sizes == [100, 300, 1000, 3000, 4250]  # capped by the vocabulary of words in ≥ 2 messages
    assert len(rows) == 2 * len(sizes)
    full = CountVectorizer(token_pattern=r"(?u)\b\w+\b", min_df=2)
    counts = np.asarray(full.fit_transform(texts).sum(axis=0)).ravel()
    terms = full.get_feature_names_out()
    for V in sizes:
        picked = set(CountVectorizer(token_pattern=r"(?u)\b\w+\b", min_df=2, max_features=V).fit(texts).vocabulary_)
        # the page keeps the V most frequent words, ties at the cut in alphabetical order; scikit-learn
        # breaks those ties in its own order: the two differ only in words counted as often as the V-th
        ours = set(terms[np.argsort(-counts, kind="stable")[:V]])
        cut = np.sort(counts)[::-1][V - 1] if V < len(terms) else 0
        assert all(counts[full.vocabulary_[w]] == cut for w in picked ^ ours), V
        vec = CountVectorizer(token_pattern=r"(?u)\b\w+\b", vocabulary=sorted(ours))
        Xc = vec.fit_transform(texts).astype(np.float64).tocsr()
        Xb = (Xc > 0).astype(np.float64)
        for name, clf, X in (("bernoulli", BernoulliNB(alpha=1.0), Xb), ("multinomial", MultinomialNB(alpha=1.0), Xc)):
            row = next(r for r in rows if r["V"] == V and r["model"] == name)
            clf.fit(X[lab], y[lab])
            assert row["acc_supervised"] == pytest.approx(float(np.mean(clf.predict(X[hid]) == y[hid])), abs=1e-12), \
                (V, name)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run = nbcore.EM(model=name, n_classes=2, smoothing=1.0, init="labeled", max_iter=100,
                                random_state=0).start(X, y_obs)
                run.run_to_convergence()
            assert row["acc_em"] == pytest.approx(float(np.mean(run.predict()[hid] == y[hid])), abs=1e-12), (V, name)
    by = {(r["V"], r["model"]): r for r in rows}
    # the lesson: at the full vocabulary the multinomial beats Bernoulli, with or without EM
    assert by[(4250, "multinomial")]["acc_em"] > by[(4250, "bernoulli")]["acc_em"] + 0.05
    assert len(at.get("plotly_chart")) == 1

    # shipped data: the result is in the cross-session cache under the page's key, and a new
    # session's press reads it from there (no progress bar)
    from dashboard.pagekit import page_kit
    assert page_kit._store("vocabulary", key) == rows
    again = open_page(voc_hidden="95")
    again.button(key="voc_go").click().run()
    assert again.session_state["voc"].value == rows
    assert not again.get("progress")

    at.slider(key="voc_hidden").set_value(90).run()
    assert "settings changed" in " ".join(i.value for i in at.info)
