"""The 2-D picture: two continuous features, Gaussian Naive Bayes as a mixture of axis-aligned Gaussians.

``preset(name)`` draws a small teaching data set; :func:`half_step_state` runs EM on it to any
half-step (E-step done or not) and :func:`kmeans_state` runs k-means (scikit-learn's Lloyd
iterations) from the same starting centres for the comparison with hard assignments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .em import EM

__all__ = ["PRESETS", "preset", "half_step_state", "HalfStepState", "kmeans_state", "GAUSSIAN_OPTIONS"]

#: name -> (description, class means (K, 2), standard deviations (K, 2), sizes (K,), labels visible per class)
PRESETS = {
    "well separated": ("two round clouds far apart: EM and k-means agree",
                       [[-2.5, 0.0], [2.5, 0.5]], [[0.8, 0.8], [0.8, 0.8]], [40, 40], [2, 2]),
    "overlapping": ("the clouds overlap: points in the middle get responsibilities near ½",
                    [[-0.8, 0.0], [0.8, 0.3]], [[1.0, 1.0], [1.0, 1.0]], [40, 40], [2, 2]),
    "unequal sizes": ("a big wide class and a small tight one: α and σ² both matter, k-means splits the big one",
                      [[-1.2, 0.0], [2.6, 0.6]], [[1.3, 1.0], [0.4, 0.4]], [70, 12], [3, 2]),
    "one class with few labels": ("class B has a single visible label",
                                  [[-1.5, -0.5], [1.5, 0.8]], [[0.9, 0.6], [0.6, 1.1]], [40, 40], [8, 1]),
    "stretched": ("long thin clouds: axis-aligned ellipses fit them, k-means' circles do not",
                  [[0.0, -1.2], [0.0, 1.2]], [[3.0, 0.45], [3.0, 0.45]], [40, 40], [2, 2]),
}

#: variance floor keeps a component from collapsing onto one point (an exact constrained M-step, so EM stays monotone)
GAUSSIAN_OPTIONS = {"var_smoothing": 0.0, "var_floor": 0.05}


def preset(name: str, seed: int = 0):
    """(X (N, 2), y_true (N,), y_obs (N,) with −1 = hidden) for one of ``PRESETS``."""
    try:
        _, means, sds, sizes, n_lab = PRESETS[name]
    except KeyError:
        raise ValueError(f"Unknown preset {name!r}; choose one of {', '.join(PRESETS)}.") from None
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(m, s, size=(n, 2)) for m, s, n in zip(means, sds, sizes)])
    y = np.repeat(np.arange(len(sizes)), sizes)
    y_obs = np.full(len(y), -1)
    for k, n in enumerate(n_lab):
        rows = np.flatnonzero(y == k)
        y_obs[rng.choice(rows, size=min(n, rows.size), replace=False)] = k
    return X, y, y_obs


@dataclass(frozen=True)
class HalfStepState:
    """What the 2-D picture shows: θ_t (means, variances, α) and the responsibilities on screen.

    ``e_done``: the E-step at θ_t has been done (colours = p(k | x, θ_t)); otherwise the colours are
    the responsibilities that produced θ_t (None at t = 0: nothing computed yet).
    """

    t: int
    e_done: bool
    mean: np.ndarray          # (2, K)
    var: np.ndarray           # (2, K)
    alpha: np.ndarray         # (K,)
    prev_mean: np.ndarray | None
    resp: np.ndarray | None   # (N, K)
    log_likelihood: float
    history: list             # log-likelihood of θ_0 … θ_t


def half_step_state(X, y_obs, n_classes: int, t: int, e_done: bool, init: str = "labeled", seed: int = 0,
                    var_floor: float = GAUSSIAN_OPTIONS["var_floor"]) -> HalfStepState:
    """Run Gaussian-NB EM on (X, y_obs) to iteration t, plus the E-step at θ_t if ``e_done``."""
    y_obs = np.asarray(y_obs)
    if init == "labeled" and not (y_obs >= 0).any():
        init = "random"
    run = EM(model="gaussian", n_classes=n_classes, init=init, random_state=seed, tol=None, max_iter=max(t, 1),
             model_options={**GAUSSIAN_OPTIONS, "var_floor": var_floor}).start(np.asarray(X, dtype=float), y_obs)
    for _ in range(t):
        run.step()
    snap = run.current
    if e_done:
        resp = np.asarray(run.e_step().resp)
    else:
        resp = None if t == 0 else np.asarray(run.responsibilities(t))
    prev = np.asarray(run.history[t - 1].mean) if t > 0 else None
    return HalfStepState(t, e_done, np.asarray(snap.mean), np.asarray(snap.var), np.asarray(snap.alpha), prev, resp,
                         snap.log_likelihood, [s.log_likelihood for s in run.history])


def kmeans_state(X, centres0, t: int):
    """k-means (Lloyd, scikit-learn) from ``centres0`` (K, 2) after t iterations: (assignments, centres).

    t = 0: every point goes to its nearest starting centre.
    """
    from sklearn.cluster import KMeans
    from sklearn.metrics import pairwise_distances_argmin

    X = np.asarray(X, dtype=float)
    centres0 = np.asarray(centres0, dtype=float)
    if t == 0:
        return pairwise_distances_argmin(X, centres0), centres0
    km = KMeans(n_clusters=centres0.shape[0], init=centres0, n_init=1, max_iter=int(t), tol=0.0,
                algorithm="lloyd").fit(X)
    return km.labels_, km.cluster_centers_
