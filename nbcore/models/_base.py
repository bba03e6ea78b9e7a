"""The protocol every event model follows, and the shared maths.

An event model is p(x | y = k; params). It knows four things
(pomegranate-style, one small protocol):

``prepare(X)``
    validate X once and turn it into the form the model computes with
    (e.g. one-hot codes for categorical data);
``log_likelihood(Xp, params)``
    log p(x_i | y = k) for every document i and class k, shape (N, K);
``statistics(Xp, weights)``
    sufficient statistics from (soft or hard) class weights, shape (N, K);
``params_from(stats, smoothing)``
    the (MAP) parameters those statistics imply.

Supervised Naive Bayes calls ``statistics`` with hard 0/1 weights (seed 000
eq. 12-13); EM calls the same function with soft responsibilities
(eq. 23-24). That single function is the link the dashboard teaches.

Parameters are plain dicts of read-only numpy arrays so that snapshots can
share them without copying.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

__all__ = ["EventModel", "safe_log", "log_dot", "freeze"]


class Params(Mapping):
    """An immutable, picklable mapping of parameter name -> read-only array."""

    __slots__ = ("_data",)

    def __init__(self, data):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __reduce__(self):
        return (freeze_dict, (self._data,))

    def __repr__(self):
        return f"Params({', '.join(self._data)})"


def freeze_dict(data) -> "Params":
    return freeze(**data)


def freeze(**arrays) -> Params:
    """Make parameter arrays read-only and wrap them in an immutable mapping."""
    out = {}
    for key, value in arrays.items():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        elif isinstance(value, tuple):
            for v in value:
                v.flags.writeable = False
        out[key] = value
    return Params(out)


def safe_log(p: np.ndarray) -> np.ndarray:
    """log(p) with log(0) = -inf on purpose, without a divide-by-zero warning."""
    with np.errstate(divide="ignore"):
        return np.log(p)


def log_dot(X, log_p: np.ndarray) -> np.ndarray:
    """X @ log_p where 0 * log(0) counts as 0 and x > 0 times log(0) is -inf.

    ``X`` (N, V) holds non-negative weights (counts or indicators), dense or
    sparse; ``log_p`` (V, K) may contain -inf (a probability of exactly zero,
    possible with λ = 0). Plain ``X @ log_p`` would turn 0 * -inf into NaN for
    dense X; here a zero entry never touches the -inf, and a positive entry
    makes the whole row -inf: the document is impossible under that class.
    """
    finite = np.isfinite(log_p)
    if finite.all():
        return np.asarray(X @ log_p)
    out = np.asarray(X @ np.where(finite, log_p, 0.0))
    hits = np.asarray(X @ (~finite).astype(np.float64))
    out[hits > 0] = -np.inf
    return out


class EventModel:
    """Base class: one event model p(x | y). Subclasses fill in the hooks."""

    #: model name used by :class:`nbcore.EM` (``"bernoulli"``, ...)
    name: str = ""
    #: parameter names in a snapshot, e.g. ``("beta",)``
    param_names: tuple = ()
    #: whether the model accepts scipy.sparse input
    accepts_sparse: bool = True

    # -- hooks -------------------------------------------------------------
    def prepare(self, X, params=None):  # pragma: no cover - abstract
        """Validate X; with ``params``, also check it fits a fitted model."""
        raise NotImplementedError

    def log_likelihood(self, Xp, params) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def statistics(self, Xp, weights: np.ndarray) -> dict:  # pragma: no cover
        raise NotImplementedError

    def params_from(self, stats: dict, smoothing: float):  # pragma: no cover
        raise NotImplementedError

    def log_prior(self, params, smoothing: float) -> float:
        """log p(θ) (up to a constant) of the prior that λ stands for."""
        return 0.0

    def uniform_params(self, Xp, n_classes: int):  # pragma: no cover
        raise NotImplementedError

    def random_params(self, Xp, n_classes: int, rng: np.random.Generator):  # pragma: no cover
        raise NotImplementedError

    # -- shared ------------------------------------------------------------
    def evaluate(self, Xp, params, smoothing: float):
        """(log_likelihood (N, K), log_prior) in one go.

        EM needs both for every new θ; models override this to take the logs
        of their parameters once instead of twice.
        """
        return self.log_likelihood(Xp, params), self.log_prior(params, smoothing)

    def squared_distance(self, params, other) -> float:
        """Σ (θ − θ')² over all parameters (without building flat copies)."""
        total = 0.0
        for key in self.param_names:
            a, b = params[key], other[key]
            pairs = zip(a, b) if isinstance(a, tuple) else [(a, b)]
            for u, v in pairs:
                for start in range(0, len(u), 4096):  # in blocks: no full-size temporary
                    d = np.subtract(u[start:start + 4096], v[start:start + 4096])
                    np.multiply(d, d, out=d)
                    total += float(d.sum())
        return total

    def flatten(self, params) -> np.ndarray:
        """All parameters as one vector (for ‖θ_t − θ_{t−1}‖²)."""
        parts = []
        for key in self.param_names:
            value = params[key]
            if isinstance(value, tuple):
                parts.extend(np.ravel(v) for v in value)
            else:
                parts.append(np.ravel(value))
        return np.concatenate(parts)

    @staticmethod
    def check_n_features(X, n_features: int) -> None:
        if X.shape[1] != n_features:
            raise ValueError(
                f"X has {X.shape[1]} features but the model was fitted on {n_features}. "
                "Transform new documents with the same vocabulary as the training data."
            )

    @staticmethod
    def weighted_counts(Xp, weights: np.ndarray) -> np.ndarray:
        """Σ_i X[i, j] · weights[i, k] for every j, k: shape (V, K).

        This is the numerator of eq. (24) without λ; with one-hot weights it is
        the count in eq. (13).
        """
        if sp.issparse(Xp):
            return np.asarray(Xp.T @ weights)
        return Xp.T @ weights
