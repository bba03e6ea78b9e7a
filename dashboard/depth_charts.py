"""Pure chart builders for the depth views (arrays -> plotly figures; no st.* calls).

Same conventions as charts.py: large fonts via font_size, one fixed colour per class
(charts.class_color), the Okabe-Ito palette.
"""
from __future__ import annotations

import math

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.charts import GREY, WARN, _int_ticks, _unit, class_color, legend_rows, percent_ticks
from dashboard.derive import plot_text  # names from the data are chart text, never HTML

SUP_COLOR = "#D55E00"   # supervised-only NB
EM_COLOR = "#0072B2"    # EM
A_COLOR = "#0072B2"     # side-by-side run A
B_COLOR = "#E69F00"     # side-by-side run B


def _chars(width: int, font_px: int) -> int:
    """Characters that fit on one line ``width`` px wide at ``font_px`` (about half the font size
    per character: a safe bound for the app's sans-serif font)."""
    return max(12, int((width - 20) / (0.5 * font_px)))


def _wrap(text: str, chars: int | None) -> tuple[str, int]:
    """(text, lines): text longer than ``chars`` characters broken at spaces onto as few lines of
    about equal length as fit (None: left on one line)."""
    if chars is None or len(text) <= chars or "<br>" in text or " " not in text:
        return text, text.count("<br>") + 1
    words = text.split(" ")

    def fill(limit: int) -> list[str]:
        lines, line = [], ""
        for word in words:
            if line and len(line) + 1 + len(word) > limit:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        return lines + [line]

    need = -(-len(text) // chars)
    lines = fill(-(-len(text) // need) + 2)  # balanced lines, unless that takes one more line than needed
    if len(lines) > need:
        lines = fill(chars)
    return "<br>".join(lines), len(lines)


def _legend_rows(fig: go.Figure, font_size: int, width: int | None = None) -> int:
    """Rows a horizontal legend needs: it wraps when its entries are wider than the chart (``width``
    px; by default about 430 px with two charts per row in classroom mode, 520 px otherwise)."""
    shown = [t for t in fig.data if t.name and t.showlegend is not False]
    if any(getattr(t, "legendgroup", None) for t in shown):
        return len(shown)  # plotly stacks legend groups one under the other: worst case, a row each
    if width is None:
        width = 430 + 60 if font_size > 15 else 520 + 60
    return legend_rows([t.name for t in shown], font_size, width)


def _layout(fig: go.Figure, title: str, font_size: int, height: int, legend_right: bool = False,
            width: int | None = None, **kw) -> go.Figure:
    """Title in a band of its own at the top, the legend in a band under it (never overlapping),
    or beside the plot (legend_right).

    ``width``: the chart's expected width in px on a 1280×720 screen (charts.chart_width), for
    wrapping the title and axis titles and counting legend rows. The legend above the plot is
    placed in container coordinates right under the title band, so plotly reserves its real
    height above the plot whatever it wraps to. Tick labels drawn above the plot (an x axis with
    side="top") get a band of their own under the title and legend: plotly's axis automargin
    only makes sure they fit in the figure, not that they clear the title."""
    below = legend_right and font_size > 15  # classroom: a legend beside the plot would squeeze it: below it
    legend_right = legend_right and not below
    # text wraps for the chart's width; without one, at classroom font sizes (> 15) a chart is
    # taken to be about 430 px wide (30 characters of title, 34 of axis title) and, at smaller
    # sizes, full width (nothing wrapped)
    title, lines = _wrap(title, _chars(width, font_size + 4) if width else (30 if font_size > 15 else None))
    line = int((font_size + 4) * 1.35)
    title_band = line * lines + 10
    # a horizontal legend wraps onto more rows when its entries are wider than the chart (about
    # 430 px with two charts per row in classroom mode): give it a band that tall
    rows = 0 if (kw.get("showlegend") is False or legend_right) else _legend_rows(fig, font_size, width)
    legend_band = int(font_size * 1.5) * rows + 8
    top_ticks = fig.layout.xaxis.side == "top"
    tick_band = 0
    if top_ticks and fig.layout.xaxis.showticklabels is not False:
        tick_size = fig.layout.xaxis.tickfont.size or font_size
        tick_band = int(tick_size * 1.6) + 4  # one line of tick labels and the tick length
    total = height + line * (lines - 1) + int(font_size * 1.5) * max(0, rows - 1) + tick_band
    fig.update_layout(
        # plotly anchors a multi-line title's first line at the top: push it down by the extra lines
        title=dict(text=title, font=dict(size=font_size + 4), y=1.0, yref="container", yanchor="top",
                   pad=dict(t=8 + line * (lines - 1))),
        font=dict(size=font_size),
        height=total,
        margin=dict(l=10, r=10, t=title_band + legend_band + tick_band, b=10),
        legend=(dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.01, font=dict(size=font_size))
                if legend_right else
                dict(orientation="h", yref="container", yanchor="top", y=_unit(1 - title_band / total),
                     xanchor="right", x=1.0, font=dict(size=font_size))),
        template="plotly_white",
        **kw,
    )
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        text = axis.title.text if axis.title is not None else None
        if text:
            axis.title.text = _wrap(text, _chars(width - 40, font_size) if width else
                                    (34 if font_size > 15 else None))[0]
    return _legend_below(fig) if below else fig


def _legend_below(fig: go.Figure) -> go.Figure:
    """Legend under the plot (long titles and long legends do not fit on one line above it), in a
    band of its own at the bottom of the figure: below the tick labels and the x-axis title,
    whatever the font size (classroom mode) or the number of legend rows."""
    fs = int(fig.layout.font.size or 16)
    xtitle = fig.layout.xaxis.title.text if fig.layout.xaxis.title is not None else None
    x_lines = 0 if not xtitle else str(xtitle).count("<br>") + 1
    rows = _legend_rows(fig, fs)
    band = int(fs * 1.5) * rows + 8
    bottom = int(fs * 1.6) + int(fs * 1.35) * x_lines + band + 12
    fig.update_layout(legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.0, xanchor="left", x=0.0))
    top = int(fig.layout.margin.t or 0) - (int(fs * 1.5) * rows if rows else 0)  # _layout's legend band: unused
    fig.update_layout(height=fig.layout.height + band, margin=dict(b=bottom, t=max(top, int(fs * 2))))
    return fig


def _pct(v) -> str:
    return "—" if v is None or not np.isfinite(v) else f"{v:.1%}"


# ---- 1. posterior inspector ------------------------------------------------------------

def posterior_figure(posterior: Sequence[float], class_names: Sequence[str], font_size: int = 16,
                     height: int = 260, title: str = "p(y | x)") -> go.Figure:
    p = np.asarray(posterior, dtype=float)
    fig = go.Figure(go.Bar(x=p, y=[plot_text(c) for c in class_names], orientation="h",
                           marker=dict(color=[class_color(k) for k in range(len(p))]),
                           text=[f"{v:.3f}" for v in p], textposition="auto",
                           hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    fig.update_xaxes(range=[0, 1], title="posterior probability")
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, title, font_size, max(height, 80 + 40 * len(p)), showlegend=False)


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
        colors.append(GREY if kind == "prior" else (color_a if val > 0 else color_b))
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
    fig = _layout(fig, f"Which words push towards {name_a} (right) or {name_b} (left)", font_size, height + 40,
                  barmode="overlay")
    # legend under the plot: three entries do not fit beside the title at projector font sizes
    return _legend_below(fig)


# ---- 2. smoothing explorer -------------------------------------------------------------

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
                                     line=dict(color=class_color(k), dash=dashes[w % len(dashes)], width=3),
                                     marker=dict(size=7),
                                     customdata=np.asarray(lams, dtype=float),
                                     hovertemplate=f"λ=%{{customdata:.3g}}: β({word} | {cname})" + " = %{y:.3f}<extra></extra>"))
    fig.add_hline(y=target, line=dict(color=GREY, dash="dot", width=2),
                  annotation_text=("½" if target == 0.5 else f"1/V = {target:.3g}") + " (λ → ∞)",
                  annotation_position="bottom left")
    fig.update_xaxes(type="log", title="smoothing λ (log scale; leftmost = 0)", tickvals=ticks, ticktext=text)
    fig.update_yaxes(title="β = p(word | class)", range=[-0.03, 1.03] if target == 0.5 else None)
    fig = _layout(fig, "β of a rare and a common word as λ grows", font_size, height, legend_right=True)
    return fig


