"""Small random EM problems for the property tests (hypothesis): a model, X, labels with some hidden, K, a start,
λ and the unlabelled weight. Shared by the properties of EM and of several components per class."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

MODELS = ["bernoulli", "multinomial", "categorical"]


@st.composite
def problems(draw):
    model = draw(st.sampled_from(MODELS))
    n = draw(st.integers(4, 25))
    v = draw(st.integers(1, 6))
    k = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    if model == "bernoulli":
        X = (rng.random((n, v)) < rng.random()).astype(float)
    elif model == "multinomial":
        X = rng.poisson(rng.random() * 3, (n, v)).astype(float)
    else:
        X = rng.integers(0, 3, (n, v)).astype(float)
    y = np.where(rng.random(n) < draw(st.floats(0, 1)), -1, rng.integers(0, k, n))
    init = draw(st.sampled_from(["uniform", "random", "labeled"] if (y >= 0).any() else ["uniform", "random"]))
    lam = draw(st.sampled_from([0.0, 0.01, 0.5, 1.0, 3.0]))
    w = draw(st.sampled_from([1.0, 0.5, 0.1]))
    return model, X, y, k, init, lam, w, seed
