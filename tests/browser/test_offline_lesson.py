"""The offline lesson (dashboard/lesson/export.py) opened from file:// in Chromium with the network off.

Every request that is not file: is blocked (Playwright routes) and recorded: the page must make none.
The numbers drawn (the read-out, the metrics, the parameter chart's bars, the maths panel's posterior,
the documents' accuracy) are compared with the same run computed here with plain nbcore (EM is
deterministic), not with anything the export computed. Screenshots go to artifacts/screenshots/
(offline_lesson, offline_lesson_phone, offline_half_step).
"""
from __future__ import annotations


import numpy as np
import pytest

import nbcore
from conftest import ROOT
from browser_kit import ARGS, CHROMIUM, require_chromium

pytestmark = pytest.mark.browser
sync_api = require_chromium()

SHOTS = ROOT / "artifacts" / "screenshots"
P = "window.__nbemPlayer"
READY = ("() => { const gd = document.querySelector('.nbp-params .js-plotly-plot:not(.nbp-back)');"
         " return !!(gd && gd._fullLayout && window.__nbemOffline); }")
# the parameter chart as drawn: each bar trace's name, values and the tick labels they sit on
BARS = ("() => { const gd = document.querySelector('.nbp-params .nbp-chart .js-plotly-plot:not(.nbp-back)');"
        " const ya = gd.layout.yaxis; return gd.data.filter(t => t.type === 'bar').map(t => ({name: t.name,"
        " x: Array.from(t.x), y: Array.from(t.y)})).concat([{ticks: Array.from(ya.tickvals), names: Array.from(ya.ticktext)}]); }")


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    """The default lesson (sms_spam, 90 % hidden, λ = 1, from the labelled, seed 0) run to convergence
    and exported; with the same run computed with plain nbcore on the lesson's matrix."""
    from nblab.config import DataConfig
    from nblab.lesson_run import LessonRun
    from dashboard.lesson import export

    cfg = DataConfig(dataset="sms_spam", model="bernoulli", hidden_pct=90, init="labeled", seed=0,
                     unlabeled_weight=1.0, max_iter=100, tol=1e-6)
    lr = LessonRun()
    lr.sync(cfg, 1.0)
    path = tmp_path_factory.mktemp("offline") / "lesson.html"
    export.export_lesson(lr, None, path, converge=True, app_url="http://lab.example/")
    prep = lr.prep
    y_obs, _ = nbcore.hide_labels(np.asarray(prep.ds.y), fraction=0.9, random_state=0)
    run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled", random_state=0, tol=1e-6,
                    max_iter=100).start(prep.X, np.asarray(y_obs))
    run.run_to_convergence()
    return path, run, prep, np.asarray(y_obs)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def open_offline(browser, path, **ctx):
    """The file opened with every non-file request blocked; returns (page, blocked URLs, page errors)."""
    page = browser.new_page(**ctx)
    blocked, errors = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (errors.append("dialog: " + d.message), d.dismiss()))

    def route(r):
        if r.request.url.startswith("file:"):
            return r.continue_()
        blocked.append(r.request.url)
        return r.abort()

    page.route("**/*", route)
    page.goto(path.as_uri())
    page.wait_for_function(READY, timeout=30_000)
    page.wait_for_timeout(300)
    return page, blocked, errors


def acc_text(run, prep, y_obs, t) -> str:
    acc = nbcore.hidden_accuracy(run.predict(t=t), prep.y_eval, y_obs < 0)
    return f"{acc:.1%}"


def read_t(page) -> int:
    return page.evaluate(f"() => {P}.t")


def check_bars(page, run, prep, t):
    """The bars drawn at iteration t are β of the words on their ticks (nbcore's numbers)."""
    got = page.evaluate(BARS)
    ticks = got.pop()
    where = {v: n for v, n in zip(ticks["ticks"], ticks["names"])}
    index = {f: j for j, f in enumerate(prep.feature_names)}
    beta = np.asarray(run.history[t].beta)
    checked = 0
    for k, tr in enumerate(got):
        assert tr["name"] == prep.class_names[k]
        for x, y in zip(tr["x"], tr["y"]):
            word = where[min(where, key=lambda v: abs(v - y))]
            assert abs(x - beta[index[word], k]) < 1e-3 * max(1e-3, beta[:, k].max()), (t, word, k, x)
            checked += 1
    assert checked >= 10


