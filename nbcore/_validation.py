"""Input checks for the engine, with the exact messages students see.

Every check raises ``ValueError`` (or a subclass) with a message that names
the problem *and* the fix. Tests in ``tests/engine/test_validation.py`` pin each
message.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp

__all__ = [
    "ImpossibleDocumentWarning",
    "check_matrix",
    "check_labels",
    "check_n_classes",
    "check_smoothing",
    "check_unlabeled_weight",
    "check_random_state",
]


class ImpossibleDocumentWarning(RuntimeWarning):
    """A document has probability zero under every class (only with λ = 0)."""


def check_matrix(X, *, name: str = "X", allow_sparse: bool = True):
    """Return X as float64 CSR (if sparse) or a 2-D float64 ndarray.

    Raises a clear ``ValueError`` for wrong dimensionality, empty input,
    non-numeric values, NaN and infinity.
    """
    if sp.issparse(X):
        if not allow_sparse:
            raise ValueError(
                f"{name} is a sparse matrix, but this event model needs a dense "
                f"array. Convert it with {name}.toarray() first."
            )
        X = sp.csr_matrix(X, dtype=np.float64)
        data = X.data
    else:
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} contains values that are not numbers. Every entry of {name} "
                "must be a number (0/1 for Bernoulli, counts for multinomial, "
                "category codes for categorical, measurements for Gaussian)."
            ) from None
        data = X
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D table of shape (documents, features); got an array "
            f"with {X.ndim} dimension(s) and shape {X.shape}. For a single document "
            f"use {name}.reshape(1, -1)."
        )
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"{name} is empty (shape {X.shape}): it needs at least one document "
            "and one feature."
        )
    if not np.all(np.isfinite(data)):
        bad = "NaN" if np.isnan(data).any() else "infinite"
        raise ValueError(
            f"{name} contains {bad} values. Naive Bayes needs a number in every "
            "cell: fill in or drop the missing entries first."
        )
    return X


def _values(X):
    return X.data if sp.issparse(X) else X


def check_binary(X, *, name: str = "X"):
    v = _values(X)
    if not np.all((v == 0) | (v == 1)):
        bad = v[(v != 0) & (v != 1)].ravel()[0]
        raise ValueError(
            f"Bernoulli Naive Bayes needs binary data (1 = word present, 0 = absent), "
            f"but {name} contains the value {bad:g}. Binarise it first, e.g. "
            f"({name} > 0).astype(float), or use the multinomial model for counts."
        )


def check_non_negative(X, *, name: str = "X", model: str = "multinomial"):
    v = _values(X)
    if v.size and v.min() < 0:
        raise ValueError(
            f"Negative values in data: the {model} model needs counts, which cannot be negative, but {name} "
            f"contains {v.min():g}. Use word counts (0, 1, 2, ...) or the Gaussian "
            "model for measurements that can be negative."
        )


def check_n_classes(n_classes) -> int:
    if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral):
        raise ValueError(
            f"n_classes must be a whole number (the number of classes K), got {n_classes!r}."
        )
    if n_classes < 2:
        raise ValueError(
            f"n_classes must be at least 2 (K = {n_classes} leaves nothing to "
            "classify): a Naive Bayes model needs two or more classes."
        )
    return int(n_classes)


def check_smoothing(smoothing, n_features: int | None = None):
    """λ as a float ≥ 0, or (one pseudo-count per feature) a read-only float64 array.

    Parameters
    ----------
    smoothing : number or array-like of shape (V,)
        λ: one number for every feature, or λ_j for each feature j (scikit-learn's
        ``alpha`` array). Entries are finite and ≥ 0; λ_j = 0 is maximum likelihood
        for feature j.
    n_features : int or None
        V, when known (the data or statistics are at hand): an array must have this length.

    Returns
    -------
    float for a single number (a 0-d array counts as one), else a read-only (V,) ndarray.
    """
    if smoothing is None or isinstance(smoothing, (str, bytes)):
        raise ValueError(f"smoothing λ must be a number ≥ 0, got {smoothing!r}.")
    try:
        values = np.asarray(smoothing, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"smoothing λ must be a number ≥ 0 or an array with one number ≥ 0 per feature, "
            f"got {smoothing!r}."
        ) from None
    if values.ndim == 0:
        value = float(values)
        if not np.isfinite(value) or value < 0:
            raise ValueError(
                f"smoothing λ must be ≥ 0 (λ = 0 is plain maximum likelihood, λ = 1 is "
                f"Laplace smoothing); got {smoothing!r}."
            )
        return value
    expected = "" if n_features is None else f" (here of length V = {n_features})"
    if values.ndim != 1 or values.size == 0:
        raise ValueError(
            f"smoothing λ must be a number ≥ 0 or a 1-D array with one pseudo-count per feature"
            f"{expected}; got an array of shape {values.shape}."
        )
    if n_features is not None and values.shape[0] != n_features:
        raise ValueError(
            f"smoothing λ has {values.shape[0]} values but the data have {n_features} features: "
            f"give one pseudo-count per feature (an array of length {n_features}) or a single number."
        )
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"smoothing λ must be finite and ≥ 0 for every feature (λ_j = 0 is plain maximum "
            f"likelihood for feature j); got λ_{j} = {float(values[j])!r}."
        )
    values = values.copy()  # read-only below; the caller's own array stays writeable
    values.flags.writeable = False
    return values


def check_unlabeled_weight(weight) -> float:
    try:
        value = float(weight)
    except (TypeError, ValueError):
        raise ValueError(f"unlabeled_weight must be a number in [0, 1], got {weight!r}.") from None
    if not (0.0 <= value <= 1.0):
        raise ValueError(
            f"unlabeled_weight must be between 0 and 1 (0 = ignore unlabelled rows, "
            f"1 = plain EM); got {weight!r}."
        )
    return value


def check_labels(y, n_samples: int, n_classes: int) -> np.ndarray:
    """Return y as int64 with -1 for hidden labels.

    Accepts ints with -1 for "hidden" and floats with NaN for "hidden".
    """
    y = np.asarray(y)
    if y.ndim != 1:
        if y.ndim == 2 and 1 in y.shape:
            y = y.ravel()
        else:
            raise ValueError(
                f"y must be a 1-D array of labels (one per document); got shape {y.shape}."
            )
    if y.shape[0] != n_samples:
        raise ValueError(
            f"X has {n_samples} rows but y has {y.shape[0]} labels: give exactly one "
            "label per document (-1 for a hidden label)."
        )
    if y.dtype.kind == "f":
        nan = np.isnan(y)
        if np.isinf(y).any():
            raise ValueError("y contains infinity; labels must be 0..K-1, or -1/NaN for hidden.")
        filled = np.where(nan, -1.0, y)
        if not np.all(filled == np.round(filled)):
            raise ValueError(
                "y contains fractional labels; labels must be whole numbers 0..K-1, "
                "or -1/NaN for hidden."
            )
        y = filled.astype(np.int64)
    elif y.dtype.kind in "iub":
        y = y.astype(np.int64)
    else:
        raise ValueError(
            f"y must hold integer class codes 0..K-1 (-1 = hidden), got values of type "
            f"{y.dtype}. Encode string labels first, e.g. with np.unique(y, return_inverse=True)."
        )
    bad = (y < -1) | (y >= n_classes)
    if bad.any():
        raise ValueError(
            f"y contains the label {int(y[bad][0])}, outside 0..{n_classes - 1} for "
            f"K = {n_classes} classes. Use 0..{n_classes - 1} for known labels and -1 "
            "for hidden ones (or raise n_classes)."
        )
    return y


def check_random_state(random_state) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    raise ValueError(f"random_state must be None, an int or a numpy Generator; got {random_state!r}.")


def warn_impossible(n_rows: int, first: int) -> None:
    warnings.warn(
        f"{n_rows} document(s) (first: row {first}) have probability zero under every "
        "class: each contains a word never seen with any class (or lacks a word every "
        "document of each class had). This happens with smoothing λ = 0; their "
        "posterior is set to uniform. Use λ > 0 to avoid it.",
        ImpossibleDocumentWarning,
        stacklevel=3,
    )


#: the initialisations an EM run accepts
INITS = ("uniform", "random", "labeled")
#: how ‖θ_t − θ_{t−1}‖² is counted (see :func:`nbcore.equations.squared_change`)
THETA_NORMS = ("parameters", "both_values")


def check_run_settings(settings) -> tuple:
    """Validate an :class:`nbcore.EM`'s settings for a run of any type: returns
    (smoothing λ (a float, or a read-only (V,) array checked against V by the event model),
    unlabelled weight w, number of classes K); raises ValueError with the fix."""
    smoothing = check_smoothing(settings.smoothing)
    unlabeled_weight = check_unlabeled_weight(settings.unlabeled_weight)
    n_classes = check_n_classes(settings.n_classes)
    if settings.init not in INITS:
        raise ValueError(f"init must be one of {', '.join(INITS)}; got {settings.init!r}.")
    if not isinstance(settings.max_iter, (int, np.integer)) or settings.max_iter < 0:
        raise ValueError(f"max_iter must be a whole number ≥ 0, got {settings.max_iter!r}.")
    if settings.theta_norm not in THETA_NORMS:
        raise ValueError(f"theta_norm must be one of {', '.join(THETA_NORMS)}; got {settings.theta_norm!r}.")
    return smoothing, unlabeled_weight, n_classes


def warn_classes_without_labels(empty, components: bool = False) -> None:
    """init='labeled' left these classes (a boolean mask over classes) with α = 0: say why
    EM can never bring them back, and what to do."""
    import warnings

    missing = ", ".join(str(k) for k in np.flatnonzero(np.asarray(empty)))
    what = "its components start with α = 0" if components else "its prior α starts at 0"
    warnings.warn(
        f"No labelled row has class {missing}: with init='labeled' {what} and EM can never bring it "
        "back. Reveal at least one label per class or use another initialisation.",
        RuntimeWarning,
        stacklevel=5,
    )


def check_something_to_learn(n_labelled: int, init: str, unlabeled_weight: float) -> None:
    """A run needs a labelled row for init='labeled', and some row that counts in the M-step."""
    if n_labelled == 0 and init == "labeled":
        raise ValueError(
            "init='labeled' needs at least one labelled row, but every label is "
            "hidden. Use init='random' (or 'uniform') for fully unsupervised EM, or "
            "reveal some labels."
        )
    if n_labelled == 0 and unlabeled_weight == 0:
        raise ValueError(
            "Every label is hidden and unlabeled_weight is 0, so there is nothing to "
            "learn from. Reveal some labels or set unlabeled_weight > 0."
        )
