"""Real browser: the maths panel's equation numbers fit their column on a 1280 px projector.

That no text is cut, clipped or drawn over other text on any page (the layout probe,
tests/browser/layout_probe.js, on every page at 1280×720 and 1920×1080, normal and classroom mode) is
checked by the page sweep, tests/browser/test_page_sweep.py, which opens each page once for all its checks.

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import pytest

from kit.browser import require_chromium, wait_idle

pytestmark = pytest.mark.browser

sync_api = require_chromium()


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
