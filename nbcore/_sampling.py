"""Draw data from a Naive Bayes model (the generative story, run forwards).

For every row: pick a class y ~ Categorical(alpha), then draw each feature
independently given y with the event model's ``sample`` hook. Parameter layouts
are the engine's (see each model's ``check_params``):

* ``"bernoulli"``:   ``{"beta": (V, K)}``, beta[j, k] = p(word j present | k)
* ``"multinomial"``: ``{"beta": (V, K)}``, each column sums to 1; document
  length ~ max(1, Poisson(doc_length))
* ``"categorical"``: ``{"theta": [ (D_j, K) for each feature j ]}``, columns sum to 1
* ``"gaussian"``:    ``{"mean": (V, K), "var": (V, K)}``
"""

from __future__ import annotations

import inspect

import numpy as np

from .models import MODELS, EventModel, get_model


def _rng(random_state) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        raise ValueError("random_state must be None, an int or a numpy Generator "
                         "(np.random.default_rng), not a legacy RandomState.")
    return np.random.default_rng(random_state)


def sample(model, alpha, params, n, random_state=None, **options):
    """Draw ``n`` rows ``(X, y)`` from a Naive Bayes model.

    Parameters
    ----------
    model : str (a registered event model, e.g. "bernoulli") or EventModel
    alpha : (K,) class prior, sums to 1.
    params : dict, layout depends on ``model`` (see module docstring).
    n : number of rows.
    random_state : None, int or ``np.random.Generator``.
    **options : passed to the model's ``sample`` hook, e.g. ``doc_length`` (mean
        document length, Poisson, at least 1) for "multinomial".

    Returns
    -------
    X : (n, V) ndarray, float64 (int64 category codes for "categorical").
    y : (n,) int64 class codes 0..K-1.
    """
    if not isinstance(model, EventModel) and (not isinstance(model, str) or model not in MODELS):
        raise ValueError(f"Unknown model '{model}'. Choose one of: {', '.join(MODELS)}.")
    m = get_model(model)
    accepted = inspect.signature(m.sample).parameters
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise ValueError(f"The {m.name} model's sampling takes no option {', '.join(unknown)}.")
    alpha = np.asarray(alpha, dtype=np.float64)
    if alpha.ndim != 1 or alpha.size < 1:
        raise ValueError(f"alpha must be a 1-D array of class probabilities; got shape {alpha.shape}.")
    if np.any(alpha < 0) or not np.isclose(alpha.sum(), 1.0, atol=1e-6):
        raise ValueError(f"alpha must be non-negative and sum to 1; it sums to {alpha.sum():.6g}.")
    n = int(n)
    if n < 0:
        raise ValueError("n must be >= 0.")
    K = alpha.size
    if not isinstance(params, dict) and not hasattr(params, "keys"):
        raise ValueError("params must be a dict, e.g. {'beta': beta}.")
    params = m.check_params(params, K)
    rng = _rng(random_state)
    y = rng.choice(K, size=n, p=alpha / alpha.sum()).astype(np.int64)
    return m.sample(params, y, rng, **options), y
