"""The browser player's payload (dashboard/lesson/player/payload.py) and its JavaScript decoder.

The numbers are checked against the chart specs dashboard.charts builds for the same
iterations (the server-rendered page), not against the encoder's own output."""
from __future__ import annotations

import copy
import json
import math
import shutil
import subprocess

import numpy as np
import pytest

import nbcore
from dashboard.charts import lesson as lesson_charts
from dashboard.lesson.player import payload as pl
from dashboard.ui import derive
from kit import ROOT
from nblab.defaults import DEFAULTS


def _json_data(raw: str):
    """A component's data: the lesson player sends it as one JSON text (a JSON string holding JSON)."""
    d = json.loads(raw)
    return json.loads(d) if isinstance(d, str) else d


def test_quantize_round_trip_within_the_stated_error():
    rng = np.random.default_rng(0)
    x = rng.random(500) * 3 - 1
    d = pl.quantize(x.tolist())
    back = pl.dequantize(d)
    assert np.abs(back - x).max() <= pl.max_error(d) + 1e-15
    assert pl.max_error(d) == pytest.approx((x.max() - x.min()) / (2 * 65534))
    assert back.min() == x.min() and back.max() == x.max()  # the ends are exact
    # 2 bytes a value (+ base64): far smaller than JSON floats
    assert len(d["q"]) <= math.ceil(500 * 2 / 3) * 4


def test_quantize_missing_values_constant_arrays_and_2d():
    d = pl.quantize([0.5, None, float("nan"), 0.25, float("inf")])
    back = pl.dequantize(d)
    assert np.isnan(back[[1, 2, 4]]).all() and back[0] == 0.5 and back[3] == 0.25
    assert pl.dequantize(pl.quantize([7.0, 7.0, 7.0])).tolist() == [7.0, 7.0, 7.0]
    assert np.isnan(pl.dequantize(pl.quantize([None, None]))).all()
    z = [[0.0, 0.5], [1.0, 0.25], [0.75, None]]
    d = pl.quantize(z)
    assert d["shape"] == [3, 2]
    back = pl.dequantize(d)
    np.testing.assert_allclose(back[:2], [[0.0, 0.5], [1.0, 0.25]], atol=pl.max_error(d))
    assert np.isnan(back[2, 1])


def test_encode_array_kinds():
    table = pl.StringTable()
    assert pl.encode_array(["b", "a", "b"], table) == {"s": [0, 1, 0]} and table.items == ["b", "a"]
    assert pl.encode_array(["a", "c"], table) == {"s": [1, 2]}  # the table grows, indices stay
    assert pl.encode_array([1, "x"], table) == [1, "x"]  # mixed lists travel as they are
    assert pl.encode_array([], table) == [] and pl.encode_array(3, table) == 3
    assert pl.encode_array([True, 2], table) == [True, 2]  # booleans are not numbers here


def _run(name: str, hidden: float = 0.9, steps: int = 12, model: str | None = None):
    ds = nbcore.load_dataset(name)
    model = model or ds.models[0]
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=hidden, random_state=0)
    run = nbcore.EM(model=model, n_classes=ds.n_classes, smoothing=1.0, init="labeled", max_iter=steps,
                    tol=None, random_state=0).start(ds.for_model(model), y_obs)
    run.run_to_convergence()
    return ds, run, model


def _bars(ds, run, model, t):
    view = derive.param_view(run.history[t], model, ds.feature_names)
    prev = derive.param_view(run.history[t - 1], model, ds.feature_names) if t else None
    return lesson_charts.beta_bars_figure(view.mat, None if prev is None else prev.mat, view.rows, ds.class_names,
                                   value_label=view.label, log_scale=view.log_scale, font_size=15)


def _heat(ds, run, model, t):
    view = derive.param_view(run.history[t], model, ds.feature_names)
    return lesson_charts.heatmap_figure(view.mat, view.rows, ds.class_names, view.short, 15, zmin=view.zmin,
                                 zmax=view.zmax)


def _images(ds, run, model, t):
    view = derive.param_view(run.history[t], model, ds.feature_names)
    return lesson_charts.digits_figure(view.mat, tuple(ds.image_shape), ds.class_names, view.short, 15)


