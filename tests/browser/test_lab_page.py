"""The lab page (nblab/page.py): EM in the browser, opened from file:// in Chromium with the network off.

Every request that is not file: is blocked (Playwright routes) and recorded: the page must make none.
The numbers on screen (α, the accuracy on the hidden labels, the log-likelihood) are compared with the same
run computed here with plain nbcore (EM is deterministic): nbcore is the oracle, never anything the page
computed. Also: Step / E-step / M-step / Play / Pause / drag / Reset / Run to convergence, a λ change
mid-run that continues (nbcore's run.with_settings), data changes that rebuild, the URL fragment's round
trip, hostile values in the link and in the data (shown as text), a phone's viewport, classroom fonts,
reduced motion and axe-core. Screenshots go to artifacts/screenshots/ (lab_*.png).
"""
from __future__ import annotations

import numpy as np
import pytest

from kit.browser import require_chromium
from kit.lab import frames_for_steps, settled, show_panel
from kit.lab_page import (
    AXE,
    LAB_SHOTS,
    SHOTS,
    Oracle,
    check_numbers,
    close_ok,
    open_lab,
    show,
)
from nblab.defaults import DEFAULTS

pytestmark = pytest.mark.browser
sync_api = require_chromium()

# ---- the pages -------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def template():
    """The page's own template (nblab/template.json, the app's chart template saved without Streamlit's
    placeholder colours)."""
    return None


@pytest.fixture(scope="module")
def pages(tmp_path_factory, template):
    """The lab page of each shipped set the tests open (written once)."""
    from nblab.page import write_lab

    out = tmp_path_factory.mktemp("lab")
    return {name: write_lab(out / f"{name}.html", name, template=template) for name in ("sms_spam", "udhr_langid", "digits")}


@pytest.mark.parametrize("name", ["sms_spam", "udhr_langid", "digits"])
def test_numbers_on_screen_are_nbcores(browser, pages, name):
    o = open_lab(browser, pages[name], viewport={"width": 1280, "height": 900})
    orc = Oracle(name)
    names = o.ev("() => __nblab.lab.prep.classNames.map(String)")
    assert o.t == 0 and o.latest == 0
    check_numbers(o, orc, 0, names)
    o.click("step")
    assert o.t == 1
    check_numbers(o, orc, 1, names)
    o.press("ArrowRight", 2)
    o.press("PageDown", 2)
    assert o.t == 5
    check_numbers(o, orc, 5, names)
    # the charts hold every iteration and say their numbers in words
    assert o.ev("() => document.querySelectorAll('.lab-chart[role=figure] .js-plotly-plot').length") >= 2
    summary = o.page.locator("#lab-sum-alpha").inner_text()
    assert summary.startswith("Class priors α at iteration t = 5: ")
    assert f"{names[0]} {orc.alpha(5)[0]:.3f}" in summary
    close_ok(o)


