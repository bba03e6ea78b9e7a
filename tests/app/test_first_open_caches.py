"""What makes a first page open fast, checked without timing (scripts/bench_first_open.py measures it):

* dashboard/pagekit/warm.py (started by dashboard/server.py) warms the process: the shipped data sets in the
  process-wide cache every session reads, and a run of the very lesson a new visitor opens;
* dashboard/pagekit/lean_chart.py draws charts with the app's plotly.js build; its per-template cache gives
  what the uncached recipe gives, the same object to every session, and holds at most 8 templates.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")


# ---- warming ---------------------------------------------------------------------------------------

def test_warming_builds_the_lesson_a_new_visitor_opens():
    """The run warm.py builds is the lesson page's own first run: same settings, same numbers."""
    from dashboard.data import datasets
    from dashboard.pagekit import warm
    from nblab import prepare as prep_mod

    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception
    lr = at.session_state["lesson"]
    cfg, lam = warm.default_config()
    assert (cfg, lam) == (lr.cfg, lr.smoothing)
    _, run = prep_mod.build_run(cfg, lam, datasets.get_dataset)
    ours, theirs = run.history[0], lr.run.history[0]
    np.testing.assert_allclose(ours.objective, theirs.objective, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ours.params["beta"]), np.asarray(theirs.params["beta"]), rtol=1e-12)


def test_warming_fills_the_process_cache_every_session_reads():
    """After warm(), every shipped data set is in st.cache_resource: one object per process, the one the
    pages get (not a copy), read-only; a second warm() loads nothing again."""
    import nbcore
    from dashboard.data import datasets
    from dashboard.pagekit import warm

    parts = dict(warm.warm())
    names = list(nbcore.list_datasets())
    assert {f"data set {n}" for n in names} <= set(parts)
    assert "default lesson's run" in parts
    for n in names:
        a = datasets.get_dataset(n)
        assert a is datasets.load_shipped(n)  # shared, not a copy
        assert a is datasets.get_dataset(n, datasets.default_pipeline(n))  # the default settings: the same entry
        if isinstance(a.X, np.ndarray):
            assert not a.X.flags.writeable
    again = dict(warm.warm())
    # cached: the second pass reads each set from the cache (no parsing, no vectorising)
    for n in names:
        assert again[f"data set {n}"] < max(0.05, parts[f"data set {n}"])


def test_start_is_once_per_process_and_can_be_turned_off(monkeypatch):
    from dashboard.pagekit import warm

    monkeypatch.setenv("NBLAB_WARM", "0")
    assert warm.start() is None
    monkeypatch.setenv("NBLAB_WARM", "1")
    t = warm.start()
    assert t is not None and warm.start() is t
    t.join(300)
    st_ = warm.status()
    assert st_["error"] is None and st_["done"] is not None


def test_a_fresh_server_warms_itself():
    """dashboard/server.py starts the warming when the server starts: its log says so, and the warming
    finished without an error, before any page was asked for."""
    from kit.server import streamlit_server

    with streamlit_server() as srv:
        deadline = time.time() + 240
        text = ""
        while time.time() < deadline:
            text = srv.log_path.read_text(errors="replace")
            if "nblab: server warmed" in text or "warming the server failed" in text:
                break
            time.sleep(0.5)
        assert "nblab: server warmed in" in text, text[-2000:]
        assert "default lesson's run" in text or "data set" in text


