"""The lesson program in the app's lesson view (``?player=program``): the lab's page, fed by nbcore.

Against nbcore's own run with the same settings (the default lesson, built by the test with
``nblab.prepare.build_run`` on the app's copy of the data set, stepped by the test):
* at t = 0, after one Step and after five Step presses made without waiting (each press one iteration, in
  order, none lost), the page's α is nbcore's bit for bit and its accuracy on the hidden labels is the
  argmax of nbcore's predict_proba against the true labels;
* λ moved in the sidebar mid-run: EM continues from θ_t (nbcore's ``with_settings``), and the next Step's α
  is nbcore's at the new λ;
* the buttons keep their place on screen through Step, E-step and the λ change.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import nbcore
from dashboard.data import datasets
from nbcore.data import DEFAULT_PIPELINES
from nblab.defaults import DEFAULTS, LAMBDAS
from nblab.prepare import DataConfig, build_run

READY_JS = "() => { const E = window.__nblabLesson; return !!(E && E.G && E.G.ready); }"
SETTLED_JS = ("(n) => { const G = window.__nblabLesson.G; return G.lab.latest >= n && !G.served.queue.length"
              " && G.lab.t === G.lab.latest; }")
SHOWN_JS = """() => { const G = window.__nblabLesson.G, lab = G.lab, t = lab.t;
  return { t, latest: lab.latest, alpha: Array.from(lab.run.history[t].alpha), acc: lab.accuracy(t),
           lam: lab.run.history[t].lam, shown: G.metrics.mAcc.value.textContent }; }"""


class Oracle:
    """nbcore's run of the default lesson, stepped by the test."""

    def __init__(self, lam=DEFAULTS["lam"]):
        model = nbcore.load_dataset(DEFAULTS["dataset"]).models[0]   # the sidebar's first event model
        cfg = DataConfig(dataset=DEFAULTS["dataset"], model=model, hidden_pct=DEFAULTS["hidden"],
                         init=DEFAULTS["init"], seed=DEFAULTS["seed"], unlabeled_weight=1.0,
                         max_iter=DEFAULTS["max_iter"], tol=DEFAULTS["tol"])
        # the app's own copy of the data set (its loader: the same matrix, its indices sorted, which fixes the
        # order nbcore's sparse products sum in, down to the last bit)
        self.prep, self.run = build_run(replace(cfg, text=DEFAULT_PIPELINES.get(cfg.dataset)), lam,
                                        datasets.get_dataset)

    def to(self, t):
        while self.run.iteration < t:
            self.run.step()

    def accuracy(self, t):
        rows = (self.prep.y_obs < 0) & (self.prep.y_eval >= 0)
        pred = np.asarray(self.run.predict_proba(t=t)).argmax(axis=1)
        return float(np.mean(pred[rows] == self.prep.y_eval[rows]))


@pytest.fixture(scope="module")
def page(browser, server):
    ctx, pg = open_program(browser, server)
    yield pg
    ctx.close()


def open_program(browser, server, query: str = "", height: int = 720):
    """(context, page): the lesson program on its own page, 1280 px wide, once it is drawn."""
    ctx = browser.new_context(viewport={"width": 1280, "height": height})
    pg = ctx.new_page()
    pg.goto(f"{server}/?player=program{query}")
    pg.wait_for_function(READY_JS, timeout=120_000)
    return ctx, pg


def step_button(page):
    return page.locator(".lab-bar button", has_text="Step").first


def check(page, orc, t):
    page.wait_for_function(SETTLED_JS, arg=t, timeout=120_000)
    got = page.evaluate(SHOWN_JS)
    orc.to(t)
    snap = orc.run.history[t]
    assert got["t"] == t
    assert got["alpha"] == list(snap.alpha), f"α at t = {t} is not nbcore's"
    assert got["acc"] == pytest.approx(orc.accuracy(t), abs=1e-12), f"accuracy at t = {t}"
    assert got["shown"] == f"{orc.accuracy(t) * 100:.1f}%"
    return got


def test_the_lesson_program_shows_nbcore_s_run(page):
    orc = Oracle()
    check(page, orc, 0)
    where = step_button(page).bounding_box()
    step_button(page).click()
    check(page, orc, 1)
    for _ in range(4):                       # four presses, none waiting for the one before
        step_button(page).click(delay=0)
    check(page, orc, 5)
    assert step_button(page).bounding_box() == where, "Step moved after Steps"

    # λ one notch up in the sidebar mid-run: EM continues from θ_5 at the new λ
    lam = LAMBDAS[LAMBDAS.index(DEFAULTS["lam"]) + 1]
    thumb = page.get_by_role("slider", name="Smoothing λ").first
    thumb.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(l) => window.__nblabLesson.G.lab.settings.lam === l", arg=lam, timeout=120_000)
    assert "continues" in page.locator(".lab-change").inner_text()
    assert step_button(page).bounding_box() == where, "Step moved after a λ change"
    step_button(page).click()
    orc.to(5)
    orc.run = orc.run.with_settings(smoothing=lam)
    got = check(page, orc, 6)
    assert got["lam"] == lam
    assert step_button(page).bounding_box() == where


