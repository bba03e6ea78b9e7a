"""Every chart's words for those who cannot see it (dashboard/pagekit/figures.py), and readable chart text.

* ``figure_table``: what a chart draws, as tables, checked on figures built here by hand (lines on
  shared x, horizontal bars, heatmaps with named ticks, histogram bins, point clouds, plotly's typed
  arrays, names with markup);
* the chart text colours: the WCAG 2.1 contrast ratio (computed here from the definition) of the
  player's template and of every axis of the server's charts, against the chart background;
* ``show_chart`` under AppTest: the summary and the table are there, and user text stays text;
* no page calls ``st.plotly_chart`` itself;
* the offline file carries the player's status sentence for every iteration.
"""
from __future__ import annotations

import json
import re

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from plotly.subplots import make_subplots
from streamlit.testing.v1 import AppTest

from dashboard.charts import theme
from dashboard.ui import chart_names, figure_tables
from kit import ROOT

# ---- the WCAG 2.1 contrast ratio, from its definition ------------------------------------------------------

def _luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    rgb = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_formula_on_known_pairs():
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast("#FFFFFF", "#FFFFFF") == pytest.approx(1.0)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)   # the classic "just fails AA" grey
    assert contrast("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)   # and the lightest grey that passes


def test_the_grey_of_marker_lines_and_their_annotations_reads_at_4_5_to_1():
    from dashboard.charts import theme
    assert contrast(theme.GREY, "#FFFFFF") >= 4.5


STREAMLIT_THEME = json.loads((ROOT / "dashboard/lesson/player/streamlit_theme.json").read_text(encoding="utf-8"))


def _font_colours(node, path=()):
    """(path, colour) of every font colour in a plotly layout fragment."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "color" and isinstance(v, str) and path and path[-1] in ("font", "tickfont"):
                yield ".".join(path), v
            else:
                yield from _font_colours(v, path + (k,))


def test_streamlit_grey_alone_fails_aa():
    """Why the app sets its own: Streamlit's chart grey for ticks and axis titles is under 4.5:1."""
    grey = STREAMLIT_THEME["xaxis"]["tickfont"]["color"]
    assert contrast(grey, STREAMLIT_THEME["paper_bgcolor"]) < 4.5


def test_player_template_text_is_at_least_4_5_to_1():
    from dashboard.charts.player_template import chart_template

    layout = chart_template()["layout"]
    found = dict(_font_colours(layout))
    for needed in ("xaxis.tickfont", "yaxis.tickfont", "xaxis.title.font", "yaxis.title.font", "font",
                   "legend.font", "title.font", "coloraxis.colorbar.tickfont"):
        assert needed in found, needed
    for where, colour in found.items():
        for bg in (layout["paper_bgcolor"], layout["plot_bgcolor"]):
            assert contrast(colour, bg) >= 4.5, (where, colour, bg, contrast(colour, bg))


def _effective(layout: dict, axis: str, what: str) -> str:
    """The colour plotly uses for an axis's tick labels ("tickfont") or title ("title") once Streamlit's
    frontend has put its theme into the template: the figure's own layout wins over the template."""
    own = layout.get(axis) or {}
    own = own.get("tickfont", {}) if what == "tickfont" else (own.get("title") or {}).get("font", {})
    if isinstance(own, dict) and own.get("color"):
        return own["color"]
    tpl = STREAMLIT_THEME[axis[0] + "axis"]
    return tpl["tickfont"]["color"] if what == "tickfont" else tpl["title"]["font"]["color"]


def _hand_made_specs():
    fig = make_subplots(rows=1, cols=2, subplot_titles=("left", "right"))
    fig.add_trace(go.Bar(x=["a", "b"], y=[1, 2]), row=1, col=1)
    fig.add_trace(go.Bar(x=["a", "b"], y=[3, 1]), row=1, col=2)
    fig.update_xaxes(title="class")
    yield fig.to_dict()
    yield {"data": [{"type": "heatmap", "z": [[1, 2], [3, 4]], "colorbar": {"title": {"text": "β"}}}],
           "layout": {"title": {"text": "h"}, "xaxis": {"title": "plain string title"}}}
    yield {"data": [{"type": "scatter", "x": [0, 1], "y": [1, 2], "xaxis": "x3", "yaxis": "y3"}], "layout": {}}


def test_warning_text_in_charts_is_readable():
    assert contrast(theme.WARN, theme.CHART_BACKGROUND) < 4.5          # the marker colour alone is not
    assert contrast(theme.WARN_TEXT, theme.CHART_BACKGROUND) >= 4.5
    from dashboard.charts import lesson as lesson_charts
    spec = lesson_charts.likelihood_figure([1, 2, 1.5], [1, 2, 1.5], [1.0, 1.0, 1.0], 2)
    notes = [a for a in spec["layout"].get("annotations", []) if "DOWN" in str(a.get("text"))]
    assert notes and all(contrast(a["font"]["color"], theme.CHART_BACKGROUND) >= 4.5 for a in notes)


def test_every_axis_of_a_server_chart_is_readable():
    for spec in _hand_made_specs():
        before = json.dumps(spec, sort_keys=True, default=str)
        out = theme.readable(spec)
        assert json.dumps(spec, sort_keys=True, default=str) == before   # the cached spec is not changed
        layout = out["layout"]
        axes = [k for k in layout if re.fullmatch(r"[xy]axis\d*", k)]
        assert {"xaxis", "yaxis"} <= set(axes)
        for ax in axes:
            for what in ("tickfont", "title"):
                assert contrast(_effective(layout, ax, what), theme.CHART_BACKGROUND) >= 4.5, (ax, what)
        assert contrast(layout["font"]["color"], theme.CHART_BACKGROUND) >= 4.5
        for tr in out["data"]:
            if tr.get("type") == "heatmap":
                assert contrast(tr["colorbar"]["tickfont"]["color"], theme.CHART_BACKGROUND) >= 4.5
                assert tr["colorbar"]["title"]["text"] == "β"        # the chart's own settings kept
    spec3 = theme.readable(list(_hand_made_specs())[2])
    assert "xaxis3" in spec3["layout"] and "yaxis3" in spec3["layout"]   # axes only traces name
    own = theme.readable({"data": [], "layout": {"xaxis": {"tickfont": {"color": "#000000", "size": 9}}}})
    assert own["layout"]["xaxis"]["tickfont"] == {"color": "#000000", "size": 9}   # a chart's own colour wins


# ---- figure_table on hand-made figures -------------------------------------------------------------------

def test_lines_on_the_same_x_are_one_table():
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1, 2], y=[0.5, 0.6, 0.7], name="EM", mode="lines+markers"))
    fig.add_trace(go.Scatter(x=[0, 1, 2], y=[0.4, None, 0.45], name="supervised", mode="lines"))
    fig.update_layout(title="Accuracy", xaxis_title="iteration <i>t</i>", yaxis_title="accuracy")
    (title, df), = figure_tables.figure_table(fig)
    assert title == "Accuracy"
    assert list(df.columns) == ["iteration t", "EM", "supervised"]
    assert df["iteration t"].tolist() == [0, 1, 2]
    assert df["EM"].tolist() == [0.5, 0.6, 0.7]
    assert df["supervised"].iloc[0] == 0.4 and np.isnan(df["supervised"].iloc[1])