def accuracy_vs_lambda_figure(lams: Sequence[float], acc_sup: Sequence, acc_em: Sequence,
                              font_size: int = 16, height: int = 430, n_hidden: int | None = None) -> go.Figure:
    x, ticks, text = _lam_axis(lams)
    fig = go.Figure()
    for name, acc, col in (("supervised NB (visible labels only)", acc_sup, SUP_COLOR), ("EM", acc_em, EM_COLOR)):
        y = np.array([np.nan if a is None else a for a in acc], dtype=float)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers", name=name, line=dict(color=col, width=3),
                                 marker=dict(size=8), customdata=np.asarray(lams, dtype=float),
                                 hovertemplate="λ=%{customdata:.3g}: %{y:.1%}<extra>" + name + "</extra>"))
    fig.update_xaxes(type="log", title="smoothing λ (log scale; leftmost = 0)", tickvals=ticks, ticktext=text)
    fig.update_yaxes(title="accuracy", tickformat=".0%", range=[0, 1.02])
    title = "Accuracy on the hidden labels" + (f" ({n_hidden} documents)" if n_hidden else "")
    return _layout(fig, title, font_size, height)


# ---- 3. symmetric trap ----------------------------------------------------------------

def resp_histogram_figure(resp_hidden: np.ndarray, class_names: Sequence[str], font_size: int = 16,
                          height: int = 330, width: int | None = None) -> go.Figure:
    """Distribution of p(y = k | x_i) over the hidden documents, one panel colour per class."""
    r = np.asarray(resp_hidden, dtype=float)
    K = r.shape[1] if r.ndim == 2 else len(class_names)
    fig = go.Figure()
    for k in range(K):
        fig.add_trace(go.Histogram(x=r[:, k], name=f"p({plot_text(class_names[k])} | x)", marker=dict(color=class_color(k)),
                                   opacity=0.75, xbins=dict(start=0, end=1.0001, size=0.02)))
    fig.add_vline(x=1.0 / K, line=dict(color=WARN, dash="dash", width=2), annotation_text=f"1/K = {1 / K:.3g}")
    fig.update_xaxes(title="responsibility p(y = k | x_i) of each hidden document", range=[0, 1])
    fig.update_yaxes(title="documents")
    return _layout(fig, "Responsibilities after the last E-step", font_size, height, width=width, barmode="overlay")