def button(page, name):
    return page.locator(".lab-bar button", has_text=name).first


def test_halves_reset_convergence_and_play(page):
    """E-step then M-step is one iteration (nbcore's); Reset is a new run from θ_0 on the server; Run to
    convergence ends where nbcore's run stops; Play shows every iteration it passes, in order, and stops at
    the end of the run."""
    button(page, "Reset").click()
    page.wait_for_function("() => { const G = window.__nblabLesson.G; return G.lab.latest === 0 && G.ready; }",
                           timeout=120_000)
    orc = Oracle(page.evaluate("() => window.__nblabLesson.G.lab.settings.lam"))   # Reset keeps the settings
    check(page, orc, 0)
    button(page, "E-step").click()
    page.wait_for_function("() => window.__nblabLesson.G.lab.half === 'e'", timeout=60_000)
    assert page.evaluate("() => window.__nblabLesson.G.lab.latest") == 0      # θ does not change
    button(page, "M-step").click()
    check(page, orc, 1)
    button(page, "Run to convergence").click()
    orc.run.run_to_convergence()
    end = orc.run.iteration
    page.wait_for_function("(n) => { const G = window.__nblabLesson.G; return G.lab.latest === n && G.lab.done; }",
                           arg=end, timeout=120_000)
    check(page, orc, end)
    assert page.locator(".lab-status").inner_text().startswith(f"Status: Converged at t = {end}")
    # Play from the start of the finished run: the page walks through the iterations nbcore computed
    page.evaluate("() => { window.__shown = []; const lab = window.__nblabLesson.G.lab, show = lab.show.bind(lab);"
                  " lab.show = (t) => { const r = show(t); window.__shown.push(lab.t); return r; }; }")
    button(page, "Play").click()
    page.wait_for_function("(n) => !window.__nblabLesson.G.playing && window.__shown.includes(n)", arg=end,
                           timeout=120_000)
    shown = page.evaluate("() => window.__shown")
    walked = [t for i, t in enumerate(shown) if i == 0 or t != shown[i - 1]]
    assert walked == list(range(walked[0], end + 1)) and walked[0] <= 1, walked


FIRST_SCREEN_JS = """() => {
  const G = window.__nblabLesson.G, H = window.innerHeight;
  const charts = [...document.querySelectorAll('.lab-charts .js-plotly-plot')].map((gd) => ({
    bottom: gd.getBoundingClientRect().bottom, plot: gd._fullLayout._size.h,
    yrange: gd._fullLayout.yaxis.range.slice() }));
  const bar = [...document.querySelectorAll('.lab-bar button')].map((b) => b.getBoundingClientRect().bottom);
  const metrics = document.querySelector('.lab-metric-grid').getBoundingClientRect().bottom;
  const small = [];
  for (const e of document.querySelectorAll('.lab-top *, .lab-charts svg text')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || r.bottom > H || !(e.textContent || '').trim()) continue;
    if (getComputedStyle(e).clip === 'rect(0px, 0px, 0px, 0px)' || getComputedStyle(e).clipPath === 'inset(50%)') continue;
    const px = parseFloat(getComputedStyle(e).fontSize);
    if (px < 18) small.push([e.tagName, (e.textContent || '').slice(0, 30), px]);
  }
  return { H, charts, bar: Math.max(...bar), metrics, small, classroom: G.settings.classroom };
}"""


def test_classroom_shows_controls_numbers_and_charts_on_one_screen(browser, server):
    """Classroom mode at 1280×720: the buttons, the numbers and every chart end on the first screen, each
    chart's plot area is at least 160 px tall, no text is under 18 px, and the accuracy axis starts under its
    lowest line, not at 50 %."""
    ctx, pg = open_program(browser, server, "&classroom=true")
    for _ in range(3):
        step_button(pg).click(delay=0)
    pg.wait_for_function(SETTLED_JS, arg=3, timeout=120_000)
    pg.wait_for_function("() => window.__nblabLesson.G.drawing", timeout=60_000)
    pg.evaluate("() => window.__nblabLesson.G.drawing")
    for when in ("mid-run", "converged"):
        if when == "converged":
            button(pg, "Run to convergence").click()
            pg.wait_for_function("() => { const G = window.__nblabLesson.G; return G.lab.done && !G.served.converging; }",
                                 timeout=120_000)
            pg.evaluate("() => window.__nblabLesson.G.drawing")
        got = pg.evaluate(FIRST_SCREEN_JS)
        assert got["classroom"] is True
        assert got["bar"] <= got["H"] and got["metrics"] <= got["H"], when
        assert len(got["charts"]) == 3
        for c in got["charts"]:
            assert c["bottom"] <= got["H"], (when, got["charts"])
            assert c["plot"] >= 160, (when, got["charts"])
        assert got["charts"][1]["yrange"][0] > 0.5, "the accuracy axis flattens the run into 50–100 %"
        assert not got["small"], (when, got["small"])
    ctx.close()


