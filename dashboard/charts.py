"""Pure functions: arrays -> plotly figure specs. No st.* calls here.

Every figure is a plain dict ``{"data": [...], "layout": {...}}`` (what plotly.js
reads). Building a ``go.Figure`` validates every property on every assignment, and
that was ~60 % of the server's time per rerun of the lesson page; a dict costs
next to nothing. ``tests/app/test_charts.py`` validates every spec with ``go.Figure``
so a typo still fails a test. Display them with ``figure(spec)`` (below).

Large readable fonts (pass font_size), the Okabe-Ito colour-blind-safe palette,
and one fixed colour per class everywhere (class k -> CLASS_COLORS[k]).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.derive import plot_text  # names from the data are chart text, never HTML
from nbcore.em import decreases as _em_decreases

# Okabe & Ito (2008) colour-blind-safe palette, extended with Tol's muted colours for K > 8
CLASS_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                "#D55E00", "#F0E442", "#000000", "#882255", "#999933"]
WARN = "#D55E00"
GREY = "#777777"

# plotly's default template, as go.Figure() put it in every figure before (same look in the
# browser). A constant computed once at import, never mutated.
_TEMPLATE = go.Figure().to_dict()["layout"]["template"]


class _Spec(go.Figure):
    """A go.Figure that hands its prepared dict spec to st.plotly_chart unchanged.

    st.plotly_chart runs ``plotly.tools.return_figure_from_figure_or_data``: a plain dict
    is re-validated there (``Figure(**spec)``, tens of ms per chart), a go.Figure is
    only asked for ``to_dict()``. The spec was validated by tests/app/test_charts.py."""

    def __init__(self, spec: dict):  # noqa: super-init-not-called
        # go.Figure.__init__ is skipped on purpose (1-2 ms per chart): Streamlit only checks
        # isinstance(..., BaseFigure) and calls to_dict(); nothing else of the object is used.
        object.__setattr__(self, "_nb_spec", spec)

    def to_dict(self) -> dict:
        return self._nb_spec

    def __repr__(self) -> str:
        return f"<chart spec: {len(self._nb_spec['data'])} traces>"


def figure(spec: dict) -> go.Figure:
    """What to pass to st.plotly_chart: the spec, without a second validation."""
    return _Spec(spec)


def class_color(k: int) -> str:
    return CLASS_COLORS[k % len(CLASS_COLORS)]


# Width of a chart, in px, on a 1280×720 projector (the narrowest screen the app is laid out for):
# the page's main column is about 820 px wide (920 px in classroom mode, whose sidebar text is
# wrapped instead); ``per_row`` charts share it, 16 px apart. The lesson puts three charts in a
# row (two in classroom mode). Chart text is wrapped, and legend rows counted, for this width.
MAIN_WIDTH = {False: 820, True: 920}


def chart_width(font_size: int, per_row: int = 1, share: float = 1.0) -> int:
    """Expected px width of one of ``per_row`` charts in a ``share`` of the main column."""
    return int((MAIN_WIDTH[font_size > 15] * share - 16 * (per_row - 1)) / per_row)


def legend_rows(names: Sequence[str], font_size: int, width: int) -> int:
    """Rows a horizontal legend of ``names`` takes in a chart ``width`` px wide: plotly puts
    entries (symbol + text) side by side and starts a new row when the next one would pass
    the plot area's width (the chart less about 60 px of y ticks)."""
    room = max(120, width - 60)
    rows, used = (1 if names else 0), 0.0
    for name in names:
        w = 45 + 0.55 * font_size * len(str(name))
        if used and used + w > room:
            rows, used = rows + 1, 0.0
        used += w
    return rows


def _legend_names(data: list) -> list[str]:
    return [t["name"] for t in data if t.get("name") and t.get("showlegend", True) is not False]


