"""Why EM climbs: the lower bound the E-step makes tight and the M-step raises.

For any distribution q_i over the classes of each document (Jensen's inequality),

    log p(x_i) = log Σ_k q_ik · p(x_i, k | θ) / q_ik  ≥  Σ_k q_ik [log p(x_i, k | θ) − log q_ik],

so the *free energy* F(q, θ) = Σ_i w_i Σ_k q_ik [log p(x_i, k | θ) − log q_ik] is a lower bound on
the observed log-likelihood L(θ), with the gap

    L(θ) − F(q, θ) = Σ_i w_i KL(q_i ‖ p(· | x_i, θ)) ≥ 0.

* **E-step**: q_i = p(· | x_i, θ_t) makes every KL term 0: the bound touches L at θ_t.
* **M-step**: θ_{t+1} maximises F(q, θ) + log p(θ) over θ (eq. 23-24 are the arg max), so
  the bound rises; L rises at least as much, because the gap at θ_{t+1} is ≥ 0:

      L(θ_{t+1}) − L(θ_t) = [B(θ_{t+1}) − B(θ_t)]  +  KL gap at θ_{t+1}
                             (M-step gain ≥ 0)        (≥ 0)

Labelled rows have q one-hot on their class (eq. 22), so they contribute log p(x_i, y_i) to
both sides; hidden rows count w times (``unlabeled_weight``). Everything here includes the log
prior of λ, i.e. it is about the objective EM actually maximises (``Snapshot.objective``).

:func:`free_energy` is the equation; :func:`climb` gives the numbers of one iteration and
:func:`bound_slice` the curves along the line θ_t → θ_{t+1} for the picture.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .em import log_joint, m_step

__all__ = ["free_energy", "expected_complete_log_likelihood", "entropy", "Climb", "climb", "bound_slice",
           "interpolate", "feasible_interval"]


def _xlogx(q: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(q > 0, q * np.log(np.where(q > 0, q, 1.0)), 0.0)


#: q below this times log p = −inf counts 0: with λ = 0 the M-step's β = Σ x q / Σ q rounds to
#: exactly 0 or 1 when a document's weight is below ~1e-16 of the class total, although
#: mathematically β stays inside (0, 1) and the term q · log p is about q log q → 0.
Q_FLOOR = 1e-12


def expected_complete_log_likelihood(joint: np.ndarray, q: np.ndarray, row_weight=None) -> float:
    """Q(θ) = Σ_i w_i Σ_k q_ik log p(x_i, k | θ)  (terms with q_ik = 0 count 0).

    A term with log p = −inf counts 0 when q_ik < ``Q_FLOOR`` (rounding of λ = 0 estimates,
    see there) and −inf otherwise.
    """
    with np.errstate(invalid="ignore"):
        negligible = (q < Q_FLOOR) & np.isneginf(joint)
        terms = np.where((q > 0) & ~negligible, q * joint, 0.0).sum(axis=1)
    return float(terms.sum() if row_weight is None else (np.ravel(row_weight) * terms).sum())


def entropy(q: np.ndarray, row_weight=None) -> float:
    """H(q) = −Σ_i w_i Σ_k q_ik log q_ik."""
    terms = -_xlogx(q).sum(axis=1)
    return float(terms.sum() if row_weight is None else (np.ravel(row_weight) * terms).sum())


def free_energy(joint: np.ndarray, q: np.ndarray, row_weight=None) -> float:
    """F(q, θ) = Q(θ) + H(q) = Σ_i w_i Σ_k q_ik [log p(x_i, k | θ) − log q_ik] ≤ L(θ).

    Parameters
    ----------
    joint : (N, C) log p(x_i, k | θ)
    q : (N, C) rows sum to 1 (responsibilities of some E-step)
    row_weight : (N,) or None, w_i (1 for labelled rows, ``unlabeled_weight`` for hidden ones)
    """
    return expected_complete_log_likelihood(joint, q, row_weight) + entropy(q, row_weight)


def _row_weight(run) -> np.ndarray:
    return np.where(run.y < 0, run.unlabeled_weight, 1.0)


def _evaluate(run, alpha, params):
    """(objective, joint, q, log prior) of θ = (α, params) on the run's data, without touching the run."""
    log_lik, log_prior = run.model.evaluate(run.Xp, params, run.smoothing)
    joint = log_joint(log_lik, np.asarray(alpha))
    q, log_marginal, _ = run._e_step(joint)
    # per-row log-likelihood: log p(x_i) for hidden rows; log p(x_i, y_i) for labelled rows
    # (= log Σ_{c ∈ y_i} p(x_i, c) with components per class)
    rows = np.flatnonzero(run.y >= 0)
    per_row = log_marginal.copy()
    if rows.size and not hasattr(run, "components_per_class"):
        per_row[rows] = joint[rows, run.y[rows]]
    w = _row_weight(run)
    with np.errstate(invalid="ignore"):
        ll = float(np.sum(np.where(w > 0, w * per_row, 0.0)))
    return ll + log_prior, joint, q, log_prior


@dataclass(frozen=True)
class Climb:
    """The numbers of one EM iteration t → t+1, all including the log prior of λ.

    Attributes
    ----------
    objective_before : L(θ_t)
    bound_before : F(q_t, θ_t) + log p(θ_t); equals ``objective_before`` (the E-step makes it tight)
    bound_after : F(q_t, θ_{t+1}) + log p(θ_{t+1}) (what the M-step maximised)
    objective_after : L(θ_{t+1})
    m_step_gain : bound_after − bound_before ≥ 0
    gap_after : objective_after − bound_after = Σ_i w_i KL(q_t,i ‖ p(· | x_i, θ_{t+1})) ≥ 0
    """

    iteration: int
    objective_before: float
    bound_before: float
    bound_after: float
    objective_after: float

    @property
    def m_step_gain(self) -> float:
        return self.bound_after - self.bound_before

    @property
    def gap_after(self) -> float:
        return self.objective_after - self.bound_after

    @property
    def total(self) -> float:
        return self.objective_after - self.objective_before


