"""The lesson view's charts: α, accuracy and the objective over the iterations, the parameters
(top features, heatmap, digit images), estimate against truth, and the responsibilities.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from dashboard.charts import theme
from dashboard.ui.derive import plot_text  # names from the data are chart text, never HTML
from nbcore.em import decreases as _em_decreases


def decreases(values: Sequence[float], lams: Sequence[float] | None = None, rel_tol: float = 1e-9) -> list[int]:
    """Iterations t where values[t] < values[t-1] (beyond rounding, as drawn) at the same λ:
    nbcore.em.decreases with the charts' tolerance."""
    return _em_decreases(values, lams, rel_tol)


def alpha_figure(alphas: np.ndarray, class_names: Sequence[str], t_sel: int | None = None,
                 lam_changes: Sequence[tuple[int, float]] = (), font_size: int = 16,
                 height: int = 330) -> dict:
    """α_k against iteration, one line per class."""
    alphas = np.asarray(alphas, dtype=float)
    T = alphas.shape[0]
    x = list(range(T))
    data = [dict(type="scatter", x=x, y=theme.floats(alphas[:, k]), name=plot_text(name), mode="lines+markers",
                 line=dict(color=theme.class_color(k), width=3), marker=dict(size=6))
            for k, name in enumerate(class_names)]
    shapes = theme.iteration_marker(t_sel)
    annotations = []
    for t, smoothing in lam_changes:
        shapes.append(theme.vline(t - 0.5, dict(color="#555555", dash="dash", width=1.5)))
        annotations.append(dict(x=t - 0.5, y=1.0, yref="paper", text=f"λ→{smoothing:g}", showarrow=False,
                                yanchor="bottom", font=dict(size=font_size - 2, color="#555555")))
    top = 1.0 if alphas.shape[1] <= 3 else min(1.0, float(np.nanmax(alphas)) * 1.25 + 0.02)
    layout = dict(shapes=shapes, annotations=annotations,
                  xaxis=dict(title=dict(text="iteration t"), **theme.int_ticks(T)),
                  yaxis=dict(title=dict(text="α (class prior)"), range=[0, top]))
    return theme.figure_spec(data, layout, "Class priors α", font_size, height)  # theme.figure_spec counts the legend's rows


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
                     title=None, rows=None) -> dict:
    """Top separating features as grouped bars; the previous iteration is a faint tick mark on each bar."""
    cur = np.asarray(cur, dtype=float)
    idx = top_separating(cur, n_top, log_scale) if rows is None else np.asarray(rows)
    idx = idx[::-1]
    K = cur.shape[1]
    n = len(idx)
    width = 0.8 / K
    ypos = np.arange(n, dtype=float)
    names = [plot_text(feature_names[j]) for j in idx]
    p_all = None if prev is None else np.asarray(prev, dtype=float)
    data = []
    for k in range(K):
        off = (k - (K - 1) / 2) * width
        data.append(dict(type="bar", y=(ypos + off).tolist(), x=theme.floats(cur[idx, k]), orientation="h",
                         width=width * 0.95, name=plot_text(class_names[k]), marker=dict(color=theme.class_color(k)),
                         customdata=names,
                         hovertemplate="%{customdata}: %{x:.3f}<extra>" + plot_text(class_names[k]) + "</extra>"))
        if p_all is not None:
            data.append(dict(type="scatter", y=(ypos + off).tolist(), x=theme.floats(p_all[idx, k]), mode="markers",
                             showlegend=(k == 0), name="previous iteration", legendgroup="prev",
                             marker=dict(symbol="line-ns", size=max(10, int(26 * width * 2)),
                                         line=dict(width=3, color="rgba(40,40,40,0.45)")),
                             hovertemplate="previous: %{x:.3f}<extra></extra>"))
    layout = dict(bargap=0.1,
                  yaxis=dict(tickmode="array", tickvals=ypos.tolist(), ticktext=names,
                             tickfont=dict(size=font_size), range=[-0.6, n - 0.4]),
                  xaxis=dict(title=dict(text=value_label), rangemode="tozero"))
    height = max(340, 90 + (26 + 8 * K) * n)
    # the lesson draws this chart in the wider (3/5) column of its row
    return theme.figure_spec(data, layout, title or f"Features that separate the classes most (top {n})",
                font_size, min(height, 950), width=theme.chart_width(font_size, 1, 0.6))