def test_lines_on_different_x_are_separate_tables():
    fig = go.Figure([go.Scatter(x=[0, 1], y=[1, 2], name="a"), go.Scatter(x=[5, 6, 7], y=[3, 4, 5], name="b")])
    tables = figure_tables.figure_table(fig)
    assert [list(df.columns) for _, df in tables] == [["x", "a"], ["x", "b"]]
    assert tables[1][1]["b"].tolist() == [3, 4, 5]


def test_horizontal_bars_keep_their_categories_and_names_are_plain_text():
    fig = go.Figure(go.Bar(x=[0.25, 0.75], y=["&lt;b&gt;ham&lt;/b&gt;", "spam"], orientation="h",
                           name="p(y | x) &amp; more"))
    fig.update_layout(title="<b>Posterior</b>", xaxis_title="probability", yaxis_title="class")
    (title, df), = figure_tables.figure_table(fig)
    assert title == "Posterior"
    assert list(df.columns) == ["class", "p(y | x) & more"]
    assert df["class"].tolist() == ["<b>ham</b>", "spam"]   # what the chart shows, as text
    assert df["p(y | x) & more"].tolist() == [0.25, 0.75]


def test_heatmap_is_its_matrix_with_row_and_column_labels():
    z = [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]
    fig = go.Figure(go.Heatmap(z=z, x=[0, 1, 2], y=["ham", "spam"], name="β"))
    fig.update_layout(title="β per word", xaxis=dict(title="word", tickvals=[0, 1, 2], ticktext=["free", "txt", "win"]),
                      yaxis_title="class")
    (title, df), = figure_tables.figure_table(fig)
    assert "β per word" in title and "β" in title
    assert list(df.columns) == ["class", "free", "txt", "win"]
    assert df["class"].tolist() == ["ham", "spam"]
    assert df[["free", "txt", "win"]].to_numpy().tolist() == z


