"""The equations of EM for Naive Bayes, one module-level function per equation of the notes.

=====================  ==========================================================
``log_joint``          log α_k + log p(x_i | k)                        eq. (10-11)
``responsibilities``   p(y_i = k | x_i) for hidden rows (eq. 18/21), one-hot for
                       labelled rows (eq. 22)
``class_prior``        α_k = Σ_i r_ik / N                              eq. (12/19/23)
``m_step``             α from ``class_prior`` and β from the event model's
                       ``statistics`` + ``params_from``               eq. (13/14/20/24)
``observed_log_likelihood``  Σ_lab log p(x_i, y_i) + w Σ_unlab log Σ_k p(x_i, k)  eq. (15-17)
=====================  ==========================================================

Pure functions of arrays and an event model; the run (:mod:`nbcore.run`) and the
settings (:mod:`nbcore.em`) call them.
"""
from __future__ import annotations

import numpy as np

from ._validation import INITS, THETA_NORMS, check_labels, check_n_classes, check_smoothing, warn_impossible  # noqa: F401  # noqa: E402,F401  (the settings' vocabulary)
from .models import get_model
from .models._base import column_sum, safe_log


# ---------------------------------------------------------------------------
# The equations
# ---------------------------------------------------------------------------
def log_joint(log_likelihood: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """log p(x_i, y = k) = log α_k + log p(x_i | y = k)   (eq. 10-11).

    Parameters
    ----------
    log_likelihood : (N, K) log p(x_i | k) from an event model
    alpha : (K,) class prior

    Returns
    -------
    (N, K) ndarray (−inf where α_k = 0 or the document is impossible).
    """
    return log_likelihood + safe_log(alpha)


#: Up to this many classes, a row's sum is taken one column at a time (see :func:`row_sum`).
_SEQUENTIAL_SUM_MAX_K = 7


def row_max(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=1)`` of an (N, K) array, one column at a time.

    numpy reduces along a short last axis row by row (for K = 2 about 30× slower than
    K whole-column maxima); the maximum is exact, so the numbers are the same.
    """
    if a.ndim != 2 or not 1 <= a.shape[1] <= 64:
        return a.max(axis=1)
    out = a[:, 0].copy()
    for k in range(1, a.shape[1]):
        np.maximum(out, a[:, k], out=out)
    return out


def row_sum(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=1)`` of an (N, K) array, bitwise the same, one column at a time for small K.

    numpy adds fewer than 8 numbers of a row left to right, as this column loop does (its
    pairwise summation starts at 8), and the loop runs about 10× faster for K = 2; from 8
    classes on numpy's own sum is used.
    """
    if a.ndim != 2 or not 1 <= a.shape[1] <= _SEQUENTIAL_SUM_MAX_K:
        return a.sum(axis=1)
    out = a[:, 0].copy()
    for k in range(1, a.shape[1]):
        out += a[:, k]
    return out


def normalize_log(joint: np.ndarray):
    """Posterior p(y = k | x_i) and log p(x_i) from log p(x_i, k), stably (eq. 8-9).

    The shift-by-the-maximum log-sum-exp, written inline (it is the same as
    ``scipy.special.logsumexp`` but avoids a second pass over the array).
    A row that is −inf for every class (impossible under every class, λ = 0)
    gets a uniform posterior and log p(x_i) = −inf, never NaN.

    Returns
    -------
    posterior : (N, K)
    log_marginal : (N,)
    impossible : (N,) bool
    """
    top = row_max(joint)
    impossible = ~np.isfinite(top)
    if impossible.any():
        top = np.where(impossible, 0.0, top)
    posterior = np.subtract(joint, top[:, None])
    np.exp(posterior, out=posterior)
    if impossible.any():
        posterior[impossible] = 1.0
    total = row_sum(posterior)
    posterior /= total[:, None]
    with np.errstate(divide="ignore"):
        log_marginal = top + np.log(np.where(impossible, 0.0, total))
    return posterior, log_marginal, impossible


def responsibilities(joint: np.ndarray, y: np.ndarray):
    """E-step: r_ik = p(y_i = k | x_i, θ) for hidden rows (eq. 21), one-hot for labelled rows (eq. 22).

    Labelled rows are never overwritten by a prediction.

    Parameters
    ----------
    joint : (N, K) log p(x_i, k)
    y : (N,) int labels, −1 = hidden

    Returns
    -------
    resp : (N, K)
    log_marginal : (N,) log p(x_i) = log Σ_k p(x_i, k)
    impossible : (N,) bool rows with p(x_i) = 0
    """
    resp, log_marginal, impossible = normalize_log(joint)
    labelled = y >= 0
    if labelled.any():
        rows = np.flatnonzero(labelled)
        resp[rows] = 0.0
        resp[rows, y[rows]] = 1.0
    return resp, log_marginal, impossible


def observed_log_likelihood(joint: np.ndarray, log_marginal: np.ndarray, y: np.ndarray, unlabeled_weight: float = 1.0) -> float:
    """L(θ) = Σ_labelled log p(x_i, y_i) + w · Σ_hidden log Σ_k p(x_i, k)   (eq. 7 + eq. 15-17)."""
    labelled = y >= 0
    total = 0.0
    if labelled.any():
        rows = np.flatnonzero(labelled)
        total += float(joint[rows, y[rows]].sum())
    if unlabeled_weight > 0 and not labelled.all():
        total += unlabeled_weight * float(log_marginal[~labelled].sum())
    return total


def class_prior(weights: np.ndarray) -> np.ndarray:
    """α_k = Σ_i w_ik / Σ_i Σ_k w_ik   (eq. 12 with one-hot w; eq. 19/23 with responsibilities)."""
    class_weight = column_sum(weights)
    return class_weight / class_weight.sum()


def m_step(model, Xp, weights: np.ndarray, smoothing):
    """M-step: (α, params) from weights (eq. 23-24; eq. 12-14 with hard weights).

    Parameters
    ----------
    model : EventModel
    Xp : data prepared by ``model.prepare``
    weights : (N, K) one-hot labels, responsibilities, or a mix
    smoothing : λ ≥ 0, or (V,) λ_j ≥ 0 per feature (models with ``per_feature_smoothing``)

    Returns
    -------
    alpha : (K,) read-only
    params : mapping of read-only arrays (e.g. ``{"beta": (V, K)}``)
    """
    alpha = class_prior(weights)
    alpha.flags.writeable = False
    params = model.params_from(model.statistics(Xp, weights), smoothing)
    return alpha, params


def one_hot_labels(y: np.ndarray, n_classes: int) -> np.ndarray:
    """(N, K) indicator 1(y_i = k); hidden rows (−1) are all zero."""
    out = np.zeros((y.shape[0], n_classes))
    rows = np.flatnonzero(y >= 0)
    out[rows, y[rows]] = 1.0
    return out


def supervised_fit(model, X, y, n_classes: int, smoothing=1.0, sample_weight=None, **model_options):
    """Fully supervised Naive Bayes on the labelled rows of (X, y): eq. (12)-(14).

    Hidden rows (y = −1) are ignored. ``smoothing`` is λ ≥ 0 or a (V,) array of λ_j
    (one pseudo-count per feature). Returns ``(alpha, params)``.
    """
    model = get_model(model, **model_options)
    n_classes = check_n_classes(n_classes)
    smoothing = check_smoothing(smoothing)
    Xp = model.prepare(X)
    y = check_labels(y, Xp.shape[0], n_classes)
    if not (y >= 0).any():
        raise ValueError("Every label is hidden: supervised Naive Bayes needs at least one labelled row.")
    weights = one_hot_labels(y, n_classes)
    if sample_weight is not None:
        weights *= np.asarray(sample_weight, dtype=np.float64)[:, None]
    return m_step(model, Xp, weights, smoothing)


def predict_proba(model, alpha, params, X, **model_options) -> np.ndarray:
    """p(y = k | x_i) for every row of X under (α, params)  (eq. 8)."""
    model = get_model(model, **model_options)
    Xp = model.prepare(X, params)
    posterior, _, impossible = normalize_log(log_joint(model.log_likelihood(Xp, params), np.asarray(alpha)))
    if impossible.any():
        warn_impossible(int(impossible.sum()), int(np.flatnonzero(impossible)[0]))
    return posterior


def squared_change(model, alpha, params, prev_alpha, prev_params, norm: str = "parameters") -> float:
    """‖θ_t − θ_{t−1}‖² for the stop rule of the course session step 4.

    ``norm="parameters"``: Σ_k (Δα_k)² plus Σ (Δp)² over the model's parameter arrays
    (for Bernoulli each word counts once, through β = p(x_j = 1 | k)).

    ``norm="both_values"``: the notes' definition Σ_b (Δθ_b)² + Σ_{k,i,a} (Δθ_{k,i,a})², summed
    over *every value* a of each feature. For a binary feature θ_{k,i,1} = β and
    θ_{k,i,0} = 1 − β change by the same amount, so the β part counts twice. Categorical
    tables and multinomial/Gaussian parameters already list every value: unchanged.
    """
    if norm not in THETA_NORMS:
        raise ValueError(f"theta_norm must be one of {', '.join(THETA_NORMS)}; got {norm!r}.")
    d_alpha = float(np.sum((np.asarray(alpha) - np.asarray(prev_alpha)) ** 2))
    if norm == "both_values":
        d_params = model.squared_distance_all_values(params, prev_params)
    else:
        d_params = model.squared_distance(params, prev_params)
    return d_alpha + d_params


def same_smoothing(a, b) -> bool:
    """Whether two λ (floats or (V,) arrays of λ_j) give every feature the same pseudo-count.

    A constant array is the same λ as its one number (the M-step and the log prior are
    then the same); arrays of different lengths never are."""
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        return a == b
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim and b.ndim and a.shape != b.shape:
        return False
    return bool(np.all(a == b))


def decreases(values, smoothings=None, rtol: float = 1e-10) -> list[int]:
    """Iterations t at which ``values[t]`` fell below ``values[t - 1]`` beyond rounding
    (``rtol`` relative), comparing only steps taken at the same λ (``smoothings[t]``,
    floats or (V,) arrays, compared with :func:`same_smoothing`).

    For the MAP objective EM guarantees the list is empty; for the log-likelihood alone
    (λ > 0) it need not be."""
    v = np.asarray(values, dtype=float)
    return [t for t in range(1, len(v))
            if (smoothings is None or same_smoothing(smoothings[t], smoothings[t - 1]))
            and v[t] < v[t - 1] - rtol * max(1.0, abs(v[t - 1]))]
