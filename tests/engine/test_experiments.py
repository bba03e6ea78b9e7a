"""Explanations, sweeps, restarts and label budgets (numbers checked independently)."""

import numpy as np
import pytest

import nbcore

TOY_X = np.array([[1, 1, 1], [1, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], float)
TOY_Y = np.array([1, 1, 1, 0, 0, 0])


def test_explain_bernoulli_counts_absent_words():
    alpha, params = nbcore.supervised_fit("bernoulli", TOY_X, TOY_Y, 2, 0.0)
    e = nbcore.explain("bernoulli", alpha, params, np.array([1, 1, 0]))
    # the course session: spam ∝ 2/3 · 2/3 · (1 − 2/3) · 1/2 ; the absent "Win" contributes log(1/3) vs log(2/3)
    np.testing.assert_allclose(e.contributions[2], [np.log(2 / 3), np.log(1 / 3)])
    np.testing.assert_allclose(np.exp(e.log_joint), [1 / 27, 2 / 27])
    np.testing.assert_allclose(e.posterior, [1 / 3, 2 / 3])
    odds = e.log_odds(1, 0)
    assert odds.sum() + e.log_prior[1] - e.log_prior[0] == pytest.approx(np.log(2))
    assert e.present.tolist() == [True, True, False]


def test_explain_multinomial_ignores_absent_words():
    X = np.array([[2, 0, 1], [0, 3, 1], [1, 0, 0], [0, 1, 2]], float)
    y = np.array([0, 1, 0, 1])
    alpha, params = nbcore.supervised_fit("multinomial", X, y, 2, 1.0)
    e = nbcore.explain("multinomial", alpha, params, np.array([2, 0, 1]))
    assert np.all(e.contributions[1] == 0)
    np.testing.assert_allclose(e.contributions[0], 2 * np.log(params["beta"][0]))
    np.testing.assert_allclose(e.posterior, nbcore.predict_proba("multinomial", alpha, params, X[:1])[0])


def test_explain_gaussian_and_categorical_match_predict_proba():
    rng = np.random.default_rng(0)
    Xg = rng.normal(size=(20, 3)); y = rng.integers(0, 2, 20)
    a, p = nbcore.supervised_fit("gaussian", Xg, y, 2)
    np.testing.assert_allclose(nbcore.explain("gaussian", a, p, Xg[3]).posterior, nbcore.predict_proba("gaussian", a, p, Xg[3:4])[0])
    Xc = rng.integers(0, 3, (20, 4)).astype(float)
    a, p = nbcore.supervised_fit("categorical", Xc, y, 2, 1.0)
    np.testing.assert_allclose(nbcore.explain("categorical", a, p, Xc[5]).posterior, nbcore.predict_proba("categorical", a, p, Xc[5:6])[0])


def test_smoothing_sweep_pulls_beta_to_half_and_lambda0_gives_zeros():
    y_obs = np.array([1, 1, -1, 0, 0, -1])
    out = nbcore.smoothing_sweep("bernoulli", TOY_X, y_obs, 2, [0.0, 1.0, 1e6], y_true=TOY_Y, hidden=y_obs < 0)
    assert [o["smoothing"] for o in out] == [0.0, 1.0, 1e6]
    # λ = 0, labelled spam rows 0, 1 = (1,1,1), (1,0,1): Cruise and Win in both → β = 1 (absence
    # impossible), Lottery 1/2; ham rows 3, 4 = (0,0,1), (1,0,0): Lottery never seen → β = 0
    b0 = out[0]["beta_supervised"]["beta"]
    np.testing.assert_allclose(b0[:, 1], [1.0, 0.5, 1.0])
    np.testing.assert_allclose(b0[:, 0], [0.5, 0.0, 0.5])
    np.testing.assert_allclose(out[2]["beta_supervised"]["beta"], 0.5, atol=1e-5)
    for o in out:
        assert o["acc_supervised"] is None or 0 <= o["acc_supervised"] <= 1


def test_restarts_report_each_start():
    X = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 0, 0], [1, 1, 0, 0]], float)
    truth = np.array([0, 1, 1, 0, 0])
    calls = []
    out = nbcore.restarts("bernoulli", X, np.full(5, -1), 2, 4, y_true=truth, hidden=np.ones(5, bool),
                          callback=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert [o["seed"] for o in out] == [0, 1, 2, 3]
    for o in out:
        assert o["acc_aligned"] == 1.0 and o["acc_aligned"] >= o["acc"]
        assert o["objective"] == o["run"].current.objective


def test_label_budget_curve_shape_and_stratification():
    ds = nbcore.load_dataset("synthetic_spam")
    out = nbcore.label_budget_curve("bernoulli", ds.X, ds.y, [4, 40], seeds=[0, 1], n_classes=2, max_iter=20)
    assert [(o["n_labelled"], o["seed"]) for o in out] == [(4, 0), (4, 1), (40, 0), (40, 1)]
    for o in out:
        assert 0.0 <= o["acc_supervised"] <= 1.0 and 0.0 <= o["acc_em"] <= 1.0
    with pytest.raises(ValueError, match="between 1 and"):
        nbcore.label_budget_curve("bernoulli", ds.X, ds.y, [0], seeds=[0], n_classes=2)
