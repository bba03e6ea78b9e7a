"""Real browser: no text is cut, clipped or drawn over other text on any page.

Every page of the registry (dashboard/pages.py), at 1280×720 and 1920×1080, in normal and in classroom
mode; the pages that draw their results after a button press are run first (cheap settings), the
lesson after a few Steps (its lower panels drawn). Measured from layout boxes (tests/browser/layout_probe.js):

1. HTML text (buttons, select values, metric labels, table cells) wider or taller than a box that
   hides its overflow: text-overflow: ellipsis ("doc…", "M-st…") is one case; a segmented control whose
   options do not all fit (its row scrolls sideways, the last option cut at the edge);
2. chart text (plotly's SVG: titles, annotations, tick labels, legend, bar labels) outside its chart's
   box or on top of other chart text (bounding boxes intersecting);
3. tables: an st.dataframe (a canvas: its columns and cell texts come from the grid's props, text widths
   from the grid's font) whose columns do not all fit, a header or a number cut by its column, the table's
   toolbar drawn over cells while the pointer is on it; an st.table wider than its box.

Every offender of a page is reported in one assertion message per page and mode (a test per page and
mode: ``-k lesson`` runs one page). One server, one browser; each page is loaded once per mode and
measured at both sizes (the window resized in place).

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from kit.browser import require_chromium, wait_idle

pytestmark = pytest.mark.browser

sync_api = require_chromium()

PROBE = (Path(__file__).resolve().parent / "layout_probe.js").read_text()
SIZES = [(1280, 720), (1920, 1080)]

# Pages that draw their results after a button press: (button key, query keeping the run cheap).
RUN_FIRST = {"restarts": ("rs_go", "rs_n=3"), "budget": ("lb_go", "lb_seeds=1"), "components": ("cp_run", "cp_seeds=1")}
LESSON_STEPS = 2
# Pages whose charts come after a few presses: the buttons' keys, pressed in order.
CLICKS = {"climb": ("cl_btn_step", "cl_btn_e")}  # θ_1, its E-step: the bound and the decomposed iteration
# Sliders moved with a key first: (key, key pressed). The coin page with no flip seen yet: at λ = 0 its
# table has no θ_MAP (0/0) and must show that without printing "None".
KEYS = {"coin": ("coin_seen", "Home")}

# Offenders measured and not fixed yet, each named narrowly (page: text in the report line). They are
# printed (pytest -s) on every run; remove an entry once its page is fixed, and the test then guards it.
KNOWN: dict[str, tuple[str, ...]] = {}


def _known(name: str, line: str) -> bool:
    return any(part in line for part in KNOWN.get(name, ()))



def _pages():
    from dashboard import pages
    return [(p.path.removeprefix("views/").removesuffix(".py"), p) for p in pages.PAGES]


def _url(server: str, name: str, page, classroom: bool) -> str:
    path = "" if page.default else name
    query = [q for q in ("classroom=true" if classroom else "", RUN_FIRST.get(name, ("", ""))[1]) if q]
    return f"{server}/{path}" + ("?" + "&".join(query) if query else "")


# the page as laid out: no script run in progress, and where its elements, charts and tables are
LAYOUT_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return null;
  if ([...document.querySelectorAll('[data-testid="stPlotlyChart"]')].some(c => !c.querySelector('.main-svg'))) return null;
  if (document.querySelector('[data-testid="stSkeleton"]')) return null;  // a widget whose code is still coming
  return [...document.querySelectorAll('[data-testid="stElementContainer"], .main-svg, .dvn-scroller')]
    .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height].map(Math.round).join(','); })
    .join(';');
}"""


def _settle(page, timeout: float = 300.0) -> None:
    """Wait until the script run is over, the widgets' code has arrived and the layout has stopped moving
    (the same boxes three times 250 ms apart: plotly and the grids are laid out after the elements arrive)."""
    page.locator("h1").first.wait_for(timeout=180_000)
    page.wait_for_load_state("networkidle", timeout=120_000)  # widgets' code is fetched when first drawn
    deadline, last, same = time.monotonic() + timeout, None, 0
    while time.monotonic() < deadline:
        now = page.evaluate(LAYOUT_JS)
        same = same + 1 if now is not None and now == last else 0
        if same >= 2:
            return
        last = now
        page.wait_for_timeout(250)
    raise AssertionError(f"the page did not settle within {timeout:.0f} s: {page.url}")


