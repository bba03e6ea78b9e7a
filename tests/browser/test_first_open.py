"""First opens of the pages: what scripts/bench_first_open.py measures, checked without timing.

* The benchmark runs (``--quick``: the lesson and the smoothing explorer, one open each, one fresh
  server) and its output is sane: every figure positive and finite, each ratio its median over the
  trivial page's, and what it counts on the pages is what the pages hold (the smoothing explorer's two
  charts, counted by AppTest; the lesson player's four).
* A chart page drawn in Chromium loads the app's plotly.js build, never Streamlit's 4.7 MB plotly chunk,
  and draws every chart with the numbers the page computed (AppTest's st.plotly_chart spec is the
  reference), inside the accessible figure container of dashboard/pagekit/figures.py.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from kit import ROOT
from kit.apptest import chart_specs
from kit.browser import CHROMIUM


def test_benchmark_quick_run_gives_sane_output(tmp_path):
    out = tmp_path / "bench.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT), CHROMIUM=CHROMIUM)
    proc = subprocess.run([sys.executable, "scripts/bench_first_open.py", "--quick", "--json", str(out)],
                          cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(out.read_text())
    triv = res["trivial"]
    assert triv["n"] == 2 and 0 < triv["min"] <= triv["median"] <= triv["max"] < 180_000
    assert set(res["app"]) == {"lesson", "smoothing"}
    for name, row in res["app"].items():
        assert row["n"] == 1 and 0 < row["median"] < 180_000 and math.isfinite(row["cpu_ms"]), (name, row)
        assert row["ratio"] == pytest.approx(row["median"] / triv["median"])
        assert row["runs"] >= 1 and row["http_kb"] > 0 and row["ws_kb"] > 0
    # what the benchmark counts is what is on the pages: the smoothing explorer's charts as AppTest builds them
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=300)
    at.switch_page("views/smoothing.py").run()
    assert not at.exception
    assert res["app"]["smoothing"]["plotly"] == len(chart_specs(at)) == 2
    assert res["app"]["lesson"]["player_charts"] == 4  # α, accuracy, objective, the parameter chart
    fresh = res["fresh"]["app"]
    assert fresh["n"] == 1 and 0 < fresh["median"] < 180_000
    assert fresh["ratio"] == pytest.approx(fresh["median"] / res["fresh"]["trivial"]["median"])
    # and the report says it in words
    assert "smoothing" in proc.stdout and "fresh server process" in proc.stdout


DRAWN_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(g => g._fullLayout).map(g => ({
  traces: g._fullData.map(t => ({type: t.type || 'scatter', name: t.name, y: Array.from(t.y || [], v => (v === null || v === undefined) ? NaN : Number(v))})),
  figure: !!g.closest('[role="figure"]'), label: (g.closest('[role="figure"]') || {getAttribute: () => ''}).getAttribute('aria-label')}))"""


def _open_until_drawn(page, url: str, charts: int) -> None:
    """Open ``url`` and wait for its title and ``charts`` plotly graphs with their layout drawn."""
    page.goto(url)
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=240_000)
    page.wait_for_function("(n) => [...document.querySelectorAll('.js-plotly-plot')].filter(g => g._fullLayout).length >= n",
                           arg=charts, timeout=240_000)


def test_chart_page_draws_with_the_apps_plotly_build(server, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = ctx.new_page()
        requested = []
        page.on("request", lambda r: requested.append(r.url))
        _open_until_drawn(page, server + "/smoothing", 2)
        page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')",
                               timeout=240_000)
        drawn = page.evaluate(DRAWN_JS)
        assert any("plotly-nbem.min.js.gz" in u for u in requested), requested
        assert not any("/PlotlyChart." in u for u in requested), [u for u in requested if "Plotly" in u]
    finally:
        ctx.close()
    # the reference: the same page's figures as st.plotly_chart gets them under AppTest
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=300)
    at.switch_page("views/smoothing.py").run()
    specs = chart_specs(at)
    assert len(drawn) == len(specs) == 2
    from dashboard.ui.figure_tables import _array
    for got, spec in zip(drawn, specs):
        assert got["figure"] and got["label"]  # inside figures.py's accessible container
        assert [t["type"] for t in got["traces"]] == [t.get("type") or "scatter" for t in spec["data"]]
        for gt, st_ in zip(got["traces"], spec["data"]):
            want = [float("nan") if v is None else float(v) for v in (_array(st_.get("y")) or [])]
            assert gt["y"] == pytest.approx(want, nan_ok=True)


EARLY_JS = """() => ({
  marks: performance.getEntriesByType('mark').map(m => m.name).filter(n => n.startsWith('nbem-early-')),
  builds: performance.getEntriesByType('resource').filter(r => r.name.includes('plotly-nbem.min.js.gz')).length,
  leftover: document.querySelectorAll('body > div[aria-hidden="true"] .js-plotly-plot').length,
  source: window.__nbemPlotly && window.__nbemPlotly.source,
})"""


def test_a_chart_page_loads_plotly_from_its_html_once_and_no_other_page_does(server, browser):
    """dashboard/serve/early.py: a chart page's HTML preloads the build and evaluates it before its charts mount;
    the charts use that load (the build is fetched once, the preload reused) and no warm-up chart is left
    behind. A page without charts loads no plotly.js at all."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = ctx.new_page()
        _open_until_drawn(page, server + "/coin", 3)
        page.wait_for_function("() => performance.getEntriesByType('mark').some(m => m.name === 'nbem-early-warm')",
                               timeout=60_000)
        got = page.evaluate(EARLY_JS)
        assert got["marks"] == ["nbem-early-start", "nbem-early-idle", "nbem-early-loaded", "nbem-early-warm"]
        assert got["builds"] == 1 and got["source"] == "bundle" and got["leftover"] == 0, got

        page = ctx.new_page()
        page.goto(server + "/guided")
        page.wait_for_selector('[data-testid="stMain"] h1', timeout=240_000)
        page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')",
                               timeout=240_000)
        # every module script of the page has run (load), nothing is being fetched, and the main thread has
        # been idle twice since: an early load (its idle stage, its warm-up) would have begun by now
        page.wait_for_load_state("load", timeout=240_000)
        page.wait_for_load_state("networkidle", timeout=240_000)
        page.evaluate("() => new Promise((done) => requestIdleCallback(() => requestIdleCallback(done, {timeout: 5000}),"
                      " {timeout: 5000}))")
        page.wait_for_load_state("networkidle", timeout=240_000)
        got = page.evaluate(EARLY_JS)
        assert got == {"marks": [], "builds": 0, "leftover": 0, "source": None}, got
    finally:
        ctx.close()