def test_histogram_is_its_counts_per_bin():
    x = [0.05, 0.1, 0.2, 0.55, 0.95, 0.99]
    fig = go.Figure(go.Histogram(x=x, xbins=dict(start=0, end=1, size=0.25), name="spam"))
    fig.update_layout(xaxis_title="p(spam | x)")
    (title, df), = figure_tables.figure_table(fig)
    assert df["spam"].tolist() == [3, 0, 1, 2]   # counted by hand: [0, .25) [.25, .5) [.5, .75) [.75, 1]
    assert df["p(spam | x) from"].tolist() == [0, 0.25, 0.5, 0.75]
    assert int(df["spam"].sum()) == len(x)


def test_point_clouds_are_a_table_per_trace():
    fig = go.Figure([go.Scatter(x=[1, 1, 2], y=[3, 4, 5], mode="markers", name="A"),
                     go.Scatter(x=[1, 1], y=[0, 9], mode="markers", name="B")])
    fig.update_layout(title="points", xaxis_title="x₁", yaxis_title="x₂")
    tables = figure_tables.figure_table(fig)
    assert [t for t, _ in tables] == ["points: A", "points: B"]
    assert tables[0][1].to_dict("list") == {"x₁": [1, 1, 2], "x₂": [3, 4, 5]}


def test_typed_arrays_as_plotly_sends_them():
    fig = go.Figure(go.Scatter(x=np.arange(4), y=np.array([1.5, 2.5, 3.5, 4.5]), name="n"))
    spec = json.loads(pio.to_json(fig))
    assert isinstance(spec["data"][0]["y"], dict) and "bdata" in spec["data"][0]["y"]   # really the typed form
    (_, df), = figure_tables.figure_table(spec)
    assert df["n"].tolist() == [1.5, 2.5, 3.5, 4.5] and df["x"].tolist() == [0, 1, 2, 3]


def test_long_tables_keep_the_whole_range_and_say_so():
    n = 401   # a density curve on a grid of 401 points
    (title, df), = figure_tables.figure_table(go.Figure(go.Scatter(x=[i / 400 for i in range(n)], y=list(range(n)))))
    assert len(df) <= figure_tables.TABLE_ROWS and "one row in 2 of the 401" in title
    assert df["x"].iloc[0] == 0 and df["x"].iloc[-1] == 1.0        # both ends of the curve are in it
    assert df["y"].tolist()[:3] == [0, 2, 4]


def test_summary_and_name_read_from_the_figure():
    fig = go.Figure(go.Scatter(x=[0, 1, 2, 3], y=[0.877, 0.93, 0.951, 0.95], name="EM", mode="lines"))
    fig.update_layout(title="Accuracy", yaxis=dict(tickformat=".0%"))
    assert chart_names.figure_name(fig) == "Line chart: Accuracy"
    s = chart_names.figure_summary(fig)
    assert "87.7%" in s and "95.0%" in s and "95.1%" in s   # first, last, highest (between them)
    bars = go.Figure(go.Bar(x=["a", "b", "c"], y=[3, 9, 1], name="count"))
    assert chart_names.figure_summary(bars) == "count highest for b (9)." and chart_names.figure_name(bars) == "Bar chart"
    fig.update_layout(xaxis_title="iteration t (540 hidden documents)")
    assert chart_names.figure_summary(fig) == ("EM 87.7% at iteration t = 0, 95.0% at iteration t = 3 "
                                           "(highest 95.1% at iteration t = 2).")


# ---- show_chart in a page (AppTest) ------------------------------------------------------------------------

def _page():
    import plotly.graph_objects as go
    import streamlit as st

    from dashboard.pagekit import figures
    from dashboard.ui.derive import plot_text

    name = "**bold** <b>tag</b> $x$"
    # names in charts are escaped as the app's chart builders do: the table shows them as typed
    fig = go.Figure(go.Bar(x=[plot_text(name), "b"], y=[1, 2], name=plot_text(name)))
    fig.update_layout(title="t")
    ev = figures.show_chart(st, fig, key="demo", name=f"Bar chart: {name}", summary=f"Summary of {name}: 1 and 2.",
                            config={"displayModeBar": False})
    st.session_state["ev"] = ev


