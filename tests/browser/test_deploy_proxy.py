"""The deployment (deploy/nblab_deploy.py) in a real browser: 2 app processes behind HAProxy, shares on
the PostgreSQL the script starts.

Two students open the proxy's address in fresh browser contexts and land on different processes
(HAProxy's ``NBLAB`` cookie names the process). The first uploads a CSV through the proxy (the upload
must reach the process that holds the session), steps EM and shares the data set; the class link is
opened by the second student, on the other process, who sees the shared file (read from PostgreSQL),
plays it in the browser player, pauses and steps. Also: a request body over the proxy's upload limit
is refused with 413 by the proxy itself.

Skipped with the reason when HAProxy, PostgreSQL or Chromium is missing (outside CI; in CI, where
.ci/run installs them, a missing one fails). Screenshots of a failure go to
artifacts/screenshots/deploy_proxy_failed_*.png.
"""
from __future__ import annotations

import http.client
import re
import time

import pytest

from kit import ROOT
from kit.browser import ITER_JS, require_chromium, wait_idle
from kit.deploy import deployment as kit_deployment
from kit.deploy import require_deploy_programs

pytestmark = pytest.mark.browser

require_deploy_programs()

sync_api = require_chromium()

SHOTS = ROOT / "artifacts" / "screenshots"
NAME = "proxy_mail.csv"
CSV = (b"text,label\n"
       b"win cash now,spam\nfree prize inside,spam\ncheap pills cash,spam\nwin a free cruise,spam\n"
       b"meeting at noon,ham\nlunch tomorrow,ham\nproject notes attached,ham\nsee you at lunch,ham\n"
       b"claim your free cash,\nnotes from the meeting,\nprize cruise win,\nlunch meeting moved,\n"
       b"cash prize now,\nproject lunch,\nfree lunch prize,\nmeeting notes cash,\n")


@pytest.fixture(scope="module")
def deployment():
    with kit_deployment("nblab_deploy_test_") as info:
        yield info


def _process_of(ctx) -> str | None:
    return next((c["value"] for c in ctx.cookies() if c["name"] == "NBLAB"), None)


def _open(browser, url: str, avoid: str | None = None, pages: list | None = None):
    """A fresh student (context without cookies) on `url`; with `avoid`, new students until one lands
    on another process (leastconn normally gives the second student the idle process at once)."""
    for _ in range(4):
        ctx = browser.new_context(viewport={"width": 1500, "height": 2000})
        ctx.set_default_timeout(90_000)
        page = ctx.new_page()
        if pages is not None:
            pages.append(page)
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        if avoid is None or _process_of(ctx) != avoid:
            return ctx, page
        ctx.close()
    pytest.fail(f"4 new students all landed on process {avoid}: the proxy does not spread them")


def _iteration(page) -> int:
    return page.evaluate(ITER_JS)


def _step(page) -> None:
    want = _iteration(page) + 1
    page.locator(".st-key-step button").first.click()
    page.wait_for_function(f"() => ({ITER_JS})() === {want}", timeout=60_000)
    wait_idle(page)


def test_upload_too_big_is_refused_by_the_proxy(deployment):
    """A body over --max-upload-mb (6 MB) gets 413 from HAProxy, before any app process reads it."""
    host, port = deployment["url"].removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.putrequest("PUT", "/_stcore/upload_file/x/y")
        conn.putheader("Content-Length", str(7 * 1024 * 1024))
        conn.endheaders()
        assert conn.getresponse().status == 413
    finally:
        conn.close()


def test_two_students_two_processes_share_play_and_step(deployment, browser):
    pages: list = []
    try:
        _flow(deployment, browser, pages)
    except Exception:
        SHOTS.mkdir(parents=True, exist_ok=True)
        for i, p in enumerate(pages):
            try:
                p.screenshot(path=str(SHOTS / f"deploy_proxy_failed_{i}.png"), full_page=True, timeout=30_000)
            except Exception:
                pass
        raise