def test_offline_lesson_from_file_with_network_off(browser, lesson):
    path, run, prep, y_obs = lesson
    latest = len(run.history) - 1
    page, blocked, errors = open_offline(browser, path, viewport={"width": 1400, "height": 1000})
    assert blocked == [] and errors == []
    assert page.evaluate(f"() => {P}.n") == latest + 1
    assert read_t(page) == latest
    label = page.locator(".nbp-label").inner_text()
    assert label == f"Iteration {latest} of {latest} · accuracy {acc_text(run, prep, y_obs, latest)}"
    check_bars(page, run, prep, latest)
    # the documents table: the hidden documents' accuracy at t, as nbcore's
    summary = page.locator(".nbo-docs > summary").inner_text()
    assert f"{acc_text(run, prep, y_obs, latest)} right" in summary
    assert "Open the live lesson" in page.locator(".nbo-live").inner_text()
    href = page.locator(".nbo-live").get_attribute("href")
    assert href.startswith("http://lab.example/?") and f"t={latest}" in href and "dataset=sms_spam" in href
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "offline_lesson.png"), full_page=True)

    # drag the slider from the right end to the left: every frame drawn, no request
    box = page.locator(".nbp-slider").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] - 3, y)
    page.mouse.down()
    for i in range(12):
        page.mouse.move(box["x"] + box["width"] * (1 - i / 11) + 2, y)
        page.wait_for_timeout(30)
    page.mouse.up()
    page.wait_for_timeout(400)
    assert read_t(page) == 0
    check_bars(page, run, prep, 0)
    assert page.locator(".nbo-metric[data-metric='Iteration'] .nbo-metric-value").inner_text() == "0"

    # Step (→) and the E/M half-steps
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)
    assert read_t(page) == 1
    assert page.locator(".nbp-label").inner_text().endswith(acc_text(run, prep, y_obs, 1))
    page.keyboard.press("e")
    page.wait_for_timeout(400)
    assert page.locator(".nbo-half").is_visible()
    assert "Between the half-steps at t = 1" in page.locator(".nbo-status").inner_text()
    assert read_t(page) == 1                                    # θ does not move at the E-step
    assert page.evaluate("() => !!document.querySelector('.nbo-half .js-plotly-plot')._fullLayout")
    page.screenshot(path=str(SHOTS / "offline_half_step.png"), full_page=False)
    page.keyboard.press("m")
    page.wait_for_timeout(400)
    assert read_t(page) == 2 and not page.locator(".nbo-half").is_visible()
    check_bars(page, run, prep, 2)

    # the maths panel: the posterior of its document under θ_1 (the E-step that made θ_2), from nbcore
    doc = int(page.locator(".nbo-maths > summary").inner_text().split()[-1])
    ex = nbcore.explain(run.model, run.history[1].alpha, run.history[1].params, np.asarray(
        prep.X[doc].toarray() if hasattr(prep.X[doc], "toarray") else prep.X[doc]).ravel())
    shown = [float(page.locator(f".nbo-maths [data-post='{k}']").inner_text().replace("−", "-")) for k in range(2)]
    assert np.allclose(shown, ex.posterior, atol=1e-3) or any(
        "e" in page.locator(f".nbo-maths [data-post='{k}']").inner_text() for k in range(2))

    # Start again hides what comes next; Play reveals it and stops at the end (the focus off the
    # slider: there Home is the slider's own key)
    page.locator("h1").click()
    page.keyboard.press("Home")
    page.wait_for_timeout(300)
    assert read_t(page) == 0 and page.evaluate(f"() => {P}.revealed") == 0
    page.keyboard.press("p")
    page.wait_for_function(f"() => !{P}.playing && {P}.t === {latest}", timeout=30_000)
    assert page.locator(".nbp-label").inner_text().endswith(acc_text(run, prep, y_obs, latest))
    check_bars(page, run, prep, latest)
    assert blocked == [] and errors == []
    page.close()


