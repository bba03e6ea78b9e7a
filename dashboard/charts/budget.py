"""The label-budget curves: accuracy against the number of labelled documents.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import event_models as event_models_charts
from dashboard.charts import theme


def budget_figure(ns: Sequence[int], sup: dict, em: dict, font_size: int = 16, height: int = 480,
                  n_seeds: int | None = None, uw: float | None = None, cv: Sequence[float] | None = None,
                  majority: Sequence[float] | None = None, lam: float | None = None) -> go.Figure:
    """Accuracy against the number of labelled documents; mean line and min–max band over seeds.

    sup/em: {"mean": [...], "lo": [...], "hi": [...]} aligned with ns. ``cv`` and ``majority``: the means of
    the other baselines (supervised NB at the λ leave-one-out chooses; the majority class), drawn as lines."""
    x = np.asarray(ns, dtype=float)
    fig = go.Figure()
    for name, ys, line in (("majority class", majority, dict(color="#666666", dash="dot", width=2.5)),
                           ("supervised NB, λ by leave-one-out", cv, dict(color="#009E73", dash="dashdot", width=3))):
        if ys is not None:
            fig.add_trace(go.Scatter(x=x, y=list(ys), mode="lines+markers", name=name, line=line,
                                     marker=dict(size=7), hovertemplate="%{x} labelled: %{y:.1%}<extra>" + name
                                     + "</extra>"))
    sup_name = "supervised NB (labelled only" + (f", λ = {lam:g})" if lam is not None else ")")
    for name, d, col, fill in ((sup_name, sup, theme.SUP_COLOR, "rgba(213,94,0,0.18)"),
                               ("EM (+ the rest unlabelled" + (f", weight {uw:g})" if uw is not None else ")"),
                                em, theme.EM_COLOR, "rgba(0,114,178,0.18)")):
        lo, hi = np.asarray(d["lo"], dtype=float), np.asarray(d["hi"], dtype=float)
        fig.add_trace(go.Scatter(x=np.r_[x, x[::-1]], y=np.r_[hi, lo[::-1]], fill="toself", fillcolor=fill,
                                 mode="lines", line=dict(width=0), hoverinfo="skip", showlegend=False,
                                 legendgroup=name))
        fig.add_trace(go.Scatter(x=x, y=d["mean"], mode="lines+markers", name=name, legendgroup=name,
                                 line=dict(color=col, width=3), marker=dict(size=9),
                                 hovertemplate="%{x} labelled: %{y:.1%}<extra>" + name + "</extra>"))
    fig.update_xaxes(type="log", title="number of labelled documents (log scale)", tickvals=list(x),
                     ticktext=[f"{int(v)}" for v in x])
    fig.update_yaxes(title="accuracy on the unlabelled documents", tickformat=".0%")
    band = f" — line: mean, band: min–max over {n_seeds} seeds" if n_seeds else ""
    return theme.style(fig, "Label budget: what do unlabelled documents add?" + band, font_size, height)


def budget_models_figure(ns: Sequence[int], curves: dict, font_size: int = 16, height: int = 480,
                         n_seeds: int | None = None, uw: float | None = None) -> go.Figure:
    """The label-budget curve for several event models: per model, supervised NB (dotted) and
    EM with the unlabelled documents (solid), mean over seeds with a min–max band.

    curves: {model: {"supervised": {"mean", "lo", "hi"}, "em": {...}}} aligned with ns."""
    x = np.asarray(ns, dtype=float)
    fig = go.Figure()
    fills = {"bernoulli": "rgba(0,114,178,0.13)", "multinomial": "rgba(213,94,0,0.13)"}
    em_name = "EM" + (f" (weight {uw:g})" if uw is not None else "")
    for model in event_models_charts.MODELS:
        if model not in curves:
            continue
        col, title = event_models_charts.MODEL_COLORS[model], event_models_charts.MODEL_TITLES[model]
        for what, dash, label in (("supervised", "dot", "supervised"), ("em", "solid", em_name)):
            d = curves[model][what]
            name = f"{label}, {title}"
            lo, hi = np.asarray(d["lo"], dtype=float), np.asarray(d["hi"], dtype=float)
            fig.add_trace(go.Scatter(x=np.r_[x, x[::-1]], y=np.r_[hi, lo[::-1]], fill="toself",
                                     fillcolor=fills[model], mode="lines", line=dict(width=0), hoverinfo="skip",
                                     showlegend=False))
            fig.add_trace(go.Scatter(x=x, y=list(d["mean"]), mode="lines+markers", name=name,
                                     line=dict(color=col, width=3, dash=dash), marker=dict(size=8),
                                     hovertemplate="%{x} labelled: %{y:.1%}<extra>" + name + "</extra>"))
    fig.update_xaxes(type="log", title="number of labelled documents (log scale)", tickvals=list(x),
                     ticktext=[f"{int(v)}" for v in x])
    fig.update_yaxes(title="accuracy on the unlabelled documents", tickformat=".0%")
    band = f" — line: mean, band: min–max over {n_seeds} seeds" if n_seeds else ""
    return theme.style(fig, "Label budget, both event models" + band, font_size, height)
