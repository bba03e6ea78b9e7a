"""A deep link is the FIRST request to a freshly started server.

Regression: with a folder named `pages/` next to app.py, Streamlit treated the app as a
legacy (pages-directory) multipage app until app.py had run once, so a first visit to
e.g. /trap ran trap.py on its own: no wide layout, file names in the sidebar and the URL
settings ignored. The views now live in dashboard/views/; this test opens a deep link
with query parameters as the very first page request of a new server in real chromium.

Skipped when /usr/bin/chromium is missing, unless env CI is set (then it fails).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kit import ROOT
from kit.server import streamlit_server

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but no browser at {CHROMIUM} (apt-get install -y chromium)", pytrace=False)
    pytest.skip(f"no browser at {CHROMIUM}", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")

NAV_LABELS = ["Watch EM learn", "Guided lessons", "Posterior inspector", "The symmetric trap", "Gaussian NB corner"]
FILE_NAMES = ["lesson", "trap", "guided", "inspector", "side_by_side", "side by side"]


def test_deep_link_is_the_first_request_of_a_fresh_server(browser):
    assert not (ROOT / "dashboard" / "pages").exists(), \
        "a dashboard/pages/ folder switches Streamlit to pages-directory mode on a fresh server"
    with streamlit_server() as srv:
        page = None
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            # nothing but /_stcore/health has been asked of this server so far
            page.goto(f"{srv.url}/trap?trap_start=random&trap_labels=3", wait_until="domcontentloaded")
            nav = page.locator('[data-testid="stSidebarNav"]')
            nav.wait_for(timeout=60_000)
            page.get_by_text("The symmetric trap").first.wait_for(timeout=60_000)
            page.get_by_text("Labels revealed").first.wait_for(timeout=60_000)

            # with more than 10 pages Streamlit folds the rest behind "View N more": unfold it
            more = page.get_by_text(re.compile(r"^View \d+ more$"))
            if more.count():
                more.first.click()
                page.get_by_text("Gaussian NB corner").first.wait_for(timeout=30_000)
            labels = [t.strip() for t in nav.locator("a").all_inner_texts()]
            for want in NAV_LABELS:
                assert any(want in t for t in labels), (want, labels)
            assert not any(t.lower() in FILE_NAMES for t in labels), f"file names in the navigation: {labels}"
            assert "Naive Bayes + EM Lab" in page.title(), page.title()  # st.set_page_config in app.py

            # app.py ran: wide layout (st.set_page_config(layout="wide"))
            block = page.locator('[data-testid="stMainBlockContainer"]')
            assert block.evaluate("e => e.getBoundingClientRect().width") > 900

            # the URL settings took effect (bound widgets read ?trap_start=random&trap_labels=3)
            sidebar = page.locator('[data-testid="stSidebar"]')
            sidebar.get_by_text("Labels revealed").wait_for(timeout=30_000)
            radios = sidebar.locator("input[type=radio]").evaluate_all(
                "es => es.map(e => [e.closest('label') ? e.closest('label').innerText : '', e.checked])")
            assert any(label.startswith("random") and checked for label, checked in radios), radios
            slider = sidebar.locator('[data-testid="stSlider"]').filter(has_text="Labels revealed")
            assert slider.locator("input[type=range]").input_value() == "3"
            assert "trap_start=random" in page.url and "trap_labels=3" in page.url
            assert page.locator('[data-testid="stException"]').count() == 0
        finally:
            if page is not None:
                page.close()
