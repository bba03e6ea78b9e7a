"""Baselines a semi-supervised result is measured against, from the labelled rows alone.

EM's accuracy on the hidden labels means little on its own: the class must see what the labelled
rows already give without EM. Three baselines, none of which ever reads a hidden label:

* the **majority class** of the labelled rows (:func:`majority_class`);
* **supervised Naive Bayes at the run's λ** (:func:`supervised_accuracy`);
* **supervised Naive Bayes at the λ it chooses itself** by cross-validation on the labelled rows
  (:func:`choose_smoothing`): leave-one-out, which for Naive Bayes costs one fit — a held-out row's
  own counts are subtracted from the sufficient statistics (:func:`loo_log_joint`, exact and
  vectorised for the Bernoulli and multinomial models; other models are refitted per fold).

:func:`baselines` computes all three and scores them on the hidden rows; the best of them is what
EM's gain is measured against.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .equations import check_smoothing, class_prior, log_joint, normalize_log, one_hot_labels
from .models import get_model
from .models.bernoulli import BernoulliModel
from .models.multinomial import MultinomialModel

__all__ = ["LAMBDA_GRID", "LOOResult", "Baselines", "majority_class", "majority_accuracy", "loo_log_joint",
           "loo_scores", "choose_smoothing", "supervised_accuracy", "baselines"]

#: the λ values cross-validation chooses from (the lesson's slider without 0: with λ = 0 a held-out
#: document with a word its class never had is impossible under that class)
LAMBDA_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)

#: up to this many labelled rows a model without a closed form is refitted once per row (leave-one-out);
#: above it, in GENERIC_FOLDS folds
GENERIC_LOO_MAX = 300
GENERIC_FOLDS = 10


def _labelled(y_obs, n_classes: int) -> np.ndarray:
    y = np.asarray(y_obs)
    if y.ndim != 1:
        raise ValueError(f"y_obs must be a 1-D array of class codes (-1 = hidden); got shape {y.shape}.")
    y = y.astype(np.int64)
    if (y >= n_classes).any() or (y < -1).any():
        raise ValueError(f"y_obs must hold class codes 0 … {n_classes - 1} or -1 (hidden).")
    return y


def majority_class(y_obs, n_classes: int) -> int | None:
    """The most frequent class among the labelled rows (ties: the lowest code); None without a label.

    Parameters
    ----------
    y_obs : (N,) class codes, -1 where the label is hidden
    n_classes : K
    """
    y = _labelled(y_obs, n_classes)
    seen = y[y >= 0]
    if not seen.size:
        return None
    return int(np.argmax(np.bincount(seen, minlength=n_classes)))


def _score_mask(y_obs, y_eval) -> np.ndarray:
    return (np.asarray(y_obs) < 0) & (np.asarray(y_eval) >= 0)


def majority_accuracy(y_obs, y_eval, n_classes: int) -> float | None:
    """Accuracy on the hidden rows (whose true label ``y_eval`` is known) of always answering the
    labelled rows' majority class; None when there is no label or no hidden row to score."""
    k = majority_class(y_obs, n_classes)
    mask = _score_mask(y_obs, y_eval)
    if k is None or not mask.any():
        return None
    return float(np.mean(np.asarray(y_eval)[mask] == k))


def _as_csr(X):
    return X.tocsr() if sp.issparse(X) else sp.csr_matrix(np.asarray(X, dtype=np.float64))


