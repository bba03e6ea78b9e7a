"""The event-model protocol: a new model defined here (Poisson NB for counts) runs through
EM, the estimators, sampling and explain with no other file changed; every registered
model passes the same contract; no code outside nbcore/models/ branches on a model's name."""
from __future__ import annotations

import ast
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.special import gammaln

import nbcore
from nbcore.models import MODELS, EventModel, ParamTable, get_model, register_model, unregister_model

ROOT = Path(__file__).resolve().parents[2]


# ---- a new event model, defined only here -----------------------------------------------------

class PoissonModel(EventModel):
    """Poisson NB: x_j | y = k ~ Poisson(r_jk). MAP with a Gamma(λ + 1, λ) prior on each rate:
    r_jk = (λ + Σ_i w_ik x_ij) / (λ + Σ_i w_ik)."""

    name = "poisson"
    param_names = ("rate",)
    accepts_sparse = False
    input_kind = "counts"
    positive_only = True

    def prepare(self, X, params=None):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError("Poisson NB needs a 2-D array of counts.")
        if (X < 0).any() or not np.all(X == np.round(X)):
            raise ValueError("Poisson NB needs whole-number counts ≥ 0.")
        if params is not None:
            self.check_n_features(X, params["rate"].shape[0])
        return X

    def log_likelihood(self, Xp, params):
        rate = params["rate"]
        return Xp @ np.log(rate) - rate.sum(axis=0) - gammaln(Xp + 1).sum(axis=1)[:, None]

    def statistics(self, Xp, weights):
        return {"counts": Xp.T @ weights, "class_weight": weights.sum(axis=0)}

    def params_from(self, stats, smoothing):
        den = smoothing + stats["class_weight"]
        num = smoothing + stats["counts"]
        rate = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)
        return nbcore.models._base.freeze(rate=np.maximum(rate, 1e-12))

    def log_prior(self, params, smoothing):
        r = params["rate"]
        return float(smoothing * (np.log(r).sum() - r.sum())) if smoothing else 0.0

    def uniform_params(self, Xp, n_classes):
        mean = np.maximum(Xp.mean(axis=0), 1e-3)
        return nbcore.models._base.freeze(rate=np.repeat(mean[:, None], n_classes, axis=1))

    def random_params(self, Xp, n_classes, rng):
        mean = np.maximum(Xp.mean(axis=0), 1e-3)
        return nbcore.models._base.freeze(rate=mean[:, None] * rng.uniform(0.5, 1.5, (Xp.shape[1], n_classes)))

    def feature_terms(self, params, x):
        r = params["rate"]
        return x[:, None] * np.log(r) - r - gammaln(x + 1)[:, None]

    def sample(self, params, y, rng):
        return rng.poisson(params["rate"][:, y].T).astype(np.float64)

    def param_table(self, params, feature_names, categories=None):
        return ParamTable(np.asarray(params["rate"]), list(feature_names), "rate of each count", "r", False, 0.0, None)


@pytest.fixture
def poisson():
    register_model(PoissonModel)
    yield "poisson"
    unregister_model("poisson")


RATES = np.array([[8.0, 1.0], [1.0, 6.0], [3.0, 3.0], [0.5, 4.0]])  # (V, K)


def _poisson_data(n=400, seed=0):
    return nbcore.sample(PoissonModel(), [0.4, 0.6], {"rate": RATES}, n, random_state=seed)


def test_poisson_sampling_recovers_rates(poisson):
    X, y = nbcore.sample("poisson", [0.4, 0.6], {"rate": RATES}, 20_000, random_state=1)
    assert np.abs(np.bincount(y) / len(y) - [0.4, 0.6]).max() < 0.015
    for k in range(2):
        # 5 standard errors of a Poisson mean on ≥ 7000 rows
        se = np.sqrt(RATES[:, k] / np.sum(y == k))
        assert np.all(np.abs(X[y == k].mean(axis=0) - RATES[:, k]) < 5 * se)
    with pytest.raises(ValueError, match="needs params\\['rate'\\]"):
        nbcore.sample("poisson", [0.5, 0.5], {}, 5)


def test_poisson_supervised_fit_is_the_map_by_hand(poisson):
    X, y = _poisson_data()
    lam = 0.5
    alpha, params = nbcore.supervised_fit("poisson", X, y, 2, lam)
    for k in range(2):
        by_hand = (lam + X[y == k].sum(axis=0)) / (lam + np.sum(y == k))
        np.testing.assert_allclose(params["rate"][:, k], by_hand)
    np.testing.assert_allclose(alpha, np.bincount(y) / len(y))


