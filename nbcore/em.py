"""EM for Naive Bayes, one iteration at a time (the notes fig. 1-2, the course session steps 1-4).

The maths sits in small module-level functions, one per equation of the notes, in
:mod:`nbcore.equations` (its docstring maps them to the equations); they are re-exported here.

:class:`EM` holds the settings (``__init__`` only stores them) and chooses the run type
(:meth:`EM._run_type`: plain, components per class, or row chunks on Dask);
:meth:`EM.start` returns an :class:`EMRun` (:mod:`nbcore.run`), whose :meth:`EMRun.step` performs
one E-step + M-step and returns a new immutable :class:`Snapshot`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .components import ComponentEMRun
from .equations import (  # noqa: F401  (the equations are part of this module's API)
    INITS,
    THETA_NORMS,
    check_smoothing,
    class_prior,
    decreases,
    log_joint,
    m_step,
    normalize_log,
    observed_log_likelihood,
    one_hot_labels,
    predict_proba,
    responsibilities,
    squared_change,
    supervised_fit,
)
from .run import EMRun, EStep, Snapshot

__all__ = [
    "EM",
    "EMRun",
    "EStep",
    "Snapshot",
    "log_joint",
    "normalize_log",
    "responsibilities",
    "class_prior",
    "m_step",
    "observed_log_likelihood",
    "supervised_fit",
    "predict_proba",
    "squared_change",
    "decreases",
    "one_hot_labels",
    "check_smoothing",
    "INITS",
    "THETA_NORMS",
]


def _is_chunked(X) -> bool:
    """X is a dask collection or prepared chunks (nbcore.dask_chunks), checked without importing dask."""
    module = type(X).__module__
    return module.split(".")[0] == "dask" or module.endswith((".dask_em", ".dask_chunks"))


@dataclass(frozen=True)
class EM:
    """Settings of an EM run for (semi-)supervised Naive Bayes.

    Parameters
    ----------
    model : {"bernoulli", "multinomial", "categorical", "gaussian"} or EventModel
    n_classes : int, K ≥ 2
    smoothing : float, λ ≥ 0 (0 = maximum likelihood)
    init : {"uniform", "random", "labeled"}
        "uniform": α = 1/K, β = ½ (the notes); "random": seeded random parameters
        (the notebook); "labeled": an M-step on the labelled rows only (the course session step 1).
    unlabeled_weight : float in [0, 1]
        w: hidden rows count w times in the M-step (Nigam et al. 2000, EM-λ).
    max_iter : int
        Stop after this many iterations.
    tol : float
        Stop when |objective_t − objective_{t−1}| ≤ tol · |objective_{t−1}|.
    theta_tol : float or None
        Stop when ‖θ_t − θ_{t−1}‖² < theta_tol (the course session step 4).
    n_init : int
        Restarts used by :meth:`fit` (best final objective wins).
    random_state : int, Generator or None
    model_options : dict
        Passed to the event model (e.g. ``{"variance": "unbiased"}`` for gaussian).
    keep_resp : int or None
        Store ``resp`` (N, K) on the latest ``keep_resp`` snapshots only (older
        ones get ``resp=None``; :meth:`EMRun.responsibilities` recomputes them
        exactly). None keeps every one: N·K·8 bytes per iteration.
    theta_norm : {"parameters", "both_values"}
        How ``Snapshot.delta`` = ‖θ_t − θ_{t−1}‖² (and so ``theta_tol``) counts:
        see :func:`squared_change`. "both_values" sums both values of each binary
        feature, as the course session step 4 writes it.
    components_per_class : int
        m ≥ 1 latent mixture components per class (Nigam et al. 2000 §5). With
        m > 1, :meth:`start` returns a :class:`nbcore.components.ComponentEMRun`:
        EM over K·m sub-classes, labelled rows spread over their own class's
        components only; predictions sum the components of each class.
    """

    model: Any = "bernoulli"
    n_classes: int = 2
    smoothing: float = 1.0
    init: str = "uniform"
    unlabeled_weight: float = 1.0
    max_iter: int = 100
    tol: float = 1e-6
    theta_tol: float | None = None
    n_init: int = 1
    random_state: Any = None
    model_options: Mapping[str, Any] = field(default_factory=dict)
    keep_resp: int | None = None
    theta_norm: str = "parameters"
    components_per_class: int = 1

    def _run_type(self):
        m = self.components_per_class
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
            raise ValueError(f"components_per_class must be a whole number ≥ 1, got {m!r}.")
        return EMRun if m == 1 else ComponentEMRun

    def start(self, X, y=None) -> "EMRun":
        """Validate the data, build snapshot 0 (the initial parameters) and return the run.

        Parameters
        ----------
        X : (N, V) ndarray or scipy.sparse matrix
        y : (N,) ints with −1 (or NaN) for hidden labels; None = all hidden

        A ``dask.array`` X (row chunks) gives a :class:`nbcore.dask_em.ChunkedEMRun`
        (needs ``pip install 'nbcore[dask]'``).
        """
        if _is_chunked(X):
            from . import dask_em

            return dask_em.start(self, X, y)
        return self._run_type()(self, X, y, random_state=self.random_state)

    def fit(self, X, y=None, callback=None) -> "EMRun":
        """Run to convergence ``n_init`` times from different seeds; return the best run.

        The returned run has ``restarts``: one ``(seed_index, objective, converged)``
        per start. ``callback(i, run)`` is called after each start (for progress bars).
        """
        if not isinstance(self.n_init, int) or self.n_init < 1:
            raise ValueError(f"n_init must be a whole number ≥ 1, got {self.n_init!r}.")
        if _is_chunked(X):  # chunks are validated once for all restarts
            from . import dask_em

            return dask_em.fit(self, X, y, callback)
        run_type = self._run_type()
        return self._fit_runs(lambda random_state: run_type(self, X, y, random_state=random_state), callback)

    def _fit_runs(self, new_run, callback=None) -> "EMRun":
        """The restarts of :meth:`fit`; ``new_run(random_state)`` makes one run."""
        seeds = np.random.SeedSequence(self.random_state if isinstance(self.random_state, int) else None).spawn(self.n_init)
        best, summary = None, []
        for i, seed in enumerate(seeds):
            run = new_run(np.random.default_rng(seed) if self.n_init > 1 else self.random_state)
            run.run_to_convergence()
            summary.append((i, run.current.objective, run.converged))
            if best is None or run.current.objective > best.current.objective:
                best = run
            if callback is not None:
                callback(i, run)
        best.restarts = summary
        return best
