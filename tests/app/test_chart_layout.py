"""Chart layout on a 1280×720 projector and at 1920×1080, normal and classroom font sizes: legends
never over titles, column names never over titles, tick labels that can be read and tell values
apart, titles wrapped for the chart's width, equation numbers that fit their column.

Figure specs are checked as the dicts plotly.js reads (no browser); the maths panel's equation
number, which only a browser lays out, is measured in Chromium (skipped without one)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard.charts import coin as coin_charts
from dashboard.charts import lesson as lesson_charts
from dashboard.charts import side_by_side as side_by_side_charts
from dashboard.charts import switching as switching_charts
from dashboard.charts import theme
from dashboard.charts import trap as trap_charts
from dashboard.lesson.panels import maths

FONT_SIZES = [15, 22]  # normal, classroom


def _layout(fig) -> dict:
    spec = fig.to_dict() if isinstance(fig, go.Figure) else fig
    go.Figure(spec)  # a valid figure
    return spec["layout"]


def _legend_under_title(layout: dict) -> None:
    """The legend above the plot hangs from the bottom of the title band, in container
    coordinates: plotly then reserves its real height (however many rows it wraps to) between
    title and plot, instead of letting extra rows grow upwards over the title."""
    legend = layout["legend"]
    assert legend.get("yref") == "container" and legend.get("yanchor") == "top", legend
    title_bottom_px = (1 - legend["y"]) * layout["height"]
    assert title_bottom_px >= layout["title"]["font"]["size"] + 8, (title_bottom_px, layout["title"])


def _lines(text: str) -> list[str]:
    return re.split(r"<br>", text)


# ---- 1. the coin -------------------------------------------------------------------------------

@pytest.mark.parametrize("fs", FONT_SIZES)
def test_two_coin_chart_legend_under_title_and_readable_iteration_ticks(fs):
    T = 21
    thetas = np.column_stack([np.linspace(0.6, 0.8, T), np.linspace(0.5, 0.52, T)])
    lay = _layout(coin_charts.two_coin_figure(thetas, np.linspace(-12, -10, T), 1, fs,
                                               width=theme.chart_width(fs, 1, 0.4)))
    _legend_under_title(lay)
    x = lay["xaxis"]
    assert x["range"][0] > -1 and x["range"][0] <= 0 < x["range"][1], x  # starts at iteration 0, not −1
    assert x.get("tick0") == 0 and x["dtick"] >= 2, x  # at most ~10 labels over 20 iterations, not 21
    assert (x["range"][1] - x["range"][0]) / x["dtick"] <= 10


@pytest.mark.parametrize("fs", FONT_SIZES)
def test_two_coin_title_wrapped_for_its_narrow_column(fs):
    width = theme.chart_width(fs, 1, 0.4)
    T = 21
    thetas = np.column_stack([np.linspace(0.6, 0.8, T), np.linspace(0.5, 0.52, T)])
    lay = _layout(coin_charts.two_coin_figure(thetas, np.linspace(-12, -10, T), 1, fs, width=width))
    for line in _lines(lay["title"]["text"]):
        assert len(line) * 0.5 * (fs + 4) <= width, line


# ---- 2. label switching -------------------------------------------------------------------------

@pytest.mark.parametrize("fs", FONT_SIZES)
def test_confusion_column_names_have_a_band_under_the_title(fs):
    """The column names are tick labels drawn above the plot (side="top"): the top margin holds
    the title's band and a band for them, so they are not drawn over the title."""
    title = "The matching (outlined) found by linear_sum_assignment"
    lay = _layout(switching_charts.confusion_figure(np.array([[28, 197], [317, 58]]), ["cluster 0", "cluster 1"],
                                                ["ham", "spam"], [(0, 1), (1, 0)], fs, title=title,
                                                width=theme.chart_width(fs, 2)))
    assert lay["xaxis"]["side"] == "top"
    lines = len(_lines(lay["title"]["text"]))
    title_band = int((fs + 4) * 1.35) * lines + 10
    tick_font = lay["xaxis"]["tickfont"]["size"]
    assert lay["margin"]["t"] >= title_band + 1.3 * tick_font, (lay["margin"], title_band)


