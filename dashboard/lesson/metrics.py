"""Numbers shown about a run: accuracy on the hidden labels, the supervised-only baseline,
and parameters aligned to the true labels when EM had none."""
from __future__ import annotations

import numpy as np

import nbcore
from dashboard.ui import state
from dashboard.ui.controls import DataConfig
from nbcore import baselines
from nbcore.em import check_smoothing, one_hot_labels
from nblab import numbers, outcome
from nblab.numbers import score
from nblab.prepare import Prepared


def proba_at(run, t: int) -> np.ndarray:
    """p(y | x_i, θ_t) for every row, (N, K): computed once per (run, t) in the session's memo and
    shared by the accuracy series and the documents table (which also wants t − 1)."""
    # θ_t of a run (one RUN_SERIAL) is fixed by t and the λ of each step before it: a λ change after a
    # rewind, or a copy stepped ahead, gives another θ_t under the same t
    lams = hash(tuple(s.smoothing for s in run.history[: int(t) + 1]))
    return state.memo(("proba", int(t), lams), lambda: np.asarray(run.predict_proba(t=t)))


def accuracy_series(run, prep: Prepared, serial: int) -> list[float]:
    """Accuracy on the hidden labels at every iteration of the run built as ``serial`` (computed once
    per snapshot, kept in the session)."""
    cache = state.get(state.ACC_CACHE)
    if not cache or cache["serial"] != serial:
        cache = {"serial": serial, "acc": []}
    acc = cache["acc"]
    newest = len(run.history) - 2  # the page shows these two next (the documents table: t and t − 1)
    for t in range(len(acc), len(run.history)):
        proba = proba_at(run, t) if t >= newest else run.predict_proba(t=t)
        acc.append(score(np.asarray(proba).argmax(axis=1), prep))
    state.put(state.ACC_CACHE, cache)
    return acc


def baseline_accuracy(cfg: DataConfig, smoothing: float, prep: Prepared) -> float | None:
    """Supervised-only Naive Bayes on the visible labels, scored on the hidden ones.

    Kept per λ for the current data settings (at most one per λ of the slider): the lesson also asks
    for the λ next to the current one, so a λ change can be drawn before the server's rerun. A new λ
    runs nbcore.supervised_fit's steps with its λ-free part (the labelled rows' statistics and α)
    kept per data settings: it only re-estimates the parameters (model.params_from) and predicts."""
    cached = state.get(state.BASELINE)
    if not cached or cached.get("cfg") != cfg:
        cached = {"cfg": cfg, "acc": {}, "fit": None}
        state.put(state.BASELINE, cached)
    key = float(smoothing)
    if key in cached["acc"]:
        return cached["acc"][key]
    fit = cached.get("fit")
    acc = None
    if (prep.y_obs >= 0).any() and prep.score_mask.any():
        try:
            if fit is None:
                model = nbcore.get_model(cfg.model)
                Xp = model.prepare(prep.X)
                weights = one_hot_labels(np.asarray(prep.y_obs), prep.n_classes)
                fit = {"model": model, "alpha": nbcore.class_prior(weights), "stats": model.statistics(Xp, weights)}
            params = fit["model"].params_from(fit["stats"], check_smoothing(smoothing))
            proba = nbcore.predict_proba(cfg.model, fit["alpha"], params, prep.X)
            acc = nbcore.hidden_accuracy(np.asarray(proba).argmax(axis=1), prep.y_eval, prep.y_obs < 0)
        except ValueError:
            acc = None
    cached["acc"][key] = acc
    cached["fit"] = fit
    return acc


def reference(run, cfg: DataConfig, prep: Prepared) -> numbers.Reference | None:
    """The run's baselines (majority class, supervised NB at each λ segment's λ, supervised NB at the λ
    chosen by leave-one-out on the labelled rows: ``nbcore.baselines``), scored on the hidden rows. The
    λ-free part is computed once per data settings (in the same cache as :func:`baseline_accuracy`);
    None without a labelled or a scored row."""
    if not (prep.y_obs >= 0).any() or not prep.score_mask.any():
        return None
    cached = state.get(state.BASELINE)
    if not cached or cached.get("cfg") != cfg:
        cached = {"cfg": cfg, "acc": {}, "fit": None}
        state.put(state.BASELINE, cached)
    fixed = cached.get("fixed")
    if fixed is None:
        k = baselines.majority_class(prep.y_obs, prep.n_classes)
        cv_lam = method = None
        if int((prep.y_obs >= 0).sum()) >= 2:
            try:
                res = baselines.loo_scores(cfg.model, prep.X, prep.y_obs, prep.n_classes, outcome.CV_LAMBDAS,
                                           **nbcore.get_model(cfg.model).suggested_options(prep.X))
                cv_lam, method = res.best, res.method
            except ValueError:
                pass
        fixed = {"majority": baselines.majority_accuracy(prep.y_obs, prep.y_eval, prep.n_classes),
                 "name": str(prep.class_names[k]) if k is not None else "", "cv_lambda": cv_lam, "method": method,
                 "n": int((prep.y_obs >= 0).sum())}
        cached["fixed"] = fixed
    if fixed["cv_lambda"] is not None and "cv" not in fixed:
        fixed["cv"] = baseline_accuracy(cfg, fixed["cv_lambda"], prep)
    return numbers.reference(fixed["majority"], fixed["name"], fixed["cv_lambda"], fixed.get("cv"), fixed["method"],
                             fixed["n"], [s.smoothing for s in run.history],
                             lambda lam: baseline_accuracy(cfg, lam, prep))
