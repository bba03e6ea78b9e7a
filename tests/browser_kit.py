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