def test_warming_can_be_imported_without_streamlit_running():
    """warm.py is imported by dashboard/server.py before Streamlit's runtime exists."""
    out = subprocess.run([sys.executable, "-c", "import dashboard.pagekit.warm as w; print(w.STEPS)"],
                         cwd=str(ROOT), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


# ---- the lean charts' template cache -----------------------------------------------------------------

def _uncached(template: dict) -> dict:
    """The recipe of dashboard/charts/player_template.chart_template, applied to ``template``."""
    from dashboard.charts import theme
    from dashboard.charts.player_template import PLAYER_DIR, _merge

    streamlit_theme = json.loads((PLAYER_DIR / "streamlit_theme.json").read_text(encoding="utf-8"))
    tpl = json.loads(json.dumps(template))
    tpl["layout"] = _merge(_merge(tpl.get("layout", {}), streamlit_theme), theme.TEXT_LAYOUT)
    return tpl


def test_template_cache_gives_the_uncached_result_and_the_players_template():
    from dashboard.charts import theme
    from dashboard.charts.player_template import chart_template
    from dashboard.pagekit import lean_chart

    got = lean_chart.streamlit_template(theme.TEMPLATE)
    assert got == _uncached(theme.TEMPLATE)
    # the app's default template comes out as the lesson player's: the two kinds of chart look alike
    assert json.loads(json.dumps(got)) == json.loads(json.dumps(chart_template()))
    import plotly.io as pio
    white = pio.templates["plotly_white"].to_plotly_json()
    assert lean_chart.streamlit_template("plotly_white") == _uncached(json.loads(json.dumps(white, default=list)))


def test_template_cache_is_shared_and_bounded():
    from dashboard.charts import theme
    from dashboard.pagekit import lean_chart

    a = lean_chart.streamlit_template(theme.TEMPLATE)
    b = lean_chart.streamlit_template(json.loads(json.dumps(theme.TEMPLATE)))  # an equal template, another object
    assert a is b  # one object for every chart and session of the process
    for i in range(30):
        lean_chart.streamlit_template({"layout": {"font": {"size": 10 + i}}})
    info = lean_chart._template_json.cache_info()
    assert info.maxsize == 8 and info.currsize <= 8


def test_payload_carries_the_figure_unchanged():
    from dashboard.pagekit import lean_chart

    x = np.linspace(0, 1, 7)
    spec = {"data": [{"type": "scatter", "x": x, "y": x ** 2, "name": "a <b>"}, {"type": "bar", "x": [1, 2], "y": [3, 4]}],
            "layout": {"height": 333, "title": {"text": "t"}}}
    got = json.loads(lean_chart.payload(spec, {"displayModeBar": False}))
    assert got["height"] == 333 and got["config"] == {"displayModeBar": False}
    assert got["spec"]["data"][0]["y"] == pytest.approx(list(x ** 2))
    assert got["spec"]["data"][0]["name"] == "a <b>" and got["spec"]["data"][1]["y"] == [3, 4]
    assert got["spec"]["layout"]["title"] == {"text": "t"}
    assert json.loads(lean_chart.payload({"data": [], "layout": {}}))["height"] == 450  # plotly's default


def test_only_what_the_build_can_draw_goes_to_it(monkeypatch):
    from dashboard.pagekit import lean_chart

    monkeypatch.setattr(lean_chart, "_browser", lambda: True)
    monkeypatch.setattr(lean_chart, "_sources", lambda: {"bundle": "app/static/x.js.gz", "chunk": "static/js/y.js"})
    scatter = {"data": [{"type": "scatter"}, {"y": [1]}, {"type": "heatmap"}, {"type": "bar"}]}
    assert lean_chart.usable(scatter, {"config": {}, "width": "stretch"})
    assert not lean_chart.usable({"data": [{"type": "histogram"}]}, {})  # not in the build
    assert not lean_chart.usable(scatter, {"on_select": "rerun"})        # selections: st.plotly_chart's
    monkeypatch.setattr(lean_chart, "_sources", lambda: None)            # the build cannot be served
    assert not lean_chart.usable(scatter, {})
    monkeypatch.setattr(lean_chart, "_browser", lambda: False)           # AppTest reads st.plotly_chart
    assert not lean_chart.usable(scatter, {})


def test_the_build_has_every_trace_type_it_is_given():
    """TRACES names only trace types the build says it has (its banner: "plotly.js vX (traces: ...)")."""
    import gzip
    import re

    from dashboard.pagekit import lean_chart

    js = gzip.decompress((ROOT / "dashboard" / "static" / "plotly-nbem.min.js.gz").read_bytes()).decode("utf-8", "replace")
    banner = re.search(r"plotly\.js v[\d.]+ \(traces: ([a-z, ]+)\)", js[:400])
    assert banner, js[:400]
    assert lean_chart.TRACES <= {t.strip() for t in banner.group(1).split(",")}