def heatmap_figure(mat: np.ndarray, feature_names: Sequence[str], class_names: Sequence[str],
                   value_label: str = "β", font_size: int = 16, max_rows: int = 400,
                   zmin: float | None = 0.0, zmax: float | None = 1.0) -> dict:
    """Every feature × every class as a heatmap (features sorted by separation)."""
    mat = np.asarray(mat, dtype=float)
    order = top_separating(mat, min(max_rows, mat.shape[0]), log_scale=(zmin == 0.0))
    names = [plot_text(feature_names[j]) for j in order]
    trace = dict(type="heatmap", z=mat[order].tolist(), x=[plot_text(c) for c in class_names], y=names,
                 colorscale="Viridis", colorbar=dict(title=dict(text=value_label)),
                 hovertemplate="%{y} | %{x}: %{z:.3f}<extra></extra>")
    if zmin is not None:
        trace["zmin"] = zmin
    if zmax is not None:
        trace["zmax"] = zmax
    height = min(1400, max(360, 120 + 16 * len(order)))
    title = "All features" + (f" (top {len(order)} of {mat.shape[0]})" if len(order) < mat.shape[0] else "")
    layout = dict(yaxis=dict(autorange="reversed", tickfont=dict(size=max(10, font_size - 4))))
    return theme.figure_spec([trace], layout, title + ", sorted by separation", font_size, height)


def digits_figure(mat: np.ndarray, image_shape: tuple[int, int], class_names: Sequence[str],
                  value_label: str = "β", font_size: int = 16, zmin=0.0, zmax=1.0) -> dict:
    """β (or the means) of each class drawn as an image (one small panel per class)."""
    mat = np.asarray(mat, dtype=float)
    K = mat.shape[1]
    cols = min(K, 5)
    rows = int(np.ceil(K / cols))
    hs, vs = 0.02, 0.08  # the spacing make_subplots used
    w = (1 - hs * (cols - 1)) / cols
    h = (1 - vs * (rows - 1)) / rows
    data, layout, annotations = [], {}, []
    for k in range(K):
        r, c = divmod(k, cols)
        n = "" if k == 0 else str(k + 1)
        x0 = c * (w + hs)
        y1 = 1 - r * (h + vs)
        trace = dict(type="heatmap", z=mat[:, k].reshape(image_shape).tolist(), colorscale="Greys",
                     showscale=(k == 0), colorbar=dict(title=dict(text=value_label)),
                     hovertemplate="row %{y}, col %{x}: %{z:.2f}<extra></extra>", xaxis="x" + n, yaxis="y" + n)
        if zmin is not None:
            trace["zmin"] = zmin
        if zmax is not None:
            trace["zmax"] = zmax
        data.append(trace)
        layout["xaxis" + n] = dict(anchor="y" + n, domain=[theme.unit(x0), theme.unit(x0 + w)], showticklabels=False)
        layout["yaxis" + n] = dict(anchor="x" + n, domain=[theme.unit(y1 - h), theme.unit(y1)], showticklabels=False,
                                   autorange="reversed", scaleanchor="x")
        annotations.append(dict(text=f"class {plot_text(class_names[k])}", x=x0 + w / 2, y=y1, xref="paper", yref="paper",
                                xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=font_size)))
    layout["annotations"] = annotations
    return theme.figure_spec(data, layout, f"{value_label} of each class as an {image_shape[0]}×{image_shape[1]} image",
                font_size, 260 * rows + 60)


