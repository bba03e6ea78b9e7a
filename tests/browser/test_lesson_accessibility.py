"""Real browser: the lesson without a mouse, without motion, without sight, and on a projector.

* keyboard only: Tab / Enter / Space / arrow keys drive Step, the E- and M-steps, Play / Pause, the
  iteration slider, a chart's data table, the documents table and the maths panel;
* ``prefers-reduced-motion: reduce``: Play steps from iteration to iteration with no transition;
* what a screen reader reads (aria snapshots): the state in a sentence that follows the iteration,
  charts named as figures, labelled controls;
* classroom mode at 1280×720: the Step and Play controls and the first row of charts are on screen
  together, without scrolling. Screenshots (normal and classroom) go to artifacts/screenshots/a11y/.

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import re

import pytest

from kit import ROOT
from kit.browser import ITER_JS, require_chromium, wait_idle, wait_lesson_idle, wait_still

pytestmark = pytest.mark.browser

sync_api = require_chromium()

SHOTS = ROOT / "artifacts" / "screenshots" / "a11y"
SMALL = "/?dataset=toy_spam&hidden=50&lam=1&init=labeled"



def wait_iteration(page, n: int, timeout=120_000):
    page.wait_for_function(f"() => ({ITER_JS})() === {n}", timeout=timeout)


def settled(page) -> None:
    """Every press answered (the run guard holds none sent or waiting), no script run, the page drawn and still."""
    wait_lesson_idle(page, timeout=120_000)


def tab_to(page, selector: str, limit: int = 150) -> None:
    """Press Tab until the focused element is (inside) ``selector``; fail if it never is."""
    for _ in range(limit):
        if page.evaluate("(s) => !!(document.activeElement && document.activeElement.closest(s))", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def focus_start(page) -> None:
    """Keyboard focus back at the top of the page (as after a page load)."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); }")
    page.locator("h1").first.evaluate("(h) => { h.tabIndex = -1; h.focus(); }")


def open_lesson(browser, server, query=SMALL, **kw):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, **kw)
    page.goto(server + query, wait_until="domcontentloaded")
    wait_idle(page)
    page.get_by_text("Ready: t = 0").first.wait_for(timeout=120_000)
    page.wait_for_function("() => window.nbemPlayerSnapshot?.() && window.nbemPlayerSnapshot?.().main"
                           " && window.nbemPlayerSnapshot?.().main.boxes.every(b => b.gd._fullLayout)", timeout=120_000)
    return page


