"""Streamlit's own Markdown renderer (in Chromium) shows a light table's names as typed: a class or word
name from an upload (``**x**``, ``<b>x</b>``, ``|``, ``$x$``, a link...) is text in its own cell, never
bold, HTML, a formula, a link or an extra column; a missing number is an em dash.

A tiny Streamlit app draws one table with dashboard.pagekit.figures.show_light_table (the browser's path:
Markdown, not st.dataframe) and the page's table is read back."""
from __future__ import annotations

import textwrap

from kit import ROOT
from kit.browser import require_chromium
from kit.server import streamlit_server

sync_api = require_chromium()

NAMES = ["**x**", "<b>x</b>", "a|b", "$x$", "[a](http://e)", "- item", ":red[r]", "`c`", "<script>alert(1)</script>"]
READ_JS = """() => {
  const t = document.querySelector('.st-key-light table');
  if (!t) return null;
  return {rows: [...t.querySelectorAll('tr')].map(r => [...r.querySelectorAll('th, td')].map(c => c.innerText)),
          active: t.querySelectorAll('b, strong, em, i, a, code, script, .katex, span[class*="Colored"]').length,
          links: document.querySelectorAll('.st-key-light a').length};
}"""


def test_light_table_shows_hostile_names_literally_in_chromium(tmp_path, browser):
    app = tmp_path / "light.py"
    app.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import numpy as np
        import pandas as pd
        import streamlit as st
        from dashboard.pagekit import figures
        names = {NAMES!r}
        df = pd.DataFrame({{"class": names, "β(<i>w</i> | $k$)": [np.nan] + [0.25 * i for i in range(1, len(names))]}})
        with st.container(key="light"):
            figures.show_light_table(st, df, classroom=False,
                                     column_config={{"β(<i>w</i> | $k$)": st.column_config.NumberColumn(format="%.4f")}})
        st.markdown("done-marker")
    """))
    with streamlit_server(root=tmp_path, entry=app.name) as srv:
        page = browser.new_page()
        try:
            page.goto(srv.url + "/")
            page.get_by_text("done-marker").wait_for(timeout=60_000)
            got = page.evaluate(READ_JS)
            grid = page.locator('[data-testid="stDataFrame"]').count()
        finally:
            page.close()
    assert got is not None, "no Markdown table drawn"
    assert grid == 0                                   # the browser's path draws no st.dataframe
    rows = [[c.replace("\u00a0", " ").replace("\u2060", "") for c in r] for r in got["rows"]]
    assert rows[0] == ["class", "β(<i>w</i> | $k$)"]
    assert [r[0] for r in rows[1:]] == NAMES           # each name as typed, in its own cell
    assert all(len(r) == 2 for r in rows)              # a "|" in a name made no extra column
    assert rows[1][1] == "—" and rows[2][1] == "0.2500"
    assert got["active"] == 0 and got["links"] == 0, got
