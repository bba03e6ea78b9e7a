"""Several mixture components per class (Nigam, McCallum, Thrun & Mitchell 2000, §5).

One Naive Bayes component per class assumes every document of a class comes from
*one* word distribution. A digit "7" written with or without a bar, or the
"other" class of a news filter, is really several clusters. Nigam et al. give each
class ``m`` latent sub-classes ("mixture components") and run EM over all K·m of
them:

* hidden rows: responsibilities over every component (eq. 21 with K·m columns);
* labelled rows of class k: responsibilities over *k's* components only,
  renormalised there, so a labelled row never leaves its class (eq. 22 becomes
  "one-hot at the class level");
* the M-step is unchanged (eq. 23-24 with K·m columns);
* p(y = k | x) = Σ_{c ∈ k} p(c | x).

Component c belongs to class ``c // m`` (class k owns columns k·m … k·m + m − 1).
The objective is the observed-data log-likelihood
Σ_labelled log Σ_{c ∈ y_i} p(x_i, c) + w Σ_hidden log Σ_c p(x_i, c), plus the log prior of λ;
EM never decreases it, exactly as with m = 1.

Use it through ``nbcore.EM(components_per_class=m)``.
"""

from __future__ import annotations

import numpy as np

from ._validation import warn_classes_without_labels
from .equations import m_step, normalize_log
from .run import EMRun, format_smoothing

__all__ = [
    "ComponentEMRun",
    "component_classes",
    "constrained_responsibilities",
    "class_posterior",
    "class_prior_of_components",
]


def component_classes(n_classes: int, m: int) -> np.ndarray:
    """(K·m,) class of each component: [0]*m + [1]*m + …"""
    return np.repeat(np.arange(n_classes), m)


def constrained_responsibilities(joint: np.ndarray, y: np.ndarray, m: int):
    """E-step over components: r_ic ∝ p(x_i, c), restricted to y_i's components for labelled rows.

    Parameters
    ----------
    joint : (N, K·m) log p(x_i, c) = log α_c + log p(x_i | c)
    y : (N,) int class labels, −1 = hidden
    m : components per class

    Returns
    -------
    resp : (N, K·m), rows sum to 1; a labelled row is zero outside its class's components
    log_marginal : (N,) log p(x_i) for hidden rows, log p(x_i, y_i) = log Σ_{c ∈ y_i} p(x_i, c)
        for labelled rows (what the observed log-likelihood adds up)
    impossible : (N,) bool, rows whose (class-restricted) probability is 0
    """
    labelled = np.flatnonzero(y >= 0)
    masked = joint
    if labelled.size:
        owner = np.arange(joint.shape[1]) // m
        masked = joint.copy()
        block = masked[labelled]
        block[owner[None, :] != y[labelled][:, None]] = -np.inf
        masked[labelled] = block
    resp, log_marginal, impossible = normalize_log(masked)
    if labelled.size and impossible[labelled].any():
        # impossible under its own class (λ = 0): spread it evenly over that class's components
        rows = labelled[impossible[labelled]]
        resp[rows] = 0.0
        for i in rows:
            resp[i, y[i] * m:(y[i] + 1) * m] = 1.0 / m
    return resp, log_marginal, impossible


