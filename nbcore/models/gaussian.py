"""Gaussian event model: continuous features (the lecture MLE, the course session slides).

mean[j, k] = μ_jk and var[j, k] = σ²_jk, shapes (V, K).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_matrix
from .._validation import check_smoothing as _check_smoothing_value
from ._base import EventModel, ParamTable, freeze, param_matrix

__all__ = ["GaussianModel", "gaussian_log_likelihood", "gaussian_moments"]

LOG_2PI = float(np.log(2.0 * np.pi))


def gaussian_log_likelihood(X: np.ndarray, mean: np.ndarray, var: np.ndarray) -> np.ndarray:
    """log p(x_i | k) = −½ Σ_j [log(2π σ²_jk) + (x_ij − μ_jk)² / σ²_jk].

    Computed class by class on centred values (no cancellation).
    """
    out = np.empty((X.shape[0], mean.shape[1]))
    for k in range(mean.shape[1]):
        z = (X - mean[:, k]) ** 2 / var[:, k]
        out[:, k] = -0.5 * (np.sum(LOG_2PI + np.log(var[:, k])) + z.sum(axis=1))
    return out


def gaussian_moments(X: np.ndarray, weights: np.ndarray):
    """Weighted class sizes N_k, means μ_jk and sums of squared deviations M2_jk."""
    class_weight = weights.sum(axis=0)
    safe = np.where(class_weight > 0, class_weight, 1.0)
    mean = (X.T @ weights) / safe
    m2 = np.empty_like(mean)
    for k in range(weights.shape[1]):
        m2[:, k] = weights[:, k] @ (X - mean[:, k]) ** 2
    return class_weight, mean, m2


#: the σ² floor :meth:`GaussianModel.suggested_options` proposes, as a share of the smallest
#: positive feature variance of the data
VAR_FLOOR_SHARE = 0.01


def variance_floor(X, share: float = VAR_FLOOR_SHARE) -> float:
    """``share`` × the smallest positive, finite feature variance of X (N, V); 0 if there is none."""
    v = np.var(np.asarray(X, dtype=float), axis=0)
    v = v[np.isfinite(v) & (v > 0)]
    return float(share * v.min()) if v.size else 0.0


class GaussianModel(EventModel):
    """p(x | k) = Π_j N(x_j; μ_jk, σ²_jk).

    Parameters
    ----------
    variance : {"mle", "unbiased"}
        σ² = M2 / N_k (maximum likelihood, biased; what EM maximises) or
        M2 / (N_k − 1) (unbiased, the lecture), with frequency weights.
    var_smoothing : float
        Adds ``var_smoothing × max_j Var(X[:, j])`` to every variance, as
        scikit-learn's GaussianNB does (keeps σ² > 0 on constant features).
    var_floor : float
        A hard lower bound on every σ². ``max(σ², floor)`` is the exact
        constrained M-step, so EM stays monotone with it.
    """

    name = "gaussian"
    title = "Gaussian"
    param_names = ("mean", "var")
    accepts_sparse = False
    input_kind = "continuous"
    #: the data sets' feature kinds this model reads (the first is the one it is made for)
    data_kinds = ("continuous",)
    term_tex = r"\log\mathcal{N}(x_{ij};\,\mu_{jk},\sigma^2_{jk})"

    def __init__(self, variance: str = "mle", var_smoothing: float = 1e-9, var_floor: float = 0.0):
        if variance not in ("mle", "unbiased"):
            raise ValueError(f"variance must be 'mle' or 'unbiased', got {variance!r}.")
        if var_smoothing < 0 or var_floor < 0:
            raise ValueError("var_smoothing and var_floor must be ≥ 0.")
        self.variance = variance
        self.var_smoothing = float(var_smoothing)
        self.var_floor = float(var_floor)

    def prepare(self, X, params=None):
        X = check_matrix(X, allow_sparse=False)
        if params is not None:
            self.check_n_features(X, params["mean"].shape[0])
        return X

    def _epsilon(self, X) -> float:
        eps = self.var_smoothing * float(np.var(X, axis=0).max())
        if eps == 0 and self.var_floor == 0:
            eps = max(self.var_smoothing, 1e-12)  # constant data: keep σ² > 0
        return eps

    def suggested_options(self, X):
        """A variance floor (see :func:`variance_floor`): without one, a class estimated from a
        single document gets σ² ≈ 0 and EM runs off to a likelihood of +∞."""
        return {"var_floor": variance_floor(X)}

    def options_note(self, options):
        floor = options.get("var_floor")
        if not floor:
            return None
        return (f"Gaussian variances have a **variance floor**: σ² ≥ {floor:.3g} "
                f"({VAR_FLOOR_SHARE:.0%} of the smallest feature's variance). Without it a class "
                "estimated from one document gets σ² ≈ 0, a spike whose likelihood runs off to −∞ for "
                "every other document.")

    def log_likelihood(self, Xp, params):
        return gaussian_log_likelihood(Xp, params["mean"], params["var"])

    def statistics(self, Xp, weights):
        """Weighted N_k, μ_jk, M2_jk per class; unweighted row count, mean and M2 per feature
        (for ε, which scales with the largest feature variance over all rows)."""
        class_weight, mean, m2 = gaussian_moments(Xp, weights)
        feature_mean = Xp.mean(axis=0) if Xp.shape[0] else np.zeros(Xp.shape[1])
        feature_m2 = ((Xp - feature_mean) ** 2).sum(axis=0)
        return {"class_weight": class_weight, "mean": mean, "m2": m2, "n_rows": float(Xp.shape[0]),
                "feature_mean": feature_mean, "feature_m2": feature_m2}

    def combine(self, stats_list):
        """Merge chunk moments exactly (Chan et al.'s pairwise update, in list order):
        n = n_a + n_b, δ = μ_b − μ_a, μ = μ_a + δ n_b / n, M2 = M2_a + M2_b + δ² n_a n_b / n."""
        stats_list = list(stats_list)
        if not stats_list:
            raise ValueError("combine needs the statistics of at least one chunk.")

        def merge(n_a, mu_a, m2_a, n_b, mu_b, m2_b):
            n = n_a + n_b
            safe = np.where(n > 0, n, 1.0)
            delta = mu_b - mu_a
            mu = mu_a + delta * (n_b / safe)
            m2 = m2_a + m2_b + delta ** 2 * (n_a * n_b / safe)
            return n, mu, m2

        out = {k: (np.array(v, dtype=np.float64, copy=True) if not isinstance(v, float) else v)
               for k, v in stats_list[0].items()}
        for st in stats_list[1:]:
            out["class_weight"], out["mean"], out["m2"] = merge(
                out["class_weight"], out["mean"], out["m2"], st["class_weight"], st["mean"], st["m2"])
            n, mu, m2 = merge(np.float64(out["n_rows"]), out["feature_mean"], out["feature_m2"],
                              np.float64(st["n_rows"]), st["feature_mean"], st["feature_m2"])
            out["n_rows"], out["feature_mean"], out["feature_m2"] = float(n), mu, m2
        return out

    def _epsilon_from(self, n_rows: float, feature_m2: np.ndarray) -> float:
        max_var = float((feature_m2 / n_rows).max()) if n_rows > 0 and feature_m2.size else 0.0
        eps = self.var_smoothing * max_var
        if eps == 0 and self.var_floor == 0:
            eps = max(self.var_smoothing, 1e-12)  # constant data: keep σ² > 0
        return eps

    def check_smoothing(self, smoothing, n_features):
        """λ has no meaning for Gaussians (it is ignored): a single number is accepted, a
        per-feature array is refused (ValueError) rather than silently ignored."""
        lam = _check_smoothing_value(smoothing)
        if isinstance(lam, np.ndarray):
            raise ValueError(
                "The Gaussian model has no pseudo-counts, so a per-feature smoothing λ (an array) "
                "means nothing for it: λ is ignored by Gaussians. Smooth the variances with the "
                "model option var_smoothing (or var_floor) instead, and pass a single number as λ."
            )
        return lam

    def params_from(self, stats, smoothing=0.0):
        """μ = Σ r x / N_k; σ² = M2 / N_k (or / (N_k − 1)) + ε, floored.

        ``smoothing`` (λ) does not apply to Gaussians and is ignored (a per-feature
        array is refused, see :meth:`check_smoothing`).
        """
        self.check_smoothing(smoothing, stats["mean"].shape[0])
        n = stats["class_weight"]
        denom = n - 1.0 if self.variance == "unbiased" else n
        denom = np.where(denom > 0, denom, np.where(n > 0, n, 1.0))
        var = stats["m2"] / denom + self._epsilon_from(stats["n_rows"], stats["feature_m2"])
        var = np.maximum(var, self.var_floor)
        mean = stats["mean"].copy()
        return freeze(mean=mean, var=var)

    def uniform_params(self, Xp, n_classes):
        """Every class starts at the overall mean and variance (the symmetric point)."""
        eps = self._epsilon(Xp)
        mean = np.repeat(Xp.mean(axis=0)[:, None], n_classes, axis=1)
        var = np.repeat(np.maximum(Xp.var(axis=0) + eps, self.var_floor)[:, None], n_classes, axis=1)
        return freeze(mean=mean, var=var)

    def random_params(self, Xp, n_classes, rng):
        """Means at K distinct random rows of X; the overall variance."""
        rows = rng.choice(Xp.shape[0], size=n_classes, replace=Xp.shape[0] < n_classes)
        params = self.uniform_params(Xp, n_classes)
        return freeze(mean=Xp[rows].T.copy(), var=params["var"].copy())

    def feature_terms(self, params, x):
        """log N(x_j; μ_jk, σ²_jk)."""
        mean, var = params["mean"], params["var"]
        return -0.5 * (np.log(2 * np.pi * var) + (x[:, None] - mean) ** 2 / var)

    def sample(self, params, y, rng):
        mean, var = params["mean"], params["var"]
        return mean[:, y].T + np.sqrt(var[:, y].T) * rng.standard_normal((len(y), mean.shape[0]))

    def check_params(self, params, n_classes):
        mean = param_matrix(params, "mean", self.name, n_classes)
        var = param_matrix(params, "var", self.name, n_classes)
        if var.shape != mean.shape:
            raise ValueError(f"params['var'] shape {var.shape} differs from params['mean'] shape {mean.shape}.")
        if np.any(var <= 0):
            raise ValueError("params['var'] must be positive.")
        return {"mean": mean, "var": var}

    def param_table(self, params, feature_names, categories=None):
        return ParamTable(np.asarray(params["mean"], dtype=float), list(feature_names), "mean μ of each feature",
                          "μ", False, None, None)

    def check_chunkable(self, init=None):
        """Chunked Gaussian EM starts from the labelled rows only (its sums merge exactly)."""
        if init != "labeled":
            raise ValueError(
                f"Chunked Gaussian EM supports init='labeled' only: init={init!r} needs the "
                "mean and variance of every feature (or random rows) over all rows before "
                "the first iteration. Use init='labeled' (reveal some labels), or an "
                "in-memory array."
            )