def _fig(data: list, layout: dict, title: str, font_size: int, height: int, legend_rows: int | None = None,
         width: int | None = None) -> dict:
    """Title on its own band at the top, the legend in a band of its own under it (never overlapping).

    The legend is placed in container coordinates right under the title band: plotly then
    reserves its real height (however many rows it wraps to in the browser) above the plot, so a
    legend never covers the title. ``legend_rows`` (default: counted for a chart ``width`` px
    wide, a lesson chart's width by default) sizes the band and makes the figure that much taller."""
    if width is None:
        width = chart_width(font_size, 2 if font_size > 15 else 3)
    if legend_rows is None:
        legend_rows = max(1, legend_rows_of(data, font_size, width))
    title_band = int((font_size + 4) * 1.6) + 8
    legend_band = int(font_size * 1.7) * legend_rows + 6
    total = height + max(0, font_size - 15) * 12 + int(font_size * 1.7) * max(0, legend_rows - 1)
    layout = dict(layout)
    layout.update(
        template=_TEMPLATE,
        title=dict(text=title, font=dict(size=font_size + 4), y=1.0, yref="container", yanchor="top",
                   pad=dict(t=8)),
        font=dict(size=font_size),
        height=total,  # bigger fonts (classroom) and more legend rows get a taller figure
        margin=dict(l=10, r=10, t=title_band + legend_band, b=10),
        legend=dict(orientation="h", yref="container", yanchor="top", y=_unit(1 - title_band / total),
                    xanchor="left", x=0.0, font=dict(size=font_size)),
    )
    for name in ("xaxis", "yaxis"):  # readable ticks unless a chart chose its own
        axis = dict(layout.get(name) or {})
        axis.setdefault("tickfont", {})
        axis["tickfont"] = {"size": font_size - 1, **axis["tickfont"]}
        layout[name] = axis
    return {"data": data, "layout": layout}


def legend_rows_of(data: list, font_size: int, width: int) -> int:
    """legend_rows() of the traces of a dict spec that show in the legend."""
    return legend_rows(_legend_names(data), font_size, width)


