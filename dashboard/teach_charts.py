"""Pure chart builders for the teaching-depth views (arrays -> plotly figures; no st.* calls):
the coin, the two coins, the lower bound, the 2-D mixture, components per class, responsibilities.

Same conventions as depth_charts.py: font_size for the projector, charts.class_color per class.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.charts import GREY, _int_ticks, class_color
from dashboard.derive import plot_text  # names from the data are chart text, never HTML
from dashboard.depth_charts import EM_COLOR, SUP_COLOR, _layout, _legend_below

MLE_COLOR = "#D55E00"
MAP_COLOR = "#0072B2"
PRIOR_COLOR = "#999999"
BOUND_COLOR = "#009E73"
NEXT_COLOR = "#CC79A7"


def _finite(a) -> list:
    return [None if v is None or not np.isfinite(v) else float(v) for v in np.asarray(a, dtype=float)]


# ---- the coin ---------------------------------------------------------------------------------

def coin_posterior_figure(grid: np.ndarray, prior: np.ndarray, posterior: np.ndarray, mle: float, map_: float,
                          truth: float | None, font_size: int = 16, height: int = 420,
                          title: str = "Prior and posterior of θ = p(heads)", width: int | None = None) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=grid, y=_finite(prior), name="prior", line=dict(color=PRIOR_COLOR, dash="dot", width=2)))
    fig.add_trace(go.Scatter(x=grid, y=_finite(posterior), name="posterior", line=dict(color=MAP_COLOR, width=3),
                             fill="tozeroy", fillcolor="rgba(0,114,178,0.12)"))
    marks = [("θ_MLE", mle, MLE_COLOR, "dash"), ("θ_MAP", map_, MAP_COLOR, "solid")]
    if truth is not None:
        marks.append(("true θ", truth, "#000000", "dot"))
    for name, v, color, dash in marks:
        if v is not None and np.isfinite(v):
            fig.add_trace(go.Scatter(x=[v, v], y=[0, 1], yaxis="y2", mode="lines", name=f"{name} = {v:.3f}",
                                     line=dict(color=color, dash=dash, width=2)))
    fig.update_xaxes(range=[0, 1], title="θ")
    fig.update_layout(yaxis=dict(title="density", rangemode="tozero"),
                      yaxis2=dict(overlaying="y", range=[0, 1], visible=False))
    return _legend_below(_layout(fig, title, font_size, height, width=width))


def coin_estimates_figure(n: Sequence[int], mle: Sequence[float], map_: Sequence[float], truth: float | None,
                          n_now: int, font_size: int = 16, height: int = 380, width: int | None = None) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=list(n), y=_finite(mle), name="θ_MLE", mode="lines+markers",
                             line=dict(color=MLE_COLOR, dash="dash")))
    fig.add_trace(go.Scatter(x=list(n), y=_finite(map_), name="θ_MAP", mode="lines+markers",
                             line=dict(color=MAP_COLOR)))
    if truth is not None:
        fig.add_hline(y=truth, line=dict(color="#000000", dash="dot"), annotation_text="true θ")
    fig.add_vline(x=n_now, line=dict(color=GREY, width=1))
    fig.update_xaxes(title="flips seen", rangemode="tozero")
    fig.update_yaxes(title="estimate of θ", range=[-0.02, 1.02])
    return _layout(fig, "The estimates as the flips come in", font_size, height, width=width)


def two_coin_figure(thetas: np.ndarray, loglik: Sequence[float], t_sel: int, font_size: int = 16,
                    height: int = 400, width: int | None = None) -> go.Figure:
    thetas = np.asarray(thetas, dtype=float)
    t = np.arange(len(thetas))
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    for c, name in enumerate(("θ_A", "θ_B")):
        fig.add_trace(go.Scatter(x=t, y=thetas[:, c], name=name, mode="lines+markers",
                                 line=dict(color=class_color(c), width=3)), secondary_y=False)
    fig.add_trace(go.Scatter(x=t, y=_finite(loglik), name="log-likelihood", mode="lines",
                             line=dict(color=GREY, dash="dot")), secondary_y=True)
    fig.add_vline(x=t_sel, line=dict(color=GREY, width=1))
    # whole iterations from 0, at most about 8 tick labels (one per iteration would overlap)
    fig.update_xaxes(title="iteration t", **_int_ticks(len(thetas)))
    fig.update_yaxes(title_text="p(heads)", range=[0, 1], secondary_y=False)
    fig.update_yaxes(title_text="log p(flips)", secondary_y=True, showgrid=False)
    return _layout(fig, "Two coins: θ_A, θ_B and the likelihood", font_size, height, width=width)


# ---- why EM climbs ---------------------------------------------------------------------------------

def bound_slice_figure(s: np.ndarray, objective: np.ndarray, bound: np.ndarray, next_bound: np.ndarray,
                       t: int, font_size: int = 16, height: int = 460) -> go.Figure:
    """L(θ(s)), the bound of the E-step at θ_t (touches at s = 0, peaks at s = 1) and the next bound."""
    s = np.asarray(s, dtype=float)
    i0, i1 = int(np.argmin(np.abs(s))), int(np.argmin(np.abs(s - 1)))
    # y range: what happens between θ_t and θ_t+1 (the far ends of the slice may plunge)
    near = (s >= -0.35) & (s <= 1.35)
    lo = np.nanmin(np.where(near & np.isfinite(bound), bound, np.nan))
    hi = np.nanmax(np.where(np.isfinite(objective), objective, np.nan))
    pad = 0.08 * max(hi - lo, 1e-9)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=s, y=_finite(objective), name="objective L(θ) (log-likelihood + log prior)",
                             line=dict(color="#000000", width=3)))
    fig.add_trace(go.Scatter(x=s, y=_finite(bound), name=f"bound from the E-step at θ_{t}",
                             line=dict(color=BOUND_COLOR, width=3)))
    fig.add_trace(go.Scatter(x=s, y=_finite(next_bound), name=f"next bound (E-step at θ_{t + 1})",
                             line=dict(color=NEXT_COLOR, dash="dash", width=2)))
    fig.add_trace(go.Scatter(x=[s[i0], s[i1], s[i1]], y=_finite([objective[i0], bound[i1], objective[i1]]),
                             mode="markers+text", name="θ_t, bound at θ_t+1, L(θ_t+1)",
                             text=["E-step: tight", "M-step: top of the bound", "L rose at least as much"],
                             textposition=["bottom right", "bottom left", "top right"], showlegend=False,
                             marker=dict(size=12, color=["#000000", BOUND_COLOR, "#000000"])))
    for x, label in ((0.0, f"θ_{t}"), (1.0, f"θ_{t + 1}")):
        fig.add_vline(x=x, line=dict(color=GREY, width=1, dash="dot"), annotation_text=label,
                      annotation_position="bottom right")
    fig.update_xaxes(title=f"s along the line θ(s) = θ_{t} + s·(θ_{t + 1} − θ_{t})")
    fig.update_yaxes(title="objective", range=[lo - pad, hi + pad])
    return _legend_below(_layout(fig, "Why EM climbs: the bound touches at θ_t, the M-step climbs it", font_size, height))


def climb_bars_figure(before: float, bound_after: float, after: float, font_size: int = 16,
                      height: int = 420) -> go.Figure:
    """Floating bars: L(θ_t) → + M-step gain of the bound → + KL gap → L(θ_{t+1})."""
    gain, gap = bound_after - before, after - bound_after
    span = max(after - before, 1e-9)
    floor = before - 0.6 * span
    labels = ["L(θ_t) = bound<br>(after the E-step)", "M-step raises<br>the bound", "gap: KL(q ‖<br>new posterior)",
              "L(θ_t+1)"]
    fig = go.Figure(go.Bar(
        x=labels, y=[before - floor, gain, gap, after - floor], base=[floor, before, bound_after, floor],
        marker=dict(color=["#000000", BOUND_COLOR, NEXT_COLOR, "#000000"]),
        text=[f"{before:.4f}", f"+{gain:.4g}", f"+{gap:.4g}", f"{after:.4f}"], textposition="outside",
        hovertemplate="%{x}: %{text}<extra></extra>"))
    fig.update_yaxes(range=[floor, after + 0.35 * span], title="objective")
    return _layout(fig, "One iteration, decomposed", font_size, height, showlegend=False)


# ---- responsibilities ----------------------------------------------------------------------------

def responsibility_histogram(resp_hidden: np.ndarray, class_names: Sequence[str], font_size: int = 16,
                             height: int = 320, title: str = "Responsibilities of the hidden documents") -> go.Figure:
    """One histogram per class of r_ik over the hidden rows (bins of 0.05); with two classes only the
    second (r of the first is its mirror image)."""
    r = np.asarray(resp_hidden, dtype=float)
    fig = go.Figure()
    for k, name in enumerate(class_names):
        if len(class_names) == 2 and k == 0:
            continue
        counts, edges = np.histogram(r[:, k], bins=20, range=(0.0, 1.0))
        fig.add_trace(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=0.05 * 0.9, name=f"r(· = {name})",
                             marker=dict(color=class_color(k)), opacity=0.75))
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(title="responsibility r_ik", range=[0, 1])
    fig.update_yaxes(title="documents")
    return _layout(fig, title, font_size, height)


# ---- components per class ---------------------------------------------------------------------------

def components_accuracy_figure(ms: Sequence[int], em_acc: np.ndarray, sup_acc: np.ndarray, font_size: int = 16,
                               height: int = 420) -> go.Figure:
    """em_acc (len(ms), n_seeds), sup_acc (n_seeds,): one dot per seed, the mean as a line."""
    em_acc = np.asarray(em_acc, dtype=float)
    sup_acc = np.asarray(sup_acc, dtype=float)
    fig = go.Figure()
    x = [f"m = {m}" for m in ms]
    for j in range(em_acc.shape[1]):
        fig.add_trace(go.Scatter(x=x, y=em_acc[:, j], mode="markers", marker=dict(color=EM_COLOR, size=9, opacity=0.5),
                                 name="EM, one seed", showlegend=j == 0))
    fig.add_trace(go.Scatter(x=x, y=em_acc.mean(axis=1), mode="lines+markers", name="EM, mean over seeds",
                             line=dict(color=EM_COLOR, width=3), marker=dict(size=12)))
    fig.add_hline(y=float(sup_acc.mean()), line=dict(color=SUP_COLOR, dash="dash", width=3),
                  annotation_text=f"supervised NB {sup_acc.mean():.1%}", annotation_position="bottom right")
    fig.update_yaxes(title="accuracy on the hidden labels", tickformat=".0%")
    fig.update_xaxes(title="components per class")
    return _layout(fig, "Does EM close the gap to supervised Naive Bayes?", font_size, height)


# ---- the 2-D mixture --------------------------------------------------------------------------------

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
    cols = np.array([_hex_rgb(class_color(k)) for k in range(K)])
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
            fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line=dict(color=class_color(k), width=3, dash=dash),
                                     name=f"{class_names[k]}: {int(n_sd)}σ", hoverinfo="skip", showlegend=n_sd == 1.0))
        fig.add_trace(go.Scatter(x=[mean[0, k]], y=[mean[1, k]], mode="markers", showlegend=False,
                                 marker=dict(symbol="x", size=16, color=class_color(k), line=dict(width=2)),
                                 hovertemplate=f"μ({class_names[k]}) = (%{{x:.2f}}, %{{y:.2f}})<extra></extra>"))
        if prev_mean is not None and np.any(np.abs(prev_mean[:, k] - mean[:, k]) > 1e-9):
            fig.add_annotation(x=mean[0, k], y=mean[1, k], ax=prev_mean[0, k], ay=prev_mean[1, k], xref="x", yref="y",
                               axref="x", ayref="y", showarrow=True, arrowhead=2, arrowwidth=2,
                               arrowcolor=class_color(k))
    fig.update_xaxes(title="feature x₁", range=None if axis_range is None else list(axis_range[0]))
    fig.update_yaxes(title="feature x₂", range=None if axis_range is None else list(axis_range[1]),
                     scaleanchor="x", scaleratio=1)
    return _legend_below(_layout(fig, title, font_size, height))


def kmeans2d_figure(X: np.ndarray, assign: np.ndarray, centres: np.ndarray, class_names: Sequence[str],
                    font_size: int = 16, height: int = 520, axis_range: tuple | None = None,
                    title: str = "k-means: hard assignments") -> go.Figure:
    X = np.asarray(X, dtype=float)
    fig = go.Figure()
    for k in range(centres.shape[0]):
        m = assign == k
        fig.add_trace(go.Scatter(x=X[m, 0], y=X[m, 1], mode="markers", name=f"nearest to centre {class_names[k]}",
                                 marker=dict(color=class_color(k), size=11)))
        fig.add_trace(go.Scatter(x=[centres[k, 0]], y=[centres[k, 1]], mode="markers", showlegend=False,
                                 marker=dict(symbol="x", size=16, color=class_color(k), line=dict(width=2))))
    fig.update_xaxes(title="feature x₁", range=None if axis_range is None else list(axis_range[0]))
    fig.update_yaxes(title="feature x₂", range=None if axis_range is None else list(axis_range[1]),
                     scaleanchor="x", scaleratio=1)
    return _legend_below(_layout(fig, title, font_size, height))


def climb_history_figure(objective: Sequence[float], bound_after: Sequence[float], t_sel: int, font_size: int = 16,
                         height: int = 400) -> go.Figure:
    """The staircase: from L(θ_t) the M-step climbs the bound to F(q_t, θ_{t+1}) (green), then the next
    E-step lifts the bound to L(θ_{t+1}) (grey, the KL gap closing)."""
    L = np.asarray(objective, dtype=float)
    B = np.asarray(bound_after, dtype=float)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=np.arange(len(L)), y=_finite(L), mode="lines+markers", name="objective L(θ_t)",
                             line=dict(color="#000000", width=2)))
    xs, ys, gx, gy = [], [], [], []
    for t in range(min(len(B), len(L) - 1)):
        xs += [t, t + 1, None]
        ys += [L[t], B[t], None]
        gx += [t + 1, t + 1, None]
        gy += [B[t], L[t + 1], None]
    fig.add_trace(go.Scatter(x=xs, y=_finite(ys), mode="lines", name="M-step: up the bound F(q_t, ·)",
                             line=dict(color=BOUND_COLOR, width=3)))
    fig.add_trace(go.Scatter(x=gx, y=_finite(gy), mode="lines", name="E-step: the gap (KL) closes",
                             line=dict(color=NEXT_COLOR, width=3, dash="dot")))
    fig.add_vline(x=t_sel, line=dict(color=GREY, width=1))
    fig.update_xaxes(title="iteration t", rangemode="tozero")
    fig.update_yaxes(title="objective")
    return _legend_below(_layout(fig, "EM is a staircase: it can only go up", font_size, height))


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
    return _layout(fig, title, font_size, 90 + cell * m, showlegend=False)