def test_controls_step_halves_play_drag_reset_converge(browser, pages):
    o = open_lab(browser, pages["sms_spam"], viewport={"width": 1280, "height": 900})
    orc = Oracle("sms_spam")
    names = o.ev("() => __nblab.lab.prep.classNames.map(String)")
    # E-step then M-step: one iteration, the same as a Step
    o.click("e")
    assert o.ev("() => __nblab.lab.half") == "e" and o.latest == 0
    assert "E-step done" in o.sentence()
    assert o.page.locator('button[data-act="m"]').is_enabled()
    o.click("m")
    assert o.latest == 1 and o.ev("() => __nblab.lab.half") is None
    check_numbers(o, orc, 1, names)
    o.press("e")
    o.press("m")
    assert o.latest == 2
    # Play computes new iterations, Pause stops them
    o.page.select_option(".lab-settings select >> nth=0", "fastest")
    o.click("play")
    o.page.wait_for_function("() => __nblab.lab.latest >= 8", timeout=20_000)
    o.click("play")
    stopped = o.latest
    frames_for_steps(o.page, 8)        # the frames in which a running player would have made 8 steps
    assert o.latest == stopped and not o.ev("() => __nblab.lab.playing")
    # drag the slider back: the view moves, nothing is computed
    show(o, 3)
    assert o.t == 3 and o.latest == stopped
    check_numbers(o, orc, 3, names)
    assert "t = 3" in o.page.locator("#lab-sum-acc").inner_text()
    # P plays from there through the iterations already computed
    o.press("p")
    o.page.wait_for_function(f"() => __nblab.lab.t >= {stopped}", timeout=20_000)
    o.press("p")
    # Run to convergence (unless Play got there), then Reset (Home)
    if not o.ev("() => __nblab.lab.done"):
        o.click("converge")
    o.page.wait_for_function("() => __nblab.lab.done && !__nblab.converging", timeout=120_000)
    o.settle()
    orc.run.run_to_convergence()
    assert o.latest == len(orc.run.history) - 1
    assert o.page.locator(".lab-status").inner_text().startswith(f"Status: Converged at t = {o.latest}")
    check_numbers(o, orc, o.latest, names)
    o.press("Home")
    assert o.t == 0 and o.latest == 0
    assert "Reset: new run from iteration 0" in o.page.locator(".lab-change").inner_text()
    close_ok(o)


def test_lambda_mid_run_continues_as_nbcore_with_settings(browser, pages):
    o = open_lab(browser, pages["sms_spam"], viewport={"width": 1280, "height": 900})
    names = o.ev("() => __nblab.lab.prep.classNames.map(String)")
    o.press("ArrowRight", 3)
    assert o.latest == 3
    lams = o.ev("() => __nblab.cfg.lambdas")
    o.set_range("Smoothing λ", lams.index(0.1))
    notice = o.page.locator(".lab-change").inner_text()
    assert f"λ changed {DEFAULTS['lam']:g} → 0.1: EM continues from iteration 3" in notice and "history kept" in notice
    assert o.latest == 3 and o.t == 3                                     # history kept
    assert o.ev("() => location.hash").find("lam=0.1") > 0
    o.press("ArrowRight", 2)
    # the oracle: three steps at λ = 1, then run.with_settings(smoothing=0.1), two more steps
    orc = Oracle("sms_spam").to(3)
    orc.run = orc.run.with_settings(smoothing=0.1)
    orc.lam = 0.1
    for t in range(6):
        orc.to(t)
    for t in (3, 4, 5):
        check_numbers(o, orc, t, names)
    assert o.snap(5)["lam"] == 0.1 and o.snap(3)["lam"] == DEFAULTS["lam"]
    # the charts mark the change, and say it
    assert "λ changed at t = 4 (λ = 0.1)" in o.page.locator("#lab-sum-ll").inner_text()
    o.page.screenshot(path=str(SHOTS / "lab_lambda_mid_run.png"))
    close_ok(o)


def test_tolerance_and_budget_mid_run_continue(browser, pages):
    o = open_lab(browser, pages["sms_spam"], viewport={"width": 1280, "height": 900})
    o.press("ArrowRight", 2)
    o.page.locator(".lab-advanced > summary").click()
    o.page.get_by_label("Convergence tolerance", exact=True).select_option("1e-02")
    o.settle()
    notice = o.page.locator(".lab-change").inner_text()
    assert "tolerance 1e-06 → 1e-02" in notice and "EM continues from iteration 2" in notice
    assert o.latest == 2
    box = o.page.get_by_label("Max iterations (1–1000)", exact=True)
    box.fill("3")
    box.press("Tab")
    o.settle()
    assert "max iterations 100 → 3" in o.page.locator(".lab-change").inner_text() and o.latest == 2
    o.press("ArrowRight", 3)
    assert o.latest <= 3 and o.ev("() => __nblab.lab.done")
    assert "tol=1e-02" in o.ev("() => location.hash") and "max_iter=3" in o.ev("() => location.hash")
    close_ok(o)


