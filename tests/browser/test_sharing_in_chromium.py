"""Sharing a data set, in a real browser, across two server processes on one SQLite store.

The teacher uploads a CSV on server A, steps EM three times and presses "Share this
data set"; the class link is opened in a fresh browser context (no cookies, no session)
on server B, which only shares the store file with A. The student steps three times and
must see exactly the teacher's numbers. Then: reload keeps the data set; the delete link
asks, deletes, and the class link afterwards shows a message and the default lesson.

Screenshots in artifacts/screenshots/sharing_*.png. Skipped without /usr/bin/chromium
unless CI is set.
"""
from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

import pytest

from kit import ROOT
from kit.browser import DRAWN_JS, SCRIPT_IDLE_JS, require_chromium
from kit.server import streamlit_server

SHOTS = ROOT / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser

sync_api = require_chromium()

CSV = (b"text,label\n"
       b"win cash now,spam\nfree prize inside,spam\ncheap pills cash,spam\nwin a free cruise,spam\n"
       b"meeting at noon,ham\nlunch tomorrow,ham\nproject notes attached,ham\nsee you at lunch,ham\n"
       b"claim your free cash,\nnotes from the meeting,\nprize cruise win,\nlunch meeting moved,\n"
       b"cash prize now,\nproject lunch,\n")
NAME = "class_mail.csv"


@pytest.fixture(scope="module")
def servers():
    """Two `streamlit run` processes whose only common state is one SQLite store file."""
    store_dir = tempfile.mkdtemp(prefix="nblab_store_browser_")
    saved = {k: os.environ.get(k) for k in ("NBLAB_STORE_DIR", "NBLAB_STORE_URL")}
    os.environ["NBLAB_STORE_DIR"] = store_dir
    os.environ.pop("NBLAB_STORE_URL", None)
    try:
        with contextlib.ExitStack() as stack:
            a = stack.enter_context(streamlit_server())
            b = stack.enter_context(streamlit_server())
            yield a, b, Path(store_dir)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class _Browser:
    """The launched browser; every new context gets generous default timeouts (busy machines)."""

    def __init__(self, b):
        self.b = b

    def new_context(self, **kw):
        ctx = self.b.new_context(**kw)
        ctx.set_default_timeout(120_000)
        return ctx


@pytest.fixture(scope="module")
def browser(browser):
    """The session's Chromium, its contexts with a 120 s default timeout."""
    return _Browser(browser)


def _idle(page, timeout=180_000):
    """The app finished its run. Generous: the first page of a fresh server imports numpy,
    scikit-learn and plotly, which on a busy 2-core machine took over a minute."""
    page.wait_for_selector('[data-testid="stMetric"]', timeout=timeout)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=timeout)
    # then drawn: no skeleton left, styles and fonts loaded, nothing more to fetch, still idle after that
    page.wait_for_function(DRAWN_JS, timeout=timeout)
    page.wait_for_load_state("networkidle", timeout=timeout)
    page.wait_for_function(SCRIPT_IDLE_JS, timeout=timeout)


LOWER_DRAWN_JS = ("() => { const b = document.querySelector('.st-key-nbem_lower');"
                  " return !b || (!b.getAttribute('aria-busy') && !!b.querySelector('[data-testid=\"stMetric\"]')); }")


def _metrics(page, with_lower: bool = False) -> dict[str, str]:
    """The page's metrics. With ``with_lower``, the panels below the charts (the stop rules' numbers) are
    scrolled into view first and read once drawn at the charts' state; without, only the metrics above."""
    if with_lower and page.locator(".st-key-nbem_lower").count():
        page.locator(".st-key-nbem_lower").scroll_into_view_if_needed()
        page.wait_for_function(LOWER_DRAWN_JS, timeout=120_000)
        _idle(page)
    out = {}
    selector = '[data-testid="stMetric"]' if with_lower else \
        '[data-testid="stMetric"]:not(.st-key-nbem_lower [data-testid="stMetric"])'
    for m in page.locator(selector).all():
        label = m.locator('[data-testid="stMetricLabel"]').inner_text().strip()
        out[label] = m.locator('[data-testid="stMetricValue"]').inner_text().strip()
    return out


def _iteration(page) -> int:
    return int(re.sub(r"\D", "", _metrics(page).get("Iteration", "-1")) or -1)


def _step(page, n: int) -> None:
    for _ in range(n):
        want = _iteration(page) + 1
        page.locator(".st-key-step button").first.click()  # (the label also shows a shortcut key)
        page.wait_for_function(
            "(want) => { const m = [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
            ".find(e => e.innerText.includes('Iteration'));"
            " return m && parseInt(m.querySelector('[data-testid=\"stMetricValue\"]').innerText) === want; }",
            arg=want, timeout=120_000)
        _idle(page)


