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