def _assert_same_chart(got: dict, want: dict) -> None:
    """Every trace array equal (numbers to the quantisation step), every layout part equal."""
    assert len(got["data"]) == len(want["data"])
    for g, w in zip(got["data"], want["data"]):
        assert set(g) == set(w)
        for k, v in w.items():
            if isinstance(v, list) and v and (isinstance(v[0], (int, float)) or isinstance(v[0], list)):
                a = np.array(g[k], dtype=float)
                b = np.array(v, dtype=float)
                assert a.shape == b.shape
                np.testing.assert_allclose(a, b, atol=1e-4 * max(1.0, np.nanmax(np.abs(b))))
            else:
                assert g[k] == v, k
    assert got["layout"] == want["layout"]


@pytest.mark.parametrize("name,builder", [("synthetic_spam", _bars), ("synthetic_spam", _heat),
                                          ("digits", _images), ("digits", _bars)])
def test_every_frame_rebuilds_the_servers_chart(name, builder):
    ds, run, model = _run(name)
    log = pl.ChartLog("k", {"c": lambda t: builder(ds, run, model, t)})
    log.extend(len(run.history))
    assert len(log.frames) == len(run.history) == 13
    for t in range(len(run.history)):
        got = apply_patch(log.templates["c"], log.frames[t]["c"], log.strings.items)
        _assert_same_chart(got, builder(ds, run, model, t))


def test_payload_is_compact_and_sent_once():
    ds, run, model = _run("digits", steps=30)
    log = pl.ChartLog("k", {"c": lambda t: _images(ds, run, model, t)})
    log.extend(len(run.history))
    first = log.payload(0, 0, -1)
    plain = json.dumps([_images(ds, run, model, t) for t in range(len(run.history))])
    compact = json.dumps(first)
    assert len(compact) < 0.3 * len(plain), (len(compact), len(plain))
    # what a player holding everything gets: nothing but the bookkeeping
    again = log.payload(len(log.frames), len(log.strings), log.n_templates)
    assert again["frames"] == [] and again["strs"] == [] and "templates" not in again
    # a player that holds 10 frames gets the other 21
    part = log.payload(10, len(log.strings), log.n_templates)
    assert part["base"] == 10 and len(part["frames"]) == 21


def test_truncate_after_a_rewind_then_extend_gives_the_same_frames():
    ds, run, model = _run("synthetic_spam", steps=8)
    holder = {"run": run}
    log = pl.ChartLog("k", {"c": lambda t: _bars(ds, holder["run"], model, t)})
    log.extend(9)
    before = json.dumps(log.frames)
    holder["run"] = run.rewound(4)
    log.truncate(5)
    assert len(log.frames) == 5
    for _ in range(4):
        holder["run"].step()
    log.extend(9)
    assert json.dumps(log.frames) == before


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_javascript_decoder_gives_the_original_numbers(tmp_path):
    """The player's decode() (js/decode.js, run under node) against the original arrays, not against dequantize()."""
    rng = np.random.default_rng(3)
    one = rng.random(300).tolist()
    one[7] = None
    two = rng.normal(size=(8, 8)).tolist()
    table = pl.StringTable()
    cases = [pl.encode_array(one, table), pl.encode_array(two, table), pl.encode_array(["x", "y", "x"], table)]
    mod = ROOT / "dashboard" / "lesson" / "player" / "js" / "decode.js"   # the player's decoding module
    script = (f"import {{ decode }} from {json.dumps(mod.as_uri())};\n"
              "globalThis.atob = globalThis.atob || ((s) => Buffer.from(s, 'base64').toString('binary'));\n"
              f"const cases = {json.dumps(cases)}; const strs = {json.dumps(table.items)};\n"
              "console.log(JSON.stringify(cases.map((c) => decode(c, strs))));\n")
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    a = np.array([np.nan if v is None else v for v in got[0]])
    b = np.array([np.nan if v is None else v for v in one])
    assert np.isnan(a[7]) and np.nanmax(np.abs(a - b)) <= pl.max_error(cases[0]) + 1e-12
    np.testing.assert_allclose(np.array(got[1]), np.array(two), atol=pl.max_error(cases[1]) + 1e-12)
    assert got[2] == ["x", "y", "x"]


# ---- the server side of the protocol (dashboard/lesson/player/__init__.py) ------------------------------------

@pytest.fixture
def session(monkeypatch):
    """A plain dict as st.session_state, with a run of the default lesson at iteration 3."""
    import streamlit as st

    from dashboard.lesson.session import lesson
    from dashboard.ui import state
    ss: dict = {}
    monkeypatch.setattr(st, "session_state", ss, raising=False)
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    run = nbcore.EM(n_classes=2, init="labeled", tol=None, max_iter=40, keep_resp=2,
                    random_state=0).start(ds.X, y_obs)
    state.init()
    lesson().run = run
    lesson().serial = 1
    for _ in range(3):
        run.step()
    lesson().follow_latest()
    return ss


