"""Every bad-input message of the engine, pinned."""

import numpy as np
import pytest
import scipy.sparse as sp

from nbcore.em import EM

X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]], float)
Y = np.array([0, 1, -1, -1])


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.ones(4), "must be a 2-D table"),
        (np.ones((2, 2, 2)), "must be a 2-D table"),
        (np.ones((0, 3)), "is empty"),
        (np.array([[1, np.nan, 0]] * 4), "contains NaN values"),
        (np.array([[1, np.inf, 0]] * 4), "contains infinite values"),
        (np.array([["a", "b", "c"]] * 4), "not numbers"),
    ],
)
def test_bad_matrix(bad, message):
    with pytest.raises(ValueError, match=message):
        EM(n_classes=2).start(bad, None)


def test_non_binary_for_bernoulli():
    with pytest.raises(ValueError, match=r"needs binary data .* contains the value 2.*Binarise it first"):
        EM(model="bernoulli").start(X * 2, Y)
    with pytest.raises(ValueError, match="needs binary data"):
        EM(model="bernoulli").start(sp.csr_matrix(X * 3), Y)


def test_negative_counts_for_multinomial():
    with pytest.raises(ValueError, match=r"multinomial model needs counts, which cannot be negative.*-1"):
        EM(model="multinomial").start(X - 1, Y)


def test_categorical_codes():
    with pytest.raises(ValueError, match="coded as 0, 1, ..., D−1"):
        EM(model="categorical").start(X - 0.5, Y)


def test_gaussian_refuses_sparse():
    with pytest.raises(ValueError, match="needs a dense array"):
        EM(model="gaussian").start(sp.csr_matrix(X), Y)


@pytest.mark.parametrize(
    "y, message",
    [
        (np.array([0, 1, 2, -1]), r"contains the label 2, outside 0..1 for K = 2"),
        (np.array([0, 1, -2, -1]), r"contains the label -2"),
        (np.array([0, 1, -1]), "X has 4 rows but y has 3 labels"),
        (np.array([0.5, 1, -1, -1]), "fractional labels"),
        (np.array(["a", "b", "a", "b"]), "integer class codes"),
        (np.zeros((2, 2)), "must be a 1-D array"),
    ],
)
def test_bad_labels(y, message):
    with pytest.raises(ValueError, match=message):
        EM(n_classes=2).start(X, y)


def test_nan_marks_hidden():
    run = EM(n_classes=2, init="labeled").start(X, np.array([0.0, 1.0, np.nan, np.nan]))
    assert run.y.tolist() == [0, 1, -1, -1]


@pytest.mark.parametrize("k", [1, 0, -3])
def test_k_below_two(k):
    with pytest.raises(ValueError, match=f"n_classes must be at least 2 \\(K = {k}"):
        EM(n_classes=k).start(X, None)


def test_k_not_integer():
    with pytest.raises(ValueError, match="whole number"):
        EM(n_classes=2.5).start(X, None)


def test_all_hidden_with_labeled_init():
    with pytest.raises(ValueError, match=r"init='labeled' needs at least one labelled row.*init='random'"):
        EM(init="labeled").start(X, np.full(4, -1))


def test_nothing_to_learn():
    with pytest.raises(ValueError, match="nothing to learn"):
        EM(init="random", unlabeled_weight=0.0).start(X, np.full(4, -1))


@pytest.mark.parametrize("lam", [-1, -0.001, float("nan"), "x"])
def test_negative_smoothing(lam):
    with pytest.raises(ValueError, match="smoothing λ must be"):
        EM(smoothing=lam).start(X, Y)


@pytest.mark.parametrize("w", [-0.1, 1.5])
def test_unlabeled_weight_range(w):
    with pytest.raises(ValueError, match="unlabeled_weight must be between 0 and 1"):
        EM(unlabeled_weight=w).start(X, Y)


def test_unknown_model_and_init():
    with pytest.raises(ValueError, match="Unknown event model 'poisson'; choose one of bernoulli"):
        EM(model="poisson").start(X, Y)
    with pytest.raises(ValueError, match="init must be one of uniform, random, labeled"):
        EM(init="kmeans").start(X, Y)


def test_feature_mismatch_on_predict():
    run = EM(n_classes=2).start(X, Y)
    with pytest.raises(ValueError, match="X has 2 features but the model was fitted on 3"):
        run.predict_proba(np.ones((1, 2)))


def test_missing_class_in_labels_warns():
    with pytest.warns(RuntimeWarning, match="No labelled row has class 2"):
        EM(n_classes=3, init="labeled").start(X, Y)


def test_bad_n_init():
    with pytest.raises(ValueError, match="n_init must be a whole number"):
        EM(n_init=0).fit(X, Y)
