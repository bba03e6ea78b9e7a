"""EM on the seeds' toy examples, stop rules, λ = 0, restarts (numbers derived by hand)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp

import nbcore
from nbcore.em import EM, class_prior, normalize_log, observed_log_likelihood

# The course session's toy spam table: Cruise, Lottery, Win | spam
TOY_X = np.array([[1, 1, 1], [1, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], float)
TOY_Y = np.array([1, 1, 1, 0, 0, 0])  # 1 = spam, 0 = ham


def test_course_session_toy_spam_posteriors_lambda0():
    """P(spam | Cruise, Lottery) ∝ 2/27 vs P(ham | ...) ∝ 1/27; none: 1/54 vs 4/27; Win: 1/27 vs 2/27."""
    alpha, params = nbcore.supervised_fit("bernoulli", TOY_X, TOY_Y, n_classes=2, smoothing=0.0)
    np.testing.assert_allclose(alpha, [0.5, 0.5])
    np.testing.assert_allclose(params["beta"][:, 1], [2 / 3, 2 / 3, 2 / 3])  # P(word | spam)
    np.testing.assert_allclose(params["beta"][:, 0], [1 / 3, 1 / 3, 1 / 3])  # P(word | ham)
    queries = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1]], float)
    joint = np.exp(nbcore.log_joint(nbcore.get_model("bernoulli").log_likelihood(queries, params), alpha))
    expected = np.array([[1 / 27, 2 / 27], [4 / 27, 1 / 54], [2 / 27, 1 / 27]])  # columns: ham, spam
    np.testing.assert_allclose(joint, expected, rtol=1e-12)
    post = nbcore.predict_proba("bernoulli", alpha, params, queries)
    np.testing.assert_allclose(post[:, 1], [2 / 3, (1 / 54) / (1 / 54 + 4 / 27), 1 / 3])


def test_course_session_posteriors_with_shipped_table():
    ds = nbcore.load_dataset("toy_spam")
    spam = ds.class_names.index("spam")
    alpha, params = nbcore.supervised_fit("bernoulli", ds.X, ds.y, n_classes=2, smoothing=0.0)
    cl = np.array([[1 if f in ("Cruise", "Lottery") else 0 for f in ds.feature_names]], float)
    p = nbcore.predict_proba("bernoulli", alpha, params, cl)[0]
    assert p[spam] == pytest.approx((2 / 27) / (2 / 27 + 1 / 27))


def test_uniform_start_note_without_labels_is_a_fixed_point():
    rng = np.random.default_rng(1)
    X = (rng.random((40, 12)) < 0.3).astype(float)
    run = EM(model="bernoulli", n_classes=3, smoothing=1.0, init="uniform").start(X)
    s1 = run.step()
    np.testing.assert_allclose(s1.resp, 1 / 3)  # every posterior is 1/K
    np.testing.assert_allclose(s1.alpha, 1 / 3)
    # every class gets the same β: the smoothed column frequency
    expected = (1.0 + X.sum(axis=0)) / (2.0 + 40 / 3)
    for k in range(3):
        np.testing.assert_allclose(s1.beta[:, k], (1.0 + X.sum(axis=0) / 3) / (2.0 + 40 / 3))
    assert not np.allclose(expected, 0.5)
    s2 = run.step()
    assert s2.delta == 0.0  # parameters stop moving after one iteration
    assert run.converged
    # random init breaks the symmetry
    r = EM(model="bernoulli", n_classes=3, init="random", random_state=0).start(X)
    r.step()
    assert np.ptp(r.current.resp, axis=1).max() > 0.1


def test_notebook_abcd_separates_the_two_groups():
    X = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 0, 0], [1, 1, 0, 0]], float)
    groups = np.array([0, 1, 1, 0, 0])
    for seed in range(5):
        run = EM(model="bernoulli", n_classes=2, smoothing=1.0, init="random", random_state=seed, max_iter=200, tol=1e-13).start(X)
        run.run_to_convergence()
        pred = run.predict()
        _, after, _ = nbcore.aligned_accuracy(groups, pred, 2)
        assert after == 1.0
        # the notebook printed α → [0.5991137..., 0.4008862...] for this data with add-one smoothing
        np.testing.assert_allclose(np.sort(run.current.alpha), [0.40088624864, 0.59911375135], atol=1e-6)


def test_log_likelihood_matches_brute_force_eq17():
    rng = np.random.default_rng(3)
    X = (rng.random((30, 7)) < 0.4).astype(float)
    y = np.where(rng.random(30) < 0.5, -1, rng.integers(0, 2, 30))
    run = EM(model="bernoulli", n_classes=2, smoothing=0.5, init="random", random_state=1, unlabeled_weight=0.7).start(X, y)
    snap = run.step()
    a, b = snap.alpha, snap.beta
    joint = np.log(a) + X @ np.log(b) + (1 - X) @ np.log(1 - b)  # eq. (7)/(11), dense and direct
    lab = y >= 0
    expected = joint[lab, y[lab]].sum() + 0.7 * logsumexp(joint[~lab], axis=1).sum()
    assert snap.log_likelihood == pytest.approx(expected, rel=1e-12)
    prior = 0.5 * (np.log(b).sum() + np.log(1 - b).sum())
    assert snap.objective == pytest.approx(expected + prior, rel=1e-12)


def test_m_step_is_eq24_with_soft_weights():
    rng = np.random.default_rng(4)
    X = (rng.random((25, 5)) < 0.5).astype(float)
    y = np.full(25, -1)
    y[:4] = [0, 1, 0, 1]
    run = EM(model="bernoulli", n_classes=2, smoothing=2.0, init="labeled").start(X, y)
    s = run.step()
    r = s.resp
    lam = 2.0
    np.testing.assert_allclose(s.alpha, r.sum(0) / 25)  # eq. 23
    np.testing.assert_allclose(s.beta, (lam + X.T @ r) / (2 * lam + r.sum(0)))  # eq. 24
    np.testing.assert_allclose(r[:4], np.eye(2)[[0, 1, 0, 1]])  # eq. 22


def test_labeled_init_is_supervised_fit_on_labelled_rows():
    X = TOY_X
    y = np.array([1, -1, 1, 0, -1, 0])
    run = EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled").start(X, y)
    alpha, params = nbcore.supervised_fit("bernoulli", X[y >= 0], y[y >= 0], 2, 1.0)
    np.testing.assert_allclose(run.history[0].alpha, alpha)
    np.testing.assert_allclose(run.history[0].beta, params["beta"])
    # by hand: spam rows 0, 2 → Cruise 1/2, Lottery 2/2, Win 1/2 ; λ = 1
    np.testing.assert_allclose(run.history[0].beta[:, 1], [(1 + 1) / 4, (1 + 2) / 4, (1 + 1) / 4])


def test_unlabeled_weight_zero_is_supervised_only():
    rng = np.random.default_rng(5)
    X = (rng.random((50, 6)) < 0.4).astype(float)
    y = np.full(50, -1)
    y[:10] = rng.integers(0, 2, 10)
    run = EM(model="bernoulli", n_classes=2, init="random", random_state=0, unlabeled_weight=0.0).start(X, y)
    s = run.step()
    alpha, params = nbcore.supervised_fit("bernoulli", X, y, 2, 1.0)
    np.testing.assert_allclose(s.alpha, alpha)
    np.testing.assert_allclose(s.beta, params["beta"])


def test_lambda_zero_never_nan_and_warns_on_impossible_documents():
    X = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1]], float)
    y = np.array([0, 0, 1, 1, -1])  # word 2 is never seen with a labelled class
    run = EM(model="bernoulli", n_classes=2, smoothing=0.0, init="labeled").start(X, y)
    with pytest.warns(nbcore.ImpossibleDocumentWarning, match="probability zero under every class"):
        run2 = EM(model="bernoulli", n_classes=2, smoothing=0.0, init="labeled").start(X, y)
    assert not np.isnan(run2.predict_proba()).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nbcore.ImpossibleDocumentWarning)
        for _ in range(3):
            s = run.step()
            assert not np.isnan(s.resp).any() and not np.isnan(s.beta).any()
            assert not np.isnan(s.log_likelihood)
    for model in ("multinomial", "categorical"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", nbcore.ImpossibleDocumentWarning)
            r = EM(model=model, n_classes=2, smoothing=0.0, init="labeled").start(X, y)
            r.step()
            assert not np.isnan(r.current.resp).any()


def test_dense_zero_times_log_zero_is_zero():
    """With λ = 0, β = 0 for an absent word must contribute log(1 − 0) = 0, not NaN."""
    beta = np.array([[0.0, 0.5], [1.0, 0.5]])
    X = np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    ll = nbcore.get_model("bernoulli").log_likelihood(X, {"beta": beta})
    expected = np.array([[0.0, 2 * np.log(0.5)], [-np.inf, 2 * np.log(0.5)], [-np.inf, 2 * np.log(0.5)]])
    np.testing.assert_array_equal(ll, expected)
    ll_sparse = nbcore.get_model("bernoulli").log_likelihood(sp.csr_matrix(X), {"beta": beta})
    np.testing.assert_array_equal(ll_sparse, expected)


def test_stop_rules():
    rng = np.random.default_rng(6)
    X = (rng.random((60, 8)) < 0.4).astype(float)
    run = EM(n_classes=2, init="random", random_state=0, max_iter=3, tol=0).start(X)
    run.run_to_convergence()
    assert run.iteration == 3 and run.stop_reason == "max_iter" and not run.converged
    run = EM(n_classes=2, init="random", random_state=0, max_iter=500, tol=None, theta_tol=1e-8).start(X)
    run.run_to_convergence()
    assert run.stop_reason == "theta" and run.current.delta < 1e-8
    assert run.history[-2].delta >= 1e-8
    run = EM(n_classes=2, init="random", random_state=0, max_iter=500, tol=1e-4).start(X)
    run.run_to_convergence()
    a, b = run.history[-2].objective, run.history[-1].objective
    assert run.stop_reason == "tol" and abs(b - a) <= 1e-4 * abs(a)


def test_delta_is_squared_parameter_change():
    rng = np.random.default_rng(7)
    X = (rng.random((20, 4)) < 0.5).astype(float)
    run = EM(n_classes=2, init="random", random_state=2).start(X)
    s0, s1 = run.history[0], run.step()
    expected = ((s1.alpha - s0.alpha) ** 2).sum() + ((s1.beta - s0.beta) ** 2).sum()
    assert s1.delta == pytest.approx(expected)
    assert s0.delta is None and s0.resp is None


def test_snapshots_are_immutable_and_history_kept():
    X = TOY_X
    run = EM(n_classes=2, init="random", random_state=0).start(X)
    s1 = run.step()
    with pytest.raises(ValueError):
        s1.beta[0, 0] = 0.3
    with pytest.raises(AttributeError):
        s1.iteration = 5
    s2 = run.step()
    assert run.history == [run.history[0], s1, s2]
    assert [s.iteration for s in run.history] == [0, 1, 2]
    with pytest.raises(AttributeError, match="no 'mean'"):
        s1.mean


def test_with_smoothing_continues_from_current_parameters():
    rng = np.random.default_rng(8)
    X = (rng.random((30, 5)) < 0.4).astype(float)
    run = EM(n_classes=2, init="random", random_state=0, smoothing=1.0).start(X)
    run.step(); run.step()
    run2 = run.with_smoothing(0.01)
    assert run2.iteration == 2 and len(run2.history) == 3
    s = run2.step()
    assert s.iteration == 3 and s.smoothing == 0.01
    r = run.history[-1]
    # the M-step used the new λ on the responsibilities of θ_2
    np.testing.assert_allclose(s.beta, (0.01 + X.T @ s.resp) / (0.02 + s.resp.sum(0)))
    assert len(run.history) == 3 and r.smoothing == 1.0  # the original run is untouched


def test_restarts_keep_the_best_objective():
    rng = np.random.default_rng(9)
    X = (rng.random((80, 10)) < 0.3).astype(float)
    best = EM(n_classes=3, init="random", n_init=5, random_state=0, max_iter=50).fit(X)
    assert len(best.restarts) == 5
    assert best.current.objective == pytest.approx(max(o for _, o, _ in best.restarts))


def test_gaussian_and_categorical_snapshots_expose_their_parameters():
    rng = np.random.default_rng(10)
    Xg = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(4, 1, (30, 2))]
    run = EM(model="gaussian", n_classes=2, init="random", random_state=0).start(Xg)
    s = run.run_to_convergence()
    assert s.mean.shape == (2, 2) and s.var.shape == (2, 2)
    np.testing.assert_allclose(np.sort(s.mean[0]), [0, 4], atol=0.8)
    Xc = rng.integers(0, 3, (20, 4)).astype(float)
    run = EM(model="categorical", n_classes=2, init="random", random_state=0).start(Xc)
    s = run.step()
    assert len(s.theta) == 4 and all(t.shape == (3, 2) for t in s.theta)
    for t in s.theta:
        np.testing.assert_allclose(t.sum(axis=0), 1.0)


def test_normalize_log_and_class_prior_helpers():
    joint = np.array([[np.log(0.2), np.log(0.6)], [-np.inf, -np.inf], [-1000.0, -1001.0]])
    post, logm, impossible = normalize_log(joint)
    np.testing.assert_allclose(post[0], [0.25, 0.75])
    np.testing.assert_allclose(post[1], [0.5, 0.5])
    np.testing.assert_allclose(post[2], [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1))])
    assert logm[1] == -np.inf and impossible.tolist() == [False, True, False]
    assert logm[2] == pytest.approx(-1000 + np.log1p(np.exp(-1)))
    np.testing.assert_allclose(class_prior(np.array([[1, 0], [0.5, 0.5], [0, 1], [0, 1.0]])), [1.5 / 4, 2.5 / 4])
    y = np.array([0, -1, 1])
    assert observed_log_likelihood(joint[[0, 2, 2]], logm[[0, 2, 2]], y, 0.0) == pytest.approx(np.log(0.2) - 1001)


def test_lambda0_on_digits_has_no_invalid_logs_or_nan():
    """Regression: with λ = 0, β for an always-present pixel came out at 1 + 1e-16 → log(−ε) = NaN."""
    ds = nbcore.load_dataset("digits")
    y_obs, _ = nbcore.hide_labels(ds.y, 0.9, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nbcore.ImpossibleDocumentWarning)
        with np.errstate(invalid="raise"):
            run = EM(n_classes=10, smoothing=0.0, init="labeled").start(ds.X, y_obs)
            for _ in range(4):
                s = run.step()
                assert s.beta.max() <= 1.0 and s.beta.min() >= 0.0
                assert not np.isnan(s.resp).any() and not np.isnan(s.log_likelihood)
    assert run.objective_decreases() == []


def test_keep_resp_bounds_memory_and_recomputes_exactly():
    rng = np.random.default_rng(11)
    X = (rng.random((40, 6)) < 0.4).astype(float)
    y = np.where(rng.random(40) < 0.8, -1, rng.integers(0, 2, 40))
    full = EM(n_classes=2, init="random", random_state=3).start(X, y)
    lean = EM(n_classes=2, init="random", random_state=3, keep_resp=2).start(X, y)
    for _ in range(6):
        full.step(); lean.step()
    assert [s.resp is None for s in lean.history] == [True, True, True, True, True, False, False]
    for t in range(1, 7):
        np.testing.assert_array_equal(lean.responsibilities(t), full.history[t].resp)
        np.testing.assert_array_equal(lean.history[t].beta, full.history[t].beta)
    assert lean.responsibilities(0) is None


def test_with_settings_changes_max_iter_and_refuses_others():
    X = TOY_X
    run = EM(n_classes=2, init="random", random_state=0, max_iter=2, tol=None).start(X)
    run.run_to_convergence()
    assert run.stop_reason == "max_iter" and run.iteration == 2
    more = run.with_settings(max_iter=5)
    assert not more.done
    more.run_to_convergence()
    assert more.iteration == 5 and run.iteration == 2
    with pytest.raises(ValueError, match="Cannot change init in the middle of a run"):
        run.with_settings(init="uniform")


def test_rewound_run_steps_back_to_the_same_snapshots():
    """EM is deterministic: rewinding to t and stepping again gives the dropped snapshots bit for bit."""
    rng = np.random.default_rng(12)
    X = (rng.random((50, 7)) < 0.35).astype(float)
    y = np.where(rng.random(50) < 0.7, -1, rng.integers(0, 2, 50))
    run = EM(n_classes=2, init="random", random_state=4, keep_resp=2, tol=None, max_iter=9).start(X, y)
    for _ in range(9):
        run.step()
    assert run.done
    back = run.rewound(3)
    assert back.iteration == 3 and not back.done and len(run.history) == 10  # original untouched
    for t in range(4, 10):
        s = back.step()
        np.testing.assert_array_equal(s.beta, run.history[t].beta)
        np.testing.assert_array_equal(s.alpha, run.history[t].alpha)
        assert s.objective == run.history[t].objective
    assert back.done and back.stop_reason == "max_iter"
    assert run.rewound(9).done and run.rewound(0).iteration == 0
    for bad in (-1, 10, 2.5, True):
        with pytest.raises(ValueError, match="Can only rewind"):
            run.rewound(bad)


def test_rewound_to_an_earlier_iteration_drops_a_pending_e_step():
    """An E-step pending at the latest iteration is not θ_t's: the rewound run's next half-step starts
    from θ_t (its M-step gives back the dropped snapshot t + 1)."""
    rng = np.random.default_rng(5)
    X = (rng.random((40, 6)) < 0.4).astype(float)
    y = np.where(rng.random(40) < 0.6, -1, rng.integers(0, 2, 40))
    run = EM(n_classes=2, init="labeled", tol=None, max_iter=20).start(X, y)
    for _ in range(4):
        run.step()
    run.e_step()
    back = run.rewound(2)
    assert back.pending is None and run.pending is not None
    with pytest.raises(ValueError, match="E-step first"):
        back.m_step()
    back.e_step()
    np.testing.assert_array_equal(back.m_step().beta, run.history[3].beta)
    assert run.rewound(4).pending is run.pending   # at the latest iteration the pending E-step is θ_t's


def test_rewound_keeps_a_convergence_reached_at_t():
    run = EM(n_classes=2, init="random", random_state=0, tol=1e-3).start(TOY_X)
    run.run_to_convergence()
    t = run.iteration
    assert run.converged
    again = run.with_settings(tol=None).with_settings(tol=1e-3)
    again.step(); again.step()
    assert again.rewound(t).converged


def test_decreases_flags_falls_beyond_rounding_at_the_same_lambda_only():
    from nbcore.em import decreases

    v = [-10.0, -9.0, -9.5, -9.5 - 1e-13, -8.0, -9.0]
    assert decreases(v) == [2, 5]                                    # 1e-13 is rounding
    assert decreases(v, smoothings=[1, 1, 1, 1, 0.5, 1]) == [2]      # λ changed before t = 5


@pytest.mark.parametrize("model", ["bernoulli", "multinomial"])
def test_em_never_changes_the_callers_matrix_and_reads_read_only_input(model):
    """A data set shared by many sessions is read-only; a stored zero must not be dropped from it."""
    import scipy.sparse as sp

    X = sp.csr_matrix(np.array([[1., 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0]]))
    X.data[0] = 0.0                       # an explicit (stored) zero
    for part in (X.data, X.indices, X.indptr):
        part.setflags(write=False)
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    y = np.array([0, 1, -1, -1, -1])
    run = EM(model=model, n_classes=2, init="labeled", random_state=0).start(X, y)
    run.step()
    dense = EM(model=model, n_classes=2, init="labeled", random_state=0).start(X.toarray(), y)
    dense.step()
    for got, was in zip((X.data, X.indices, X.indptr), before):
        np.testing.assert_array_equal(got, was)
    np.testing.assert_allclose(run.current.params["beta"], dense.current.params["beta"], rtol=1e-12)
