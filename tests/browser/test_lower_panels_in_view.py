"""Real browser: the panels below the charts (stop rules' numbers, lower bound, documents, maths, exports)
are drawn when they are in view, and then follow the charts.

At 1280x720 they are below the first screen: Steps move the charts and the metrics, and the server builds
nothing below them (their placeholder stays; the maths panel does not exist). Scrolled into view, they
appear at the iteration the charts show; a Step with them in view brings them along (one more rerun of
their own fragment); scrolled away, the charts move alone again, and back in view they catch up.

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import pytest

from kit.browser import ITER_JS, SNAP, require_chromium, wait_idle

pytestmark = pytest.mark.browser

sync_api = require_chromium()


PLACEHOLDER = "appear here when you scroll to them"
MATHS = '[data-testid="stExpander"] summary:has-text("The maths of this iteration")'


def _iteration(page) -> int:
    return page.evaluate(ITER_JS)


def _step(page, to: int) -> None:
    page.locator(".st-key-step button:visible").first.click(timeout=60_000)
    page.get_by_text(f"Paused at t = {to}").first.wait_for(timeout=120_000)
    wait_idle(page)


def _not_asked(page) -> None:
    """Out of view after the Step's run: the player holds the Step's state for the panels, has not asked for
    them (their state is an older one) and sees them out of view, so it will not ask."""
    low = page.evaluate(f"() => {SNAP}.lower")
    assert low and low["want"] and not low["visible"], low
    assert low["drawn"] != low["want"] and low["asked"] != low["want"], low


def _maths_says(page, t: int) -> None:
    """The maths panel is drawn and made of iteration t (its caption names how t was made)."""
    page.locator(MATHS).first.wait_for(timeout=120_000)
    page.get_by_text(f"How iteration {t} was made").first.wait_for(timeout=120_000)


def test_panels_below_the_charts_are_built_when_in_view_and_follow_the_charts(server, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server + "/?dataset=synthetic_spam&hidden=90", wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("Ready: t = 0").first.wait_for(timeout=120_000)
        page.wait_for_function("() => window.nbemPlayerSnapshot?.() && window.nbemPlayerSnapshot?.().firstPaint", timeout=120_000)
        lower = page.locator(".st-key-nbem_lower")
        box = lower.bounding_box()
        assert box is not None and box["y"] > 720 + 200, box   # below the first screen and its margin
        _step(page, 1)
        _step(page, 2)
        _not_asked(page)
        # out of view: the server built nothing below the charts
        assert page.get_by_text(PLACEHOLDER).count() == 1
        assert page.locator(MATHS).count() == 0
        assert _iteration(page) == 2

        lower.scroll_into_view_if_needed()   # the reader scrolls down: the panels come, at t = 2
        _maths_says(page, 2)
        assert page.get_by_text(PLACEHOLDER).count() == 0
        assert page.get_by_text("hidden documents at t = 2").count() >= 1

        # in view, a Step (the → shortcut; focus on the page, not in a text box) brings them along
        page.locator("h1").first.evaluate("(h) => { h.tabIndex = -1; h.focus(); }")
        lower.scroll_into_view_if_needed()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => ({ITER_JS})() === 3", timeout=120_000)
        _maths_says(page, 3)

        # scrolled away: Steps move the charts only; the panels keep t = 3 until they are seen again
        # to the top of the page: the window and every scrolled box the panels are in (Streamlit's main area)
        page.evaluate("() => { for (let e = document.querySelector('.st-key-nbem_lower'); e; e = e.parentElement)"
                      " if (e.scrollTop) e.scrollTop = 0; window.scrollTo(0, 0); }")
        page.wait_for_function(f"() => {SNAP}.lower && !{SNAP}.lower.visible", timeout=30_000)
        _step(page, 4)
        _not_asked(page)
        assert page.get_by_text("How iteration 3 was made").count() >= 1
        assert page.get_by_text("How iteration 4 was made").count() == 0
        lower.scroll_into_view_if_needed()
        _maths_says(page, 4)
        assert not page.evaluate("() => document.querySelector('.st-key-nbem_lower').getAttribute('aria-busy')")
        assert not errors, errors
    finally:
        page.close()
