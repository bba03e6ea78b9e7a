"""Real browser: classroom mode on a projector.

Every page in classroom mode at 1280×720 and 1920×1080: no text a class must read is cut
off with an ellipsis (metric values and labels, button labels, captions, the sidebar's page
names). Screenshots of every page at 1280×720 go to artifacts/screenshots/classroom/ (look
at them: chart titles must not overlap their legends either).

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import pytest

from kit import ROOT
from kit.browser import require_chromium

SHOTS = ROOT / "artifacts" / "screenshots" / "classroom"

pytestmark = pytest.mark.browser

sync_api = require_chromium()

# Every visible element whose text is cut: CSS ellipsis (text-overflow) with more text than
# room (Streamlit truncates metric values/labels, button labels and nav links this way), and
# text that a fix made spill out of its box instead (a metric value wider than its column,
# a label wider than its button): the box's content is wider than the box.
TRUNCATED_JS = """() => {
  const out = [];
  // text a viewer cannot see (no box, or wholly left of the screen: a collapsed or collapsing sidebar)
  // cannot be cut off for them
  const unseen = e => { const r = e.getBoundingClientRect(); return r.width === 0 || r.right <= 0; };
  for (const e of document.querySelectorAll('[data-testid="stAppViewContainer"] *')) {
    if (!e.offsetParent || !e.innerText || unseen(e)) continue;
    const cs = getComputedStyle(e);
    if (cs.textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1) {
      out.push(e.innerText.trim().slice(0, 60));
    }
  }
  const boxes = '[data-testid="stMetric"], [data-testid="stMetricValue"], [data-testid="stMetricLabel"],'
    + ' [data-testid="stButton"] button, [data-testid="stDownloadButton"] button, [data-testid="stSidebarNavLink"],'
    + ' [data-testid="stPageLink"] a, [data-testid="stCheckbox"], [data-testid="stHeading"], .katex-display';
  for (const e of document.querySelectorAll(boxes)) {
    if (!e.offsetParent || !e.innerText || unseen(e)) continue;
    if (e.scrollWidth > e.clientWidth + 1) out.push('spills: ' + e.innerText.trim().slice(0, 60));
  }
  return out;
}"""

# Streamlit scrolls inside the app, so a full-page screenshot is one screen high: for the
# screenshot the viewport is made as tall as the content (same width, so the same layout).
CONTENT_HEIGHT_JS = """() => {
  const m = document.querySelector('[data-testid="stMain"]') || document.body;
  return Math.max(m.scrollHeight, document.body.scrollHeight);
}"""


def _pages():
    from dashboard import pages
    return [(p.path.removeprefix("views/").removesuffix(".py"), p) for p in pages.PAGES]


# Pages that draw their results after a button press: (button key, extra query keeping it cheap).
RUN_FIRST = {"restarts": ("rs_go", ""), "budget": ("lb_go", "&lb_seeds=1"), "components": ("cp_run", "&cp_seeds=1")}


def _url(server: str, name: str, page) -> str:
    path = page.url_path
    return f"{server}/{path}?classroom=true" + RUN_FIRST.get(name, ("", ""))[1]




def _settle(page) -> None:
    page.locator('[data-testid="stSidebarNav"]').wait_for(state="attached", timeout=180_000)  # collapsed
    page.locator("h1").first.wait_for(timeout=180_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=180_000)
    page.wait_for_timeout(1500)  # plotly lays out


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_classroom_mode_cuts_nothing_off(server, browser, size):
    SHOTS.mkdir(parents=True, exist_ok=True)
    w, h = size
    problems = {}
    for name, page_def in _pages():
        page = browser.new_page(viewport={"width": w, "height": h})
        try:
            page.goto(_url(server, name, page_def), wait_until="domcontentloaded")
            _settle(page)
            if name == "lesson":  # the numbers a class reads appear after a step
                page.locator(".st-key-step button:visible").first.click(timeout=60_000)
                page.get_by_text("Paused at t = 1").first.wait_for(timeout=60_000)
                _settle(page)
            if name in RUN_FIRST:  # the numbers and charts a class reads come after the button
                page.locator(f".st-key-{RUN_FIRST[name][0]} button").first.click(timeout=60_000)
                page.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=400_000)
                page.locator('[data-testid="stProgress"]').first.wait_for(state="detached", timeout=400_000)
                _settle(page)
            cut = page.evaluate(TRUNCATED_JS)
            if cut:
                problems[name] = cut
            if size == (1280, 720):
                page.mouse.move(2, 2)
                page.screenshot(path=str(SHOTS / f"{name}_1280x720_screen.png"))  # what the class sees first
                tall = min(12_000, int(page.evaluate(CONTENT_HEIGHT_JS)))
                page.set_viewport_size({"width": w, "height": max(h, tall)})
                page.wait_for_timeout(1500)  # plotly re-lays out
                page.screenshot(path=str(SHOTS / f"{name}_1280x720.png"), full_page=True)
            assert page.locator('[data-testid="stException"]').count() == 0, name
        finally:
            page.close()
    assert not problems, f"text cut off at {w}×{h}: {problems}"


IDLE_JS = ("() => { const e = document.querySelector('[data-test-script-state]');"
           " return !!e && e.getAttribute('data-test-script-state') === 'notRunning'; }")
# classroom mode as the reader sees it: the toggle on, and the large type (a widget label at the
# classroom size; 14-16 px in normal mode)
MODE_JS = """() => { const t = document.querySelector('.st-key-classroom input');
  const label = document.querySelector('[data-testid="stMain"] h1');
  return {on: !!t && t.checked, h1: label ? parseFloat(getComputedStyle(label).fontSize) : 0,
          label: Math.max(0, ...[...document.querySelectorAll('[data-testid="stWidgetLabel"] p')]
                                   .map((e) => parseFloat(getComputedStyle(e).fontSize)))}; }"""


def _arrive(page) -> dict:
    page.locator("h1").first.wait_for(timeout=180_000)
    page.locator(".st-key-classroom input").first.wait_for(state="attached", timeout=180_000)
    page.wait_for_timeout(500)
    page.wait_for_function(IDLE_JS, timeout=180_000)
    page.wait_for_timeout(800)
    return page.evaluate(MODE_JS)


def _open_sidebar(page) -> None:
    button = page.locator('[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"] button')
    if button.count() and button.first.is_visible():
        button.first.click()
        page.wait_for_timeout(600)


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
            page.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()
            got = _arrive(page)
            if not (got["on"] and got["label"] >= 20 and flag(page.url) == ["true"]):
                lost.append(f"sidebar → {title}: {got}, {page.url}")
        for lesson in ("Hide the labels", "Why smoothing"):  # the default page (a plain href), another page
            page.goto(f"{server}/guided?classroom=true", wait_until="domcontentloaded")
            _arrive(page)
            link = page.locator("a", has_text=f"Open: {lesson}").first
            href = link.get_attribute("href")
            link.click()
            got = _arrive(page)
            if not (got["on"] and got["label"] >= 20 and flag(page.url) == ["true"] and "classroom=true" in href):
                lost.append(f"Open: {lesson} ({href}): {got}, {page.url}")
        # the lesson's narrative in the sidebar links on to the next lesson
        _open_sidebar(page)
        nxt = page.locator('[data-testid="stSidebar"] a', has_text="Next:").first
        href = nxt.get_attribute("href")
        nxt.click()
        got = _arrive(page)
        if not (got["on"] and flag(page.url) == ["true"] and "classroom=true" in href):
            lost.append(f"Next lesson ({href}): {got}, {page.url}")
        # normal mode: the same links add nothing
        page.goto(f"{server}/guided", wait_until="domcontentloaded")
        normal = _arrive(page)
        href = page.locator("a", has_text="Open: Hide the labels").first.get_attribute("href")
        page.locator('[data-testid="stSidebarNav"] a', has_text="The symmetric trap").first.click()
        after = _arrive(page)
        assert not normal["on"] and not after["on"] and "classroom" not in href and not flag(page.url), \
            (normal, after, href, page.url)
        assert after["label"] < 20, after
    finally:
        context.close()
    assert not lost, "classroom mode lost: " + "; ".join(lost)
