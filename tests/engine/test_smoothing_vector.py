"""Per-feature smoothing: λ (``smoothing``; scikit-learn's ``alpha``) as an array of length V.

The M-step is the MAP estimate under a prior whose exponent for feature j is λ_j:
Bernoulli β_jk = (λ_j + c_jk) / (2λ_j + N_k), multinomial β_jk = (λ_j + c_jk) / (Σ_j λ_j + total_k),
categorical θ_j[d, k] = (λ_j + c) / (D_j λ_j + N_k); the objective's log prior uses the same λ_j.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as sk
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_almost_equal, assert_array_equal

from nbcore import BernoulliNB, CategoricalNB, MultinomialNB, SemiSupervisedNB, supervised_fit
from nbcore.em import EM
from nbcore.equations import same_smoothing
from nbcore.models import get_model

DISCRETE = ["bernoulli", "multinomial", "categorical"]


def _data(model, n=40, v=5, k=3, seed=0):
    """(X, y) of ``model``'s kind with V = v features; about a third of the labels hidden (−1)."""
    rng = np.random.default_rng(seed)
    if model == "bernoulli":
        X = (rng.random((n, v)) < 0.4).astype(float)
    elif model == "multinomial":
        X = rng.poisson(1.5, (n, v)).astype(float)
    else:
        X = rng.integers(0, 3, (n, v)).astype(float)
    y = np.where(rng.random(n) < 0.35, -1, rng.integers(0, k, n))
    return X, y


# ---- scikit-learn as the oracle ----------------------------------------------------------------

@pytest.mark.parametrize("sparse", [False, True])
def test_multinomial_alpha_vector_matches_scikit_learn(sparse):
    rng = np.random.default_rng(1)
    X = rng.poisson(1.0, (60, 8)).astype(float)
    y = rng.integers(0, 3, 60)
    alpha = rng.uniform(0.05, 3.0, 8)
    Xin = sp.csr_matrix(X) if sparse else X
    ours = MultinomialNB(smoothing=alpha).fit(Xin, y)
    theirs = sk.MultinomialNB(alpha=alpha, force_alpha=True).fit(Xin, y)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
    assert_allclose(ours.predict_proba(Xin), theirs.predict_proba(Xin), rtol=1e-10)


def test_multinomial_alpha_vector_partial_fit_matches_scikit_learn():
    rng = np.random.default_rng(2)
    X = rng.poisson(2.0, (50, 6)).astype(float)
    y = rng.integers(0, 2, 50)
    alpha = np.array([0.5, 1.0, 2.0, 0.1, 4.0, 1.5])
    ours, theirs = MultinomialNB(smoothing=alpha), sk.MultinomialNB(alpha=alpha, force_alpha=True)
    for rows in (slice(0, 20), slice(20, 50)):
        ours.partial_fit(X[rows], y[rows], classes=[0, 1])
        theirs.partial_fit(X[rows], y[rows], classes=[0, 1])
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)


def test_bernoulli_alpha_vector_matches_scikit_learn_with_one_feature():
    """scikit-learn's BernoulliNB smooths the class counts with ``class_count_ + 2 * alpha``, shape
    (K,) + (V,): its alpha array lines up with the features only when V = 1."""
    rng = np.random.default_rng(3)
    X = (rng.random((30, 1)) < 0.3).astype(float)
    y = rng.integers(0, 3, 30)
    ours = BernoulliNB(smoothing=np.array([0.7])).fit(X, y)
    theirs = sk.BernoulliNB(alpha=np.array([0.7]), force_alpha=True).fit(X, y)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)


