"""nbcore.coin: the coin of the lecture (MLE, MAP with a Beta prior, λ ⇔ Beta(λ+1, λ+1)) and two-coin EM
(Do & Batzoglou 2008), against hand calculations and the published numbers."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nbcore
from nbcore import coin


def test_mle_and_map_by_hand():
    assert coin.coin_mle(3, 1) == 0.75
    assert math.isnan(coin.coin_mle(0, 0))
    assert coin.coin_map(3, 1, 2, 2) == pytest.approx(4 / 6)        # (3 + 1) / (4 + 2)
    assert coin.coin_map(3, 1, 1, 1) == 0.75                         # flat prior: MAP = MLE
    assert coin.coin_map(0, 3, 1, 1) == 0.0 and coin.coin_map(3, 0, 1, 1) == 1.0   # mode on the edge
    assert math.isnan(coin.coin_map(0, 0, 1, 1))                     # flat posterior: no single mode
    assert coin.coin_map(0, 0, 0.5, 0.5) != coin.coin_map(0, 0, 0.5, 0.5)  # U-shaped, symmetric: NaN


@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0, 10.0])
def test_lambda_is_a_beta_prior_and_the_engine_agrees(lam):
    a, b = coin.smoothing_as_prior(lam)
    assert (a, b) == (lam + 1, lam + 1)
    flips = "HHTHTHHH"
    h, t = flips.count("H"), flips.count("T")
    X = np.array([[1.0 if f == "H" else 0.0] for f in flips])
    _, params = nbcore.supervised_fit("bernoulli", X, np.zeros(len(flips), dtype=int), 2, lam)
    assert params["beta"][0, 0] == pytest.approx((h + lam) / (h + t + 2 * lam))
    assert coin.coin_map(h, t, a, b) == pytest.approx((h + lam) / (h + t + 2 * lam))


def test_smoothing_as_prior_refuses_negative_lambda():
    with pytest.raises(ValueError, match="λ must be ≥ 0"):
        coin.smoothing_as_prior(-1)


def test_posterior_is_a_beta_density():
    grid = np.linspace(0, 1, 2001)
    pdf = coin.posterior_curve(3, 1, 2, 2, grid)
    assert np.trapezoid(np.nan_to_num(pdf), grid) == pytest.approx(1.0, abs=1e-4)
    assert grid[np.nanargmax(pdf)] == pytest.approx(4 / 6, abs=1e-3)


def test_parse_flips():
    assert coin.parse_flips("h t, H H") == "HTHH"
    with pytest.raises(ValueError, match="H and T only; found 'X'"):
        coin.parse_flips("HXT")


def test_two_coins_match_do_and_batzoglou():
    heads = [s.count("H") for s in coin.CLASSIC_FLIPS]
    n = [len(s) for s in coin.CLASSIC_FLIPS]
    assert heads == [5, 9, 8, 4, 7]
    path = coin.two_coin_em(heads, n, (0.6, 0.5), n_iter=10)
    np.testing.assert_allclose(path[1].resp[:, 0].round(2), [0.45, 0.80, 0.73, 0.35, 0.65])
    assert round(path[1].theta[0], 2) == 0.71 and round(path[1].theta[1], 2) == 0.58
    assert round(path[10].theta[0], 2) == 0.80 and round(path[10].theta[1], 2) == 0.52
    ll = [s.log_likelihood for s in path]
    assert np.all(np.diff(ll) >= -1e-12)                               # EM never goes down
    # the first E-step by hand for set 1 (5 heads, 5 tails)
    pa, pb = 0.6 ** 5 * 0.4 ** 5, 0.5 ** 10
    assert path[1].resp[0, 0] == pytest.approx(pa / (pa + pb))


def test_two_coins_with_pi_estimated_is_multinomial_nb_em():
    """Estimating π makes it exactly multinomial NB EM with two words, H and T (λ = 0)."""
    heads = np.array([5, 9, 8, 4, 7])
    n = np.full(5, 10)
    path = coin.two_coin_em(heads, n, (0.6, 0.5), estimate_pi=True, n_iter=3)
    # one EM iteration of multinomial NB by hand from θ = (0.6, 0.5), π = (½, ½)
    X = np.stack([heads, n - heads], axis=1).astype(float)
    beta = np.array([[0.6, 0.5], [0.4, 0.5]])
    joint = np.log([0.5, 0.5]) + X @ np.log(beta)
    r = np.exp(joint - joint.max(1, keepdims=True))
    r /= r.sum(1, keepdims=True)
    np.testing.assert_allclose(path[1].theta, (X.T @ r)[0] / (X.T @ r).sum(0))
    np.testing.assert_allclose(path[1].pi, r.mean(0))


def test_two_coins_bad_input_messages():
    with pytest.raises(ValueError, match="at least one set"):
        coin.two_coin_em([], [])
    with pytest.raises(ValueError, match="0 ≤ heads ≤ flips"):
        coin.two_coin_em([11], [10])
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        coin.two_coin_em([5], [10], theta0=(1.0, 0.5))
