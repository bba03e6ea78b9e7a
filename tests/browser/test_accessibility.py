"""Real browser: axe-core (WCAG 2.0 / 2.1, levels A and AA) finds nothing on any page.

Every page of the registry is checked in its default state, in normal and in classroom mode, and the
lesson also while it runs (after a few Steps, the player's charts drawn, the lower panels shown).
axe-core is vendored for the tests only (tests/browser/vendor/axe.min.js, MPL-2.0: NOTICE.md); it is
injected into the page and run on the whole document. The counts per page are printed (``pytest -s``).

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from browser_kit import module_fixtures, require_chromium, wait_idle

pytestmark = pytest.mark.browser

sync_api = require_chromium()

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# axe on the whole document; each violation as (rule, impact, how many elements, a few of them)
AXE_JS = """async (tags) => {
  const r = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
  return r.violations.map(v => ({ id: v.id, impact: v.impact, n: v.nodes.length,
    nodes: v.nodes.slice(0, 4).map(x => x.target.join(' ') + ' :: ' + (x.failureSummary || '').slice(0, 160)) }));
}"""

server, browser = module_fixtures()


def _pages():
    from dashboard import pages
    return [(p.path.removeprefix("views/").removesuffix(".py"), p) for p in pages.PAGES]


def _url(server: str, page, classroom: bool) -> str:
    path = "" if page.default else page.path.removeprefix("views/").removesuffix(".py")
    return f"{server}/{path}" + ("?classroom=true" if classroom else "")


def settle(page) -> None:
    """The page drawn and no script run in progress (plotly laid out)."""
    page.locator('[data-testid="stSidebarNav"]').wait_for(timeout=180_000)
    page.locator("h1").first.wait_for(timeout=180_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=180_000)
    page.wait_for_timeout(1500)


def axe(page) -> list[dict]:
    """The page's axe violations (the tags above)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_JS, TAGS)


def run_lesson(page, steps: int = 3) -> None:
    """A running lesson: a few Steps, the lower panels (documents, maths) drawn."""
    wait_idle(page)
    for i in range(1, steps + 1):
        page.locator(".st-key-step button:visible").first.click(timeout=60_000)
        page.get_by_text(f"Paused at t = {i}").first.wait_for(timeout=120_000)
    settle(page)
    page.locator('[data-testid="stExpander"]').first.wait_for(timeout=120_000)


def _report(results: dict[str, list[dict]]) -> str:
    lines = []
    for name, found in results.items():
        total = sum(v["n"] for v in found)
        lines.append(f"{name:32s} {total:3d}  " + ", ".join(f"{v['id']}×{v['n']} ({v['impact']})" for v in found))
    return "\n".join(lines)


def _details(results: dict[str, list[dict]]) -> str:
    return "\n".join(f"{name}: {v['id']}: {node}" for name, found in results.items() for v in found
                     for node in v["nodes"])


@pytest.mark.parametrize("classroom", [False, True], ids=["normal", "classroom"])
def test_no_axe_violations_on_any_page(server, browser, classroom):
    results: dict[str, list[dict]] = {}
    for name, page_def in _pages():
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        try:
            page.goto(_url(server, page_def, classroom), wait_until="domcontentloaded")
            settle(page)
            results[name] = axe(page)
            if page_def.default:  # the lesson, running
                run_lesson(page)
                results[name + " (after 3 Steps)"] = axe(page)
        finally:
            page.close()
    print(f"\naxe-core violations per page ({'classroom' if classroom else 'normal'} mode), elements per rule:")
    print(_report(results))
    bad = {k: v for k, v in results.items() if v}
    assert not bad, "axe-core violations:\n" + _report(bad) + "\n" + _details(bad)
