"""docs/extending.md's recipes in Chromium, with the browser player on (the default) and off: a copy
of the repository with every recipe followed to the letter (tests/kit/recipe.py: a page, a lesson
panel, a data set, a built-in event model) runs under `streamlit run`.

The panel (in ``lower_panels()``, holding a toggle) shows the iteration on screen: it follows a Step
and a move of the iteration slider (the player's own slider, or the server's with ``player=off``),
and its toggle works (one call: no DuplicateWidgetID). The page's slider lives in the URL: a link
sets it, and a value out of its range is clamped with a notice. The new data set and the new event
model open in the lesson from a link and take a Step.

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import os
import re

import pytest

from kit import ROOT
from kit.browser import require_chromium, wait_idle
from kit.recipe import PAGE_HI, PAGE_KEY, add_data_set, add_event_model, add_page, add_panel, copy_repo
from kit.server import streamlit_server

pytestmark = pytest.mark.browser

require_chromium()

PLAYER = {"on": "", "off": "&player=off"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = copy_repo(tmp_path_factory.mktemp("recipes"), "dashboard", "nbcore", "datasets")
    add_page(root)
    add_panel(root)
    add_data_set(root)
    add_event_model(root)
    env = {"PYTHONPATH": os.pathsep.join([str(root), str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "NBCORE_DATASETS": str(root / "datasets")}
    with streamlit_server(log_path=root / "streamlit.log", timeout=120, env=env, root=root,
                          entry="dashboard/app.py") as s:
        yield s.url




def _open(browser, url):
    # tall enough that the panels below the charts are in view: the player draws them only then
    page = browser.new_page(viewport={"width": 1280, "height": 3000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="domcontentloaded")
    return page, errors


def _panel(page, t: int, pct: bool = False) -> None:
    unit = r" %" if pct else ""
    page.get_by_text(re.compile(rf"^Hello panel: t = {t}, α = \d+\.\d+{unit}$")).first.wait_for(timeout=120_000)


def _no_exception(page, errors) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, page.locator(
        '[data-testid="stException"]').first.inner_text()
    assert not errors, errors


@pytest.mark.parametrize("player", ["on", "off"])
def test_the_recipes_panel_follows_the_iteration_on_screen_and_its_widget_works(server, browser, player):
    page, errors = _open(browser, f"{server}/?dataset=synthetic_spam&hidden=90{PLAYER[player]}")
    try:
        wait_idle(page)
        if player == "on":
            page.wait_for_function("() => window.nbemPlayerSnapshot?.()?.firstPaint", timeout=120_000)
        else:
            assert page.locator(".nbp-slider").count() == 0
        _panel(page, 0)
        for t in (1, 2):
            page.locator(".st-key-step button:visible").first.click(timeout=60_000)
            page.get_by_text(f"Paused at t = {t}").first.wait_for(timeout=120_000)
            wait_idle(page)
            _panel(page, t)
        # the iteration slider, one step back: the charts show t = 1, and so does the panel
        if player == "on":
            page.locator(".nbp-slider").focus()
        else:
            page.locator('[data-testid="stSlider"] input[aria-label="Show iteration"]').first.focus()
        page.keyboard.press("ArrowLeft")
        _panel(page, 1)
        # the panel's own widget: one call, so one toggle, and it reruns the panel's fragment
        assert page.get_by_text("α as a percentage").count() == 1
        page.get_by_text("α as a percentage").first.click()
        _panel(page, 1, pct=True)
        wait_idle(page)
        _no_exception(page, errors)
    finally:
        page.close()


@pytest.mark.parametrize("player", ["on", "off"])
def test_the_recipes_page_reads_its_widget_from_the_url(server, browser, player):
    page, errors = _open(browser, f"{server}/hello?{PAGE_KEY}=7{PLAYER[player]}")
    try:
        page.get_by_text("Hello × 7").first.wait_for(timeout=120_000)
        assert page.get_by_text("could not use").count() == 0
        page.goto(f"{server}/hello?{PAGE_KEY}=70{PLAYER[player]}", wait_until="domcontentloaded")
        page.get_by_text(f"Hello × {PAGE_HI}").first.wait_for(timeout=120_000)
        page.get_by_text(f"{PAGE_KEY}=70").first.wait_for(timeout=30_000)
        assert f"{PAGE_KEY}={PAGE_HI}" in page.url   # the address bar holds the value used
        _no_exception(page, errors)
    finally:
        page.close()


@pytest.mark.parametrize("player", ["on", "off"])
def test_the_recipes_data_set_and_event_model_run_in_the_lesson(server, browser, player):
    page, errors = _open(browser, f"{server}/?dataset=outing&model=counts_twin&hidden=50{PLAYER[player]}")
    try:
        wait_idle(page)
        page.get_by_text("Ready: t = 0").first.wait_for(timeout=120_000)
        assert page.get_by_text("could not use").count() == 0   # both names were taken from the link
        assert page.get_by_role("radio", name="counts_twin").is_checked()
        page.locator(".st-key-step button:visible").first.click(timeout=60_000)
        page.get_by_text("Paused at t = 1").first.wait_for(timeout=120_000)
        wait_idle(page)
        assert "dataset=outing" in page.url and "model=counts_twin" in page.url
        _no_exception(page, errors)
    finally:
        page.close()
