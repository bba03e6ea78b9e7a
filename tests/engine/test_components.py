"""Several mixture components per class (nbcore.components, Nigam et al. 2000 §5):
the same properties as EM (tests/engine/test_properties.py) plus hand-worked E-steps."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import nbcore
from kit.problems import problems
from nbcore.components import ComponentEMRun, class_posterior, constrained_responsibilities
from nbcore.em import EM, EMRun


def test_constrained_e_step_by_hand():
    # K = 2 classes, m = 2 components each: columns (k0c0, k0c1, k1c0, k1c1)
    p = np.array([[0.1, 0.2, 0.3, 0.4],     # hidden: posterior over all four
                  [0.1, 0.2, 0.3, 0.4],     # labelled class 1: only 0.3 and 0.4 count
                  [0.1, 0.3, 0.3, 0.4]])    # labelled class 0
    y = np.array([-1, 1, 0])
    resp, log_marginal, impossible = constrained_responsibilities(np.log(p), y, 2)
    np.testing.assert_allclose(resp[0], [0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(resp[1], [0, 0, 3 / 7, 4 / 7])
    np.testing.assert_allclose(resp[2], [0.25, 0.75, 0, 0])
    np.testing.assert_allclose(log_marginal, [math.log(1.0), math.log(0.7), math.log(0.4)], atol=1e-14)
    assert not impossible.any()
    np.testing.assert_allclose(class_posterior(resp, 2), [[0.3, 0.7], [0, 1], [1, 0]])


def test_labelled_row_impossible_in_its_class_stays_in_its_class():
    joint = np.array([[-np.inf, -np.inf, math.log(0.3), math.log(0.4)]])
    resp, log_marginal, impossible = constrained_responsibilities(joint, np.array([0]), 2)
    np.testing.assert_allclose(resp[0], [0.5, 0.5, 0, 0])
    assert impossible[0] and log_marginal[0] == -np.inf


@pytest.mark.parametrize("init", ["uniform", "labeled", "random"])
def test_one_component_per_class_is_plain_em(init):
    ds = nbcore.load_dataset("synthetic_spam")
    y, _ = nbcore.hide_labels(ds.y, fraction=0.8, random_state=1)
    X = ds.for_model("bernoulli")
    em = EM(n_classes=2, smoothing=0.5, init=init, random_state=4, tol=None, components_per_class=1)
    plain = em.start(X, y)
    assert type(plain) is EMRun
    comp = ComponentEMRun(em, X, y, random_state=4)  # the component code path with m = 1
    for _ in range(5):
        a, b = plain.step(), comp.step()
    if init != "random":  # the random draws differ (the component path draws α first), the maths does not
        np.testing.assert_allclose(a.beta, b.beta, atol=1e-12)
        assert a.objective == pytest.approx(b.objective, rel=1e-12)
        np.testing.assert_allclose(plain.predict_proba(), comp.predict_proba(), atol=1e-12)


def test_components_model_shape_and_class_views():
    ds = nbcore.load_dataset("synthetic_spam")
    y, _ = nbcore.hide_labels(ds.y, fraction=0.9, random_state=0)
    run = EM(n_classes=2, init="labeled", random_state=0, components_per_class=3).start(ds.for_model("bernoulli"), y)
    assert isinstance(run, ComponentEMRun) and run.n_components == 6
    snap = run.step()
    assert snap.alpha.shape == (6,) and snap.beta.shape == (ds.X.shape[1], 6) and snap.resp.shape == (len(y), 6)
    np.testing.assert_allclose(run.class_alpha(), snap.alpha.reshape(2, 3).sum(axis=1))
    assert run.predict_proba().shape == (len(y), 2)
    assert run.class_resp(1).shape == (len(y), 2)
    assert "m=3" in repr(run)
    # continuing with a new λ keeps the components
    cont = run.with_settings(smoothing=0.1)
    assert isinstance(cont, ComponentEMRun) and cont.components_per_class == 3
    cont.step()


def test_labeled_init_warns_when_a_class_has_no_label():
    X = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=float)
    with pytest.warns(RuntimeWarning, match="No labelled row has class 1"):
        EM(n_classes=2, init="labeled", components_per_class=2, random_state=0).start(X, np.array([0, -1, -1, 0]))


PROPERTY_SETTINGS = settings(max_examples=60, deadline=None)


@PROPERTY_SETTINGS
@given(problems(), st.integers(2, 3))
def test_objective_never_decreases_and_labelled_rows_stay_in_their_class(problem, m):
    model, X, y, k, init, lam, w, seed = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = EM(model=model, n_classes=k, smoothing=lam, init=init, unlabeled_weight=w, random_state=seed,
                 tol=None, components_per_class=m).start(X, y)
        for _ in range(8):
            run.step()
    objectives = np.array([s.objective for s in run.history])
    assert not np.isnan(objectives).any()
    finite = np.isfinite(objectives)
    if finite.any():
        tail = objectives[np.argmax(finite):]
        assert np.isfinite(tail).all()
        assert np.all(np.diff(tail) >= -1e-9 * np.maximum(1.0, np.abs(tail[:-1])))
    labelled = y >= 0
    for t, s in enumerate(run.history[1:], 1):
        np.testing.assert_allclose(s.resp.sum(axis=1), 1.0, atol=1e-12)
        assert np.all(s.resp >= 0) and s.resp.shape == (len(y), k * m)
        # a labelled row's weight sits on its own class's components only
        np.testing.assert_allclose(run.class_resp(t)[labelled], np.eye(k)[y[labelled]], atol=1e-12)
        np.testing.assert_allclose(s.alpha.sum(), 1.0)
    np.testing.assert_allclose(run.predict_proba().sum(axis=1), 1.0, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 3))
def test_sparse_and_dense_agree_and_sparse_is_never_densified(seed, m):
    rng = np.random.default_rng(seed)
    X = (rng.random((30, 12)) < 0.2).astype(float)
    y = np.where(rng.random(30) < 0.7, -1, rng.integers(0, 2, 30))
    Xs = sp.csr_matrix(X)
    settings_ = dict(n_classes=2, init="random", random_state=seed, components_per_class=m)
    dense = EM(**settings_).start(X, y)
    original = (sp.csr_matrix.toarray, sp.csr_matrix.todense, sp.csc_matrix.toarray, sp.csc_matrix.todense)

    def refuse(*a, **k):
        raise AssertionError("sparse X was densified")

    sp.csr_matrix.toarray = sp.csr_matrix.todense = sp.csc_matrix.toarray = sp.csc_matrix.todense = refuse
    try:
        sparse = EM(**settings_).start(Xs, y)
        for _ in range(3):
            s_sparse = sparse.step()
        sparse.predict_proba()
    finally:
        sp.csr_matrix.toarray, sp.csr_matrix.todense, sp.csc_matrix.toarray, sp.csc_matrix.todense = original
    for _ in range(3):
        s_dense = dense.step()
    np.testing.assert_allclose(s_sparse.beta, s_dense.beta, atol=1e-12)
    assert abs(s_sparse.objective - s_dense.objective) < 1e-9 * abs(s_dense.objective)


def test_digits_three_components_close_the_gap_to_supervised():
    """The lesson's claim on one seed (95 % hidden, λ = 1): m = 1 ends below supervised NB, m = 3 above."""
    ds = nbcore.load_dataset("digits")
    X = ds.for_model("bernoulli")
    y, _ = nbcore.hide_labels(ds.y, fraction=0.95, random_state=0)
    y = np.asarray(y)
    hidden = y < 0
    truth = np.asarray(ds.y)
    alpha, params = nbcore.supervised_fit("bernoulli", X, y, 10, 1.0)
    sup = np.mean(nbcore.predict_proba("bernoulli", alpha, params, X).argmax(1)[hidden] == truth[hidden])
    acc = {}
    for m in (1, 3):
        run = EM(n_classes=10, smoothing=1.0, init="labeled", random_state=0, components_per_class=m,
                 max_iter=200).start(X, y)
        run.run_to_convergence()
        assert run.objective_decreases() == []
        acc[m] = np.mean(run.predict()[hidden] == truth[hidden])
    assert acc[1] < sup - 0.02 and acc[3] > sup + 0.01


def test_a_rewound_components_run_is_still_one_and_predicts_per_class():
    """Rewinding keeps the run's kind: with m = 2 components per class on digits, p(y | x) has one
    column per class (10), not per component (20), before and after the rewind, and stepping the
    rewound run gives back the dropped iterations exactly (EM is deterministic)."""
    import numpy as np

    import nbcore

    ds = nbcore.load_dataset("digits")
    X = ds.for_model("bernoulli")
    y, _ = nbcore.hide_labels(ds.y, 0.9, random_state=0)
    run = nbcore.EM(model="bernoulli", n_classes=10, components_per_class=2, random_state=0).start(X, y)
    for _ in range(4):
        run.step()
    back = run.rewound(2)
    assert type(back) is type(run)
    assert back.predict_proba().shape == run.predict_proba().shape == (X.shape[0], 10)
    back.step()
    back.step()
    np.testing.assert_array_equal(back.predict_proba(), run.predict_proba())
