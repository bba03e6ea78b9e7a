"""The 2-D picture: a two-feature Gaussian mixture with its ellipses, and k-means beside it.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme


def _mix(colors_rgb: np.ndarray, resp: np.ndarray) -> list[str]:
    rgb = resp @ colors_rgb
    return [f"rgb({int(r)},{int(g)},{int(b)})" for r, g, b in rgb]


def _hex_rgb(h: str) -> np.ndarray:
    h = h.lstrip("#")
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)], dtype=float)


def ellipse_xy(mean: Sequence[float], var: Sequence[float], n_sd: float = 2.0, n: int = 72) -> tuple[list, list]:
    """Axis-aligned ellipse (x − μ₁)²/σ₁² + (y − μ₂)²/σ₂² = n_sd² (diagonal covariance)."""
    a = np.linspace(0, 2 * np.pi, n)
    return (list(mean[0] + n_sd * np.sqrt(var[0]) * np.cos(a)), list(mean[1] + n_sd * np.sqrt(var[1]) * np.sin(a)))


def mixture2d_figure(X: np.ndarray, resp: np.ndarray, labelled: np.ndarray, mean: np.ndarray, var: np.ndarray,
                     class_names: Sequence[str], font_size: int = 16, height: int = 520,
                     title: str = "Gaussian Naive Bayes as a mixture", prev_mean: np.ndarray | None = None,
                     axis_range: tuple | None = None) -> go.Figure:
    """Points coloured by responsibility (a mix of the class colours), labelled points as diamonds,
    1σ and 2σ axis-aligned ellipses per class, an arrow from the previous mean."""
    X = np.asarray(X, dtype=float)
    K = mean.shape[1]
    cols = np.array([_hex_rgb(theme.class_color(k)) for k in range(K)])
    fig = go.Figure()
    hidden = ~np.asarray(labelled, dtype=bool)
    for mask, symbol, name in ((hidden, "circle", "hidden label"), (~hidden, "diamond", "labelled")):
        if mask.any():
            r = resp[mask]
            txt = ["<br>".join(f"r({class_names[k]}) = {v:.3f}" for k, v in enumerate(row)) for row in r]
            fig.add_trace(go.Scatter(x=X[mask, 0], y=X[mask, 1], mode="markers", name=name, text=txt,
                                     hovertemplate="(%{x:.2f}, %{y:.2f})<br>%{text}<extra></extra>",
                                     marker=dict(color=_mix(cols, r), size=11 if symbol == "circle" else 14,
                                                 symbol=symbol, line=dict(color="#000000", width=1.5 if symbol == "diamond" else 0.5))))
    for k in range(K):
        for n_sd, dash in ((1.0, "solid"), (2.0, "dot")):
            ex, ey = ellipse_xy(mean[:, k], var[:, k], n_sd)
            fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line=dict(color=theme.class_color(k), width=3, dash=dash),
                                     name=f"{class_names[k]}: {int(n_sd)}σ", hoverinfo="skip", showlegend=n_sd == 1.0))
        fig.add_trace(go.Scatter(x=[mean[0, k]], y=[mean[1, k]], mode="markers", showlegend=False,
                                 marker=dict(symbol="x", size=16, color=theme.class_color(k), line=dict(width=2)),
                                 hovertemplate=f"μ({class_names[k]}) = (%{{x:.2f}}, %{{y:.2f}})<extra></extra>"))
        if prev_mean is not None and np.any(np.abs(prev_mean[:, k] - mean[:, k]) > 1e-9):
            fig.add_annotation(x=mean[0, k], y=mean[1, k], ax=prev_mean[0, k], ay=prev_mean[1, k], xref="x", yref="y",
                               axref="x", ayref="y", showarrow=True, arrowhead=2, arrowwidth=2,
                               arrowcolor=theme.class_color(k))
    fig.update_xaxes(title="feature x₁", range=None if axis_range is None else list(axis_range[0]))
    fig.update_yaxes(title="feature x₂", range=None if axis_range is None else list(axis_range[1]),
                     scaleanchor="x", scaleratio=1)
    return theme.legend_below(theme.style(fig, title, font_size, height))


def kmeans2d_figure(X: np.ndarray, assign: np.ndarray, centres: np.ndarray, class_names: Sequence[str],
                    font_size: int = 16, height: int = 520, axis_range: tuple | None = None,
                    title: str = "k-means: hard assignments") -> go.Figure:
    X = np.asarray(X, dtype=float)
    fig = go.Figure()
    for k in range(centres.shape[0]):
        m = assign == k
        fig.add_trace(go.Scatter(x=X[m, 0], y=X[m, 1], mode="markers", name=f"nearest to centre {class_names[k]}",
                                 marker=dict(color=theme.class_color(k), size=11)))
        fig.add_trace(go.Scatter(x=[centres[k, 0]], y=[centres[k, 1]], mode="markers", showlegend=False,
                                 marker=dict(symbol="x", size=16, color=theme.class_color(k), line=dict(width=2))))
    fig.update_xaxes(title="feature x₁", range=None if axis_range is None else list(axis_range[0]))
    fig.update_yaxes(title="feature x₂", range=None if axis_range is None else list(axis_range[1]),
                     scaleanchor="x", scaleratio=1)
    return theme.legend_below(theme.style(fig, title, font_size, height))
