"""Every chart of the app outside the lesson's browser player goes through :func:`show_chart`.

A chart is drawn inside a container of its own (``st.container(key=...)``: a div with the class
``st-key-<key>_fig``) that holds

* the plotly chart itself (``st.plotly_chart``, with the page's key, config and selection events);
* a short text summary under it: a sentence with the chart's key numbers, written by the page;
* an expander "Data as a table" with what the chart draws (:func:`figure_table`), built when the
  reader opens it (its ``on_change="rerun"``): a page that nobody asks for the tables of sends none.

A tiny components-v2 script (``figures.js``) then gives the container ``role="figure"``, the
chart's name as ``aria-label`` and the summary as ``aria-describedby``, and hides plotly's SVG from
screen readers (its words are in the name, the summary and the table). It re-applies all of this
whenever Streamlit or plotly redraws inside the container.

The text colours of every chart are made readable here too (:func:`dashboard.charts.theme.readable`):
Streamlit's frontend writes its own grey (3.8:1 on white) into each chart's template, so the
colours go into the figure's own layout, which wins over any template.

Anything that comes from the data (data-set, class, column names) stays text: the summary is
``st.text``, the tables ``st.dataframe`` (plain cells), the name is set with ``setAttribute``.

:func:`figure_table` is pure (no Streamlit): the tests build figures by hand and read it.

A page's own tables go through :func:`show_table`: one too wide for its box (columns cut at the box's
edge, out of a class's sight) is shown as several that fit (:func:`table_parts`, pure too).

Small read-only tables (a few rows, nothing to select or sort) go through :func:`show_light_table`: in a
browser they are a Markdown table (:func:`markdown_table`, pure), which the page's Markdown code already
draws, instead of st.dataframe, whose grid code (~1.5 MB of JavaScript) a fresh tab would fetch and
parse first. Every header and cell goes through :func:`dashboard.ui.derive.md_escape`: a class or word
name from an upload stays text. An expander that holds tables is a :func:`lazy_expander`: its content
is built and sent only once the reader opens it.
"""
from __future__ import annotations

import base64
import html
import re
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

HERE = Path(__file__).resolve().parent
#: at most this many rows per table (a histogram's raw values, a long sweep): the rest is said
TABLE_ROWS = 300


# ---- the chart's data as tables (no Streamlit) -------------------------------------------------------

def plain(text) -> str:
    """Chart text (plotly's HTML subset, escaped names) as plain text: tags dropped, entities read."""
    s = re.sub(r"<br\s*/?>", " ", str(text or ""), flags=re.I)
    s = re.sub(r"<[^>]*>", "", s)
    return re.sub(r"\s+", " ", html.unescape(s)).strip()


def _spec_of(fig) -> dict:
    if isinstance(fig, dict):
        return fig
    return fig.to_dict()


def _array(v) -> list | None:
    """A trace's data array as a plain list (plotly's typed arrays decoded); None when absent."""
    if v is None:
        return None
    if isinstance(v, dict) and "bdata" in v:
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        if v.get("shape"):
            a = a.reshape([int(n) for n in str(v["shape"]).split(",")])
        return a.tolist()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (list, tuple)):
        return [x.tolist() if isinstance(x, np.ndarray) else x for x in v]
    return None


def _value(v):
    if v is None:
        return np.nan
    if isinstance(v, str):
        return plain(v)
    if isinstance(v, (float, np.floating)) and not np.isfinite(v):
        return np.nan
    return v


def _axis_title(layout: dict, ref: str | None, letter: str) -> str:
    """The title of axis ``ref`` ("x", "x2", "y3"; default the first) from the layout."""
    ref = ref or letter
    key = letter + "axis" + ref[1:]
    title = (layout.get(key) or {}).get("title")
    if isinstance(title, dict):
        title = title.get("text")
    return plain(title) if title else ""


def _axis_ticks(layout: dict, ref: str | None, letter: str) -> dict:
    """{tick value: tick text} of an axis whose ticks are named (a heatmap's class and word names)."""
    ax = layout.get(letter + "axis" + (ref or letter)[1:]) or {}
    vals, text = _array(ax.get("tickvals")), _array(ax.get("ticktext"))
    if vals is None or text is None:
        return {}
    return {v: plain(t) for v, t in zip(vals, text)}


