"""The page sweep's parts (tests/browser/test_page_sweep.py): what the browser evaluates on an open page
of the app, and the waits that say a page has settled.

Every wait here is on the page's state (a DOM condition polled by ``page.wait_for_function``, the load
state, the fonts, the CSS animations); a time limit is only a guard against a page that never settles.
"""
from __future__ import annotations

from pathlib import Path

from kit.browser import DRAWN_JS, SCRIPT_IDLE_JS

BROWSER_TESTS = Path(__file__).resolve().parents[1] / "browser"

# ---- waits on state ---------------------------------------------------------------------------------------

#: every displayed formula has the page's own CSS (st.html's style element comes with the script run's other
#: elements; on a busy machine a formula can be on screen a moment before it)
KATEX_STYLED_JS = ("() => [...document.querySelectorAll('.katex-display')]"
                   ".every(e => getComputedStyle(e).overflowX === 'visible')")

#: the page as laid out: null while a script runs, a chart has no SVG yet or a widget is still a skeleton;
#: else where its elements, charts and tables are (one string)
LAYOUT_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return null;
  if ([...document.querySelectorAll('[data-testid="stPlotlyChart"]')].some(c => !c.querySelector('.main-svg'))) return null;
  if (document.querySelector('[data-testid="stSkeleton"]')) return null;  // a widget whose code is still coming
  return [...document.querySelectorAll('[data-testid="stElementContainer"], .main-svg, .dvn-scroller')]
    .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height].map(Math.round).join(','); })
    .join(';');
}"""

# true once LAYOUT_JS has given the same boxes three polls in a row (plotly and the grids are laid out after
# the elements arrive); the count lives on the window, reset by wait_layout_still before it polls
_STILL_JS = """() => {
  const now = (%s)();
  const w = window.__sweepStill || (window.__sweepStill = {last: null, same: 0});
  w.same = now !== null && now === w.last ? w.same + 1 : 0;
  w.last = now;
  return w.same >= 2;
}""" % LAYOUT_JS

#: the sidebar is expanded and on screen
SIDEBAR_OPEN_JS = """() => { const s = document.querySelector('[data-testid="stSidebar"]');
  if (!s) return false; const r = s.getBoundingClientRect(); return s.getAttribute('aria-expanded') !== 'false' && r.right > 40; }"""

#: no CSS transition or animation runs in the sidebar (it has finished sliding in)
SIDEBAR_STILL_JS = """() => { const s = document.querySelector('[data-testid="stSidebar"]');
  return !!s && s.getAnimations({subtree: true}).length === 0; }"""

#: the data grid's toolbar (``arg``: the st.dataframe element) is fully shown: opacity 1, its fade-in over
TOOLBAR_SHOWN_JS = """(df) => { const b = df.querySelector('[data-testid="stElementToolbar"]');
  return !b || (getComputedStyle(b).opacity === '1' && b.getAnimations({subtree: true}).length === 0); }"""


def wait_layout_still(page, timeout: float = 300_000) -> None:
    """The script run over, the widgets' code arrived and the layout no longer moving: the same boxes three
    times 250 ms apart."""
    page.evaluate("() => { window.__sweepStill = null; }")
    page.wait_for_function(_STILL_JS, polling=250, timeout=timeout)


def settle(page, timeout: float = 300_000) -> None:
    """An app page drawn and at rest: the sidebar's navigation and the title there (classroom mode: the
    sidebar collapsed, its nav still attached), no script run in progress, no skeleton, every stylesheet and
    font loaded, the network idle, the page's CSS on the formulas, and the layout still."""
    page.locator('[data-testid="stSidebarNav"]').wait_for(state="attached", timeout=180_000)
    page.locator("h1").first.wait_for(timeout=180_000)
    page.wait_for_function(SCRIPT_IDLE_JS, timeout=180_000)
    page.wait_for_function(DRAWN_JS, timeout=180_000)
    page.wait_for_load_state("networkidle", timeout=120_000)  # widgets' code is fetched when first drawn
    page.wait_for_function(KATEX_STYLED_JS, timeout=60_000)
    wait_layout_still(page, timeout)


def settle_charts(page, timeout_error) -> None:
    """settle(), then no script run at all (the status widget gone: a slow page's charts are drawn) and the
    figure scripts run on every chart (they are mounted at the end of each chart's container; a chart
    without its figure is reported by the caller, so that wait only gives up), then the layout still.
    ``timeout_error``: Playwright's TimeoutError."""
    settle(page)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=240_000)
    try:
        page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')]"
                               ".every(p => p.closest('[role=\"figure\"]'))", timeout=20_000)
    except timeout_error:
        pass   # reported chart by chart
    wait_layout_still(page)


def resize(page, width: int, height: int) -> None:
    """The window resized in place (no reload) and the page laid out again at that size."""
    page.set_viewport_size({"width": width, "height": height})
    settle(page)