def percent_ticks(values: Sequence[float], n_ticks: int = 5) -> dict:
    """Axis properties for fractions shown as percentages: a 1-2-5 tick step giving about
    ``n_ticks`` ticks over the data's range, and as many decimals as that step needs, so no two
    ticks read the same (".0%" over 79.2 %–79.9 % would print 79 % five times)."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v)]
    span = float(v.max() - v.min()) if v.size else 1.0
    span = max(span, 0.001)  # one value, or all equal: ticks 0.1 % apart around it
    raw = span / n_ticks
    e = np.floor(np.log10(raw))
    step = min((m * 10 ** e for m in (1, 2, 5, 10) if m * 10 ** e >= raw), default=10 ** (e + 1))
    decimals = max(0, int(-np.floor(np.log10(step * 100) + 1e-9)))
    return dict(tickformat=f".{decimals}%", dtick=float(step), tick0=0.0)


def _int_ticks(T: int) -> dict:
    """Whole-number iteration ticks (no 0.5): x-axis properties."""
    return dict(tick0=0, dtick=max(1, int(np.ceil(max(T - 1, 1) / 8))), range=[-0.3, max(T - 1, 1) + 0.3])


def _vline(x: float, line: dict, xref: str = "x", yref: str = "y domain") -> dict:
    return dict(type="line", x0=x, x1=x, xref=xref, y0=0, y1=1, yref=yref, line=line)


def _iteration_marker(t_sel: int | None, xref: str = "x", yref: str = "y domain") -> list:
    return [] if t_sel is None else [_vline(t_sel, dict(color=GREY, dash="dot", width=2), xref, yref)]


def _floats(a) -> list:
    """Plain floats for JSON (NaN -> None, which plotly draws as a gap)."""
    a = np.asarray(a, dtype=float)
    return [None if not np.isfinite(v) else float(v) for v in a.tolist()] if not np.isfinite(a).all() \
        else a.tolist()


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
    data = [dict(type="scatter", x=x, y=_floats(alphas[:, k]), name=plot_text(name), mode="lines+markers",
                 line=dict(color=class_color(k), width=3), marker=dict(size=6))
            for k, name in enumerate(class_names)]
    shapes = _iteration_marker(t_sel)
    annotations = []
    for t, smoothing in lam_changes:
        shapes.append(_vline(t - 0.5, dict(color="#555555", dash="dash", width=1.5)))
        annotations.append(dict(x=t - 0.5, y=1.0, yref="paper", text=f"λ→{smoothing:g}", showarrow=False,
                                yanchor="bottom", font=dict(size=font_size - 2, color="#555555")))
    top = 1.0 if alphas.shape[1] <= 3 else min(1.0, float(np.nanmax(alphas)) * 1.25 + 0.02)
    layout = dict(shapes=shapes, annotations=annotations,
                  xaxis=dict(title=dict(text="iteration t"), **_int_ticks(T)),
                  yaxis=dict(title=dict(text="α (class prior)"), range=[0, top]))
    return _fig(data, layout, "Class priors α", font_size, height)  # _fig counts the legend's rows


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
        data.append(dict(type="bar", y=(ypos + off).tolist(), x=_floats(cur[idx, k]), orientation="h",
                         width=width * 0.95, name=plot_text(class_names[k]), marker=dict(color=class_color(k)),
                         customdata=names,
                         hovertemplate="%{customdata}: %{x:.3f}<extra>" + plot_text(class_names[k]) + "</extra>"))
        if p_all is not None:
            data.append(dict(type="scatter", y=(ypos + off).tolist(), x=_floats(p_all[idx, k]), mode="markers",
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
    return _fig(data, layout, title or f"Features that separate the classes most (top {n})",
                font_size, min(height, 950), width=chart_width(font_size, 1, 0.6))


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
    return _fig([trace], layout, title + ", sorted by separation", font_size, height)


def _unit(v: float) -> float:
    """A subplot domain end: rounding noise (-5e-17) must not leave [0, 1]."""
    return min(1.0, max(0.0, round(v, 10)))


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
        layout["xaxis" + n] = dict(anchor="y" + n, domain=[_unit(x0), _unit(x0 + w)], showticklabels=False)
        layout["yaxis" + n] = dict(anchor="x" + n, domain=[_unit(y1 - h), _unit(y1)], showticklabels=False,
                                   autorange="reversed", scaleanchor="x")
        annotations.append(dict(text=f"class {plot_text(class_names[k])}", x=x0 + w / 2, y=y1, xref="paper", yref="paper",
                                xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=font_size)))
    layout["annotations"] = annotations
    return _fig(data, layout, f"{value_label} of each class as an {image_shape[0]}×{image_shape[1]} image",
                font_size, 260 * rows + 60)


def likelihood_figure(loglik: Sequence[float], objective: Sequence[float], lams: Sequence[float],
                      t_sel: int | None = None, font_size: int = 16, height: int = 430) -> dict:
    """Log-likelihood and MAP objective against iteration (two panels, shared x); any decrease is flagged."""
    ll = np.asarray(loglik, dtype=float)
    ob = np.asarray(objective, dtype=float)
    T = len(ll)
    x = list(range(T))
    data = [dict(type="scatter", x=x, y=_floats(ob), mode="lines+markers", name="objective",
                 line=dict(color="#0072B2", width=3), xaxis="x", yaxis="y"),
            dict(type="scatter", x=x, y=_floats(ll), mode="lines+markers", name="log-likelihood",
                 line=dict(color="#009E73", width=3), xaxis="x2", yaxis="y2")]
    annotations = [dict(text="MAP objective (never goes down)", x=0.5, y=1.0, xref="paper", yref="paper",
                        xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=font_size)),
                   dict(text="log-likelihood", x=0.5, y=0.44, xref="paper", yref="paper",
                        xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=font_size))]
    bad = decreases(ob, lams)
    if bad:
        data.append(dict(type="scatter", x=bad, y=_floats(ob[bad]), mode="markers", name="objective decreased!",
                         marker=dict(symbol="x", size=16, color=WARN, line=dict(width=2)), xaxis="x", yaxis="y"))
        annotations.append(dict(x=bad[0], y=float(ob[bad[0]]), xref="x", yref="y", text="⚠ objective went DOWN",
                                showarrow=True, arrowcolor=WARN, font=dict(color=WARN, size=font_size)))
    dips = decreases(ll, lams)
    if dips:
        data.append(dict(type="scatter", x=dips, y=_floats(ll[dips]), mode="markers", name="log-lik dipped",
                         marker=dict(symbol="triangle-down", size=13, color=WARN), xaxis="x2", yaxis="y2"))
    shapes = []
    if t_sel is not None:
        shapes += _iteration_marker(t_sel, "x", "y domain") + _iteration_marker(t_sel, "x2", "y2 domain")
    for t in range(1, T):
        if lams[t] != lams[t - 1]:
            for xr, yr in (("x", "y domain"), ("x2", "y2 domain")):
                shapes.append(_vline(t - 0.5, dict(color="#555555", dash="dash", width=1.5), xr, yr))
    ticks = _int_ticks(T)
    layout = dict(shapes=shapes, annotations=annotations, showlegend=bool(bad or dips),
                  xaxis=dict(anchor="y", domain=[0.0, 1.0], matches="x2", showticklabels=False, **ticks),
                  yaxis=dict(anchor="x", domain=[0.56, 1.0]),
                  xaxis2=dict(anchor="y2", domain=[0.0, 1.0], title=dict(text="iteration t"), **ticks),
                  yaxis2=dict(anchor="x2", domain=[0.0, 0.44]))
    return _fig(data, layout, "Does EM climb?", font_size, height)


def accuracy_figure(acc: Sequence[float], baseline: float | None, t_sel: int | None = None,
                    font_size: int = 16, height: int = 330, n_hidden: int | None = None) -> dict:
    """Accuracy on the hidden labels against iteration, with the supervised-only baseline."""
    acc = np.asarray(acc, dtype=float)
    data = [dict(type="scatter", x=list(range(len(acc))), y=_floats(acc), mode="lines+markers", name="EM",
                 line=dict(color="#0072B2", width=3))]
    shapes = []
    if baseline is not None and np.isfinite(baseline):
        line = dict(color=WARN, dash="dash", width=3)
        shapes.append(dict(type="line", x0=0, x1=1, xref="x domain", y0=baseline, y1=baseline, yref="y", line=line))
        data.append(dict(type="scatter", x=[None], y=[None], mode="lines", name=f"supervised only: {baseline:.1%}",
                         line=line))
    shapes += _iteration_marker(t_sel)
    lo = np.nanmin(np.r_[acc, [baseline if baseline is not None else np.nan]]) if len(acc) else 0.0
    lo = 0.0 if not np.isfinite(lo) else max(0.0, min(0.5, float(lo) - 0.05))
    # two lines: a lesson chart is a third of a projector page, too narrow for both on one
    xtitle = f"iteration t<br>({n_hidden} hidden documents)" if n_hidden else "iteration t"
    layout = dict(shapes=shapes,
                  yaxis=dict(title=dict(text="accuracy"), tickformat=".0%", range=[lo, 1.0]),
                  xaxis=dict(title=dict(text=xtitle), **_int_ticks(len(acc))))
    # "EM" and "supervised only: 87.7 %" take two legend rows in a third of the page: room for both
    return _fig(data, layout, "Accuracy on hidden labels", font_size, height, legend_rows=2 if len(data) > 1 else 1)


def truth_figure(true_mat: np.ndarray, est_mat: np.ndarray, class_names: Sequence[str],
                 value_label: str = "β", font_size: int = 16, height: int = 420) -> dict:
    """Scatter of true vs estimated parameters (clusters already aligned)."""
    tm = np.asarray(true_mat, dtype=float)
    em = np.asarray(est_mat, dtype=float)
    data = [dict(type="scatter", x=_floats(tm[:, k]), y=_floats(em[:, k]), mode="markers", name=plot_text(name),
                 marker=dict(color=class_color(k), size=9, opacity=0.8))
            for k, name in enumerate(class_names)]
    lo = float(min(tm.min(), em.min(), 0.0))
    hi = float(max(tm.max(), em.max())) * 1.08
    data.append(dict(type="scatter", x=[lo, hi], y=[lo, hi], mode="lines", name="perfect",
                     line=dict(color=GREY, dash="dot")))
    rmse = float(np.sqrt(np.mean((tm - em) ** 2)))
    layout = dict(xaxis=dict(title=dict(text=f"true {value_label}"), range=[lo, hi]),
                  yaxis=dict(title=dict(text=f"estimated {value_label}"), range=[lo, hi], scaleanchor="x"))
    return _fig(data, layout, f"Estimate vs truth (RMSE {rmse:.3f})", font_size, height)
