"""The coin: MLE vs MAP with a Beta prior (the lecture), and EM for two coins with hidden identities.

One coin, α_H heads and α_T tails (the lecture's notation):

=======================  =================================================================
``coin_mle``             θ_MLE = α_H / (α_H + α_T)
``coin_map``             θ_MAP = (α_H + a − 1) / (α_H + α_T + a + b − 2)   (mode of the posterior)
``beta_posterior``       p(θ | D) = Beta(θ; α_H + a, α_T + b)
``smoothing_as_prior``   the lab's λ is a Beta(λ + 1, λ + 1) prior: θ_MAP = (α_H + λ) / (N + 2λ),
                         eq. (14) of the notes for one word (λ pseudo-counts per outcome)
=======================  =================================================================

Two coins (the classic example of Do & Batzoglou, *What is the expectation maximization
algorithm?*, Nature Biotechnology 26, 2008): each set i of n_i flips was made with coin A or coin B,
but which one is hidden. EM alternates

* E-step: r_iA = π θ_A^h_i (1 − θ_A)^(n_i − h_i) / Σ_c π_c θ_c^h_i (1 − θ_c)^(n_i − h_i);
* M-step: θ_c = Σ_i r_ic h_i / Σ_i r_ic n_i (and π_A = mean r_iA if the choice is estimated).

This is Naive Bayes with two "words", H and T, counted per set: a multinomial mixture.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.special import logsumexp

__all__ = ["coin_mle", "coin_map", "beta_posterior", "smoothing_as_prior", "posterior_curve",
           "TwoCoinStep", "two_coin_e_step", "two_coin_m_step", "two_coin_em", "CLASSIC_FLIPS", "parse_flips"]

#: Do & Batzoglou (2008), fig. 1: five sets of ten flips
CLASSIC_FLIPS = ("HTTTHHTHTH", "HHHHTHHHHH", "HTHHHHHTHH", "HTHTTTHHTT", "THHHTHHHTH")


def coin_mle(heads: int, tails: int) -> float:
    """θ_MLE = α_H / (α_H + α_T) (the lecture); NaN with no flips."""
    n = heads + tails
    return float(heads / n) if n > 0 else float("nan")


def coin_map(heads: int, tails: int, a: float, b: float) -> float:
    """Mode of Beta(α_H + a, α_T + b): (α_H + a − 1) / (N + a + b − 2).

    When a posterior parameter is ≤ 1 the mode sits on the edge (0 or 1); with both ≤ 1
    and equal to 1 (uniform posterior, no flips and a = b = 1) every θ is a mode: NaN.
    """
    A, B = heads + a, tails + b
    if A > 1 and B > 1:
        return float((A - 1) / (A + B - 2))
    if A <= 1 and B <= 1:
        return float("nan") if A == B == 1 else (0.0 if A < B else 1.0 if B < A else float("nan"))
    return 0.0 if A <= 1 else 1.0


def beta_posterior(heads: int, tails: int, a: float, b: float):
    """The posterior Beta(α_H + a, α_T + b) as a frozen scipy distribution."""
    return stats.beta(heads + a, tails + b)


def smoothing_as_prior(smoothing: float) -> tuple[float, float]:
    """λ pseudo-counts per outcome ⇔ Beta(λ + 1, λ + 1): the prior the lab's λ stands for."""
    if smoothing < 0:
        raise ValueError(f"λ must be ≥ 0, got {smoothing}.")
    return smoothing + 1.0, smoothing + 1.0


def posterior_curve(heads: int, tails: int, a: float, b: float, grid: np.ndarray) -> np.ndarray:
    """Posterior density on ``grid`` (finite everywhere: edges with an infinite density are clipped)."""
    pdf = beta_posterior(heads, tails, a, b).pdf(grid)
    return np.where(np.isfinite(pdf), pdf, np.nan)


