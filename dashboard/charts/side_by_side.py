"""The side-by-side page's chart: two runs' curves on one axis.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme


def two_runs_figure(a: Sequence[float], b: Sequence[float], name_a: str, name_b: str, y_title: str,
                    title: str, font_size: int = 16, height: int = 360, percent: bool = False,
                    width: int | None = None, baselines: Sequence[tuple[str, float, dict]] = ()) -> go.Figure:
    """Two runs' curves; ``baselines`` (name, value, line style) are drawn as flat named lines across them
    (the supervised baselines of the accuracy chart)."""
    fig = go.Figure()
    T = max(len(a), len(b))
    for name, value, line in baselines:
        if value is not None and np.isfinite(value):
            fig.add_trace(go.Scatter(x=[-0.5, max(T - 1, 0) + 0.5], y=[value, value], mode="lines",
                                     name=f"{name}: {value:.1%}", line=line, hoverinfo="name"))
    for name, s, col, dash in ((name_a, a, theme.A_COLOR, "solid"), (name_b, b, theme.B_COLOR, "dash")):
        s = np.asarray(s, dtype=float)
        fig.add_trace(go.Scatter(x=np.arange(len(s)), y=s, mode="lines+markers", name=name,
                                 line=dict(color=col, width=3, dash=dash), marker=dict(size=7)))
    fig.update_xaxes(title="iteration t", **theme.int_ticks(max(len(a), len(b))))  # whole iterations only
    # percentages: a tick step and decimals for the range shown, so the tick labels differ
    levels = [v for _, v, _ in baselines if v is not None and np.isfinite(v)]
    fig.update_yaxes(title=y_title, **(theme.percent_ticks(list(a) + list(b) + levels) if percent else {}))
    return theme.style(fig, title, font_size, height, width=width)
