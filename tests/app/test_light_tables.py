"""Small read-only tables drawn as Markdown (dashboard/ui/markdown_tables.py: markdown_table; dashboard/pagekit/figures.py: show_light_table):
the numbers as st.dataframe formats them, a missing number as an em dash, every name from the data as
text, and tables split so that each fits its box. The same tables in Chromium: tests/browser/test_light_table_text.py."""
from __future__ import annotations

import numpy as np
import pandas as pd

HOSTILE = ["**x**", "<b>x</b>", "a|b", "$x$", "[a](http://e)", "- item", ":red[r]", "`c`"]


def _rows(text: str) -> list[list[str]]:
    """The cells of a GFM table's lines (split at the pipes that are not escaped)."""
    import re
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in text.splitlines()]


def test_every_header_and_cell_is_escaped_markdown():
    from dashboard.ui.derive import md_escape
    from dashboard.ui.markdown_tables import NBSP, markdown_table

    df = pd.DataFrame({"class": HOSTILE, "β(<i>spam</i> | x)": np.arange(len(HOSTILE), dtype=float)})
    rows = _rows(markdown_table(df))
    assert rows[0] == ["class", md_escape("β(<i>spam</i> | x)")]
    assert all(len(r) == 2 for r in rows)            # a "|" in a name does not make a column
    assert [r[0].replace(NBSP, " ") for r in rows[2:]] == [md_escape(h) for h in HOSTILE]
    for raw in HOSTILE:                               # no name survives in an active form
        assert f"| {raw} |" not in markdown_table(df)


def test_numbers_as_the_column_config_formats_them_and_a_missing_one_as_an_em_dash():
    from dashboard.ui.markdown_tables import format_cell, markdown_table

    four = {"type_config": {"type": "number", "format": "%.4f"}}
    assert format_cell(0.69230769, four) == "0.6923"
    assert format_cell(float("nan"), four) == "—" and format_cell(None, four) == "—"
    assert format_cell(0.4523, {"type_config": {"type": "progress", "format": "percent"}}) == "45.23%"
    assert format_cell(0.13, {"type_config": {"type": "progress", "format": "percent"}}) == "13%"
    assert format_cell(-154.23, {"type_config": {"type": "number", "format": "%.1f"}}) == "-154.2"
    # no format: integers whole, other numbers with at most 4 decimals (st.dataframe's default)
    assert format_cell(7) == "7" and format_cell(np.int64(12)) == "12"
    assert format_cell(0.123456) == "0.1235" and format_cell(0.5) == "0.5" and format_cell(3.0) == "3"
    assert format_cell("Beta(2, 2)") == "Beta(2, 2)"
    # the coin's table with no flip seen: θ_MAP is 0/0 at λ = 0
    df = pd.DataFrame({"λ": ["0", "1"], "θ_MAP": [np.nan, 0.5]})
    text = markdown_table(df, {"θ_MAP": four})
    assert "None" not in text and "nan" not in text.lower()
    assert _rows(text)[2][1] == "—" and _rows(text)[3][1] == r"0\.5000"


def test_a_wide_table_is_split_into_tables_that_fit_each_led_by_its_first_column():
    from dashboard.ui.table_split import light_table_parts, markdown_column_px

    df = pd.DataFrame({"set": [f"{i}: HTTHHTHTHH" for i in range(5)],
                       **{f"column {c}": np.linspace(0, 1, 5) for c in "ABCDEFGH"}})
    one = light_table_parts(df, 10_000)
    assert one == [list(df.columns)]
    parts = light_table_parts(df, 480)
    assert len(parts) > 1 and all(p[0] == "set" for p in parts)
    assert sorted(c for p in parts for c in p[1:]) == list(df.columns[1:])
    for p in parts:
        assert sum(markdown_column_px(df, c) for c in p) <= 480
    # the classroom's larger type needs more room
    assert len(light_table_parts(df, 480, font_px=22)) >= len(parts)