def parse_flips(text: str) -> str:
    """Keep H/T (case-insensitive; spaces and commas ignored). Raises ValueError on anything else."""
    cleaned = "".join(ch for ch in text.upper() if not ch.isspace() and ch != ",")
    bad = sorted(set(cleaned) - {"H", "T"})
    if bad:
        raise ValueError(f"Flips are written with H and T only; found {', '.join(repr(c) for c in bad)}.")
    return cleaned


@dataclass(frozen=True)
class TwoCoinStep:
    """One iteration of two-coin EM: the E-step's responsibilities and the parameters after the M-step.

    theta : (2,) θ_A, θ_B after this M-step; pi : (2,) coin-choice probabilities;
    resp : (S, 2) r_iA, r_iB used by the M-step (None at t = 0);
    log_likelihood : log p(flips | θ, π) of these parameters (binomial coefficients included).
    """

    iteration: int
    theta: np.ndarray
    pi: np.ndarray
    resp: np.ndarray | None
    log_likelihood: float


def _log_joint(heads, n, theta, pi):
    from scipy.special import gammaln

    heads, n = np.asarray(heads, float), np.asarray(n, float)
    log_binom = gammaln(n + 1) - gammaln(heads + 1) - gammaln(n - heads + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lt, l1t = np.log(theta), np.log1p(-np.asarray(theta))
        ll = heads[:, None] * lt + (n - heads)[:, None] * l1t
        ll = np.where(np.isnan(ll), 0.0, ll)  # 0 · log 0
        return log_binom[:, None] + ll + np.log(pi)


def two_coin_e_step(heads, n, theta, pi=(0.5, 0.5)):
    """r_ic = p(coin c | set i) for every set: shape (S, 2); and log p(flips)."""
    joint = _log_joint(heads, n, np.asarray(theta, float), np.asarray(pi, float))
    total = logsumexp(joint, axis=1)
    return np.exp(joint - total[:, None]), float(total.sum())


def two_coin_m_step(heads, n, resp, estimate_pi: bool = False, pi=(0.5, 0.5)):
    """θ_c = Σ_i r_ic h_i / Σ_i r_ic n_i; π_c = mean_i r_ic if estimated. Returns (theta, pi)."""
    heads, n = np.asarray(heads, float), np.asarray(n, float)
    theta = (resp * heads[:, None]).sum(axis=0) / np.maximum((resp * n[:, None]).sum(axis=0), 1e-300)
    new_pi = resp.mean(axis=0) if estimate_pi else np.asarray(pi, float)
    return theta, new_pi


def two_coin_em(heads, n, theta0=(0.6, 0.5), pi0=(0.5, 0.5), estimate_pi: bool = False, n_iter: int = 10):
    """Run two-coin EM for ``n_iter`` iterations; returns the list of TwoCoinStep (t = 0 … n_iter)."""
    heads = np.asarray(heads, float)
    n = np.asarray(n, float)
    if heads.shape != n.shape or heads.ndim != 1 or heads.size == 0:
        raise ValueError("Give at least one set of flips (heads and flips per set, same length).")
    if np.any(heads < 0) or np.any(heads > n):
        raise ValueError("Each set needs 0 ≤ heads ≤ flips.")
    theta = np.asarray(theta0, float)
    if theta.shape != (2,) or np.any(theta <= 0) or np.any(theta >= 1):
        raise ValueError("The starting θ_A and θ_B must lie strictly between 0 and 1.")
    pi = np.asarray(pi0, float)
    _, ll = two_coin_e_step(heads, n, theta, pi)
    out = [TwoCoinStep(0, theta, pi, None, ll)]
    for t in range(1, n_iter + 1):
        resp, _ = two_coin_e_step(heads, n, theta, pi)
        theta, pi = two_coin_m_step(heads, n, resp, estimate_pi, pi)
        _, ll = two_coin_e_step(heads, n, theta, pi)
        out.append(TwoCoinStep(t, theta, pi, resp, ll))
    return out
