"""Real browser: axe-core (WCAG 2.0 / 2.1, levels A and AA) finds nothing on any page.

Every page of the registry is checked in its default state, in normal and in classroom mode, and the
lesson also while it runs (after a few Steps, the player's charts drawn, the lower panels shown).
axe-core is vendored for the tests only (tests/browser/vendor/axe.min.js, MPL-2.0: NOTICE.md); it is
injected into the page and run on the whole document. The counts per page are printed (``pytest -s``).

Every plotly chart on every page (and the lesson's server-drawn charts, ``?player=off``) is inside a
``role="figure"`` element with a name, has a summary with numbers, and its data as a table one click away;
its tick labels and axis titles, as Chromium draws them, are at least 4.5:1 on the white chart; with every
table opened, axe still finds nothing.

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from kit.browser import require_chromium, wait_idle

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



def _pages():
    from dashboard import pages
    return [(p.path.removeprefix("views/").removesuffix(".py"), p) for p in pages.PAGES]


def _url(server: str, page, classroom: bool) -> str:
    path = page.url_path
    return f"{server}/{path}" + ("?classroom=true" if classroom else "")


def settle(page) -> None:
    """The page drawn and no script run in progress (plotly laid out)."""
    page.locator('[data-testid="stSidebarNav"]').wait_for(state="attached", timeout=180_000)  # classroom mode: collapsed
    page.locator("h1").first.wait_for(timeout=180_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=180_000)
    # the page's own CSS has arrived (st.html's style element is drawn with the script run's other
    # elements; on a busy machine a formula can be on screen a moment before it)
    page.wait_for_function("() => [...document.querySelectorAll('.katex-display')]"
                           ".every(e => getComputedStyle(e).overflowX === 'visible')", timeout=60_000)
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
    page.locator('[data-testid="stMain"] [data-testid="stExpander"]').first.wait_for(timeout=120_000)  # not the sidebar's (collapsed in classroom mode)
    lower = page.locator(".st-key-nbem_lower")  # with the player, the panels below the charts come in view
    if lower.count():
        lower.scroll_into_view_if_needed()
        page.locator('[data-testid="stExpander"] summary:has-text("The maths of this iteration")').first.wait_for(
            timeout=120_000)
        settle(page)


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


# ---- every chart: a figure with a name, a summary and its data as a table ------------------------------------

# Each plotly chart on the page: the role="figure" element around it, its accessible name, its description
# (aria-describedby, else the player's status sentence) and whether a "Data as a table" control is inside.
FIGURES_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map((p, i) => {
  const f = p.closest('[role="figure"]');
  const player = !!p.closest('.nbp-chart');
  const ids = f ? (f.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean) : [];
  let summary = ids.map(id => document.getElementById(id)).filter(Boolean).map(e => e.textContent).join(' ').trim();
  if (player && !summary) { const s = document.querySelector('[data-testid="nbpSummary"]'); summary = s ? s.textContent.trim() : ''; }
  const toggles = f ? [...f.querySelectorAll('summary')].filter(s => s.textContent.includes('Data as a table')) : [];
  const svgs = [...p.querySelectorAll('svg.main-svg')].filter(s => !s.closest('[aria-hidden="true"]'));
  return { i, player, name: f ? (f.getAttribute('aria-label') || '').trim() : null, summary,
           describedInside: ids.length > 0 && ids.every(id => f.contains(document.getElementById(id))),
           table: toggles.length === 1, svgHidden: svgs.every(s => s.getAttribute('aria-hidden') === 'true') };
})"""