def _loo_closed_form(model, Xl, y: np.ndarray, K: int, lam: float) -> np.ndarray:
    """Held-out log p(x_i, k) for the Bernoulli and multinomial models: the full fit's counts, with the
    row's own counts subtracted from its own class (every other class's parameters are the full fit's)."""
    N = y.shape[0]
    X = _as_csr(Xl).astype(np.float64)
    W = one_hot_labels(y, K)
    n = W.sum(axis=0)                                       # (K,) rows per class
    counts = np.asarray(X.T @ W)                            # (V, K) Σ_i x_ij 1(y_i = k)
    V = X.shape[1]
    rows = np.arange(N)
    with np.errstate(divide="ignore"):
        log_alpha = np.log(n / (N - 1.0))                   # α for the classes the row is not in
        log_alpha_own = np.log((n[y] - 1.0) / (N - 1.0))    # α of its own class, without it
    if isinstance(model, BernoulliModel):
        beta = (counts + lam) / (2.0 * lam + n)
        full = X @ (np.log(beta) - np.log1p(-beta)) + np.log1p(-beta).sum(axis=0)
        # own class k = y_i: β'_j = (λ + c_jk − x_ij) / (2λ + n_k − 1). Words with x_ij = 0 give
        # log(λ + n_k − 1 − c_jk), words with x_ij = 1 give log(λ + c_jk − 1); both arguments are ≥ λ > 0
        # for the words the row can have (a word every row of k has is present in row i, and a word no
        # row of k has is absent), so the other words' values are set to 0 and never used.
        absent = lam + n - 1.0 - counts
        present = lam + counts - 1.0
        log_absent = np.log(np.where(absent > 0, absent, 1.0))
        log_present = np.log(np.where(present > 0, present, 1.0))
        own = (X @ (log_present - log_absent))[rows, y] + log_absent.sum(axis=0)[y] \
            - V * np.log(2.0 * lam + n[y] - 1.0)
    else:  # multinomial
        total = counts.sum(axis=0)
        full = X @ np.log((counts + lam) / (V * lam + total))
        # own class: β'_j = (λ + c_jk − x_ij) / (Vλ + T_k − s_i); only the row's non-zero x_ij enter
        s = np.asarray(X.sum(axis=1)).ravel()
        r = np.repeat(rows, np.diff(X.indptr))
        c_own = counts[X.indices, y[r]]
        terms = X.data * np.log(lam + c_own - X.data)
        own = np.bincount(r, weights=terms, minlength=N) - s * np.log(V * lam + total[y] - s)
    joint = full + log_alpha
    joint[rows, y] = own + log_alpha_own
    return joint


def _folds(N: int) -> list[np.ndarray]:
    if N <= GENERIC_LOO_MAX:
        return [np.array([i]) for i in range(N)]
    return [np.arange(f, N, GENERIC_FOLDS) for f in range(GENERIC_FOLDS)]


def _cv_refit(model, Xl, y: np.ndarray, K: int, lam) -> np.ndarray:
    """Held-out log p(x_i, k) by refitting on the other rows (any event model)."""
    N = y.shape[0]
    W = one_hot_labels(y, K)
    out = np.empty((N, K))
    keep = np.ones(N, dtype=bool)
    for fold in _folds(N):
        keep[:] = True
        keep[fold] = False
        params = model.params_from(model.statistics(model.prepare(Xl[keep]), W[keep]), lam)
        out[fold] = log_joint(model.log_likelihood(model.prepare(Xl[fold], params), params), class_prior(W[keep]))
    return out


def _closed_form(model) -> bool:
    return isinstance(model, (BernoulliModel, MultinomialModel))


def loo_log_joint(model, X, y_obs, n_classes: int, smoothing: float, **model_options) -> np.ndarray:
    """log p(x_i, y = k) of every labelled row under Naive Bayes fitted to the *other* labelled rows.

    Leave-one-out, exactly: for the Bernoulli and multinomial models the row's own counts are
    subtracted from the full fit's sufficient statistics (one fit, vectorised over rows); other event
    models are refitted per row (per fold of :data:`GENERIC_FOLDS` above :data:`GENERIC_LOO_MAX` rows).
    Hidden rows (``y_obs = -1``) are never read.

    Parameters
    ----------
    model : str or EventModel
    X : (N, V) the model's matrix (ndarray or scipy.sparse)
    y_obs : (N,) class codes, -1 where hidden
    n_classes : K
    smoothing : λ > 0

    Returns
    -------
    (N_labelled, K) ndarray, rows in the order of the labelled rows of X.
    """
    model = get_model(model, **model_options)
    lam = check_smoothing(smoothing)
    if not np.isscalar(lam) or not lam > 0:
        raise ValueError(f"Cross-validation needs a single λ > 0; got {smoothing!r}.")
    y_all = _labelled(y_obs, n_classes)
    rows = np.flatnonzero(y_all >= 0)
    if rows.size < 2:
        raise ValueError("Cross-validation needs at least two labelled rows.")
    Xl = X[rows]
    y = y_all[rows]
    if _closed_form(model):
        return _loo_closed_form(model, model.prepare(Xl), y, int(n_classes), float(lam))
    return _cv_refit(model, Xl, y, int(n_classes), float(lam))


@dataclass(frozen=True)
class LOOResult:
    """Cross-validated scores of supervised Naive Bayes on the labelled rows, one per candidate λ."""
    lambdas: tuple            # the candidates
    accuracy: np.ndarray      # (L,) share of labelled rows predicted right when held out
    log_score: np.ndarray     # (L,) mean held-out log p(y_i | x_i)
    n_labelled: int
    method: str               # "leave-one-out" or "10-fold"
    best: float               # the chosen λ (:func:`choose_smoothing`'s rule)