def _tick_name(ticks: dict, k):
    """The name of the tick at ``k``, or of the nearest tick within half a step (grouped bars sit a little
    off their category's tick); ``k`` itself when no tick is named there."""
    if k in ticks or not ticks or isinstance(k, str) or k is None:
        return ticks.get(k, k)
    nums = [v for v in ticks if isinstance(v, (int, float))]
    if not nums:
        return k
    near = min(nums, key=lambda v: abs(v - k))
    return ticks[near] if abs(near - k) < 0.5 else k


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        n = n or "value"
        if n in seen:
            seen[n] += 1
            n = f"{n} ({seen[n]})"
        else:
            seen[n] = 1
        out.append(n)
    return out


def _cap(df: pd.DataFrame, title: str) -> tuple[str, pd.DataFrame]:
    """At most TABLE_ROWS rows: a longer table (a curve of 401 points) keeps every k-th row and the last,
    so that the whole range stays in it, and its title says so."""
    n = len(df)
    if n > TABLE_ROWS:
        step = -(-n // (TABLE_ROWS - 1))
        rows = sorted(set(range(0, n, step)) | {n - 1})
        return f"{title} (one row in {step} of the {n:,}, and the last)", df.iloc[rows].reset_index(drop=True)
    return title, df


def _heatmap(tr: dict, layout: dict, title: str) -> tuple[str, pd.DataFrame] | None:
    z = _array(tr.get("z"))
    if not z:
        return None
    z = [list(r) if isinstance(r, (list, tuple)) else [r] for r in z]
    rows, cols = len(z), max(len(r) for r in z)
    xs, ys = _array(tr.get("x")), _array(tr.get("y"))
    xt, yt = _axis_ticks(layout, tr.get("xaxis"), "x"), _axis_ticks(layout, tr.get("yaxis"), "y")
    xs = [xt.get(v, v) for v in (xs if xs is not None and len(xs) == cols else range(cols))]
    ys = [yt.get(v, v) for v in (ys if ys is not None and len(ys) == rows else range(rows))]
    df = pd.DataFrame([[_value(v) for v in r] + [np.nan] * (cols - len(r)) for r in z],
                      index=pd.Index([str(_value(v)) for v in ys], name=_axis_title(layout, tr.get("yaxis"), "y") or "row"),
                      columns=_unique([str(_value(v)) for v in xs]))
    name = plain(tr.get("name")) or "values"
    if df.index.name in df.columns:
        df.index.name = df.index.name + " "
    xtitle = _axis_title(layout, tr.get("xaxis"), "x")
    return _cap(df.reset_index(), f"{title}: {name} (rows: {df.index.name.strip()}"
                                  + (f"; columns: {xtitle})" if xtitle else ")"))


def _histogram(tr: dict, layout: dict, title: str) -> tuple[str, pd.DataFrame] | None:
    """A histogram's bin counts (the bins the trace asks for, else numpy's)."""
    horizontal = tr.get("orientation") == "h"
    vals = _array(tr.get("y" if horizontal else "x"))
    if not vals:
        return None
    v = np.asarray([x for x in vals if x is not None], dtype=float)
    v = v[np.isfinite(v)]
    bins = tr.get("ybins" if horizontal else "xbins") or {}
    if {"start", "end", "size"} <= set(bins):
        edges = np.arange(float(bins["start"]), float(bins["end"]) + float(bins["size"]) / 2, float(bins["size"]))
    else:
        edges = np.histogram_bin_edges(v, bins=int(tr.get("nbinsx") or 0) or "auto")
    counts, edges = np.histogram(v, bins=edges)
    axis = _axis_title(layout, tr.get("yaxis" if horizontal else "xaxis"), "y" if horizontal else "x") or "value"
    name = plain(tr.get("name")) or "count"
    df = pd.DataFrame({f"{axis} from": edges[:-1], "to": edges[1:], name: counts})
    return _cap(df, f"{title}: {name}, counts per bin")


def _xy_column(tr: dict, layout: dict) -> dict | None:
    """A line, marker or bar trace as one column keyed by its categories or x values: ``{"key": [...],
    "axis": key axis title, "val_axis": value axis title, "name": column name, "vals": [...], "points":
    a cloud of points (x and y per point, keys repeated)}``; None when it draws no values."""
    kind = tr.get("type") or "scatter"
    horizontal = tr.get("orientation") == "h" or (   # markers on a chart whose y axis names its ticks
        kind == "scatter" and bool(_axis_ticks(layout, tr.get("yaxis"), "y"))
        and not _axis_ticks(layout, tr.get("xaxis"), "x"))
    keys, vals = _array(tr.get("y" if horizontal else "x")), _array(tr.get("x" if horizontal else "y"))
    if vals is None:
        return None
    if keys is None:
        keys = list(range(len(vals)))
    kx, vx = ("y", "x") if horizontal else ("x", "y")
    key_axis = _axis_title(layout, tr.get(kx + "axis"), kx) or kx
    val_axis = _axis_title(layout, tr.get(vx + "axis"), vx) or vx
    ticks = _axis_ticks(layout, tr.get(kx + "axis"), kx)
    keys = [_tick_name(ticks, k) if not isinstance(k, list) else str(k) for k in keys]
    if len({type(k) for k in keys if k is not None}) > 1:   # some ticks named, others numbers: all text
        keys = [None if k is None else str(k) for k in keys]
    n = min(len(keys), len(vals))
    keys, vals = [_value(k) for k in keys[:n]], [_value(v) for v in vals[:n]]
    mode = str(tr.get("mode") or "")
    points = kind == "scatter" and "lines" not in mode and "markers" in mode and len(set(map(str, keys))) < n
    return {"key": keys, "axis": key_axis, "val_axis": val_axis, "name": plain(tr.get("name")) or val_axis,
            "vals": vals, "points": points}


def _group_tables(groups: list[dict], title: str) -> list[tuple[str, pd.DataFrame]]:
    """The tables of columns grouped by their keys: a cloud of points is a table of its own (x and y per
    point); columns on the same keys share one, a column per trace."""
    out = []
    for g in groups:
        if g["points"]:
            name, vals = g["cols"][0]
            df = pd.DataFrame({g["axis"]: g["key"], g["val_axis"]: vals})
            out.append(_cap(df, f"{title}: {name}"))
            continue
        names = _unique([n for n, _ in g["cols"]])
        key_name = g["axis"] if g["axis"] not in names else g["axis"] + " "
        df = pd.DataFrame({key_name: g["key"], **{n: v for n, (_, v) in zip(names, g["cols"])}})
        label = title if len(groups) == 1 else f"{title}: " + ", ".join(names)
        out.append(_cap(df, label))
    return out


def figure_table(fig) -> list[tuple[str, pd.DataFrame]]:
    """What a chart draws, as tables: ``[(title, DataFrame), ...]``.

    Line, marker and bar traces that share their category or x values are one table (a column per
    trace, named by the trace's name); other such traces a table each, with the axis titles as column
    names. A heatmap is its z matrix with its row and column labels (tick texts where the axis names
    its ticks). A histogram is its counts per bin. Text is plain (no HTML, entities read)."""
    spec = _spec_of(fig)
    layout = spec.get("layout") or {}
    t = layout.get("title")
    title = plain(t.get("text") if isinstance(t, dict) else t) or "Chart"
    out: list[tuple[str, pd.DataFrame]] = []
    groups: list[dict] = []   # traces on the same keys: {"key": [...], "axis": str, "cols": [(name, values)], ...}
    for tr in spec.get("data") or []:
        kind = tr.get("type") or "scatter"
        if kind in ("heatmap", "image", "histogram"):
            got = (_histogram if kind == "histogram" else _heatmap)(tr, layout, title)
            if got:
                out.append(got)
            continue
        col = _xy_column(tr, layout)
        if col is None:
            continue
        for g in groups:   # same keys (and same key axis): one more column of that table
            if not col["points"] and not g["points"] and g["axis"] == col["axis"] and g["key"] == col["key"]:
                g["cols"].append((col["name"], col["vals"]))
                break
        else:
            groups.append({"key": col["key"], "axis": col["axis"], "val_axis": col["val_axis"],
                           "cols": [(col["name"], col["vals"])], "points": col["points"]})
    return out + _group_tables(groups, title)


# ---- tables that fit their box (no Streamlit) -----------------------------------------------------------

#: st.dataframe's automatic column widths, as its grid lays them out: about 7.5 px per character of its
#: 14 px text (a little more than the average, so that an estimate errs towards a narrower table), 16 px
#: of padding, between 50 and 400 px; a progress column (a bar and its number) about 200 px.
CHAR_PX, CELL_PAD, COL_MIN, COL_MAX, BAR_PX = 7.5, 16, 50, 400, 200


def _cell_text(v) -> str:
    if isinstance(v, (float, np.floating)):
        return "—" if not np.isfinite(v) else f"{v:.4g}"
    return str(v)


def column_px(df: pd.DataFrame, col, config=None) -> int:
    """Estimated px width st.dataframe gives column ``col`` of ``df``: its header or its widest cell (of the
    first 100 rows), or the width its ``column_config`` entry names."""
    cfg = config if isinstance(config, dict) else {}
    width = cfg.get("width")
    if isinstance(width, int):
        return width
    if width in ("small", "medium", "large"):
        return {"small": 75, "medium": 200, "large": 400}[width]
    if cfg.get("type_config", {}).get("type") == "progress":
        return BAR_PX
    chars = max([len(str(cfg.get("label") or col))] + [len(_cell_text(v)) for v in df[col].head(100)])
    return int(min(COL_MAX, max(COL_MIN, chars * CHAR_PX + CELL_PAD)))


def table_parts(df: pd.DataFrame, width_px: int, keep: int = 1, column_config: dict | None = None) -> list[list]:
    """``df``'s columns in groups that each fit ``width_px``: the first ``keep`` columns (what a row is: a
    class, a set of flips) start every group, the others follow in order, shared out evenly over as few
    groups as fit. A table that fits is one group, its columns unchanged. (st.dataframe cuts the columns
    that do not fit at its box's edge: the grid scrolls sideways, out of a class's sight.)"""
    config = column_config or {}
    return column_groups(list(df.columns), {c: column_px(df, c, config.get(c)) for c in df.columns}, width_px, keep)


def column_groups(cols: list, px: dict, width_px: int, keep: int = 1) -> list[list]:
    """``cols`` (each ``px[c]`` wide) in groups that each fit ``width_px``, each starting with the first
    ``keep`` columns; as few groups as fit, the others' columns shared out evenly when that fits too."""
    head, rest = cols[:keep], cols[keep:]
    head_px = sum(px[c] for c in head)
    groups, used = [list(head)], head_px
    for c in rest:
        if len(groups[-1]) > len(head) and used + px[c] > width_px:
            groups.append(list(head))
            used = head_px
        groups[-1].append(c)
        used += px[c]
    n = len(groups)
    even = [head + rest[i * len(rest) // n:(i + 1) * len(rest) // n] for i in range(n)]
    # as many tables, of as many columns each as can be (two tables of 4, rather than of 5 and 3)
    return even if all(sum(px[c] for c in g) <= width_px for g in even) else groups


def show_table(where, df: pd.DataFrame, *, width_px: int, keep: int = 1, column_config: dict | None = None,
               **kwargs) -> None:
    """``df`` in ``where`` (st, a column, a container) as st.dataframe(s) that fit ``width_px`` (the box's
    width on a 1280×720 screen: :func:`dashboard.charts.theme.chart_width`): a table too wide for it is
    shown as several, one under the other, each starting with the first ``keep`` columns
    (:func:`table_parts`). ``kwargs`` go to st.dataframe (``hide_index`` defaults to True)."""
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    config = column_config or {}
    for cols in table_parts(df, width_px, keep, config):
        where.dataframe(df[cols], column_config={c: v for c, v in config.items() if c in cols} or None, **kwargs)


# ---- small read-only tables as Markdown (no Streamlit) ---------------------------------------------------

#: a Markdown table's text: ~0.56 em per character (digits and average text of the app's sans-serif font),
#: and its cells' padding (0.75 rem each side, Streamlit's Markdown tables) and border
MD_CHAR_EM, MD_CELL_PAD_EM = 0.56, 1.6
#: the longest text a light table shows in one cell (longer is cut with "…", as md_escape does)
MD_CELL_CHARS = 120
NBSP = "\u00a0"


def _type_config(config) -> dict:
    cfg = config if isinstance(config, dict) else {}
    return cfg.get("type_config") or {}


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _default_number(v) -> str:
    """A number as st.dataframe prints it without a format: integers whole; other numbers with 4 decimals
    at most, trailing zeros dropped (as many decimals as a number below 1e-4 needs to show its first digit)."""
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    x = float(v)
    if x == 0 or abs(x) >= 1e-4:
        places = 4
    else:
        places = abs(int(f"{x:e}".split("e")[1]))
    text = f"{x:.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_cell(v, config=None) -> str:
    """One cell as st.dataframe shows it with ``config`` (a ``st.column_config`` entry): a printf format
    ("%.4f"), "percent" (a progress column's number: at most 2 decimals), else the default; a missing number
    is an em dash "—" (never "None" or "nan"); text as it is."""
    if v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)):
        return "—"
    if not _is_number(v):
        return str(v)
    if isinstance(v, (float, np.floating)) and np.isinf(v):
        return "∞" if v > 0 else "-∞"
    tc = _type_config(config)
    fmt = tc.get("format")
    if fmt == "percent":
        text = f"{float(v) * 100:.2f}".rstrip("0").rstrip(".")
        return text + "%"
    if isinstance(fmt, str) and "%" in fmt:
        try:
            return fmt % v
        except (TypeError, ValueError):
            pass
    return _default_number(v)


def _columns_shown(df: pd.DataFrame, hide_index: bool) -> pd.DataFrame:
    """``df`` with its index as a first column when it is shown."""
    if hide_index:
        return df
    name = df.index.name if df.index.name is not None else ""
    out = df.copy()
    out.insert(0, name if name not in df.columns else f"{name} ", df.index)
    return out.reset_index(drop=True)


def markdown_table(df: pd.DataFrame, column_config: dict | None = None, hide_index: bool = True) -> str:
    """``df`` as a GitHub-flavoured Markdown table, cells formatted as st.dataframe formats them with
    ``column_config`` (:func:`format_cell`; a config's ``label`` is its header), number columns aligned
    right; a cell's spaces do not break (the headers wrap). Every header and cell is text
    (:func:`dashboard.ui.derive.md_escape`): a name such as ``**x**``, ``<b>x</b>``, ``|``, ``$x$`` or a link
    shows as typed and cannot end its cell."""
    from dashboard.ui.derive import md_escape

    config = column_config or {}
    shown = _columns_shown(df, hide_index)
    heads, aligns = [], []
    for c in shown.columns:
        cfg = config.get(c) if isinstance(config.get(c), dict) else {}
        heads.append(md_escape(cfg.get("label") or c, MD_CELL_CHARS) or " ")
        numeric = pd.api.types.is_numeric_dtype(shown[c]) and not pd.api.types.is_bool_dtype(shown[c])
        aligns.append("---:" if numeric else "---")
    lines = ["| " + " | ".join(heads) + " |", "|" + "|".join(aligns) + "|"]
    cols = list(shown.columns)
    for row in shown.itertuples(index=False, name=None):
        # a cell stays on one line (its spaces do not break): the browser wraps the headers instead
        cells = [md_escape(format_cell(v, config.get(c)), MD_CELL_CHARS).replace(" ", NBSP) or " "
                 for c, v in zip(cols, row)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_column_px(df: pd.DataFrame, col, config=None, font_px: float = 16.0) -> int:
    """Estimated px a Markdown table gives column ``col`` at its narrowest: the header may wrap at its
    spaces (its longest word counts), a cell may not (numbers and short names)."""
    cfg = config if isinstance(config, dict) else {}
    head = str(cfg.get("label") or col)
    words = max((len(w) for w in head.split()), default=0)
    chars = max([words] + [len(format_cell(v, cfg)) for v in df[col].head(100)])
    return int((chars * MD_CHAR_EM + MD_CELL_PAD_EM) * font_px) + 1


def light_table_parts(df: pd.DataFrame, width_px: int, keep: int = 1, column_config: dict | None = None,
                      font_px: float = 16.0) -> list[list]:
    """``df``'s columns in groups whose Markdown tables fit ``width_px`` (as :func:`table_parts` does for
    st.dataframe): the first ``keep`` columns start every group."""
    config = column_config or {}
    return column_groups(list(df.columns), {c: markdown_column_px(df, c, config.get(c), font_px) for c in df.columns},
                         width_px, keep)


# ---- drawing (Streamlit) --------------------------------------------------------------------------------

def _register():
    try:
        from streamlit.components import v2
        return v2.component("nbem_figure", js=(HERE / "figures.js").read_text(encoding="utf-8"),
                            isolate_styles=False)
    except Exception:  # components v2 missing or refused: the name is left out, the rest is drawn
        return None


_COMPONENT = _register()


def _app_test() -> bool:
    """Whether streamlit.testing's AppTest runs the page (no browser)."""
    from streamlit import config  # st.get_option hides "global.*" options
    try:
        return bool(config.get_option("global.appTest"))
    except Exception:  # pragma: no cover - an option renamed in a future Streamlit
        return False


def _browser() -> bool:
    """A browser will run the component's script (not streamlit.testing's AppTest)."""
    return _COMPONENT is not None and not _app_test()


def cached_figure(builder, *args, **kwargs) -> dict:
    """``builder(*args, **kwargs)`` (a pure chart builder of dashboard/charts: arrays and names in, a figure
    out) as a plain figure dict, built once per server process for the same arguments. Building a plotly
    figure (go.Figure's validation, theme.style's layout) is most of a chart page's script run, ~100 ms a
    chart, and a page's first open draws the same charts for every visitor. Each call gets its own copy
    (st.cache_data), so a caller may change it."""
    return _cached_figure(builder.__module__, builder.__qualname__, args, kwargs)


def _import_builder(module: str, name: str):
    import importlib
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


# bounded: the shared entries are the pages' default charts (about 30); a client trying many settings
# (or uploads) can only replace entries, never grow the process's memory past this many figures
@st.cache_data(show_spinner=False, max_entries=64)
def _cached_figure(module: str, name: str, args: tuple, kwargs: dict) -> dict:
    return _spec_of(_import_builder(module, name)(*args, **kwargs))


@contextmanager
def lazy_expander(where, label: str, *, key: str, **kwargs):
    """``with lazy_expander(st, "Every run", key="...") as opened:`` an expander in ``where`` whose content the
    page builds only ``if opened``: opening or closing it is a rerun (``on_change="rerun"``), so a page whose
    tables nobody opens neither computes them nor makes the browser load the table code for them.
    ``kwargs`` go to st.expander (``icon``, ``expanded``...); ``st.session_state[key] = True`` opens it."""
    box = where.expander(label, key=key, on_change="rerun", **kwargs)
    with box:
        yield bool(box.open)


def show_light_table(where, df: pd.DataFrame, *, column_config: dict | None = None, hide_index: bool = True,
                     width_px: int | None = None, keep: int = 1, classroom: bool | None = None) -> None:
    """A small read-only table in ``where`` (st, a column, a container). In a browser: Markdown tables
    (:func:`markdown_table`), as several when one is too wide for ``width_px`` (each starting with the first
    ``keep`` columns, :func:`light_table_parts`); the numbers as ``column_config`` formats them. Under
    streamlit.testing's AppTest: the same st.dataframe(s) as :func:`show_table` draws (the tests read the
    frame's numbers). For tables to select, sort or scroll through, use st.dataframe."""
    from dashboard.ui import controls

    config = column_config or {}
    if _app_test():
        if width_px is None:
            where.dataframe(df, hide_index=hide_index, width="stretch", column_config=config or None)
        else:
            show_table(where, df, width_px=width_px, keep=keep, column_config=config, hide_index=hide_index)
        return
    shown = _columns_shown(df, hide_index)
    if classroom is None:
        classroom = controls.classroom_wanted()
    font_px = 22.0 if classroom else 16.0
    groups = ([list(shown.columns)] if width_px is None else
              light_table_parts(shown, width_px, keep + (0 if hide_index else 1), config, font_px))
    for cols in groups:
        where.markdown(markdown_table(shown[cols], config, hide_index=True))


def show_chart(where, fig, *, key: str, name: str, summary: str, **plotly_kwargs):
    """Draw ``fig`` in ``where`` (st, a column, a container) with an accessible name (``name``), a
    visible one- or two-sentence ``summary`` with the chart's key numbers, and its data as tables.
    ``plotly_kwargs`` go to ``st.plotly_chart`` unchanged (``config``, ``on_select``,
    ``selection_mode``, ``width``...); returns what it returns (the selection event, if any)."""
    from dashboard.charts import theme
    from dashboard.ui import controls

    # readable colours, and in classroom mode the projector's type scale on every text of the chart
    spec = theme.readable(theme.type_scale(_spec_of(fig), controls.classroom_wanted()))
    box = where.container(key=f"{key}_fig")
    with box:
        from dashboard.ui import lean_chart  # charts a browser draws with the app's plotly.js build
        if lean_chart.usable(spec, plotly_kwargs):
            event = lean_chart.draw(spec, key=key, **plotly_kwargs)
        else:
            event = st.plotly_chart(theme.figure(spec), key=key, **plotly_kwargs)
        st.text(summary, width="stretch")
        # the tables are built and sent only once the reader opens the expander (a rerun): most never do
        with lazy_expander(st, "Data as a table", key=f"{key}_table") as opened:
            if opened:
                tables = figure_table(spec)
                for title, df in tables:
                    st.text(title)
                    st.dataframe(df, hide_index=True, width="stretch")
                if not tables:
                    st.text("Nothing is drawn in this chart yet.")
        if _browser():
            _COMPONENT(key=f"{key}_a11y", data={"box": f"{key}_fig", "name": str(name)})
    return event


# ---- a name and a sentence from the figure itself (charts whose caller gives none) ----------------------

def _kind(spec: dict) -> str:
    kinds = {(tr.get("type") or "scatter") for tr in spec.get("data") or []}
    if kinds <= {"bar"}:
        return "Bar chart"
    if kinds & {"heatmap", "image"}:
        return "Heatmap"
    if kinds <= {"histogram"}:
        return "Histogram"
    if kinds <= {"scatter"}:
        modes = {str(tr.get("mode") or "lines") for tr in spec["data"]}
        return "Line chart" if any("lines" in m for m in modes) else "Scatter plot"
    return "Chart"


def figure_name(fig) -> str:
    """"Line chart: <the chart's title>" (the kind of chart from its traces, the title as plain text)."""
    spec = _spec_of(fig)
    t = (spec.get("layout") or {}).get("title")
    title = plain(t.get("text") if isinstance(t, dict) else t)
    return f"{_kind(spec)}: {title}" if title else _kind(spec)


def _num(v, percent: bool) -> str:
    if isinstance(v, str):
        return v
    if v is None or not np.isfinite(v):
        return "—"
    return f"{v:.1%}" if percent else f"{v:.3g}"


def figure_summary(fig, limit: int = 4) -> str:
    """A sentence with a chart's key numbers, read from its traces: each line's first and last value
    (and its highest), each bar series' highest bar, a heatmap's range. For charts whose caller has no
    sentence of its own (a page writes its own where it can say more)."""
    spec = _spec_of(fig)
    layout = spec.get("layout") or {}
    bar = _kind(spec) == "Bar chart"
    percent = any("%" in str((v or {}).get("tickformat", "")) for k, v in layout.items()
                  if k[:5] in ("xaxis", "yaxis") and isinstance(v, dict))
    parts = []
    for title, df in figure_table(spec):
        if df.empty:
            continue
        heat = "(rows:" in title
        nums = df.select_dtypes("number")
        if heat:
            v = nums.to_numpy(dtype=float)
            if np.isfinite(v).any():
                parts.append(f"{v.shape[0]} rows × {v.shape[1]} columns of values from {np.nanmin(v):.3g} to "
                             f"{np.nanmax(v):.3g}")
            continue
        key = df.columns[0]
        categories = not pd.api.types.is_numeric_dtype(df[key])
        # the key's name without its parenthesis ("iteration t (540 hidden documents)"); none for a bare "x"
        label = re.sub(r"\s*\([^)]*\)", "", str(key)).strip()
        label = "" if label in ("x", "y", "x ", "y ") else label
        keys = df[key]

        def at(i: int) -> str:
            return f"{label} = {keys.iloc[i]}" if label else str(keys.iloc[i])

        for col in list(df.columns[1:])[:limit]:
            s = pd.to_numeric(df[col], errors="coerce")
            ok = s.notna().to_numpy()
            if not ok.any():
                continue
            first, last = int(np.flatnonzero(ok)[0]), int(np.flatnonzero(ok)[-1])
            top = int(s.idxmax())
            if first == last:
                parts.append(f"{col} {_num(s.iloc[first], percent)} at {at(first)}")
            elif bar or categories or df.shape[0] > 12:
                parts.append(f"{col} highest for {keys.iloc[top]} ({_num(s.iloc[top], percent)})"
                             if categories else f"{col} highest at {at(top)} ({_num(s.iloc[top], percent)})")
            else:
                parts.append(f"{col} {_num(s.iloc[first], percent)} at {at(first)}, "
                             f"{_num(s.iloc[last], percent)} at {at(last)}"
                             + (f" (highest {_num(s.iloc[top], percent)} at {at(top)})"
                                if top not in (first, last) else ""))
    return ("; ".join(parts[: 2 * limit]) + ".") if parts else "No data drawn yet."
