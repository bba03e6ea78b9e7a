"""EMRun.e_step / m_step (the two half-steps) and the course session's ‖Δθ‖² (theta_norm)."""
from __future__ import annotations

import numpy as np
import pytest

import nbcore
from nbcore.em import EM, squared_change

TOY = np.array([[1, 1, 1], [1, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=float)
TOY_Y = np.array([1, 1, 1, 0, 0, 0])


def toy_run(**kw):
    y = TOY_Y.copy()
    y[5] = -1  # hide the last e-mail: (Cruise=0, Lottery=1, Win=0), a ham
    return EM(n_classes=2, smoothing=1.0, init="labeled", tol=None, **kw).start(TOY, y)


def test_e_step_shows_responsibilities_and_leaves_the_parameters():
    run = toy_run()
    before = run.current
    e = run.e_step()
    # by hand (λ = 1, init from the 5 labelled rows): spam α = 3/5, β = 3/5 for every word;
    # ham α = 2/5, β(C) = 2/4, β(L) = 1/4, β(W) = 2/4.
    # p(x, spam) = 3/5 · 2/5 · 3/5 · 2/5 = 36/625;  p(x, ham) = 2/5 · 1/2 · 1/4 · 1/2 = 1/40
    r_spam = (36 / 625) / (36 / 625 + 1 / 40)
    assert e.iteration == 0
    np.testing.assert_allclose(e.resp[5], [1 - r_spam, r_spam], rtol=1e-12)
    np.testing.assert_array_equal(e.resp[:5], np.eye(2)[TOY_Y[:5]])  # labelled rows one-hot
    assert run.current is before and run.iteration == 0  # parameters not yet updated
    assert run.pending is e and run.e_step() is e  # a second E-step changes nothing
    assert not e.resp.flags.writeable
    snap = run.m_step()
    assert run.pending is None and snap.iteration == 1
    # M-step by hand from those responsibilities (eq. 23-24)
    np.testing.assert_allclose(snap.alpha, [(2 + 1 - r_spam) / 6, (3 + r_spam) / 6], rtol=1e-12)
    np.testing.assert_allclose(snap.beta[1, 1], (1 + 2 + r_spam) / (2 + 3 + r_spam), rtol=1e-12)  # Lottery | spam
    np.testing.assert_allclose(snap.beta[1, 0], (1 + 0 + 1 - r_spam) / (2 + 2 + 1 - r_spam), rtol=1e-12)
    assert snap.resp is e.resp


def test_m_step_without_an_e_step_is_refused_with_a_message():
    run = toy_run()
    with pytest.raises(ValueError, match="do the E-step first"):
        run.m_step()
    assert run.iteration == 0


def test_half_steps_equal_whole_steps():
    a, b = toy_run(), toy_run()
    for _ in range(4):
        a.e_step()
        sa = a.m_step()
        sb = b.step()
        np.testing.assert_array_equal(sa.beta, sb.beta)
        assert sa.objective == sb.objective
    # Step after a lone E-step finishes that iteration (it does not skip one)
    e = a.e_step()
    s = a.step()
    assert s.iteration == 5 and s.resp is e.resp


def test_pending_e_step_survives_a_lambda_change():
    run = toy_run()
    e = run.e_step()
    cont = run.with_settings(smoothing=0.5)
    assert cont.pending is e
    snap = cont.m_step()
    assert snap.smoothing == 0.5


def test_both_values_norm_counts_both_values_of_a_binary_feature():
    # the lesson's default: synthetic_spam, 90 % hidden, λ = 1, from the labelled rows, seed 0;
    # the same step: the engine reports 0.1358, the course session's formula 0.2697
    ds = nbcore.load_dataset("synthetic_spam")
    y, _ = nbcore.hide_labels(ds.y, fraction=0.9, random_state=0)
    X = ds.for_model("bernoulli")
    eng = EM(n_classes=2, smoothing=1.0, init="labeled", random_state=0).start(X, y)
    s3 = EM(n_classes=2, smoothing=1.0, init="labeled", random_state=0, theta_norm="both_values").start(X, y)
    d_eng, d_s3 = eng.step().delta, s3.step().delta
    assert round(d_eng, 4) == 0.1358 and round(d_s3, 4) == 0.2697
    # the written-out the course session sum: Σ_b Δθ_b² + Σ_{k,i,a∈{0,1}} Δθ_{k,i,a}²
    a0, a1 = eng.history[0], eng.history[1]
    by_hand = np.sum((a1.alpha - a0.alpha) ** 2) + np.sum((a1.beta - a0.beta) ** 2) \
        + np.sum(((1 - a1.beta) - (1 - a0.beta)) ** 2)
    assert abs(d_s3 - by_hand) < 1e-12


def test_both_values_norm_changes_the_stop_and_not_other_models():
    ds = nbcore.load_dataset("synthetic_spam")
    y, _ = nbcore.hide_labels(ds.y, fraction=0.9, random_state=0)
    X = ds.for_model("bernoulli")
    runs = {n: EM(n_classes=2, init="labeled", tol=None, theta_tol=1e-6, theta_norm=n, max_iter=500).start(X, y)
            for n in ("parameters", "both_values")}
    for r in runs.values():
        r.run_to_convergence()
        assert r.stop_reason == "theta"
    assert runs["both_values"].iteration >= runs["parameters"].iteration
    # categorical tables already list every value: the two definitions agree
    model = nbcore.get_model("multinomial")
    a = {"beta": np.array([[0.2, 0.5], [0.8, 0.5]])}
    b = {"beta": np.array([[0.3, 0.4], [0.7, 0.6]])}
    assert squared_change(model, [0.5, 0.5], a, [0.4, 0.6], b, "both_values") == pytest.approx(0.02 + 0.04)


def test_bad_theta_norm_and_components_messages():
    with pytest.raises(ValueError, match="theta_norm must be one of parameters, both_values"):
        EM(theta_norm="l2").start(TOY, TOY_Y)
    with pytest.raises(ValueError, match="components_per_class must be a whole number ≥ 1"):
        EM(components_per_class=0).start(TOY, TOY_Y)
    run = toy_run()
    with pytest.raises(ValueError, match="theta_norm must be one of"):
        run.with_settings(theta_norm="max")