def loo_scores(model, X, y_obs, n_classes: int, lambdas=LAMBDA_GRID, **model_options) -> LOOResult:
    """Held-out accuracy and log score of supervised Naive Bayes for every λ in ``lambdas``, from the
    labelled rows alone. The chosen λ has the highest accuracy; ties go to the higher log score, then to
    the larger λ (the simpler model)."""
    m = get_model(model, **model_options)
    y_all = _labelled(y_obs, n_classes)
    y = y_all[y_all >= 0]
    acc, score = [], []
    for lam in lambdas:
        joint = loo_log_joint(m, X, y_all, n_classes, lam)
        post, _, _ = normalize_log(joint)
        acc.append(float(np.mean(np.argmax(joint, axis=1) == y)))
        with np.errstate(divide="ignore"):
            score.append(float(np.mean(np.log(post[np.arange(y.size), y]))))
    acc, score = np.array(acc), np.array(score)
    order = sorted(range(len(lambdas)), key=lambda i: (acc[i], score[i], lambdas[i]))
    method = "leave-one-out" if _closed_form(m) or y.size <= GENERIC_LOO_MAX else f"{GENERIC_FOLDS}-fold"
    return LOOResult(tuple(float(v) for v in lambdas), acc, score, int(y.size), method, float(lambdas[order[-1]]))


def choose_smoothing(model, X, y_obs, n_classes: int, lambdas=LAMBDA_GRID, **model_options) -> float:
    """The λ supervised Naive Bayes would choose from the labelled rows alone (:func:`loo_scores`)."""
    return loo_scores(model, X, y_obs, n_classes, lambdas, **model_options).best


def supervised_accuracy(model, X, y_obs, y_eval, n_classes: int, smoothing, **model_options) -> float | None:
    """Supervised Naive Bayes fitted to the labelled rows, scored on the hidden rows whose truth
    ``y_eval`` is known (None without a label or a row to score)."""
    m = get_model(model, **model_options)
    y = _labelled(y_obs, n_classes)
    mask = _score_mask(y, y_eval)
    if not (y >= 0).any() or not mask.any():
        return None
    W = one_hot_labels(y, n_classes)
    lab = y >= 0
    params = m.params_from(m.statistics(m.prepare(X[lab]), W[lab]), check_smoothing(smoothing))
    Xs = X[mask]
    pred = np.argmax(log_joint(m.log_likelihood(m.prepare(Xs, params), params), class_prior(W)), axis=1)
    return float(np.mean(pred == np.asarray(y_eval)[mask]))


@dataclass(frozen=True)
class Baselines:
    """The supervised baselines of one data split, scored on its hidden rows."""
    majority: float | None        # always the labelled rows' majority class
    majority_class: int | None
    at_lambda: dict               # {λ: supervised NB accuracy at that λ}
    cv_lambda: float | None       # the λ chosen by cross-validation on the labelled rows
    cv: float | None              # supervised NB accuracy at cv_lambda
    cv_method: str | None
    n_labelled: int

    def best(self, smoothing: float) -> tuple[str, float] | None:
        """(name, accuracy) of the best baseline next to a run at λ = ``smoothing``."""
        named = [("majority class", self.majority), (f"NB at λ = {smoothing:g}", self.at_lambda.get(float(smoothing))),
                 (f"NB at λ = {self.cv_lambda:g} (chosen by {self.cv_method})" if self.cv_lambda is not None else "",
                  self.cv)]
        named = [(n, a) for n, a in named if a is not None and np.isfinite(a)]
        if not named:
            return None
        return max(named, key=lambda na: na[1])


def baselines(model, X, y_obs, y_eval, n_classes: int, smoothings=(1.0,), lambdas=LAMBDA_GRID,
              **model_options) -> Baselines:
    """Majority class, supervised NB at each λ of ``smoothings``, and supervised NB at the λ chosen by
    cross-validation on the labelled rows (:func:`choose_smoothing`), all scored on the hidden rows.
    The hidden labels are read only to score; nothing is chosen from them."""
    y = _labelled(y_obs, n_classes)
    at = {float(s): supervised_accuracy(model, X, y, y_eval, n_classes, s, **model_options) for s in smoothings}
    n_lab = int((y >= 0).sum())
    cv_lam = cv = method = None
    if n_lab >= 2 and len(np.unique(y[y >= 0])) >= 1:
        res = loo_scores(model, X, y, n_classes, lambdas, **model_options)
        cv_lam, method = res.best, res.method
        cv = supervised_accuracy(model, X, y, y_eval, n_classes, cv_lam, **model_options)
    return Baselines(majority_accuracy(y, y_eval, n_classes), majority_class(y, n_classes), at, cv_lam, cv,
                     method, n_lab)
