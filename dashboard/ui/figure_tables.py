"""What a chart draws, as tables (:func:`figure_table`), for the "Data as a table" under every chart and for
the sentence that names a chart's numbers. Pure: a figure (or its dict) in, ``[(title, DataFrame)]`` out,
no Streamlit; the tests build figures by hand and read it. Text comes out plain (plotly's HTML dropped,
entities read), so a name from the data stays text where it is shown.
"""
from __future__ import annotations

import base64
import html
import re

import numpy as np
import pandas as pd

#: at most this many rows per table (a histogram's raw values, a long sweep): the rest is said
TABLE_ROWS = 300


def plain(text) -> str:
    """Chart text (plotly's HTML subset, escaped names) as plain text: tags dropped, entities read."""
    s = re.sub(r"<br\s*/?>", " ", str(text or ""), flags=re.I)
    s = re.sub(r"<[^>]*>", "", s)
    return re.sub(r"\s+", " ", html.unescape(s)).strip()


def spec_of(fig) -> dict:
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
    spec = spec_of(fig)
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
