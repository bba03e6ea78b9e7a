"""Drawing (Streamlit): every chart of the app outside the lesson's browser player goes through :func:`show_chart`.

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

:func:`dashboard.ui.figure_tables.figure_table` is pure (no Streamlit): the tests build figures by hand and read it.

A page's own tables go through :func:`show_table`: one too wide for its box (columns cut at the box's
edge, out of a class's sight) is shown as several that fit (:mod:`dashboard.ui.table_split`, pure too).

Small read-only tables (a few rows, nothing to select or sort) go through :func:`show_light_table`: in a
browser they are a Markdown table (:mod:`dashboard.ui.markdown_tables`, pure), which the page's Markdown code already
draws, instead of st.dataframe, whose grid code (~1.5 MB of JavaScript) a fresh tab would fetch and
parse first. Every header and cell goes through :func:`dashboard.ui.derive.md_escape`: a class or word
name from an upload stays text. An expander that holds tables is a :func:`lazy_expander`: its content
is built and sent only once the reader opens it.
"""
from __future__ import annotations

import importlib
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit import config as st_config
from streamlit.components import v2

from dashboard.charts import theme
from dashboard.pagekit import lean_chart
from dashboard.ui import controls, figure_tables, markdown_tables, table_split

HERE = Path(__file__).resolve().parent


def show_table(where, df: pd.DataFrame, *, width_px: int, keep: int = 1, column_config: dict | None = None,
               **kwargs) -> None:
    """``df`` in ``where`` (st, a column, a container) as st.dataframe(s) that fit ``width_px`` (the box's
    width on a 1280×720 screen: :func:`dashboard.charts.theme.chart_width`): a table too wide for it is
    shown as several, one under the other, each starting with the first ``keep`` columns
    (:func:`table_parts`). ``kwargs`` go to st.dataframe (``hide_index`` defaults to True)."""
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    config = column_config or {}
    for cols in table_split.table_parts(df, width_px, keep, config):
        where.dataframe(df[cols], column_config={c: v for c, v in config.items() if c in cols} or None, **kwargs)


def _register():
    try:
        return v2.component("nbem_figure", js=(HERE / "figures.js").read_text(encoding="utf-8"),
                            isolate_styles=False)
    except Exception:  # components v2 missing or refused: the name is left out, the rest is drawn
        return None


_COMPONENT = _register()


def _app_test() -> bool:
    """Whether streamlit.testing's AppTest runs the page (no browser)."""
    try:  # streamlit.config: st.get_option hides "global.*" options
        return bool(st_config.get_option("global.appTest"))
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
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


# bounded: the shared entries are the pages' default charts (about 30); a client trying many settings
# (or uploads) can only replace entries, never grow the process's memory past this many figures
@st.cache_data(show_spinner=False, max_entries=64)
def _cached_figure(module: str, name: str, args: tuple, kwargs: dict) -> dict:
    return figure_tables.spec_of(_import_builder(module, name)(*args, **kwargs))


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
    config = column_config or {}
    if _app_test():
        if width_px is None:
            where.dataframe(df, hide_index=hide_index, width="stretch", column_config=config or None)
        else:
            show_table(where, df, width_px=width_px, keep=keep, column_config=config, hide_index=hide_index)
        return
    shown = markdown_tables.columns_shown(df, hide_index)
    if classroom is None:
        classroom = controls.classroom_wanted()
    font_px = 22.0 if classroom else 16.0
    groups = ([list(shown.columns)] if width_px is None else
              table_split.light_table_parts(shown, width_px, keep + (0 if hide_index else 1), config, font_px))
    for cols in groups:
        where.markdown(markdown_tables.markdown_table(shown[cols], config, hide_index=True))


def show_chart(where, fig, *, key: str, name: str, summary: str, **plotly_kwargs):
    """Draw ``fig`` in ``where`` (st, a column, a container) with an accessible name (``name``), a
    visible one- or two-sentence ``summary`` with the chart's key numbers, and its data as tables.
    ``plotly_kwargs`` go to ``st.plotly_chart`` unchanged (``config``, ``on_select``,
    ``selection_mode``, ``width``...); returns what it returns (the selection event, if any)."""
    # readable colours, and in classroom mode the projector's type scale on every text of the chart
    spec = theme.readable(theme.type_scale(figure_tables.spec_of(fig), controls.classroom_wanted()))
    box = where.container(key=f"{key}_fig")
    with box:
        if lean_chart.usable(spec, plotly_kwargs):
            event = lean_chart.draw(spec, key=key, **plotly_kwargs)
        else:
            event = st.plotly_chart(theme.figure(spec), key=key, **plotly_kwargs)
        st.text(summary, width="stretch")
        # the tables are built and sent only once the reader opens the expander (a rerun): most never do
        with lazy_expander(st, "Data as a table", key=f"{key}_table") as opened:
            if opened:
                tables = figure_tables.figure_table(spec)
                for title, df in tables:
                    st.text(title)
                    st.dataframe(df, hide_index=True, width="stretch")
                if not tables:
                    st.text("Nothing is drawn in this chart yet.")
        if _browser():
            _COMPONENT(key=f"{key}_a11y", data={"box": f"{key}_fig", "name": str(name)})
    return event
