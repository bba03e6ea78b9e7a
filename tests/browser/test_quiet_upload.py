"""An ordinary upload leaves the server's terminal quiet: a teacher's text CSV, read in the app's worker
process, adds no line to the server's log (Streamlit's "missing ScriptRunContext … bare mode", "No runtime
found", "Session state does not function" came from the worker, which has no Streamlit session by design).
The server is a fresh one of this test's own, so its log holds this test's lines only."""
from __future__ import annotations

import pytest

from kit.browser import require_chromium, wait_idle
from kit.server import streamlit_server

pytestmark = pytest.mark.browser
require_chromium()

CSV = ("text,label\n" + "".join(f"cheap pills offer number {i} click now,spam\nmeeting at noon about the report {i},ham\n"
                                for i in range(40))).encode()
NOISE = ("ScriptRunContext", "bare mode", "No runtime found", "Session state does not function", "Traceback",
         "Warning", "WARNING")


def test_an_upload_adds_nothing_to_the_servers_log(browser, tmp_path):
    log = tmp_path / "server.log"
    with streamlit_server(log_path=log, timeout=120) as srv:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(srv.url + "/?dataset=toy_spam", wait_until="domcontentloaded")
        wait_idle(page)
        before = log.read_text()
        page.get_by_text("Use your own CSV").click()
        page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
            files=[{"name": "my_topics.csv", "mimeType": "text/csv", "buffer": CSV}])
        page.get_by_text("Loaded").first.wait_for(timeout=120_000)
        wait_idle(page)
        after = log.read_text()[len(before):]
        noisy = [line for line in after.splitlines() if any(n in line for n in NOISE)]
        assert noisy == [], after[-3000:]