def test_warnings_name_nbcore_s_drifted_prior(browser, server):
    """A random start on sms_spam with 95 % hidden: EM's α leaves the labelled share; the warning under the
    numbers gives nbcore's α at that iteration and the labelled share, and the buttons stay where they were."""
    ctx, pg = open_program(browser, server, "&init=random&hidden=95")
    where = step_button(pg).bounding_box()
    for _ in range(4):
        step_button(pg).click(delay=0)
    pg.wait_for_function(SETTLED_JS, arg=4, timeout=120_000)
    pg.wait_for_function("() => !window.__nblabLesson.G.warnBox.hidden", timeout=60_000)
    text = pg.locator(".lab-warnings").inner_text()
    model = nbcore.load_dataset("sms_spam").models[0]
    cfg = DataConfig(dataset="sms_spam", model=model, hidden_pct=95, init="random", seed=0, unlabeled_weight=1.0,
                     max_iter=DEFAULTS["max_iter"], tol=DEFAULTS["tol"], text=DEFAULT_PIPELINES.get("sms_spam"))
    prep, run = build_run(cfg, DEFAULTS["lam"], datasets.get_dataset)
    for _ in range(4):
        run.step()
    seen = prep.y_obs[prep.y_obs >= 0]
    share = np.bincount(seen, minlength=2) / seen.size
    a = run.history[4].alpha
    assert abs(a[0] - share[0]) > 0.10, "the case must drift for the check to mean anything"
    assert f"α(ham) is {a[0]:.1%} at t = 4, but {share[0]:.1%} of the {seen.size:,} labelled" in text
    assert step_button(pg).bounding_box() == where
    ctx.close()


def test_stop_rules_panel_gives_nbcore_s_step(browser, server):
    """The stop rules' panel at t = 2: the objective's relative change and ‖Δθ‖² (each parameter once, nbcore's
    snapshot.delta) as nbcore's run gives them, formatted as Python does."""
    ctx, pg = open_program(browser, server, height=900)
    for _ in range(2):
        step_button(pg).click(delay=0)
    pg.wait_for_function(SETTLED_JS, arg=2, timeout=120_000)
    # the panels above it draw as they come into view and grow: scrolled to again until it is drawn
    pg.wait_for_function("() => { const e = document.querySelector('#lab-panel-stop_rules'); e.scrollIntoView();"
                         " return !!e.querySelector('table'); }", timeout=60_000, polling=250)
    text = pg.locator("#lab-panel-stop_rules").inner_text()
    orc = Oracle()
    orc.to(2)
    a, b = orc.run.history[1], orc.run.history[2]
    assert f"|ΔL| / |L| at t=2\t{abs(b.objective - a.objective) / abs(a.objective):.2e}" in text
    assert f"‖Δθ‖², each parameter once\t{b.delta:.4g}" in text
    ctx.close()


LAB_LABELS_JS = ("() => { const E = window.__nblabLesson; return { lang: E.root.getAttribute('lang'), t: E.G.lab.t,"
                 " serial: E.G.lab.serial, labels: Array.from(E.root.querySelectorAll('.lab-metric-label'),"
                 " e => e.textContent) }; }")


def test_the_app_s_language_draws_the_lesson_program_and_a_change_keeps_the_run(browser, server):
    from nblab import i18n

    ctx, pg = open_program(browser, server, "&lang=de")
    got = pg.evaluate(LAB_LABELS_JS)
    assert got["lang"] == "de" and got["labels"][2] == i18n.gettext("de", "Supervised only") == "Nur überwacht"
    step_button(pg).click()
    pg.wait_for_function(SETTLED_JS, arg=1, timeout=120_000)
    before = pg.evaluate(LAB_LABELS_JS)
    # the sidebar's picker (its label in German): French, the lab's texts follow, its run and iteration kept
    pg.get_by_role("combobox", name="Sprache").click()
    pg.get_by_role("option", name="Français").click()
    pg.wait_for_function("() => window.__nblabLesson.root.getAttribute('lang') === 'fr'", timeout=120_000)
    got = pg.evaluate(LAB_LABELS_JS)
    assert got["t"] == 1 and got["serial"] == before["serial"]
    assert got["labels"][2] == i18n.gettext("fr", "Supervised only") == "Supervisé seul"
    assert got["labels"][1] == i18n.gettext("fr", "Accuracy (t={t})", t=1)
    ctx.close()