#: true once no finite CSS animation or transition runs (the hover styles the mouse just left are gone)
SETTLED_STYLES_JS = ("() => document.getAnimations().every(a => a.playState !== 'running'"
                     " || a.effect.getComputedTiming().iterations === Infinity)")


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.mouse.move(5, 5)
    page.wait_for_function(SETTLED_STYLES_JS, timeout=60_000)
    page.screenshot(path=str(SHOTS / f"sharing_{name}.png"), full_page=True, timeout=180_000)


def test_share_on_one_server_open_in_a_fresh_browser_on_another(servers, browser):
    pages = []
    try:
        _flow(servers, browser, pages)
    except Exception:
        for i, p in enumerate(pages):  # what each page showed when it failed
            try:
                _shot(p, f"failed_{i}")
            except Exception:
                pass
        raise


def _flow(servers, browser, pages):
    a, b, store_dir = servers
    teacher_ctx = browser.new_context(viewport={"width": 1500, "height": 2200})
    teacher = teacher_ctx.new_page()
    pages.append(teacher)
    teacher.goto(a.url + "/?hidden=50", wait_until="domcontentloaded")
    _idle(teacher)
    teacher.get_by_text("Use your own CSV").click()
    teacher.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        files=[{"name": NAME, "mimeType": "text/csv", "buffer": CSV}])
    teacher.get_by_text("Loaded").first.wait_for(timeout=120_000)
    _idle(teacher)
    _step(teacher, 3)
    before_share = _metrics(teacher, with_lower=True)

    teacher.get_by_role("button", name="Share this data set").click()
    teacher.get_by_text("Link for the class").first.wait_for(timeout=120_000)
    # the class link and the delete link are two code blocks of the same run: both drawn, not just the title
    teacher.wait_for_function(
        "() => { const c = [...document.querySelectorAll('[data-testid=\"stCode\"]')].map(e => e.innerText);"
        " return c.some(t => t.includes('data=') && !t.includes('delete=')) && c.some(t => t.includes('delete=')); }",
        timeout=120_000)
    _idle(teacher)
    assert _metrics(teacher, with_lower=True) == before_share           # sharing kept the teacher's run
    codes = [c.inner_text().strip() for c in teacher.locator('[data-testid="stCode"]').all()]
    link = next(c for c in codes if "data=" in c and "delete=" not in c)
    delete = next(c for c in codes if "delete=" in c)
    assert link.startswith(a.url) and "data=" in teacher.url
    _shot(teacher, "01_teacher_shared")

    # a student: new browser context (no cookies), the class link, on the OTHER server process
    student_ctx = browser.new_context(viewport={"width": 1500, "height": 2200})
    student = student_ctx.new_page()
    pages.append(student)
    student.goto(link.replace(a.url, b.url), wait_until="domcontentloaded")
    _idle(student)
    student.get_by_text(f"Shared data set: {NAME}").first.wait_for(timeout=120_000)
    # the link names the teacher's iteration (t=3): the student's run is recomputed to it
    assert "t=3" in link and _iteration(student) == 3
    assert _metrics(student, with_lower=True) == before_share           # same data, same steps, same numbers
    _shot(student, "02_student_other_server")

    # reload: a new session from the URL the page shows now
    student.reload(wait_until="domcontentloaded")
    _idle(student)
    student.get_by_text(f"Shared data set: {NAME}").first.wait_for(timeout=120_000)
    assert "data=" in student.url

    # the delete link: asks first, then deletes for everyone
    owner = browser.new_context(viewport={"width": 1500, "height": 1400}).new_page()
    owner.goto(delete, wait_until="domcontentloaded")
    owner.get_by_text("Delete a shared data set?").first.wait_for(timeout=120_000)
    _idle(owner)
    _shot(owner, "03_delete_confirm")
    owner.get_by_role("button", name="Delete it for everyone").click()
    owner.get_by_text("was deleted").first.wait_for(timeout=120_000)

    late = browser.new_context(viewport={"width": 1500, "height": 1400}).new_page()
    late.goto(link.replace(a.url, b.url), wait_until="domcontentloaded")
    late.get_by_text("deleted it").first.wait_for(timeout=120_000)
    _idle(late)
    assert "data=" not in late.url
    _shot(late, "04_link_after_delete")
    assert not [p for p in (teacher, student, owner, late) if p.locator('[data-testid="stException"]').count()]
    for ctx in (teacher_ctx, student_ctx):
        ctx.close()
