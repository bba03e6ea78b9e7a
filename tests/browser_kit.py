"""What every real-browser test shares (Playwright driving Debian's Chromium): where the
browser is, its flags, the skip-or-fail guard, and the page's iteration counter."""
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


def require_chromium():
    """Skip the calling test module when there is no browser (fail instead when CI is set: the
    browser tests are required there); return ``playwright.sync_api``. Call at module level."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but no browser at {CHROMIUM} (apt-get install -y chromium)", pytrace=False)
        pytest.skip(f"no browser at {CHROMIUM}", allow_module_level=True)
    return pytest.importorskip("playwright.sync_api")


def module_fixtures():
    """(server, browser): module-scoped fixtures of one Streamlit server for the module and one
    Chromium driven by Playwright. Bind them in a test module: ``server, browser = module_fixtures()``."""
    from conftest import streamlit_server

    sync_api = require_chromium()

    @pytest.fixture(scope="module")
    def server():
        with streamlit_server() as srv:
            yield srv.url

    return server, browser_fixture()


def browser_fixture():
    """A module-scoped fixture of one Chromium driven by Playwright (for modules that serve their own pages).
    Bind it in a test module: ``browser = browser_fixture()``."""
    sync_api = require_chromium()

    @pytest.fixture(scope="module")
    def browser():
        with sync_api.sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            yield b
            b.close()

    return browser


def wait_idle(page, timeout=240_000):
    """The lesson page drawn and no script run in progress (a first load on a busy 2-core machine
    can take a minute)."""
    page.wait_for_selector('[data-testid="stMetric"]', timeout=timeout)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=timeout)
    page.wait_for_timeout(600)
