"""The lab page's baselines on the default lesson (nblab.defaults: sms_spam, 99 % hidden, λ = 0.01), in Chromium.

nbcore.baselines is the oracle, computed here on the lesson's own split (nblab.prepare): the majority class,
supervised NB at each λ segment's λ and supervised NB at the λ leave-one-out picks on the labelled rows. The
page must show the same three numbers (the accuracy chart's named lines, "Supervised only", "Best
supervised", the accuracy's delta, the status sentence and the gain sentence), and a λ change mid-run must
make a new segment (the earlier iterations keep their baseline) without recomputing the leave-one-out one.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kit.browser import require_chromium
from nbcore import baselines as nb_baselines
from nblab import numbers
from nblab.defaults import DEFAULTS
from nblab.outcome import CV_LAMBDAS, config
from nblab.prepare import prepare

pytestmark = pytest.mark.browser
sync_api = require_chromium()

LAB_SHOTS = Path(os.environ.get("LAB_SHOTS", "/tmp/lab_shots"))
READY = "() => !!(window.__nblab && window.__nblab.ready && window.__nblab.lab)"
NEW_LAM = 0.1
ACC_TRACES = """() => { const g = document.querySelector('.lab-chart[data-chart="acc"] .lab-plot');
  return { data: g.data.map((d) => ({ name: d.name, x: Array.from(d.x), y: Array.from(d.y) })),
           notes: (g.layout.annotations || []).map((a) => a.text) }; }"""
LL_TRACES = """() => { const g = document.querySelector('.lab-chart[data-chart="ll"] .lab-plot');
  return { obj: Array.from(g.data.find((d) => d.name === 'objective').x), notes: g.layout.annotations.map((a) => a.text) }; }"""


@pytest.fixture(scope="module")
def oracle():
    """nbcore's baselines of the default lesson's split, at the default λ and the λ the test changes to."""
    prep = prepare(config(DEFAULTS["dataset"], "bernoulli", DEFAULTS["hidden"], DEFAULTS["seed"]))
    b = nb_baselines.baselines("bernoulli", prep.X, prep.y_obs, prep.y_eval, prep.n_classes,
                               (float(DEFAULTS["lam"]), NEW_LAM), CV_LAMBDAS)
    return b, [str(c) for c in prep.class_names]


@pytest.fixture(scope="module")
def page_path(tmp_path_factory):
    from nblab.page import write_lab
    return write_lab(tmp_path_factory.mktemp("labb") / "sms_spam.html", DEFAULTS["dataset"])


def opened(browser, path):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.goto(path.as_uri())
    page.wait_for_function(READY, timeout=60_000)
    settle(page)
    return page, errors


def settle(page):
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.evaluate("() => window.__nblab.drawing || null")


def metric(page, i):
    return page.locator(".lab-metric-value").nth(i).inner_text()


def step(page, n=1):
    for _ in range(n):
        page.locator('button[data-act="step"]').click()
        settle(page)


def set_lam(page, lam):
    lams = page.evaluate("() => __nblab.cfg.lambdas")
    page.get_by_label("Smoothing λ", exact=True).evaluate(
        "(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input', {bubbles: true}));"
        " e.dispatchEvent(new Event('change', {bubbles: true})); }", lams.index(lam))
    settle(page)


def show(page, t):
    page.locator(".lab-iter").evaluate("(e, t) => { e.value = String(t); e.dispatchEvent(new Event('input', {bubbles: true})); }", t)
    settle(page)


def plain(md: str) -> str:
    """numbers.gain_sentence's Markdown as the page shows it (bold and italics as elements, not stars)."""
    return re.sub(r"\*+", "", md)