def test_bernoulli_alpha_vector_matches_scikit_learn_feature_by_feature():
    """Naive Bayes estimates each feature on its own, so column j of feature_log_prob_ with λ_j is
    scikit-learn's BernoulliNB(alpha=λ_j) fitted on column j alone (its own alpha array cannot be
    the oracle for V > 1, see the test above)."""
    rng = np.random.default_rng(4)
    X = (rng.random((50, 6)) < 0.35).astype(float)
    y = rng.integers(0, 3, 50)
    alpha = np.array([0.1, 1.0, 2.5, 0.5, 3.0, 1e-3])
    ours = BernoulliNB(smoothing=alpha).fit(X, y)
    for j, a in enumerate(alpha):
        theirs = sk.BernoulliNB(alpha=a, force_alpha=True).fit(X[:, [j]], y)
        assert_allclose(ours.feature_log_prob_[:, [j]], theirs.feature_log_prob_, rtol=1e-12)
    # and the log-probabilities of the absent words too: log(1 − β) feeds every prediction
    expected = sum(sk.BernoulliNB(alpha=a, force_alpha=True).fit(X[:, [j]], y).predict_joint_log_proba(X[:, [j]])
                   for j, a in enumerate(alpha))
    prior = np.log(np.bincount(y) / len(y))
    assert_allclose(ours.predict_joint_log_proba(X), expected - (len(alpha) - 1) * prior, rtol=1e-10)


def test_categorical_alpha_vector_matches_scikit_learn_feature_by_feature():
    """θ_j uses λ_j and D_j only: scikit-learn's CategoricalNB(alpha=λ_j) on column j alone."""
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, d, 45) for d in (2, 3, 5, 4)])
    y = rng.integers(0, 2, 45)
    alpha = np.array([0.5, 2.0, 0.05, 1.0])
    ours = CategoricalNB(smoothing=alpha).fit(X, y)
    for j, a in enumerate(alpha):
        theirs = sk.CategoricalNB(alpha=a, force_alpha=True).fit(X[:, [j]], y)
        assert_allclose(ours.feature_log_prob_[j], theirs.feature_log_prob_[0], rtol=1e-12)


# ---- scikit-learn's test_alpha_vector (its first half; the second calls a private helper) ------

def test_scikit_learns_alpha_vector_assertions():
    X = np.array([[1, 0], [1, 1]])
    y = np.array([0, 1])
    nb = MultinomialNB(smoothing=np.array([1, 2]), force_smoothing=False)
    nb.partial_fit(X, y, classes=[0, 1])
    feature_prob = np.array([[1 / 2, 1 / 2], [2 / 5, 3 / 5]])
    assert_array_almost_equal(nb.feature_log_prob_, np.log(feature_prob))
    prob = np.array([[5 / 9, 4 / 9], [25 / 49, 24 / 49]])
    assert_array_almost_equal(nb.predict_proba(X), prob)

    # a negative pseudo-count is refused
    with pytest.raises(ValueError, match="≥ 0 for every feature"):
        MultinomialNB(smoothing=np.array([1.0, -0.1]), force_smoothing=False).fit(X, y)

    # force_smoothing=False raises each λ_j below 1e-10 to 1e-10, with scikit-learn's warning
    small = MultinomialNB(smoothing=np.array([1e-10 / 2, 0.5]), force_smoothing=False)
    with pytest.warns(UserWarning, match="alpha too small will result in numeric errors"):
        small.partial_fit(X, y, classes=[0, 1])
    raised = MultinomialNB(smoothing=np.array([1e-10, 0.5])).partial_fit(X, y, classes=[0, 1])
    assert_array_equal(small.feature_log_prob_, raised.feature_log_prob_)

    # an array of the wrong length names the length expected
    with pytest.raises(ValueError, match=r"3 values but the data have 2 features.*length 2"):
        MultinomialNB(smoothing=np.array([1.0, 2.0, 3.0]), force_smoothing=False).fit(X, y)


# ---- the estimates by hand ---------------------------------------------------------------------

X_TINY = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1]], dtype=float)
Y_TINY = np.array([0, 0, 1])
LAM_TINY = np.array([1.0, 0.0, 2.0])


