"""The restarts page's chart: objective and accuracy of every random start.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme


def restarts_figure(objectives: Sequence[float], accs: Sequence, seeds: Sequence[int], best: int,
                    selected: int | None = None, font_size: int = 16, height: int = 440,
                    acc_label: str = "accuracy on the hidden labels", levels: Sequence[int] | None = None) -> go.Figure:
    """Final objective (x) against accuracy (y), one point per random start.

    ``levels`` groups starts that reached the same end point: each group is labelled once
    ("#6 ×9") instead of nine labels on top of each other."""
    ob = np.asarray(objectives, dtype=float)
    ac = np.array([np.nan if a is None else a for a in accs], dtype=float)
    n = len(ob)
    lv = np.arange(n) if levels is None else np.asarray(levels)
    text = [""] * n
    for g in np.unique(lv):
        members = np.flatnonzero(lv == g)
        # one label per group and accuracy (points at the same place)
        for a in np.unique(np.round(ac[members], 2)):  # within a percentage point: drawn on top of each other
            same = [i for i in members if np.round(ac[i], 2) == a or (np.isnan(a) and np.isnan(ac[i]))]
            lead = best if best in same else same[0]
            text[lead] = f"#{seeds[lead]}" + (f" ×{len(same)}" if len(same) > 1 else "")
    sizes = [22 if i == best else 14 for i in range(n)]
    colors = [theme.WARN if i == best else theme.EM_COLOR for i in range(n)]
    fig = go.Figure(go.Scatter(
        x=ob, y=ac, mode="markers+text", text=text, textposition="top center",
        marker=dict(size=sizes, color=colors, opacity=0.8, line=dict(width=1, color="white")),
        customdata=np.array(seeds), name="random starts",
        hovertemplate="start #%{customdata}<br>objective %{x:.2f}<br>accuracy %{y:.1%}<extra></extra>"))
    if 0 <= best < n:  # drawn again on top: other starts that ended at the same place would hide it
        fig.add_trace(go.Scatter(x=[ob[best]], y=[ac[best]], mode="markers", showlegend=False, hoverinfo="skip",
                                 marker=dict(size=22, color=theme.WARN, line=dict(width=1, color="white"))))
    if selected is not None and 0 <= selected < n:
        fig.add_trace(go.Scatter(x=[ob[selected]], y=[ac[selected]], mode="markers", name="selected",
                                 marker=dict(size=30, color="rgba(0,0,0,0)", line=dict(width=3, color="#000000"))))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="highest objective",
                             marker=dict(size=16, color=theme.WARN)))
    span = float(ob.max() - ob.min()) if n else 1.0
    pad = 0.08 * span if span > 0 else 1.0
    fig.update_xaxes(title="final MAP objective (higher = EM likes it more)", range=[ob.min() - pad, ob.max() + pad])
    fig.update_yaxes(title=acc_label, tickformat=".0%", range=[-0.02, 1.08])
    return theme.style(fig, "Each random start: where EM stopped vs how good the classifier is", font_size, height)
