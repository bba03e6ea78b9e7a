"""The lesson's chart specs, from a run and an iteration (no Streamlit here).

One builder for every place that draws the lesson: the server-rendered charts of the lesson
view, the browser player (which receives the same specs without the iteration marker and
moves the marker itself) and the offline export. Specs are plain plotly dicts
(``dashboard.charts.theme``).

* :func:`series_specs` — α, accuracy on the hidden labels and the objective over the iterations;
* :func:`param_spec` — the parameters at iteration t as images, a heatmap or the top features
  (the choice is :func:`param_view_options`);
* :func:`truth_spec` — the estimate against the generating parameters, when they are known.
"""
from __future__ import annotations

import numpy as np

import nbcore
from dashboard.charts import lesson as lesson_charts
from dashboard.ui import derive
from nblab.outcome import run_reference

#: the parameter views, in the order the picker lists them (Images only for image data)
IMAGES, TOP_FEATURES, HEATMAP = "Images", "Top features", "Heatmap"
SERIES = ("alpha", "acc", "ll")


def param_view_options(ds) -> list[str]:
    """The parameter views this data set offers; the first is the default."""
    return ([IMAGES] if getattr(ds, "image_shape", None) else []) + [TOP_FEATURES, HEATMAP]


def truth_of(prep, model: str, user_data: bool):
    """The shipped generating parameters when the run uses the generating model, else None
    (never for a user's own data)."""
    truth = None if user_data else getattr(prep.ds, "truth", None)
    return truth if (truth and "beta" in truth and truth.get("model") == model) else None


def smoothing_changes(run) -> list[tuple[int, float]]:
    """(t, λ) for every iteration whose step used another λ than the one before."""
    lams = [s.smoothing for s in run.history]
    return [(k, lams[k]) for k in range(1, len(lams)) if lams[k] != lams[k - 1]]


def series_names(prep) -> list[str]:
    """The time-series charts drawn for this data: accuracy only when some hidden label is known."""
    return [n for n in SERIES if n != "acc" or int(prep.score_mask.sum())]


def series_spec(name: str, run, prep, acc, base, font_size: int, t_sel: int | None = None, ref=None) -> dict:
    """One time-series chart over the whole run; ``t_sel`` draws the iteration marker (None: the
    browser draws its own). ``ref``: the run's baselines (:class:`nblab.numbers.Reference`); None computes
    them from the run (:func:`nblab.outcome.run_reference`)."""
    if name == "alpha":
        return lesson_charts.alpha_figure(np.array([s.alpha for s in run.history]), prep.class_names, t_sel,
                                          smoothing_changes(run), font_size=font_size)
    if name == "acc":
        if ref is None:
            ref = run_reference(run, prep)
        return lesson_charts.accuracy_figure(acc, base, t_sel, font_size=font_size,
                                             n_hidden=int(prep.score_mask.sum()), ref=ref)
    if name == "ll":
        return lesson_charts.likelihood_figure([s.log_likelihood for s in run.history],
                                               [s.objective for s in run.history],
                                               [s.smoothing for s in run.history], t_sel, font_size=font_size)
    raise ValueError(f"No time-series chart called {name!r}; the charts are {', '.join(SERIES)}.")


def series_specs(run, prep, acc, base, font_size: int, t_sel: int | None = None, ref=None) -> list[tuple[str, dict]]:
    """(name, spec) of every time-series chart of the run."""
    return [(n, series_spec(n, run, prep, acc, base, font_size, t_sel, ref)) for n in series_names(prep)]


def param_view(run, model: str, prep, t: int):
    """The parameters at iteration t as a table to draw (``derive.param_view``)."""
    return derive.param_view(run.history[t], model, prep.feature_names, getattr(prep.ds, "categories", None))


def param_spec(run, prep, model: str, t: int, pick: str, font_size: int, classroom: bool) -> dict:
    """The parameter chart at iteration t in the view ``pick`` (see :func:`param_view_options`)."""
    view = param_view(run, model, prep, t)
    if pick == IMAGES:
        return lesson_charts.digits_figure(view.mat, tuple(prep.ds.image_shape), prep.class_names, view.short,
                                           font_size, zmin=view.zmin, zmax=view.zmax)
    if pick == HEATMAP:
        return lesson_charts.heatmap_figure(view.mat, view.rows, prep.class_names, view.short, font_size,
                                            zmin=view.zmin, zmax=view.zmax)
    prev = param_view(run, model, prep, t - 1) if t > 0 else None
    return lesson_charts.beta_bars_figure(view.mat, None if prev is None else prev.mat, view.rows,
                                          prep.class_names, n_top=10 if classroom else 12, value_label=view.label,
                                          log_scale=view.log_scale, font_size=font_size)


def aligned(mat: np.ndarray, run, prep, t: int) -> np.ndarray:
    """Columns of a (V, K) parameter matrix reordered so column k is label k (EM without any
    label names its clusters arbitrarily; they are matched to the true labels first)."""
    if (prep.y_obs >= 0).any():
        return mat
    mask = prep.y_eval >= 0
    if not mask.any():
        return mat
    pred = np.asarray(run.predict_proba(t=t)).argmax(axis=1)
    mapping = np.asarray(nbcore.align_clusters(prep.y_eval[mask], pred[mask], prep.n_classes))
    out = np.empty_like(mat)
    out[:, mapping] = mat
    return out


def truth_spec(run, prep, t: int, truth_beta, font_size: int) -> dict:
    """Estimated β at iteration t against the generating β (one point per feature and class)."""
    est = aligned(np.asarray(run.history[t].beta, dtype=float), run, prep, t)
    return lesson_charts.truth_figure(np.asarray(truth_beta), est, prep.class_names, "β", font_size)