@pytest.mark.parametrize("change, fragment_key", [
    (("Labels hidden", 95), "hidden=95"),     # the default is 99
    (("model", "multinomial"), "model=multinomial"),
    (("init", "uniform"), "init=uniform"),
    (("seed", 7), "seed=7"),
])
def test_data_changes_rebuild_from_t0(browser, pages, change, fragment_key):
    o = open_lab(browser, pages["sms_spam"], viewport={"width": 1280, "height": 900})
    names = o.ev("() => __nblab.lab.prep.classNames.map(String)")
    o.press("ArrowRight", 2)
    what, value = change
    settings = dict(hidden=DEFAULTS["hidden"], model="bernoulli", init="labeled", seed=0)
    if what == "Labels hidden":
        o.set_range("Labels hidden", value)
        settings["hidden"] = value
    elif what == "model":
        o.page.get_by_label(value, exact=True).check()
        settings["model"] = value
    elif what == "init":
        o.page.locator(".lab-advanced > summary").click()
        o.page.get_by_label("Initialisation", exact=True).select_option(value)
        settings["init"] = value
    else:
        o.page.locator(".lab-advanced > summary").click()
        box = o.page.get_by_label("Seed (0–9999)", exact=True)
        box.fill(str(value))
        box.press("Tab")
        settings["seed"] = value
    # the new run is built and drawn (on a busy machine that can take more than two animation frames)
    o.page.wait_for_function("() => __nblab.lab.latest === 0 && __nblab.lab.t === 0"
                             " && document.querySelector('.lab-change').innerText.includes('new run from iteration 0')",
                             timeout=60_000)
    o.settle()
    assert o.t == 0 and o.latest == 0
    notice = o.page.locator(".lab-change").inner_text()
    assert "new run from iteration 0" in notice
    assert fragment_key in o.ev("() => location.hash")
    orc = Oracle("sms_spam", **settings)
    check_numbers(o, orc, 0, names)
    o.press("ArrowRight")
    check_numbers(o, orc, 1, names)
    close_ok(o)


def test_every_label_hidden_starts_at_random_and_scores_matched_clusters(browser, pages):
    """hidden=100: no label visible, EM starts at random (the page says so) and its clusters are named by
    the best matching before scoring (nbcore.hidden_accuracy with n_classes)."""
    o = open_lab(browser, pages["digits"], "hidden=100&t=3", viewport={"width": 1280, "height": 900})
    names = o.ev("() => __nblab.lab.prep.classNames.map(String)")
    assert "starts from a random initialisation" in o.page.locator(".lab-change").inner_text()
    assert o.ev("() => __nblab.lab.effectiveInit") == "random"
    orc = Oracle("digits", hidden=100)
    for t in (3, 0):
        check_numbers(o, orc, t, names)
    assert o.page.locator("#lab-sum-acc").is_visible()
    close_ok(o)