def test_confusion_title_wrapped_for_half_a_projector_page():
    lay = _layout(switching_charts.confusion_figure(np.eye(2), ["a", "b"], ["a", "b"], [], 15,
                                                title="The matching (outlined) found by linear_sum_assignment",
                                                width=theme.chart_width(15, 2)))
    assert "<br>" in lay["title"]["text"]


# ---- 3. the symmetric trap ----------------------------------------------------------------------

@pytest.mark.parametrize("fs,per_row", [(15, 3), (22, 2)])
def test_trap_axis_and_chart_titles_fit_their_charts(fs, per_row):
    width = theme.chart_width(fs, per_row)
    r = np.full((8, 2), 0.5)
    for fig in (trap_charts.resp_histogram_figure(r, ["AB", "CD"], fs, width=width),
                trap_charts.beta_profiles_figure(np.full((4, 2), 0.5), list("ABCD"), ["AB", "CD"], fs, width=width),
                trap_charts.spread_figure([0.0, 0.0], fs, width=width)):
        lay = _layout(fig)
        for line in _lines(lay["title"]["text"]):
            assert len(line) * 0.5 * (fs + 4) <= width, line
        for line in _lines(lay["xaxis"]["title"]["text"]):
            assert len(line) * 0.5 * fs <= width - 40, line


# ---- 4. ten classes in the lesson ----------------------------------------------------------------

TEN = ["English", "German", "Dutch", "Swedish", "French", "Spanish", "Portuguese", "Italian", "Polish", "Finnish"]


@pytest.mark.parametrize("fs", FONT_SIZES)
def test_ten_class_legends_sit_under_the_lesson_chart_titles(fs):
    K, T = len(TEN), 3
    alphas = np.full((T, K), 1 / K)
    beta = np.random.default_rng(0).random((30, K))
    for spec in (lesson_charts.alpha_figure(alphas, TEN, 1, font_size=fs),
                 lesson_charts.beta_bars_figure(beta, beta * 0.9, [f"w{j}" for j in range(30)], TEN, font_size=fs),
                 lesson_charts.accuracy_figure([0.5, 0.9, 0.95], 0.92, 1, font_size=fs),
                 lesson_charts.truth_figure(beta, beta, TEN, font_size=fs)):
        _legend_under_title(_layout(spec))


@pytest.mark.parametrize("fs", FONT_SIZES)
def test_ten_class_alpha_chart_keeps_its_plot_height(fs):
    """Ten names take several legend rows in a lesson chart (a third of the page, half in
    classroom mode): the figure grows by those rows instead of squashing the plot."""
    K, T = len(TEN), 3
    lay = _layout(lesson_charts.alpha_figure(np.full((T, K), 1 / K), TEN, 1, font_size=fs))
    rows = theme.legend_rows(TEN, fs, theme.chart_width(fs, 2 if fs > 15 else 3))
    assert rows >= 3
    plot_h = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
    assert plot_h >= 200, (lay["height"], lay["margin"])


@pytest.mark.parametrize("fs", FONT_SIZES)
@pytest.mark.parametrize("legend_right", [False, True])
def test_top_y_tick_clears_a_two_line_title(fs, legend_right):
    """The top y tick label is centred on the plot's top edge: the top margin holds the title band (two
    lines in classroom type), the legend's band above the plot if any, and the half of that label that
    stands above the plot (classroom: the Gaussian corner's "0.06" ran into its title)."""
    base = go.Figure(go.Scatter(x=[0, 1], y=[0.0, 0.06], name="density of one class"))
    styled = theme.style(base, "Per-class normal curves over the data", fs, 460, legend_right=legend_right)
    lay = _layout(styled)
    title = lay["title"]["text"]
    lines = len(_lines(title))
    title_band = int((fs + 4) * 1.35) * lines + 10
    legend = lay["legend"]
    above = legend.get("yref") == "container" and legend.get("yanchor") == "top"
    legend_band = (int(fs * 1.5) + 8) if above else 0
    tick = (lay.get("yaxis") or {}).get("tickfont", {}).get("size") or fs
    assert lay["margin"]["t"] >= title_band + legend_band + 0.65 * tick, (lay["margin"], title, legend)


