"""Supervised estimators against scikit-learn (oracle), PlayTennis by hand, check_estimator."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as skl
from sklearn.utils.estimator_checks import parametrize_with_checks

import nbcore


def _random_data(seed, n=120, v=9, k=3, kind="binary"):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    if kind == "binary":
        X = (rng.random((n, v)) < 0.2 + 0.5 * rng.random((1, v)) * (y[:, None] % 2)).astype(float)
    elif kind == "counts":
        X = rng.poisson(1.0 + y[:, None] * rng.random((1, v)), (n, v)).astype(float)
    elif kind == "categorical":
        X = rng.integers(0, 4, (n, v)).astype(float)
    else:
        X = rng.normal(y[:, None] * 0.7, 1.0 + y[:, None] * 0.3, (n, v))
    return X, y


@pytest.mark.parametrize("lam", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    "ours, theirs, kind",
    [
        (nbcore.BernoulliNB, skl.BernoulliNB, "binary"),
        (nbcore.MultinomialNB, skl.MultinomialNB, "counts"),
    ],
)
def test_discrete_predict_proba_equals_sklearn(ours, theirs, kind, sparse, lam):
    X, y = _random_data(11, kind=kind)
    Xt, _ = _random_data(12, kind=kind)
    if sparse:
        X, Xt = sp.csr_matrix(X), sp.csr_matrix(Xt)
    a = ours(smoothing=lam).fit(X, y)
    b = theirs(alpha=lam, force_alpha=True).fit(X, y)
    np.testing.assert_allclose(a.predict_proba(Xt), b.predict_proba(Xt), rtol=0, atol=1e-9)
    np.testing.assert_allclose(a.predict_log_proba(Xt), b.predict_log_proba(Xt), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(a.class_prior_, np.exp(b.class_log_prior_), atol=1e-12)
    np.testing.assert_allclose(a.beta_.T, np.exp(b.feature_log_prob_), atol=1e-12)
    np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))


@pytest.mark.parametrize("lam", [0.3, 1.0, 2.5])
def test_categorical_predict_proba_equals_sklearn(lam):
    X, y = _random_data(13, kind="categorical")
    a = nbcore.CategoricalNB(smoothing=lam).fit(X, y)
    b = skl.CategoricalNB(alpha=lam, force_alpha=True).fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X[:50]), b.predict_proba(X[:50]), atol=1e-9)
    for ours, theirs in zip(a.theta_, b.feature_log_prob_):
        np.testing.assert_allclose(ours.T, np.exp(theirs), atol=1e-12)


@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-3])
def test_gaussian_predict_proba_equals_sklearn(var_smoothing):
    X, y = _random_data(14, kind="continuous")
    Xt, _ = _random_data(15, kind="continuous")
    a = nbcore.GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    b = skl.GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    np.testing.assert_allclose(a.predict_proba(Xt), b.predict_proba(Xt), atol=1e-9)
    np.testing.assert_allclose(a.theta_, b.theta_, atol=1e-12)
    np.testing.assert_allclose(a.var_, b.var_, atol=1e-12)


def test_gaussian_biased_vs_unbiased_variance_by_hand():
    X = np.array([[1.0], [2.0], [6.0], [10.0], [12.0]])
    y = np.array([0, 0, 0, 1, 1])
    mle = nbcore.GaussianNB(var_smoothing=0).fit(X, y)
    unb = nbcore.GaussianNB(var_smoothing=0, variance="unbiased").fit(X, y)
    # class 0: mean 3, squared deviations 4 + 1 + 9 = 14 ; class 1: mean 11, 1 + 1 = 2
    np.testing.assert_allclose(mle.theta_[:, 0], [3.0, 11.0])
    np.testing.assert_allclose(mle.var_[:, 0], [14 / 3, 2 / 2])
    np.testing.assert_allclose(unb.var_[:, 0], [14 / 2, 2 / 1])
    floored = nbcore.GaussianNB(var_smoothing=0, var_floor=3.0).fit(X, y)
    np.testing.assert_allclose(floored.var_[:, 0], [14 / 3, 3.0])


def test_play_tennis_lecture_tables():
    """α = (5/14, 9/14) and the conditional tables counted by hand from the lecture's 14 days."""
    ds = nbcore.load_dataset("play_tennis")
    clf = nbcore.CategoricalNB(smoothing=0.0).fit(ds.X, ds.y)
    no, yes = ds.class_names.index("No"), ds.class_names.index("Yes")
    assert clf.class_prior_[no] == pytest.approx(5 / 14)
    assert clf.class_prior_[yes] == pytest.approx(9 / 14)
    by_hand = {  # feature: {value: (count | No of 5, count | Yes of 9)}
        "Outlook": {"Sunny": (3, 2), "Overcast": (0, 4), "Rain": (2, 3)},
        "Temperature": {"Hot": (2, 2), "Mild": (2, 4), "Cool": (1, 3)},
        "Humidity": {"High": (4, 3), "Normal": (1, 6)},
        "Wind": {"Weak": (2, 6), "Strong": (3, 3)},
    }
    for j, feature in enumerate(ds.feature_names):
        for value, (n_no, n_yes) in by_hand[feature].items():
            d = ds.categories[j].index(value)
            assert clf.theta_[j][d, no] == pytest.approx(n_no / 5), (feature, value)
            assert clf.theta_[j][d, yes] == pytest.approx(n_yes / 9), (feature, value)