def test_url_fragment_round_trip(browser, pages):
    frag = "dataset=sms_spam&model=multinomial&hidden=95&lam=0.1&init=uniform&seed=3&max_iter=50&tol=1e-04&t=4"
    o = open_lab(browser, pages["sms_spam"], frag, viewport={"width": 1280, "height": 900})
    names = o.ev("() => __nblab.lab.prep.classNames.map(String)")
    assert o.page.locator(".lab-link-notice").is_hidden()
    assert o.t == 4 and o.latest == 4
    assert "Recomputed to iteration 4, as the link says" in o.page.locator(".lab-change").inner_text()
    assert o.ev("() => location.hash") == "#" + frag
    orc = Oracle("sms_spam", model="multinomial", hidden=95, lam=0.1, init="uniform", seed=3, max_iter=50, tol=1e-4)
    check_numbers(o, orc, 4, names)
    # the controls show the link's settings
    assert o.page.get_by_label("multinomial", exact=True).is_checked()
    assert o.page.get_by_label("Labels hidden", exact=True).input_value() == "95"
    # a step: the link follows; opened again, it shows the same
    o.press("ArrowRight")
    href = o.ev("() => location.href")
    assert href.endswith("t=5")
    sentence = o.sentence()
    close_ok(o)
    o2 = open_lab(browser, pages["sms_spam"], href.split("#", 1)[1], viewport={"width": 1280, "height": 900})
    assert o2.sentence() == sentence
    # the link edited in the address bar: the page follows it (a new run, recomputed to its t)
    o2.ev("() => { location.hash = 'hidden=97&lam=abc&t=2'; }")
    o2.page.wait_for_function("() => __nblab.lab.settings.hidden === 97 && __nblab.lab.t === 2", timeout=20_000)
    o2.settle()
    assert "lam=abc is not a number" in o2.page.locator(".lab-link-notice").inner_text()
    assert o2.page.get_by_label("Labels hidden", exact=True).input_value() == "97"
    check_numbers(o2, Oracle("sms_spam", hidden=97), 2, names)
    # classroom=true in the link: the page's bigger type
    close_ok(o2)


def test_hostile_url_values_are_refused_with_a_notice(browser, pages):
    frag = ("hidden=150&lam=abc&model=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&seed=1e400&max_iter=" + "9" * 300
            + "&tol=0x10&init=%3Cscript%3Ealert(1)%3C%2Fscript%3E&t=-3&classroom=maybe&dataset=..%2F..%2Fetc%2Fpasswd&foo=bar")
    o = open_lab(browser, pages["sms_spam"], frag, viewport={"width": 1280, "height": 900})
    box = o.page.locator(".lab-link-notice")
    assert box.is_visible()
    text = box.inner_text()
    for key in ("hidden", "lam", "model", "seed", "max_iter", "tol", "init", "t", "classroom", "dataset", "foo"):
        assert f"{key}=" in text, key
    assert f"hidden=150 is outside 0–100; used {DEFAULTS['hidden']}" in text
    assert "lam=abc is not a number" in text and f"used {DEFAULTS['lam']:g}" in text
    assert "model=<img src=x onerror=alert(1)> is not a event model" in text     # the value, as text
    assert o.ev("() => document.querySelectorAll('img').length") == 0
    assert o.ev("() => document.querySelectorAll('script:not([type]):not([id]):not([src])').length") == 2   # the page's own two
    # the defaults are used
    got = o.ev("() => __nblab.settings")
    for key in ("hidden", "lam", "seed", "max_iter", "tol", "init", "classroom"):
        assert got[key] == DEFAULTS[key], key
    assert got["model"] == "bernoulli" and got["t"] == 0
    o.page.screenshot(path=str(SHOTS / "lab_hostile_link.png"))
    o.page.get_by_role("button", name="OK, hide this note").click()
    assert box.is_hidden()
    # a number typed out of range in the settings: refused the same way
    o.page.locator(".lab-advanced > summary").click()
    seed = o.page.get_by_label("Seed (0–9999)", exact=True)
    seed.fill("123456")
    seed.press("Tab")
    o.settle()
    assert "seed=123456 is outside 0–9999; used 0" in box.inner_text()
    assert seed.input_value() == "0"
    close_ok(o)


def hostile_lab_data():
    """A small text data set whose class and feature names and texts are hostile."""
    from nblab.data import lab_data_from_arrays
    rng = np.random.default_rng(0)
    N, V = 60, 8
    X = (rng.random((N, V)) < 0.3).astype(float)
    y = np.r_[np.zeros(30, int), np.ones(30, int)]
    X[y == 1, :3] = 1
    names = ['<img src=x onerror=alert(1)>', '=HYPERLINK("http://x")']
    feats = ['<script>alert(2)</script>', '=HYPERLINK("http://x")', "&amp;", "\u202eevil", "a\nb", "x" * 300, "<b>bold</b>", "ok"]
    texts = [f"<img src=x onerror=alert({i})> =HYPERLINK(\"http://x\")" for i in range(N)]
    return lab_data_from_arrays(X, y, class_names=names, feature_names=feats, texts=texts, name='<svg onload=alert(3)>')