def test_poisson_em_climbs_and_learns_from_a_tenth_of_the_labels(poisson):
    X, y = _poisson_data(600, seed=2)
    y_obs, hidden = nbcore.hide_labels(y, fraction=0.9, random_state=0)
    run = nbcore.EM(model="poisson", n_classes=2, smoothing=1.0, init="labeled", max_iter=60).start(X, y_obs)
    run.run_to_convergence()
    obj = [s.objective for s in run.history]
    assert all(b >= a - 1e-8 * abs(a) for a, b in zip(obj, obj[1:]))  # EM never goes down
    assert run.converged
    acc = nbcore.hidden_accuracy(run.predict(), y, hidden)
    assert acc > 0.9
    np.testing.assert_allclose(run.current.params["rate"], RATES, rtol=0.25, atol=0.3)


def test_poisson_through_the_estimator_and_explain(poisson):
    X, y = _poisson_data(500, seed=3)
    y_semi = y.copy()
    y_semi[::3] = -1
    clf = nbcore.SemiSupervisedNB(model="poisson", smoothing=1.0).fit(X, y_semi)
    assert clf.score(X, y) > 0.9
    proba = clf.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # explain: the per-feature terms add up to the engine's log-likelihood and posterior
    x = X[0]
    ex = nbcore.explain("poisson", clf.class_prior_, clf.params_, x)
    ll = get_model("poisson").log_likelihood(X[:1], clf.params_)[0]
    np.testing.assert_allclose(ex.contributions.sum(axis=0), ll)
    np.testing.assert_allclose(ex.posterior, proba[0])
    with pytest.raises(ValueError, match="whole-number counts"):
        nbcore.explain("poisson", clf.class_prior_, clf.params_, -x - 1)


def test_register_model_refuses_a_taken_name_and_non_models(poisson):
    class Other(PoissonModel):
        pass

    with pytest.raises(ValueError, match="already registered"):
        register_model(Other, "poisson")
    with pytest.raises(TypeError, match="EventModel subclass"):
        register_model(object)

    class Incomplete(EventModel):
        name = "incomplete"

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()


# ---- the contract every registered model keeps ------------------------------------------------

def _contract_models():
    return sorted(MODELS) + ["poisson"]


def _example(m: EventModel, n=90, n_features=5, seed=0):
    """Data this model accepts: small counts, adapted to its input kind."""
    rng = np.random.default_rng(seed)
    counts = rng.poisson(1.2, size=(n, n_features)).astype(np.float64)
    counts = np.minimum(counts, 3)
    return m.adapt(counts, "counts")


@pytest.mark.parametrize("name", _contract_models())
def test_every_model_keeps_the_contract(name):
    registered_here = name not in MODELS
    if registered_here:
        register_model(PoissonModel)
    try:
        _check_contract(get_model(name))
    finally:
        if registered_here:
            unregister_model(name)


def _check_contract(m: EventModel):
    rng = np.random.default_rng(0)
    K = 3
    X = _example(m)
    Xp = m.prepare(X)
    n = X.shape[0]
    weights = rng.dirichlet(np.ones(K), size=n)

    # log_likelihood: (N, K), and the per-feature terms of explain add up to it
    params = m.random_params(Xp, K, rng)
    ll = m.log_likelihood(Xp, params)
    assert ll.shape == (n, K) and np.isfinite(ll).all()
    x0 = np.asarray(X[0].toarray() if hasattr(X[0], "toarray") else X[0], dtype=float).ravel()
    terms = m.feature_terms(params, x0)
    assert terms.shape == (x0.size, K)
    np.testing.assert_allclose(terms.sum(axis=0), ll[0], rtol=1e-9, atol=1e-9)

    # statistics of row chunks combine into those of all rows (Dask builds on this)
    whole = m.params_from(m.statistics(Xp, weights), 1.0)
    cuts = [0, 17, 50, n]
    parts = [m.statistics(m.prepare(X[a:b]), weights[a:b]) for a, b in zip(cuts, cuts[1:])]
    merged = m.params_from(m.combine(parts), 1.0)
    assert m.squared_distance(whole, merged) < 1e-20

    # the uniform start is symmetric: every class the same
    uni = m.uniform_params(Xp, K)
    table = m.param_table(uni, [f"f{j}" for j in range(x0.size)])
    assert np.allclose(table.mat, table.mat[:, :1])

    # param_table: (rows, K) with one label per row; estimate_parts (if any) rebuilds it
    table = m.param_table(whole, [f"f{j}" for j in range(x0.size)])
    assert table.mat.shape[1] == K and len(table.rows) == table.mat.shape[0]
    parts = m.estimate_parts(m.statistics(Xp, weights))
    if parts is not None:
        counts, totals, lam_den = parts
        np.testing.assert_allclose((1.0 + counts) / (lam_den[:, None] * 1.0 + totals), table.mat)
        assert m.estimate_tex
    assert isinstance(m.term_tex, str) and m.term_tex

    # sampling: checked params in, rows the model itself accepts out
    y = rng.integers(0, K, size=40)
    Xs = m.sample(m.check_params(dict(whole), K), y, rng)
    assert Xs.shape == (40, x0.size)
    m.prepare(Xs, whole)
    assert isinstance(m.describe_row(Xs[0], [f"f{j}" for j in range(x0.size)]), str)

    # EM with this model never lowers the MAP objective
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nbcore.ImpossibleDocumentWarning)
        run = nbcore.EM(model=m, n_classes=K, smoothing=1.0, init="random", max_iter=15, random_state=0).start(X)
        run.run_to_convergence()
    obj = [s.objective for s in run.history]
    assert all(b >= a - 1e-7 * abs(a) for a, b in zip(obj, obj[1:])), obj
    assert np.isfinite(m.log_prior(run.current.params, 1.0))


