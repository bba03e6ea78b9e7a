"""The posterior inspector's charts: one document's posterior and its per-feature log-odds.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme
from dashboard.ui.derive import plot_text  # names from the data are chart text, never HTML


def posterior_figure(posterior: Sequence[float], class_names: Sequence[str], font_size: int = 16,
                     height: int = 260, title: str = "p(y | x)") -> go.Figure:
    p = np.asarray(posterior, dtype=float)
    fig = go.Figure(go.Bar(x=p, y=[plot_text(c) for c in class_names], orientation="h",
                           marker=dict(color=[theme.class_color(k) for k in range(len(p))]),
                           text=[f"{v:.3f}" for v in p], textposition="auto",
                           hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    fig.update_xaxes(range=[0, 1], title="posterior probability")
    fig.update_yaxes(autorange="reversed")
    return theme.style(fig, title, font_size, max(height, 80 + 40 * len(p)), showlegend=False)


def log_odds_figure(labels: Sequence[str], values: Sequence[float], present: Sequence[bool],
                    prior_term: float, name_a: str, name_b: str, color_a: str, color_b: str,
                    font_size: int = 16, top_n: int = 20) -> go.Figure:
    """Horizontal bars: how much each word pushes towards class a (right) or b (left).

    Present words are solid; absent words (the (1 − x) log(1 − β) terms of Bernoulli NB)
    are hatched. ±∞ (λ = 0, an "impossible" word) is drawn as a capped bar marked ∞.
    The prior's log-odds is the first bar."""
    v = np.asarray(values, dtype=float)
    pres = np.asarray(present, dtype=bool)
    order = np.argsort(-np.where(np.isfinite(v), np.abs(v), np.inf), kind="stable")
    shown = [j for j in order if v[j] != 0.0][:top_n]
    finite = [abs(v[j]) for j in shown if np.isfinite(v[j])] + ([abs(prior_term)] if np.isfinite(prior_term) else [])
    cap = 1.3 * max(finite) if finite and max(finite) > 0 else 1.0
    name_a, name_b = plot_text(name_a), plot_text(name_b)
    names = ["prior log α"] + [plot_text(labels[j]) + ("" if pres[j] else " (absent)") for j in shown]
    vals = [prior_term] + [v[j] for j in shown]
    kinds = ["prior"] + ["present" if pres[j] else "absent" for j in shown]
    xs, texts, colors, patterns = [], [], [], []
    for val, kind in zip(vals, kinds):
        if np.isfinite(val):
            xs.append(val)
            texts.append(f"{val:+.2f}")
        else:
            xs.append(cap if val > 0 else -cap)
            texts.append("+∞" if val > 0 else "−∞")
        colors.append(theme.GREY if kind == "prior" else (color_a if val > 0 else color_b))
        patterns.append("/" if kind == "absent" else "")
    fig = go.Figure(go.Bar(
        x=xs, y=names, orientation="h", text=texts, textposition="outside", cliponaxis=False,
        marker=dict(color=colors, pattern=dict(shape=patterns, fillmode="overlay", fgcolor="white", size=8)),
        customdata=kinds, hovertemplate="%{y}: %{text} (%{customdata})<extra></extra>", showlegend=False))
    for name, col, pat in ((f"→ {name_a}", color_a, ""), (f"→ {name_b}", color_b, ""),
                           ("absent word (1−x)·log(1−β)", "#bbbbbb", "/")):
        fig.add_trace(go.Bar(x=[None], y=[None], name=name, orientation="h",
                             marker=dict(color=col, pattern=dict(shape=pat, fgcolor="white"))))
    fig.add_vline(x=0, line=dict(color="#333333", width=1))
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=font_size))
    fig.update_xaxes(title=f"log-odds contribution: log p(x_j | {name_a}) − log p(x_j | {name_b})",
                     range=[-cap * 1.25, cap * 1.25])
    height = min(1000, 140 + max(34, int(1.8 * font_size)) * len(names))  # a row per bar, tall enough to label
    fig = theme.style(fig, f"Which words push towards {name_a} (right) or {name_b} (left)", font_size, height + 40,
                  barmode="overlay")
    # legend under the plot: three entries do not fit beside the title at projector font sizes
    return theme.legend_below(fig)
