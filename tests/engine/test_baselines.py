"""nbcore.baselines: majority class, supervised NB at λ, and λ chosen by leave-one-out on the labelled rows.

The closed-form leave-one-out (a row's own counts subtracted from the full fit) is checked against a
refit per row (nbcore) and against scikit-learn's BernoulliNB / MultinomialNB refitted per row; the chosen
λ must not depend on any hidden label.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

import nbcore
from nbcore import baselines as B
from nbcore.equations import log_joint, supervised_fit
from nbcore.models import get_model


def _data(model: str, n=80, v=30, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    y[:3] = [0, 1, 2]
    p = rng.uniform(0.05, 0.5, (3, v))
    X = (rng.random((n, v)) < p[y]).astype(float)
    if model == "multinomial":
        X = X * rng.integers(1, 4, X.shape)
    return (sp.csr_matrix(X) if sparse else X), y


def _brute_loo(model, X, y_obs, K, lam):
    """Refit supervised NB without each labelled row and score that row (nbcore's own fit)."""
    m = get_model(model)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in np.flatnonzero(y_obs >= 0):
            yy = y_obs.copy()
            yy[i] = -1
            alpha, params = supervised_fit(model, X, yy, K, lam)
            out.append(log_joint(m.log_likelihood(m.prepare(X[[i]], params), params), alpha)[0])
    return np.array(out)


@pytest.mark.parametrize("model", ["bernoulli", "multinomial"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("lam", [0.001, 0.1, 1.0, 10.0])
def test_closed_form_leave_one_out_equals_a_refit_per_row(model, sparse, lam):
    X, y = _data(model, sparse=sparse)
    y_obs = y.copy()
    y_obs[40:] = -1       # half hidden
    y_obs[3] = 1          # class 1 and 2 have few rows; a class with one row loses α when it is held out
    got = B.loo_log_joint(model, X, y_obs, 3, lam)
    want = _brute_loo(model, X, y_obs, 3, lam)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_a_class_with_one_labelled_row_is_impossible_for_that_row_when_it_is_held_out():
    X, y = _data("bernoulli")
    y_obs = np.full_like(y, -1)
    y_obs[:12] = y[:12]
    y_obs[2] = 2
    y_obs[y_obs == 2] = -1
    y_obs[2] = 2  # exactly one labelled row of class 2
    joint = B.loo_log_joint("bernoulli", X, y_obs, 3, 1.0)
    row = list(np.flatnonzero(y_obs >= 0)).index(2)
    assert joint[row, 2] == -np.inf and np.isfinite(joint[row, :2]).all()
    np.testing.assert_allclose(joint, _brute_loo("bernoulli", X, y_obs, 3, 1.0), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("model", ["bernoulli", "multinomial"])
def test_leave_one_out_predictions_are_scikit_learns(model):
    X, y = _data(model, n=60, seed=3)
    lam = 0.3
    nb = (BernoulliNB(alpha=lam, binarize=None, force_alpha=True) if model == "bernoulli"
          else MultinomialNB(alpha=lam, force_alpha=True))
    want = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        want.append(nb.fit(X[keep], y[keep]).predict_joint_log_proba(X[[i]])[0])
    got = B.loo_log_joint(model, X, y, 3, lam)
    np.testing.assert_allclose(got, np.array(want), rtol=1e-9, atol=1e-9)
    acc = B.loo_scores(model, X, y, 3, (lam,)).accuracy[0]
    assert acc == np.mean(np.argmax(want, axis=1) == y)


@pytest.mark.parametrize("model", ["categorical", "gaussian"])
def test_other_models_are_refitted_per_row(model):
    rng = np.random.default_rng(1)
    y = np.r_[np.zeros(15, int), np.ones(15, int)]
    X = (rng.integers(0, 3, (30, 4)) + y[:, None]).astype(float) if model == "categorical" else \
        rng.normal(y[:, None] * 1.5, 1.0, (30, 4))
    opts = get_model(model).suggested_options(X) if model == "gaussian" else {}
    got = B.loo_log_joint(model, X, y, 2, 0.5, **opts)
    m = get_model(model, **opts)
    for i in (0, 17, 29):
        keep = np.arange(30) != i
        alpha, params = supervised_fit(model, X[keep], y[keep], 2, 0.5, **opts)
        want = log_joint(m.log_likelihood(m.prepare(X[[i]], params), params), alpha)[0]
        np.testing.assert_allclose(got[i], want, rtol=1e-9)


def test_changing_hidden_labels_cannot_change_the_chosen_lambda():
    ds = nbcore.load_dataset("sms_spam")
    X, y = ds.for_model("bernoulli"), np.asarray(ds.y)
    y_obs, hidden = nbcore.hide_labels(y, fraction=0.97, random_state=0)
    y_obs = np.asarray(y_obs)
    res = B.loo_scores("bernoulli", X, y_obs, 2)
    rng = np.random.default_rng(0)
    for _ in range(3):  # the hidden rows' true labels scrambled: only the scores on them move
        y_eval = y.copy()
        y_eval[hidden] = rng.integers(0, 2, hidden.sum())
        b = B.baselines("bernoulli", X, y_obs, y_eval, 2, (1.0,))
        assert b.cv_lambda == res.best
        assert B.loo_scores("bernoulli", X, y_obs, 2).accuracy.tolist() == res.accuracy.tolist()
    # and the hidden rows' *features* are not read either
    X2 = X.tolil(copy=True)
    X2[np.flatnonzero(hidden)[:200]] = 0
    assert B.choose_smoothing("bernoulli", X2.tocsr(), y_obs, 2) == res.best


def test_majority_and_supervised_baselines_score_the_hidden_rows_only():
    y = np.array([0, 0, 1, 1, 1, 0, 1, 0])
    y_obs = np.array([0, 0, 1, -1, -1, -1, -1, -1])
    assert B.majority_class(y_obs, 2) == 0
    assert B.majority_accuracy(y_obs, y, 2) == pytest.approx(2 / 5)
    assert B.majority_class(np.full(4, -1), 2) is None and B.majority_accuracy(np.full(8, -1), y, 2) is None
    X, yy = _data("bernoulli", seed=5)
    yo = yy.copy()
    yo[30:] = -1
    alpha, params = supervised_fit("bernoulli", X, yo, 3, 0.1)
    pred = nbcore.predict_proba("bernoulli", alpha, params, X).argmax(axis=1)
    assert B.supervised_accuracy("bernoulli", X, yo, yy, 3, 0.1) == pytest.approx(np.mean(pred[30:] == yy[30:]))


def test_baselines_name_the_best_and_the_chooser_prefers_accuracy_then_log_score():
    ds = nbcore.load_dataset("sms_spam")
    X, y = ds.for_model("bernoulli"), np.asarray(ds.y)
    y_obs = np.asarray(nbcore.hide_labels(y, fraction=0.97, random_state=0)[0])
    res = B.loo_scores("bernoulli", X, y_obs, 2)
    top = res.accuracy.max()
    tied = [i for i, a in enumerate(res.accuracy) if a == top]
    assert res.best == res.lambdas[max(tied, key=lambda i: (res.log_score[i], res.lambdas[i]))]
    assert res.method == "leave-one-out" and res.n_labelled == int((y_obs >= 0).sum())
    b = B.baselines("bernoulli", X, y_obs, y, 2, (1.0,))
    name, acc = b.best(1.0)
    assert acc == max(b.majority, b.at_lambda[1.0], b.cv) and "chosen by leave-one-out" in name


def test_cross_validation_refuses_lambda_zero_and_a_single_label():
    X, y = _data("bernoulli")
    with pytest.raises(ValueError, match="λ > 0"):
        B.loo_log_joint("bernoulli", X, y, 3, 0.0)
    y_obs = np.full_like(y, -1)
    y_obs[0] = 0
    with pytest.raises(ValueError, match="at least two labelled rows"):
        B.loo_log_joint("bernoulli", X, y_obs, 3, 1.0)