def test_any_label_values_are_classes():
    X, y = _random_data(16, kind="binary", k=4)
    labels = np.array(["neg", "-1", "pos", "zzz"])[y]
    clf = nbcore.BernoulliNB().fit(X, labels)
    assert list(clf.classes_) == ["-1", "neg", "pos", "zzz"]
    assert set(clf.predict(X)) <= set(labels)
    clf2 = nbcore.BernoulliNB().fit(X, y - 1)  # -1 is an ordinary class for supervised NB
    assert -1 in clf2.classes_


def test_semisupervised_estimator_uses_em_and_nan_labels():
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs, hidden = nbcore.hide_labels(ds.y, 0.9, random_state=0)
    y_float = np.where(y_obs < 0, np.nan, y_obs.astype(float))
    est = nbcore.SemiSupervisedNB(smoothing=1.0, random_state=0).fit(ds.X, y_float)
    sup = nbcore.BernoulliNB(smoothing=1.0).fit(ds.X[~hidden], ds.y[~hidden])
    acc_em = np.mean(est.predict(ds.X[hidden]) == ds.y[hidden])
    acc_sup = np.mean(sup.predict(ds.X[hidden]) == ds.y[hidden])
    assert est.history_[0].iteration == 0 and est.n_iter_ == len(est.history_) - 1
    assert acc_em > acc_sup  # the lesson the dashboard teaches
    objectives = [s.objective for s in est.history_]
    assert all(b >= a - 1e-9 * abs(a) for a, b in zip(objectives, objectives[1:]))


def test_semisupervised_fully_unsupervised_needs_n_classes():
    X = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 0, 0], [1, 1, 0, 0]], float)
    with pytest.raises(ValueError, match="pass n_classes"):
        nbcore.SemiSupervisedNB(init="random").fit(X, np.full(5, -1))
    est = nbcore.SemiSupervisedNB(init="random", n_classes=2, random_state=0, n_init=3).fit(X, np.full(5, -1))
    pred = est.predict(X)
    assert pred[0] == pred[3] == pred[4] != pred[1] == pred[2]


_CLASS_MINUS_ONE = (
    "scikit-learn's check feeds -1 as an ordinary class label, but for "
    "SemiSupervisedNB -1 marks an unlabelled row (sklearn.semi_supervised convention)"
)


def _expected_failures(estimator):
    if isinstance(estimator, nbcore.SemiSupervisedNB):
        return {"check_classifiers_classes": _CLASS_MINUS_ONE}
    return {}


