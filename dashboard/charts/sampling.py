"""The sampling page's chart: documents (digit images) drawn from the model.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.charts import theme


def image_grid_figure(images: Sequence[np.ndarray], titles: Sequence[str], shape: tuple[int, int],
                      cols: int = 6, font_size: int = 16, zmax: float | None = None,
                      title: str = "", cell: int = 120) -> go.Figure:
    n = max(1, len(images))
    cols = max(1, min(cols, n))
    rows = int(np.ceil(n / cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[str(t) for t in titles] or None,
                        horizontal_spacing=0.02, vertical_spacing=0.12 / max(1, rows) + 0.04)
    top = zmax if zmax is not None else max([float(np.max(im)) for im in images] + [1.0])
    for i, im in enumerate(images):
        r, c = divmod(i, cols)
        fig.add_trace(go.Heatmap(z=np.asarray(im, dtype=float).reshape(shape), colorscale="Greys", zmin=0,
                                 zmax=top, showscale=False, hovertemplate="%{z:.0f}<extra></extra>"),
                      row=r + 1, col=c + 1)
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False)
    fig.update_yaxes(showticklabels=False, autorange="reversed", scaleanchor="x", showgrid=False, zeroline=False)
    for ann in fig.layout.annotations:
        ann.font = dict(size=max(11, font_size - 2))
    return theme.style(fig, title, font_size, 70 + cell * rows)