# ---- the model is the only place that knows the model -----------------------------------------

def _name_comparisons(path: Path, names: set[str]) -> list[str]:
    """Every comparison of a value with a model's name (== != in, not in) in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def strings(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for elt in node.elts:
                yield from strings(elt)

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                                                 for op in node.ops):
            for side in [node.left, *node.comparators]:
                if set(strings(side)) & names:
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
            if set(strings(node.pattern.value)) & names:
                found.append(f"{path.name}:{node.pattern.lineno}: case {ast.unparse(node.pattern)}")
    return found


def test_no_code_outside_the_models_branches_on_a_model_name():
    names = set(MODELS)
    files = [p for folder in ("nbcore", "dashboard") for p in sorted((ROOT / folder).rglob("*.py"))
             if not p.is_relative_to(ROOT / "nbcore" / "models")]
    assert len(files) > 20
    found = [hit for p in files for hit in _name_comparisons(p, names)]
    assert not found, "model names compared outside nbcore/models/:\n" + "\n".join(found)


def test_the_name_check_finds_a_comparison(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('if model == "bernoulli" or kind in ("gaussian", "x"):\n    pass\n'
                   'match m:\n    case "categorical":\n        pass\n', encoding="utf-8")
    assert len(_name_comparisons(bad, {"bernoulli", "gaussian", "categorical"})) == 3


# ---- the hooks that replaced the dashboard's model-name comparisons --------------

def test_only_models_whose_absent_features_score_split_by_presence():
    X = np.array([[1, 0, 1], [0, 1, 0]], dtype=float)
    for name in MODELS:
        m = get_model(name)
        if not m.scores_absent_features:
            assert m.log_likelihood_by_presence(X, {}) is None, name
    beta = np.array([[0.5, 0.2], [0.1, 0.4], [0.25, 0.5]])
    present, absent = get_model("bernoulli").log_likelihood_by_presence(X, {"beta": beta})
    # the two parts add up to the model's own log p(x | k) (eq. 11)
    np.testing.assert_allclose(present + absent, X @ np.log(beta) + (1 - X) @ np.log(1 - beta))


def test_input_note_speaks_only_when_the_features_are_not_the_models_own():
    for name in MODELS:
        m = get_model(name)
        assert m.input_note(m.input_kind) is None, name
    assert "presence" in get_model("bernoulli").input_note("counts")
    assert "counts once" in get_model("multinomial").input_note("binary")


def test_gaussian_suggests_a_variance_floor_of_one_percent_of_the_smallest_variance():
    X = np.array([[0.0, 10.0, 5.0], [2.0, 30.0, 5.0], [4.0, 20.0, 5.0]])
    # by hand: variances (population) 8/3, 200/3, 0 -> smallest positive 8/3; 1 % of it
    opts = get_model("gaussian").suggested_options(X)
    assert opts == {"var_floor": pytest.approx(0.01 * 8 / 3)}
    assert "σ² ≥ 0.0267" in get_model("gaussian").options_note(opts)
    assert get_model("gaussian").options_note({"var_floor": 0.0}) is None
    for name in ("bernoulli", "multinomial", "categorical"):
        assert get_model(name).suggested_options(X) == {} and get_model(name).options_note({}) is None
    # a model built with the suggested floor never goes below it
    m = get_model("gaussian", **opts)
    stats = m.statistics(m.prepare(X), np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]))
    assert m.params_from(stats, 0.0)["var"].min() >= opts["var_floor"]


def test_every_model_has_a_title_for_sentences():
    for name in MODELS:
        assert get_model(name).title.lower() == name


def test_which_models_read_which_data_kind_comes_from_the_registry():
    """A data set's models come from each model's ``data_kinds``: the shipped models give the
    table the app has always offered, and a model registered later is offered too."""
    from nbcore.dataset import MODELS_FOR_KIND
    from nbcore.models import EventModel, MultinomialModel, register_model, unregister_model

    assert dict(MODELS_FOR_KIND) == {"binary": ("bernoulli", "multinomial"),
                                     "counts": ("multinomial", "bernoulli"),
                                     "categorical": ("categorical",),
                                     "continuous": ("gaussian", "bernoulli")}

    class Counts2(MultinomialModel):
        name = "counts2"
        data_kinds = ("counts",)

    assert issubclass(Counts2, EventModel)
    register_model(Counts2)
    try:
        assert nbcore.load_dataset("sms_spam", binary=False).models == ("multinomial", "counts2", "bernoulli")
    finally:
        unregister_model("counts2")
    assert "counts2" not in MODELS_FOR_KIND["counts"]