def test_the_lesson_works_from_the_keyboard(server, browser):
    page = open_lesson(browser, server)
    try:
        focus_start(page)
        tab_to(page, ".st-key-step button")           # Step: Enter, then Space
        page.keyboard.press("Enter")
        wait_iteration(page, 1)
        settled(page)
        focus_start(page)
        tab_to(page, ".st-key-step button")
        page.keyboard.press("Space")
        wait_iteration(page, 2)
        settled(page)
        focus_start(page)
        tab_to(page, ".st-key-e_step button")          # the E-step, then the M-step
        page.keyboard.press("Enter")
        page.get_by_text("Between the half-steps at t = 2").first.wait_for(timeout=120_000)
        settled(page)
        focus_start(page)
        tab_to(page, ".st-key-m_step button")
        page.keyboard.press("Enter")
        wait_iteration(page, 3)
        settled(page)

        focus_start(page)                               # the slider: arrow keys, Home, End
        tab_to(page, ".nbp-slider")
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("() => window.nbemPlayerSnapshot?.().t === 2", timeout=30_000)
        page.keyboard.press("Home")
        page.wait_for_function("() => window.nbemPlayerSnapshot?.().t === 0", timeout=30_000)
        page.keyboard.press("End")
        page.wait_for_function("() => window.nbemPlayerSnapshot?.().t === 3", timeout=30_000)
        settled(page)

        focus_start(page)                               # Play and Pause: Space on the player's button
        tab_to(page, ".nbp-play")
        page.keyboard.press("Space")
        page.wait_for_function("() => window.nbemPlayerSnapshot?.().playing || window.nbemPlayerSnapshot?.().t >= 4", timeout=60_000)
        page.keyboard.press("Space")
        page.wait_for_function("() => !window.nbemPlayerSnapshot?.().playing", timeout=60_000)
        settled(page)

        focus_start(page)                               # a chart's data, as a table
        tab_to(page, ".nbp-data > summary")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.activeElement.closest('details').open"
                               " && document.activeElement.closest('details').querySelectorAll('tbody tr').length > 0",
                               timeout=30_000)

        focus_start(page)                               # the documents table: focus enters, arrows move in it
        page.locator(".st-key-nbem_lower").scroll_into_view_if_needed()   # drawn when in view
        page.locator('[data-testid="stExpander"] [data-testid="stDataFrame"]').first.wait_for(timeout=120_000)
        settled(page)
        tab_to(page, '[data-testid="stExpander"]:has([data-testid="stDataFrame"]) [data-testid="stDataFrame"]', 300)
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("() => !!document.activeElement.closest('[data-testid=\"stDataFrame\"]')")

        focus_start(page)                               # the maths panel: Enter closes and opens it
        page.locator(".st-key-nbem_lower").scroll_into_view_if_needed()   # drawn when in view
        maths = page.locator('[data-testid="stExpander"] details:has(summary:has-text("The maths of this iteration"))')
        maths.first.wait_for(timeout=120_000)
        settled(page)
        maths.locator("summary").first.evaluate("(e) => e.setAttribute('data-test-maths', '')")
        tab_to(page, "[data-test-maths]", 400)
        was = maths.evaluate("(d) => d.open")
        page.keyboard.press("Enter")
        page.wait_for_function("(w) => [...document.querySelectorAll('[data-testid=\"stExpander\"] details')]"
                               ".find(d => d.innerText.includes('The maths of this iteration')).open !== w", arg=was,
                               timeout=30_000)
        page.keyboard.press("Enter")
        page.wait_for_function("(w) => [...document.querySelectorAll('[data-testid=\"stExpander\"] details')]"
                               ".find(d => d.innerText.includes('The maths of this iteration')).open === w", arg=was,
                               timeout=30_000)
        # focus is visible where it is: an outline is drawn around the focused summary
        outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
        assert outline not in ("none", ""), outline
    finally:
        page.close()


def test_play_without_motion_when_asked(server, browser):
    page = open_lesson(browser, server, reduced_motion="reduce")
    try:
        assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
        assert page.evaluate("() => window.nbemPlayerSnapshot?.().reducedMotion") is True
        page.locator(".nbp-play").click()
        page.wait_for_function("() => window.nbemPlayerSnapshot?.().t >= 3", timeout=120_000)
        # the iteration shown at every animation frame over 1.5 s of Play: Play advances in its own
        # animation-frame callback, so between two of these frames it can have moved at most once
        # (a timer would sample less often than that on a busy machine and miss iterations)
        seen = page.evaluate("""() => new Promise(done => {
          const P = () => window.nbemPlayerSnapshot(), out = [], t0 = performance.now();
          const look = now => { out.push(P().t); if (now - t0 < 1500) requestAnimationFrame(look); else done(out); };
          requestAnimationFrame(look); })""")
        if page.evaluate("() => window.nbemPlayerSnapshot?.().playing"):
            page.locator(".nbp-play").click()
        settled(page)
        # every chart drawn with no transition (plotly's layout.transition.duration 0) …
        durations = page.evaluate("""() => [...document.querySelectorAll('.nbp-chart')].map(w => w.querySelector('.js-plotly-plot'))
          .filter(Boolean).map(gd => gd._fullLayout && gd._fullLayout.transition ? gd._fullLayout.transition.duration : null)""")
        assert durations and all(d == 0 for d in durations), durations
        # … Play moves whole iterations (never an in-between frame) …
        assert all(isinstance(t, int) for t in seen) and all(b - a in (0, 1) or b == 0 for a, b in zip(seen, seen[1:])), seen
        # … and the page's own CSS transitions and animations are off
        slow = page.evaluate("""() => [...document.querySelectorAll('button, [data-testid=\"stExpander\"] summary, .nbp-slider')]
          .map(e => getComputedStyle(e)).map(cs => Math.max(...cs.transitionDuration.split(',').map(parseFloat),
          ...cs.animationDuration.split(',').map(parseFloat))).filter(d => d > 0.01)""")
        assert not slow, slow
    finally:
        page.close()


