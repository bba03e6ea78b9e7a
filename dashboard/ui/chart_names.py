"""A chart's accessible name and a sentence with its key numbers, read from the figure itself
(:func:`figure_name`, :func:`figure_summary`), for charts whose caller gives none. Pure, no Streamlit.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from dashboard.ui.figure_tables import figure_table, plain, spec_of


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
    spec = spec_of(fig)
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
    spec = spec_of(fig)
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
