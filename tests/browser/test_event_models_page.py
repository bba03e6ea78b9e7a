"""Real browser: the Event models page opens, Step moves both runs one iteration, and the charts
and the document's split are drawn. Screenshots go to /tmp/em_shots/ (or $EM_SHOTS).

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from kit.browser import require_chromium, wait_still

pytestmark = pytest.mark.browser
sync_api = require_chromium()
SHOTS = Path(os.environ.get("EM_SHOTS", "/tmp/em_shots"))

ITERATIONS_JS = ("() => [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
                 ".filter(e => e.innerText.includes('Iteration'))"
                 ".map(e => parseInt(e.querySelector('[data-testid=\"stMetricValue\"]').innerText))")
CONTENT_HEIGHT_JS = """() => {
  const m = document.querySelector('[data-testid="stMain"]') || document.body;
  return Math.max(m.scrollHeight, document.body.scrollHeight);
}"""


def _settle(page) -> None:
    page.locator("h1").first.wait_for(timeout=180_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=180_000)
    wait_still(page, timeout=180_000)  # plotly has laid out, nothing is moving


def test_event_models_page_steps_both_runs(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    try:
        page.goto(f"{server}/event_models?evm_hidden=95", wait_until="domcontentloaded")
        page.locator('[data-testid="stMetric"]').first.wait_for(timeout=180_000)
        _settle(page)
        assert page.evaluate(ITERATIONS_JS) == [0, 0]
        page.locator(".st-key-evm_step button").first.click(timeout=60_000)
        page.wait_for_function(f"() => JSON.stringify(({ITERATIONS_JS})()) === '[1,1]'", timeout=60_000)
        _settle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        # the accuracy chart and the document's log-likelihood parts
        assert page.locator('[data-testid="stPlotlyChart"]').count() == 2
        assert page.get_by_text("Why they differ: one hidden document").count() == 1
        page.screenshot(path=str(SHOTS / "event_models_step_screen.png"))
        tall = min(12_000, int(page.evaluate(CONTENT_HEIGHT_JS)))
        page.set_viewport_size({"width": 1500, "height": max(1000, tall)})
        wait_still(page)   # the charts laid out again at the new size
        page.screenshot(path=str(SHOTS / "event_models_step.png"), full_page=True)
    finally:
        page.close()