def beta_profiles_figure(beta: np.ndarray, feature_names: Sequence[str], class_names: Sequence[str],
                         font_size: int = 16, height: int = 330, max_features: int = 40,
                         width: int | None = None) -> go.Figure:
    """β_jk over the features, one line per class: identical lines = the symmetric point."""
    b = np.asarray(beta, dtype=float)[:max_features]
    fig = go.Figure()
    for k, c in enumerate(class_names):
        fig.add_trace(go.Scatter(x=[plot_text(f) for f in feature_names[: len(b)]], y=b[:, k], mode="lines+markers",
                                 name=plot_text(c), line=dict(color=class_color(k), width=3 + 2 * (len(class_names) - k)),
                                 marker=dict(size=8)))
    fig.update_yaxes(title="β = p(word | class)", range=[0, 1])
    fig.update_xaxes(title="word", tickangle=-45 if len(b) > 8 else 0)
    return _layout(fig, "β of each class (one line = no difference)", font_size, height, width=width)


def spread_figure(spreads: Sequence[float], font_size: int = 16, height: int = 330,
                  width: int | None = None) -> go.Figure:
    s = np.asarray(spreads, dtype=float)
    fig = go.Figure(go.Scatter(x=np.arange(len(s)), y=s, mode="lines+markers", line=dict(color=EM_COLOR, width=3),
                               name="max difference"))
    fig.update_xaxes(title="iteration t", rangemode="tozero")
    fig.update_yaxes(title="max_j,k,k' |β_jk − β_jk'|", rangemode="tozero")
    return _layout(fig, "How different are the classes?", font_size, height, width=width)