def likelihood_figure(loglik: Sequence[float], objective: Sequence[float], lams: Sequence[float],
                      t_sel: int | None = None, font_size: int = 16, height: int = 430) -> dict:
    """Log-likelihood and MAP objective against iteration (two panels, shared x); any decrease is flagged."""
    ll = np.asarray(loglik, dtype=float)
    ob = np.asarray(objective, dtype=float)
    T = len(ll)
    x = list(range(T))
    # the MAP objective includes log p(θ | λ): a λ change mid-run changes the function EM climbs, so the
    # line is broken there and each piece is a climb of its own
    starts = [t for t in range(1, T) if lams[t] != lams[t - 1]]
    ox, oy = [], []
    for t in range(T):
        if t in starts:
            ox.append(None)
            oy.append(None)
        ox.append(t)
        oy.append(float(ob[t]) if np.isfinite(ob[t]) else None)
    data = [dict(type="scatter", x=ox, y=oy, mode="lines+markers", name="objective", connectgaps=False,
                 line=dict(color="#0072B2", width=3), xaxis="x", yaxis="y"),
            dict(type="scatter", x=x, y=theme.floats(ll), mode="lines+markers", name="log-likelihood",
                 line=dict(color="#009E73", width=3), xaxis="x2", yaxis="y2")]
    title = ("MAP objective (never goes down)" if not starts
             else "MAP objective (climbs within each λ)")
    # the panel titles end at the plot's right edge: in a third of a laptop's page the top one is wider than
    # the plot, and centred on it, it ran off the chart's right side; aligned right it uses the margin of
    # the y ticks on the left instead
    annotations = [dict(text=title, x=1.0, y=1.0, xref="paper", yref="paper",
                        xanchor="right", yanchor="bottom", showarrow=False, font=dict(size=font_size)),
                   dict(text="log-likelihood", x=1.0, y=0.44, xref="paper", yref="paper",
                        xanchor="right", yanchor="bottom", showarrow=False, font=dict(size=font_size))]
    bad = decreases(ob, lams)
    if bad:
        data.append(dict(type="scatter", x=bad, y=theme.floats(ob[bad]), mode="markers", name="objective decreased!",
                         marker=dict(symbol="x", size=16, color=theme.WARN, line=dict(width=2)), xaxis="x", yaxis="y"))
        annotations.append(dict(x=bad[0], y=float(ob[bad[0]]), xref="x", yref="y", text="⚠ objective went DOWN",
                                showarrow=True, arrowcolor=theme.WARN, font=dict(color=theme.WARN_TEXT, size=font_size)))
    dips = decreases(ll, lams)
    if dips:
        data.append(dict(type="scatter", x=dips, y=theme.floats(ll[dips]), mode="markers", name="log-lik dipped",
                         marker=dict(symbol="triangle-down", size=13, color=theme.WARN), xaxis="x2", yaxis="y2"))
    shapes = []
    if t_sel is not None:
        shapes += theme.iteration_marker(t_sel, "x", "y domain") + theme.iteration_marker(t_sel, "x2", "y2 domain")
    for t in starts:
        for xr, yr in (("x", "y domain"), ("x2", "y2 domain")):
            shapes.append(theme.vline(t - 0.5, dict(color="#555555", dash="dash", width=1.5), xr, yr))
        annotations.append(dict(x=t - 0.5, y=0.98, xref="x", yref="paper", text=f"λ→{lams[t]:g}", showarrow=False,
                                xanchor="left", yanchor="top", font=dict(size=font_size - 3, color="#555555")))
    ticks = theme.int_ticks(T)
    layout = dict(shapes=shapes, annotations=annotations, showlegend=bool(bad or dips),
                  xaxis=dict(anchor="y", domain=[0.0, 1.0], matches="x2", showticklabels=False, **ticks),
                  yaxis=dict(anchor="x", domain=[0.56, 1.0]),
                  xaxis2=dict(anchor="y2", domain=[0.0, 1.0], title=dict(text="iteration t"), **ticks),
                  yaxis2=dict(anchor="x2", domain=[0.0, 0.44]))
    return theme.figure_spec(data, layout, "Does EM climb?", font_size, height)


