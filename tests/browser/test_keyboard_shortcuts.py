"""A presentation clicker drives the lesson: → / Page Down step, P plays and pauses,
Home resets, E and M do the half-steps. Real browser (Playwright + Debian chromium); screenshots of
the state between the half-steps and of the shortcuts popover go to artifacts/screenshots/."""
from __future__ import annotations

import re

import pytest

from kit import ROOT
from kit.browser import ITER_JS, SNAP, frames, require_chromium, wait_script_done, wait_still

SHOTS = ROOT / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser

sync_api = require_chromium()



def wait_iteration(page, n: int, timeout=180_000):
    page.wait_for_function(f"() => ({ITER_JS})() === {n}", timeout=timeout)


def stopped_iteration(page, timeout=180_000) -> int:
    """The iteration counter once the player has stopped and the server's run that follows is over."""
    page.wait_for_function(f"() => {SNAP} && {SNAP}.playing === false", timeout=timeout)
    wait_script_done(page, timeout=timeout)
    return int(page.evaluate(ITER_JS))


def still_stopped(page) -> tuple:
    """The counter, the player's t and its count of animation ticks over the next 30 painted frames (a
    running Play ticks on every frame): equal ends mean nothing moved."""
    read = f"() => [({ITER_JS})(), {SNAP}.t, {SNAP}.stats.ticks]"
    before = page.evaluate(read)
    frames(page, 30)
    wait_script_done(page)
    return before, page.evaluate(read)


def test_clicker_keys_drive_the_lesson(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1500, "height": 1800})
    try:
        page.goto(server + "/?dataset=toy_spam&hidden=50&lam=1&init=labeled", wait_until="domcontentloaded")
        wait_iteration(page, 0)
        page.get_by_text("Ready: t = 0").first.wait_for(timeout=180_000)
        page.mouse.click(5, 900)  # focus the page, not a widget
        page.keyboard.press("ArrowRight")
        wait_iteration(page, 1)
        page.keyboard.press("PageDown")
        wait_iteration(page, 2)
        page.keyboard.press("e")
        page.get_by_text("Between the half-steps at t = 2").first.wait_for(timeout=180_000)
        wait_still(page)
        page.screenshot(path=str(SHOTS / "lesson_between_half_steps.png"), full_page=True)
        page.keyboard.press("m")
        wait_iteration(page, 3)
        page.keyboard.press("Home")
        wait_iteration(page, 0)
        page.keyboard.press("p")  # Play …
        page.wait_for_function(f"() => ({ITER_JS})() >= 2", timeout=180_000)
        page.keyboard.press("p")  # … and Pause
        # paused again: the player's button reads "▶ Play" (the ▶ is aria-hidden, so the accessible
        # name is "Play"); with ?player=off Streamlit's button reads "Play P" (shortcut hint).
        # Anchored on a word boundary so no other button ("Play speed", …) can match; visible only.
        page.get_by_role("button", name=re.compile(r"^Play\b")).first.wait_for(state="visible", timeout=180_000)
        # and the run really stopped: the counter stays put (a label flip alone would not show that)
        stopped = stopped_iteration(page)
        before, after = still_stopped(page)
        assert before == after and after[0] == stopped, (stopped, before, after)
        page.get_by_role("button", name="Keyboard shortcuts").first.click()
        page.get_by_text("Play / Pause").first.wait_for(timeout=30_000)
        wait_still(page)   # the popover's opening animation is over
        page.screenshot(path=str(SHOTS / "lesson_shortcuts_popover.png"))
    finally:
        page.close()