@parametrize_with_checks(
    [
        nbcore.BernoulliNB(),
        nbcore.MultinomialNB(),
        nbcore.CategoricalNB(),
        nbcore.GaussianNB(),
        nbcore.SemiSupervisedNB(),
        nbcore.SemiSupervisedNB(model="gaussian"),
        nbcore.SemiSupervisedNB(model="multinomial"),
        nbcore.SemiSupervisedNB(model="categorical"),
        nbcore.SemiSupervisedNB(model="bernoulli", init="uniform", unlabeled_weight=0.5),
        nbcore.BernoulliNB(fit_prior=False, smoothing=0.5),
        nbcore.MultinomialNB(smoothing=0.0),
        nbcore.CategoricalNB(min_categories=4),
        nbcore.GaussianNB(variance="unbiased", var_floor=1e-3),
    ],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_check_estimator(estimator, check):
    check(estimator)


# ---- scikit-learn's missing pieces --------------------------------------------------

def test_semisupervised_categorical_rejects_negative_codes_with_sklearns_words():
    X = np.array([[0, 1], [1, -1], [2, 0]])
    with pytest.raises(ValueError, match="Negative values in data passed to SemiSupervisedNB"):
        nbcore.SemiSupervisedNB(model="categorical").fit(X, [0, 1, -1])


def test_impossible_row_gives_the_warning_not_numpys():
    # λ = 0: word 1 never seen with class 0, word 0 never with class 1 -> a row with both is
    # impossible under every class (the notes §3.1)
    X = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    y = np.array([0, 0, 1, 1])
    for clf in (nbcore.MultinomialNB(smoothing=0.0), nbcore.BernoulliNB(smoothing=0.0),
                nbcore.SemiSupervisedNB(model="multinomial", smoothing=0.0)):
        clf.fit(X, y)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            proba = clf.predict_proba(np.array([[1, 1]]))
        kinds = {type(w.message) for w in caught}
        assert kinds == {nbcore.ImpossibleDocumentWarning}, [str(w.message) for w in caught]
        np.testing.assert_allclose(proba, [[0.5, 0.5]])


def test_sklearn_attribute_shapes_match_sklearn():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(40, 5))
    y = rng.integers(0, 3, size=40)
    sw = rng.uniform(0.2, 2.0, size=40)
    for ours, theirs in ((nbcore.BernoulliNB(), skl.BernoulliNB()), (nbcore.MultinomialNB(), skl.MultinomialNB()),
                         (nbcore.CategoricalNB(min_categories=4), skl.CategoricalNB(min_categories=4)),
                         (nbcore.GaussianNB(), skl.GaussianNB())):
        ours.fit(X, y, sample_weight=sw)
        theirs.fit(X, y, sample_weight=sw)
        for name in ("class_count_", "class_log_prior_", "feature_count_", "feature_log_prob_", "theta_", "var_",
                     "category_count_", "n_categories_"):
            if not hasattr(theirs, name):
                continue
            a, b = getattr(ours, name), getattr(theirs, name)
            if isinstance(b, list):
                assert len(a) == len(b)
                for u, v in zip(a, b):
                    np.testing.assert_allclose(u, v, rtol=1e-9, atol=1e-12, err_msg=f"{type(ours).__name__}.{name}")
            else:
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=f"{type(ours).__name__}.{name}")
        np.testing.assert_allclose(ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=1e-9)


def test_partial_fit_in_batches_equals_fit():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(60, 6))
    y = rng.integers(0, 3, size=60)
    for make in (nbcore.BernoulliNB, nbcore.MultinomialNB, nbcore.CategoricalNB, nbcore.GaussianNB):
        whole = make().fit(X, y)
        parts = make()
        for rows in np.array_split(np.arange(60), 4):
            parts.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
        np.testing.assert_allclose(parts.predict_proba(X), whole.predict_proba(X), rtol=1e-7, atol=1e-10)