def test_bernoulli_beta_by_hand():
    # class 0: counts (2, 1, 1), N_0 = 2; class 1: counts (0, 0, 1), N_1 = 1
    _, params = supervised_fit("bernoulli", X_TINY, Y_TINY, 2, smoothing=LAM_TINY)
    expected = np.array([[(1 + 2) / (2 + 2), (1 + 0) / (2 + 1)],
                         [(0 + 1) / (0 + 2), (0 + 0) / (0 + 1)],
                         [(2 + 1) / (4 + 2), (2 + 1) / (4 + 1)]])
    assert_allclose(params["beta"], expected, rtol=1e-15)


def test_multinomial_beta_by_hand():
    # Σ_j λ_j = 3; class 0 has 4 tokens, class 1 one
    _, params = supervised_fit("multinomial", X_TINY, Y_TINY, 2, smoothing=LAM_TINY)
    expected = np.array([[3 / 7, 1 / 4], [1 / 7, 0 / 4], [3 / 7, 3 / 4]])
    assert_allclose(params["beta"], expected, rtol=1e-15)


def test_categorical_theta_by_hand():
    X = np.array([[0, 2], [1, 0], [0, 1]])
    _, params = supervised_fit("categorical", X, Y_TINY, 2, smoothing=[1.0, 0.5])
    theta0, theta1 = params["theta"]
    # feature 0: D = 2, λ = 1; feature 1: D = 3, λ = ½; N_0 = 2, N_1 = 1
    assert_allclose(theta0, [[2 / 4, 2 / 3], [2 / 4, 1 / 3]], rtol=1e-15)
    assert_allclose(theta1, [[1.5 / 3.5, 0.5 / 2.5], [0.5 / 3.5, 1.5 / 2.5], [1.5 / 3.5, 0.5 / 2.5]], rtol=1e-15)


def test_zero_entries_are_maximum_likelihood_for_their_features():
    """λ_j = 0 gives feature j the plain count ratio (as λ = 0 does), the others stay smoothed."""
    _, ml = supervised_fit("bernoulli", X_TINY, Y_TINY, 2, smoothing=0.0)
    _, mixed = supervised_fit("bernoulli", X_TINY, Y_TINY, 2, smoothing=LAM_TINY)
    assert_array_equal(mixed["beta"][1], ml["beta"][1])
    assert (mixed["beta"][[0, 2]] != ml["beta"][[0, 2]]).any()
    # a β of exactly 0 where λ_j = 0 has a flat prior: the log prior stays finite (no 0 · −∞)
    model = get_model("bernoulli")
    assert mixed["beta"][1, 1] == 0.0
    assert np.isfinite(model.log_prior(mixed, LAM_TINY))
    # all-zero λ is λ = 0
    _, zeros = supervised_fit("bernoulli", X_TINY, Y_TINY, 2, smoothing=np.zeros(3))
    assert_array_equal(zeros["beta"], ml["beta"])


# ---- the MAP objective: log-likelihood + the same per-feature log prior -----------------------

def _log_prior_by_hand(model, params, lam):
    """Σ_j λ_j Σ_k (log terms of feature j): the notes' Beta / Dirichlet priors with exponent λ_j."""
    if model == "bernoulli":
        b = params["beta"]
        rows = (np.log(b) + np.log1p(-b)).sum(axis=1)
    elif model == "multinomial":
        rows = np.log(params["beta"]).sum(axis=1)
    else:
        rows = np.array([np.log(t).sum() for t in params["theta"]])
    return float(lam @ rows)


@pytest.mark.parametrize("model", DISCRETE)
@pytest.mark.parametrize("init", ["uniform", "random", "labeled"])
def test_em_with_a_vector_never_decreases_the_objective(model, init):
    X, y = _data(model, seed=11)
    lam = np.linspace(0.1, 2.5, X.shape[1])
    run = EM(model=model, n_classes=3, smoothing=lam, init=init, random_state=0, tol=None, max_iter=25).start(X, y)
    run.run_to_convergence()
    assert run.objective_decreases() == []
    objectives = np.array([s.objective for s in run.history])
    assert np.all(np.diff(objectives) >= -1e-10 * np.abs(objectives[:-1]))
    for snap in run.history:
        assert_allclose(snap.objective - snap.log_likelihood, _log_prior_by_hand(model, snap.params, lam),
                        rtol=1e-10)
    assert isinstance(run.current.smoothing, np.ndarray) and not run.current.smoothing.flags.writeable
    assert_array_equal(run.current.smoothing, lam)


