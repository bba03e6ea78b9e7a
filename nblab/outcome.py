"""What a lesson run ends at, against its baselines, computed outside the app (no Streamlit here).

:func:`lesson_outcome` builds the lesson's own run (:func:`nblab.prepare.build_run`: the app's data,
text settings and EM settings), steps it to convergence and scores it with the lesson's numbers
(:func:`nblab.numbers.score`) against the supervised baselines of :mod:`nbcore.baselines`. The
default lesson was chosen with it (``scripts/choose_default_lesson.py``), and the tests recompute every
figure the README and the guided lessons quote with it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

import nbcore
from nbcore import baselines as nb_baselines
from nblab import numbers
from nblab import prepare as prep_mod
from nblab.config import DataConfig
from nblab.defaults import DEFAULTS, LAMBDAS

#: the λ values the baseline's cross-validation chooses from: the slider's, without 0
CV_LAMBDAS = tuple(v for v in LAMBDAS if v > 0)


@dataclass(frozen=True)
class Outcome:
    """One lesson run from t = 0 to convergence, and its baselines (accuracies on the hidden rows)."""
    start: float           # EM at t = 0 (the fit to the labelled rows, = supervised NB at λ)
    em: float              # EM at convergence
    iterations: int        # t at convergence
    majority: float        # the labelled rows' majority class
    at_lambda: float       # supervised NB at the run's λ
    cv_lambda: float       # λ chosen by leave-one-out on the labelled rows
    cv: float              # supervised NB at cv_lambda
    n_labelled: int
    n_hidden: int

    @property
    def best(self) -> float:
        """The best supervised baseline (majority, NB at λ, NB at the cross-validated λ)."""
        return max(v for v in (self.majority, self.at_lambda, self.cv) if v is not None)

    @property
    def gain(self) -> float:
        """EM at convergence minus the best supervised baseline."""
        return self.em - self.best


def text_for(dataset: str, model: str):
    """The lesson's text settings for ``model`` on a shipped text set: its own, with presence for a model
    of 0/1 data and counts for a model of counts (as the sidebar's *x_j is the term's* makes them)."""
    from nbcore.data import DEFAULT_PIPELINES
    text = DEFAULT_PIPELINES.get(dataset)
    if text is None:
        return None
    return replace(text, binary=nbcore.get_model(model).input_kind != "counts")


def config(dataset: str, model: str, hidden: int, seed: int = DEFAULTS["seed"]) -> DataConfig:
    """The lesson's data settings for these choices, the defaults otherwise."""
    return DataConfig(dataset=dataset, model=model, hidden_pct=int(hidden), init=DEFAULTS["init"], seed=int(seed),
                      unlabeled_weight=DEFAULTS["uw"], max_iter=DEFAULTS["max_iter"], tol=DEFAULTS["tol"],
                      text=text_for(dataset, model))


@lru_cache(maxsize=64)
def lesson_outcome(dataset: str, model: str, hidden: int, lam: float, seed: int = DEFAULTS["seed"]) -> Outcome:
    """The lesson run on these settings stepped to convergence, and its baselines (see :class:`Outcome`)."""
    cfg = config(dataset, model, hidden, seed)
    prep, run = prep_mod.build_run(cfg, float(lam))
    run.run_to_convergence()
    acc = [numbers.score(np.asarray(run.predict_proba(t=t)).argmax(axis=1), prep) for t in (0, run.iteration)]
    b = split_baselines(cfg.model, prep, (float(lam),))
    return Outcome(acc[0], acc[1], int(run.iteration), b.majority, b.at_lambda[float(lam)], b.cv_lambda, b.cv,
                   b.n_labelled, int(prep.score_mask.sum()))


def split_baselines(model: str, prep, smoothings) -> nb_baselines.Baselines:
    """nbcore.baselines on a prepared lesson split (the model's own options, e.g. the variance floor)."""
    options = nbcore.get_model(model).suggested_options(prep.X)
    return nb_baselines.baselines(model, prep.X, prep.y_obs, prep.y_eval, prep.n_classes, tuple(smoothings),
                                  CV_LAMBDAS, **options)


def run_reference(run, prep) -> numbers.Reference | None:
    """The baselines of a lesson run (:class:`nblab.numbers.Reference`), computed from the run and its data
    alone (the offline lesson and the browser player's specs; the app keeps its own per-session cache)."""
    if not (np.asarray(prep.y_obs) >= 0).any() or not prep.score_mask.any():
        return None
    model = run.model.name
    options = dict(run.settings.model_options or {})
    lams = [s.smoothing for s in run.history]
    try:
        b = nb_baselines.baselines(model, prep.X, prep.y_obs, prep.y_eval, prep.n_classes,
                                   tuple(sorted(set(float(v) for v in lams))), CV_LAMBDAS, **options)
    except ValueError:
        return None
    k = b.majority_class
    return numbers.reference(b.majority, str(prep.class_names[k]) if k is not None else "", b.cv_lambda, b.cv,
                             b.cv_method, b.n_labelled, lams, lambda lam: b.at_lambda.get(float(lam)))