def test_offline_lesson_on_a_phone(browser, lesson):
    path, run, *_ = lesson
    page, blocked, errors = open_offline(browser, path, viewport={"width": 390, "height": 844},
                                         device_scale_factor=2, is_mobile=True, has_touch=True)
    assert blocked == [] and errors == []
    widths = page.evaluate("() => [...document.querySelectorAll('.nbp-grid .nbp-chart')].map(e => e.getBoundingClientRect().width)")
    assert widths and all(w > 300 for w in widths)              # one chart per row
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 400   # nothing wider than the screen
    page.screenshot(path=str(SHOTS / "offline_lesson_phone.png"), full_page=False)
    page.close()


def test_hostile_names_are_text(browser, tmp_path):
    """Class names, feature names and texts that look like HTML or end the script are shown literally."""
    from dashboard.lesson import export
    from nblab.prepare import Prepared
    from types import SimpleNamespace

    evil = ["</script><script>alert(1)</script>", "<img src=x onerror=alert(2)>"]
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]] * 3)
    y = np.array([0, 1] * 9)
    y_obs = np.where(np.arange(18) < 6, y, -1)
    feats = ["<b>bold</b>", "&amp;", "\u2028x"]
    texts = [f"doc {i} <script>alert({i})</script>" for i in range(18)]
    ds = SimpleNamespace(name="<i>set</i>", texts=texts, image_shape=None, categories=None, truth=None,
                         card="**Source:** <a href=javascript:alert(3)>x</a>", kind="binary", X=X,
                         feature_names=feats, description="<svg onload=alert(4)>")
    prep = Prepared(ds, X, y_obs, y_obs < 0, y, 2, evil, feats)
    run = nbcore.EM(model="bernoulli", n_classes=2, init="labeled", random_state=0).start(X, y_obs)
    run.run_to_convergence()
    path = export.export_lesson(run, prep, tmp_path / "evil.html")
    page, blocked, errors = open_offline(browser, path, viewport={"width": 1200, "height": 900})
    assert errors == [] and blocked == []
    body = page.evaluate("() => document.getElementById('nbem-lesson').textContent")
    assert "doc 7 <script>alert(7)</script>" in body and "<svg onload=alert(4)>" in body
    assert page.evaluate("() => document.querySelectorAll('img, svg[onload], a[href^=javascript]').length") == 0
    assert "EM: </script><script>alert(1)</script>" in body and "true <img src=x onerror=alert(2)>" in body
    page.close()


def test_the_status_sentence_is_shown_and_announced(browser, lesson):
    """The player's sentence above the charts ("Iteration 5 of 15: α ham 0.87, spam 0.13; accuracy 97.0 %,
    9.3 points above supervised") is in the offline file too, in a polite live region, and follows the
    iteration: α and the accuracy from the run computed here, supervised-only being EM's start from the
    labelled documents (t = 0)."""
    path, run, prep, y_obs = lesson
    page, blocked, errors = open_offline(browser, path)
    try:
        box = page.locator('[data-testid="nbpSummary"]')
        assert box.get_attribute("role") == "status" and box.get_attribute("aria-live") == "polite"
        assert box.is_visible()
        n = len(run.history) - 1
        names = [str(c) for c in prep.class_names]
        base = nbcore.hidden_accuracy(run.predict(t=0), prep.y_eval, y_obs < 0)
        for t in (n, 2, 0):
            page.evaluate(f"() => window.__nbemOffline.go({t})")
            page.wait_for_function(f"() => document.querySelector('[data-testid=\"nbpSummary\"]').textContent"
                                   f".startsWith('Iteration {t} of {n}:')", timeout=10_000)
            text = box.inner_text()
            alpha = np.asarray(run.history[t].alpha, dtype=float)
            acc = nbcore.hidden_accuracy(run.predict(t=t), prep.y_eval, y_obs < 0)
            want = (f"Iteration {t} of {n}: α " + ", ".join(f"{c} {a:.2f}" for c, a in zip(names, alpha))
                    + f"; accuracy {acc:.1%}")
            assert text.startswith(want), (text, want)
            d = (acc - base) * 100
            assert text.endswith("the same as supervised" if abs(d) < 0.05 else
                                 f"{abs(d):.1f} points {'above' if d > 0 else 'below'} supervised"), text
        assert not blocked and not errors
    finally:
        page.close()
