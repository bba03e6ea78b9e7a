"""Draw data from a Naive Bayes model (the generative story, run forwards).

For every row: pick a class y ~ Categorical(alpha), then draw each feature
independently given y.  Parameter layouts match the engine:

* ``"bernoulli"``:   ``{"beta": (V, K)}``, beta[j, k] = p(word j present | k)
* ``"multinomial"``: ``{"beta": (V, K)}``, each column sums to 1; document
  length ~ max(1, Poisson(doc_length))
* ``"categorical"``: ``{"theta": [ (D_j, K) for each feature j ]}``, columns sum to 1
* ``"gaussian"``:    ``{"mean": (V, K), "var": (V, K)}``
"""

from __future__ import annotations

import numpy as np

MODELS = ("bernoulli", "multinomial", "categorical", "gaussian")


def _rng(random_state) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        raise ValueError("random_state must be None, an int or a numpy Generator "
                         "(np.random.default_rng), not a legacy RandomState.")
    return np.random.default_rng(random_state)


def _matrix(params: dict, key: str, model: str, K: int) -> np.ndarray:
    if key not in params:
        raise ValueError(f"sample('{model}', ...) needs params['{key}'] "
                         f"(got keys: {sorted(params)}).")
    a = np.asarray(params[key], dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != K:
        raise ValueError(f"params['{key}'] must have shape (V, K) = (V, {K}); got {a.shape}.")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"params['{key}'] contains NaN or infinity.")
    return a


def _check_columns_sum_to_one(a: np.ndarray, what: str) -> None:
    if np.any(a < 0) or not np.allclose(a.sum(axis=0), 1.0, atol=1e-6):
        raise ValueError(f"{what} must be non-negative and each column (class) must sum to 1; "
                         f"column sums are {np.round(a.sum(axis=0), 6).tolist()}.")


def sample(model, alpha, params, n, random_state=None, doc_length=20):
    """Draw ``n`` rows ``(X, y)`` from a Naive Bayes model.

    Parameters
    ----------
    model : "bernoulli" | "multinomial" | "categorical" | "gaussian"
    alpha : (K,) class prior, sums to 1.
    params : dict, layout depends on ``model`` (see module docstring).
    n : number of rows.
    random_state : None, int or ``np.random.Generator``.
    doc_length : mean document length (Poisson, at least 1) for "multinomial".

    Returns
    -------
    X : (n, V) ndarray, float64 (int64 category codes for "categorical").
    y : (n,) int64 class codes 0..K-1.
    """
    if model not in MODELS:
        raise ValueError(f"Unknown model '{model}'. Choose one of: {', '.join(MODELS)}.")
    alpha = np.asarray(alpha, dtype=np.float64)
    if alpha.ndim != 1 or alpha.size < 1:
        raise ValueError(f"alpha must be a 1-D array of class probabilities; got shape {alpha.shape}.")
    if np.any(alpha < 0) or not np.isclose(alpha.sum(), 1.0, atol=1e-6):
        raise ValueError(f"alpha must be non-negative and sum to 1; it sums to {alpha.sum():.6g}.")
    n = int(n)
    if n < 0:
        raise ValueError("n must be >= 0.")
    K = alpha.size
    if not isinstance(params, dict):
        raise ValueError("params must be a dict, e.g. {'beta': beta}.")
    rng = _rng(random_state)
    y = rng.choice(K, size=n, p=alpha / alpha.sum()).astype(np.int64)

    if model == "bernoulli":
        beta = _matrix(params, "beta", model, K)
        if np.any(beta < 0) or np.any(beta > 1):
            raise ValueError("params['beta'] must be probabilities between 0 and 1.")
        X = (rng.random((n, beta.shape[0])) < beta[:, y].T).astype(np.float64)
    elif model == "gaussian":
        mean = _matrix(params, "mean", model, K)
        var = _matrix(params, "var", model, K)
        if var.shape != mean.shape:
            raise ValueError(f"params['var'] shape {var.shape} differs from params['mean'] shape {mean.shape}.")
        if np.any(var <= 0):
            raise ValueError("params['var'] must be positive.")
        X = mean[:, y].T + np.sqrt(var[:, y].T) * rng.standard_normal((n, mean.shape[0]))
    elif model == "multinomial":
        beta = _matrix(params, "beta", model, K)
        _check_columns_sum_to_one(beta, "params['beta'] for the multinomial model")
        if not doc_length > 0:
            raise ValueError("doc_length must be positive.")
        lengths = np.maximum(1, rng.poisson(doc_length, size=n))
        X = np.zeros((n, beta.shape[0]), dtype=np.float64)
        p = beta / beta.sum(axis=0, keepdims=True)
        for k in range(K):  # loop over classes only; rows are vectorised
            rows = np.flatnonzero(y == k)
            if rows.size:
                X[rows] = rng.multinomial(lengths[rows], p[:, k])
    else:  # categorical
        if "theta" not in params:
            raise ValueError(f"sample('categorical', ...) needs params['theta'] (got keys: {sorted(params)}).")
        thetas = params["theta"]
        X = np.zeros((n, len(thetas)), dtype=np.int64)
        for j, t in enumerate(thetas):  # loop over features; rows are vectorised
            t = np.asarray(t, dtype=np.float64)
            if t.ndim != 2 or t.shape[1] != K:
                raise ValueError(f"params['theta'][{j}] must have shape (D_j, {K}); got {t.shape}.")
            _check_columns_sum_to_one(t, f"params['theta'][{j}]")
            cdf = np.cumsum(t / t.sum(axis=0, keepdims=True), axis=0)  # (D_j, K)
            u = rng.random(n)
            codes = (u[:, None] >= cdf[:, y].T).sum(axis=1)
            X[:, j] = np.minimum(codes, t.shape[0] - 1)
    return X, y