@pytest.mark.parametrize("model", DISCRETE)
def test_the_m_step_maximises_the_objective_with_the_same_prior(model):
    """Supervised: the M-step's θ beats every nearby θ on log-likelihood + log prior (same λ_j)."""
    X, _ = _data(model, n=30, v=4, seed=7)
    y = np.random.default_rng(7).integers(0, 2, 30)
    lam = np.array([0.3, 2.0, 1.0, 5.0])
    m = get_model(model)
    Xp = m.prepare(X)
    weights = np.eye(2)[y]
    params = m.params_from(m.statistics(Xp, weights), lam)

    def objective(p):
        ll = float((m.log_likelihood(Xp, p) * weights).sum())
        return ll + m.log_prior(p, lam)

    best = objective(params)
    rng = np.random.default_rng(0)
    key = m.param_names[0]
    for _ in range(20):
        if model == "categorical":
            blocks = []
            for t in params["theta"]:
                t = t * np.exp(rng.normal(0, 0.05, t.shape))
                blocks.append(t / t.sum(axis=0))
            other = {"theta": tuple(blocks)}
        else:
            b = params[key] * np.exp(rng.normal(0, 0.05, params[key].shape))
            other = {key: b / b.sum(axis=0) if model == "multinomial" else np.clip(b, 1e-9, 1 - 1e-9)}
        assert objective(other) <= best + 1e-9


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(DISCRETE), st.integers(0, 2**31 - 1), st.sampled_from(["uniform", "random", "labeled"]),
       st.sampled_from([1.0, 0.5]))
def test_property_per_feature_objective_never_decreases(model, seed, init, w):
    rng = np.random.default_rng(seed)
    n, v, k = int(rng.integers(4, 25)), int(rng.integers(1, 6)), int(rng.integers(2, 4))
    X, _ = _data(model, n=n, v=v, k=k, seed=seed)
    y = np.where(rng.random(n) < rng.random(), -1, rng.integers(0, k, n))
    if init == "labeled" and not (y >= 0).any():
        init = "uniform"
    lam = rng.choice([0.0, 0.01, 0.5, 1.0, 3.0], size=v)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = EM(model=model, n_classes=k, smoothing=lam, init=init, unlabeled_weight=w, random_state=seed,
                 tol=None).start(X, y)
        for _ in range(8):
            run.step()
    objectives = np.array([s.objective for s in run.history])
    assert not np.isnan(objectives).any()
    finite = np.isfinite(objectives)
    if finite.any():  # once finite (λ_j = 0 can start at −∞), EM never lowers the MAP objective
        tail = objectives[np.argmax(finite):]
        assert np.isfinite(tail).all()
        assert np.all(np.diff(tail) >= -1e-9 * np.maximum(1.0, np.abs(tail[:-1])))


# ---- a constant vector is the scalar λ ---------------------------------------------------------