@pytest.mark.parametrize("fs", FONT_SIZES)
def test_lesson_legend_starts_at_the_charts_left_edge(fs):
    """A lesson chart's legend is placed from the chart's left edge (container coordinates), not the plot
    area's, its text a px under the chart's: an entry nearly as wide as a third of the page ("NB at
    λ = 0.003 (leave-one-out): 95.0%", 236 px at 15 px in a 263 px chart) then fits (measured in Chromium by
    tests/browser/test_page_sweep.py, the layout probe)."""
    lay = _layout(lesson_charts.accuracy_figure([0.5, 0.9, 0.95], 0.92, 1, font_size=fs))
    assert lay["legend"].get("xref") == "container" and lay["legend"]["x"] == 0.0, lay["legend"]
    assert lay["legend"]["font"]["size"] <= fs - 1, lay["legend"]


@pytest.mark.parametrize("fs", FONT_SIZES)
def test_a_table_too_wide_for_its_box_is_split_into_tables_that_fit(fs):
    """The two-coin table (a set of flips, its counts, r(A), r(B) and four expected counts: 9 columns) beside
    its chart (3/5 of the page) is two tables, each starting with the set, each as wide as its box allows;
    given the page's whole width in classroom mode it stays one table."""
    import streamlit as st

    from dashboard.ui import table_split

    rng = np.random.default_rng(0)
    cols = ["A: ≈ heads", "A: ≈ tails", "B: ≈ heads", "B: ≈ tails"]
    df = pd.DataFrame({"set": [f"{i + 1}: HTTHHTHTHH" for i in range(5)], "heads": [5] * 5, "tails": [5] * 5,
                       "r(A)": rng.random(5), "r(B)": rng.random(5), **{c: 5 * rng.random(5) for c in cols}})
    config = {c: st.column_config.NumberColumn(format="%.2f") for c in df.columns[3:]}
    width = theme.chart_width(fs, share=1.0 if fs > 15 else 0.6)
    parts = table_split.table_parts(df, width, 1, config)
    assert [c for p in parts for c in p[1:]] == list(df.columns[1:]), parts  # every column once, in order
    assert all(p[0] == "set" for p in parts), parts
    assert all(sum(table_split.column_px(df, c, config.get(c)) for c in p) <= width for p in parts), (parts, width)
    assert len(parts) == (1 if fs > 15 else 2), parts
    # what st.dataframe gave these columns in Chromium at 1280×720 (602 px in all): the estimate is not smaller
    assert sum(table_split.column_px(df, c, config.get(c)) for c in df.columns) >= 602


def test_legend_rows_wraps_for_the_chart_width():
    assert theme.legend_rows(["EM"], 15, 260) == 1
    assert theme.legend_rows(TEN, 15, 260) > theme.legend_rows(TEN, 15, 1400) >= 1
    assert theme.legend_rows([], 15, 260) == 0


# ---- 5. the maths panel's equation numbers -----------------------------------------------------

def test_eq21_is_two_lines_with_its_number_on_the_second():
    """Eq. 21 on one line (with its number) is wider than half a projector page and was cut at
    the column's edge: it is set on two lines, the number after the second."""
    first, second = maths.EQ_21.split(r"\\", 1)
    assert "(21)" in second and "(21)" not in first and r"\propto" in second
    assert "(23)" in maths.EQ_23


# ---- 6. the documents table's r column -------------------------------------------------------------

@pytest.mark.parametrize("names, split", [(["ham", "spam"], True), (["ham", "spam"], False),
                                          (["english", "portuguese", "german", "french"], False)])
