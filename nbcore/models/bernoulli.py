"""Bernoulli event model: binary bag of words (seed 000, eq. 4-14).

β[j, k] = p(word j present | class k), shape (V, K).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import check_binary, check_matrix
from ._base import EventModel, freeze, log_dot, safe_log

__all__ = ["BernoulliModel", "bernoulli_log_likelihood", "bernoulli_beta"]


def bernoulli_log_likelihood(X, beta: np.ndarray) -> np.ndarray:
    """log p(x_i | y = k) = Σ_j x_ij log β_jk + (1 − x_ij) log(1 − β_jk)  (eq. 5, 11).

    Uses Σ_j (1 − x_ij) log(1 − β_jk) = Σ_j log(1 − β_jk) − Σ_j x_ij log(1 − β_jk),
    so a sparse X is never densified: one product X @ [log β − log(1 − β)]
    plus a per-class constant.

    Parameters
    ----------
    X : (N, V) binary ndarray or scipy.sparse matrix
    beta : (V, K) array in [0, 1]

    Returns
    -------
    (N, K) ndarray; -inf where a document is impossible under a class
    (β = 0 for a present word or β = 1 for an absent one, only with λ = 0).
    """
    log_beta = safe_log(beta)
    log_1m_beta = safe_log(1.0 - beta)
    if np.isfinite(log_beta).all() and np.isfinite(log_1m_beta).all():
        # Fast path (any λ > 0): one sparse-dense product.
        return np.asarray(X @ (log_beta - log_1m_beta)) + log_1m_beta.sum(axis=0)
    # λ = 0 can give β ∈ {0, 1}: treat the infinities on purpose.
    present = log_dot(X, log_beta)
    always = beta == 1.0  # words every document of class k had
    finite_1m = np.where(always, 0.0, log_1m_beta)
    absent = finite_1m.sum(axis=0) - np.asarray(X @ finite_1m)
    n_always = always.sum(axis=0)
    if n_always.any():
        seen = np.asarray(X @ always.astype(np.float64))
        absent = np.where(seen < n_always, -np.inf, absent)
    return present + absent


def bernoulli_beta(counts: np.ndarray, class_weight: np.ndarray, smoothing: float) -> np.ndarray:
    """β_jk = (λ + Σ_i x_ij r_ik) / (2λ + Σ_i r_ik)  (eq. 14, 20, 24; eq. 13 when λ = 0).

    A class with no weight at all and λ = 0 has no data to estimate β from;
    it gets β = ½ (and α = 0, so it never matters).
    """
    denominator = 2.0 * smoothing + class_weight
    empty = denominator <= 0
    if empty.any():
        return np.minimum(np.where(empty, 0.5, (smoothing + counts) / np.where(empty, 1.0, denominator)), 1.0)
    beta = counts + smoothing  # one (V, K) allocation, then in place
    beta /= denominator
    # Σ_i x_ij r_ik and Σ_i r_ik are summed in different orders, so with λ = 0 a word
    # present in every document of a class can come out at 1 + 1e-16: keep β a probability.
    np.minimum(beta, 1.0, out=beta)
    return beta


def _row_blocks(n_rows: int, size: int = 4096):
    for start in range(0, n_rows, size):
        yield slice(start, min(start + size, n_rows))


class BernoulliModel(EventModel):
    """Binary features: p(x | k) = Π_j β_jk^x_j (1 − β_jk)^(1 − x_j)."""

    name = "bernoulli"
    param_names = ("beta",)

    def prepare(self, X, params=None):
        X = check_matrix(X)
        if params is not None:
            self.check_n_features(X, params["beta"].shape[0])
        check_binary(X)
        if sp.issparse(X):
            X.eliminate_zeros()
        return X

    def log_likelihood(self, Xp, params):
        return bernoulli_log_likelihood(Xp, params["beta"])

    def evaluate(self, Xp, params, smoothing):
        """log p(x | k) and the log prior, taking log β and log(1 − β) once."""
        beta = params["beta"]
        if not (beta.min() > 0 and beta.max() < 1):  # λ = 0 extremes: the careful path
            return super().evaluate(Xp, params, smoothing)
        weight = np.log(beta)
        prior = float(weight.sum()) if smoothing else 0.0
        constant = np.zeros(beta.shape[1])
        for rows in _row_blocks(beta.shape[0]):  # log(1 − β) a block at a time: no 2nd (V, K) array
            log_1m_beta = np.log1p(-beta[rows])
            constant += log_1m_beta.sum(axis=0)
            weight[rows] -= log_1m_beta  # log β − log(1 − β)
        prior = float(smoothing * (prior + constant.sum())) if smoothing else 0.0
        ll = np.asarray(Xp @ weight)
        ll += constant
        return ll, prior

    def statistics(self, Xp, weights):
        return {"counts": self.weighted_counts(Xp, weights), "class_weight": weights.sum(axis=0)}

    def params_from(self, stats, smoothing):
        return freeze(beta=bernoulli_beta(stats["counts"], stats["class_weight"], smoothing))

    def log_prior(self, params, smoothing):
        """Beta(λ + 1, λ + 1) prior on each β_jk: λ Σ [log β + log(1 − β)]."""
        if smoothing == 0:
            return 0.0
        beta = params["beta"]
        return float(smoothing * (safe_log(beta).sum() + safe_log(1.0 - beta).sum()))

    def uniform_params(self, Xp, n_classes):
        """β = ½ everywhere (seed 000, fig. 1)."""
        return freeze(beta=np.full((Xp.shape[1], n_classes), 0.5))

    def random_params(self, Xp, n_classes, rng):
        """β ~ Uniform(0.01, 0.99) (seed 004's ``initialize``)."""
        return freeze(beta=rng.uniform(0.01, 0.99, size=(Xp.shape[1], n_classes)))

    def sample(self, params, y, rng):
        """Draw one binary document per entry of y."""
        beta = params["beta"]
        return (rng.random((len(y), beta.shape[0])) < beta[:, y].T).astype(np.float64)