def _next_parameters(run, q):
    weights = q if run.unlabeled_weight == 1.0 else q * _row_weight(run)[:, None]
    return m_step(run.model, run.Xp, weights, run.smoothing)


def climb(run, t: int | None = None) -> Climb:
    """Decompose the climb of iteration t → t+1 (default: from the current θ_t).

    q_t is the E-step at θ_t and θ_{t+1} the M-step from q_t, both recomputed with the run's
    current λ (so this also works between the half-steps, before θ_{t+1} exists).
    """
    t = run.iteration if t is None else int(t)
    snap = run.history[t]
    obj0, joint0, q, lp0 = _evaluate(run, snap.alpha, snap.params)
    w = _row_weight(run)
    b0 = free_energy(joint0, q, w) + lp0
    alpha1, params1 = _next_parameters(run, q)
    obj1, joint1, _, lp1 = _evaluate(run, alpha1, params1)
    b1 = free_energy(joint1, q, w) + lp1
    return Climb(t, obj0, b0, b1, obj1)


def _arrays(params):
    for key in params:
        value = params[key]
        if isinstance(value, tuple):
            for i, v in enumerate(value):
                yield (key, i), v
        else:
            yield (key, None), value


def interpolate(a_alpha, a_params, b_alpha, b_params, s: float):
    """θ(s) = θ_a + s (θ_b − θ_a) for α and every parameter array (tuples element-wise)."""
    alpha = np.asarray(a_alpha) + s * (np.asarray(b_alpha) - np.asarray(a_alpha))
    params = {}
    for key in a_params:
        a, b = a_params[key], b_params[key]
        if isinstance(a, tuple):
            params[key] = tuple(u + s * (v - u) for u, v in zip(a, b))
        else:
            params[key] = a + s * (b - a)
    return alpha, params


_LIMITS = {"var": (0.0, np.inf), "mean": (-np.inf, np.inf)}


def feasible_interval(a_alpha, a_params, b_alpha, b_params) -> tuple[float, float]:
    """Largest [s_lo, s_hi] ∋ [0, 1] on which θ(s) stays a valid parameter
    (probabilities in [0, 1], variances > 0)."""
    lo, hi = -np.inf, np.inf
    pairs = [(np.asarray(a_alpha), np.asarray(b_alpha), (0.0, 1.0))]
    keys_b = dict(_arrays(b_params))
    for key, a in _arrays(a_params):
        pairs.append((np.asarray(a), np.asarray(keys_b[key]), _LIMITS.get(key[0], (0.0, 1.0))))
    for a, b, (vmin, vmax) in pairs:
        d = b - a
        up, down = d > 0, d < 0
        strict = vmin == 0.0 and vmax == np.inf  # a variance must stay > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            if up.any():
                hi = min(hi, float(np.min((vmax - a[up]) / d[up])))
                lo = max(lo, float(np.max((vmin - a[up]) / d[up])) * (0.999 if strict else 1.0))
            if down.any():
                hi = min(hi, float(np.min((vmin - a[down]) / d[down])) * (0.999 if strict else 1.0))
                lo = max(lo, float(np.max((vmax - a[down]) / d[down])))
    return lo, hi


def bound_slice(run, t: int | None = None, s_range: tuple[float, float] = (-0.75, 1.75), n: int = 121) -> dict:
    """L and the two bounds along the line θ(s) = θ_t + s (θ_{t+1} − θ_t).

    Returns a dict of arrays: ``s``; ``objective`` L(θ(s)) + log p(θ(s)); ``bound`` F(q_t, θ(s)) +
    log p(θ(s)) (touches L at s = 0, highest at s = 1: the M-step); ``next_bound`` F(q_{t+1}, θ(s))
    + log p (touches L at s = 1: the next E-step). s is clipped to where θ(s) is a valid parameter;
    values there can be −inf (a probability of 0 with λ = 0).
    """
    t = run.iteration if t is None else int(t)
    snap = run.history[t]
    _, _, q0, _ = _evaluate(run, snap.alpha, snap.params)
    alpha1, params1 = _next_parameters(run, q0)
    _, _, q1, _ = _evaluate(run, alpha1, params1)
    lo, hi = feasible_interval(snap.alpha, snap.params, alpha1, params1)
    s_lo, s_hi = max(s_range[0], lo), min(s_range[1], hi)
    s = np.unique(np.r_[np.linspace(s_lo, s_hi, n), 0.0, 1.0])
    s = s[(s >= s_lo) & (s <= s_hi)]
    w = _row_weight(run)
    obj, bnd, nxt = [], [], []
    for v in s:
        alpha, params = interpolate(snap.alpha, snap.params, alpha1, params1, float(v))
        with np.errstate(divide="ignore", invalid="ignore"):
            o, joint, _, lp = _evaluate(run, alpha, params)
            obj.append(o)
            bnd.append(free_energy(joint, q0, w) + lp)
            nxt.append(free_energy(joint, q1, w) + lp)
    return {"s": s, "objective": np.asarray(obj), "bound": np.asarray(bnd), "next_bound": np.asarray(nxt),
            "iteration": t}
