"""Real text in a real browser (Playwright + Debian chromium): the default page is real SMS
text; switching tokens to character 3-grams rebuilds the run with a notice and lands in the
URL; a multi-column upload is made usable by picking its columns; a headerless file loads.

Screenshots (artifacts/screenshots/text_*.png): the new default page, the text → features
controls, the column picker, the documents table.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from kit import ROOT
from kit.browser import ITER_JS, require_chromium, wait_still
from kit.browser import wait_idle as _idle
from nblab.defaults import DEFAULTS
from nblab.outcome import lesson_outcome

SHOTS = ROOT / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser

sync_api = require_chromium()








def _wait_iteration(page, n: int, timeout=120_000):
    page.wait_for_function(f"() => ({ITER_JS})() === {n}", timeout=timeout)


def _shot(page, name: str, locator=None) -> Path:
    page.mouse.move(5, 5)
    wait_still(page)
    path = SHOTS / f"text_{name}.png"
    if locator is not None:
        locator.screenshot(path=str(path))
    else:
        page.screenshot(path=str(path), full_page=True)
    return path


def _upload(page, name: str, data: bytes):
    exp = page.get_by_text("Use your own CSV")
    if page.locator('[data-testid="stFileUploader"]').count() == 0 or \
            not page.locator('[data-testid="stFileUploader"]').first.is_visible():
        exp.click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": data}])


def test_default_page_is_real_sms_text_and_char_trigrams_rebuild(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 2400})
    page.goto(server, wait_until="domcontentloaded")
    _idle(page)
    n_hidden = lesson_outcome("sms_spam", "bernoulli", DEFAULTS["hidden"], DEFAULTS["lam"]).n_hidden
    assert page.get_by_text(f"The {n_hidden:,} hidden documents").count() > 0
    page.get_by_role("button", name=re.compile(r"^Step\b")).click()
    _wait_iteration(page, 1)
    _idle(page)
    # the maths panel quotes a real message (the document EM is least sure about)
    page.get_by_text(re.compile(r"^Document \d+: “")).first.wait_for(timeout=30_000)
    _shot(page, "01_default_page")
    docs = page.get_by_text("hidden documents at t = 1").first
    docs.scroll_into_view_if_needed()
    _shot(page, "04_documents_table",
          page.locator('[data-testid="stExpander"]').filter(has_text="hidden documents at t = 1").first)

    # text → features: characters, n = 3..3
    sidebar = page.locator('[data-testid="stSidebar"]')
    box = sidebar.locator('[data-testid="stExpander"]').filter(has_text="Text → features").first
    box.get_by_text("chars", exact=True).click()
    page.get_by_text("tokens words → characters").first.wait_for(timeout=60_000)
    _idle(page)
    # the n-gram range slider is the one inside the text → features expander
    hi = box.get_by_role("slider").nth(1)
    hi.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.get_by_text("n 1 → 1–3").first.wait_for(timeout=60_000)
    _idle(page)
    lo = box.get_by_role("slider").nth(0)
    lo.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.get_by_text("n 1–3 → 3").first.wait_for(timeout=60_000)
    _idle(page)
    assert page.get_by_text("new run").count() > 0
    url = page.url
    assert "tokens=chars" in url and "ngram=3" in url, url
    _shot(page, "02_pipeline_controls", box)
    page.close()


COMMENTS = ("COMMENT_ID,AUTHOR,DATE,body,lang,verdict\n" + "\n".join(
    f"c{i:04d},Person {i},2014-0{i % 9 + 1}-1{i % 9},"
    + (f"check out my channel {i} and win free gifts" if i % 3 == 0 else f"great song I love it {i}")
    + f",{'en' if i % 4 else 'de'},{('spam' if i % 3 == 0 else 'ham') if i % 5 else ''}"
    for i in range(80)) + "\n").encode()


def test_upload_pick_columns_and_headerless_file(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 2400})
    page.goto(server, wait_until="domcontentloaded")
    _idle(page)
    _upload(page, "comments.csv", COMMENTS)
    page.get_by_text("Loaded “comments.csv”").first.wait_for(timeout=60_000)
    _idle(page)
    # the guess: text "body", label "lang" (named like a label); ID/author/date ignored
    assert page.get_by_text("Ignored by default").count() > 0
    picker = page.locator('[data-testid="stExpander"]').filter(has_text="Columns of").first
    picker.get_by_text("Label column").first.wait_for()
    picker.locator('[data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name="verdict", exact=True).click()
    page.get_by_role("option", name="verdict", exact=True).wait_for(state="detached", timeout=60_000)  # list closed
    _idle(page)   # the rerun the choice asked for is over
    wait_still(page)
    _shot(page, "03_column_picker", picker)
    picker.get_by_role("button", name="Use these columns").click()
    page.get_by_text("the labels are in “verdict”").first.wait_for(timeout=60_000)
    _idle(page)
    assert page.get_by_text("new run").count() > 0
    page.get_by_role("button", name=re.compile(r"^Step\b")).click()
    _wait_iteration(page, 1)

    # a headerless two-column file: the first message is data, not column names
    with open(ROOT / "datasets/sms_spam.tsv", encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t", 1) for _, line in zip(range(150), f)]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    _upload(page, "no_header.csv", buf.getvalue().encode())
    page.get_by_text("Loaded “no_header.csv”: 150 rows").first.wait_for(timeout=60_000)
    assert page.get_by_text("no header row found").count() > 0
    _idle(page)
    page.close()
