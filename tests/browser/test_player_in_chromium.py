"""The lesson's browser player in real Chromium: scrubbing while dragging, Play/Pause, the maths panel follows.

The charts' numbers are compared with the same run computed here with nbcore (EM is
deterministic), not with anything the player or the server reports. Screenshots go to
artifacts/screenshots/ (player_start, player_mid_scrub, player_converged).
Skipped without /usr/bin/chromium unless CI is set (as tests/browser/test_lesson_in_chromium.py).
"""
from __future__ import annotations

import numpy as np
import pytest

import nbcore
from dashboard.charts import lesson as lesson_charts
from dashboard.ui import derive
from kit import ROOT
from kit.browser import STILL_JS, frames, require_chromium, wait_script_done, wait_still

SHOTS = ROOT / "artifacts" / "screenshots"
LONG = "dataset=synthetic_spam&hidden=90&lam=1&tol=1e-08&max_iter=40"   # the run _expected_run computes

pytestmark = pytest.mark.browser

sync_api = require_chromium()




def _expected_run(max_iter=40, tol=1e-8):
    """The default lesson's run, computed here: synthetic_spam, 90 % hidden, λ = 1, from the labelled, seed 0."""
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    run = nbcore.EM(model="bernoulli", n_classes=ds.n_classes, smoothing=1.0, init="labeled", max_iter=max_iter,
                    tol=tol, random_state=0).start(ds.X, y_obs)
    run.run_to_convergence()
    return ds, run


P = "window.nbemPlayerSnapshot?.()"
#: clicks the bar's Pause button once the player is playing at t >= 2 (true then; false until then)
PAUSE_WHILE_PLAYING_JS = (f"() => {{ const s = {P}; if (!(s && s.playing && s.t >= 2)) return false;"
                          " const b = [...document.querySelectorAll('button')]"
                          ".find(x => x.textContent.trim().endsWith('Pause'));"
                          " if (!b) return false; b.click(); return true; }")
METRIC = ("() => { const m = [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
          ".find(e => e.innerText.includes('Iteration'));"
          " return m ? parseInt(m.querySelector('[data-testid=\"stMetricValue\"]').innerText) : -1; }")
# the parameter chart as the browser drew it: ticktext (feature names) and each class's bar values
DRAWN = ("() => { const gd = document.querySelector('.nbp-params .nbp-chart .js-plotly-plot:not(.nbp-back)');"
         " if (!gd || !gd._fullLayout) return null;"
         " const xa = gd._fullLayout.xaxis;"
         # what is on screen: the tick labels' text, and each bar's length read back from its SVG path
         " const names = [...gd.querySelectorAll('.yaxislayer-above .ytick text')]"
         "   .sort((a, b) => a.__data__.x - b.__data__.x).map((e) => e.textContent);"
         " const x = [...gd.querySelectorAll('.barlayer .trace')].map((g) => [...g.querySelectorAll('.point path')]"
         "   .map((p) => xa.p2c(parseFloat(/H([-+\\d.eE]+)/.exec(p.getAttribute('d'))[1]))));"
         " return {names, x, tol: 1.5 * Math.abs(xa.range[1] - xa.range[0]) / xa._length}; }")