def test_need_computes_ahead_only_while_playing_and_pause_drops_what_was_not_shown(session):
    from dashboard.lesson import player
    from dashboard.lesson.session import lesson
    tok = player._token()
    player.apply_view({"run": tok, "t": 3, "revealed": 3, "playing": True, "play": 1})
    player.apply_need({"run": tok, "upto": 12, "play": 1})
    ahead = lesson().run
    assert ahead.iteration == 12
    reference = [s.beta.copy() for s in ahead.history]
    # Pause at iteration 7: 8..12 were never shown, the run goes back to 7
    player.apply_view({"run": tok, "t": 7, "revealed": 7, "playing": False, "play": 1})
    run = lesson().run
    assert run.iteration == 7 and lesson().view_t is None
    # a "need" of that play arriving after its Pause computes nothing
    player.apply_need({"run": tok, "upto": 20, "play": 1})
    assert lesson().run.iteration == 7 and not player._p().playing
    # a need of a newer play whose Play report was lost still computes (and marks the page as playing)
    player.apply_need({"run": tok, "upto": 9, "play": 2})
    assert lesson().run.iteration == 9 and player._p().playing
    player.apply_view({"run": tok, "t": 7, "revealed": 7, "playing": False, "play": 2})
    run = lesson().run
    assert run.iteration == 7
    run.step()  # EM is deterministic: the next step gives the dropped iteration 8 again
    np.testing.assert_array_equal(run.history[8].beta, reference[8])
    # scrubbing back to 2 after having seen 8 keeps the run, the page shows 2
    player.apply_view({"run": tok, "t": 2, "revealed": 8, "playing": False})
    assert lesson().run.iteration == 8 and lesson().view_t == 2


def test_reports_about_another_run_or_garbage_change_nothing(session):
    from dashboard.lesson import player
    from dashboard.lesson.session import lesson
    tok = player._token()
    before = lesson().run
    for bad in (None, "x", [], {"run": "someone-else", "t": 0, "playing": False},
                {"run": tok, "t": "abc", "revealed": None, "playing": False}):
        player.apply_view(bad)
        player.apply_need(bad)
    assert lesson().run.iteration == before.iteration == 3
    player.apply_view({"run": tok, "t": 10 ** 9, "revealed": -5, "playing": False})  # clamped
    assert lesson().run.iteration == 3 and lesson().view_t is None
    # a Step on the server (follow) never loses the iterations the page already showed
    player.apply_view({"run": tok, "t": 0, "revealed": 0, "playing": False})
    assert lesson().run.iteration == 3 and lesson().view_t == 0


def _player_data(at) -> dict:
    out = {}
    for e in at.get("bidi_component"):
        if e.proto.component_name == "nbem_player":
            d = _json_data(e.proto.json)
            out[d["role"]] = d
    return out


def test_lesson_page_with_the_player_sends_each_iteration_once():
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.query_params["player"] = "on"
    at.run()
    assert not at.exception
    d = _player_data(at)
    assert set(d) == {"main", "params", "preload", "lower"}
    assert len(at.get("plotly_chart")) == 0  # the browser draws every lesson chart
    assert not [s for s in at.slider if s.label == "Show iteration"]  # the player has the slider (and Play)
    assert not [b for b in at.button if b.label in ("Play", "Pause")]
    run = at.session_state["lesson"].run
    alpha = next(s["spec"] for s in d["main"]["series"] if s["name"] == "alpha")
    np.testing.assert_allclose(alpha["data"][0]["y"], [s.alpha[0] for s in run.history])
    # iteration 0, and iteration 1 computed ahead: the browser shows it the moment Step is pressed
    assert d["main"]["n"] == 1 and d["params"]["base"] == 0 and len(d["params"]["frames"]) == 2
    assert "templates" in d["params"] and "template" not in alpha["layout"]  # sent once, in "tpl"
    nxt = d["main"]["next"]
    assert nxt["from"] == 1 and nxt["n"] == 2 and len(nxt["acc"]) == 2
    fresh = copy.deepcopy(run)  # the same run, stepped once here: what "next" must show
    fresh.step()
    next_alpha = next(s["spec"] for s in nxt["series"] if s["name"] == "alpha")
    np.testing.assert_allclose(next_alpha["data"][0]["y"], [fresh.history[0].alpha[0], fresh.history[1].alpha[0]])
    at.button(key="step").click().run()
    at.button(key="step").click().run()
    d = _player_data(at)
    assert d["main"]["n"] == 3 and d["main"]["t"] == 2 and d["main"]["next"]["from"] == 3
    # only the new iteration computed ahead travels, not the whole history again
    assert d["params"]["base"] == 3 and len(d["params"]["frames"]) == 1 and "templates" not in d["params"]
    # the Step adopted the iteration computed ahead: the run is what two plain steps give
    fresh.step()
    run = at.session_state["lesson"].run
    assert run.iteration == 2
    for a, b in zip(run.history, fresh.history):
        np.testing.assert_allclose(a.alpha, b.alpha, rtol=1e-12)
        np.testing.assert_allclose(a.beta, b.beta, rtol=1e-12)
        assert a.objective == pytest.approx(b.objective, rel=1e-12)
    # off by URL: the server's charts, as before
    off = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    off.query_params["player"] = "off"
    off.run()
    assert len(off.get("plotly_chart")) >= 4 and not _player_data(off)


