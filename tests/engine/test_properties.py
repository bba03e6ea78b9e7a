"""Properties EM must have whatever the data (hypothesis)."""

import warnings

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import nbcore
from kit.problems import problems
from nbcore.em import EM

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None)


@PROPERTY_SETTINGS
@given(problems())
def test_objective_never_decreases_and_posteriors_sum_to_one(problem):
    model, X, y, k, init, lam, w, seed = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = EM(model=model, n_classes=k, smoothing=lam, init=init, unlabeled_weight=w, random_state=seed, tol=None).start(X, y)
        for _ in range(8):
            run.step()
    objectives = np.array([s.objective for s in run.history])
    finite = np.isfinite(objectives)
    assert not np.isnan(objectives).any()
    # once finite, the objective never decreases (EM's guarantee, MAP objective at fixed λ)
    if finite.any():
        first = np.argmax(finite)
        tail = objectives[first:]
        assert np.isfinite(tail).all()
        assert np.all(np.diff(tail) >= -1e-9 * np.maximum(1.0, np.abs(tail[:-1])))
    for s in run.history[1:]:
        np.testing.assert_allclose(s.resp.sum(axis=1), 1.0, atol=1e-12)
        assert np.all(s.resp >= 0)
        labelled = y >= 0
        # labelled rows are never overwritten (eq. 22)
        np.testing.assert_array_equal(s.resp[labelled], np.eye(k)[y[labelled]])
        np.testing.assert_allclose(s.alpha.sum(), 1.0)
    np.testing.assert_allclose(run.predict_proba().sum(axis=1), 1.0, atol=1e-12)


@PROPERTY_SETTINGS
@given(problems(), st.integers(0, 2**31 - 1))
def test_row_permutation_changes_nothing(problem, perm_seed):
    model, X, y, k, init, lam, w, seed = problem
    if init == "random":
        init = "uniform"  # random parameters do not depend on row order either, but keep it exact
    perm = np.random.default_rng(perm_seed).permutation(len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = EM(model=model, n_classes=k, smoothing=lam, init=init, unlabeled_weight=w).start(X, y)
        b = EM(model=model, n_classes=k, smoothing=lam, init=init, unlabeled_weight=w).start(X[perm], y[perm])
        for _ in range(4):
            sa, sb = a.step(), b.step()
    np.testing.assert_allclose(sa.alpha, sb.alpha, atol=1e-10)
    np.testing.assert_allclose(_flat(nbcore.get_model(model), sa.params), _flat(nbcore.get_model(model), sb.params), atol=1e-10)
    np.testing.assert_allclose(sa.resp[perm], sb.resp, atol=1e-10)
    if np.isfinite(sa.objective):
        assert abs(sa.objective - sb.objective) <= 1e-8 * max(1.0, abs(sa.objective))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.0, 0.5, 2.0]))
def test_gaussian_objective_never_decreases_with_a_floor(seed, gap):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (15, 2)), rng.normal(gap, 1, (15, 2))]
    run = EM(model="gaussian", n_classes=2, init="random", random_state=seed, tol=None,
             model_options={"var_smoothing": 0.0, "var_floor": 1e-3}).start(X)
    for _ in range(10):
        run.step()
    assert run.objective_decreases() == []


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_sparse_and_dense_agree_and_sparse_is_never_densified(seed):
    rng = np.random.default_rng(seed)
    X = (rng.random((30, 12)) < 0.2).astype(float)
    y = np.where(rng.random(30) < 0.7, -1, rng.integers(0, 2, 30))
    Xs = sp.csr_matrix(X)
    dense = EM(n_classes=2, init="random", random_state=seed).start(X, y)
    original = (sp.csr_matrix.toarray, sp.csr_matrix.todense, sp.csc_matrix.toarray, sp.csc_matrix.todense)

    def refuse(*a, **k):
        raise AssertionError("sparse X was densified")

    sp.csr_matrix.toarray = sp.csr_matrix.todense = sp.csc_matrix.toarray = sp.csc_matrix.todense = refuse
    try:
        sparse = EM(n_classes=2, init="random", random_state=seed).start(Xs, y)
        for _ in range(3):
            s_sparse = sparse.step()
    finally:
        sp.csr_matrix.toarray, sp.csr_matrix.todense, sp.csc_matrix.toarray, sp.csc_matrix.todense = original
    for _ in range(3):
        s_dense = dense.step()
    np.testing.assert_allclose(s_sparse.beta, s_dense.beta, atol=1e-12)
    assert abs(s_sparse.objective - s_dense.objective) < 1e-9 * abs(s_dense.objective)


def _flat(model, params) -> np.ndarray:
    """Every parameter of ``params`` as one vector (tuples of arrays included)."""
    return np.concatenate([np.ravel(v) for key in model.param_names
                           for v in (params[key] if isinstance(params[key], tuple) else (params[key],))])