def _open(browser, url):
    page = browser.new_page(viewport={"width": 1600, "height": 2000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(f"() => {P} && {P}.main && {P}.params && {P}.params.log && window.Plotly", timeout=120_000)
    page.wait_for_function(f"() => ({DRAWN})() !== null", timeout=60_000)
    return page, errors


def _expected_bars(ds, run, t):
    view = derive.param_view(run.history[t], "bernoulli", ds.feature_names)
    prev = derive.param_view(run.history[t - 1], "bernoulli", ds.feature_names) if t else None
    spec = lesson_charts.beta_bars_figure(view.mat, None if prev is None else prev.mat, view.rows, ds.class_names,
                                   value_label=view.label, log_scale=view.log_scale, font_size=15)
    bars = [tr for tr in spec["data"] if tr["type"] == "bar"]
    return spec["layout"]["yaxis"]["ticktext"], [b["x"] for b in bars]


def _assert_shows(page, ds, run, t):
    drawn = page.evaluate(DRAWN)
    names, xs = _expected_bars(ds, run, t)
    assert drawn["names"] == list(names), (t, drawn["names"], names)
    assert len(drawn["x"]) == len(xs)
    for got, want in zip(drawn["x"], xs):  # to the pixel: the bars' SVG paths, read back in data units
        np.testing.assert_allclose(got, want, atol=drawn["tol"])


def _wait_shows(page, ds, run, t, timeout=30_000):
    """Wait until the parameter chart shows iteration t (feature names and bars, to the pixel), then assert it."""
    names, xs = _expected_bars(ds, run, t)
    want = {"names": list(names), "x": [[float(v) for v in x] for x in xs]}
    page.wait_for_function(f"(w) => {{ const d = ({DRAWN})(); return !!d && JSON.stringify(d.names) === "
                           "JSON.stringify(w.names) && d.x.length === w.x.length && d.x.every((r, i) => "
                           "r.length === w.x[i].length && r.every((v, j) => Math.abs(v - w.x[i][j]) <= d.tol)); }",
                           arg=want, timeout=timeout)
    _assert_shows(page, ds, run, t)


def _shot(page, name, move_mouse=True):
    SHOTS.mkdir(parents=True, exist_ok=True)
    if move_mouse:  # no tooltip in the picture (not while dragging: that would move the slider)
        page.mouse.move(5, 5)
    wait_still(page)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_scrubbing_redraws_while_dragging_and_the_maths_follows_on_release(server, browser):
    ds, run = _expected_run()
    n = len(run.history) - 1
    assert n >= 8
    page, errors = _open(browser, f"{server}/?{LONG}")
    _assert_shows(page, ds, run, 0)
    _shot(page, "player_start")
    page.get_by_role("button", name="Run to convergence", exact=True).click()
    page.wait_for_function(f"() => ({METRIC})() === {n} && {P}.n === {n + 1} && {P}.t === {n}", timeout=120_000)
    page.wait_for_function(f"() => {P}.params.log.frames.length === {n + 1}", timeout=60_000)
    _assert_shows(page, ds, run, n)

    # drag from the right end to the left, one slider position at a time, the mouse button held down
    box = page.locator(".nbp-slider").bounding_box()
    y = box["y"] + box["height"] / 2
    x = [box["x"] + 8 + (box["width"] - 16) * k / n for k in range(n + 1)]
    page.mouse.move(x[n], y)
    page.mouse.down()
    seen = []
    mid = n // 2
    for k in range(n - 1, -1, -1):
        page.mouse.move(x[k], y)
        # the chart shows iteration k while the mouse is still down: no round trip to the server
        page.wait_for_function(f"() => {P}.stats.lastDrawn === {k}", timeout=20_000)
        _wait_shows(page, ds, run, k)   # its Plotly.react resolved: the bars are iteration k's
        seen.append(k)
        if k == mid:
            _shot(page, "player_mid_scrub", move_mouse=False)
            # the server has not been told yet: its page still says nothing about an earlier iteration
            assert page.get_by_text("Showing iteration").count() == 0
    fast = page.evaluate(f"() => {P}.stats.fast || 0")
    page.mouse.up()
    assert seen == list(range(n - 1, -1, -1))
    # most frames were the cheap redraw (bars and words rewritten in the SVG on the axis as drawn), and
    # what they showed was checked above against nbcore's numbers, to the pixel
    assert fast >= n // 2, (fast, n)
    # released at 0: the server follows (caption, metric, maths panel of iteration 0)
    page.get_by_text(f"Showing iteration 0 of {n}").first.wait_for(timeout=30_000)
    page.get_by_text("t = 0: these are the initial parameters").first.wait_for(timeout=30_000)

    # keyboard on the same slider: the maths panel explains the iteration shown
    page.locator(".nbp-slider").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => {P}.stats.lastDrawn === 3", timeout=10_000)
    _wait_shows(page, ds, run, 3)  # Plotly.react has resolved
    page.get_by_text("How iteration 3 was made").first.wait_for(timeout=30_000)
    page.get_by_text(f"Showing iteration 3 of {n}").first.wait_for(timeout=30_000)
    # the metric names the iteration shown, the caption says the run is not cut back
    page.wait_for_function(f"() => ({METRIC})() === 3", timeout=30_000)
    page.locator(".nbp-slider").focus()
    page.keyboard.press("End")
    page.wait_for_function(f"() => {P}.t === {n}", timeout=10_000)
    page.get_by_text("Showing iteration").first.wait_for(state="detached", timeout=30_000)
    _shot(page, "player_converged")
    assert not errors, errors
    page.close()


def test_step_shows_the_next_iteration_before_the_server_answers(server, browser):
    """Step (the button, → and Page Down): the charts of the next iteration, computed ahead by the server
    and drawn ahead into hidden buffers, are on screen within the click's own task; the server's rerun
    that follows brings the metrics and redraws no chart."""
    ds, run = _expected_run()
    page, errors = _open(browser, f"{server}/?{LONG}")
    _assert_shows(page, ds, run, 0)
    stats = f"() => [{P}.t, {P}.stats.reacts - {P}.stats.backDraws, {P}.stats.swaps, {P}.stats.steps]"
    n_charts = page.evaluate(f"() => {P}.main.boxes.length + {P}.params.boxes.length")
    assert n_charts == 5  # α, accuracy, likelihood; top features and the truth scatter
    for t, how in ((1, "click"), (2, "ArrowRight"), (3, "PageDown")):
        # the next iteration's charts are drawn ahead (hidden) before the user presses Step
        page.wait_for_function(f"() => {P}.next && {P}.next.from === {t} && "
                               f"{P}.params.boxes.every(b => b.backTag && b.back._fullLayout) && "
                               f"{P}.main.boxes.every(b => b.backTag === {P}.next.series.find(s => s.name === b.name).ver)",
                               timeout=30_000)
        page.wait_for_function(STILL_JS, timeout=30_000)  # every chart, shown or drawn ahead, laid out
        if how != "click":
            page.evaluate("() => document.activeElement && document.activeElement.blur()")  # not in a text box
        before = page.evaluate(stats)
        if how == "click":  # clicked in the page: what is on screen one task later, before the server can answer
            shown = page.evaluate("() => new Promise((done) => { document.querySelector('.st-key-step button').click();"
                                  " setTimeout(() => done([%s.t, (%s)()]), 0); })" % (P, METRIC))
            assert shown == [t, t], shown  # the charts and the metric above them show t (the player writes it)
        else:
            page.keyboard.press(how)
        page.wait_for_function(f"() => {P}.t === {t}", timeout=10_000)
        _assert_shows(page, ds, run, t)  # iteration t's bars (nbcore, computed here)
        after = page.evaluate(stats)
        # every chart swapped in, no Plotly.react
        assert after[2] - before[2] == n_charts and after[1] == before[1] and after[3] == before[3] + 1, (how, before, after)
        page.wait_for_function(f"() => ({METRIC})() === {t}", timeout=30_000)  # the server's rerun arrived …
        wait_script_done(page)   # … its run is over and what it sent is drawn
        frames(page, 2)
        assert page.evaluate(stats)[1] == before[1], how  # … and redrew no visible chart
        _assert_shows(page, ds, run, t)
    label = page.locator(".nbp-label").inner_text()
    assert label.startswith("Iteration 3 of 3"), label
    assert not errors, errors
    page.close()


def _baseline(ds, lam):
    """Supervised-only Naive Bayes on the visible labels, scored on the hidden ones (nbcore, here)."""
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    y_eval = np.asarray(ds.y_true if getattr(ds, "y_true", None) is not None else ds.y)
    alpha, params = nbcore.supervised_fit("bernoulli", ds.X, y_obs, ds.n_classes, lam)
    pred = np.asarray(nbcore.predict_proba("bernoulli", alpha, params, ds.X)).argmax(axis=1)
    return nbcore.hidden_accuracy(pred, y_eval, np.asarray(y_obs) < 0)


def test_lambda_change_mid_run_starts_a_new_segment_and_the_next_step_uses_the_new_lambda(server, browser):
    """λ one notch down mid-run: the iterations already made keep their chart (supervised NB at λ = 1 for
    t = 0…3: history is not rewritten), and the next Step is EM continued with the new λ (not the iteration
    computed ahead with the old one), drawn as a new segment compared with supervised NB at λ = 0.3."""
    ds, run = _expected_run()
    page, errors = _open(browser, f"{server}/?{LONG}")
    for t in (1, 2, 3):
        page.locator(".st-key-step button").first.click()
        page.wait_for_function(f"() => ({METRIC})() === {t}", timeout=30_000)
    seg = f"() => {{ const d = {P}.main.boxes.find(b => b.name === 'acc').gd.data[1]; return [d.name, Array.from(d.y)]; }}"
    name, ys = page.evaluate(seg)
    b1 = _baseline(ds, 1.0)
    assert name == f"NB at λ = 1: {b1:.1%}" and ys == pytest.approx([b1, b1], abs=1e-12)
    lam = page.get_by_role("slider", name="Smoothing λ")
    lam.focus()
    page.keyboard.press("ArrowLeft")
    page.get_by_text("λ changed 1 → 0.3").first.wait_for(timeout=30_000)  # the server's rerun …
    wait_script_done(page)
    frames(page, 2)
    assert page.evaluate(seg) == [name, ys]                               # … leaves t = 0…3 as they were
    # the next Step: θ_4 with λ = 0.3 (nbcore here), not the θ_4 computed ahead with λ = 1
    cont = nbcore.EM(model="bernoulli", n_classes=ds.n_classes, smoothing=1.0, init="labeled", max_iter=40,
                     tol=1e-8, random_state=0).start(ds.X, nbcore.hide_labels(np.asarray(ds.y), fraction=0.9,
                                                                             random_state=0)[0])
    for _ in range(3):
        cont.step()
    cont = cont.with_settings(smoothing=0.3)
    cont.step()
    page.wait_for_function(f"() => {P}.next && {P}.next.from === 4", timeout=30_000)
    page.locator("h1").first.click()
    page.locator(".st-key-step button").first.click()
    page.wait_for_function(f"() => ({METRIC})() === 4 && {P}.t === 4", timeout=30_000)
    _wait_shows(page, ds, cont, 4)
    assert not _bars_equal(page, ds, run, 4)  # θ_4 with λ = 1 differs: the test can tell them apart
    page.wait_for_function(f"() => ({seg})()[0] === \"NB at each segment's λ\"", timeout=30_000)
    b03 = _baseline(ds, 0.3)
    got = page.evaluate(seg)[1]
    assert got[:2] == pytest.approx([b1, b1], abs=1e-12) and got[2] is None
    assert got[3:] == pytest.approx([b03, b03], abs=1e-12)
    assert not errors, errors
    page.close()


def _bars_equal(page, ds, run, t) -> bool:
    try:
        _assert_shows(page, ds, run, t)
        return True
    except AssertionError:
        return False


@pytest.mark.parametrize("speed", ["slow", "normal", "fastest"])
def test_pause_obeys_the_first_click_and_the_page_follows(server, browser, speed):
    page, errors = _open(browser, f"{server}/?{LONG}&speed={speed}")
    page.get_by_role("button", name="Play", exact=True).click()
    # Pause is clicked the moment Play is at t >= 2, in the page's own turn: at "fastest" the run's 31
    # iterations last 0.8 s, less than a mouse click takes on a loaded machine, and a click that arrived
    # after the end would press Play again (the same button) instead of testing Pause
    page.wait_for_function(PAUSE_WHILE_PLAYING_JS, timeout=90_000)
    t = page.evaluate(f"() => {P}.t")
    assert page.evaluate(f"() => {P}.playing") is False  # on the first click, whatever the speed
    page.get_by_role("button", name="Play", exact=True).wait_for(timeout=5_000)
    # stays put: the animation frame already asked for ticks once more (and stops); over the next painted
    # frames (each of which a running Play ticks on) the player's loop calls no tick, and t is unchanged
    frames(page, 2)
    ticks = page.evaluate(f"() => {P}.stats.ticks")
    frames(page, 30)
    assert page.evaluate(f"() => [{P}.t, {P}.stats.ticks]") == [t, ticks]
    # the parameter chart shows iteration t's numbers (computed here with nbcore), not a later one
    ds, run = _expected_run()
    page.wait_for_function(f"() => {P}.stats.lastDrawn === {t}", timeout=30_000)
    _wait_shows(page, ds, run, t)
    # the server follows the iteration shown: metric, status, maths panel; iterations computed
    # ahead while playing are dropped, so Step goes on from what the class saw
    page.wait_for_function(f"() => ({METRIC})() === {t}", timeout=60_000)
    page.get_by_text(f"Paused at t = {t}").first.wait_for(timeout=30_000)
    page.get_by_text(f"How iteration {t} was made").first.wait_for(timeout=30_000)
    page.locator(".st-key-step button").first.click()
    page.wait_for_function(f"() => ({METRIC})() === {t + 1} && {P}.stats.lastDrawn === {t + 1}", timeout=60_000)
    _wait_shows(page, ds, run, t + 1)
    assert not errors, errors
    page.close()


# When the maths panel's expander and the placeholder caption first appear (page clock), and the charts
# drawn by then: recorded in the page from its first byte.
FIRST_RENDER_JS = """(() => {
  window.__firstRender = { caption: null, maths: null, chartsAtMaths: null };
  const R = window.__firstRender;
  new MutationObserver(() => {
    const t = performance.now();
    if (R.caption === null && document.body && document.body.innerText.includes('appear here when you scroll to them'))
      R.caption = t;
    if (R.maths === null && [...document.querySelectorAll('[data-testid="stExpander"] summary')]
        .some((s) => s.innerText.includes('The maths of this iteration'))) {
      R.maths = t;
      R.chartsAtMaths = [...document.querySelectorAll('.nbp-root .js-plotly-plot:not(.nbp-back)')]
        .filter((g) => g._fullLayout).length;
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();"""


def test_first_render_draws_the_charts_then_brings_the_panels_below_them(server, browser):
    """Cold load: the app's plotly.js build is served (gzipped, as it is) by the app's static route and is
    what the player draws with; the panels below the charts (in view on this tall page) come after every
    chart is drawn, by themselves (the player asks for them once its charts are drawn), and show the run's
    iteration 0."""
    # served as it is on disk (gzipped; Streamlit does not compress it again): the browser unpacks it
    resp = browser.new_context().request.get(f"{server}/app/static/plotly-nbem.min.js.gz")
    assert resp.status == 200 and resp.headers["content-type"] == "application/gzip", resp.headers
    assert "content-encoding" not in resp.headers, resp.headers
    page = browser.new_page(viewport={"width": 1600, "height": 2000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(FIRST_RENDER_JS)
    try:
        page.goto(server, wait_until="commit")
        page.wait_for_function("() => window.__firstRender && window.__firstRender.maths !== null", timeout=120_000)
        r = page.evaluate("() => window.__firstRender")
        assert page.evaluate(f"() => {P}.plotlySource") == "bundle"
        painted = page.evaluate(f"() => {P}.stats.painted")
        assert r["caption"] is not None and r["caption"] < painted < r["maths"], (r, painted)
        # α, accuracy, likelihood and the parameter chart were all on screen before the panels came
        assert r["chartsAtMaths"] >= 4, r
        page.get_by_text("hidden documents at t = 0").first.wait_for(timeout=30_000)
        assert not page.get_by_text("appear below once the charts are drawn").count()
        assert page.evaluate(METRIC) == 0
        assert not errors, errors
    finally:
        page.close()


def test_the_player_falls_back_to_streamlits_plotly_when_the_bundle_cannot_load(server, browser):
    """No static route (another working directory, an older Streamlit serving .js as text/plain):
    the player loads Streamlit's own plotly.js chunk instead, and draws the same charts."""
    page = browser.new_page(viewport={"width": 1600, "height": 2000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("**/app/static/plotly-nbem.min.js.gz", lambda route: route.abort())
    try:
        page.goto(server, wait_until="domcontentloaded")
        page.wait_for_function(f"() => {P} && {P}.main && {P}.params && {P}.plotlySource", timeout=120_000)
        assert page.evaluate(f"() => {P}.plotlySource") == "chunk"
        page.wait_for_function(f"() => ({DRAWN})() !== null", timeout=60_000)
        page.wait_for_function("() => [...document.querySelectorAll('.nbp-root .js-plotly-plot:not(.nbp-back)')]"
                               ".filter((g) => g._fullLayout).length >= 4", timeout=60_000)
        page.get_by_text("The maths of this iteration (eq.").first.wait_for(timeout=60_000)
        assert not errors, errors
    finally:
        page.close()


# every ForwardMsg the page receives: its size and whether it carries a component's module text (a bundled
# module starts with nblab/bundle.py's "const __nblab_entry")
WS_JS = """(() => { const WS = window.WebSocket; window.__nbWs = [];
  window.WebSocket = class extends WS { constructor(...a) { super(...a); this.addEventListener('message', (e) => {
    if (!(e.data instanceof ArrayBuffer)) return;
    const text = new TextDecoder('utf-8', { fatal: false }).decode(e.data);
    window.__nbWs.push([e.data.byteLength, text.includes('__nblab_entry')]); }); } };
})();"""


def test_the_players_code_comes_once_by_its_route_not_in_every_step(server, browser):
    """The player's ~95 KB module is fetched once from /nbem-js/ (immutable, gzipped); no websocket message
    carries it, on the first open or on a Step (inline, it went with every element: twice per Step)."""
    import urllib.request

    from dashboard.lesson import player
    from dashboard.serve import modules

    name = modules.module_name("player", player.JS)   # the same files, the same hash as the server's
    req = urllib.request.Request(f"{server}/nbem-js/{name}", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=60) as r:
        assert r.headers["Content-Encoding"] == "gzip" and "immutable" in r.headers["Cache-Control"]
        import gzip
        assert gzip.decompress(r.read()).decode("utf-8") == player.JS
    page = browser.new_page(viewport={"width": 1600, "height": 2000})
    page.add_init_script(WS_JS)
    fetched = []
    page.on("request", lambda rq: fetched.append(rq.url) if "/nbem-js/player." in rq.url else None)
    try:
        page.goto(server, wait_until="domcontentloaded")
        page.wait_for_function(f"() => {P} && {P}.main && {P}.params && window.Plotly", timeout=120_000)
        first = page.evaluate("window.__nbWs.length")
        page.locator(".st-key-step button:visible").first.click()
        page.get_by_text("Paused at t = 1").first.wait_for(timeout=120_000)
        wait_script_done(page)   # the Step's run is over: every message it sent has come
        frames(page, 2)
        msgs = page.evaluate("window.__nbWs")
        assert not any(carries for _, carries in msgs), "a websocket message carried a component's module"
        assert len(msgs) > first                            # the Step did come by the websocket
        assert len(fetched) == 1, fetched
    finally:
        page.close()


# the accuracy metric's delta as the page shows it: its text, the arrow Streamlit drew, whether the player
# showed it plain (its arrow and colour were drawn for a delta of the other sign)
PILL = ("() => { const m = [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
        ".find(e => e.innerText.includes('Accuracy (t='));"
        " const d = m && m.querySelector('[data-testid=\"stMetricDelta\"]'); if (!d) return null;"
        " const i = d.querySelector('[data-testid^=\"stMetricDeltaIcon-\"]');"
        " return [d.innerText.trim(), i ? i.getAttribute('data-testid').replace('stMetricDeltaIcon-', '') : '',"
        " d.classList.contains('nbp-delta-plain')]; }")
STATUS = ("() => { const e = [...document.querySelectorAll('p')].find(p => p.innerText.startsWith('Status:'));"
          " return e ? e.innerText.replace('Status:', '').trim() : ''; }")


def test_a_first_play_is_running_a_replay_says_so_and_the_accuracy_delta_never_contradicts_its_arrow(server, browser):
    """synthetic_spam at 99 % hidden: EM starts 3 points below the best supervised baseline (a red ↓ delta at
    t = 0) and ends ~28 points above it. The first Play goes through iterations nobody has seen: "Running",
    even when the server has computed them all ahead; Play again at the end replays them: "Replaying". While
    the player rewrites the delta, an arrow drawn for the other sign is never shown with it."""
    page, errors = _open(browser, f"{server}/?dataset=synthetic_spam&speed=normal")
    page.wait_for_function(f"() => ({PILL})() !== null", timeout=60_000)
    first = page.evaluate(PILL)
    assert first is not None and first[0].startswith("-") and first[1] == "Down", first  # the premise
    page.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_function(f"() => {P}.playing && {P}.t >= 3", timeout=90_000)
    said = page.evaluate(STATUS)
    assert said.startswith("Running … t = "), said
    page.wait_for_function(f"() => !{P}.playing && {P}.done && {P}.t === {P}.n - 1", timeout=120_000)
    page.get_by_role("button", name="Play", exact=True).click()   # at the end of a finished run: a replay
    page.wait_for_function(f"() => {P}.playing", timeout=30_000)
    # sampled at every painted frame while the replay plays, in the page (up to 3 minutes), from the first
    # frame the player has drawn since Play (before it, the page still shows the finished run's status)
    samples = page.evaluate(f"""() => new Promise((done) => {{
      const out = [], t0 = performance.now(), draws = {P}.stats.draws;
      const f = () => {{
        const s = {P};
        if (!s.playing || performance.now() - t0 > 180000) {{ done(out); return; }}
        if (s.stats.draws > draws) out.push([({STATUS})(), ({PILL})()]);
        requestAnimationFrame(f);
      }};
      f();
    }})""")
    assert len(samples) >= 5, samples
    for said, pill in samples:
        assert said.startswith("Replaying … t = "), said
        text, arrow, plain = pill
        sign = "Up" if text.startswith("+") else "Down" if text.startswith(("-", "\u2212")) else ""
        assert plain or arrow == sign, f"the delta {text!r} shown with the arrow {arrow or 'none'}"
    assert any(p[2] for _, p in samples) or all(p[1] == "Up" for _, p in samples), samples
    assert not errors, errors
    page.close()


def test_on_a_phone_the_players_charts_stack_at_full_width_and_nothing_overflows(server, browser):
    """390 px wide (a phone): Streamlit stacks st.columns; the player's grids stack their charts the same way,
    each as wide as the main area (side by side they were ≈120 px each: titles cut, ticks overlapping), and
    the player's bar (Play, slider, iteration) wraps inside the screen."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page.goto(f"{server}/?{LONG}", wait_until="domcontentloaded")
        page.wait_for_function(f"() => {P} && {P}.stats && {P}.stats.painted", timeout=180_000)
        got = page.evaluate("""() => {
          const main = document.querySelector('[data-testid="stMainBlockContainer"]').getBoundingClientRect();
          const charts = [...document.querySelectorAll('.nbp-grid > .nbp-chart, .nbp-params > .nbp-chart')]
            .map((c) => c.getBoundingClientRect());
          const bar = [...document.querySelectorAll('.nbp-bar, .nbp-bar *')].map((e) => e.getBoundingClientRect());
          return { mainLeft: main.left, mainRight: main.right, vw: window.innerWidth,
                   widths: charts.map((r) => r.width), lefts: charts.map((r) => r.left),
                   barRight: Math.max(...bar.map((r) => r.right)), scrollW: document.documentElement.scrollWidth };
        }""")
        inner = got["mainRight"] - got["mainLeft"]
        assert len(got["widths"]) >= 4, got
        # each chart spans the main area (its padding aside), one under another: all start at the same left
        assert min(got["widths"]) >= 0.8 * inner, got
        assert max(got["lefts"]) - min(got["lefts"]) < 2, got
        assert got["barRight"] <= got["vw"] + 0.5, got
        assert got["scrollW"] <= got["vw"], got
        page.screenshot(path=str(SHOTS / "player_phone.png"))
    finally:
        page.close()