def test_a_screen_reader_hears_the_lesson(server, browser):
    page = open_lesson(browser, server)
    try:
        for i in (1, 2, 3):
            page.locator(".st-key-step button:visible").first.click()
            wait_iteration(page, i)
        settled(page)
        summary = page.get_by_role("status").filter(has_text="Iteration")
        said = summary.aria_snapshot()
        print("\n" + said)
        words = re.compile(r"Iteration 3 of 3: α ham \d\.\d\d, spam \d\.\d\d; accuracy \d+\.\d%, "
                           r"(\d+\.\d points (above|below) the best supervised|the same as the best supervised)")
        assert words.search(said), said
        # the sentence follows the iteration shown (the slider moved back by the keyboard)
        page.get_by_role("slider", name="Show iteration").focus()
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("() => document.querySelector('[data-testid=\"nbpSummary\"]').textContent.startsWith('Iteration 2 of 3:')",
                               timeout=30_000)
        assert "Iteration 2 of 3: α ham" in summary.aria_snapshot()
        # the controls are labelled, the charts are named figures
        assert page.get_by_role("button", name="Play", exact=True).count() == 1
        assert page.get_by_role("slider", name="Show iteration").get_attribute("aria-valuetext") == "Iteration 2 of 3"
        tree = page.locator(".nbp-root").first.aria_snapshot()
        print(tree)
        for name in ("Class priors α", "Accuracy on hidden labels", "Does EM climb?"):
            assert page.get_by_role("figure", name=name).count() == 1, (name, tree)
        assert page.get_by_role("figure", name=re.compile(r" at iteration 2$")).count() >= 1
    finally:
        page.close()


BOXES_JS = """() => { const box = (e) => { if (!e) return null; const b = e.getBoundingClientRect();
  return { top: Math.round(b.top), bottom: Math.round(b.bottom), left: Math.round(b.left), right: Math.round(b.right) }; };
  const first = [...document.querySelectorAll('.nbp-grid .nbp-chart')].map(w => w.querySelector('.js-plotly-plot'));
  const top0 = first.length ? first[0].getBoundingClientRect().top : 0;
  return { step: box(document.querySelector('.st-key-step button')), play: box(document.querySelector('.nbp-play')),
           slider: box(document.querySelector('.nbp-slider')),
           row: first.filter(g => Math.abs(g.getBoundingClientRect().top - top0) < 4).map(box) }; }"""


@pytest.mark.parametrize("classroom", [True, False], ids=["classroom", "normal"])
def test_projector_screen_shows_controls_and_charts(server, browser, classroom):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(server + "/" + ("?classroom=true" if classroom else ""), wait_until="domcontentloaded")
        wait_idle(page)
        page.locator(".st-key-step button:visible").first.click()
        page.get_by_text("Paused at t = 1").first.wait_for(timeout=120_000)
        settled(page)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # no tooltip over the page
        page.mouse.move(1270, 710)
        wait_still(page)   # a tooltip or hover style fading out is over
        mode = "classroom" if classroom else "normal"
        page.screenshot(path=str(SHOTS / f"lesson_{mode}_1280x720.png"))
        boxes = page.evaluate(BOXES_JS)
        print(mode, boxes)
        if not classroom:
            return  # the screenshot only: the normal layout has more on the page than one screen holds
        assert len(boxes["row"]) == 2, boxes
        for what in [boxes["step"], boxes["play"], boxes["slider"], *boxes["row"]]:
            assert what is not None and what["top"] >= 0 and what["bottom"] <= 720, (what, boxes)
            assert what["left"] >= 0 and what["right"] <= 1280, (what, boxes)
    finally:
        page.close()