def test_hostile_data_names_are_text(browser, tmp_path, template):
    from nblab.page import write_lab
    path = write_lab(tmp_path / "hostile.html", hostile_lab_data(), template=template, hidden=50)
    html = path.read_text(encoding="utf-8")
    assert "<img src=x" not in html and "<svg onload" not in html.split("<title>")[1]
    o = open_lab(browser, path, viewport={"width": 1280, "height": 900})
    o.press("ArrowRight", 2)
    o.page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    o.settle()
    assert o.dialogs == []
    assert o.ev("() => document.querySelectorAll('img, svg[onload], b').length") == 0
    assert o.ev("() => document.querySelectorAll('script:not([type]):not([id]):not([src])').length") == 2   # the page's own two
    body = o.page.locator("body").inner_text()
    assert "<img src=x onerror=alert(1)>" in body
    assert '=HYPERLINK("http://x")' in body
    assert o.ev("() => [...document.querySelectorAll('*')].some(e => [...e.attributes].some(a => a.name.startsWith('on')))") is False
    close_ok(o)


def test_phone_viewport(browser, pages):
    o = open_lab(browser, pages["sms_spam"], viewport={"width": 390, "height": 844}, device_scale_factor=2,
                 is_mobile=True, has_touch=True)
    o.press("ArrowRight", 3)
    width = o.ev("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    lefts = o.ev("() => [...document.querySelectorAll('.lab-chart:not([hidden])')].map(e => Math.round(e.getBoundingClientRect().left))")
    assert len(lefts) == 3 and len(set(lefts)) == 1                   # one chart per row
    # the settings stack above the charts, full width
    side = o.ev("() => { const r = document.querySelector('.lab-side').getBoundingClientRect(); return [r.left, r.width]; }")
    assert side[1] > 330
    o.page.screenshot(path=str(SHOTS / "lab_phone.png"), full_page=False)
    close_ok(o)


def test_classroom_mode_fonts(browser, pages):
    o = open_lab(browser, pages["sms_spam"], "classroom=true", viewport={"width": 1280, "height": 720})
    o.press("ArrowRight")
    o.page.evaluate("() => document.querySelectorAll('.lab-root details').forEach(d => d.open = true)")
    o.settle()
    small = o.ev("""() => {
      const out = [];
      const walk = document.createTreeWalker(document.querySelector('.lab-root'), NodeFilter.SHOW_TEXT);
      while (walk.nextNode()) {
        const n = walk.currentNode, e = n.parentElement;
        if (!n.textContent.trim() || !e || e.closest('svg') || !e.getClientRects().length) continue;
        const fs = parseFloat(getComputedStyle(e).fontSize);
        if (fs < 18) out.push([e.tagName, e.className, n.textContent.trim().slice(0, 30), fs]);
      }
      return out.slice(0, 20);
    }""")
    assert small == []
    # the charts' ticks, axis titles and legends too
    sizes = o.ev("""() => [...document.querySelectorAll('.lab-chart .xtick text, .lab-chart .ytick text, .lab-chart .xtitle,'
                 + ' .lab-chart .ytitle, .lab-chart .legendtext, .lab-chart .gtitle')].map(e => parseFloat(e.style.fontSize))""")
    assert sizes and min(sizes) >= 18, sorted(sizes)[:5]
    assert o.ev("() => document.querySelector('.lab-root').classList.contains('lab-classroom')")
    o.page.keyboard.press("c")
    o.settle()
    assert "classroom" not in o.ev("() => location.hash")
    close_ok(o)


def test_reduced_motion_play(browser, pages):
    o = open_lab(browser, pages["sms_spam"], "speed=fastest", viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    assert o.ev("() => __nblab.reducedMotion()") is True
    o.press("p")
    o.page.wait_for_function("() => __nblab.lab.latest >= 4", timeout=20_000)
    o.press("p")
    assert o.ev("() => getComputedStyle(document.querySelector('.lab-btn')).transitionDuration") in ("0s", "")
    close_ok(o)


AXE_RUN = """async (exclude) => {
  const ctx = exclude ? { exclude: [[exclude]] } : document;
  const r = await axe.run(ctx, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
                                 resultTypes: ['violations'] });
  // axe's best practices (landmarks, headings, regions) on the page's own parts
  const b = await axe.run({ exclude: [['.nbl-panel']] }, { runOnly: { type: 'tag', values: ['best-practice'] },
                                                          resultTypes: ['violations'] });
  return r.violations.concat(b.violations).map(v => [v.id, v.impact, v.nodes.length, v.nodes.slice(0, 3).map(n => n.target.join(' '))]);
}"""


def axe_states(browser, pages, exclude):
    """axe on a desktop page and a phone page in classroom mode, mid-run with an E-step pending, every
    disclosure open and every panel below drawn (they are drawn when in view)."""
    if not AXE.exists():
        pytest.skip("no vendored axe-core")
    for vp, frag in (({"width": 1280, "height": 900}, ""), ({"width": 390, "height": 844}, "classroom=true")):
        o = open_lab(browser, pages["sms_spam"], frag, viewport=vp)
        o.press("ArrowRight", 2)
        o.press("e")
        o.page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        for name in o.ev("() => [...document.querySelectorAll('.lab-panel:not([hidden])')].map(e => e.dataset.panel)"):
            show_panel(o.page, f'.lab-panel[data-panel="{name}"]')
        o.ev("() => __nblab.idle()")
        o.settle()
        o.page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
        got = o.ev(AXE_RUN, exclude or "")
        assert got == [], (vp, got)
        close_ok(o)


def test_axe_finds_nothing_on_the_pages_own_parts(browser, pages):
    """WCAG 2.0 / 2.1 A and AA (as the app's test) on everything but the panels below the charts."""
    axe_states(browser, pages, ".nbl-panel")


def test_axe_finds_nothing_on_the_whole_page(browser, pages):
    """The same with the panels below the charts (nblab/js/panels/) included."""
    axe_states(browser, pages, None)


def test_screenshots(browser, pages):
    """Desktop (1280×720) and phone (390×844) at t = 0, mid-run after a λ change, and at convergence."""
    LAB_SHOTS.mkdir(parents=True, exist_ok=True)
    for name in ("sms_spam", "udhr_langid", "digits"):
        for tag, vp in (("desktop", {"width": 1280, "height": 720}), ("phone", {"width": 390, "height": 844})):
            o = open_lab(browser, pages[name], viewport=vp)
            o.page.screenshot(path=str(LAB_SHOTS / f"{name}_{tag}_t0.png"))
            o.press("ArrowRight", 3)
            lams = o.ev("() => __nblab.cfg.lambdas")
            o.set_range("Smoothing λ", lams.index(0.1))
            o.press("ArrowRight", 2)
            o.page.screenshot(path=str(LAB_SHOTS / f"{name}_{tag}_lambda.png"))
            o.click("converge")
            o.page.wait_for_function("() => __nblab.lab.done && !__nblab.converging", timeout=120_000)
            o.settle()
            settled(o.page)
            o.page.screenshot(path=str(LAB_SHOTS / f"{name}_{tag}_converged.png"))
            if tag == "phone":            # the charts, one per row, further down the phone's page
                o.page.locator(".lab-charts").scroll_into_view_if_needed()
                o.settle()
                o.page.screenshot(path=str(LAB_SHOTS / f"{name}_{tag}_converged_charts.png"))
            close_ok(o)
