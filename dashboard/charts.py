"""Pure functions: arrays -> plotly figures. No st.* calls here.

Large readable fonts (pass font_size), the Okabe-Ito colour-blind-safe palette,
and one fixed colour per class everywhere (class k -> CLASS_COLORS[k]).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

# Okabe & Ito (2008) colour-blind-safe palette, extended with Tol's muted colours for K > 8
CLASS_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                "#D55E00", "#F0E442", "#000000", "#882255", "#999933"]
WARN = "#D55E00"
GREY = "#777777"


def class_color(k: int) -> str:
    return CLASS_COLORS[k % len(CLASS_COLORS)]


def _layout(fig: go.Figure, title: str, font_size: int, height: int, legend_rows: int = 1, **kw) -> go.Figure:
    """Title on its own band at the top, the legend in a band of its own under it (never overlapping)."""
    title_band = int((font_size + 4) * 1.6) + 8
    legend_band = int(font_size * 1.7) * legend_rows + 6
    fig.update_layout(
        title=dict(text=title, font=dict(size=font_size + 4), y=1.0, yref="container", yanchor="top",
                   pad=dict(t=8)),
        font=dict(size=font_size),
        height=height + max(0, font_size - 15) * 12,  # bigger fonts (classroom) get a taller plot
        margin=dict(l=10, r=10, t=title_band + legend_band, b=10),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0,
                    font=dict(size=font_size)),
        # no `template=` here: naming a template costs ~25 ms per figure per rerun, and
        # st.plotly_chart applies the Streamlit theme in the browser anyway
        **kw,
    )
    for axis in (fig.layout.xaxis, fig.layout.yaxis):  # readable ticks unless a chart chose its own
        if axis.tickfont.size is None:
            axis.tickfont.size = font_size - 1
    return fig


def _int_ticks(fig: go.Figure, T: int) -> None:
    """Whole-number iteration ticks (no 0.5)."""
    fig.update_xaxes(tick0=0, dtick=max(1, int(np.ceil(max(T - 1, 1) / 8))), range=[-0.3, max(T - 1, 1) + 0.3])


def _iteration_marker(fig: go.Figure, t_sel: int | None, **kw) -> None:
    if t_sel is not None:
        fig.add_vline(x=t_sel, line=dict(color=GREY, dash="dot", width=2), **kw)


def _lambda_markers(fig: go.Figure, lam_changes: Sequence[tuple[int, float]], font_size: int, **kw) -> None:
    for t, lam in lam_changes:
        fig.add_vline(x=t - 0.5, line=dict(color="#555555", dash="dash", width=1.5), **kw)
        fig.add_annotation(x=t - 0.5, y=1.0, yref="paper", text=f"λ→{lam:g}", showarrow=False,
                           yanchor="bottom", font=dict(size=font_size - 2, color="#555555"))


def decreases(values: Sequence[float], lams: Sequence[float] | None = None, rel_tol: float = 1e-9) -> list[int]:
    """Iterations t where values[t] < values[t-1] (beyond rounding) at the same λ."""
    v = np.asarray(values, dtype=float)
    out = []
    for t in range(1, len(v)):
        if lams is not None and lams[t] != lams[t - 1]:
            continue
        if v[t] < v[t - 1] - rel_tol * max(1.0, abs(v[t - 1])):
            out.append(t)
    return out


def alpha_figure(alphas: np.ndarray, class_names: Sequence[str], t_sel: int | None = None,
                 lam_changes: Sequence[tuple[int, float]] = (), font_size: int = 16,
                 height: int = 330) -> go.Figure:
    """α_k against iteration, one line per class."""
    alphas = np.asarray(alphas, dtype=float)
    T = alphas.shape[0]
    fig = go.Figure()
    for k, name in enumerate(class_names):
        fig.add_trace(go.Scatter(x=np.arange(T), y=alphas[:, k], name=str(name), mode="lines+markers",
                                 line=dict(color=class_color(k), width=3), marker=dict(size=6)))
    _iteration_marker(fig, t_sel)
    _lambda_markers(fig, lam_changes, font_size)
    fig.update_xaxes(title="iteration t")
    _int_ticks(fig, T)
    top = 1.0 if alphas.shape[1] <= 3 else min(1.0, float(np.nanmax(alphas)) * 1.25 + 0.02)
    fig.update_yaxes(title="α (class prior)", range=[0, top])
    rows = int(np.ceil(len(class_names) / 5)) if len(class_names) > 3 else 1
    return _layout(fig, "Class priors α", font_size, height + 20 * (rows - 1), legend_rows=rows)


def top_separating(mat: np.ndarray, n: int = 15, log_scale: bool = True) -> np.ndarray:
    """Indices of the rows whose values differ most between classes.
    For probabilities: the spread of log values (log-odds between the two most
    different classes); for other values (Gaussian means): the spread itself."""
    m = np.asarray(mat, dtype=float)
    if log_scale:
        m = np.log(np.clip(m, 1e-12, None))
    spread = m.max(axis=1) - m.min(axis=1)
    order = np.argsort(-spread, kind="stable")
    return order[: min(n, len(order))]


def beta_bars_figure(cur, prev, feature_names, class_names, n_top=12,
                                value_label="β = p(word | class)", log_scale=True, font_size=16,
                                title=None, rows=None) -> go.Figure:
    """Like beta_bars_figure but the previous iteration is a faint tick mark on each bar."""
    cur = np.asarray(cur, dtype=float)
    idx = top_separating(cur, n_top, log_scale) if rows is None else np.asarray(rows)
    idx = idx[::-1]
    K = cur.shape[1]
    n = len(idx)
    width = 0.8 / K
    fig = go.Figure()
    ypos = np.arange(n, dtype=float)
    for k in range(K):
        off = (k - (K - 1) / 2) * width
        fig.add_trace(go.Bar(y=ypos + off, x=cur[idx, k], orientation="h", width=width * 0.95,
                             name=str(class_names[k]), marker=dict(color=class_color(k)),
                             customdata=[str(feature_names[j]) for j in idx],
                             hovertemplate="%{customdata}: %{x:.3f}<extra>" + str(class_names[k]) + "</extra>"))
        if prev is not None:
            p = np.asarray(prev, dtype=float)[idx, k]
            fig.add_trace(go.Scatter(y=ypos + off, x=p, mode="markers", showlegend=(k == 0),
                                     name="previous iteration", legendgroup="prev",
                                     marker=dict(symbol="line-ns", size=max(10, int(26 * width * 2)),
                                                 line=dict(width=3, color="rgba(40,40,40,0.45)")),
                                     hovertemplate="previous: %{x:.3f}<extra></extra>"))
    fig.update_yaxes(tickmode="array", tickvals=ypos, ticktext=[str(feature_names[j]) for j in idx],
                     tickfont=dict(size=font_size), range=[-0.6, n - 0.4])
    fig.update_xaxes(title=value_label, rangemode="tozero")
    height = max(340, 90 + (26 + 8 * K) * n)
    return _layout(fig, title or f"Features that separate the classes most (top {n})",
                   font_size, min(height, 950), bargap=0.1)


def heatmap_figure(mat: np.ndarray, feature_names: Sequence[str], class_names: Sequence[str],
                   value_label: str = "β", font_size: int = 16, max_rows: int = 400,
                   zmin: float | None = 0.0, zmax: float | None = 1.0) -> go.Figure:
    """Every feature × every class as a heatmap (features sorted by separation)."""
    mat = np.asarray(mat, dtype=float)
    order = top_separating(mat, min(max_rows, mat.shape[0]), log_scale=(zmin == 0.0))
    names = [str(feature_names[j]) for j in order]
    fig = go.Figure(go.Heatmap(z=mat[order], x=[str(c) for c in class_names], y=names,
                               colorscale="Viridis", zmin=zmin, zmax=zmax,
                               colorbar=dict(title=dict(text=value_label)),
                               hovertemplate="%{y} | %{x}: %{z:.3f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=max(10, font_size - 4)))
    height = min(1400, max(360, 120 + 16 * len(order)))
    title = "All features" + (f" (top {len(order)} of {mat.shape[0]})" if len(order) < mat.shape[0] else "")
    return _layout(fig, title + ", sorted by separation", font_size, height)


def digits_figure(mat: np.ndarray, image_shape: tuple[int, int], class_names: Sequence[str],
                  value_label: str = "β", font_size: int = 16, zmin=0.0, zmax=1.0) -> go.Figure:
    """β (or the means) of each class drawn as an image."""
    mat = np.asarray(mat, dtype=float)
    K = mat.shape[1]
    cols = min(K, 5)
    rows = int(np.ceil(K / cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"class {c}" for c in class_names],
                        horizontal_spacing=0.02, vertical_spacing=0.08)
    for k in range(K):
        r, c = divmod(k, cols)
        fig.add_trace(go.Heatmap(z=mat[:, k].reshape(image_shape), colorscale="Greys", zmin=zmin, zmax=zmax,
                                 showscale=(k == 0), colorbar=dict(title=dict(text=value_label)),
                                 hovertemplate="row %{y}, col %{x}: %{z:.2f}<extra></extra>"),
                      row=r + 1, col=c + 1)
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False, autorange="reversed", scaleanchor="x")
    for ann in fig.layout.annotations:
        ann.font = dict(size=font_size)
    return _layout(fig, f"{value_label} of each class as an {image_shape[0]}×{image_shape[1]} image",
                   font_size, 260 * rows + 60)


def likelihood_figure(loglik: Sequence[float], objective: Sequence[float], lams: Sequence[float],
                      t_sel: int | None = None, font_size: int = 16, height: int = 430) -> go.Figure:
    """Log-likelihood and MAP objective against iteration; any decrease is flagged."""
    ll = np.asarray(loglik, dtype=float)
    ob = np.asarray(objective, dtype=float)
    T = len(ll)
    x = np.arange(T)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=["MAP objective (never goes down)", "log-likelihood"])
    fig.add_trace(go.Scatter(x=x, y=ob, mode="lines+markers", name="objective",
                             line=dict(color="#0072B2", width=3)), row=1, col=1)
    fig.add_trace(go.Scatter(x=x, y=ll, mode="lines+markers", name="log-likelihood",
                             line=dict(color="#009E73", width=3)), row=2, col=1)
    bad = decreases(ob, lams)
    if bad:
        fig.add_trace(go.Scatter(x=bad, y=ob[bad], mode="markers", name="objective decreased!",
                                 marker=dict(symbol="x", size=16, color=WARN, line=dict(width=2))), row=1, col=1)
        fig.add_annotation(x=bad[0], y=ob[bad[0]], text="⚠ objective went DOWN", showarrow=True,
                           arrowcolor=WARN, font=dict(color=WARN, size=font_size), row=1, col=1)
    dips = decreases(ll, lams)
    if dips:
        fig.add_trace(go.Scatter(x=dips, y=ll[dips], mode="markers", name="log-lik dipped",
                                 marker=dict(symbol="triangle-down", size=13, color=WARN)), row=2, col=1)
    if t_sel is not None:
        for r in (1, 2):
            fig.add_vline(x=t_sel, line=dict(color=GREY, dash="dot", width=2), row=r, col=1)
    lam_changes = [(t, lams[t]) for t in range(1, T) if lams[t] != lams[t - 1]]
    for t, lam in lam_changes:
        for r in (1, 2):
            fig.add_vline(x=t - 0.5, line=dict(color="#555555", dash="dash", width=1.5), row=r, col=1)
    for ann in fig.layout.annotations[:2]:
        ann.font = dict(size=font_size)
    fig.update_xaxes(title="iteration t", row=2, col=1)
    _int_ticks(fig, T)
    fig.update_layout(showlegend=bool(bad or dips))
    return _layout(fig, "Does EM climb?", font_size, height)


def accuracy_figure(acc: Sequence[float], baseline: float | None, t_sel: int | None = None,
                    font_size: int = 16, height: int = 330, n_hidden: int | None = None) -> go.Figure:
    """Accuracy on the hidden labels against iteration, with the supervised-only baseline."""
    acc = np.asarray(acc, dtype=float)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=np.arange(len(acc)), y=acc, mode="lines+markers", name="EM",
                             line=dict(color="#0072B2", width=3)))
    if baseline is not None and np.isfinite(baseline):
        fig.add_hline(y=baseline, line=dict(color=WARN, dash="dash", width=3))
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"supervised only: {baseline:.1%}",
                                 line=dict(color=WARN, dash="dash", width=3)))
    _iteration_marker(fig, t_sel)
    lo = np.nanmin(np.r_[acc, [baseline if baseline is not None else np.nan]]) if len(acc) else 0.0
    lo = 0.0 if not np.isfinite(lo) else max(0.0, min(0.5, lo - 0.05))
    fig.update_yaxes(title="accuracy", tickformat=".0%", range=[lo, 1.0])
    fig.update_xaxes(title="iteration t")
    _int_ticks(fig, len(acc))
    title = "Accuracy on hidden labels"
    if n_hidden:
        fig.update_xaxes(title=f"iteration t  ({n_hidden} hidden documents)")
    return _layout(fig, title, font_size, height)


def truth_figure(true_mat: np.ndarray, est_mat: np.ndarray, class_names: Sequence[str],
                 value_label: str = "β", font_size: int = 16, height: int = 420) -> go.Figure:
    """Scatter of true vs estimated parameters (clusters already aligned)."""
    tm = np.asarray(true_mat, dtype=float)
    em = np.asarray(est_mat, dtype=float)
    fig = go.Figure()
    for k, name in enumerate(class_names):
        fig.add_trace(go.Scatter(x=tm[:, k], y=em[:, k], mode="markers", name=str(name),
                                 marker=dict(color=class_color(k), size=9, opacity=0.8)))
    lo = float(min(tm.min(), em.min(), 0.0))
    hi = float(max(tm.max(), em.max())) * 1.08
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="perfect",
                             line=dict(color=GREY, dash="dot")))
    fig.update_xaxes(title=f"true {value_label}", range=[lo, hi])
    fig.update_yaxes(title=f"estimated {value_label}", range=[lo, hi], scaleanchor="x")
    rmse = float(np.sqrt(np.mean((tm - em) ** 2)))
    return _layout(fig, f"Estimate vs truth (RMSE {rmse:.3f})", font_size, height)
