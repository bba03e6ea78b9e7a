"""The generator recovers its own parameters (counts on 50k samples)."""

import numpy as np
import pytest

import nbcore

N = 50_000


def _alpha_hat(y, K):
    return np.bincount(y, minlength=K) / len(y)


def test_bernoulli_recovers_alpha_and_beta():
    alpha = np.array([0.3, 0.7])
    beta = np.array([[0.9, 0.1], [0.5, 0.5], [0.05, 0.6], [0.2, 0.8]])
    X, y = nbcore.sample("bernoulli", alpha, {"beta": beta}, N, random_state=1)
    assert X.shape == (N, 4) and y.shape == (N,)
    assert set(np.unique(X)) <= {0.0, 1.0}
    assert np.abs(_alpha_hat(y, 2) - alpha).max() < 0.01
    beta_hat = np.column_stack([X[y == k].mean(axis=0) for k in range(2)])
    assert np.abs(beta_hat - beta).max() < 0.02


def test_multinomial_recovers_word_distribution_and_lengths():
    alpha = np.array([0.5, 0.25, 0.25])
    beta = np.array([[0.7, 0.1, 0.2], [0.2, 0.1, 0.2], [0.1, 0.8, 0.6]])
    X, y = nbcore.sample("multinomial", alpha, {"beta": beta}, N, random_state=2, doc_length=10)
    lengths = X.sum(axis=1)
    assert lengths.min() >= 1
    assert abs(lengths.mean() - 10) < 0.1
    assert np.array_equal(X, np.round(X))
    assert np.abs(_alpha_hat(y, 3) - alpha).max() < 0.01
    beta_hat = np.column_stack([X[y == k].sum(axis=0) / X[y == k].sum() for k in range(3)])
    assert np.abs(beta_hat - beta).max() < 0.02


def test_categorical_recovers_theta():
    alpha = np.array([0.4, 0.6])
    theta = [np.array([[0.6, 0.1], [0.3, 0.3], [0.1, 0.6]]), np.array([[0.2, 0.9], [0.8, 0.1]])]
    X, y = nbcore.sample("categorical", alpha, {"theta": theta}, N, random_state=3)
    assert X.dtype.kind == "i" and X[:, 0].max() == 2 and X[:, 1].max() == 1
    assert np.abs(_alpha_hat(y, 2) - alpha).max() < 0.01
    for j, t in enumerate(theta):
        for k in range(2):
            freq = np.bincount(X[y == k, j], minlength=t.shape[0]) / np.sum(y == k)
            assert np.abs(freq - t[:, k]).max() < 0.02


def test_gaussian_recovers_mean_and_var():
    alpha = np.array([0.5, 0.5])
    mean = np.array([[0.0, 3.0], [-2.0, 1.0]])
    var = np.array([[1.0, 4.0], [0.25, 2.0]])
    X, y = nbcore.sample("gaussian", alpha, {"mean": mean, "var": var}, N, random_state=4)
    for k in range(2):
        # tolerance: 5 standard errors of the mean (sd <= 2, ~25k rows) and 5% of var
        assert np.abs(X[y == k].mean(axis=0) - mean[:, k]).max() < 0.06
        assert np.all(np.abs(X[y == k].var(axis=0) / var[:, k] - 1) < 0.05)


def test_same_seed_same_draw_and_generator_accepted():
    beta = np.array([[0.2, 0.7]])
    a = nbcore.sample("bernoulli", [0.5, 0.5], {"beta": beta}, 100, random_state=7)
    b = nbcore.sample("bernoulli", [0.5, 0.5], {"beta": beta}, 100, random_state=7)
    c = nbcore.sample("bernoulli", [0.5, 0.5], {"beta": beta}, 100,
                      random_state=np.random.default_rng(7))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert np.array_equal(a[0], c[0])


@pytest.mark.parametrize("model,alpha,params,match", [
    ("poisson", [1.0], {}, "Unknown model"),
    ("bernoulli", [0.5, 0.6], {"beta": np.full((2, 2), 0.5)}, "sum to 1"),
    ("bernoulli", [0.5, 0.5], {"beta": np.full((2, 3), 0.5)}, "shape"),
    ("bernoulli", [0.5, 0.5], {}, "needs params"),
    ("multinomial", [0.5, 0.5], {"beta": np.full((3, 2), 0.5)}, "sum to 1"),
    ("gaussian", [0.5, 0.5], {"mean": np.zeros((2, 2)), "var": np.zeros((2, 2))}, "positive"),
])
def test_bad_parameters_are_explained(model, alpha, params, match):
    with pytest.raises(ValueError, match=match):
        nbcore.sample(model, alpha, params, 10, random_state=0)
