"""Components per class: accuracy against the number of components, and their images.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme
from dashboard.ui.derive import plot_text  # names from the data are chart text, never HTML


def components_accuracy_figure(ms: Sequence[int], em_acc: np.ndarray, sup_acc: np.ndarray, font_size: int = 16,
                               height: int = 420, width: int | None = None) -> go.Figure:
    """em_acc (len(ms), n_seeds), sup_acc (n_seeds,): one dot per seed, the mean as a line."""
    em_acc = np.asarray(em_acc, dtype=float)
    sup_acc = np.asarray(sup_acc, dtype=float)
    fig = go.Figure()
    x = [f"m = {m}" for m in ms]
    for j in range(em_acc.shape[1]):
        fig.add_trace(go.Scatter(x=x, y=em_acc[:, j], mode="markers", marker=dict(color=theme.EM_COLOR, size=9, opacity=0.5),
                                 name="EM, one seed", showlegend=j == 0))
    fig.add_trace(go.Scatter(x=x, y=em_acc.mean(axis=1), mode="lines+markers", name="EM, mean over seeds",
                             line=dict(color=theme.EM_COLOR, width=3), marker=dict(size=12)))
    fig.add_hline(y=float(sup_acc.mean()), line=dict(color=theme.SUP_COLOR, dash="dash", width=3),
                  annotation_text=f"supervised NB {sup_acc.mean():.1%}", annotation_position="bottom right")
    fig.update_yaxes(title="accuracy on the hidden labels", tickformat=".0%")
    fig.update_xaxes(title="components per class")
    return theme.style(fig, "Does EM close the gap to supervised Naive Bayes?", font_size, height, width=width)


def component_images_figure(beta: np.ndarray, shape: tuple[int, int], n_classes: int, m: int,
                            class_names: Sequence[str], alpha: np.ndarray, font_size: int = 16,
                            title: str = "", cell: int = 110) -> go.Figure:
    """Every component's β as a picture: one column per class, one row per component, in ONE heatmap
    (so every tile keeps its aspect ratio). Hover shows β and the component's α."""
    h, w = shape
    gap = 1
    Z = np.full((m * (h + gap), n_classes * (w + gap)), np.nan)
    A = np.full_like(Z, np.nan)
    for c in range(n_classes * m):
        k, j = divmod(c, m)
        rows, cols = slice(j * (h + gap), j * (h + gap) + h), slice(k * (w + gap), k * (w + gap) + w)
        Z[rows, cols] = np.asarray(beta[:, c]).reshape(shape)
        A[rows, cols] = alpha[c]
    fig = go.Figure(go.Heatmap(z=Z, customdata=A, colorscale="Greys", zmin=0, zmax=1, showscale=False,
                               hovertemplate="β = %{z:.2f}<br>α of this component = %{customdata:.3f}<extra></extra>"))
    fig.update_xaxes(showgrid=False, zeroline=False, tickvals=[k * (w + gap) + w / 2 - 0.5 for k in range(n_classes)],
                     ticktext=[plot_text(n) for n in class_names], side="top")
    fig.update_yaxes(showgrid=False, zeroline=False, autorange="reversed", scaleanchor="x",
                     tickvals=[j * (h + gap) + h / 2 - 0.5 for j in range(m)],
                     ticktext=[f"component {j + 1}" for j in range(m)])
    return theme.style(fig, title, font_size, 90 + cell * m, showlegend=False)
