"""One EM run: the snapshots of every iteration, one E-step + M-step at a time.

:class:`EMRun` is made by :meth:`nbcore.EM.start` (the settings, :mod:`nbcore.em`); its
:meth:`EMRun.step` performs one E-step + M-step with the functions of
:mod:`nbcore.equations` and returns a new immutable :class:`Snapshot`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping

import numpy as np

from ._settings import EMSettings
from ._validation import (
    check_labels,
    check_random_state,
    check_run_settings,
    check_smoothing,
    check_something_to_learn,
    warn_classes_without_labels,
    warn_impossible,
)
from .equations import (
    THETA_NORMS,
    decreases,
    log_joint,
    m_step,
    normalize_log,
    observed_log_likelihood,
    one_hot_labels,
    responsibilities,
    same_smoothing,
    squared_change,
)
from .models import get_model

__all__ = ["EMRun", "EStep", "Snapshot"]


@dataclass(frozen=True, eq=False)
class EStep:
    """The state between the two half-steps: E-step done at θ_t, M-step not yet.

    Attributes
    ----------
    iteration : int
        t: the parameters are still θ_t (``run.current``).
    resp : (N, C) ndarray, read-only
        r_ik = p(y_i = k | x_i, θ_t) for hidden rows (eq. 21), one-hot for
        labelled rows (eq. 22); C = K, or K·m with components per class.
    log_likelihood, objective : float
        Of θ_t. With q = resp the lower bound F(q, θ_t) equals the
        log-likelihood: the E-step makes the bound tight (see ``nbcore.bound``).
    """

    iteration: int
    resp: np.ndarray
    log_likelihood: float
    objective: float


# ---------------------------------------------------------------------------
# Snapshots and runs
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Snapshot:
    """The state of EM after iteration t (immutable; arrays are read-only and shared).

    Attributes
    ----------
    iteration : int
        t (0 = the initial parameters).
    alpha : (K,) ndarray
        Class prior α_t.
    params : mapping
        Event-model parameters: ``beta`` (V, K) for bernoulli/multinomial;
        ``theta`` (tuple of (D_j, K)) for categorical; ``mean`` and ``var``
        (V, K) for gaussian. Also reachable as ``snap.beta`` etc.
    resp : (N, K) ndarray or None
        Responsibilities used by the M-step that produced θ_t (None at t = 0).
        Labelled rows are one-hot; the unlabelled weight w is *not* applied here.
    log_likelihood : float
        Observed-data log-likelihood of θ_t.
    objective : float
        log_likelihood + log prior of θ_t implied by λ (what EM maximises).
    delta : float or None
        ‖θ_t − θ_{t−1}‖² over α and all parameters (the course session step 4).
    smoothing : float or (V,) ndarray
        λ used by the M-step that produced θ_t (and by ``objective``'s log prior): a
        float, or a read-only array of λ_j when the run was given one pseudo-count per
        feature. Compare two of them with :func:`nbcore.equations.same_smoothing`.
    """

    iteration: int
    alpha: np.ndarray
    params: Mapping[str, Any]
    resp: np.ndarray | None
    log_likelihood: float
    objective: float
    delta: float | None
    smoothing: float | np.ndarray

    def _param(self, name):
        try:
            return self.params[name]
        except KeyError:
            raise AttributeError(
                f"this snapshot has no '{name}' (its parameters are: {', '.join(self.params)})"
            ) from None

    @property
    def beta(self) -> np.ndarray:
        """(V, K) β for the bernoulli and multinomial models."""
        return self._param("beta")

    @property
    def theta(self) -> tuple:
        """Categorical model: tuple of (D_j, K) tables θ_j[d, k] = p(x_j = d | k)."""
        return self._param("theta")

    @property
    def mean(self) -> np.ndarray:
        """Gaussian model: (V, K) means μ_jk."""
        return self._param("mean")

    @property
    def var(self) -> np.ndarray:
        """Gaussian model: (V, K) variances σ²_jk."""
        return self._param("var")


class EMRun:
    """One EM run: data, settings and the list of snapshots so far.

    Create it with :meth:`EM.start`. :meth:`step` runs one E-step + M-step.
    """

    def __init__(self, settings: EMSettings, X, y, random_state=None, _from=None):
        self.settings = settings
        self.model = get_model(settings.model, **dict(settings.model_options))
        self.smoothing, self.unlabeled_weight, self.n_classes = check_run_settings(settings)
        self.restarts = None
        self._pending = None  # the EStep of a half-done iteration (E done, M not yet)
        if _from is not None:  # continue another run with new settings (with_smoothing)
            self.Xp, self.y, self._labels = _from.Xp, _from.y, _from._labels
            self.history = list(_from.history)
            self._row_weight = _from._row_weight
            self._joint, self._resp = _from._joint, _from._resp
            self._log_marginal, self._impossible = _from._log_marginal, _from._impossible
            self._pending = _from._pending  # the E-step at θ_t does not depend on these settings
            self._setup_from(_from)
            self.stop_reason = None
            return
        self.Xp = self.model.prepare(X)
        self.model.check_smoothing(self.smoothing, self.Xp.shape[1])  # λ_j per feature: V of them
        n = self.Xp.shape[0]
        self.y = check_labels(np.full(n, -1) if y is None else y, n, self.n_classes)
        self.y.flags.writeable = False
        self._labels = one_hot_labels(self.y, self.n_classes)
        self._setup()
        # w for hidden rows, 1 for labelled rows (None when w = 1: no scaling needed)
        self._row_weight = None
        if self.unlabeled_weight != 1.0:
            self._row_weight = np.where(self.y < 0, self.unlabeled_weight, 1.0)[:, None]
        check_something_to_learn(int((self.y >= 0).sum()), settings.init, self.unlabeled_weight)
        rng = check_random_state(random_state)
        alpha, params = self._initial_parameters(settings.init, rng)
        self.stop_reason = None
        log_prior = self._evaluate(params, alpha)
        ll = self._observed_log_likelihood()
        self.history = [Snapshot(0, alpha, params, None, ll, ll + log_prior, None, self.smoothing)]

    # -- hooks for subclasses (components per class) ---------------------------
    def _setup(self) -> None:
        """Called once the labels are known (fresh run)."""

    def _setup_from(self, other: "EMRun") -> None:
        """Called when continuing ``other`` with new settings."""

    def _e_step(self, joint: np.ndarray):
        """(resp, log_marginal, impossible) from log p(x_i, k): eq. 21-22."""
        return responsibilities(joint, self.y)

    def _observed_log_likelihood(self) -> float:
        return observed_log_likelihood(self._joint, self._log_marginal, self.y, self.unlabeled_weight)

    # -- initialisation ------------------------------------------------------
    def _initial_parameters(self, init, rng):
        K = self.n_classes
        if init == "uniform":
            alpha = np.full(K, 1.0 / K)
            params = self.model.uniform_params(self.Xp, K)
        elif init == "random":
            raw = rng.uniform(0.01, 0.99, size=K)  # the notebook's ``initialize``
            alpha = raw / raw.sum()
            params = self.model.random_params(self.Xp, K, rng)
        else:  # "labeled": the course session step 1, an M-step on the labelled rows only
            alpha, params = m_step(self.model, self.Xp, self._labels, self.smoothing)
            if (alpha == 0).any():
                warn_classes_without_labels(alpha == 0)
        alpha = np.asarray(alpha, dtype=np.float64)
        alpha.flags.writeable = False
        return alpha, params

    # -- one iteration ---------------------------------------------------------
    def _evaluate(self, params, alpha) -> float:
        """log p(x_i, k) under θ: the E-step's product, cached for the next step.

        Returns the log prior of θ (computed from the same logs).
        """
        log_likelihood, log_prior = self.model.evaluate(self.Xp, params, self.smoothing)
        self._joint = log_joint(log_likelihood, alpha)
        self._resp, self._log_marginal, self._impossible = self._e_step(self._joint)
        hidden_impossible = self._impossible
        if hidden_impossible.any():
            warn_impossible(int(hidden_impossible.sum()), int(np.flatnonzero(hidden_impossible)[0]))
        return log_prior

    @property
    def current(self) -> Snapshot:
        return self.history[-1]

    @property
    def iteration(self) -> int:
        return self.current.iteration

    @property
    def converged(self) -> bool:
        return self.stop_reason in ("tol", "theta")

    @property
    def done(self) -> bool:
        return self.stop_reason is not None or self.iteration >= self.settings.max_iter

    @property
    def pending(self) -> EStep | None:
        """The E-step of a half-done iteration (after :meth:`e_step`, before :meth:`m_step`)."""
        return self._pending

    def e_step(self) -> EStep:
        """First half of an iteration: the responsibilities under θ_t (eq. 21-22).

        The parameters do not change (``run.current`` is still θ_t). Calling it
        twice returns the same E-step. Follow with :meth:`m_step`.
        """
        if self._pending is None:
            snap = self.current
            resp = self._resp  # computed when θ_t was evaluated: the E-step's product (eq. 21)
            resp.flags.writeable = False
            self._pending = EStep(snap.iteration, resp, snap.log_likelihood, snap.objective)
        return self._pending

    def m_step(self) -> Snapshot:
        """Second half: θ_{t+1} from the E-step's responsibilities (eq. 23-24). Returns the new snapshot.

        Raises ValueError when no E-step is pending (the M-step needs its responsibilities).
        """
        if self._pending is None:
            raise ValueError("The M-step needs responsibilities: do the E-step first (or Step for both).")
        previous = self.current
        resp = self._pending.resp
        weights = resp if self._row_weight is None else resp * self._row_weight
        alpha, params = m_step(self.model, self.Xp, weights, self.smoothing)
        del weights
        delta = squared_change(self.model, alpha, params, previous.alpha, previous.params, self.settings.theta_norm)
        log_prior = self._evaluate(params, alpha)  # E-step product for θ_{t+1}: its likelihood, and the next resp
        ll = self._observed_log_likelihood()
        objective = ll + log_prior
        snap = Snapshot(previous.iteration + 1, alpha, params, resp, ll, objective, delta, self.smoothing)
        self._pending = None
        self.history.append(snap)
        self._forget_old_resp()
        self._update_stop_reason(previous, snap)
        return snap

    def step(self) -> Snapshot:
        """One E-step (eq. 21-22) + M-step (eq. 23-24). Returns the new snapshot.

        After a lone :meth:`e_step`, this finishes that iteration.
        """
        self.e_step()
        return self.m_step()

    def _forget_old_resp(self) -> None:
        keep = self.settings.keep_resp
        if keep is None:
            return
        old = len(self.history) - 1 - max(int(keep), 0)
        if old >= 1 and self.history[old].resp is not None:
            self.history[old] = replace(self.history[old], resp=None)

    def responsibilities(self, t: int) -> np.ndarray | None:
        """The responsibilities that produced θ_t (``history[t].resp``), recomputed if not stored.

        They are the E-step at θ_{t−1} (eq. 21, with labelled rows one-hot by
        eq. 22), so recomputing gives the same numbers. None for t = 0.
        """
        if t == 0:
            return None
        snap = self.history[t]
        if snap.resp is not None:
            return snap.resp
        before = self.history[t - 1]
        log_likelihood, _ = self.model.evaluate(self.Xp, before.params, self.smoothing)  # same path as step()
        return self._e_step(log_joint(log_likelihood, before.alpha))[0]

    def m_step_weights(self, t: int) -> np.ndarray | None:
        """(N, K) weights of the M-step that produced θ_t: the responsibilities of
        :meth:`responsibilities` times each row's weight (``unlabeled_weight`` for an
        unlabelled row, 1 for a labelled one). None for t = 0."""
        resp = self.responsibilities(t)
        if resp is None:
            return None
        row_weight = getattr(self, "_row_weight", None)
        return resp if row_weight is None else resp * row_weight

    def _update_stop_reason(self, previous: Snapshot, snap: Snapshot) -> None:
        s = self.settings
        self.stop_reason = None
        if s.theta_tol is not None and snap.delta < s.theta_tol:
            self.stop_reason = "theta"
        elif (
            s.tol is not None
            and same_smoothing(previous.smoothing, snap.smoothing)
            and math.isfinite(snap.objective)
            and math.isfinite(previous.objective)
            and abs(snap.objective - previous.objective) <= s.tol * abs(previous.objective)
        ):
            self.stop_reason = "tol"
        elif snap.iteration >= s.max_iter:
            self.stop_reason = "max_iter"

    def run_to_convergence(self, max_steps: int | None = None, callback=None) -> Snapshot:
        """Step until converged or ``max_iter`` (or ``max_steps`` more steps)."""
        steps = 0
        while not self.done and (max_steps is None or steps < max_steps):
            self.step()
            steps += 1
            if callback is not None:
                callback(self)
        return self.current

    #: settings a run can change mid-way (they do not change what θ_t means)
    CONTINUABLE = ("smoothing", "max_iter", "tol", "theta_tol", "keep_resp", "theta_norm")

    def with_settings(self, **changes) -> "EMRun":
        """A new run that continues from the current parameters with some settings changed.

        Allowed: ``smoothing`` (λ, or a (V,) array of λ_j per feature; the next M-step and the
        objective's log prior use it), ``max_iter``, ``tol``,
        ``theta_tol``, ``keep_resp``, ``theta_norm``. The history so far is kept; the original run
        is untouched.
        """
        unknown = set(changes) - set(self.CONTINUABLE)
        if unknown:
            raise ValueError(
                f"Cannot change {', '.join(sorted(unknown))} in the middle of a run (only "
                f"{', '.join(self.CONTINUABLE)}); start a new run instead."
            )
        if "smoothing" in changes:
            changes["smoothing"] = check_smoothing(changes["smoothing"])
            # an array of λ_j must fit the run's features; chunked runs keep their data in ``data``
            data = self.Xp if self.Xp is not None else getattr(self, "data", None)
            if data is not None:
                self.model.check_smoothing(changes["smoothing"], data.shape[1])
        if "theta_norm" in changes and changes["theta_norm"] not in THETA_NORMS:
            raise ValueError(f"theta_norm must be one of {', '.join(THETA_NORMS)}; got {changes['theta_norm']!r}.")
        settings = replace(self.settings, **changes)
        return type(self)(settings, None, None, _from=self)

    def rewound(self, t: int) -> "EMRun":
        """A run whose latest iteration is ``t``: the snapshots after t are dropped, EM goes on from θ_t.

        Used when a viewer computed iterations ahead of what it showed (a browser
        player buffering frames) and the user stops at t. EM is deterministic, so
        stepping the rewound run gives back exactly the dropped snapshots (same
        settings). The original run is untouched.
        """
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= t < len(self.history):
            raise ValueError(f"Can only rewind to an iteration from 0 to {len(self.history) - 1}, got {t!r}.")
        new = type(self)(self.settings, None, None, _from=self)   # a subclass (components per class) stays one
        if t == len(self.history) - 1:
            new.stop_reason = self.stop_reason
            return new
        new.history = new.history[: t + 1]
        new._pending = None   # a pending E-step belongs to the latest iteration, not to θ_t
        snap = new.history[-1]
        import warnings

        with warnings.catch_warnings():  # an impossible document was reported when θ_t was first made
            warnings.simplefilter("ignore")
            new._evaluate(snap.params, snap.alpha)  # the E-step at θ_t: what the next step starts from
        if t > 0:
            new._update_stop_reason(new.history[t - 1], snap)
        return new

    def with_smoothing(self, smoothing) -> "EMRun":
        """A new run that continues from the current parameters with a new λ (see :meth:`with_settings`)."""
        return self.with_settings(smoothing=smoothing)

    def objective_decreases(self, rtol: float = 1e-10) -> list[int]:
        """Iterations t at which the objective fell below that of t − 1 at the same λ.

        EM guarantees this list is empty (for the discrete models). The lesson view makes the
        same check on the history it draws (``dashboard.charts.lesson.decreases`` calls
        :func:`decreases` with the charts' tolerance) and flags any entry.
        """
        return decreases([s.objective for s in self.history], [s.smoothing for s in self.history], rtol)

    def predict_proba(self, X=None, t: int | None = None) -> np.ndarray:
        """p(y = k | x_i) under snapshot t (default: the current one), shape (N, K).

        With ``X=None`` the training data are used. Labelled rows get the
        model's posterior too (not their one-hot label).
        """
        snap = self.current if t is None else self.history[t]
        if X is None and t is None or (X is None and t == self.iteration):
            return normalize_log(self._joint)[0]
        Xp = self.Xp if X is None else self.model.prepare(X, snap.params)
        return normalize_log(log_joint(self.model.log_likelihood(Xp, snap.params), snap.alpha))[0]

    def predict(self, X=None, t: int | None = None) -> np.ndarray:
        return self.predict_proba(X, t).argmax(axis=1)

    def __repr__(self) -> str:
        return (
            f"<EMRun {self.model.name} K={self.n_classes} λ={format_smoothing(self.smoothing)} "
            f"t={self.iteration} stop={self.stop_reason}>"
        )


def format_smoothing(smoothing) -> str:
    """λ for a sentence: ``1`` for a float, ``[0.5, 1, …] (V = 300)`` for λ_j per feature."""
    if not isinstance(smoothing, np.ndarray):
        return f"{smoothing:g}"
    head = ", ".join(f"{v:g}" for v in smoothing[:3])
    return f"[{head}{', …' if smoothing.size > 3 else ''}] (V = {smoothing.size})"
