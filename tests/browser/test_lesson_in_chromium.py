"""Real browser: `streamlit run dashboard/app.py` driven by Playwright + Debian's chromium.

Saves screenshots to artifacts/screenshots/ (start, mid-run, converged,
classroom mode, bad upload) and prints timings (step round trip, play speed,
slider-to-redraw).

Skipped when /usr/bin/chromium is missing, unless env CI is set: then a
missing browser is a failure.
"""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from kit import ROOT
from kit.browser import CHROMIUM, ITER_JS, wait_still

SHOTS = ROOT / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but no browser at {CHROMIUM} (apt-get install -y chromium)", pytrace=False)
    pytest.skip(f"no browser at {CHROMIUM}; install Debian's chromium (apt-get install -y chromium) "
                "or set CHROMIUM=/path/to/chromium", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")








def _wait_iteration(page, pred: str, timeout=30_000):
    """Wait until the Iteration counter n satisfies the JS expression `pred` (in n)."""
    page.wait_for_function(f"() => {{ const n = ({ITER_JS})(); return {pred}; }}", timeout=timeout)


def _iteration(page) -> int:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Iteration").first
    return int(re.sub(r"\D", "", metric.locator('[data-testid="stMetricValue"]').inner_text()))


def _wait_idle(page, timeout=30_000):
    """Wait until the app has finished its rerun (no 'Running…' status widget, charts drawn)."""
    page.wait_for_selector('[data-testid="stMetric"]', timeout=timeout)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=timeout)
    page.wait_for_selector(".js-plotly-plot:not(.nbp-back)", timeout=timeout)  # not the player's hidden copies
    wait_still(page, timeout=timeout)  # plotly has laid out every chart, nothing is moving


def _shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.mouse.move(5, 5)  # no tooltip in the picture
    wait_still(page)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def test_lesson_in_a_real_browser(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 2600})
    page.goto(server, wait_until="domcontentloaded")
    _wait_idle(page)
    assert _iteration(page) == 0
    assert page.get_by_text("Ready").count() > 0
    _shot(page, "01_start")

    # Step: one E+M
    t0 = time.perf_counter()
    page.get_by_role("button", name=re.compile(r"^Step\b")).click()
    _wait_iteration(page, "n === 1")
    step_s = time.perf_counter() - t0
    _wait_idle(page)
    assert _iteration(page) == 1

    # Play: animates by itself, stops at convergence
    page.get_by_role("button", name=re.compile(r"^Play\b")).click()
    t_play = time.perf_counter()
    page.get_by_text("Converged at").first.wait_for(timeout=60_000)
    t_end = time.perf_counter()
    _wait_idle(page)
    n = _iteration(page)
    assert n > 4
    play_speed = (n - 1) / (t_end - t_play)
    _shot(page, "03_converged")

    # scrubber: back to iteration 2 with the keyboard; the charts and the Iteration metric follow
    # (it names the iteration of the accuracy beside it); the caption says how far EM has run
    scrub = page.get_by_role("slider", name="Show iteration")
    scrub.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.get_by_text(f"Showing iteration 2 of {n}").first.wait_for(timeout=20_000)
    page.wait_for_function(f"() => ({ITER_JS})() === 2", timeout=20_000)

    # mid-run picture: Play at the slow speed (one iteration a second), shot while running
    slow = browser.new_page(viewport={"width": 1600, "height": 2600})
    slow.goto(server + "/?speed=slow", wait_until="domcontentloaded")
    _wait_idle(slow)
    slow.get_by_role("button", name=re.compile(r"^Play\b")).click()
    _wait_iteration(slow, "n >= 3")
    slow.get_by_role("button", name=re.compile(r"^Pause\b")).wait_for(timeout=10_000)
    # the status line says it is playing (follows the button's redraw): "Running … t = 3", or "Replaying … t = 3
    # of 15" once the server has computed the run to its end ahead of what is shown (a loaded machine)
    slow.get_by_text(re.compile(r"(Running|Replaying) … t = \d")).first.wait_for(timeout=30_000)
    # the metrics describe the iteration the class sees, not the one computed ahead for the player
    shown = slow.evaluate("""() => { const ms = [...document.querySelectorAll('[data-testid="stMetric"]')];
        const it = ms.find(m => m.innerText.startsWith('Iteration')), acc = ms.find(m => m.innerText.startsWith('Accuracy'));
        return [it.querySelector('[data-testid="stMetricValue"]').innerText, acc.innerText.match(/t=(\\d+)/)[1]]; }""")
    assert shown[0] == shown[1], shown
    _shot(slow, "02_mid_run")
    slow.close()

    # slider change -> redrawn page (keyboard on the 'Labels hidden' slider: 90 % -> 85 %)
    handle = page.get_by_role("slider", name="Labels hidden")
    if handle.count() == 0:
        handle = page.locator('[data-testid="stSidebar"] [role="slider"]').first
    t0 = time.perf_counter()
    handle.first.focus()
    page.keyboard.press("ArrowLeft")
    page.get_by_text("new run").first.wait_for(timeout=30_000)
    _wait_idle(page)
    slider_s = time.perf_counter() - t0
    assert _iteration(page) == 0

    # bad upload: message, previous run kept
    page.get_by_role("button", name=re.compile(r"^Step\b")).click()
    _wait_iteration(page, "n === 1")
    page.get_by_text("Use your own CSV").click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        files=[{"name": "broken.csv", "mimeType": "text/csv", "buffer": b"a,b\n1,2\n"}])
    page.get_by_text("Could not use").first.wait_for(timeout=30_000)
    _wait_idle(page)
    assert _iteration(page) == 1
    _shot(page, "05_bad_upload")

    # classroom mode from a shared link (the whole setup lives in the URL)
    page2 = browser.new_page(viewport={"width": 1600, "height": 2600})
    page2.goto(server + "/?classroom=true&hidden=90", wait_until="domcontentloaded")
    _wait_idle(page2)
    page2.get_by_role("button", name=re.compile(r"^Step\b")).click()
    _wait_iteration(page2, "n === 1")
    _wait_idle(page2)
    assert page2.get_by_text("Advanced").count() == 0
    _shot(page2, "04_classroom")

    # digits: images of β
    page3 = browser.new_page(viewport={"width": 1600, "height": 2600})
    t0 = time.perf_counter()
    page3.goto(server + "/?dataset=digits", wait_until="domcontentloaded")
    _wait_idle(page3)
    page3.get_by_role("button", name=re.compile(r"^Step\b")).click()
    _wait_iteration(page3, "n === 1")
    digits_step = time.perf_counter() - t0
    _wait_idle(page3)
    _shot(page3, "06_digits")

    print(f"\nbrowser timings: step round trip {step_s:.2f} s; play {play_speed:.2f} it/s "
          f"({n - 1} iterations); slider→redraw {slider_s:.2f} s; digits load+step {digits_step:.2f} s")
    for p in (page, page2, page3):
        p.close()
