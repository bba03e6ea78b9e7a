"""Label switching: Hungarian matching equals brute force over permutations."""

from itertools import permutations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import nbcore


def test_swapped_clusters_are_recovered():
    y_true = np.array([0, 0, 1, 1, 2, 2, 2])
    y_pred = np.array([2, 2, 0, 0, 1, 1, 0])
    before, after, mapping = nbcore.aligned_accuracy(y_true, y_pred, 3)
    assert mapping.tolist() == [1, 2, 0]
    assert before == 0.0 and after == 6 / 7


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_matches_brute_force(k, seed):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, k, 40)
    y_pred = rng.integers(0, k, 40)
    best = max(np.mean(np.array(p)[y_pred] == y_true) for p in permutations(range(k)))
    _, after, mapping = nbcore.aligned_accuracy(y_true, y_pred, k)
    assert after == best
    assert sorted(mapping.tolist()) == list(range(k))
