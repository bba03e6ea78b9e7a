"""Hiding labels for semi-supervised experiments (:func:`hide_labels`)."""

from __future__ import annotations

import numpy as np

__all__ = ["hide_labels"]


def hide_labels(y, fraction, random_state=None):
    """Hide a ``fraction`` of the known labels, stratified by class.

    Returns ``(y_obs, hidden)``: ``y_obs`` is a copy of ``y`` with ``-1`` where
    hidden; ``hidden`` is a boolean mask of the rows whose *known* label was
    hidden (so ``y[hidden]`` is the truth to score against).  Rows that were
    already ``-1`` stay ``-1`` and are **not** marked hidden, since there is no
    truth for them.  Per class, about ``fraction`` of its labelled rows are
    hidden (largest-remainder rounding so the total is
    ``round(fraction * n_labelled)``), but at least one labelled row per class
    is kept unless ``fraction == 1``.  The same ``random_state`` (int or
    numpy Generator) gives the same result.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of class codes; got shape {y.shape}.")
    if y.size and not np.issubdtype(y.dtype, np.integer):
        if not np.all(np.mod(y, 1) == 0):
            raise ValueError("y must hold whole-number class codes (-1 for unlabelled).")
    y = y.astype(np.int64)
    fraction = float(fraction)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be between 0 and 1 (e.g. 0.8 hides 80% of the "
                         f"labels); got {fraction}.")
    rng = random_state if isinstance(random_state, np.random.Generator) \
        else np.random.default_rng(random_state)
    classes = np.unique(y[y >= 0])
    members = [np.flatnonzero(y == k) for k in classes]
    sizes = np.array([m.size for m in members], dtype=np.int64)
    exact = fraction * sizes
    counts = np.floor(exact).astype(np.int64)
    extra = int(round(fraction * sizes.sum())) - int(counts.sum())
    if extra > 0:
        order = np.argsort(-(exact - counts), kind="stable")
        counts[order[:extra]] += 1
    if fraction < 1.0:
        counts = np.minimum(counts, np.maximum(sizes - 1, 0))
    else:
        counts = sizes
    hidden = np.zeros(y.shape, dtype=bool)
    for m, c in zip(members, counts):
        if c:
            hidden[rng.permutation(m)[:c]] = True
    y_obs = y.copy()
    y_obs[hidden] = -1
    return y_obs, hidden