# ---- 4. restarts ----------------------------------------------------------------------

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
    colors = [WARN if i == best else EM_COLOR for i in range(n)]
    fig = go.Figure(go.Scatter(
        x=ob, y=ac, mode="markers+text", text=text, textposition="top center",
        marker=dict(size=sizes, color=colors, opacity=0.8, line=dict(width=1, color="white")),
        customdata=np.array(seeds), name="random starts",
        hovertemplate="start #%{customdata}<br>objective %{x:.2f}<br>accuracy %{y:.1%}<extra></extra>"))
    if 0 <= best < n:  # drawn again on top: other starts that ended at the same place would hide it
        fig.add_trace(go.Scatter(x=[ob[best]], y=[ac[best]], mode="markers", showlegend=False, hoverinfo="skip",
                                 marker=dict(size=22, color=WARN, line=dict(width=1, color="white"))))
    if selected is not None and 0 <= selected < n:
        fig.add_trace(go.Scatter(x=[ob[selected]], y=[ac[selected]], mode="markers", name="selected",
                                 marker=dict(size=30, color="rgba(0,0,0,0)", line=dict(width=3, color="#000000"))))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="highest objective",
                             marker=dict(size=16, color=WARN)))
    span = float(ob.max() - ob.min()) if n else 1.0
    pad = 0.08 * span if span > 0 else 1.0
    fig.update_xaxes(title="final MAP objective (higher = EM likes it more)", range=[ob.min() - pad, ob.max() + pad])
    fig.update_yaxes(title=acc_label, tickformat=".0%", range=[-0.02, 1.08])
    return _layout(fig, "Each random start: where EM stopped vs how good the classifier is", font_size, height)


# ---- 5. label switching -----------------------------------------------------------------

def confusion_figure(table: np.ndarray, row_names: Sequence[str], col_names: Sequence[str],
                     highlight: Sequence[tuple[int, int]] = (), font_size: int = 16, title: str = "",
                     height: int | None = None, x_title: str = "true label", y_title: str = "cluster",
                     width: int | None = None) -> go.Figure:
    """Count table as a heatmap; highlighted cells (the matching) get a thick outline."""
    t = np.asarray(table, dtype=float)
    R, C = t.shape
    fig = go.Figure(go.Heatmap(z=t, x=list(range(C)), y=[plot_text(r) for r in row_names],
                               colorscale="Blues", showscale=False,
                               text=[[f"{int(v)}" for v in row] for row in t], texttemplate="%{text}",
                               textfont=dict(size=font_size + (2 if R <= 4 else -2)),
                               customdata=[[plot_text(c) for c in col_names]] * R,
                               hovertemplate=y_title + " %{y}, " + x_title + " %{customdata}: %{z}<extra></extra>"))
    for r, c in highlight:
        fig.add_shape(type="rect", x0=c - 0.5, x1=c + 0.5, y0=r - 0.5, y1=r + 0.5,
                      line=dict(color=WARN, width=4))
    fig.update_xaxes(side="top", tickfont=dict(size=font_size),  # no axis title: it would collide with the title
                     ticktext=[plot_text(c) for c in col_names],
                     tickvals=list(range(C)))
    fig.update_yaxes(title=y_title, autorange="reversed", tickfont=dict(size=font_size))
    h = height or min(700, 140 + 60 * R)
    return _layout(fig, title, font_size, h, width=width)  # _layout adds a band for the column names on top


# ---- 6. label budget ------------------------------------------------------------------

