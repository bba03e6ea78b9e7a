"""The sidebar starts open on a laptop and closed on a phone (dashboard/app.py: initial_sidebar_state "auto").

On a phone an open sidebar is an overlay over the whole page: a student opening the class's link saw the
navigation and settings, not the page. Classroom mode keeps its own rule (collapsed everywhere:
tests/browser/test_page_sweep.py, the type scale).
"""
from __future__ import annotations

import pytest

from kit.browser import STILL_JS

SIDEBAR_OPEN_JS = """() => { const s = document.querySelector('[data-testid="stSidebar"]');
  if (!s) return null; const r = s.getBoundingClientRect();
  return s.getAttribute('aria-expanded') !== 'false' && r.right > 40; }"""
TITLE_SEEN_JS = """() => { const h = document.querySelector('[data-testid="stMain"] h1'); const r = h.getBoundingClientRect();
  const el = document.elementFromPoint(Math.min(r.left + 20, innerWidth - 1), r.top + r.height / 2);
  return !!el && h.contains(el); }"""


@pytest.mark.parametrize("size, is_open", [((390, 844), False), ((1280, 720), True)], ids=["phone", "laptop"])
@pytest.mark.parametrize("path", ["", "coin"], ids=["lesson", "coin"])
def test_the_sidebar_starts_open_on_a_laptop_and_closed_on_a_phone(server, browser, size, is_open, path):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    try:
        page = ctx.new_page()
        page.goto(f"{server}/{path}")
        page.locator('[data-testid="stMain"] h1').first.wait_for(timeout=240_000)
        page.locator('[data-testid="stSidebar"]').wait_for(state="attached", timeout=240_000)
        # the sidebar's opening or closing transition over, in the state it should settle in (guard: 60 s)
        page.wait_for_function(f"() => ({STILL_JS})() && ({SIDEBAR_OPEN_JS})() === {'true' if is_open else 'false'}",
                               timeout=60_000)
        assert page.evaluate(SIDEBAR_OPEN_JS) is is_open
        if not is_open:
            assert page.evaluate(TITLE_SEEN_JS), "the page's title is covered"
    finally:
        ctx.close()
