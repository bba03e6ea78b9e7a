"""The iteration on screen, in real Chromium with the browser player: after a drag back, during Play (a
replay of a finished run) and after Pause, the URL's t=, the status line, the stop rules' numbers and the
sharer's class link name the iteration the charts show (read off the slider), never the latest computed.

The stop rules' numbers are checked against the same run computed here with nbcore (EM is deterministic).
Screenshots in /tmp/shots-iter/ (start, mid-play, dragged back, converged). Skipped without
/usr/bin/chromium unless CI is set.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest

import nbcore
from kit.browser import frames, require_chromium, wait_still

pytestmark = pytest.mark.browser
sync_api = require_chromium()

SHOTS = Path(os.environ.get("NBLAB_SHOTS", "/tmp/shots-iter"))
LONG = "dataset=synthetic_spam&hidden=90&lam=1&tol=1e-08&max_iter=40"
P = "window.nbemPlayerSnapshot?.()"
CSV = (b"text,label\n"
       b"win cash now,spam\nfree prize inside,spam\ncheap pills cash,spam\nwin a free cruise,spam\n"
       b"meeting at noon,ham\nlunch tomorrow,ham\nproject notes attached,ham\nsee you at lunch,ham\n"
       b"claim your free cash,\nnotes from the meeting,\nprize cruise win,\nlunch meeting moved,\n"
       b"cash prize now,\nproject lunch,\n")

# everything that names an iteration, read in one animation frame (what the page paints next): the slider
# (what the charts show), the status line, the stop rules' first number and its label, the URL's t= and
# whether the player plays
READ = ("async () => { await new Promise((r) => requestAnimationFrame(r));"   # what the next paint shows
        " const q = (s) => document.querySelector(s);"
        " const stop = [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
        "   .find((m) => m.innerText.trim().startsWith('|ΔL| / |L|'));"
        " const st = [...document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]')]"
        "   .find((e) => e.innerText.trim().startsWith('Status:'));"
        " return {slider: +q('.nbp-slider').value, playing: window.nbemPlayerSnapshot?.().playing,"
        "  status: st ? st.innerText : null,"
        "  stopLabel: stop ? stop.querySelector('[data-testid=\"stMetricLabel\"]').innerText : null,"
        "  stopValue: stop ? stop.querySelector('[data-testid=\"stMetricValue\"]').innerText : null,"
        "  showing: ([...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')]"
        "    .find((e) => e.innerText.startsWith('Showing iteration') && e.offsetParent !== null) || {}).innerText || null,"
        "  url: new URLSearchParams(location.search).get('t')}; }")
LOWER_DRAWN = ("() => { const b = document.querySelector('.st-key-nbem_lower');"
               " return !!b && !b.getAttribute('aria-busy') && b.innerText.includes('|ΔL| / |L| at t='); }")


@pytest.fixture(scope="module")
def server(app_server):
    """A server with a store of its own (the share test writes to it)."""
    store = tempfile.mkdtemp(prefix="nblab_store_iter_")
    return app_server(env={"NBLAB_STORE_DIR": store, "NBLAB_STORE_URL": ""})


def _oracle():
    """The lesson LONG names, computed here: synthetic_spam, 90 % hidden, λ = 1, labelled start, seed 0."""
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    run = nbcore.EM(model="bernoulli", n_classes=ds.n_classes, smoothing=1.0, init="labeled", max_iter=40,
                    tol=1e-8, random_state=0).start(ds.X, y_obs)
    run.run_to_convergence()
    return run


def _rel(run, t: int) -> float:
    a, b = run.history[t - 1].objective, run.history[t].objective
    return abs(b - a) / abs(a)


def _idle(page, timeout=180_000):
    page.wait_for_selector('[data-testid="stMetric"]', timeout=timeout)
    page.wait_for_function("() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
                           " return a && a.getAttribute('data-test-script-state') === 'notRunning'; }", timeout=timeout)
    wait_still(page, timeout=timeout)   # drawn, and no chart or transition still moving


def _shot(page, name: str, still: bool = True) -> None:
    """A screenshot of the whole page (``still``), or at once of the window only (while Play runs)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if still:
        page.mouse.move(5, 5)
        wait_still(page)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=still, timeout=120_000)


def _status_t(text: str) -> int:
    """The iteration the status line says is on screen (its first "t = k")."""
    return int(re.search(r"t = (\d+)", text).group(1))


def _agrees(r: dict, run) -> None:
    """What the page says is the iteration the slider shows, and the stop rules' numbers are that step's."""
    t = r["slider"]
    assert _status_t(r["status"]) == t, r
    n = run.iteration   # the run is computed to the end here: "Showing iteration t of n" below the latest only
    assert (r["showing"] or "").startswith(f"Showing iteration {t} of {n} ") if t < n else r["showing"] is None, r
    if t > 0 and r["stopLabel"] is not None:
        assert r["stopLabel"].endswith(f"at t={t}"), r
        assert float(r["stopValue"]) == pytest.approx(_rel(run, t), rel=6e-3), r


