"""Waits on the lab page's own state (window.__nblab, nblab/js/boot.js's G) instead of fixed pauses: the
queued draw done, the charts' promise settled, the panels below drawn; a panel scrolled into view drawn; a
stretch of animation frames as long as the player's step interval; fetches counted as the page makes them."""
from __future__ import annotations

import json

from nblab.defaults import DEFAULTS, SPEEDS

#: resolves once the lab page is settled: no draw queued (render's animation frame), the charts' last
#: update (G.drawing) resolved, the panels' queue empty (G.idle()), checked again until nothing was queued
#: meanwhile (a chart update queues the panels in a task of its own). ``g`` is the page's G (a widget's own).
SETTLED_JS = """async (g) => {
  const G = g || window.__nblab;
  const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (let i = 0; i < 20; i++) {
    await frames();
    if (G.drawing) await G.drawing;
    await new Promise(r => setTimeout(r, 0));
    await G.idle();
    if (!G.page.rafPending && !G.panelTimer && !G.panelQueue.length) return true;
  }
  return false;
}"""


def settled(page, g_expr: str = "window.__nblab", timeout: float = 60_000) -> None:
    """Wait until the lab page (or the G at ``g_expr``) has drawn everything it queued."""
    page.wait_for_function(f"() => !!({g_expr}) && !!({g_expr}).lab && typeof ({g_expr}).idle === 'function'",
                           timeout=timeout)
    assert page.evaluate(f"() => ({SETTLED_JS})({g_expr})") is True


#: true once the panel holding ``sel`` is marked in view by the page's IntersectionObserver, drawn for the
#: run's current state (not stale), and no panel is queued or being drawn. While the observer has not
#: marked it in view, it is scrolled into view again: the panels above it grow as they are drawn and can
#: push it back out of view after the first scroll.
PANEL_DRAWN_JS = """(sel) => {
  const G = window.__nblab, node = document.querySelector(sel);
  if (!G || !node) return false;
  const p = G.panels.find(q => q.el.contains(node));
  if (!p) return !!G.ready;               // a panel that could not start (it says so): nothing to draw
  if (!p.visible) { node.scrollIntoView({ block: "center" }); return false; }
  return p.visible && !p.stale && !G.panelTimer && !G.panelQueue.length;
}"""


def show_panel(page, sel: str, timeout: float = 60_000) -> None:
    """Scroll the panel holding ``sel`` into view and wait until the page has drawn it there."""
    page.locator(sel).first.scroll_into_view_if_needed()
    page.wait_for_function(PANEL_DRAWN_JS, arg=sel, timeout=timeout)
    settled(page, timeout=timeout)


#: resolves after animation frames whose timestamps span ``n`` of the player's step intervals (tick, in
#: page_actions.js, steps on an animation frame once an interval has passed since its last step): every
#: frame in which a running player would have moved has then run
FRAMES_JS = """(n) => new Promise(resolve => {
  const G = window.__nblab;
  const SPEEDS = %s;   // nblab/defaults.py's, as the page's vocabulary.js
  const interval = 1000 / (G.fpsOverride || SPEEDS[G.settings.speed] || SPEEDS[%s]);
  let first = null, count = 0;
  const f = (now) => {
    if (first === null) first = now;
    count++;
    if (count > 2 && now - first >= n * interval) resolve(count); else requestAnimationFrame(f);
  };
  requestAnimationFrame(f);
})""" % (json.dumps(SPEEDS), json.dumps(DEFAULTS["speed"]))


def frames_for_steps(page, n: int) -> int:
    """Wait for the animation frames of ``n`` player steps; the number of frames that ran."""
    return page.evaluate(FRAMES_JS, n)


#: an init script: window.__fetches[needle] counts the page's fetch() calls whose URL contains needle, as
#: they are made (a poll's fetch is called synchronously when its timer fires)
def count_fetches_script(needle: str) -> str:
    return ("(() => { const n = %r; window.__fetches = 0; const f = window.fetch;"
            " window.fetch = function (u, ...rest) { if (String(u && u.url || u).includes(n)) window.__fetches++;"
            " return f.call(this, u, ...rest); }; })()" % needle)