@pytest.mark.parametrize("model", DISCRETE)
@pytest.mark.parametrize("lam", [0.0, 0.1, 1.0, 2.7])
def test_a_constant_vector_runs_exactly_as_the_scalar(model, lam):
    X, y = _data(model, seed=3)
    settings_ = dict(model=model, n_classes=3, init="random", random_state=5, max_iter=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # λ = 0 may leave an impossible document
        scalar = EM(smoothing=lam, **settings_).fit(X, y)
        vector = EM(smoothing=np.full(X.shape[1], lam), **settings_).fit(X, y)
    assert len(scalar.history) == len(vector.history)
    assert scalar.stop_reason == vector.stop_reason
    for a, b in zip(scalar.history, vector.history):
        assert_array_equal(a.alpha, b.alpha)
        for key in a.params:
            for u, v in zip(np.atleast_1d(a.params[key]) if key != "theta" else a.params[key],
                            np.atleast_1d(b.params[key]) if key != "theta" else b.params[key]):
                assert_array_equal(u, v)
        assert a.log_likelihood == b.log_likelihood or (np.isnan(a.log_likelihood) and np.isnan(b.log_likelihood))
        assert a.objective == b.objective
        assert a.delta == b.delta
    assert isinstance(scalar.current.smoothing, float)
    assert same_smoothing(scalar.current.smoothing, vector.current.smoothing)


@pytest.mark.parametrize("estimator", [BernoulliNB, MultinomialNB, CategoricalNB])
def test_a_constant_vector_fits_exactly_as_the_scalar(estimator):
    model = {BernoulliNB: "bernoulli", MultinomialNB: "multinomial", CategoricalNB: "categorical"}[estimator]
    X, y = _data(model, seed=9)
    y = np.abs(y)
    a = estimator(smoothing=0.3).fit(X, y)
    b = estimator(smoothing=[0.3] * X.shape[1]).fit(X, y)
    for u, v in zip(np.atleast_2d(a.feature_log_prob_) if model != "categorical" else a.feature_log_prob_,
                    np.atleast_2d(b.feature_log_prob_) if model != "categorical" else b.feature_log_prob_):
        assert_array_equal(u, v)


# ---- continuing a run with a per-feature λ -----------------------------------------------------

@pytest.mark.parametrize("model", DISCRETE)
def test_with_settings_takes_a_vector(model):
    X, y = _data(model, seed=4)
    run = EM(model=model, n_classes=3, smoothing=1.0, random_state=1, tol=None).start(X, y)
    for _ in range(3):
        run.step()
    lam = np.linspace(0.2, 3.0, X.shape[1])
    cont = run.with_settings(smoothing=lam)
    for _ in range(5):
        cont.step()
    assert [s.smoothing for s in cont.history[:4]] == [1.0] * 4
    for s in cont.history[4:]:
        assert_array_equal(s.smoothing, lam)
    assert cont.objective_decreases() == []
    assert "V = " in repr(cont)
    # the snapshot keeps its own copy: changing the caller's array changes nothing
    lam[0] = 99.0
    assert cont.current.smoothing[0] != 99.0
    # and back to a scalar
    back = cont.with_smoothing(0.5)
    back.step()
    assert back.current.smoothing == 0.5
    assert back.objective_decreases() == []


def test_with_settings_checks_the_length_at_once():
    X, y = _data("multinomial")
    run = EM(model="multinomial", n_classes=3).start(X, y)
    with pytest.raises(ValueError, match=r"4 values but the data have 5 features.*length 5"):
        run.with_settings(smoothing=np.ones(4))


def test_semi_supervised_estimator_takes_a_vector():
    X, y = _data("bernoulli", seed=2)
    lam = np.linspace(0.5, 2.0, X.shape[1])
    est = SemiSupervisedNB(model="bernoulli", smoothing=lam, max_iter=20).fit(X, y)
    run = EM(model="bernoulli", n_classes=3, smoothing=lam, init="labeled", max_iter=20).fit(X, y)
    assert_array_equal(est.params_["beta"], run.current.beta)


# ---- bad λ: a clear ValueError -----------------------------------------------------------------

BAD = [
    (np.ones(4), r"4 values but the data have 5 features.*an array of length 5"),
    (np.ones(6), r"6 values but the data have 5 features.*an array of length 5"),
    (np.array([1.0, -0.5, 1.0, 1.0, 1.0]), r"finite and ≥ 0 for every feature.*λ_1 = -0.5"),
    (np.array([1.0, 1.0, np.nan, 1.0, 1.0]), r"finite and ≥ 0 for every feature.*λ_2 = nan"),
    (np.array([1.0, 1.0, 1.0, np.inf, 1.0]), r"finite and ≥ 0 for every feature.*λ_3 = inf"),
    (np.ones((1, 5)), r"1-D array with one pseudo-count per feature.*shape \(1, 5\)"),
    (np.ones((5, 2)), r"1-D array with one pseudo-count per feature.*shape \(5, 2\)"),
    (np.array([]), r"1-D array with one pseudo-count per feature.*shape \(0,\)"),
]


@pytest.mark.parametrize("lam, message", BAD)
@pytest.mark.parametrize("model", DISCRETE)
def test_bad_vectors_give_a_clear_error(model, lam, message):
    X, y = _data(model)
    with pytest.raises(ValueError, match=message):
        EM(model=model, n_classes=3, smoothing=lam).start(X, y)
    with pytest.raises(ValueError, match=message):
        supervised_fit(model, X, np.abs(y), 3, smoothing=lam)
    run = EM(model=model, n_classes=3).start(X, y)
    with pytest.raises(ValueError, match=message):
        run.with_settings(smoothing=lam)


@pytest.mark.parametrize("lam, message", BAD)
@pytest.mark.parametrize("estimator", [BernoulliNB, MultinomialNB, CategoricalNB])
def test_estimators_refuse_bad_vectors_and_keep_their_fit(estimator, lam, message):
    model = {BernoulliNB: "bernoulli", MultinomialNB: "multinomial", CategoricalNB: "categorical"}[estimator]
    X, y = _data(model)
    y = np.abs(y)
    est = estimator().fit(X, y)
    before = est.predict_proba(X)
    est.set_params(smoothing=lam)
    with pytest.raises(ValueError, match=message):
        est.fit(X, y)
    with pytest.raises(ValueError, match=message):
        est.partial_fit(X, y)
    est.set_params(smoothing=1.0)
    assert_array_equal(est.predict_proba(X), before)


def test_gaussian_refuses_a_vector_and_says_why():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 3)), rng.integers(0, 2, 30)
    with pytest.raises(ValueError, match="Gaussian model has no pseudo-counts.*var_smoothing"):
        EM(model="gaussian", n_classes=2, smoothing=np.ones(3), init="labeled").start(X, y)
    with pytest.raises(ValueError, match="Gaussian model has no pseudo-counts"):
        SemiSupervisedNB(model="gaussian", smoothing=np.ones(3)).fit(X, y)
    # a single λ is still accepted (and ignored) as before
    EM(model="gaussian", n_classes=2, smoothing=2.0, init="labeled").start(X, y).step()