def _prepare(page, name: str) -> None:
    """The state a class reads: results drawn, the lesson stepped."""
    if name == "lesson":
        for i in range(1, LESSON_STEPS + 1):
            page.locator(".st-key-step button:visible").first.click(timeout=60_000)
            page.get_by_text(f"Paused at t = {i}").first.wait_for(timeout=120_000)
        _settle(page)
        lower = page.locator(".st-key-nbem_lower")  # the lower panels are drawn once in view
        if lower.count():
            lower.scroll_into_view_if_needed()
            page.locator('[data-testid="stExpander"] summary:has-text("The maths of this iteration")').first.wait_for(
                timeout=120_000)
            _settle(page)
    elif name in KEYS:
        key, press = KEYS[name]
        page.locator(f'.st-key-{key} input[type="range"]').first.press(press, timeout=60_000)
        _settle(page)
    elif name in CLICKS:
        for key in CLICKS[name]:
            page.locator(f".st-key-{key} button").first.click(timeout=60_000)
            _settle(page)
    elif name in RUN_FIRST:
        page.locator(f".st-key-{RUN_FIRST[name][0]} button").first.click(timeout=60_000)
        page.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=300_000)
        page.locator('[data-testid="stProgress"]').first.wait_for(state="detached", timeout=300_000)
        _settle(page)


def _measure(page) -> list[str]:
    """The probe in the page and in its frames (the lesson's player is one). Each table is hovered
    once, so that its toolbar is drawn where the pointer puts it."""
    out = []
    for df in page.locator('[data-testid="stDataFrame"]:visible').all():
        try:
            df.hover(timeout=5_000)
        except Exception:  # noqa: BLE001 - covered or scrolled away: its other checks run below
            continue
        page.wait_for_timeout(150)
        out += [line for line in page.evaluate(PROBE) if "toolbar" in line]
    page.mouse.move(1, 1)
    for frame in page.frames:
        try:
            out += frame.evaluate(PROBE)
        except Exception:  # noqa: BLE001 - a frame of another origin, or gone: nothing of ours to read
            pass
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("classroom", [False, True], ids=["normal", "classroom"])
@pytest.mark.parametrize("name", [name for name, _ in _pages()])
def test_no_text_is_cut_or_overlapping(server, browser, name, classroom):
    page_def = dict(_pages())[name]
    problems: dict[tuple, list[str]] = {}   # (state, width, height) or (width, height) → what was found
    page = browser.new_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
    try:
        page.goto(_url(server, name, page_def, classroom), wait_until="domcontentloaded")
        _settle(page)
        if name == "lesson":   # what the class sees first, t = 0, then the state after a few Steps
            start = [x for x in _measure(page) if not _known(name, x)]
            if start:
                problems[("at t = 0", SIZES[0][0], SIZES[0][1])] = start
        _prepare(page, name)
        assert page.locator('[data-testid="stException"]').count() == 0, name
        for i, (w, h) in enumerate(SIZES):
            if i:
                page.set_viewport_size({"width": w, "height": h})
                _settle(page)  # plotly and the grids lay out again
            found = _measure(page)
            for line in (x for x in found if _known(name, x)):
                print(f"known, not fixed yet: {w}×{h} {name}: {line}")
            found = [x for x in found if not _known(name, x)]
            if found:
                problems[(w, h)] = found
    finally:
        page.close()
    report = "\n".join(f"{' '.join(str(k) for k in key)} {name}:\n    " + "\n    ".join(lines)
                       for key, lines in problems.items())
    assert not report, f"text cut or overlapping ({'classroom' if classroom else 'normal'} mode):\n{report}"


# ---- the maths panel in a browser (1280 px projector) -----------------------------------------------

def test_maths_panel_equation_number_fits_its_column(server, browser):
    """At 1280×720 the E-step column is about 400 px: eq. (21), which ends with its number, must
    end inside its display and its column (else the number is cut to "(2")."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(server + "/", wait_until="domcontentloaded")
        wait_idle(page)
        visible_21 = ("() => [...document.querySelectorAll('.katex-display')]"
                      ".some(e => e.offsetParent && e.innerText.includes('(21)'))")
        lower = page.locator(".st-key-nbem_lower")  # the panels below the charts come when in view
        if lower.count():
            lower.scroll_into_view_if_needed()
        maths = page.locator('[data-testid="stExpander"] details:has(summary:has-text("The maths of this iteration"))')
        maths.first.wait_for(timeout=120_000)
        wait_idle(page)
        if not maths.first.evaluate("(d) => d.open"):  # the panel's expander is closed: open it
            maths.first.locator("summary").click()
        page.wait_for_function(visible_21, timeout=120_000)
        wait_idle(page)  # KaTeX's fonts loaded: the glyphs' boxes are final
        box = page.evaluate("""() => {
          const d = [...document.querySelectorAll('.katex-display')].find(e => e.innerText.includes('(21)'));
          const col = d.closest('[data-testid="stColumn"]') || d.parentElement;
          const c = col.getBoundingClientRect();
          const glyphs = [...d.querySelectorAll('.katex-html *')].filter(e => e.children.length === 0);
          const right = Math.max(...glyphs.map(e => e.getBoundingClientRect().right));
          return {shown: c.right, right, text: d.innerText.slice(-40)};
        }""")
        # the equation, whose last characters are its number, ends inside its column (the
        # last glyph's box may overhang KaTeX's own box by a pixel or two: that is not a cut)
        assert box["right"] <= box["shown"] + 1, box
    finally:
        page.close()