@pytest.mark.parametrize("classroom", [False, True])
def test_documents_table_fits_the_main_column(names, split, classroom):
    """At 1280×720 the table's box is the main column less the expander's padding and the selection
    column: the columns shown must add up to no more than that (a column cut at the edge scrolls out of
    a class's sight). The document, its text, both classes, the words split and the r(true class) bar
    (a bar and its number "0.523" side by side: ≥ 140 px) are always shown; for each order, the column it
    sorts by is shown too; every other column is hidden, never dropped (the toolbar shows it again)."""
    from dashboard.charts import theme
    from dashboard.lesson.panels import documents
    frame = documents.documents_frame(np.array([[0.3, 0.7] + [0.0] * (len(names) - 2)] * 3),
                                      None, np.array([0, 1, 0]), np.arange(3), ["a", "b", "c"], names,
                                      split=(np.zeros((3, 2)), np.zeros((3, 2))) if split else None)
    room = theme.MAIN_WIDTH[classroom] - 76
    sorts_by = {"least sure first": "confidence", "most sure first": "confidence",
                "flipped first": "flipped", "wrong first": "correct"}
    for sort in documents.SORTS:
        config, cols, hidden = documents._table_columns(frame, names, split, sort, theme.MAIN_WIDTH[classroom])
        assert sorted(cols) == sorted(frame.columns)          # every column is in the table
        shown = [c for c in cols if c not in hidden]
        widths = {c: config[c]["width"] for c in shown}
        assert all(isinstance(w, int) for w in widths.values()), widths
        assert sum(widths.values()) <= room, (sort, widths)
        assert {"doc", "text", "true", "EM says", "r(true class)"} <= set(shown)
        assert widths["r(true class)"] >= 140 and widths["text"] >= 180
        assert len([c for c in shown if c.startswith(("words present", "words absent"))]) == (2 if split else 0)
        # a class name is never cut: 7.5 px a character and 16 px of padding (the grid's font)
        assert widths["true"] >= 7.5 * max(map(len, names)) + 16
        if sort in sorts_by and sorts_by[sort] in hidden:
            # hidden only when it cannot fit beside the columns always shown
            always = sum(w for c, w in widths.items() if c in ("doc", "true", "EM says", "r(true class)")
                         or c.startswith("words")) + 180
            assert always + config[sorts_by[sort]]["width"] > room
        for c in hidden:
            assert config[c]["hidden"] is True and config[c]["label"]


# ---- 7. side by side --------------------------------------------------------------------------------

@pytest.mark.parametrize("vals", [[0.7972, 0.7935, 0.7928, 0.7925, 0.7923], [0.8, 0.7907], [0.55, 0.91],
                                  [0.7907], [0.5, 0.5]])
def test_percent_ticks_give_distinct_labels(vals):
    ax = theme.percent_ticks(vals)
    decimals = int(ax["tickformat"][1:-1])
    lo, hi = min(vals), max(vals)
    ticks = np.arange(np.floor(lo / ax["dtick"]) - 1, np.ceil(hi / ax["dtick"]) + 2) * ax["dtick"]
    labels = [f"{t * 100:.{decimals}f}" for t in ticks]
    assert len(set(labels)) == len(labels), labels
    assert (hi - lo) / ax["dtick"] <= 8


def test_side_by_side_accuracy_ticks_are_distinct_and_iterations_whole():
    a, b = [0.7907, 0.7925, 0.7935], [0.7972, 0.7972, 0.7981]
    lay = _layout(side_by_side_charts.two_runs_figure(a, b, "A: λ=0.01, labeled", "B: λ=1, labeled", "accuracy",
                                               "Accuracy on the 540 hidden labels", 15, percent=True,
                                               width=theme.chart_width(15, 2)))
    y = lay["yaxis"]
    assert y["tickformat"] != ".0%" and y["dtick"] < 0.01, y
    x = lay["xaxis"]
    assert x["dtick"] >= 1 and x.get("tick0") == 0, x  # no 0.5 iterations
    _legend_under_title(lay)


def test_side_by_side_single_iteration_has_no_half_ticks():
    lay = _layout(side_by_side_charts.two_runs_figure([0.79], [0.80], "A", "B", "accuracy", "Accuracy", 15, percent=True))
    assert lay["xaxis"]["dtick"] == 1 and lay["xaxis"]["range"][0] > -1
