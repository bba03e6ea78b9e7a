"""Tables that fit their box: a table too wide for it (columns cut at the box's edge, out of a class's sight)
is shown as several that fit, each starting with the columns that say what a row is. Estimates of the
widths st.dataframe (:func:`column_px`, :func:`table_parts`) and a Markdown table (:func:`markdown_column_px`,
:func:`light_table_parts`) give each column, and the grouping both share (:func:`column_groups`). Pure.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.ui.markdown_tables import format_cell

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


#: a Markdown table's text: ~0.56 em per character (digits and average text of the app's sans-serif font),
#: and its cells' padding (0.75 rem each side, Streamlit's Markdown tables) and border
MD_CHAR_EM, MD_CELL_PAD_EM = 0.56, 1.6


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