def budget_figure(ns: Sequence[int], sup: dict, em: dict, font_size: int = 16, height: int = 480,
                  n_seeds: int | None = None, uw: float | None = None) -> go.Figure:
    """Accuracy against the number of labelled documents; mean line and min–max band over seeds.

    sup/em: {"mean": [...], "lo": [...], "hi": [...]} aligned with ns."""
    x = np.asarray(ns, dtype=float)
    fig = go.Figure()
    for name, d, col, fill in (("supervised NB (labelled only)", sup, SUP_COLOR, "rgba(213,94,0,0.18)"),
                               ("EM (+ the rest unlabelled" + (f", weight {uw:g})" if uw is not None else ")"),
                                em, EM_COLOR, "rgba(0,114,178,0.18)")):
        lo, hi = np.asarray(d["lo"], dtype=float), np.asarray(d["hi"], dtype=float)
        fig.add_trace(go.Scatter(x=np.r_[x, x[::-1]], y=np.r_[hi, lo[::-1]], fill="toself", fillcolor=fill,
                                 mode="lines", line=dict(width=0), hoverinfo="skip", showlegend=False,
                                 legendgroup=name))
        fig.add_trace(go.Scatter(x=x, y=d["mean"], mode="lines+markers", name=name, legendgroup=name,
                                 line=dict(color=col, width=3), marker=dict(size=9),
                                 hovertemplate="%{x} labelled: %{y:.1%}<extra>" + name + "</extra>"))
    fig.update_xaxes(type="log", title="number of labelled documents (log scale)", tickvals=list(x),
                     ticktext=[f"{int(v)}" for v in x])
    fig.update_yaxes(title="accuracy on the unlabelled documents", tickformat=".0%")
    band = f" — line: mean, band: min–max over {n_seeds} seeds" if n_seeds else ""
    return _layout(fig, "Label budget: what do unlabelled documents add?" + band, font_size, height)


# ---- 7. side by side ----------------------------------------------------------------------

def two_runs_figure(a: Sequence[float], b: Sequence[float], name_a: str, name_b: str, y_title: str,
                    title: str, font_size: int = 16, height: int = 360, percent: bool = False,
                    width: int | None = None) -> go.Figure:
    fig = go.Figure()
    for name, s, col, dash in ((name_a, a, A_COLOR, "solid"), (name_b, b, B_COLOR, "dash")):
        s = np.asarray(s, dtype=float)
        fig.add_trace(go.Scatter(x=np.arange(len(s)), y=s, mode="lines+markers", name=name,
                                 line=dict(color=col, width=3, dash=dash), marker=dict(size=7)))
    fig.update_xaxes(title="iteration t", **_int_ticks(max(len(a), len(b))))  # whole iterations only
    # percentages: a tick step and decimals for the range shown, so the tick labels differ
    fig.update_yaxes(title=y_title, **(percent_ticks(list(a) + list(b)) if percent else {}))
    return _layout(fig, title, font_size, height, width=width)


# ---- 8. sampling ------------------------------------------------------------------------

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
    return _layout(fig, title, font_size, 70 + cell * rows)


# ---- 9. Gaussian corner -----------------------------------------------------------------

def _normal_pdf(x, mu, var):
    return np.exp(-0.5 * (x - mu) ** 2 / var) / np.sqrt(2 * np.pi * var)


