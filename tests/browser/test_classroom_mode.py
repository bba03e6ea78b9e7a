"""Real browser: classroom mode stays on through every link of the app, and normal mode stays normal.

That classroom mode cuts nothing off on a projector (every page at 1280×720 and 1920×1080, with its
screenshots in artifacts/screenshots/classroom/) is checked by the page sweep,
tests/browser/test_page_sweep.py, which opens each page once for all its checks.

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import pytest

from kit.browser import DRAWN_JS, require_chromium
from kit.sweep import SIDEBAR_OPEN_JS, SIDEBAR_STILL_JS, wait_layout_still

pytestmark = pytest.mark.browser

sync_api = require_chromium()

IDLE_JS = ("() => { const e = document.querySelector('[data-test-script-state]');"
           " return !!e && e.getAttribute('data-test-script-state') === 'notRunning'; }")
# classroom mode as the reader sees it: the toggle on, and the large type (a widget label at the
# classroom size; 14-16 px in normal mode)
MODE_JS = """() => { const t = document.querySelector('.st-key-classroom input');
  const label = document.querySelector('[data-testid="stMain"] h1');
  return {on: !!t && t.checked, h1: label ? parseFloat(getComputedStyle(label).fontSize) : 0,
          label: Math.max(0, ...[...document.querySelectorAll('[data-testid="stWidgetLabel"] p')]
                                   .map((e) => parseFloat(getComputedStyle(e).fontSize)))}; }"""

# Before a click that reruns or switches the page: watch the app's script state, so that arriving waits for
# the run the click starts (not the page still shown from before it). A link that loads a new document
# leaves no watch behind: the new document's own run is then the one waited for.
ARM_JS = """() => { window.__rerunSeen = false; window.__rerunFrom = location.href;
  const app = document.querySelector('[data-test-script-state]');
  if (!app) return;
  new MutationObserver(() => { if (app.getAttribute('data-test-script-state') === 'running') window.__rerunSeen = true; })
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']}); }"""
RERUN_SEEN_JS = "() => window.__rerunSeen !== false || location.href !== window.__rerunFrom"


def _arm(page) -> None:
    page.evaluate(ARM_JS)


def _arrive(page) -> dict:
    """The page a click or a load led to, drawn and at rest: its run started and over, its styles and fonts
    loaded, its layout still; then how classroom mode reads on it."""
    try:
        page.wait_for_function(RERUN_SEEN_JS, timeout=30_000)
    except sync_api.TimeoutError:
        pass  # a run too quick to be seen running: the waits below still hold
    page.locator("h1").first.wait_for(timeout=180_000)
    page.locator(".st-key-classroom input").first.wait_for(state="attached", timeout=180_000)
    page.wait_for_function(IDLE_JS, timeout=180_000)
    page.wait_for_function(DRAWN_JS, timeout=180_000)
    wait_layout_still(page)
    return page.evaluate(MODE_JS)


def _open_sidebar(page) -> None:
    button = page.locator('[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"] button')
    if button.count() and button.first.is_visible():
        button.first.click()
        page.wait_for_function(SIDEBAR_OPEN_JS, timeout=30_000)
        page.wait_for_function(SIDEBAR_STILL_JS, timeout=30_000)


def test_classroom_mode_survives_every_link(server, browser):
    """Opened once with ?classroom=true, classroom mode stays on (toggle, large type, the flag in the URL)
    through sidebar navigation (the first page switch too), a guided lesson's "Open:" links (to the
    default page, an <a href> that loads afresh, and to another page, st.page_link) and the lesson's
    narrative links; and normal mode stays normal through the same links."""
    from urllib.parse import parse_qs, urlparse

    def flag(url: str) -> list[str]:
        return parse_qs(urlparse(url).query).get("classroom", [])

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    lost = []
    try:
        page.goto(f"{server}/?classroom=true", wait_until="domcontentloaded")
        start = _arrive(page)
        assert start["on"] and start["label"] >= 20, start
        for title in ("Guided lessons", "The symmetric trap", "Watch EM learn", "Guided lessons"):
            _open_sidebar(page)
            _arm(page)
            page.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()
            got = _arrive(page)
            if not (got["on"] and got["label"] >= 20 and flag(page.url) == ["true"]):
                lost.append(f"sidebar → {title}: {got}, {page.url}")
        for lesson in ("Hide the labels", "Why smoothing"):  # the default page (a plain href), another page
            page.goto(f"{server}/guided?classroom=true", wait_until="domcontentloaded")
            _arrive(page)
            link = page.locator("a", has_text=f"Open: {lesson}").first
            href = link.get_attribute("href")
            _arm(page)
            link.click()
            got = _arrive(page)
            if not (got["on"] and got["label"] >= 20 and flag(page.url) == ["true"] and "classroom=true" in href):
                lost.append(f"Open: {lesson} ({href}): {got}, {page.url}")
        # the lesson's narrative (under the title, closed in classroom mode) links on to the next lesson
        box = page.locator('[data-testid="stExpander"]', has_text="Guided lesson").first
        box.locator("summary").first.click()
        nxt = box.locator("a", has_text="Next:").first
        nxt.wait_for(timeout=30_000)
        href = nxt.get_attribute("href")
        _arm(page)
        nxt.click()
        got = _arrive(page)
        if not (got["on"] and flag(page.url) == ["true"] and "classroom=true" in href):
            lost.append(f"Next lesson ({href}): {got}, {page.url}")
        # normal mode: the same links add nothing
        page.goto(f"{server}/guided", wait_until="domcontentloaded")
        normal = _arrive(page)
        href = page.locator("a", has_text="Open: Hide the labels").first.get_attribute("href")
        _arm(page)
        page.locator('[data-testid="stSidebarNav"] a', has_text="The symmetric trap").first.click()
        after = _arrive(page)
        assert not normal["on"] and not after["on"] and "classroom" not in href and not flag(page.url), \
            (normal, after, href, page.url)
        assert after["label"] < 20, after
    finally:
        context.close()
    assert not lost, "classroom mode lost: " + "; ".join(lost)