def class_posterior(component_posterior: np.ndarray, m: int) -> np.ndarray:
    """(N, K) p(y = k | x) = Σ_{c ∈ k} p(c | x) from (N, K·m) component posteriors."""
    n, c = component_posterior.shape
    return component_posterior.reshape(n, c // m, m).sum(axis=2)


def class_prior_of_components(alpha: np.ndarray, m: int) -> np.ndarray:
    """(K,) α_k = Σ_{c ∈ k} α_c."""
    return np.asarray(alpha).reshape(-1, m).sum(axis=1)


class ComponentEMRun(EMRun):
    """An EM run over K·m latent components, m per class (see the module docstring).

    Snapshots hold component-level parameters: ``alpha`` (K·m,), ``params`` with K·m
    columns and ``resp`` (N, K·m). :meth:`class_alpha`, :meth:`class_resp` and
    :meth:`predict_proba` give the class-level view (K columns).

    Initialisation with m > 1:

    * ``"labeled"``: every labelled row is spread over its class's components with
      random Dirichlet(1, …, 1) weights (seeded), then an M-step on the labelled rows.
      The random split is what lets the components of one class become different;
    * ``"random"``: seeded random parameters for all K·m components;
    * ``"uniform"``: every component equal: components of a class then stay equal for
      ever (the symmetric trap of the note on the uniform start inside each class), so this is m = 1 in disguise.
    """

    def _setup(self) -> None:
        self.components_per_class = int(self.settings.components_per_class)
        self.n_components = self.n_classes * self.components_per_class

    def _setup_from(self, other: "ComponentEMRun") -> None:
        self.components_per_class = other.components_per_class
        self.n_components = other.n_components

    # -- hooks ------------------------------------------------------------------
    def _e_step(self, joint):
        return constrained_responsibilities(joint, self.y, self.components_per_class)

    def _observed_log_likelihood(self) -> float:
        labelled = self.y >= 0
        total = 0.0
        if labelled.any():
            total += float(self._log_marginal[labelled].sum())
        if self.unlabeled_weight > 0 and not labelled.all():
            total += self.unlabeled_weight * float(self._log_marginal[~labelled].sum())
        return total

    def _initial_parameters(self, init, rng):
        K, m = self.n_classes, self.components_per_class
        C = K * m
        if init == "uniform":
            alpha = np.full(C, 1.0 / C)
            params = self.model.uniform_params(self.Xp, C)
        elif init == "random":
            raw = rng.uniform(0.01, 0.99, size=C)
            alpha = raw / raw.sum()
            params = self.model.random_params(self.Xp, C, rng)
        else:  # "labeled": a random split of each labelled row over its class's components
            weights = np.zeros((self.y.shape[0], C))
            rows = np.flatnonzero(self.y >= 0)
            split = rng.dirichlet(np.ones(m), size=rows.size)
            for j in range(m):
                weights[rows, self.y[rows] * m + j] = split[:, j]
            alpha, params = m_step(self.model, self.Xp, weights, self.smoothing)
            empty = class_prior_of_components(alpha, m) == 0
            if empty.any():
                warn_classes_without_labels(empty, components=True)
        alpha = np.asarray(alpha, dtype=np.float64)
        alpha.flags.writeable = False
        return alpha, params

    # -- class-level views --------------------------------------------------------
    def class_alpha(self, t: int | None = None) -> np.ndarray:
        """(K,) class prior at iteration t (default: the current one)."""
        snap = self.current if t is None else self.history[t]
        return class_prior_of_components(snap.alpha, self.components_per_class)

    def class_resp(self, t: int) -> np.ndarray | None:
        """(N, K) class responsibilities that produced θ_t (labelled rows one-hot)."""
        r = self.responsibilities(t)
        return None if r is None else class_posterior(r, self.components_per_class)

    def component_proba(self, X=None, t: int | None = None) -> np.ndarray:
        """(N, K·m) p(c | x_i) under snapshot t (labelled rows not constrained)."""
        return super().predict_proba(X, t)

    def predict_proba(self, X=None, t: int | None = None) -> np.ndarray:
        """(N, K) p(y = k | x_i) = Σ_{c ∈ k} p(c | x_i) under snapshot t."""
        return class_posterior(self.component_proba(X, t), self.components_per_class)

    def __repr__(self) -> str:
        return (
            f"<ComponentEMRun {self.model.name} K={self.n_classes} m={self.components_per_class} "
            f"λ={format_smoothing(self.smoothing)} t={self.iteration} stop={self.stop_reason}>"
        )
