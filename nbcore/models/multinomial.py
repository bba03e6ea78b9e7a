"""Multinomial event model: word counts (the notebook, exercise 3).

β[j, k] = p(next token is word j | class k); each column of β sums to 1.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_matrix, check_non_negative
from ._base import (
    EventModel,
    ParamTable,
    check_columns_sum_to_one,
    column_sum,
    feature_smoothing,
    freeze,
    log_dot,
    matmul,
    param_matrix,
    safe_log,
    weighted_log_sum,
)

__all__ = ["MultinomialModel", "multinomial_log_likelihood", "multinomial_beta"]


def multinomial_log_likelihood(X, beta: np.ndarray) -> np.ndarray:
    """log p(x_i | y = k) = Σ_j x_ij log β_jk, up to the multinomial coefficient
    log(n_i! / Π_j x_ij!), which does not depend on θ and is left out (as in
    scikit-learn).

    Parameters
    ----------
    X : (N, V) non-negative counts, ndarray or scipy.sparse
    beta : (V, K), columns summing to 1

    Returns
    -------
    (N, K) ndarray; -inf where a document uses a word with β = 0 (λ = 0).
    """
    return log_dot(X, safe_log(beta))


def multinomial_beta(counts: np.ndarray, smoothing) -> np.ndarray:
    """β_jk = (λ_j + Σ_i x_ij r_ik) / (Σ_j' λ_j' + Σ_j' Σ_i x_ij' r_ik)  (λV in the denominator
    for a single λ).

    Parameters
    ----------
    counts : (V, K) Σ_i x_ij r_ik
    smoothing : float λ, or (V,) λ_j per feature (the MAP estimate under a
        Dirichlet(λ_1 + 1, ..., λ_V + 1) prior on each column; scikit-learn's
        (fc + alpha) / (fc.sum(1) + alpha.sum()))

    Returns
    -------
    (V, K) β, columns summing to 1. A class without a single (weighted) token and
    λ = 0 gets the uniform 1/V.
    """
    n_features = counts.shape[0]
    smoothing = feature_smoothing(smoothing, n_features)
    if isinstance(smoothing, np.ndarray):  # not all λ_j equal, so Σ_j λ_j > 0
        beta = counts + smoothing[:, None]
        beta /= smoothing.sum() + counts.sum(axis=0)
        return beta
    denominator = smoothing * n_features + counts.sum(axis=0)
    empty = denominator <= 0
    if empty.any():
        return np.where(empty, 1.0 / n_features, (smoothing + counts) / np.where(empty, 1.0, denominator))
    beta = counts + smoothing  # one (V, K) allocation, then in place
    beta /= denominator
    return beta


class MultinomialModel(EventModel):
    """Count features: p(x | k) ∝ Π_j β_jk^x_j."""

    name = "multinomial"
    param_names = ("beta",)
    per_feature_smoothing = True
    input_kind = "counts"
    #: the data sets' feature kinds this model reads (the first is the one it is made for)
    data_kinds = ("counts", "binary")
    title = "multinomial"
    positive_only = True
    term_tex = r"x_{ij}\log\beta_{jk}"
    estimate_tex = (r"\beta_{j,y'} = \frac{\lambda + \sum_i X_{i,j}\, r_{i,y'}}"
                    r"{V\lambda + \sum_i\sum_{j'} X_{i,j'}\, r_{i,y'}}")

    def prepare(self, X, params=None):
        X = check_matrix(X)
        if params is not None:
            self.check_n_features(X, params["beta"].shape[0])
        check_non_negative(X, model="multinomial")
        return X

    def input_note(self, kind):
        if kind == "binary":
            return ("Presence (0/1) with the **multinomial** model: each term present counts once, "
                    "as if every word occurred a single time.")
        return None

    def log_likelihood(self, Xp, params):
        return multinomial_log_likelihood(Xp, params["beta"])

    def evaluate(self, Xp, params, smoothing):
        """log p(x | k) and the log prior, taking log β once."""
        lp, prior = self.log_params(params, smoothing)
        return self.log_likelihood_from(Xp, lp), prior

    def log_params(self, params, smoothing):
        """``({"log_beta": log β}, log prior)``; ``({"beta": β}, …)`` when some β = 0 (λ = 0)."""
        beta = params["beta"]
        if not beta.min() > 0:  # λ = 0 zeros: the careful path
            return {"beta": beta}, self.log_prior(params, smoothing)
        smoothing = self.check_smoothing(smoothing, beta.shape[0])
        log_beta = np.log(beta)
        if isinstance(smoothing, np.ndarray):
            prior = weighted_log_sum(smoothing, log_beta)
        else:
            prior = float(smoothing * log_beta.sum()) if smoothing else 0.0
        log_beta.flags.writeable = False
        return {"log_beta": log_beta}, prior

    def log_likelihood_from(self, Xp, lp):
        if "beta" in lp:
            return multinomial_log_likelihood(Xp, lp["beta"])
        return matmul(Xp, lp["log_beta"])

    def statistics(self, Xp, weights):
        return {"counts": self.weighted_counts(Xp, weights), "class_weight": column_sum(weights)}

    def params_from(self, stats, smoothing):
        """β from the statistics; λ a float or a (V,) array of λ_j."""
        counts = stats["counts"]
        return freeze(beta=multinomial_beta(counts, self.check_smoothing(smoothing, counts.shape[0])))

    def log_prior(self, params, smoothing):
        """Dirichlet(λ_1 + 1, ..., λ_V + 1) prior on each column of β: Σ_j λ_j Σ_k log β_jk
        (λ Σ log β for a single λ)."""
        beta = params["beta"]
        smoothing = self.check_smoothing(smoothing, beta.shape[0])
        if isinstance(smoothing, np.ndarray):
            return weighted_log_sum(smoothing, safe_log(beta))
        if smoothing == 0:
            return 0.0
        return float(smoothing * safe_log(beta).sum())

    def uniform_params(self, Xp, n_classes):
        n_features = Xp.shape[1]
        return freeze(beta=np.full((n_features, n_classes), 1.0 / n_features))

    def random_params(self, Xp, n_classes, rng):
        """Normalised Uniform(0.01, 0.99) draws (the notebook's ``initialize``)."""
        raw = rng.uniform(0.01, 0.99, size=(Xp.shape[1], n_classes))
        return freeze(beta=raw / raw.sum(axis=0))

    def feature_terms(self, params, x):
        """x_j log β_jk: a word that does not occur contributes 0."""
        with np.errstate(invalid="ignore"):
            return np.where(x[:, None] > 0, x[:, None] * safe_log(params["beta"]), 0.0)

    def sample(self, params, y, rng, doc_length: float = 20.0):
        """Documents of length max(1, Poisson(doc_length)), tokens drawn from β_·k."""
        if not doc_length > 0:
            raise ValueError("doc_length must be positive.")
        beta = params["beta"]
        n = len(y)
        lengths = np.maximum(1, rng.poisson(doc_length, size=n))
        X = np.zeros((n, beta.shape[0]), dtype=np.float64)
        p = beta / beta.sum(axis=0, keepdims=True)
        for k in range(beta.shape[1]):  # loop over classes only; rows are vectorised
            rows = np.flatnonzero(y == k)
            if rows.size:
                X[rows] = rng.multinomial(lengths[rows], p[:, k])
        return X

    def check_params(self, params, n_classes):
        beta = param_matrix(params, "beta", self.name, n_classes)
        check_columns_sum_to_one(beta, "params['beta'] for the multinomial model")
        return {"beta": beta}

    def param_table(self, params, feature_names, categories=None):
        b = np.asarray(params["beta"], dtype=float)
        return ParamTable(b, list(feature_names), "β = p(word | class) (share of word tokens)", "β", True, 0.0,
                          float(b.max()) if b.size else 1.0)

    def describe_row(self, x, feature_names, categories=None):
        """The words present, with their count when above one (``cruise×2``)."""
        idx = np.flatnonzero(np.asarray(x) > 0)
        return " ".join(f"{feature_names[j]}×{int(x[j])}" if x[j] > 1 else feature_names[j] for j in idx) or "(no words)"

    def estimate_parts(self, stats):
        """β_jk = (λ + Σ_i x_ij r_ik) / (λV + Σ_j' Σ_i x_ij' r_ik)."""
        counts = stats["counts"]
        n_features = counts.shape[0]
        return counts, np.broadcast_to(counts.sum(axis=0), counts.shape), np.full(n_features, float(n_features))
