"""nbcore.bound: the lower bound (free energy) made tight by the E-step and raised by the M-step.

Reference numbers are computed here by plain loops over documents and classes."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbcore
from nbcore.bound import bound_slice, climb, feasible_interval, free_energy
from nbcore.em import EM


def test_free_energy_by_hand():
    # one document, p(x, k=0) = 0.3, p(x, k=1) = 0.1: L = log 0.4
    joint = np.log([[0.3, 0.1]])
    q = np.array([[0.5, 0.5]])
    by_hand = 0.5 * (math.log(0.3) - math.log(0.5)) + 0.5 * (math.log(0.1) - math.log(0.5))
    assert free_energy(joint, q) == pytest.approx(by_hand, abs=1e-14)
    assert by_hand < math.log(0.4)
    # the posterior (0.75, 0.25) makes it tight
    assert free_energy(joint, np.array([[0.75, 0.25]])) == pytest.approx(math.log(0.4), abs=1e-14)
    # q = 0 entries count nothing, even against log 0
    assert free_energy(np.array([[math.log(0.3), -np.inf]]), np.array([[1.0, 0.0]])) == pytest.approx(math.log(0.3))


def reference_objective(X, y, alpha, beta, lam, w=1.0):
    """log-likelihood + λ Σ log β(1−β), with explicit loops (eq. 15-17)."""
    total = 0.0
    for i in range(X.shape[0]):
        p = []
        for k in range(len(alpha)):
            v = alpha[k]
            for j in range(X.shape[1]):
                v *= beta[j, k] if X[i, j] else 1 - beta[j, k]
            p.append(v)
        total += math.log(p[y[i]]) if y[i] >= 0 else w * math.log(sum(p))
    return total + lam * float(np.sum(np.log(beta) + np.log(1 - beta)))


def reference_kl(X, y, q, alpha, beta, w=1.0):
    """Σ_hidden w KL(q_i ‖ p(· | x_i, θ)) with loops (labelled rows: q one-hot = posterior restricted, 0)."""
    total = 0.0
    for i in range(X.shape[0]):
        if y[i] >= 0:
            continue
        p = np.array([alpha[k] * np.prod([beta[j, k] if X[i, j] else 1 - beta[j, k] for j in range(X.shape[1])])
                      for k in range(len(alpha))])
        post = p / p.sum()
        total += w * sum(q[i, k] * math.log(q[i, k] / post[k]) for k in range(len(alpha)) if q[i, k] > 0)
    return total


@pytest.mark.parametrize("name,hidden,lam,init,w", [
    ("toy_spam", 0.5, 1.0, "labeled", 1.0),
    ("toy_spam", 0.5, 0.3, "labeled", 0.5),
    ("abcd", 1.0, 1.0, "random", 1.0),
])
def test_climb_decomposes_the_increase(name, hidden, lam, init, w):
    ds = nbcore.load_dataset(name)
    X = np.asarray(ds.for_model("bernoulli"))
    y, _ = nbcore.hide_labels(ds.y, fraction=hidden, random_state=0)
    y = np.asarray(y)
    run = EM(n_classes=2, smoothing=lam, init=init, unlabeled_weight=w, random_state=3, tol=None).start(X, y)
    for _ in range(3):
        c = climb(run)
        before = run.current
        after = run.step()
        assert c.objective_before == pytest.approx(reference_objective(X, y, before.alpha, before.beta, lam, w), rel=1e-12)
        assert c.bound_before == pytest.approx(c.objective_before, abs=1e-9)      # E-step: tight
        assert c.objective_after == pytest.approx(after.objective, rel=1e-12)
        assert c.m_step_gain >= -1e-12 and c.gap_after >= -1e-12
        kl = reference_kl(X, y, after.resp, after.alpha, after.beta, w)
        assert c.gap_after == pytest.approx(kl, abs=1e-9)                       # the gap is the KL
        assert c.total == pytest.approx(c.m_step_gain + c.gap_after, abs=1e-12)


def test_slice_bound_touches_at_0_peaks_at_1_and_stays_below():
    ds = nbcore.load_dataset("abcd")
    X = ds.for_model("bernoulli")
    run = EM(n_classes=2, smoothing=1.0, init="random", random_state=1).start(X)
    run.step()
    sl = bound_slice(run, n=81)
    s, L, B, B2 = sl["s"], sl["objective"], sl["bound"], sl["next_bound"]
    i0, i1 = int(np.flatnonzero(s == 0.0)[0]), int(np.flatnonzero(s == 1.0)[0])
    assert np.all(B <= L + 1e-9) and np.all(B2 <= L + 1e-9)
    assert B[i0] == pytest.approx(L[i0], abs=1e-9) and B2[i1] == pytest.approx(L[i1], abs=1e-9)
    assert int(np.argmax(B)) == i1          # the M-step is the arg max of the bound
    assert L[i1] >= L[i0]
    assert s[0] < 0 < 1 < s[-1]


def test_feasible_interval_keeps_probabilities_valid():
    lo, hi = feasible_interval([0.5, 0.5], {"beta": np.array([[0.2], [0.9]])},
                               [0.4, 0.6], {"beta": np.array([[0.6], [0.8]])})
    # α: 0.5 − 0.1 s ≥ 0 → s ≤ 5;  β1: 0.2 + 0.4 s ∈ [0, 1] → s ∈ [−0.5, 2];  β2: 0.9 − 0.1 s → s ∈ [−1, 9]
    assert (lo, hi) == pytest.approx((-0.5, 2.0))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["bernoulli", "multinomial", "categorical"]),
       st.sampled_from([0.0, 0.5, 2.0]))
def test_bound_never_above_objective_any_model(seed, model, lam):
    rng = np.random.default_rng(seed)
    if model == "categorical":
        X = rng.integers(0, 3, (12, 3)).astype(float)
    elif model == "multinomial":
        X = rng.poisson(1.5, (12, 4)).astype(float)
    else:
        X = (rng.random((12, 4)) < 0.4).astype(float)
    y = np.where(rng.random(12) < 0.6, -1, rng.integers(0, 2, 12))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = EM(model=model, n_classes=2, smoothing=lam, init="random", random_state=seed, tol=None).start(X, y)
        for _ in range(2):
            c = climb(run)
            run.step()
    if np.isfinite(c.objective_before):
        assert c.bound_before == pytest.approx(c.objective_before, abs=1e-8 * max(1, abs(c.objective_before)))
        assert c.m_step_gain >= -1e-8 * max(1, abs(c.objective_before))
        assert c.gap_after >= -1e-8 * max(1, abs(c.objective_before))
