"""nbcore.mixture2d: the 2-D presets, EM to any half-step, k-means from the same start."""
from __future__ import annotations

import numpy as np
import pytest

from nbcore import mixture2d


@pytest.mark.parametrize("name", list(mixture2d.PRESETS))
def test_presets_shapes_and_visible_labels(name):
    _, means, sds, sizes, n_lab = mixture2d.PRESETS[name]
    X, y, y_obs = mixture2d.preset(name, seed=3)
    assert X.shape == (sum(sizes), 2) and len(y) == len(y_obs) == sum(sizes)
    for k, n in enumerate(n_lab):
        assert np.sum(y_obs == k) == n and np.all(y[y_obs == k] == k)
    assert np.all((y_obs == -1) | (y_obs == y))


def test_unknown_preset_message():
    with pytest.raises(ValueError, match="Unknown preset 'moons'; choose one of well separated"):
        mixture2d.preset("moons")


def test_half_step_state_semantics():
    X, y, y_obs = mixture2d.preset("well separated", 0)
    s0 = mixture2d.half_step_state(X, y_obs, 2, 0, False)
    assert s0.resp is None and s0.prev_mean is None
    s0e = mixture2d.half_step_state(X, y_obs, 2, 0, True)
    np.testing.assert_array_equal(s0e.mean, s0.mean)          # E-step: parameters unchanged
    s1 = mixture2d.half_step_state(X, y_obs, 2, 1, False)
    np.testing.assert_allclose(s1.resp, s0e.resp)             # the M-step used exactly those responsibilities
    np.testing.assert_allclose(s1.mean, (X.T @ s0e.resp) / s0e.resp.sum(0))
    np.testing.assert_array_equal(s1.prev_mean, s0.mean)
    assert np.all(np.diff(s1.history) >= -1e-9)


def test_kmeans_from_the_same_start():
    X, y, y_obs = mixture2d.preset("well separated", 0)
    c0 = np.array([[-1.0, 0.0], [1.0, 0.0]])
    a0, _ = mixture2d.kmeans_state(X, c0, 0)
    np.testing.assert_array_equal(a0, (X[:, 0] > 0).astype(int))   # nearest of two centres on the x axis
    a1, c1 = mixture2d.kmeans_state(X, c0, 1)
    np.testing.assert_allclose(c1, [X[a0 == k].mean(0) for k in range(2)])  # one Lloyd step: the means
