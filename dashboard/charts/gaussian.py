"""The Gaussian NB corner's charts: the fitted normals and the bias of the variance estimate.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme


def _normal_pdf(x, mu, var):
    return np.exp(-0.5 * (x - mu) ** 2 / var) / np.sqrt(2 * np.pi * var)


def gaussian_fit_figure(samples: Sequence[np.ndarray], class_names: Sequence[str], means: Sequence[float],
                        var_mle: Sequence[float], var_unb: Sequence[float], font_size: int = 16,
                        height: int = 460, x_title: str = "x", class_index: Sequence[int] | None = None) -> go.Figure:
    """Data of each class as a rug, with the fitted normal curves: solid = 1/N (MLE), dashed = 1/(N−1).

    A class with σ² = 0 (all values equal) has no curve: it is drawn as a vertical spike at its
    value, labelled as such. ``class_index`` gives each class's colour index (default 0, 1, …)."""
    idx = list(class_index) if class_index is not None else list(range(len(class_names)))
    allx = np.concatenate([np.asarray(s, dtype=float) for s in samples if len(s)]) if samples else np.zeros(1)
    positive = [v for v in var_unb if v > 0]
    sd = float(np.sqrt(max(positive))) if positive else max(1.0, 0.1 * float(np.ptp(allx)))
    lo, hi = float(allx.min()) - 3 * sd, float(allx.max()) + 3 * sd
    grid = np.linspace(lo, hi, 400)
    fig = go.Figure()
    peak = 0.0
    spikes = []
    for k, name in enumerate(class_names):
        col = theme.class_color(idx[k])
        if var_mle[k] <= 0 or var_unb[k] <= 0:
            spikes.append(k)
            continue
        y1 = _normal_pdf(grid, means[k], var_mle[k])
        y2 = _normal_pdf(grid, means[k], var_unb[k])
        peak = max(peak, float(y1.max()), float(y2.max()))
        fig.add_trace(go.Scatter(x=grid, y=y1, mode="lines", line=dict(color=col, width=3),
                                 name=f"{name}: σ² = 1/N Σ (MLE)"))
        fig.add_trace(go.Scatter(x=grid, y=y2, mode="lines", line=dict(color=col, width=3, dash="dash"),
                                 name=f"{name}: σ² = 1/(N−1) Σ (unbiased)"))
    peak = peak or 1.0
    for k in spikes:
        fig.add_trace(go.Scatter(x=[means[k], means[k]], y=[0, peak * 1.05], mode="lines",
                                 line=dict(color=theme.class_color(idx[k]), width=4),
                                 name=f"{class_names[k]}: all values = {means[k]:.6g} (σ² = 0: a spike, no curve)"))
    for k, name in enumerate(class_names):
        s = np.asarray(samples[k], dtype=float)
        fig.add_trace(go.Scatter(x=s, y=np.full(len(s), -0.06 * peak * (1 + 0.6 * k)), mode="markers",
                                 marker=dict(symbol="line-ns", size=22, color=theme.class_color(idx[k]),
                                             line=dict(width=3, color=theme.class_color(idx[k]))),
                                 name=f"{name}: data (N = {len(s)})",
                                 hovertemplate="%{x:.3g}<extra>" + str(name) + "</extra>"))
    fig.update_xaxes(title=x_title, range=[lo, hi])
    fig.update_yaxes(title="density p(x | class)", range=[-0.06 * peak * (2 + 0.6 * len(class_names)), peak * 1.1])
    fig = theme.style(fig, "Per-class normal curves over the data", font_size, height, legend_right=True)
    return fig


def bias_figure(ns: Sequence[int], mean_mle: Sequence[float], mean_unb: Sequence[float], true_var: float,
                font_size: int = 16, height: int = 400, n_reps: int | None = None) -> go.Figure:
    """Average estimate of σ² over many small samples, against the sample size N."""
    x = np.asarray(ns, dtype=float)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=mean_mle, mode="lines+markers", name="average of σ²_MLE = 1/N Σ",
                             line=dict(color=theme.SUP_COLOR, width=3), marker=dict(size=9)))
    fig.add_trace(go.Scatter(x=x, y=mean_unb, mode="lines+markers", name="average of σ²_unbiased = 1/(N−1) Σ",
                             line=dict(color=theme.EM_COLOR, width=3, dash="dash"), marker=dict(size=9)))
    fig.add_trace(go.Scatter(x=x, y=true_var * (x - 1) / x, mode="lines", name="theory: (N−1)/N · σ²",
                             line=dict(color=theme.GREY, dash="dot", width=2)))
    fig.add_hline(y=true_var, line=dict(color="#000000", width=1.5),
                  annotation_text=f"true σ² = {true_var:g}", annotation_position="bottom right")
    fig.update_xaxes(title="sample size N", tickvals=list(x))
    fig.update_yaxes(title="average estimate of σ²", rangemode="tozero")
    reps = f" ({n_reps:,} samples per N)" if n_reps else ""
    return theme.style(fig, "The 1/N estimate is too small on average" + reps, font_size, height)
