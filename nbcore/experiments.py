"""Experiments behind the teaching views: explanations, sweeps, restarts, label budgets.

Pure functions (no UI). Each long one takes ``callback(done, total)``, called
after every unit of work, so a UI can draw a progress bar (and a rerun of the
UI script can stop it there).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .align import align_clusters, aligned_accuracy
from .em import EM, normalize_log, predict_proba, supervised_fit
from .labels import hide_labels
from .models import get_model
from .models._base import safe_log

__all__ = ["compare_components", "Explanation", "explain", "smoothing_sweep", "restarts", "label_budget_curve", "hidden_accuracy"]


@dataclass(frozen=True)
class Explanation:
    """Why a document got its posterior: every term of eq. (11), per feature and class.

    Attributes
    ----------
    log_prior : (K,) log α_k
    contributions : (V, K) the feature's term of log p(x | k), from the event
        model's ``feature_terms`` hook: for Bernoulli x_j log β_jk + (1 − x_j)
        log(1 − β_jk) (absent words count too); for multinomial x_j log β_jk
        (absent words contribute 0); for categorical log θ_j[x_j, k]; for
        Gaussian log N(x_j; μ_jk, σ²_jk).
    present : (V,) bool, x_j > 0
    log_joint : (K,) log α_k + Σ_j contributions[j, k]
    posterior : (K,) p(y = k | x)
    """

    log_prior: np.ndarray
    contributions: np.ndarray
    present: np.ndarray
    log_joint: np.ndarray
    posterior: np.ndarray

    def log_odds(self, a: int, b: int) -> np.ndarray:
        """(V,) how much each feature pushes towards class a rather than b.

        Sums with ``log_prior[a] − log_prior[b]`` to log p(a | x) − log p(b | x).
        Infinite entries (λ = 0) stay ±inf; −inf − (−inf) is reported as 0.
        """
        ca, cb = self.contributions[:, a], self.contributions[:, b]
        with np.errstate(invalid="ignore"):
            out = ca - cb
        return np.where(np.isnan(out), 0.0, out)


def explain(model, alpha, params, x) -> Explanation:
    """Per-feature breakdown of log p(x, y = k) for one document x (eq. 11).

    Parameters
    ----------
    model : str or EventModel
    alpha : (K,) ; params : the model's parameters ; x : (V,) one document
        (dense or a 1-row sparse matrix)
    """
    m = get_model(model)
    if sp.issparse(x):
        x = x.toarray()  # one row only
    x = np.asarray(x, dtype=np.float64).ravel()
    m.prepare(x[None, :], params)  # same checks as for a batch (binary, counts, codes, shape)
    terms = m.feature_terms(params, x)
    log_prior = safe_log(np.asarray(alpha, dtype=np.float64))
    joint = log_prior + terms.sum(axis=0)
    posterior = normalize_log(joint[None, :])[0][0]
    return Explanation(log_prior, terms, x > 0, joint, posterior)


def hidden_accuracy(pred, y_true, hidden, n_classes: int | None = None) -> float | None:
    """Accuracy of ``pred`` on the hidden rows whose true label is known (None if none).

    The one accuracy the lab reports. With ``n_classes``, the predicted clusters are
    first named by the best one-to-one matching with the true labels on those rows
    (Hungarian; for EM that saw no label, whose clusters carry no names).
    """
    if y_true is None or hidden is None:
        return None
    y_true = np.asarray(y_true)
    mask = np.asarray(hidden, dtype=bool) & (y_true >= 0)
    if not mask.any():
        return None
    pred = np.asarray(pred)
    if n_classes is not None:
        mapping = np.asarray(align_clusters(y_true[mask], pred[mask], n_classes))
        pred = mapping[pred]
    return float(np.mean(pred[mask] == y_true[mask]))


def smoothing_sweep(model, X, y_obs, n_classes, lambdas, y_true=None, hidden=None, init="labeled",
                    max_iter=50, random_state=0, callback=None):
    """For each λ: supervised NB on the visible labels and EM from ``init``.

    Returns one dict per λ with keys ``smoothing``, ``alpha_supervised``,
    ``beta_supervised`` (the supervised params), ``acc_supervised``, ``acc_em``,
    ``beta_em`` (EM's final params), ``objective_em``, ``n_iter``.
    """
    lambdas = list(lambdas)
    out = []
    for i, smoothing in enumerate(lambdas):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alpha_s, params_s = supervised_fit(model, X, y_obs, n_classes, smoothing)
            pred_s = predict_proba(model, alpha_s, params_s, X).argmax(axis=1)
            run = EM(model=model, n_classes=n_classes, smoothing=smoothing, init=init, max_iter=max_iter,
                     random_state=random_state).start(X, y_obs)
            run.run_to_convergence()
            pred_em = run.predict()
        out.append({
            "smoothing": float(smoothing),
            "alpha_supervised": alpha_s,
            "beta_supervised": params_s,
            "acc_supervised": hidden_accuracy(pred_s, y_true, hidden),
            "acc_em": hidden_accuracy(pred_em, y_true, hidden),
            "beta_em": run.current.params,
            "objective_em": run.current.objective,
            "n_iter": run.iteration,
        })
        if callback is not None:
            callback(i + 1, len(lambdas))
    return out


def restarts(model, X, y_obs, n_classes, n_starts, y_true=None, hidden=None, smoothing=1.0, max_iter=100,
             random_state=0, callback=None):
    """``n_starts`` EM runs from random starts (seeds random_state, random_state + 1, ...).

    Returns one dict per start: ``seed``, ``objective``, ``log_likelihood``,
    ``acc`` (hidden-label accuracy as labelled), ``acc_aligned`` (after the best
    cluster-to-label matching; equals ``acc`` when labels anchor the classes),
    ``n_iter``, ``converged`` and ``run`` (the EMRun itself).
    """
    out = []
    for i in range(n_starts):
        seed = int(random_state) + i
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = EM(model=model, n_classes=n_classes, smoothing=smoothing, init="random", max_iter=max_iter,
                     random_state=seed).start(X, y_obs)
            run.run_to_convergence()
        pred = run.predict()
        acc = hidden_accuracy(pred, y_true, hidden)
        acc_aligned = acc
        if y_true is not None and hidden is not None and acc is not None:
            mask = np.asarray(hidden) & (np.asarray(y_true) >= 0)
            _, acc_aligned, _ = aligned_accuracy(np.asarray(y_true)[mask], pred[mask], n_classes)
        out.append({
            "seed": seed,
            "objective": run.current.objective,
            "log_likelihood": run.current.log_likelihood,
            "acc": acc,
            "acc_aligned": acc_aligned,
            "n_iter": run.iteration,
            "converged": run.converged,
            "run": run,
        })
        if callback is not None:
            callback(i + 1, n_starts)
    return out


def label_budget_curve(model, X, y_true, n_labelled, seeds, n_classes, smoothing=1.0, unlabeled_weight=1.0,
                       max_iter=50, callback=None):
    """Accuracy against the number of labelled examples (Nigam et al. 2000, fig. 1).

    For each budget n and seed, n rows are labelled (stratified: at least one
    per class when n ≥ K), the rest hidden; supervised NB uses the n labels
    only, EM (init "labeled") also uses the hidden rows with weight
    ``unlabeled_weight``. Accuracy is measured on the hidden rows.

    Returns a list of dicts ``{"n_labelled", "seed", "acc_supervised", "acc_em", "acc_majority",
    "cv_lambda", "acc_supervised_cv"}``: the last three are the other baselines of
    :mod:`nbcore.baselines` (the labelled rows' majority class, and supervised NB at the λ chosen by
    leave-one-out on the labelled rows alone; None when fewer than two rows are labelled).
    """
    from .baselines import LAMBDA_GRID, loo_scores, majority_accuracy, supervised_accuracy
    y_true = np.asarray(y_true)
    n_rows = y_true.shape[0]
    budgets = [int(n) for n in n_labelled]
    seeds = list(seeds)
    total = len(budgets) * len(seeds)
    out, done = [], 0
    for n in budgets:
        if not 1 <= n < n_rows:
            raise ValueError(f"Each labelled budget must be between 1 and {n_rows - 1}; got {n}.")
        for seed in seeds:
            rng = np.random.default_rng(seed)
            order = rng.permutation(n_rows)
            # one row per class first (if the budget allows), then the rest at random
            first = [order[y_true[order] == k][0] for k in range(n_classes) if (y_true == k).any()][: n]
            taken = set(first)
            rest = [i for i in order if i not in taken][: n - len(first)]
            chosen = np.array(first + rest, dtype=np.int64)
            y_obs = np.full(n_rows, -1)
            y_obs[chosen] = y_true[chosen]
            hidden = y_obs < 0
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                alpha, params = supervised_fit(model, X, y_obs, n_classes, smoothing)
                acc_s = hidden_accuracy(predict_proba(model, alpha, params, X).argmax(axis=1), y_true, hidden)
                run = EM(model=model, n_classes=n_classes, smoothing=smoothing, init="labeled",
                         unlabeled_weight=unlabeled_weight, max_iter=max_iter).start(X, y_obs)
                run.run_to_convergence()
                cv_lam = acc_cv = None
                if n >= 2:
                    cv_lam = loo_scores(model, X, y_obs, n_classes, LAMBDA_GRID).best
                    acc_cv = supervised_accuracy(model, X, y_obs, y_true, n_classes, cv_lam)
            out.append({"n_labelled": n, "seed": seed, "acc_supervised": acc_s,
                        "acc_em": hidden_accuracy(run.predict(), y_true, hidden),
                        "acc_majority": majority_accuracy(y_obs, y_true, n_classes),
                        "cv_lambda": cv_lam, "acc_supervised_cv": acc_cv})
            done += 1
            if callback is not None:
                callback(done, total)
    return out


def compare_components(X, y, n_classes: int, hidden_fraction: float, ms=(1, 2, 3), seeds=(0, 1, 2),
                       smoothing: float = 1.0, model: str = "bernoulli", max_iter: int = 200, callback=None) -> dict:
    """Accuracy on the hidden labels of supervised NB and of EM with m components per class, per seed.

    For every seed the same labels are hidden (``nbcore.hide_labels(y, hidden_fraction, seed)``);
    EM starts from the labelled rows (``init="labeled"``, seeded split over components).

    Returns
    -------
    dict with ``ms`` (list), ``seeds`` (list), ``supervised`` (n_seeds,), ``em`` (len(ms), n_seeds),
    ``iterations`` (len(ms), n_seeds), ``objective`` (len(ms), n_seeds).
    ``callback(done, total)`` is called after every run.
    """

    y = np.asarray(y)
    ms, seeds = [int(m) for m in ms], [int(s) for s in seeds]
    sup = np.zeros(len(seeds))
    em = np.zeros((len(ms), len(seeds)))
    its = np.zeros((len(ms), len(seeds)), dtype=int)
    obj = np.zeros((len(ms), len(seeds)))
    total, done = len(seeds) * (len(ms) + 1), 0
    for j, seed in enumerate(seeds):
        y_obs, _ = hide_labels(y, fraction=hidden_fraction, random_state=seed)
        y_obs = np.asarray(y_obs)
        hidden = (y_obs < 0) & (y >= 0)
        if not hidden.any():
            raise ValueError("No label is hidden, so there is nothing to score: hide some labels.")
        alpha, params = supervised_fit(model, X, y_obs, n_classes, smoothing)
        sup[j] = np.mean(predict_proba(model, alpha, params, X).argmax(axis=1)[hidden] == y[hidden])
        done += 1
        if callback is not None:
            callback(done, total)
        for i, m in enumerate(ms):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run = EM(model=model, n_classes=n_classes, smoothing=smoothing, init="labeled", random_state=seed,
                         components_per_class=m, max_iter=max_iter).start(X, y_obs)
                run.run_to_convergence()
            em[i, j] = np.mean(run.predict()[hidden] == y[hidden])
            its[i, j] = run.iteration
            obj[i, j] = run.current.objective
            done += 1
            if callback is not None:
                callback(done, total)
    return {"ms": ms, "seeds": seeds, "supervised": sup, "em": em, "iterations": its, "objective": obj}
