"""Classroom mode's type scale, measured in Chromium on every page of the app at 1280×720 (a projector).

Every page of dashboard/pages.py is opened with ``?classroom=true``; in what the browser draws:

* every text of every chart (titles, axis titles, tick labels, legends, annotations and subplot titles,
  colour bars), in st.plotly_chart's charts and in the lesson's browser player alike, is at least 18 px;
* so is every label, value, option, button and caption of the controls, in the page and in the sidebar
  once the teacher opens it;
* a slider's value sits above its track and its end labels below it, not on it;
* no chart text leaves its chart (cut off at the edge) and no chart's title overlaps its legend;
* the sidebar starts collapsed, so the charts have the projector's width.

The sizes are the ones the browser computes for the drawn elements (getComputedStyle, getBoundingClientRect),
not the ones the code asks for. One server and one browser for the whole module.
"""
from __future__ import annotations

import os

import pytest

from kit.browser import require_chromium

pytestmark = pytest.mark.browser

sync_api = require_chromium()

#: the smallest text a class reads on a 1280×720 projector
MIN_PX = 18
#: a folder to save each page's screenshots in (for looking at them; none by default)
SHOTS = os.environ.get("NBLAB_SHOTS")

# Pages that draw their results after a button press: (button key, extra query keeping it cheap).
RUN_FIRST = {"restarts": ("rs_go", ""), "budget": ("lb_go", "&lb_seeds=1"), "components": ("cp_run", "&cp_seeds=1")}

# Every drawn text of every chart: its kind, computed size, and whether it leaves its chart; and, per chart,
# whether its title and its legend overlap. Hover labels (drawn on demand) and the mode bar are not text a
# class reads from the screen.
CHARTS_JS = """() => {
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

SIDEBAR_OPEN_JS = """() => { const s = document.querySelector('[data-testid="stSidebar"]');
  if (!s) return false; const r = s.getBoundingClientRect(); return s.getAttribute('aria-expanded') !== 'false' && r.right > 40; }"""

IDLE_JS = ("() => { const e = document.querySelector('[data-test-script-state]');"
           " return !!e && e.getAttribute('data-test-script-state') === 'notRunning'; }")


def _pages():
    from dashboard import pages
    return [(p.path.removeprefix("views/").removesuffix(".py"), p) for p in pages.PAGES]


def _url(server: str, name: str, page) -> str:
    path = "" if page.default else name
    return f"{server}/{path}?classroom=true" + RUN_FIRST.get(name, ("", ""))[1]




def _settle(page) -> None:
    page.locator("h1").first.wait_for(timeout=180_000)
    page.wait_for_timeout(500)
    page.wait_for_function(IDLE_JS, timeout=400_000)
    page.wait_for_timeout(1500)  # plotly lays out


def _shot(page, name: str) -> None:
    """A screenshot into SHOTS, when set (for a person to look at; a slow one is skipped)."""
    if SHOTS:
        try:
            page.screenshot(path=os.path.join(SHOTS, name), timeout=60_000)
        except sync_api.Error:
            pass


def _small(texts: list[dict]) -> list[str]:
    seen, out = set(), []
    for t in texts:
        if t["px"] < MIN_PX and (t["kind"], t["px"], t["text"]) not in seen:
            seen.add((t["kind"], t["px"], t["text"]))
            out.append(f'{t["kind"]} {t["px"]:g}px "{t["text"]}"' + (f' in "{t["chart"]}"' if "chart" in t else ""))
    return out[:8]


def test_every_page_in_classroom_mode_reads_from_the_back_of_the_room(server, browser):
    problems: dict[str, list[str]] = {}
    counted = {"chart texts": 0, "control texts": 0}
    for name, page_def in _pages():
        # a context of its own per page: Streamlit remembers a sidebar opened by hand (the page before)
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        try:
            found: list[str] = []
            page.goto(_url(server, name, page_def), wait_until="domcontentloaded")
            _settle(page)
            if page.evaluate(SIDEBAR_OPEN_JS):
                found.append("the sidebar starts open: the charts do not get the projector's width")
            if name in RUN_FIRST:  # the charts a class reads come after the button
                page.locator(f".st-key-{RUN_FIRST[name][0]} button").first.click(timeout=60_000)
                page.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=400_000)
                page.locator('[data-testid="stProgress"]').first.wait_for(state="detached", timeout=400_000)
                _settle(page)
            charts = page.evaluate(CHARTS_JS)
            main = page.evaluate(CONTROLS_JS, '[data-testid="stMain"]')
            _shot(page, f"{name}_1280x720.png")
            # the teacher opens the sidebar to change a setting: its controls are read from afar too
            if not page.evaluate(SIDEBAR_OPEN_JS):
                page.mouse.move(700, 700)  # the last button's tooltip would cover the sidebar's arrow
                page.keyboard.press("Escape")
                page.locator('[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"] button'
                             ).first.dispatch_event("click")
                page.wait_for_function(SIDEBAR_OPEN_JS, timeout=30_000)
                page.wait_for_timeout(700)
            side = page.evaluate(CONTROLS_JS, '[data-testid="stSidebar"]')
            _shot(page, f"{name}_1280x720_sidebar.png")
            counted["chart texts"] += len(charts["texts"])
            counted["control texts"] += len(main["texts"]) + len(side["texts"])
            found += _small(charts["texts"] + main["texts"] + side["texts"])
            found += [f"cut off: {c}" for c in charts["cut"][:5]]
            found += [f"title overlaps legend: {c}" for c in charts["overlaps"]]
            found += main["sliders"] + side["sliders"]
            assert page.locator('[data-testid="stException"]').count() == 0, name
            if found:
                problems[name] = found
        finally:
            context.close()
    assert counted["chart texts"] > 300 and counted["control texts"] > 200, counted  # the pages were drawn
    assert not problems, "in classroom mode at 1280×720:\n" + "\n".join(
        f"{k}: " + "; ".join(v) for k, v in problems.items())