#: the baselines' look on the accuracy chart (Okabe–Ito colours, a dash each: told apart without colour)
MAJORITY_LINE = dict(color="#666666", dash="dot", width=2.5)
AT_LAMBDA_LINE = dict(color="#D55E00", dash="dash", width=3)
CV_LINE = dict(color="#009E73", dash="dashdot", width=3)


def _reference_lines(ref, T: int, font_size: int) -> tuple[list, list, list, list]:
    """The accuracy chart's baselines from a :class:`nblab.numbers.Reference`, each named with its accuracy:
    supervised NB at each λ segment's λ (a step at every λ change, each segment labelled), at the λ chosen by
    leave-one-out, and the majority class. Returns (traces, shapes, annotations, the levels drawn)."""
    data, shapes, annotations, levels = [], [], [], []
    right = max(T - 1, 0) + 0.5

    def flat(value, name, line):
        levels.append(value)
        data.append(dict(type="scatter", x=[-0.5, right], y=[value, value], mode="lines", name=name, line=line,
                         hovertemplate=f"{name}<extra></extra>"))

    segs = [s for s in ref.segments if s[3] is not None and np.isfinite(s[3])]
    if segs:
        xs, ys = [], []
        for a, b, lam, v in segs:
            xs += [a - 0.5, b + 0.5, None]
            ys += [v, v, None]
            levels.append(v)
        name = (f"NB at λ = {segs[0][2]:g}: {segs[0][3]:.1%}" if len(segs) == 1
                else "NB at each segment's λ")
        data.append(dict(type="scatter", x=xs[:-1], y=ys[:-1], mode="lines", name=name, line=AT_LAMBDA_LINE,
                         hovertemplate="supervised NB at this segment's λ: %{y:.1%}<extra></extra>"))
        if len(segs) > 1:
            for a, b, lam, v in segs:
                annotations.append(dict(x=(a + b) / 2, y=v, xref="x", yref="y", text=f"λ={lam:g}: {v:.1%}",
                                        showarrow=False, yanchor="bottom", bgcolor="rgba(255,255,255,0.85)",
                                        font=dict(size=font_size - 3, color=AT_LAMBDA_LINE["color"])))
            for a, _, lam, _ in segs[1:]:
                shapes.append(theme.vline(a - 0.5, dict(color="#555555", dash="dash", width=1.5)))
    if ref.cv is not None and np.isfinite(ref.cv):
        flat(ref.cv, f"NB at λ = {ref.cv_lambda:g} (leave-one-out): {ref.cv:.1%}", CV_LINE)
    if ref.majority is not None and np.isfinite(ref.majority):
        flat(ref.majority, f"majority class: {ref.majority:.1%}", MAJORITY_LINE)
    return data, shapes, annotations, levels