def test_the_players_accuracy_charts_use_the_sessions_baselines_computed_once(monkeypatch):
    """The player's accuracy chart (now and one step ahead) reads the session's baselines: the same chart
    the run alone gives (nblab.outcome.run_reference, what the offline lesson uses), with the
    leave-one-out choice of λ computed once on a first open, not again for each chart."""
    from streamlit.testing.v1 import AppTest

    from dashboard.lesson import specs
    from dashboard.lesson.player import _strip_template
    from nbcore import baselines
    from nblab import numbers
    from nblab.numbers import score
    from nblab.outcome import run_reference

    calls = []
    real = baselines.loo_scores
    monkeypatch.setattr(baselines, "loo_scores", lambda *a, **k: calls.append(1) or real(*a, **k))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.query_params["player"] = "on"
    at.run()
    assert not at.exception
    assert len(calls) == 1, f"leave-one-out ran {len(calls)} times on one first open"
    d = _player_data(at)["main"]
    lr = at.session_state["lesson"]
    run, prep = lr.run, lr.prep

    def from_the_run_alone(r):
        """The accuracy series (from predict_proba) and the baselines of run ``r``, not the page's."""
        ref = run_reference(r, prep)
        acc = numbers.with_refs([score(np.asarray(r.predict_proba(t=t)).argmax(axis=1), prep)
                                 for t in range(len(r.history))], ref.refs(len(r.history)))
        return acc, ref

    acc, ref = from_the_run_alone(run)
    best = ref.best(len(run.history) - 1)
    base = None if best is None else best[1]
    got = next(s["spec"] for s in d["series"] if s["name"] == "acc")
    _assert_same_chart(got, _strip_template(specs.series_spec("acc", run, prep, acc, base, 15, ref=ref)))
    # the chart of the step computed ahead too
    nxt = copy.deepcopy(run)
    nxt.step()
    acc, ref = from_the_run_alone(nxt)
    got = next(s["spec"] for s in d["next"]["series"] if s["name"] == "acc")
    _assert_same_chart(got, _strip_template(specs.series_spec("acc", nxt, prep, acc, base, 15, ref=ref)))


def _labels(at) -> list[str]:
    return [e.label for e in at.expander]


def test_the_panels_below_the_charts_are_drawn_when_the_browser_has_them_in_view():
    """With the player, the documents / maths / stop-rule panels are a fragment of their own: a placeholder
    until the browser reports them in view (trigger "refresh"); then drawn on every rerun, with a marker
    that names the state they show, which is the state the charts' mount asks for. A Step reruns the
    charts' fragment only: the marker still names the earlier state, and the browser asks again."""
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.query_params["player"] = "on"
    at.run()
    assert not at.exception
    maths = "The maths of this iteration"
    assert not any(label.startswith(maths) for label in _labels(at))
    assert any("appear here when you scroll to them" in c.value for c in at.caption)
    d = _player_data(at)
    assert d["lower"]["drawn"] is None and d["main"]["lower"]
    # plotly.js: Streamlit's own chunk is always named, as the fallback of the cartesian bundle
    assert d["main"]["plotly"]["chunk"].startswith("static/js/PlotlyChart.")
    assert d["preload"]["plotly"] == d["main"]["plotly"]
    at.run()  # a whole-page rerun with the panels never in view: still the placeholder
    assert not any(label.startswith(maths) for label in _labels(at))
    at.session_state["lesson"].player.lower_seen = True  # what the "refresh" trigger's callback records
    at.run()
    assert not at.exception
    assert any(label.startswith(maths) for label in _labels(at))
    assert not any("appear here when you scroll to them" in c.value for c in at.caption)
    d = _player_data(at)
    assert d["lower"]["drawn"] == d["main"]["lower"]
    token, t, latest, lam = d["main"]["lower"].rsplit(":", 3)
    assert (t, latest, float(lam)) == ("0", "0", DEFAULTS["lam"])
    at.button(key="step").click().run()
    d = _player_data(at)
    assert d["main"]["lower"].rsplit(":", 3)[1:3] == ["1", "1"]
    assert any(label.startswith(maths) for label in _labels(at))
    # without the player (URL switch) nothing waits: the server's charts and the panels in one render
    off = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    off.query_params["player"] = "off"
    off.run()
    assert any(label.startswith(maths) for label in _labels(off))