def open_sidebar(page, timeout_error) -> None:
    """The collapsed sidebar opened as a teacher opens it, and its slide-in finished."""
    page.mouse.move(700, 700)  # the last button's tooltip would cover the sidebar's arrow
    page.keyboard.press("Escape")
    page.locator('[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"] button'
                 ).first.dispatch_event("click")
    page.wait_for_function(SIDEBAR_OPEN_JS, timeout=30_000)
    page.wait_for_function(SIDEBAR_STILL_JS, timeout=30_000)


# ---- axe-core ---------------------------------------------------------------------------------------------

AXE = BROWSER_TESTS / "vendor" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# axe on the whole document; each violation as (rule, impact, how many elements, a few of them)
AXE_JS = """async (tags) => {
  const r = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
  return r.violations.map(v => ({ id: v.id, impact: v.impact, n: v.nodes.length,
    nodes: v.nodes.slice(0, 4).map(x => x.target.join(' ') + ' :: ' + (x.failureSummary || '').slice(0, 160)) }));
}"""


def axe(page) -> list[dict]:
    """The page's axe violations (the tags above), audited only once its stylesheets and fonts have loaded
    and no element is a skeleton (colour contrast read before the CSS arrives is the browser's default)."""
    page.wait_for_function(DRAWN_JS, timeout=180_000)
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_JS, AXE_TAGS)


def axe_report(results: dict[str, list[dict]]) -> str:
    lines = []
    for name, found in results.items():
        total = sum(v["n"] for v in found)
        lines.append(f"{name:32s} {total:3d}  " + ", ".join(f"{v['id']}×{v['n']} ({v['impact']})" for v in found))
    return "\n".join(lines)


def axe_details(results: dict[str, list[dict]]) -> str:
    return "\n".join(f"{name}: {v['id']}: {node}" for name, found in results.items() for v in found
                     for node in v["nodes"])


# ---- every chart: a figure with a name, a summary and its data as a table ---------------------------------

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

# Each figure of a server-drawn chart (not the player's): its opened "Data as a table" holds a table
OPENED_TABLES_JS = """() => [...document.querySelectorAll('[role="figure"]')]
  .filter(f => !f.querySelector('.nbp-data'))
  .map(f => !!f.querySelector('[data-testid="stExpander"] [data-testid="stDataFrame"]')
            || /Nothing is drawn/.test(f.textContent))"""


def _rgb(css: str) -> tuple[float, ...]:
    return tuple(float(v) for v in css[css.index("(") + 1: css.index(")")].split(",")[:3])


def contrast_on_white(css: str) -> float:
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in _rgb(css))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


# ---- layout: text cut, clipped or overlapping -------------------------------------------------------------

PROBE = (BROWSER_TESTS / "layout_probe.js").read_text()


def measure_layout(page, timeout_error) -> list[str]:
    """The layout probe in the page and in its frames (the lesson's player is one). Each table is hovered
    once, so that its toolbar is drawn where the pointer puts it (its fade-in waited for)."""
    out = []
    for df in page.locator('[data-testid="stDataFrame"]:visible').all():
        try:
            df.hover(timeout=5_000)
        except Exception:  # noqa: BLE001 - covered or scrolled away: its other checks run below
            continue
        try:
            page.wait_for_function(TOOLBAR_SHOWN_JS, arg=df.element_handle(), timeout=5_000)
        except timeout_error:
            pass  # a toolbar that does not come is not drawn over anything: the probe says what is shown
        out += [line for line in page.evaluate(PROBE) if "toolbar" in line]
    page.mouse.move(1, 1)
    for frame in page.frames:
        try:
            out += frame.evaluate(PROBE)
        except Exception:  # noqa: BLE001 - a frame of another origin, or gone: nothing of ours to read
            pass
    return list(dict.fromkeys(out))


# ---- classroom mode: nothing cut off with an ellipsis -----------------------------------------------------

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


# ---- classroom mode: the type scale -----------------------------------------------------------------------

