"""The maths panel's helpers (dashboard/lesson/panels/maths.py) without AppTest: the numbers it shows are
the engine's, checked against hand calculations; and the one hidden-label accuracy."""
from __future__ import annotations

import numpy as np
import pytest

import nbcore
from dashboard.lesson.panels import maths


def test_e_step_numbers_by_hand_bernoulli():
    # α = (½, ½), β(word | class): word 0 is 2/3 vs 1/3, word 1 is 1/3 vs 2/3; x = (1, 0)
    beta = np.array([[2 / 3, 1 / 3], [1 / 3, 2 / 3]])
    e = maths.e_step_numbers("bernoulli", np.array([0.5, 0.5]), {"beta": beta}, np.array([1.0, 0.0]))
    # class 0: log(2/3) + log(1 − 1/3); class 1: log(1/3) + log(1 − 2/3)  (eq. 11)
    np.testing.assert_allclose(e.log_likelihood, [2 * np.log(2 / 3), 2 * np.log(1 / 3)])
    np.testing.assert_allclose(e.log_prior, np.log([0.5, 0.5]))
    np.testing.assert_allclose(e.log_joint, e.log_prior + e.log_likelihood)
    np.testing.assert_allclose(e.posterior, [0.8, 0.2])  # (4/9) / (4/9 + 1/9)
    lines = maths.e_step_lines(e, ["ham", "spam"])
    assert len(lines) == 2 and r"\text{ham}" in lines[0] and "-0.693" in lines[0]


def test_e_step_numbers_multinomial_ignores_absent_words():
    beta = np.array([[0.5, 0.1], [0.3, 0.1], [0.2, 0.8]])
    e = maths.e_step_numbers("multinomial", np.array([0.25, 0.75]), {"beta": beta}, np.array([2.0, 0.0, 1.0]))
    np.testing.assert_allclose(e.log_likelihood, [2 * np.log(0.5) + np.log(0.2), 2 * np.log(0.1) + np.log(0.8)])
    joint = np.log([0.25 * 0.5 ** 2 * 0.2, 0.75 * 0.1 ** 2 * 0.8])
    np.testing.assert_allclose(e.posterior, np.exp(joint) / np.exp(joint).sum())


def test_m_step_numbers_by_hand_bernoulli_and_multinomial():
    X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    w = np.array([[1.0, 0.0], [0.6, 0.4], [0.0, 1.0]])  # one-hot labelled rows and one soft row
    lam = 0.5
    m = maths.m_step_numbers("bernoulli", X, w, lam)
    np.testing.assert_allclose(m.alpha, [1.6 / 3, 1.4 / 3])          # eq. 23
    np.testing.assert_allclose(m.class_weight, [1.6, 1.4])
    assert m.total_weight == pytest.approx(3.0)
    # eq. 24: β(word 0 | class 0) = (λ + 1 + 0.6) / (2λ + 1.6)
    assert m.values[0, 0] == pytest.approx((lam + 1.6) / (2 * lam + 1.6))
    assert m.values[1, 1] == pytest.approx((lam + 1.4) / (2 * lam + 1.4))
    np.testing.assert_allclose(m.lam_den, [2.0, 2.0])
    # the same numbers as the engine's M-step
    _, params = nbcore.m_step(nbcore.get_model("bernoulli"), X, w, lam)
    np.testing.assert_allclose(m.values, params["beta"])
    line = maths.estimate_lines(m, 0, "cruise", "β", ["ham", "spam"])[0]
    assert r"\frac{0.500 + 1.60}{2\cdot0.500 + 1.60} = " + f"{(lam + 1.6) / (2 * lam + 1.6):.3f}" in line

    mm = maths.m_step_numbers("multinomial", X, w, lam)
    # β(word j | k) = (λ + Σ x r) / (Vλ + Σ_j Σ x r): class 0 tokens 1 + 0.6·2 = 2.2
    assert mm.values[0, 0] == pytest.approx((lam + 1.6) / (2 * lam + 2.2))
    np.testing.assert_allclose(mm.lam_den, [2.0, 2.0])


def test_m_step_numbers_categorical_and_gaussian():
    codes = np.array([[0, 2], [1, 0], [0, 1]])
    w = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    model = nbcore.get_model("categorical")
    m = maths.m_step_numbers(model, model.prepare(codes), w, 1.0)
    # θ_0[0 | class 0] = (λ + 1 + 0.5) / (2λ + 1.5): feature 0 has D = 2 values
    assert m.values[0, 0] == pytest.approx(2.5 / 3.5)
    # θ_1[2 | class 0] = (λ + 1) / (3λ + 1.5): feature 1 has D = 3 values
    assert m.values[2 + 2, 0] == pytest.approx(2.0 / 4.5)
    np.testing.assert_allclose(m.lam_den, [2, 2, 3, 3, 3])
    g = maths.m_step_numbers("gaussian", np.array([[0.0], [1.0], [3.0]]), w, 0.0)
    assert g.values is None  # not a ratio of counts: the panel says so instead
    np.testing.assert_allclose(g.alpha, [0.5, 0.5])


def test_numbers_for_latex():
    assert maths._n(-np.inf) == r"-\infty"
    assert maths._n(0.5) == "0.500"
    assert maths._n(2e-5) == r"2.00\times 10^{-5}"
    assert maths._tex("a_b$") == r"a\_b\$"


def test_hidden_accuracy_is_one_function_with_optional_cluster_matching():
    y_true = np.array([0, 0, 1, 1, -1, 1])
    hidden = np.array([True, True, True, False, True, True])
    pred = np.array([1, 1, 0, 0, 0, 0])  # clusters named the wrong way round
    assert nbcore.hidden_accuracy(pred, y_true, hidden) == pytest.approx(0.0)
    assert nbcore.hidden_accuracy(pred, y_true, hidden, n_classes=2) == pytest.approx(1.0)
    assert nbcore.hidden_accuracy(pred, y_true, np.zeros(6, bool)) is None