def _flow(deployment, browser, pages):
    url = deployment["url"]
    t0 = time.time()
    # λ = 1: the shared run still has iterations to play after t = 2 (the default λ converges sooner)
    teacher_ctx, teacher = _open(browser, url + "/?hidden=50&lam=1", pages=pages)
    a = _process_of(teacher_ctx)
    student_ctx, student = _open(browser, url + "/", avoid=a, pages=pages)
    b = _process_of(student_ctx)
    assert a and b and a != b, (a, b)

    # the teacher's upload goes through the proxy to the teacher's process (else "Invalid session_id")
    teacher.get_by_text("Use your own CSV").click()
    teacher.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        files=[{"name": NAME, "mimeType": "text/csv", "buffer": CSV}])
    teacher.get_by_text("Loaded").first.wait_for(timeout=90_000)
    wait_idle(teacher)
    _step(teacher)
    _step(teacher)
    teacher.get_by_label("Share key", exact=True).and_(teacher.locator("input")).fill(deployment["share_key"])  # the key holders share
    teacher.keyboard.press("Enter")
    wait_idle(teacher)
    teacher.get_by_role("button", name="Share this data set").click()
    teacher.get_by_text("Link for the class").first.wait_for(timeout=90_000)
    wait_idle(teacher)
    # the class link as the sidebar shows it (a code block; its text may wrap)
    # (Streamlit loads its code-block element lazily: wait for the block itself)
    teacher.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stCode\"], pre')]"
                              ".some((e) => e.textContent.includes('data='))", timeout=60_000)
    codes = [re.sub(r"\s+", "", c.text_content() or "")
             for c in teacher.locator('[data-testid="stCode"], pre').all()]
    links = [c for c in codes if "data=" in c and "delete=" not in c]
    assert links, f"no class link among the code blocks {codes}"
    link = links[0]
    assert link.startswith(url), (link, url)   # the class link names the proxy, not a process

    # the class link, opened by the student on the other process: the share comes from PostgreSQL
    student.goto(link, wait_until="domcontentloaded")
    wait_idle(student)
    student.get_by_text(f"Shared data set: {NAME}").first.wait_for(timeout=90_000)
    assert _process_of(student_ctx) == b, "the student changed process"
    assert _iteration(student) == 2

    # Play in the browser player: the iteration advances without a click per step, then Pause
    student.wait_for_function("() => window.nbemPlayerSnapshot?.() && window.nbemPlayerSnapshot?.().main && window.Plotly",
                              timeout=90_000)
    student.locator('[data-testid="nbpPlay"]').click()
    student.wait_for_function(f"() => ({ITER_JS})() >= 4", timeout=60_000)
    if student.evaluate("() => window.nbemPlayerSnapshot?.().playing"):
        student.locator('[data-testid="nbpPlay"]').click()
    student.wait_for_function("() => !window.nbemPlayerSnapshot?.().playing", timeout=30_000)
    wait_idle(student)
    # Step after the play: the server's step, on the student's process
    if not student.locator(".st-key-step button").first.is_disabled():
        _step(student)
    assert not [p for p in (teacher, student) if p.locator('[data-testid="stException"]').count()]
    assert re.search(r"Shared data set: " + re.escape(NAME), student.inner_text("body"))
    for ctx in (teacher_ctx, student_ctx):
        ctx.close()
    assert time.time() - t0 < 110


def test_students_follow_a_class_through_the_proxy_with_websockets_refused(deployment, browser):
    """Three students (two desktops, a phone) open the class link through HAProxy on two processes, in browsers
    that refuse every WebSocket: the lab draws, follows two publishes, and no WebSocket is ever tried."""
    from dashboard import class_link as C
    from dashboard.data import store as S

    store = S.open_store(deployment["store_url"])
    contexts = []
    try:
        cid, key = C.open_class("toy_spam", {"settings": {"hidden": 50, "lam": 1.0, "init": "labeled"}, "t": 1},
                                store=store)
        link = f"{deployment['url']}/class/{cid}"
        pages, sockets, errors = [], [], []
        for viewport in ({"width": 1280, "height": 800}, {"width": 1280, "height": 800},
                         {"width": 390, "height": 844}):
            ctx = browser.new_context(viewport=viewport)   # each its own cookies: any process may answer
            contexts.append(ctx)
            page = ctx.new_page()
            page.on("websocket", lambda ws: sockets.append(ws.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.route_web_socket(re.compile(".*"), lambda ws: ws.close())
            page.goto(link, wait_until="domcontentloaded")
            pages.append(page)
        for page in pages:
            page.wait_for_function("() => window.__nblab && __nblab.lab && __nblab.follow"
                                   " && __nblab.follow.applied >= 1 && __nblab.lab.t === 1", timeout=120_000)
            assert page.locator(".lab-chart .js-plotly-plot").count() >= 2
        for t, v in ((3, 2), (4, 3)):
            assert C.publish(cid, key, {"settings": {"hidden": 50, "lam": 1.0, "init": "labeled"}, "t": t},
                             store=store) == v
            for page in pages:
                page.wait_for_function(f"() => __nblab.lab.t === {t} && __nblab.follow.applied === {v}",
                                       timeout=30_000)
        assert sockets == [] and errors == []
    finally:
        for ctx in contexts:
            ctx.close()
        store.close()
