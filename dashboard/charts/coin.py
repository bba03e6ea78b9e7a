"""The coin page's charts: prior and posterior of p(heads), MLE against MAP, the two-coin EM.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.charts import theme


def coin_posterior_figure(grid: np.ndarray, prior: np.ndarray, posterior: np.ndarray, mle: float, map_: float,
                          truth: float | None, font_size: int = 16, height: int = 420,
                          title: str = "Prior and posterior of θ = p(heads)", width: int | None = None) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=grid, y=theme.finite(prior), name="prior", line=dict(color=theme.PRIOR_COLOR, dash="dot", width=2)))
    fig.add_trace(go.Scatter(x=grid, y=theme.finite(posterior), name="posterior", line=dict(color=theme.MAP_COLOR, width=3),
                             fill="tozeroy", fillcolor="rgba(0,114,178,0.12)"))
    marks = [("θ_MLE", mle, theme.MLE_COLOR, "dash"), ("θ_MAP", map_, theme.MAP_COLOR, "solid")]
    if truth is not None:
        marks.append(("true θ", truth, "#000000", "dot"))
    for name, v, color, dash in marks:
        if v is not None and np.isfinite(v):
            fig.add_trace(go.Scatter(x=[v, v], y=[0, 1], yaxis="y2", mode="lines", name=f"{name} = {v:.3f}",
                                     line=dict(color=color, dash=dash, width=2)))
    fig.update_xaxes(range=[0, 1], title="θ")
    fig.update_layout(yaxis=dict(title="density", rangemode="tozero"),
                      yaxis2=dict(overlaying="y", range=[0, 1], visible=False))
    return theme.legend_below(theme.style(fig, title, font_size, height, width=width))


def coin_estimates_figure(n: Sequence[int], mle: Sequence[float], map_: Sequence[float], truth: float | None,
                          n_now: int, font_size: int = 16, height: int = 380, width: int | None = None) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=list(n), y=theme.finite(mle), name="θ_MLE", mode="lines+markers",
                             line=dict(color=theme.MLE_COLOR, dash="dash")))
    fig.add_trace(go.Scatter(x=list(n), y=theme.finite(map_), name="θ_MAP", mode="lines+markers",
                             line=dict(color=theme.MAP_COLOR)))
    if truth is not None:
        fig.add_hline(y=truth, line=dict(color="#000000", dash="dot"), annotation_text="true θ")
    fig.add_vline(x=n_now, line=dict(color=theme.GREY, width=1))
    fig.update_xaxes(title="flips seen", rangemode="tozero")
    fig.update_yaxes(title="estimate of θ", range=[-0.02, 1.02])
    return theme.style(fig, "The estimates as the flips come in", font_size, height, width=width)


def two_coin_figure(thetas: np.ndarray, loglik: Sequence[float], t_sel: int, font_size: int = 16,
                    height: int = 400, width: int | None = None) -> go.Figure:
    thetas = np.asarray(thetas, dtype=float)
    t = np.arange(len(thetas))
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    for c, name in enumerate(("θ_A", "θ_B")):
        fig.add_trace(go.Scatter(x=t, y=thetas[:, c], name=name, mode="lines+markers",
                                 line=dict(color=theme.class_color(c), width=3)), secondary_y=False)
    fig.add_trace(go.Scatter(x=t, y=theme.finite(loglik), name="log-likelihood", mode="lines",
                             line=dict(color=theme.GREY, dash="dot")), secondary_y=True)
    fig.add_vline(x=t_sel, line=dict(color=theme.GREY, width=1))
    # whole iterations from 0, at most about 8 tick labels (one per iteration would overlap)
    fig.update_xaxes(title="iteration t", **theme.int_ticks(len(thetas)))
    fig.update_yaxes(title_text="p(heads)", range=[0, 1], secondary_y=False)
    fig.update_yaxes(title_text="log p(flips)", secondary_y=True, showgrid=False)
    return theme.style(fig, "Two coins: θ_A, θ_B and the likelihood", font_size, height, width=width)
