"""The label-switching page's chart: the confusion table of clusters against labels.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme
from dashboard.ui.derive import plot_text  # names from the data are chart text, never HTML


def confusion_figure(table: np.ndarray, row_names: Sequence[str], col_names: Sequence[str],
                     highlight: Sequence[tuple[int, int]] = (), font_size: int = 16, title: str = "",
                     height: int | None = None, x_title: str = "true label", y_title: str = "cluster",
                     width: int | None = None) -> go.Figure:
    """Count table as a heatmap; highlighted cells (the matching) get a thick outline."""
    t = np.asarray(table, dtype=float)
    R, C = t.shape
    fig = go.Figure(go.Heatmap(z=t, x=list(range(C)), y=[plot_text(r) for r in row_names],
                               colorscale="Blues", showscale=False,
                               text=[[f"{int(v)}" for v in row] for row in t], texttemplate="%{text}",
                               textfont=dict(size=font_size + (2 if R <= 4 else -2)),
                               customdata=[[plot_text(c) for c in col_names]] * R,
                               hovertemplate=y_title + " %{y}, " + x_title + " %{customdata}: %{z}<extra></extra>"))
    for r, c in highlight:
        fig.add_shape(type="rect", x0=c - 0.5, x1=c + 0.5, y0=r - 0.5, y1=r + 0.5,
                      line=dict(color=theme.WARN, width=4))
    fig.update_xaxes(side="top", tickfont=dict(size=font_size),  # no axis title: it would collide with the title
                     ticktext=[plot_text(c) for c in col_names],
                     tickvals=list(range(C)))
    fig.update_yaxes(title=y_title, autorange="reversed", tickfont=dict(size=font_size))
    h = height or min(700, 140 + 60 * R)
    return theme.style(fig, title, font_size, h, width=width)  # theme.style adds a band for the column names on top