def test_the_vendored_plotly_bundle_is_the_plotly_js_that_python_plotly_targets():
    """dashboard/static/plotly-nbem.min.js.gz (scripts/build_plotly_bundle.sh) must be the same major version
    of plotly.js as the figures Python's plotly builds (its own plotly.min.js), hold every trace type the
    player's charts use, set window.Plotly, and keep plotly.js's licence beside it."""
    import gzip
    import re
    from pathlib import Path

    import plotly

    from dashboard.lesson import player
    text = gzip.decompress(player.PLOTLY_BUNDLE.read_bytes()).decode("utf-8")
    bundled = re.search(r"plotly\.js v(\d+)\.(\d+)\.(\d+) \(traces: ([a-z, ]+)\)", text[:400])
    assert bundled, text[:400]
    ref = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text(encoding="utf-8")[:300]
    python_side = re.search(r"plotly\.js v(\d+)\.(\d+)\.(\d+)", ref)
    assert python_side, ref
    assert bundled.group(1) == python_side.group(1), (bundled.group(0), python_side.group(0))
    # every trace type in the player's charts: the time series the lesson page sends, and each
    # parameter view (bars, heatmap, digits' images) and the truth scatter, from the same builders
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.query_params["player"] = "on"
    at.query_params["dataset"] = "synthetic_spam"
    at.run()
    used = {t.get("type", "scatter") for s in _player_data(at)["main"]["series"] for t in s["spec"]["data"]}
    for name, builder in (("synthetic_spam", _bars), ("synthetic_spam", _heat), ("digits", _images)):
        ds, run, model = _run(name)
        used |= {t.get("type", "scatter") for t in builder(ds, run, model, 1)["data"]}
    truth = lesson_charts.truth_figure(np.eye(2), np.eye(2) * 0.9, ["a", "b"], "β", 14)
    used |= {t.get("type", "scatter") for t in truth["data"]}
    assert {"scatter", "bar", "heatmap"} <= used
    assert used <= {t.strip() for t in bundled.group(4).split(",")}, (used, bundled.group(4))
    # and the code really registers them (the banner could lie): each trace module's own declaration
    registered = set(re.findall(r'moduleType:"trace",name:"([a-z0-9]+)"', text))
    assert used <= registered, (used, registered)
    assert "window.Plotly = Plotly" in text[-200:]
    assert "MIT" in (player.PLOTLY_BUNDLE.parent / "plotly-LICENSE.txt").read_text(encoding="utf-8")


def test_server_config_serves_the_bundle_and_watches_no_files():
    """.streamlit/config.toml (read by the README's `streamlit run dashboard/app.py` from the repository
    root): the app's static route is on (the player's plotly.js bundle) and there is no file watcher
    (a watcher per new session cost ~5x the server CPU of a student opening the page:
    scripts/measure_new_session.py)."""
    import tomllib
    server = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["server"]
    assert server["enableStaticServing"] is True
    assert server["fileWatcherType"] == "none"
    from dashboard.lesson import player
    assert player.PLOTLY_BUNDLE.parent == ROOT / "dashboard" / "static"  # Streamlit serves <main script dir>/static


def apply_patch(templates: list[dict], patch: dict, strings: list[str]) -> dict:
    """What the player (player.js) does with a frame: the template's traces with the patched arrays."""
    from dashboard.lesson.player import payload as pl

    template = templates[patch["tpl"]]
    data = [dict(t) for t in template["data"]]
    for i, k, v in patch.get("d", []):
        data[i][k] = pl.decode_array(v, strings)
    layout = dict(template["layout"])
    layout.update(patch.get("l", {}))
    return {"data": data, "layout": layout}