def test_drag_back_play_and_pause_keep_the_page_on_the_iteration_shown(server, browser):
    run = _oracle()
    n = run.iteration
    assert n >= 12
    page = browser.new_page(viewport={"width": 1500, "height": 2400})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/?{LONG}&speed=slow", wait_until="domcontentloaded")   # Play: one iteration a second
    page.wait_for_function(f"() => {P} && {P}.main && {P}.params && window.Plotly", timeout=180_000)
    _idle(page)
    _shot(page, "iter_start")
    page.get_by_role("button", name="Run to convergence", exact=True).click()
    page.wait_for_function(f"() => {P}.n === {n + 1} && {P}.t === {n}", timeout=120_000)
    page.locator(".st-key-nbem_lower").scroll_into_view_if_needed()
    page.wait_for_function(LOWER_DRAWN, timeout=120_000)
    _idle(page)
    r = page.evaluate(READ)
    assert r["slider"] == n and r["url"] == str(n), r
    _agrees(r, run)
    _shot(page, "iter_converged")

    # drag back to t = 3 (the keyboard on the slider): the player writes the status line and the stop rules
    # at once, with no server rerun; the URL follows when the server hears of it
    page.locator(".nbp-slider").focus()
    page.keyboard.press("Home")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => {P}.t === 3", timeout=30_000)
    frames(page, 1)   # the frame the player draws t = 3 in
    _agrees(page.evaluate(READ), run)
    page.wait_for_function("() => new URLSearchParams(location.search).get('t') === '3'", timeout=60_000)
    _idle(page)
    r = page.evaluate(READ)
    assert r["slider"] == 3 and r["url"] == "3", r   # it kept t=<latest>
    _agrees(r, run)
    _shot(page, "iter_dragged_back")

    # Play from t = 3: a replay of the finished run. At every moment sampled, the status line and the stop
    # rules' numbers name the iteration the slider shows (they said the latest, and the iteration of the
    # last server run)
    page.locator(".nbp-play").click()
    seen, last = set(), 3
    for _ in range(10):
        # sampled as each new iteration comes on screen (or the replay ends)
        page.wait_for_function(f"(s) => !{P}.playing || {P}.t !== s", arg=last, timeout=60_000)
        r = page.evaluate(READ)
        last = r["slider"]
        if not r["playing"]:
            break
        _agrees(r, run)
        seen.add(r["slider"])
        if len(seen) == 2:
            _shot(page, "iter_mid_play", still=False)
    assert len(seen) >= 3, seen
    page.locator(".nbp-play").click()                               # Pause
    page.wait_for_function(f"() => !{P}.playing", timeout=30_000)
    t = page.evaluate(f"() => {P}.t")
    assert 3 < t <= n
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('t') === '{t}'", timeout=60_000)
    _idle(page)
    r = page.evaluate(READ)
    assert r["slider"] == t and r["url"] == str(t), r
    _agrees(r, run)
    assert not errors, errors
    page.close()


def test_the_sharers_class_link_follows_a_drag(server, browser):
    """A drag reruns the charts alone (not the sidebar): the class link beside them must still name the
    iteration the teacher shows, so a student opening it lands there."""
    page = browser.new_page(viewport={"width": 1500, "height": 1600})
    page.goto(f"{server}/?hidden=50&tol=1e-08", wait_until="domcontentloaded")
    _idle(page)
    page.get_by_text("Use your own CSV").click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        files=[{"name": "mail.csv", "mimeType": "text/csv", "buffer": CSV}])
    page.get_by_text("Loaded").first.wait_for(timeout=120_000)
    _idle(page)
    for t in (1, 2, 3):
        page.locator(".st-key-step button").first.click()
        page.wait_for_function(f"() => {P}.n === {t + 1} && {P}.t === {t}", timeout=60_000)
        _idle(page)
    page.get_by_role("button", name="Share this data set").click()
    page.get_by_text("Link for the class").first.wait_for(timeout=120_000)
    _idle(page)

    def link() -> str:
        """The class link in the sidebar (waiting for it: a rerun may be redrawing it)."""
        return page.wait_for_function(
            "() => { const c = [...document.querySelectorAll('[data-testid=\"stCode\"]')].map((e) => e.innerText.trim())"
            ".find((c) => c.includes('data=') && !c.includes('delete=')); return c || null; }",
            timeout=60_000).json_value()

    assert "t=3" in link().split("?", 1)[1].split("&"), link()
    page.locator(".nbp-slider").focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => new URLSearchParams(location.search).get('t') === '1'", timeout=60_000)
    _idle(page)
    # it said t=3 until a whole-page rerun (the drag reran the charts alone)
    page.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stCode\"]')].some((c) =>"
                           " c.innerText.includes('data=') && !c.innerText.includes('delete=')"
                           " && new URL(c.innerText.trim()).searchParams.get('t') === '1')", timeout=30_000)
    assert "t=1" in link().split("?", 1)[1].split("&"), link()
    _shot(page, "iter_share_link")
    # a student opening it lands at t = 1
    student = browser.new_context().new_page()
    student.goto(link(), wait_until="domcontentloaded")
    _idle(student)
    student.wait_for_function(f"() => {P} && {P}.main && {P}.t === 1 && {P}.n === 2", timeout=120_000)
    page.close()
    student.close()
