"""Categorical event model: D_j-valued features (the lecture's PlayTennis, the course session).

θ_j[d, k] = p(feature j takes value d | class k); each θ_j has shape (D_j, K)
and its columns sum to 1. Internally X is one-hot encoded once into a sparse
(N, Σ_j D_j) matrix, so the maths is the same two products as for words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._validation import check_matrix
from ._base import EventModel, ParamTable, check_columns_sum_to_one, feature_smoothing, freeze, log_dot, safe_log

__all__ = ["CategoricalModel", "OneHot", "one_hot", "categorical_theta"]


@dataclass(frozen=True)
class OneHot:
    """Categorical data as a one-hot sparse matrix plus the block layout."""

    matrix: sp.csr_matrix  # (N, Σ_j D_j)
    n_categories: tuple  # (V,) D_j per feature

    @property
    def shape(self):
        return (self.matrix.shape[0], len(self.n_categories))

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.n_categories)])


def one_hot(codes: np.ndarray, n_categories) -> OneHot:
    """Encode integer codes (N, V) with feature j in 0..D_j−1 as one-hot CSR."""
    n, v = codes.shape
    offsets = np.concatenate([[0], np.cumsum(n_categories)])
    cols = (codes + offsets[:-1]).ravel()
    rows = np.repeat(np.arange(n), v)
    matrix = sp.csr_matrix((np.ones(n * v), (rows, cols)), shape=(n, int(offsets[-1])))
    return OneHot(matrix, tuple(int(d) for d in n_categories))


def categorical_theta(counts: np.ndarray, class_weight: np.ndarray, n_categories, smoothing):
    """θ_j[d, k] = (λ_j + Σ_i [x_ij = d] r_ik) / (λ_j D_j + Σ_i r_ik), one block per feature.

    Parameters
    ----------
    counts : (Σ_j D_j, K) weighted counts of each value, feature blocks stacked
    class_weight : (K,) Σ_i r_ik
    n_categories : (V,) D_j per feature
    smoothing : float λ, or (V,) λ_j per feature (the MAP estimate under a
        Dirichlet(λ_j + 1) prior on each θ_j[·, k])

    Returns
    -------
    tuple of V arrays (D_j, K). A class with no weight and λ_j = 0 gets the uniform 1/D_j.
    """
    smoothing = feature_smoothing(smoothing, len(n_categories))
    per_feature = isinstance(smoothing, np.ndarray)
    blocks = []
    start = 0
    for j, d in enumerate(n_categories):
        lam = float(smoothing[j]) if per_feature else smoothing
        block = counts[start:start + d]
        start += d
        denominator = lam * d + class_weight
        empty = denominator <= 0
        safe = np.where(empty, 1.0, denominator)
        blocks.append(np.where(empty, 1.0 / d, (lam + block) / safe))
    return tuple(blocks)


class CategoricalModel(EventModel):
    """Features with D_j values each, coded 0..D_j−1."""

    name = "categorical"
    title = "categorical"
    param_names = ("theta",)
    per_feature_smoothing = True
    input_kind = "categories"
    #: the data sets' feature kinds this model reads (the first is the one it is made for)
    data_kinds = ("categorical",)
    term_tex = r"\log\theta_j[x_{ij}, k]"
    estimate_tex = (r"\theta_{j}[d, y'] = \frac{\lambda + \sum_i [x_{ij} = d]\, r_{i,y'}}"
                    r"{D_j\lambda + \sum_i r_{i,y'}}")
    accepts_sparse = False
    positive_only = True
    input_dtype = "int"

    def __init__(self, n_categories=None):
        self.n_categories = n_categories

    def prepare(self, X, params=None):
        if isinstance(X, OneHot):
            return X
        X = check_matrix(X, allow_sparse=False)
        if X.min() < 0 or not np.all(X == np.round(X)):
            raise ValueError(
                "Categorical Naive Bayes needs each feature coded as 0, 1, ..., D−1 "
                "(whole numbers ≥ 0). Encode the categories first, e.g. with "
                "sklearn.preprocessing.OrdinalEncoder."
            )
        codes = X.astype(np.int64)
        seen = codes.max(axis=0) + 1
        if params is not None:
            n_categories = np.array([t.shape[0] for t in params["theta"]])
            self.check_n_features(codes, len(n_categories))
            unseen = seen > n_categories
            if unseen.any():
                j = int(np.flatnonzero(unseen)[0])
                raise ValueError(
                    f"Feature {j} has the value {int(seen[j] - 1)}, but the model only knows "
                    f"values 0..{int(n_categories[j] - 1)} for it (from the training data). "
                    "Use the same category coding as for training."
                )
        elif self.n_categories is not None:
            n_categories = np.broadcast_to(np.asarray(self.n_categories), seen.shape)
            if (seen > n_categories).any():
                j = int(np.flatnonzero(seen > n_categories)[0])
                raise ValueError(
                    f"Feature {j} has the value {int(seen[j] - 1)}, beyond n_categories = "
                    f"{int(n_categories[j])}."
                )
        else:
            n_categories = seen
        return one_hot(codes, n_categories)

    def log_likelihood(self, Xp, params):
        """log p(x_i | k) = Σ_j log θ_j[x_ij, k]."""
        return log_dot(Xp.matrix, safe_log(np.concatenate(params["theta"])))

    def statistics(self, Xp, weights):
        return {
            "counts": self.weighted_counts(Xp.matrix, weights),
            "class_weight": weights.sum(axis=0),
            "n_categories": Xp.n_categories,
        }

    def params_from(self, stats, smoothing):
        """θ from the statistics; λ a float or a (V,) array of λ_j."""
        n_categories = stats["n_categories"]
        smoothing = self.check_smoothing(smoothing, len(n_categories))
        return freeze(theta=categorical_theta(stats["counts"], stats["class_weight"], n_categories, smoothing))

    def log_prior(self, params, smoothing):
        """Dirichlet(λ_j + 1) prior on each θ_j[·, k]: Σ_j λ_j Σ log θ_j (λ Σ log θ for a single λ).

        Features with λ_j = 0 have a flat prior and add nothing (their θ may be 0)."""
        thetas = params["theta"]
        smoothing = self.check_smoothing(smoothing, len(thetas))
        if isinstance(smoothing, np.ndarray):
            return float(sum(lam * safe_log(t).sum() for lam, t in zip(smoothing, thetas) if lam > 0))
        if smoothing == 0:
            return 0.0
        return float(smoothing * sum(safe_log(t).sum() for t in thetas))

    def uniform_params(self, Xp, n_classes):
        return freeze(theta=tuple(np.full((d, n_classes), 1.0 / d) for d in Xp.n_categories))

    def random_params(self, Xp, n_classes, rng):
        blocks = []
        for d in Xp.n_categories:
            raw = rng.uniform(0.01, 0.99, size=(d, n_classes))
            blocks.append(raw / raw.sum(axis=0))
        return freeze(theta=tuple(blocks))

    def feature_terms(self, params, x):
        """log θ_j[x_j, k]."""
        return np.stack([safe_log(theta[int(v)]) for theta, v in zip(params["theta"], x)])

    def sample(self, params, y, rng):
        """Category codes (int64): feature j takes value d with probability θ_j[d, k]."""
        thetas = params["theta"]
        X = np.zeros((len(y), len(thetas)), dtype=np.int64)
        for j, t in enumerate(thetas):  # loop over features; rows are vectorised
            t = np.asarray(t, dtype=np.float64)
            cdf = np.cumsum(t / t.sum(axis=0, keepdims=True), axis=0)  # (D_j, K)
            u = rng.random(len(y))
            codes = (u[:, None] >= cdf[:, y].T).sum(axis=1)
            X[:, j] = np.minimum(codes, t.shape[0] - 1)
        return X

    def check_params(self, params, n_classes):
        if not hasattr(params, "keys") or "theta" not in params:
            raise ValueError(f"sample('categorical', ...) needs params['theta'] (got keys: {sorted(params)}).")
        blocks = []
        for j, t in enumerate(params["theta"]):
            t = np.asarray(t, dtype=np.float64)
            if t.ndim != 2 or t.shape[1] != n_classes:
                raise ValueError(f"params['theta'][{j}] must have shape (D_j, {n_classes}); got {t.shape}.")
            check_columns_sum_to_one(t, f"params['theta'][{j}]")
            blocks.append(t)
        return {"theta": tuple(blocks)}

    def param_table(self, params, feature_names, categories=None):
        mats, rows = [], []
        for j, th in enumerate(params["theta"]):
            th = np.asarray(th, dtype=float)
            mats.append(th)
            vals = categories[j] if categories is not None and j < len(categories) else range(th.shape[0])
            rows += [f"{feature_names[j]} = {v}" for v in vals]
        return ParamTable(np.vstack(mats), rows, "θ = p(value | class)", "θ", True, 0.0, 1.0)

    def describe_row(self, x, feature_names, categories=None):
        """``feature=value`` for every feature (the category's name when known)."""
        return ", ".join(f"{feature_names[j]}={categories[j][int(v)] if categories else int(v)}"
                         for j, v in enumerate(x))

    def estimate_parts(self, stats):
        """θ_j[d, k] = (λ + Σ_i [x_ij = d] r_ik) / (λ D_j + Σ_i r_ik), stacked over j."""
        counts = stats["counts"]
        lam_den = np.repeat(np.asarray(stats["n_categories"], dtype=float), stats["n_categories"])
        return counts, np.broadcast_to(stats["class_weight"], counts.shape), lam_den

    def check_chunkable(self, init=None):
        if self.n_categories is None:
            raise ValueError(
                "Chunked categorical EM needs the number of categories up front (a chunk may "
                "not contain every value): EM(model='categorical', model_options="
                "{'n_categories': [D_1, ..., D_V]}) (or one number for every feature). "
                "nbcore.dask_em.count_categories(X) computes it from the data in one pass."
            )

    def chunk_layout(self, n_features):
        """D_j for every feature (the same for every chunk)."""
        return tuple(int(d) for d in np.broadcast_to(np.asarray(self.n_categories), (n_features,)))