# Every drawn text of every chart: its kind, computed size, and whether it leaves its chart; and, per chart,
# whether its title and its legend overlap. Hover labels (drawn on demand) and the mode bar are not text a
# class reads from the screen.
CHARTS_TEXT_JS = """() => {
  const out = {texts: [], cut: [], overlaps: []};
  const shown = (r) => r.width > 0 && r.height > 0;
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const kindOf = (t) => {
    if (t.closest('.hoverlayer, .modebar')) return null;
    if (t.closest('.gtitle') || t.classList.contains('gtitle')) return 'title';
    if (t.closest('.legend')) return 'legend';
    if (t.closest('.colorbar, .cbaxis')) return 'colour bar';
    if (t.closest('.annotation')) return 'annotation';
    if (/^[xy]\\d*title/.test(t.getAttribute('class') || '')) return 'axis title';
    if (t.closest('.xtick, .ytick, [class*="xaxislayer"], [class*="yaxislayer"]')) return 'tick';
    return 'other';
  };
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const svg = plot.querySelector('.main-svg');
    if (!svg) continue;
    const box = svg.getBoundingClientRect();
    if (!shown(box)) continue;
    const title = plot.querySelector('.gtitle');
    const name = title ? title.textContent.slice(0, 50) : '(untitled chart)';
    for (const t of plot.querySelectorAll('svg text')) {
      const kind = kindOf(t);
      const s = (t.textContent || '').trim();
      if (!kind || !s) continue;
      const r = t.getBoundingClientRect();
      if (!shown(r)) continue;
      out.texts.push({kind, px: parseFloat(getComputedStyle(t).fontSize), text: s.slice(0, 40), chart: name});
      if (r.right > box.right + 1 || r.left < box.left - 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.cut.push(`${kind} "${s.slice(0, 40)}" in "${name}"`);
    }
    const legend = plot.querySelector('.legend');
    if (title && legend) {
      const a = title.getBoundingClientRect();
      for (const e of legend.querySelectorAll('text')) {
        const b = e.getBoundingClientRect();
        if (shown(b) && meets(a, b)) { out.overlaps.push(`"${name}" and its legend entry "${e.textContent.slice(0, 30)}"`); break; }
      }
    }
  }
  return out;
}"""

# Every text of the controls inside ``root`` (a CSS selector): labels, values, options, buttons, captions,
# inputs; and each slider whose value or end labels touch its track (the thumb).
CONTROLS_JS = """(root) => {
  const out = {texts: [], sliders: []};
  const scope = document.querySelector(root);
  if (!scope) return out;
  const shown = (r) => r.width > 0 && r.height > 0;
  const IDS = ['stSlider', 'stSelectbox', 'stRadio', 'stMultiSelect', 'stNumberInput', 'stTextInput', 'stTextArea',
               'stCheckbox', 'stButton', 'stDownloadButton', 'stPageLink', 'stCaptionContainer', 'stExpander',
               'stTabs', 'stFileUploader', 'stSegmentedControl', 'stPills'];
  for (const id of IDS) for (const w of scope.querySelectorAll(`[data-testid="${id}"]`)) {
    for (const e of w.querySelectorAll('*')) {
      if (e.closest('.katex, .js-plotly-plot, [data-testid="stIconMaterial"], [data-testid="stTooltipIcon"], svg')) continue;
      const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      const input = (e.tagName === 'INPUT' && e.type !== 'checkbox' && e.type !== 'radio' && e.type !== 'file' && e.value)
        || e.tagName === 'TEXTAREA';
      if (!own && !input) continue;
      const r = e.getBoundingClientRect();
      if (!shown(r) || r.right < 0 || r.left > window.innerWidth) continue;
      out.texts.push({kind: id, px: parseFloat(getComputedStyle(e).fontSize),
                      text: (own ? e.textContent : e.value).trim().slice(0, 40)});
    }
  }
  for (const s of scope.querySelectorAll('[data-testid="stSlider"]')) {
    const thumb = s.querySelector('[role="slider"]');
    if (!thumb) continue;
    const tr = thumb.getBoundingClientRect();
    if (!shown(tr) || tr.right < 0) continue;
    const labelBox = s.querySelector('[data-testid="stWidgetLabel"]');
    const label = (labelBox || s).innerText.trim().slice(0, 40);
    const lr = labelBox ? labelBox.querySelector('p, label').getBoundingClientRect() : null;
    for (const v of s.querySelectorAll('[data-testid="stSliderThumbValue"] p, [data-testid="stSliderThumbValue"]')) {
      const r = v.getBoundingClientRect();
      if (shown(r) && r.bottom > tr.top + 1) out.sliders.push(`"${label}": value ${v.innerText} on the track`);
      if (shown(r) && lr && shown(lr) && r.top < lr.bottom - 1 && lr.top < r.bottom - 1 && r.left < lr.right && lr.left < r.right)
        out.sliders.push(`"${label}": value ${v.innerText} on the label`);
    }
    for (const v of s.querySelectorAll('[data-testid="stSliderTickBarMin"], [data-testid="stSliderTickBarMax"]')) {
      const r = v.getBoundingClientRect();
      if (shown(r) && r.top < tr.bottom - 1) out.sliders.push(`"${label}": end label ${v.innerText} on the track`);
    }
  }
  return out;
}"""


def small_texts(texts: list[dict], min_px: float) -> list[str]:
    """The texts under ``min_px`` (each kind, size and text once; at most eight)."""
    seen, out = set(), []
    for t in texts:
        if t["px"] < min_px and (t["kind"], t["px"], t["text"]) not in seen:
            seen.add((t["kind"], t["px"], t["text"]))
            out.append(f'{t["kind"]} {t["px"]:g}px "{t["text"]}"' + (f' in "{t["chart"]}"' if "chart" in t else ""))
    return out[:8]
