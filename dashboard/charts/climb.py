"""Why EM climbs: the lower bound along a slice of θ, the M-step's gain and the gap, and their history.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme


def start_slice_figure(s, objective, font_size: int) -> go.Figure:
    """θ_0 before any E-step: only the objective around the start. There is no bound yet (no q), and θ_1
    is not known to the reader, so neither is drawn."""
    s = np.asarray(s, dtype=float)
    obj = np.asarray(objective, dtype=float)
    near = (s >= -0.35) & (s <= 1.35) & np.isfinite(obj)
    i0 = int(np.argmin(np.abs(s)))
    fig = go.Figure(go.Scatter(x=s[near], y=obj[near], name="objective L(θ) (log-likelihood + log prior)",
                               line=dict(color="#000000", width=3)))
    fig.add_trace(go.Scatter(x=[s[i0]], y=[obj[i0]], mode="markers+text", text=["θ_0: the start"],
                             textposition="bottom right", marker=dict(size=12, color="#000000"), showlegend=False))
    fig.update_xaxes(title="s: a step away from θ_0 (along the way EM will go)")
    fig.update_yaxes(title="objective")
    fig.update_layout(title=dict(text="The objective around the start θ_0: no bound yet"),
                      font=dict(size=font_size), height=460, legend=dict(orientation="h", y=-0.25))
    return fig


def bound_slice_figure(s: np.ndarray, objective: np.ndarray, bound: np.ndarray, next_bound: np.ndarray,
                       t: int, font_size: int = 16, height: int = 460, width: int | None = None) -> go.Figure:
    """L(θ(s)), the bound of the E-step at θ_t (touches at s = 0, peaks at s = 1) and the next bound.
    ``width``: the chart's expected width (theme.chart_width), for wrapping its title."""
    s = np.asarray(s, dtype=float)
    i0, i1 = int(np.argmin(np.abs(s))), int(np.argmin(np.abs(s - 1)))
    # y range: what happens between θ_t and θ_t+1 (the far ends of the slice may plunge)
    near = (s >= -0.35) & (s <= 1.35)
    lo = np.nanmin(np.where(near & np.isfinite(bound), bound, np.nan))
    hi = np.nanmax(np.where(np.isfinite(objective), objective, np.nan))
    pad = 0.08 * max(hi - lo, 1e-9)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=s, y=theme.finite(objective), name="objective L(θ) (log-likelihood + log prior)",
                             line=dict(color="#000000", width=3)))
    fig.add_trace(go.Scatter(x=s, y=theme.finite(bound), name=f"bound from the E-step at θ_{t}",
                             line=dict(color=theme.BOUND_COLOR, width=3)))
    fig.add_trace(go.Scatter(x=s, y=theme.finite(next_bound), name=f"next bound (E-step at θ_{t + 1})",
                             line=dict(color=theme.NEXT_COLOR, dash="dash", width=2)))
    fig.add_trace(go.Scatter(x=[s[i0], s[i1], s[i1]], y=theme.finite([objective[i0], bound[i1], objective[i1]]),
                             mode="markers+text", name="θ_t, bound at θ_t+1, L(θ_t+1)",
                             text=["E-step: tight", "M-step: top of the bound", "L rose at least as much"],
                             # the labels at s = 1 go left, into the plot: to the right they were cut at its edge
                             textposition=["bottom right", "bottom left", "top left"], showlegend=False,
                             marker=dict(size=12, color=["#000000", theme.BOUND_COLOR, "#000000"])))
    for x, label in ((0.0, f"θ_{t}"), (1.0, f"θ_{t + 1}")):
        fig.add_vline(x=x, line=dict(color=theme.GREY, width=1, dash="dot"), annotation_text=label,
                      annotation_position="bottom right")
    fig.update_xaxes(title=f"s along the line θ(s) = θ_{t} + s·(θ_{t + 1} − θ_{t})")
    fig.update_yaxes(title="objective", range=[lo - pad, hi + pad])
    return theme.legend_below(theme.style(fig, "Why EM climbs: the bound touches at θ_t, the M-step climbs it",
                                          font_size, height, width=width))


def climb_bars_figure(before: float, bound_after: float, after: float, font_size: int = 16,
                      height: int = 420, width: int | None = None) -> go.Figure:
    """Floating bars: L(θ_t) → + M-step gain of the bound → + KL gap → L(θ_{t+1}). Each bar's number is
    drawn above it, not clipped by the plot area (cliponaxis off), in a size that fits the bar's slot."""
    gain, gap = bound_after - before, after - bound_after
    span = max(after - before, 1e-9)
    floor = before - 0.6 * span
    labels = ["L(θ_t) = bound<br>(after the E-step)", "M-step raises<br>the bound", "gap: KL(q ‖<br>new posterior)",
              "L(θ_t+1)"]
    fig = go.Figure(go.Bar(
        x=labels, y=[before - floor, gain, gap, after - floor], base=[floor, before, bound_after, floor],
        marker=dict(color=["#000000", theme.BOUND_COLOR, theme.NEXT_COLOR, "#000000"]),
        text=[f"{before:.4f}", f"+{gain:.4g}", f"+{gap:.4g}", f"{after:.4f}"], textposition="outside",
        cliponaxis=False, textfont=dict(size=_bar_text_size(font_size, width)),
        hovertemplate="%{x}: %{text}<extra></extra>"))
    fig.update_yaxes(range=[floor, after + 0.35 * span], title="objective")
    return theme.style(fig, "One iteration, decomposed", font_size, height, showlegend=False, width=width)


def _bar_text_size(font_size: int, width: int | None) -> int:
    """The bars' numbers ("-22.1851", 8 characters, about 0.55 em each) side by side over four bars:
    at most the font size, smaller when the four slots of the plot (the chart less ~70 px of axis)
    are narrower than that, so that neighbouring numbers never overlap."""
    if not width:
        return font_size
    slot = (width - 70) / 4
    return int(max(10, min(font_size, slot / (8 * 0.55) - 1)))


def climb_history_figure(objective: Sequence[float], bound_after: Sequence[float], t_sel: int, font_size: int = 16,
                         height: int = 400, width: int | None = None) -> go.Figure:
    """The staircase: from L(θ_t) the M-step climbs the bound to F(q_t, θ_{t+1}) (green), then the next
    E-step lifts the bound to L(θ_{t+1}) (grey, the KL gap closing)."""
    L = np.asarray(objective, dtype=float)
    B = np.asarray(bound_after, dtype=float)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=np.arange(len(L)), y=theme.finite(L), mode="lines+markers", name="objective L(θ_t)",
                             line=dict(color="#000000", width=2)))
    xs, ys, gx, gy = [], [], [], []
    for t in range(min(len(B), len(L) - 1)):
        xs += [t, t + 1, None]
        ys += [L[t], B[t], None]
        gx += [t + 1, t + 1, None]
        gy += [B[t], L[t + 1], None]
    fig.add_trace(go.Scatter(x=xs, y=theme.finite(ys), mode="lines", name="M-step: up the bound F(q_t, ·)",
                             line=dict(color=theme.BOUND_COLOR, width=3)))
    fig.add_trace(go.Scatter(x=gx, y=theme.finite(gy), mode="lines", name="E-step: the gap (KL) closes",
                             line=dict(color=theme.NEXT_COLOR, width=3, dash="dot")))
    fig.add_vline(x=t_sel, line=dict(color=theme.GREY, width=1))
    fig.update_xaxes(title="iteration t", rangemode="tozero")
    fig.update_yaxes(title="objective")
    return theme.legend_below(theme.style(fig, "EM is a staircase: it can only go up", font_size, height, width=width))