# Tick labels and axis titles as drawn: their fill colours
TEXT_FILLS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(p =>
  [...p.querySelectorAll('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text')].map(t => getComputedStyle(t).fill))"""


def _rgb(css: str) -> tuple[float, ...]:
    return tuple(float(v) for v in css[css.index("(") + 1: css.index(")")].split(",")[:3])


def _contrast_on_white(css: str) -> float:
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in _rgb(css))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


# the charts a page draws by default, at least (the first four after their button is pressed), so that a
# page still drawing is waited for rather than counted as having none
CHARTS = {"lesson": 3, "inspector": 1, "smoothing": 2, "trap": 3, "switching": 2, "side_by_side": 2, "gaussian": 2,
          "coin": 3, "mixture2d": 2, "climb": 2, "event_models": 2, "lesson (server charts)": 3,
          "restarts": 1, "components": 1, "budget": 1, "vocabulary": 1}
BUTTONS = {"restarts": "Run restarts", "components": "Run the comparison", "budget": "Draw the curve",
           "vocabulary": "Draw the curve"}


def settle_charts(page) -> None:
    """settle(), then no script run at all (the status widget gone: a slow page's charts are drawn) and
    the figure scripts run on every chart (they are mounted at the end of each chart's container)."""
    settle(page)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=240_000)
    try:
        page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')]"
                               ".every(p => p.closest('[role=\"figure\"]'))", timeout=20_000)
    except sync_api.TimeoutError:
        pass   # reported chart by chart below
    page.wait_for_timeout(500)


def _open_tables(page) -> None:
    """Open every closed "Data as a table" expander of the server's charts (each open is a rerun)."""
    toggles = page.locator('[role="figure"] [data-testid="stExpander"] summary', has_text="Data as a table")
    for k in range(toggles.count()):
        toggles.nth(k).click()
        settle_charts(page)


def test_every_chart_has_a_name_a_summary_and_a_table(server, browser):
    """On every page (and the lesson with the server's charts, ?player=off, after a Step) every plotly
    chart is inside a role="figure" element with a non-empty name; it has a text summary with numbers in
    it; its data as a table is one click away and, opened, holds a table; plotly's SVG is hidden from
    screen readers; and tick labels and axis titles are drawn at 4.5:1 or more on the white chart."""
    from dashboard import pages as reg

    targets = [(n, _url(server, p, False)) for n, p in _pages()]
    lesson = next(p for p in reg.PAGES if p.default)
    targets.append(("lesson (server charts)", _url(server, lesson, False) + "?player=off"))
    seen, problems, fills = {}, [], []
    for name, url in targets:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        try:
            page.goto(url, wait_until="domcontentloaded")
            settle(page)
            if "player=off" in url:
                run_lesson(page, steps=1)
            if name in BUTTONS:
                page.get_by_role("button", name=BUTTONS[name]).first.click()
                settle(page)
            if name in CHARTS:
                page.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot').length >= {CHARTS[name]}",
                                       timeout=240_000)
            settle_charts(page)
            charts = page.evaluate(FIGURES_JS)
            seen[name] = len(charts)
            for c in charts:
                what = f"{name} chart {c['i']}"
                if not c["name"]:
                    problems.append(f"{what}: no role=figure with a name")
                if not re.search(r"\d", c["summary"] or ""):
                    problems.append(f"{what}: no summary with numbers ({c['summary']!r})")
                if not c["table"]:
                    problems.append(f"{what}: no 'Data as a table'")
                if not c["svgHidden"]:
                    problems.append(f"{what}: plotly's SVG not hidden from screen readers")
                if not c["player"] and not c["describedInside"]:
                    problems.append(f"{what}: aria-describedby does not point at the summary in the figure")
            fills += [(name, f) for f in page.evaluate(TEXT_FILLS_JS)]
            server_charts = [c for c in charts if not c["player"]]
            if server_charts:
                _open_tables(page)
                opened = page.evaluate("""() => [...document.querySelectorAll('[role="figure"]')]
                  .filter(f => !f.querySelector('.nbp-data'))
                  .map(f => !!f.querySelector('[data-testid="stExpander"] [data-testid="stDataFrame"]')
                            || /Nothing is drawn/.test(f.textContent))""")
                if not all(opened) or len(opened) < len(server_charts):
                    problems.append(f"{name}: an opened 'Data as a table' holds no table ({opened})")
                found = axe(page)   # the figures with their tables open: still nothing for axe
                if found:
                    problems.append(f"{name} (tables open): axe: " + _report({name: found}))
        finally:
            page.close()
    print("\ncharts per page:", seen)
    low = sorted({(n, f, round(_contrast_on_white(f), 2)) for n, f in fills if _contrast_on_white(f) < 4.5})
    print("tick/axis-title colours:", sorted({(f, round(_contrast_on_white(f), 2)) for _, f in fills}))
    assert sum(seen.values()) >= 20, seen   # the check ran on the pages' charts, not on nothing
    assert not problems, "\n".join(problems)
    assert not low, low
