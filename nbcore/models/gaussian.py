"""Gaussian event model: continuous features (seed 002 MLE, seed 003 slides).

mean[j, k] = μ_jk and var[j, k] = σ²_jk, shapes (V, K).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_matrix
from ._base import EventModel, freeze

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


class GaussianModel(EventModel):
    """p(x | k) = Π_j N(x_j; μ_jk, σ²_jk).

    Parameters
    ----------
    variance : {"mle", "unbiased"}
        σ² = M2 / N_k (maximum likelihood, biased; what EM maximises) or
        M2 / (N_k − 1) (unbiased, seed 002), with frequency weights.
    var_smoothing : float
        Adds ``var_smoothing × max_j Var(X[:, j])`` to every variance, as
        scikit-learn's GaussianNB does (keeps σ² > 0 on constant features).
    var_floor : float
        A hard lower bound on every σ². ``max(σ², floor)`` is the exact
        constrained M-step, so EM stays monotone with it.
    """

    name = "gaussian"
    param_names = ("mean", "var")
    accepts_sparse = False

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

    def log_likelihood(self, Xp, params):
        return gaussian_log_likelihood(Xp, params["mean"], params["var"])

    def statistics(self, Xp, weights):
        class_weight, mean, m2 = gaussian_moments(Xp, weights)
        return {"class_weight": class_weight, "mean": mean, "m2": m2, "epsilon": self._epsilon(Xp)}

    def params_from(self, stats, smoothing=0.0):
        """μ = Σ r x / N_k; σ² = M2 / N_k (or / (N_k − 1)) + ε, floored.

        ``smoothing`` (λ) does not apply to Gaussians and is ignored.
        """
        n = stats["class_weight"]
        denom = n - 1.0 if self.variance == "unbiased" else n
        denom = np.where(denom > 0, denom, np.where(n > 0, n, 1.0))
        var = stats["m2"] / denom + stats["epsilon"]
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

    def sample(self, params, y, rng):
        mean, var = params["mean"], params["var"]
        return mean[:, y].T + np.sqrt(var[:, y].T) * rng.standard_normal((len(y), mean.shape[0]))