def accuracy_figure(acc: Sequence[float], baseline: float | None, t_sel: int | None = None,
                    font_size: int = 16, height: int = 330, n_hidden: int | None = None, ref=None) -> dict:
    """Accuracy on the hidden labels against iteration, with the supervised baselines.

    ``ref`` (a :class:`nblab.numbers.Reference`) draws each baseline, named with its accuracy: the majority
    class, supervised NB at each λ segment's λ (a step at every λ change mid-run: each segment is compared
    with supervised NB at its own λ) and supervised NB at the λ chosen by leave-one-out on the labelled rows.
    Without it, ``baseline`` is drawn as one "supervised only" line."""
    acc = np.asarray(acc, dtype=float)
    T = len(acc)
    data = [dict(type="scatter", x=list(range(T)), y=theme.floats(acc), mode="lines+markers", name="EM",
                 line=dict(color="#0072B2", width=3))]
    shapes, annotations = [], []
    levels = [baseline] if ref is None else []
    if ref is None and baseline is not None and np.isfinite(baseline):
        line = dict(color=theme.WARN, dash="dash", width=3)
        shapes.append(dict(type="line", x0=0, x1=1, xref="x domain", y0=baseline, y1=baseline, yref="y", line=line))
        data.append(dict(type="scatter", x=[None], y=[None], mode="lines", name=f"supervised only: {baseline:.1%}",
                         line=line))
    elif ref is not None:
        extra, shapes, annotations, levels = _reference_lines(ref, T, font_size)
        data += extra
    shapes += theme.iteration_marker(t_sel)
    finite = [v for v in levels if v is not None and np.isfinite(v)]
    lo = np.nanmin(np.r_[acc, finite]) if (len(acc) or finite) else 0.0
    lo = 0.0 if not np.isfinite(lo) else max(0.0, min(0.5, float(lo) - 0.05))
    # two lines: a lesson chart is a third of a projector page, too narrow for both on one
    xtitle = f"iteration t<br>({n_hidden} hidden documents)" if n_hidden else "iteration t"
    layout = dict(shapes=shapes, annotations=annotations,
                  yaxis=dict(title=dict(text="accuracy"), tickformat=".0%", range=[lo, 1.0]),
                  xaxis=dict(title=dict(text=xtitle), **theme.int_ticks(T)))
    if ref is not None and T:
        layout["xaxis"]["range"] = [-0.5, T - 0.5]
    if ref is None:  # "EM" and "supervised only: 87.7 %" take two legend rows in a third of the page
        rows = 2 if len(data) > 1 else 1
    else:  # every line is named with its accuracy: rows counted from the names
        rows = None
    return theme.figure_spec(data, layout, "Accuracy on hidden labels", font_size, height, legend_rows=rows)


def truth_figure(true_mat: np.ndarray, est_mat: np.ndarray, class_names: Sequence[str],
                 value_label: str = "β", font_size: int = 16, height: int = 420) -> dict:
    """Scatter of true vs estimated parameters (clusters already aligned)."""
    tm = np.asarray(true_mat, dtype=float)
    em = np.asarray(est_mat, dtype=float)
    data = [dict(type="scatter", x=theme.floats(tm[:, k]), y=theme.floats(em[:, k]), mode="markers", name=plot_text(name),
                 marker=dict(color=theme.class_color(k), size=9, opacity=0.8))
            for k, name in enumerate(class_names)]
    lo = float(min(tm.min(), em.min(), 0.0))
    hi = float(max(tm.max(), em.max())) * 1.08
    data.append(dict(type="scatter", x=[lo, hi], y=[lo, hi], mode="lines", name="perfect",
                     line=dict(color=theme.GREY, dash="dot")))
    rmse = float(np.sqrt(np.mean((tm - em) ** 2)))
    layout = dict(xaxis=dict(title=dict(text=f"true {value_label}"), range=[lo, hi]),
                  yaxis=dict(title=dict(text=f"estimated {value_label}"), range=[lo, hi], scaleanchor="x"))
    return theme.figure_spec(data, layout, f"Estimate vs truth (RMSE {rmse:.3f})", font_size, height)


def responsibility_histogram(resp_hidden: np.ndarray, class_names, font_size: int = 16,
                                  height: int = 320) -> dict:
    """One histogram per class of r_ik over the
    hidden rows in bins of 0.05; with two classes only the second (the first is its mirror image)."""
    r = np.asarray(resp_hidden, dtype=float)
    data = []
    for k, name in enumerate(class_names):
        if len(class_names) == 2 and k == 0:
            continue
        counts, edges = np.histogram(r[:, k], bins=20, range=(0.0, 1.0))
        data.append(dict(type="bar", x=((edges[:-1] + edges[1:]) / 2).tolist(), y=counts.tolist(), width=0.05 * 0.9,
                         name=f"r(· = {plot_text(name)})", marker=dict(color=theme.class_color(k)), opacity=0.75))
    layout = dict(barmode="overlay", xaxis=dict(title=dict(text="responsibility r_ik"), range=[0, 1]),
                  yaxis=dict(title=dict(text="documents")))
    return theme.figure_spec(data, layout, "Responsibilities of the hidden documents", font_size, height)
