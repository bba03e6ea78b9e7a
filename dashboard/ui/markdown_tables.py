"""Small read-only tables as GitHub-flavoured Markdown (:func:`markdown_table`), their cells formatted as
st.dataframe formats them (:func:`format_cell`). Pure, no Streamlit. Every header and cell goes through
:func:`dashboard.ui.derive.md_escape`: a class or word name from an upload stays text.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.ui.derive import md_escape

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


def columns_shown(df: pd.DataFrame, hide_index: bool) -> pd.DataFrame:
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
    config = column_config or {}
    shown = columns_shown(df, hide_index)
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