def test_the_three_baselines_are_nbcores(browser, page_path, oracle):
    b, names = oracle
    lam = float(DEFAULTS["lam"])
    page, errors = opened(browser, page_path)
    ref = page.evaluate("() => __nblab.lab.reference()")
    # the numbers: nbcore's (each a count over the same hidden rows, so equal to the last bit)
    assert ref["majority"] == pytest.approx(b.majority, abs=1e-12)
    assert ref["majorityName"] == names[b.majority_class]
    assert ref["cvLambda"] == b.cv_lambda and ref["cvMethod"] == b.cv_method == "leave-one-out"
    assert ref["cv"] == pytest.approx(b.cv, abs=1e-12)
    assert ref["nLabelled"] == b.n_labelled
    assert ref["segments"] == [[0, 0, lam, pytest.approx(b.at_lambda[lam], abs=1e-12)]]
    # the chart: the app's three names, each with nbcore's accuracy
    acc = page.evaluate(ACC_TRACES)["data"]
    assert [d["name"] for d in acc] == ["EM", f"NB at λ = {lam:g}: {b.at_lambda[lam]:.1%}",
                                        f"NB at λ = {b.cv_lambda:g} (leave-one-out): {b.cv:.1%}",
                                        f"majority class: {b.majority:.1%}"]
    assert acc[1]["y"] == [pytest.approx(b.at_lambda[lam], abs=1e-12)] * 2
    assert acc[2]["y"] == [pytest.approx(b.cv, abs=1e-12)] * 2
    assert acc[3]["y"] == [pytest.approx(b.majority, abs=1e-12)] * 2
    # the metrics: supervised only at this segment's λ, the best of the three
    best = max(b.majority, b.at_lambda[lam], b.cv)
    assert metric(page, 2) == f"{b.at_lambda[lam]:.1%}"
    assert metric(page, 3) == f"{best:.1%}"
    # a few steps: the delta, the sentence and the gain sentence against the best baseline (nblab.numbers' words)
    step(page, 3)
    a = page.evaluate("() => __nblab.lab.accuracy(3)")
    pyref = numbers.reference(b.majority, names[b.majority_class], b.cv_lambda, b.cv, b.cv_method, b.n_labelled,
                              [lam] * 4, lambda v: b.at_lambda.get(float(v)))
    top = pyref.best(3)
    assert top[1] == pytest.approx(best, abs=1e-12)
    assert page.locator(".lab-metric-delta").nth(1).inner_text() == numbers.delta_text(numbers.Scored(a, top[1]), None)
    d = (a - top[1]) * 100
    tail = ", the same as the best supervised" if abs(d) < 0.05 else \
        f", {abs(d):.1f} points {'above' if d > 0 else 'below'} the best supervised"
    assert page.locator("#lab-sentence").inner_text().endswith(f"; accuracy {a:.1%}" + tail)
    assert page.locator(".lab-gain").inner_text() == plain(numbers.gain_sentence(a, top))
    assert errors == [], errors
    page.close()


def test_a_lambda_change_mid_run_is_a_new_segment(browser, page_path, oracle):
    b, names = oracle
    lam = float(DEFAULTS["lam"])
    page, errors = opened(browser, page_path)
    # a λ change before any step rebuilds the run, but the split's baselines are kept (not recomputed)
    page.evaluate("() => { window.__split = __nblab.lab.fixed; }")
    set_lam(page, 0.3)
    set_lam(page, lam)
    assert page.evaluate("() => __nblab.lab.fixed === window.__split")
    step(page, 3)
    set_lam(page, NEW_LAM)
    step(page, 2)
    assert page.evaluate("() => __nblab.lab.latest") == 5
    assert page.evaluate("() => __nblab.lab.fixed === window.__split")        # leave-one-out not recomputed
    ref = page.evaluate("() => __nblab.lab.reference()")
    at0, at1 = b.at_lambda[lam], b.at_lambda[NEW_LAM]
    assert ref["segments"] == [[0, 3, lam, pytest.approx(at0, abs=1e-12)], [4, 5, NEW_LAM, pytest.approx(at1, abs=1e-12)]]
    chart = page.evaluate(ACC_TRACES)
    at = next(d for d in chart["data"] if d["name"] == "NB at each segment's λ")
    assert at["x"] == [-0.5, 3.5, None, 3.5, 5.5]
    assert at["y"] == [pytest.approx(at0, abs=1e-12)] * 2 + [None] + [pytest.approx(at1, abs=1e-12)] * 2
    assert f"λ={lam:g}: {at0:.1%}" in chart["notes"] and f"λ={NEW_LAM:g}: {at1:.1%}" in chart["notes"]
    assert f"NB at λ = {b.cv_lambda:g} (leave-one-out): {b.cv:.1%}" in [d["name"] for d in chart["data"]]
    ll = page.evaluate(LL_TRACES)
    assert ll["obj"] == [0, 1, 2, 3, None, 4, 5]
    assert "MAP objective (climbs within each λ)" in ll["notes"] and f"λ→{NEW_LAM:g}" in ll["notes"]
    # each iteration is compared with its own segment's baselines: the earlier ones keep theirs
    pyref = numbers.reference(b.majority, names[b.majority_class], b.cv_lambda, b.cv, b.cv_method, b.n_labelled,
                              [lam] * 4 + [NEW_LAM] * 2, lambda v: b.at_lambda.get(float(v)))
    LAB_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(LAB_SHOTS / "lab_baselines_lambda_change.png"))
    for t, sup in ((3, at0), (5, at1)):
        show(page, t)
        assert metric(page, 2) == f"{sup:.1%}"
        assert metric(page, 3) == f"{pyref.best(t)[1]:.1%}"
        a = page.evaluate(f"() => __nblab.lab.accuracy({t})")
        assert page.locator(".lab-gain").inner_text() == plain(numbers.gain_sentence(a, pyref.best(t)))
    assert errors == [], errors
    page.close()