def test_show_chart_draws_the_summary_and_the_table_as_text():
    at = AppTest.from_function(_page).run(timeout=60)
    assert not at.exception
    texts = [t.value for t in at.text]
    assert "Summary of **bold** <b>tag</b> $x$: 1 and 2." in texts   # st.text: never Markdown or HTML
    assert not any("bold" in m.value for m in at.markdown)
    (exp,) = [e for e in at.expander if e.label == "Data as a table"]
    assert not exp.dataframe            # closed: no table built or sent
    at.session_state["demo_table"] = True   # the reader opens it
    at.run(timeout=60)
    (exp,) = [e for e in at.expander if e.label == "Data as a table"]
    (df,) = [d.value for d in exp.dataframe]
    assert df.iloc[:, 0].tolist() == ["**bold** <b>tag</b> $x$", "b"] and df.iloc[:, 1].tolist() == [1, 2]
    assert len(at.get("plotly_chart")) == 1


def test_no_page_calls_plotly_chart_itself():
    """Every chart goes through figures.show_chart (name, summary, table, readable text)."""
    offenders = []
    for path in (ROOT / "dashboard").rglob("*.py"):
        if path.name == "figures.py":
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"\.plotly_chart\(", code):
                offenders.append(f"{path.relative_to(ROOT)}:{i}")
    assert not offenders, offenders


# ---- the player's status sentence ------------------------------------------------------------------------------

def test_status_words_of_every_iteration():
    import nbcore
    from nblab import numbers
    from nblab.prepare import Prepared

    ds = nbcore.load_dataset("synthetic_spam")
    y_obs, hidden = nbcore.hide_labels(ds.y, fraction=0.9, random_state=0)
    X = ds.X
    run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled").start(X, y_obs)
    for _ in range(4):
        run.step()
    names = [str(c) for c in ds.class_names]
    prep = Prepared(ds, X, y_obs, hidden, np.asarray(ds.y), 2, names, list(ds.feature_names))
    truth = np.asarray(ds.y)[hidden]
    acc = [float(np.mean(np.asarray(run.predict_proba(t=t)).argmax(axis=1)[hidden] == truth))
           for t in range(len(run.history))]
    alpha_s, params = nbcore.supervised_fit("bernoulli", X, y_obs, 2, 1.0)
    base = float(np.mean(nbcore.predict_proba("bernoulli", alpha_s, params, X).argmax(axis=1)[hidden] == truth))
    words = numbers.iteration_words(run, prep, acc, base)
    assert len(words) == len(run.history)
    for t, text in enumerate(words):
        alpha = np.asarray(run.history[t].alpha, dtype=float)
        assert text.startswith("α " + ", ".join(f"{n} {a:.2f}" for n, a in zip(names, alpha)))
        assert f"accuracy {100 * acc[t]:.1f}" in text
    d = 100 * (acc[-1] - base)
    assert words[-1].endswith(f"{abs(d):.1f} points {'above' if d > 0 else 'below'} supervised")


def test_grouped_bars_off_their_tick_take_its_name():
    fig = go.Figure([go.Bar(x=[0.1, 0.3], y=[0.8, 1.8], orientation="h", name="ham"),
                     go.Bar(x=[0.5, 0.7], y=[1.2, 2.2], orientation="h", name="spam"),
                     go.Scatter(x=[0.12, 0.28], y=[0.8, 1.8], mode="markers", name="before")])
    fig.update_layout(yaxis=dict(tickvals=[1, 2], ticktext=["free", "txt"]), xaxis_title="β")
    tables = figure_tables.figure_table(fig)
    assert len(tables) == 1
    df = tables[0][1]
    assert df.iloc[:, 0].tolist() == ["free", "txt"]
    assert df["ham"].tolist() == [0.1, 0.3] and df["spam"].tolist() == [0.5, 0.7]
    assert df["before"].tolist() == [0.12, 0.28]
    assert "spam highest for txt (0.7)" in chart_names.figure_summary(fig)


def test_status_words_compare_with_the_best_supervised_baseline_of_the_segment():
    """An accuracy that carries its λ segment's best supervised baseline (numbers.Scored) is compared
    with that, and the words say so."""
    from types import SimpleNamespace

    from nblab import numbers

    run = SimpleNamespace(history=[SimpleNamespace(alpha=np.array([0.5, 0.5])),
                                   SimpleNamespace(alpha=np.array([0.6, 0.4]))])
    prep = SimpleNamespace(class_names=["ham", "spam"])
    acc = numbers.with_refs([0.90, 0.93], [0.91, 0.92])
    words = numbers.iteration_words(run, prep, acc, 0.5)
    assert words == ["α ham 0.50, spam 0.50; accuracy 90.0%, 1.0 points below the best supervised",
                     "α ham 0.60, spam 0.40; accuracy 93.0%, 1.0 points above the best supervised"]
