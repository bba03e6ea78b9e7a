"""The smoothing explorer's charts: β and accuracy as λ goes from 0 to large.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme
from dashboard.ui.derive import plot_text  # names from the data are chart text, never HTML


def _lam_axis(lams: Sequence[float]) -> tuple[np.ndarray, list, list]:
    """x positions on a log axis; λ = 0 is drawn one decade left of the smallest λ > 0."""
    lams = np.asarray(lams, dtype=float)
    pos = lams[lams > 0]
    zero_at = (pos.min() / 10.0) if pos.size else 1e-3
    x = np.where(lams > 0, lams, zero_at)
    ticks, text = [], []
    if (lams == 0).any():
        ticks.append(float(zero_at))
        text.append("0")
    if pos.size:  # one tick per decade
        for e in range(int(np.floor(np.log10(pos.min()) + 1e-9)), int(np.ceil(np.log10(pos.max()) - 1e-9)) + 1):
            ticks.append(10.0 ** e)
            text.append(f"{10.0 ** e:g}")
    return x, ticks, text


def beta_vs_lambda_figure(lams: Sequence[float], betas: dict, class_names: Sequence[str],
                          font_size: int = 16, height: int = 430, target: float = 0.5) -> go.Figure:
    """β_jk against λ (log axis) for a few words; one colour per class, one dash per word.

    betas: {word label: (L, K) array}."""
    x, ticks, text = _lam_axis(lams)
    dashes = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
    fig = go.Figure()
    for w, (word, mat) in enumerate(betas.items()):
        mat = np.asarray(mat, dtype=float)
        word = plot_text(word)
        for k, cname in enumerate(map(plot_text, class_names)):
            fig.add_trace(go.Scatter(x=x, y=mat[:, k], mode="lines+markers",
                                     name=f"{word} | {cname}", legendgroup=word,
                                     line=dict(color=theme.class_color(k), dash=dashes[w % len(dashes)], width=3),
                                     marker=dict(size=7),
                                     customdata=np.asarray(lams, dtype=float),
                                     hovertemplate=f"λ=%{{customdata:.3g}}: β({word} | {cname})" + " = %{y:.3f}<extra></extra>"))
    fig.add_hline(y=target, line=dict(color=theme.GREY, dash="dot", width=2),
                  annotation_text=("½" if target == 0.5 else f"1/V = {target:.3g}") + " (λ → ∞)",
                  annotation_position="bottom left")
    fig.update_xaxes(type="log", title="smoothing λ (log scale; leftmost = 0)", tickvals=ticks, ticktext=text)
    fig.update_yaxes(title="β = p(word | class)", range=[-0.03, 1.03] if target == 0.5 else None)
    fig = theme.style(fig, "β of a rare and a common word as λ grows", font_size, height, legend_right=True)
    return fig


def accuracy_vs_lambda_figure(lams: Sequence[float], acc_sup: Sequence, acc_em: Sequence,
                              font_size: int = 16, height: int = 430, n_hidden: int | None = None) -> go.Figure:
    x, ticks, text = _lam_axis(lams)
    fig = go.Figure()
    for name, acc, col in (("supervised NB (visible labels only)", acc_sup, theme.SUP_COLOR), ("EM", acc_em, theme.EM_COLOR)):
        y = np.array([np.nan if a is None else a for a in acc], dtype=float)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers", name=name, line=dict(color=col, width=3),
                                 marker=dict(size=8), customdata=np.asarray(lams, dtype=float),
                                 hovertemplate="λ=%{customdata:.3g}: %{y:.1%}<extra>" + name + "</extra>"))
    fig.update_xaxes(type="log", title="smoothing λ (log scale; leftmost = 0)", tickvals=ticks, ticktext=text)
    fig.update_yaxes(title="accuracy", tickformat=".0%", range=[0, 1.02])
    title = "Accuracy on the hidden labels" + (f" ({n_hidden} documents)" if n_hidden else "")
    return theme.style(fig, title, font_size, height)