def test_scalar_errors_are_unchanged():
    X, y = _data("bernoulli")
    for lam in (-1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="smoothing λ must be ≥ 0"):
            EM(smoothing=lam, n_classes=3).start(X, y)
    for lam in ("one", None):
        with pytest.raises(ValueError, match="smoothing λ must be a number ≥ 0"):
            EM(smoothing=lam, n_classes=3).start(X, y)


def test_same_smoothing():
    assert same_smoothing(1.0, 1.0) and not same_smoothing(1.0, 2.0)
    assert same_smoothing(np.array([1.0, 1.0]), 1.0)
    assert same_smoothing(np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    assert not same_smoothing(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    assert not same_smoothing(np.array([1.0, 2.0]), 1.0)
    assert not same_smoothing(np.array([1.0, 1.0]), np.array([1.0, 1.0, 1.0]))


def test_a_model_without_per_feature_smoothing_refuses_a_vector():
    """A registered model that only knows a single λ (the default) says so instead of broadcasting
    λ_j against its parameters."""
    from nbcore.models.multinomial import MultinomialModel

    class SingleLambda(MultinomialModel):
        name = "single-lambda-multinomial"
        per_feature_smoothing = False

    X, y = _data("multinomial")
    with pytest.raises(ValueError, match="takes a single smoothing λ ≥ 0, not one per feature; got an array of 5"):
        EM(model=SingleLambda(), n_classes=3, smoothing=np.ones(5)).start(X, y)
    EM(model=SingleLambda(), n_classes=3, smoothing=np.ones(1)[0]).start(X, y).step()