def gaussian_fit_figure(samples: Sequence[np.ndarray], class_names: Sequence[str], means: Sequence[float],
                        var_mle: Sequence[float], var_unb: Sequence[float], font_size: int = 16,
                        height: int = 460, x_title: str = "x", class_index: Sequence[int] | None = None) -> go.Figure:
    """Data of each class as a rug, with the fitted normal curves: solid = 1/N (MLE), dashed = 1/(N−1).

    A class with σ² = 0 (all values equal) has no curve: it is drawn as a vertical spike at its
    value, labelled as such. ``class_index`` gives each class's colour index (default 0, 1, …)."""
    idx = list(class_index) if class_index is not None else list(range(len(class_names)))
    allx = np.concatenate([np.asarray(s, dtype=float) for s in samples if len(s)]) if samples else np.zeros(1)
    positive = [v for v in var_unb if v > 0]
    sd = float(np.sqrt(max(positive))) if positive else max(1.0, 0.1 * float(np.ptp(allx)))
    lo, hi = float(allx.min()) - 3 * sd, float(allx.max()) + 3 * sd
    grid = np.linspace(lo, hi, 400)
    fig = go.Figure()
    peak = 0.0
    spikes = []
    for k, name in enumerate(class_names):
        col = class_color(idx[k])
        if var_mle[k] <= 0 or var_unb[k] <= 0:
            spikes.append(k)
            continue
        y1 = _normal_pdf(grid, means[k], var_mle[k])
        y2 = _normal_pdf(grid, means[k], var_unb[k])
        peak = max(peak, float(y1.max()), float(y2.max()))
        fig.add_trace(go.Scatter(x=grid, y=y1, mode="lines", line=dict(color=col, width=3),
                                 name=f"{name}: σ² = 1/N Σ (MLE)"))
        fig.add_trace(go.Scatter(x=grid, y=y2, mode="lines", line=dict(color=col, width=3, dash="dash"),
                                 name=f"{name}: σ² = 1/(N−1) Σ (unbiased)"))
    peak = peak or 1.0
    for k in spikes:
        fig.add_trace(go.Scatter(x=[means[k], means[k]], y=[0, peak * 1.05], mode="lines",
                                 line=dict(color=class_color(idx[k]), width=4),
                                 name=f"{class_names[k]}: all values = {means[k]:.6g} (σ² = 0: a spike, no curve)"))
    for k, name in enumerate(class_names):
        s = np.asarray(samples[k], dtype=float)
        fig.add_trace(go.Scatter(x=s, y=np.full(len(s), -0.06 * peak * (1 + 0.6 * k)), mode="markers",
                                 marker=dict(symbol="line-ns", size=22, color=class_color(idx[k]),
                                             line=dict(width=3, color=class_color(idx[k]))),
                                 name=f"{name}: data (N = {len(s)})",
                                 hovertemplate="%{x:.3g}<extra>" + str(name) + "</extra>"))
    fig.update_xaxes(title=x_title, range=[lo, hi])
    fig.update_yaxes(title="density p(x | class)", range=[-0.06 * peak * (2 + 0.6 * len(class_names)), peak * 1.1])
    fig = _layout(fig, "Per-class normal curves over the data", font_size, height, legend_right=True)
    return fig


def bias_figure(ns: Sequence[int], mean_mle: Sequence[float], mean_unb: Sequence[float], true_var: float,
                font_size: int = 16, height: int = 400, n_reps: int | None = None) -> go.Figure:
    """Average estimate of σ² over many small samples, against the sample size N."""
    x = np.asarray(ns, dtype=float)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=mean_mle, mode="lines+markers", name="average of σ²_MLE = 1/N Σ",
                             line=dict(color=SUP_COLOR, width=3), marker=dict(size=9)))
    fig.add_trace(go.Scatter(x=x, y=mean_unb, mode="lines+markers", name="average of σ²_unbiased = 1/(N−1) Σ",
                             line=dict(color=EM_COLOR, width=3, dash="dash"), marker=dict(size=9)))
    fig.add_trace(go.Scatter(x=x, y=true_var * (x - 1) / x, mode="lines", name="theory: (N−1)/N · σ²",
                             line=dict(color=GREY, dash="dot", width=2)))
    fig.add_hline(y=true_var, line=dict(color="#000000", width=1.5),
                  annotation_text=f"true σ² = {true_var:g}", annotation_position="bottom right")
    fig.update_xaxes(title="sample size N", tickvals=list(x))
    fig.update_yaxes(title="average estimate of σ²", rangemode="tozero")
    reps = f" ({n_reps:,} samples per N)" if n_reps else ""
    return _layout(fig, "The 1/N estimate is too small on average" + reps, font_size, height)
