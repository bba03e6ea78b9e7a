"""Bernoulli event model: binary bag of words (the notes, eq. 4-14).

β[j, k] = p(word j present | class k), shape (V, K).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import check_binary, check_matrix
from ._base import (
    EventModel,
    ParamTable,
    column_sum,
    feature_smoothing,
    freeze,
    log_dot,
    matmul,
    param_matrix,
    safe_log,
    weighted_log_sum,
)

__all__ = ["BernoulliModel", "bernoulli_log_likelihood", "bernoulli_beta", "binarize"]


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
        return matmul(X, log_beta - log_1m_beta) + log_1m_beta.sum(axis=0)
    # λ = 0 can give β ∈ {0, 1}: treat the infinities on purpose.
    present = log_dot(X, log_beta)
    always = beta == 1.0  # words every document of class k had
    finite_1m = np.where(always, 0.0, log_1m_beta)
    absent = finite_1m.sum(axis=0) - matmul(X, finite_1m)
    n_always = always.sum(axis=0)
    if n_always.any():
        seen = matmul(X, always.astype(np.float64))
        absent = np.where(seen < n_always, -np.inf, absent)
    return present + absent


def bernoulli_beta(counts: np.ndarray, class_weight: np.ndarray, smoothing) -> np.ndarray:
    """β_jk = (λ_j + Σ_i x_ij r_ik) / (2λ_j + Σ_i r_ik)  (eq. 14, 20, 24; eq. 13 when λ = 0).

    Parameters
    ----------
    counts : (V, K) Σ_i x_ij r_ik
    class_weight : (K,) Σ_i r_ik
    smoothing : float λ, or (V,) λ_j per feature (the MAP estimate under a
        Beta(λ_j + 1, λ_j + 1) prior on β_j·; scikit-learn's alpha array)

    Returns
    -------
    (V, K) β. A class with no weight at all and λ_j = 0 has no data to estimate
    β_jk from; it gets β = ½ (and α = 0, so it never matters).
    """
    smoothing = feature_smoothing(smoothing, counts.shape[0])
    if isinstance(smoothing, np.ndarray):
        smoothing = smoothing[:, None]  # (V, 1): λ_j for every class of row j
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


def present_absent_split(X, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bernoulli log p(x_i | k) (eq. 11) split into the words present and the words absent.

    present[i, k] = Σ_{j: x_ij = 1} log β_jk;  absent[i, k] = Σ_{j: x_ij = 0} log(1 − β_jk).
    Their sum is the class-conditional log-likelihood. Shapes: X (N, V) 0/1, beta (V, K) → (N, K).
    """
    b = np.asarray(beta, dtype=float)
    with np.errstate(divide="ignore"):
        log_b, log_1mb = np.log(b), np.log1p(-b)
    Xs = X if sp.issparse(X) else sp.csr_matrix(np.asarray(X))  # sparse: 0 · (−∞) is never formed
    present = np.asarray(Xs @ log_b)
    with np.errstate(invalid="ignore"):  # λ = 0 can make both sums −∞ (shown as such)
        absent = log_1mb.sum(axis=0)[None, :] - np.asarray(Xs @ log_1mb)
    return present, absent


class BernoulliModel(EventModel):
    """Binary features: p(x | k) = Π_j β_jk^x_j (1 − β_jk)^(1 − x_j)."""

    name = "bernoulli"
    title = "Bernoulli"
    param_names = ("beta",)
    per_feature_smoothing = True
    input_kind = "binary"
    #: the data sets' feature kinds this model reads (the first is the one it is made for)
    data_kinds = ("binary", "counts", "continuous")
    scores_absent_features = True
    term_tex = r"x_{ij}\log\beta_{jk} + (1-x_{ij})\log(1-\beta_{jk})"
    estimate_tex = (r"\beta_{j,y'}^{t+1} = \frac{\lambda + \sum_i X_{i,j}\, p(y_i = y' \mid X_i)}"
                    r"{2\lambda + \sum_i p(y_i = y' \mid X_i)} \quad (24)")

    def prepare(self, X, params=None):
        X = check_matrix(X)
        if params is not None:
            self.check_n_features(X, params["beta"].shape[0])
        check_binary(X)
        if sp.issparse(X) and X.nnz and not X.data.all():
            X = X.copy()  # stored zeros are dropped from a copy: the caller's matrix is never changed
            X.eliminate_zeros()
        return X

    def log_likelihood(self, Xp, params):
        return bernoulli_log_likelihood(Xp, params["beta"])

    def log_likelihood_by_presence(self, X, params):
        return present_absent_split(X, params["beta"])

    def input_note(self, kind):
        if kind == "counts":
            return ("Counts with the **Bernoulli** model: Bernoulli NB only asks whether a term occurs, "
                    "so the counts are turned into presence (x > 0).")
        return None

    def evaluate(self, Xp, params, smoothing):
        """log p(x | k) and the log prior, taking log β and log(1 − β) once."""
        lp, prior = self.log_params(params, smoothing)
        return self.log_likelihood_from(Xp, lp), prior

    def log_params(self, params, smoothing):
        """``({"weight": log β − log(1 − β), "constant": Σ_j log(1 − β_jk)}, log prior)``.

        With β ∈ {0, 1} (λ = 0) it is ``({"beta": β}, log prior)`` and the
        careful path of :func:`bernoulli_log_likelihood` is used.
        """
        beta = params["beta"]
        if not (beta.min() > 0 and beta.max() < 1):  # λ = 0 extremes: the careful path
            return {"beta": beta}, self.log_prior(params, smoothing)
        smoothing = self.check_smoothing(smoothing, beta.shape[0])
        per_feature = isinstance(smoothing, np.ndarray)
        weight = np.log(beta)
        prior = float(weight.sum()) if not per_feature and smoothing else 0.0
        # per feature λ_j: the prior needs each row's Σ_k [log β_jk + log(1 − β_jk)]
        row_logs = weight.sum(axis=1) if per_feature else None
        constant = np.zeros(beta.shape[1])
        for rows in _row_blocks(beta.shape[0]):  # log(1 − β) a block at a time: no 2nd (V, K) array
            log_1m_beta = np.log1p(-beta[rows])
            constant += column_sum(log_1m_beta)
            if per_feature:
                row_logs[rows] += log_1m_beta.sum(axis=1)
            weight[rows] -= log_1m_beta  # log β − log(1 − β)
        if per_feature:
            prior = weighted_log_sum(smoothing, row_logs)
        else:
            prior = float(smoothing * (prior + constant.sum())) if smoothing else 0.0
        weight.flags.writeable = False
        return {"weight": weight, "constant": constant}, prior

    def log_likelihood_from(self, Xp, lp):
        if "beta" in lp:
            return bernoulli_log_likelihood(Xp, lp["beta"])
        ll = matmul(Xp, lp["weight"])
        ll += lp["constant"]
        return ll

    def statistics(self, Xp, weights):
        return {"counts": self.weighted_counts(Xp, weights), "class_weight": column_sum(weights)}

    def params_from(self, stats, smoothing):
        """β from the statistics (eq. 24); λ a float or a (V,) array of λ_j."""
        counts = stats["counts"]
        return freeze(beta=bernoulli_beta(counts, stats["class_weight"], self.check_smoothing(smoothing, counts.shape[0])))

    def log_prior(self, params, smoothing):
        """Beta(λ_j + 1, λ_j + 1) prior on each β_jk: Σ_j λ_j Σ_k [log β_jk + log(1 − β_jk)]
        (λ Σ [log β + log(1 − β)] for a single λ)."""
        beta = params["beta"]
        smoothing = self.check_smoothing(smoothing, beta.shape[0])
        if isinstance(smoothing, np.ndarray):
            return weighted_log_sum(smoothing, safe_log(beta) + safe_log(1.0 - beta))
        if smoothing == 0:
            return 0.0
        return float(smoothing * (safe_log(beta).sum() + safe_log(1.0 - beta).sum()))

    def uniform_params(self, Xp, n_classes):
        """β = ½ everywhere (the notes, fig. 1)."""
        return freeze(beta=np.full((Xp.shape[1], n_classes), 0.5))

    def random_params(self, Xp, n_classes, rng):
        """β ~ Uniform(0.01, 0.99) (the notebook's ``initialize``)."""
        return freeze(beta=rng.uniform(0.01, 0.99, size=(Xp.shape[1], n_classes)))

    def feature_terms(self, params, x):
        """x_j log β_jk + (1 − x_j) log(1 − β_jk): absent words count too (eq. 11)."""
        beta = params["beta"]
        present = x[:, None] > 0
        with np.errstate(invalid="ignore"):
            return np.where(present, safe_log(beta), 0.0) + np.where(present, 0.0, safe_log(1.0 - beta))

    def sample(self, params, y, rng):
        """One binary document per entry of y: word j present with probability β_jk."""
        beta = params["beta"]
        return (rng.random((len(y), beta.shape[0])) < beta[:, y].T).astype(np.float64)

    def check_params(self, params, n_classes):
        beta = param_matrix(params, "beta", self.name, n_classes)
        if np.any(beta < 0) or np.any(beta > 1):
            raise ValueError("params['beta'] must be probabilities between 0 and 1.")
        return {"beta": beta}

    def param_table(self, params, feature_names, categories=None):
        return ParamTable(np.asarray(params["beta"], dtype=float), list(feature_names),
                          "β = p(word present | class)", "β", True, 0.0, 1.0)

    def describe_row(self, x, feature_names, categories=None):
        """The words present."""
        return " ".join(feature_names[j] for j in np.flatnonzero(np.asarray(x) > 0)) or "(no words)"

    def adapt(self, X, kind):
        """Counts or continuous values become word-present indicators X > 0 (float64 0/1)."""
        if kind in ("counts", "continuous"):
            return binarize(X)
        return X

    def estimate_parts(self, stats):
        """β_jk = (λ + Σ_i x_ij r_ik) / (2λ + Σ_i r_ik)  (eq. 24)."""
        counts = stats["counts"]
        return counts, np.broadcast_to(stats["class_weight"], counts.shape), np.full(counts.shape[0], 2.0)

    def squared_distance_all_values(self, params, other):
        """β = p(x_j = 1) and 1 − β = p(x_j = 0) change by the same amount: twice ‖Δβ‖²."""
        return 2.0 * self.squared_distance(params, other)


def binarize(X):
    """X > 0 as float64 0/1 (a new array; sparse stays sparse)."""
    if sp.issparse(X):
        out = X.tocsr(copy=True).astype(np.float64)
        out.data = (out.data > 0).astype(np.float64)
        out.eliminate_zeros()
        return out
    return (np.asarray(X) > 0).astype(np.float64)
