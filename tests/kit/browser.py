"""What every real-browser test shares (Playwright driving Debian's Chromium): where the browser is, its
flags, the skip-or-fail guard, waits on the page's state, and the lesson's iteration counter.

The browser tier's session fixtures (one Chromium, one Streamlit server per entry and environment) are in
tests/browser/conftest.py; a test takes ``browser`` (and ``server``) as arguments and opens its pages in a
context of its own (``browser.new_page()`` or ``browser.new_context()``)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

ITER_JS = ("() => { const m = [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
           ".find(e => e.innerText.includes('Iteration'));"
           " return m ? parseInt(m.querySelector('[data-testid=\"stMetricValue\"]').innerText) : -1; }")

#: true once Streamlit runs no script for the page (its status widget is gone or not "Running")
SCRIPT_IDLE_JS = ("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
                  " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')")

#: true once no element of the page is a skeleton (Streamlit's placeholder for an element still loading)
#: and every stylesheet of the document has loaded
DRAWN_JS = ("() => !document.querySelector('[data-testid=\"stSkeleton\"]')"
            " && [...document.styleSheets].every(s => { try { return s.cssRules !== null; } catch (e) { return true; } })"
            " && document.fonts.status === 'loaded'")


def require_chromium():
    """Skip the calling test module when there is no browser (fail instead when CI is set: the
    browser tests are required there); return ``playwright.sync_api``. Call at module level."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but no browser at {CHROMIUM} (apt-get install -y chromium)", pytrace=False)
        pytest.skip(f"no browser at {CHROMIUM}", allow_module_level=True)
    return pytest.importorskip("playwright.sync_api")


def launch(sync_api_playwright):
    """Chromium headless with the flags above, from a started ``sync_playwright()``."""
    return sync_api_playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)


def wait_idle(page, timeout=240_000):
    """The lesson page drawn and settled: its metrics shown, no script run in progress, no element still a
    skeleton, its styles and fonts loaded (a first load on a busy 2-core machine can take a minute)."""
    page.wait_for_selector('[data-testid="stMetric"]', timeout=timeout)
    page.wait_for_function(SCRIPT_IDLE_JS, timeout=timeout)
    page.wait_for_function(DRAWN_JS, timeout=timeout)
    page.wait_for_load_state("networkidle", timeout=timeout)
    page.wait_for_function(SCRIPT_IDLE_JS, timeout=timeout)
    page.wait_for_function(LOWER_DRAWN_JS, timeout=timeout)
    page.wait_for_function(SCRIPT_IDLE_JS, timeout=timeout)


#: true once nothing on the page is moving: no CSS transition or finite animation running (the sidebar's
#: slide, a dialog's fade; a spinner's endless animation does not count) and every plotly chart shown is
#: laid out and not in a transition
STILL_JS = ("() => document.getAnimations().every(a => a.playState !== 'running'"
            " || (a.effect && a.effect.getTiming().iterations === Infinity))"
            " && [...document.querySelectorAll('.js-plotly-plot')].every(g => g._fullLayout && !g._transitioning"
            " && !(g._transitionData && g._transitionData._frameQueue && g._transitionData._frameQueue.length))")

#: the player's state (window.nbemPlayerSnapshot(), dashboard/lesson/player/player.js), null before it mounts
SNAP = "(window.nbemPlayerSnapshot ? window.nbemPlayerSnapshot() : null)"

#: true once the panels below the charts show the charts' state, or cannot: they are out of view, the
#: player is playing, or the page has no player. The player asks for them on a timer after the page went
#: quiet (dashboard/lesson/player/player.js, lowerCheck), so a settled script run does not mean they came.
LOWER_DRAWN_JS = (f"() => {{ const s = {SNAP}; return !s || !s.lower || !s.lower.visible || s.playing"
                  " || !s.lower.want || s.lower.drawn === s.lower.want; }")


def wait_still(page, timeout=120_000):
    """The page ready for a screenshot: no script run, every element drawn (DRAWN_JS), nothing moving
    (STILL_JS), then one more painted frame so the picture is the settled one."""
    page.wait_for_function(SCRIPT_IDLE_JS, timeout=timeout)
    page.wait_for_function(DRAWN_JS, timeout=timeout)
    page.wait_for_function(STILL_JS, timeout=timeout)
    frames(page, 2)


def frames(page, n=2):
    """Return once the page has painted ``n`` more frames (requestAnimationFrame: a wait on the renderer,
    not on the clock)."""
    page.evaluate("(n) => new Promise((done) => { const f = (k) => k ? requestAnimationFrame(() => f(k - 1))"
                  " : done(); f(n); })", n)


def watch_runs(page):
    """Count Streamlit's script runs from now on: a MutationObserver on the app's data-test-script-state
    records every change to "running" in ``window.__nbRuns`` (read with ``runs(page)``)."""
    page.evaluate("""() => {
      const app = document.querySelector('[data-testid="stApp"]');
      window.__nbRuns = 0;
      if (window.__nbRunsObs) window.__nbRunsObs.disconnect();
      window.__nbRunsObs = new MutationObserver(() => {
        const s = app.getAttribute('data-test-script-state');
        if (s === 'running' && window.__nbRunsLast !== 'running') window.__nbRuns++;
        window.__nbRunsLast = s;
      });
      window.__nbRunsLast = app.getAttribute('data-test-script-state');
      window.__nbRunsObs.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
    }""")


def runs(page) -> int:
    """Script runs started since ``watch_runs(page)``."""
    return int(page.evaluate("() => window.__nbRuns"))


def wait_script_done(page, timeout=120_000):
    """Streamlit runs no script for the page (its app's data-test-script-state is notRunning)."""
    page.wait_for_function("() => { const a = document.querySelector('[data-testid=stApp]');"
                           " return !!a && a.getAttribute('data-test-script-state') === 'notRunning'; }",
                           timeout=timeout)


#: true once the lesson has nothing pending: no run-button press sent and unanswered and none waiting in the
#: run guard's queue (dashboard/lesson/run_guard.js: html[data-nbem-sent], window.__nbemRunGuard), and
#: Streamlit runs no script
LESSON_IDLE_JS = ("() => { const a = document.querySelector('[data-testid=stApp]'), g = window.__nbemRunGuard;"
                  " return !!a && a.getAttribute('data-test-script-state') === 'notRunning'"
                  " && !document.documentElement.hasAttribute('data-nbem-sent')"
                  " && (!g || g.gate.queue.length === 0); }")


def wait_lesson_idle(page, timeout=180_000):
    """The lesson answered every press (LESSON_IDLE_JS) and is drawn and still (wait_still)."""
    page.wait_for_function(LESSON_IDLE_JS, timeout=timeout)
    wait_still(page, timeout=timeout)
    page.wait_for_function(LESSON_IDLE_JS, timeout=timeout)


#: an init script (page.add_init_script) that keeps a register of Streamlit's auto-rerun timers (the
#: setInterval a fragment's run_every starts in the browser, cleared by clearInterval when the fragment
#: stops): ``window.__nbAutoReruns()`` is how many are live
AUTO_RERUN_INIT_JS = """(() => {
  const live = new Map(), si = window.setInterval, ci = window.clearInterval;
  window.setInterval = function (f, ms, ...rest) {
    const id = si.call(window, f, ms, ...rest);
    if (typeof f === 'function' && String(f).includes('sendUpdateWidgetsMessage')) live.set(id, ms);
    return id;
  };
  window.clearInterval = function (id) { live.delete(id); return ci.call(window, id); };
  window.__nbAutoReruns = () => live.size;
})()"""
