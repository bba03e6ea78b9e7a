"""The charts' shared look: the colour-blind-safe palette, plotly's template, the dict-spec
figure and its layout helpers (titles, legends, ticks). Every chart module builds on these.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

# Okabe & Ito (2008) colour-blind-safe palette, extended for K > 8 with Tol's wine and a dark green:
# under simulated protanopia, deuteranopia and tritanopia every pair of the first 10 stays at least
# ΔE00 10 apart (tests/app/test_class_colours_cvd.py; Tol's olive #999933 came within 5 of the
# vermilion and the orange).
CLASS_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                "#D55E00", "#F0E442", "#000000", "#882255", "#004400"]


WARN = "#D55E00"
#: WARN as text on the white chart: the vermilion itself is 3.9:1, this darker one 5.5:1
WARN_TEXT = "#B34700"


GREY = "#767676"  # 4.5:1 on white: also the colour of the annotations drawn beside its lines


# plotly's default template, as go.Figure() put it in every figure before (same look in the
# browser). A constant computed once at import, never mutated.
TEMPLATE = go.Figure().to_dict()["layout"]["template"]


# The charts' text colours. Streamlit's frontend draws tick labels, axis titles and colour-bar text in
# #808495, 3.7:1 on the white chart background: under the 4.5:1 WCAG 2.1 AA asks of normal text.
# AXIS_TEXT is 7.0:1 on white (the grey of the offline page's captions), LEGEND_TEXT and TITLE_TEXT
# are Streamlit's own darker greys (14.8:1, 13.7:1). One source for the app's charts (readable(), every
# chart goes through it in dashboard/pagekit/figures.py) and the player's template (export.chart_template).
AXIS_TEXT = "#555867"
LEGEND_TEXT = "#262730"
TITLE_TEXT = "#2F2D2B"
CHART_BACKGROUND = "#FFFFFF"

#: the text colours as a plotly layout (template) fragment
TEXT_LAYOUT = {
    "font": {"color": AXIS_TEXT},
    "title": {"font": {"color": TITLE_TEXT}},
    "legend": {"font": {"color": LEGEND_TEXT}, "title": {"font": {"color": AXIS_TEXT}}},
    "xaxis": {"tickfont": {"color": AXIS_TEXT}, "title": {"font": {"color": AXIS_TEXT}}},
    "yaxis": {"tickfont": {"color": AXIS_TEXT}, "title": {"font": {"color": AXIS_TEXT}}},
    "coloraxis": {"colorbar": {"tickfont": {"color": AXIS_TEXT}, "title": {"font": {"color": AXIS_TEXT}}}},
    "hoverlabel": {"font": {"color": LEGEND_TEXT}},
}
_COLORBAR_TEXT = TEXT_LAYOUT["coloraxis"]["colorbar"]


#: The type scale: px size of each kind of text, normal (a laptop) and classroom mode (a 1280×720
#: projector, read from the back of a room: nothing under 18 px). One table for every chart (the
#: builders' base font, :func:`type_scale` on every drawn chart, the lesson's browser player included)
#: and the controls' classroom CSS (dashboard/pagekit/page_kit.py).
TYPE_SCALE = {
    False: {"base": 15},
    True: {"base": 22, "title": 26, "axis_title": 21, "tick": 20, "legend": 20, "annotation": 20, "hover": 20,
           "control": 22, "small": 20, "nav": 20},
}
#: the smallest text classroom mode draws
CLASSROOM_MIN_PX = min(TYPE_SCALE[True].values())


#: CSS every page gets for its tables and formulas (dashboard/pagekit/page_kit.py puts it on the page).
#: st.dataframe draws its toolbar (show/hide columns, search, full screen) while the pointer is on the
#: table, as a band 2.75 rem tall straddling the grid's top edge: it hid the right-hand headers. It goes
#: above the table instead, into a band the table keeps free for it (the page's 1 rem gap between
#: elements and 1.75 rem of margin), so that it covers neither the table nor the element above. The margin
#: is the element's box's, not the grid's: Streamlit sizes that box to the grid's height, and a margin
#: inside it pushed the grid's last rows under the element below.
#: A displayed formula (KaTeX) that cannot break (an aligned block) and is a little wider than its
#: column (the maths panel's E-step, 8 px over in a 385 px column) is drawn whole, into the gap beside
#: the column, instead of being cut by the Markdown box, which hides what overflows it.
#: The chosen option of a segmented control or pills is drawn in the primary colour on a 10 % tint of it:
#: 4.47:1, under the 4.5:1 of WCAG 2.1 AA; a darker red of the same hue gives 5.75:1.
FIGURE_CSS = """<style>
[data-testid="stMarkdownContainer"]:has(> .katex-display) { overflow: visible !important; }
[data-testid="stElementContainer"]:has(> [data-testid="stDataFrame"]) { margin-top: 1.75rem; }
[data-variant="segmented_control"][aria-checked="true"] p, [data-variant="pills"][aria-checked="true"] p { color: #a8303d; }
[data-testid="stDataFrame"] > [data-testid="stElementToolbar"] { top: auto !important; bottom: 100% !important; }
</style>"""

#: CSS of classroom mode for the same (with the classroom type scale of dashboard/pagekit/page_kit.py): none
#: yet (classroom mode's displayed formulas scroll sideways in their own box: page_kit.CLASSROOM_CSS).
CLASSROOM_FIGURE_CSS = """<style>
</style>"""


def _at_least(box: dict, key: str, px: int) -> dict:
    """``box`` with ``box[key]["font"]["size"]`` (or ``box[key]["size"]`` for a font) at least ``px``."""
    out = dict(box)
    if key in ("font", "tickfont"):
        font = dict(out.get(key) or {})
        size = font.get("size")
        font["size"] = px if not isinstance(size, (int, float)) else max(size, px)
        out[key] = font
        return out
    part = out.get(key)
    if isinstance(part, str):
        part = {"text": part}
    out[key] = _at_least(dict(part or {}), "font", px)
    return out


def _axis_keys(layout: dict, data: list) -> set[str]:
    """Every axis of a figure: those its layout names and those its traces refer to (``x2`` → ``xaxis2``)."""
    axes = {"xaxis", "yaxis"} | {k for k in layout if k[:5] in ("xaxis", "yaxis") and k[5:].isdigit()}
    for tr in data:
        for letter in ("x", "y"):
            ref = tr.get(letter + "axis")
            if isinstance(ref, str) and ref[1:].isdigit():
                axes.add(letter + "axis" + ref[1:])
    return axes


def _axis_at_scale(axis: dict, scale: dict) -> dict:
    return _at_least(_at_least(dict(axis or {}), "tickfont", scale["tick"]), "title", scale["axis_title"])


def _colorbar_at_scale(bar: dict, scale: dict) -> dict:
    return _at_least(_at_least(dict(bar or {}), "tickfont", scale["tick"]), "title", scale["axis_title"])


def type_scale(spec: dict, classroom: bool) -> dict:
    """A copy of a chart spec with every text at least its size on the type scale in classroom mode: the
    title, every axis's title and tick labels, the legend, every annotation (subplot titles included),
    the colour bars and the hover labels. Sizes a chart chose larger stay. Streamlit's template (and the
    player's, streamlit_theme.json) names 12-14 px for axis titles and ticks, and a size named in a
    template wins over the layout's base font: so every size is set in the figure's own layout. Normal
    mode: the spec itself (the builders' sizes). The spec is not changed (specs are cached and shared)."""
    if not classroom:
        return spec
    scale = TYPE_SCALE[True]
    layout = dict(spec.get("layout") or {})
    data = list(spec.get("data") or [])
    layout = _at_least(layout, "font", scale["base"])
    layout = _at_least(layout, "title", scale["title"])
    legend = _at_least(dict(layout.get("legend") or {}), "font", scale["legend"])
    if legend.get("title"):
        legend = _at_least(legend, "title", scale["legend"])
    layout["legend"] = legend
    layout["hoverlabel"] = _at_least(dict(layout.get("hoverlabel") or {}), "font", scale["hover"])
    axes = _axis_keys(layout, data)
    for key in axes:
        layout[key] = _axis_at_scale(layout.get(key), scale)
        axis = layout[key]
        domain = axis.get("domain") or [0, 1]
        if (key[0] == "y" and domain[1] - domain[0] < 0.6 and axis.get("showticklabels", True) is not False
                and not any(k in axis for k in ("nticks", "dtick", "tickvals"))):
            # a y axis of a stacked subplot is short: plotly draws at least five ticks on any axis, which
            # at the scale's tick size run into each other
            layout[key] = {**axis, "nticks": 3}
    for key in [k for k in layout if k.startswith("coloraxis")]:
        layout[key] = {**layout[key], "colorbar": _colorbar_at_scale(layout[key].get("colorbar"), scale)}
    if layout.get("annotations"):
        layout["annotations"] = [_at_least(a, "font", scale["annotation"]) for a in layout["annotations"]]
    data = [dict(tr, colorbar=_colorbar_at_scale(tr.get("colorbar"), scale))
            if tr.get("type") in ("heatmap", "contour", "histogram2d") and tr.get("showscale", True) is not False
            else tr for tr in data]
    return {**spec, "data": data, "layout": layout}


def _under(base: dict, over) -> dict:
    """``over`` merged onto ``base`` (nested dicts; ``over``'s values win). A string title becomes
    {"text": ...}."""
    if isinstance(over, str):
        over = {"text": over}
    if not isinstance(over, dict):
        return over if over is not None else base
    out = dict(base)
    for k, v in over.items():
        out[k] = _under(out[k], v) if isinstance(out.get(k), dict) and (isinstance(v, dict) or k == "title") else v
    return out


def readable(spec: dict) -> dict:
    """A copy of a chart spec whose text colours are TEXT_LAYOUT's wherever the chart did not choose
    its own: in the figure's layout (every x and y axis, the legend, the colour bars), because
    Streamlit's frontend writes its own greys into every chart's template, and a figure's layout wins
    over its template. The spec itself is not changed (specs are cached and shared)."""
    layout = dict(spec.get("layout") or {})
    data = list(spec.get("data") or [])
    axes = _axis_keys(layout, data)
    for key in ("font", "title", "legend", "hoverlabel"):
        layout[key] = _under(TEXT_LAYOUT[key], layout.get(key))
    for key in axes:
        layout[key] = _under(TEXT_LAYOUT[key[0] + "axis"], layout.get(key))
    for key in [k for k in layout if k.startswith("coloraxis")]:
        layout[key] = _under(TEXT_LAYOUT["coloraxis"], layout[key])
    data = [dict(tr, colorbar=_under(_COLORBAR_TEXT, tr.get("colorbar")))
            if tr.get("type") in ("heatmap", "contour", "histogram2d") and tr.get("showscale", True) is not False
            else tr for tr in data]
    return {**spec, "data": data, "layout": layout}


class _Spec(go.Figure):
    """A go.Figure that hands its prepared dict spec to st.plotly_chart unchanged.

    st.plotly_chart runs ``plotly.tools.return_figure_from_figure_or_data``: a plain dict
    is re-validated there (``Figure(**spec)``, tens of ms per chart), a go.Figure is
    only asked for ``to_dict()``. The spec was validated by tests/app/test_chart_specs.py."""

    def __init__(self, spec: dict):  # noqa: PLW0231 (super().__init__ skipped on purpose)
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


def figure_spec(data: list, layout: dict, title: str, font_size: int, height: int, legend_rows: int | None = None,
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
        template=TEMPLATE,
        title=dict(text=title, font=dict(size=font_size + 4), y=1.0, yref="container", yanchor="top",
                   pad=dict(t=8)),
        font=dict(size=font_size),
        height=total,  # bigger fonts (classroom) and more legend rows get a taller figure
        margin=dict(l=10, r=10, t=title_band + legend_band, b=10),
        # the legend starts at the chart's left edge (container coordinates), not the plot area's (after
        # the y ticks), with plotly's shortest line sample and its text a px under the chart's: an entry
        # nearly as wide as the chart ("NB at λ = 0.003 (leave-one-out): 95.0%" in a third of the page)
        # then still fits in it
        legend=dict(orientation="h", yref="container", yanchor="top", y=unit(1 - title_band / total),
                    xref="container", xanchor="left", x=0.0, itemwidth=30, font=dict(size=font_size - 1)),
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


def int_ticks(T: int) -> dict:
    """Whole-number iteration ticks (no 0.5): x-axis properties."""
    return dict(tick0=0, dtick=max(1, int(np.ceil(max(T - 1, 1) / 8))), range=[-0.3, max(T - 1, 1) + 0.3])


def vline(x: float, line: dict, xref: str = "x", yref: str = "y domain") -> dict:
    return dict(type="line", x0=x, x1=x, xref=xref, y0=0, y1=1, yref=yref, line=line)


def iteration_marker(t_sel: int | None, xref: str = "x", yref: str = "y domain") -> list:
    return [] if t_sel is None else [vline(t_sel, dict(color=GREY, dash="dot", width=2), xref, yref)]


def floats(a) -> list:
    """Plain floats for JSON (NaN -> None, which plotly draws as a gap)."""
    a = np.asarray(a, dtype=float)
    return [None if not np.isfinite(v) else float(v) for v in a.tolist()] if not np.isfinite(a).all() \
        else a.tolist()


def unit(v: float) -> float:
    """A subplot domain end: rounding noise (-5e-17) must not leave [0, 1]."""
    return min(1.0, max(0.0, round(v, 10)))


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


def _figure_legend_rows(fig: go.Figure, font_size: int, width: int | None = None) -> int:
    """Rows a horizontal legend needs: it wraps when its entries are wider than the chart (``width``
    px; by default about 430 px with two charts per row in classroom mode, 520 px otherwise)."""
    shown = [t for t in fig.data if t.name and t.showlegend is not False]
    if any(getattr(t, "legendgroup", None) for t in shown):
        return len(shown)  # plotly stacks legend groups one under the other: worst case, a row each
    if width is None:
        width = 430 + 60 if font_size > 15 else 520 + 60
    return legend_rows([t.name for t in shown], font_size, width)


def tick_half(tick_px: float) -> int:
    """Px a y tick label ``tick_px`` px high stands above the plot's top edge: half of its line (1.3 em)."""
    return int(0.65 * float(tick_px)) + 1


def style(fig: go.Figure, title: str, font_size: int, height: int, legend_right: bool = False,
            width: int | None = None, **kw) -> go.Figure:
    """Title in a band of its own at the top, the legend in a band under it (never overlapping),
    or beside the plot (legend_right).

    ``width``: the chart's expected width in px on a 1280×720 screen (chart_width), for
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
    rows = 0 if (kw.get("showlegend") is False or legend_right) else _figure_legend_rows(fig, font_size, width)
    legend_band = int(font_size * 1.5) * rows + 8
    top_ticks = fig.layout.xaxis.side == "top"
    tick_band = 0
    if top_ticks and fig.layout.xaxis.showticklabels is not False:
        tick_size = fig.layout.xaxis.tickfont.size or font_size
        tick_band = int(tick_size * 1.6) + 4  # one line of tick labels and the tick length
    # the top y tick label is centred on the plot's top edge: half of it stands above the plot, into
    # the band of the title or the legend (in classroom type a two-line title met the "0.06" under it)
    tick_clear = tick_half(fig.layout.yaxis.tickfont.size or font_size)
    total = height + line * (lines - 1) + int(font_size * 1.5) * max(0, rows - 1) + tick_band + tick_clear
    fig.update_layout(
        # plotly raises a title of several lines by about 0.7 em (whatever their number; measured in
        # Chromium): push it down by that much, so that it fills its band from the top. (Pushed down by
        # all its extra lines, a wrapped title ran into the legend under it.)
        title=dict(text=title, font=dict(size=font_size + 4), y=1.0, yref="container", yanchor="top",
                   pad=dict(t=8 + (int((font_size + 4) * 0.7) if lines > 1 else 0))),
        font=dict(size=font_size),
        height=total,
        margin=dict(l=10, r=10, t=title_band + legend_band + tick_band + tick_clear, b=10),
        legend=(dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.01, font=dict(size=font_size))
                if legend_right else
                dict(orientation="h", yref="container", yanchor="top", y=unit(1 - title_band / total),
                     xanchor="right", x=1.0, font=dict(size=font_size))),
        template="plotly_white",
        **kw,
    )
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        text = axis.title.text if axis.title is not None else None
        if text:
            axis.title.text = _wrap(text, _chars(width - 40, font_size) if width else
                                    (34 if font_size > 15 else None))[0]
    return legend_below(fig) if below else fig


def legend_below(fig: go.Figure) -> go.Figure:
    """Legend under the plot (long titles and long legends do not fit on one line above it), in a
    band of its own at the bottom of the figure: below the tick labels and the x-axis title,
    whatever the font size (classroom mode) or the number of legend rows."""
    fs = int(fig.layout.font.size or 16)
    xtitle = fig.layout.xaxis.title.text if fig.layout.xaxis.title is not None else None
    x_lines = 0 if not xtitle else str(xtitle).count("<br>") + 1
    rows = _figure_legend_rows(fig, fs)
    band = int(fs * 1.5) * rows + 8
    bottom = int(fs * 1.6) + int(fs * 1.35) * x_lines + band + 12
    fig.update_layout(legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.0, xanchor="left", x=0.0))
    top = int(fig.layout.margin.t or 0) - (int(fs * 1.5) * rows if rows else 0)  # style's legend band: unused
    fig.update_layout(height=fig.layout.height + band, margin=dict(b=bottom, t=max(top, int(fs * 2))))
    return fig


def pct(v) -> str:
    return "—" if v is None or not np.isfinite(v) else f"{v:.1%}"


MLE_COLOR = "#D55E00"


MAP_COLOR = "#0072B2"


PRIOR_COLOR = "#999999"


BOUND_COLOR = "#009E73"


NEXT_COLOR = "#CC79A7"


def finite(a) -> list:
    return [None if v is None or not np.isfinite(v) else float(v) for v in np.asarray(a, dtype=float)]
