"""The lesson's client-side player: charts that follow the iteration slider and Play in the browser.

A Streamlit components-v2 component (``player.js`` and the ES modules it imports from ``js/``: decoding,
playback, drawing and the Streamlit bridge; ``player.css``) mounted twice on the lesson page:

* ``show_series``: Play/Pause, the iteration slider and the time-series charts
  (α, accuracy, log-likelihood / objective), drawn once per new iteration with an
  iteration marker the browser moves itself;
* ``show_params``: the parameter chart (top features, heatmap or images) and the
  estimate-vs-truth scatter, sent as one compact frame per iteration
  (``payload.py``) that the browser holds and redraws with ``Plotly.react``.

The server still computes EM. While playing, the browser asks for iterations ahead
of what it shows (trigger ``need``); when the user stops (Pause, slider released)
it reports the iteration shown (state ``view``), the maths panel and the metrics
follow it, and iterations computed ahead but never shown are dropped
(``EMRun.rewound``: EM is deterministic, so they come back identical).

plotly.js: the player draws with the app's own build (``PLOTLY_BUNDLE``: scatter, bar and
heatmap only, served gzipped from dashboard/static and unpacked in the browser); when that
cannot be served or loaded it falls back to Streamlit's own plotly chunk (the file
``st.plotly_chart`` loads). Either is loaded once per page.

While the browser plays or drags, the player also writes the iteration it draws into the
metrics row (Iteration, Accuracy (t=…)), with the server's own strings, so the page never
names two iterations at once.

If the component cannot run (no components v2, plotly.js failed to load, the
``?player=off`` URL switch, or streamlit.testing's AppTest with no browser),
``enabled()`` is False and the page draws its server-rendered charts as before.
"""
from __future__ import annotations

import json
import secrets
import time
from pathlib import Path

import numpy as np
import streamlit as st

from dashboard.charts import lesson as lesson_charts
from dashboard.charts import theme
from dashboard.charts.player_template import chart_template
from dashboard.lesson import specs
from dashboard.lesson.player.payload import ChartLog
from dashboard.lesson.session import lesson
from dashboard.serve.plotly_build import PLOTLY_BUNDLE, plotly_sources  # noqa: F401  (PLOTLY_BUNDLE: the player's tests)
from dashboard.ui import state
from nblab import defaults, numbers
from nblab.bundle import module_text
from nblab.lesson_run import PlayerState

HERE = Path(__file__).resolve().parent
#: the player's ES modules (player.js and what it imports, the lab page's shared modules too) as the one
#: module text a components-v2 component is (nblab/bundle.py: module_text; no build step)
JS = module_text("dashboard/lesson/player/player.js", HERE.parents[2])
CSS = (HERE / "player.css").read_text(encoding="utf-8")

#: Play speeds (iterations shown per second) for the sidebar's "Play speed" values
FPS = defaults.SPEEDS
#: server time one "need" request may spend computing iterations ahead (seconds)
NEED_BUDGET_S = 0.3
MAIN_KEY, PARAMS_KEY, LOWER_KEY = "nbem_player_main", "nbem_player_params", "nbem_player_lower"


def _register():
    try:
        from streamlit.components import v2

        from dashboard.serve import modules  # the module once per browser when the app serves it
        return v2.component("nbem_player", css=CSS, js=modules.component_js("player", JS), isolate_styles=False)
    except Exception:  # components v2 missing (Streamlit < 1.51) or refused: server charts instead
        return None


_COMPONENT = _register()


_PLOTLY = plotly_sources()


#: the template the player draws with (the same one the offline file carries)
TEMPLATE = chart_template()


# ---- session state -------------------------------------------------------------------------------------

def _p() -> PlayerState:
    """The player's bookkeeping, kept on the session's lesson."""
    p = lesson().player
    if not p.sid:
        p.sid = secrets.token_hex(4)
    return p


def enabled() -> bool:
    """Whether the lesson draws its charts with the player in this session."""
    if _COMPONENT is None or _PLOTLY is None:
        return False
    q = str(st.query_params.get("player", "")).lower()
    if q in ("off", "0", "false", "no"):
        return False
    if _p().failed:
        return False
    from streamlit import config  # st.get_option hides "global.*" options
    if config.get_option("global.appTest") and q not in ("on", "1", "true", "yes"):
        return False  # no browser under streamlit.testing: the server's charts are what a test can read
    return True


def playing() -> bool:
    """The browser is playing (the page keeps its reruns light and Step disabled)."""
    return bool(_p().playing) and enabled()


def seen_before_play() -> int:
    """The furthest iteration on screen before the browser's current Play (the iterations the page had
    shown: a Play through them replays them; js/playback.js ``seenBefore`` is the browser's own)."""
    return int(_p().floor)


def on_screen(lr) -> int:
    """The iteration on screen (:func:`dashboard.lesson.session.on_screen`): while the browser plays, the
    one it last reported drawing (the run is computed a little ahead of it, and a replay of a finished
    run draws iterations far behind the latest); otherwise the page's own (``LessonRun.t``: the one
    picked on the slider, which the browser reports when the drag ends or Play pauses)."""
    p = lr.player
    latest = lr.latest
    if p.playing and p.shown is not None and not p.failed and enabled():
        return max(0, min(latest, int(p.shown)))
    return lr.t


def _token() -> str:
    return f"{_p().sid}-{lesson().serial}"


def _int(v, lo: int, hi: int, default: int) -> int:
    try:
        return max(lo, min(hi, int(v)))
    except (TypeError, ValueError):
        return default


def _component_state(key: str) -> dict:
    v = st.session_state.get(key)
    try:
        return dict(v) if v is not None else {}
    except (TypeError, ValueError):
        return {}


# ---- what the browser reports ------------------------------------------------------------------------

def _rewind(keep: int) -> None:
    """Drop iterations after `keep` that the player computed ahead but never showed."""
    lesson().rewind(keep)
    cache = state.get(state.ACC_CACHE)
    if cache and cache.get("serial") == lesson().serial:
        del cache["acc"][keep + 1:]
    log = _p().log
    if log is not None:
        log.truncate(keep + 1)


def apply_view(v) -> None:
    """The browser reports what it shows: {"run", "t", "revealed", "playing"}.

    Stopped (Pause, slider released): the iteration shown becomes the page's (maths panel,
    metrics, exports follow it), and iterations computed ahead but never shown are dropped."""
    p = _p()
    lr = lesson()
    run = lr.run
    if not isinstance(v, dict) or v.get("run") != _token() or run is None:
        return  # a report about a run that is gone
    latest = len(run.history) - 1
    t = _int(v.get("t"), 0, latest, latest)
    revealed = _int(v.get("revealed"), 0, latest, latest)
    p.playing = bool(v.get("playing"))
    play_id = _int(v.get("play"), -1, 10 ** 12, -1)
    if not p.playing:
        p.stopped = max(p.stopped, play_id)  # needs of this play that arrive late are ignored
    p.shown = t  # the iteration drawn now (a replay draws iterations behind those revealed)
    if not p.playing:
        keep = max(t, revealed, min(p.floor, latest))
        if keep < latest:
            _rewind(keep)
            latest = keep
        p.floor = latest
    lr.view_t = t if t < latest else None


def apply_need(v) -> None:
    """The browser, playing, asks for iterations up to v["upto"]: compute them (at most
    NEED_BUDGET_S of server time per request; it asks again when it runs short)."""
    p = _p()
    lr = lesson()
    run = lr.run
    if not isinstance(v, dict) or v.get("run") != _token() or run is None:
        return
    if _int(v.get("play"), -1, 10 ** 12, -1) <= p.stopped:
        return  # that play was paused (its Pause may have been handled first)
    p.playing = True  # a need only comes from a playing browser (its Play report may have been lost)
    upto = _int(v.get("upto"), 0, len(run.history) + 200, 0)
    p.shown = _int(v.get("t"), 0, len(run.history) - 1, (p.shown or 0))  # the iteration drawn when it asked
    start = time.perf_counter()
    while not run.done and run.current.iteration < upto and time.perf_counter() - start < NEED_BUDGET_S:
        lr.step(1)
        if lr.error:
            p.playing = False
            break
        run = lr.run


def _on_view() -> None:
    apply_view(_component_state(MAIN_KEY).get("view"))


def _on_need() -> None:
    apply_need(_component_state(MAIN_KEY).get("need"))


def _on_resync() -> None:
    _p().sent = None  # the browser lost an update: send everything again


def lower_key(f) -> str:
    """What the panels below the charts show, as one string: the run, the iteration on screen, how far the
    run goes and the λ of the next step. The browser compares it with the panels' own (``show_lower``)."""
    return f"{_token()}:{f.t}:{f.latest}:{f.smoothing}"


def _on_refresh() -> None:
    """The browser has the panels below the charts in view and they show another state than the charts:
    this trigger reruns their fragment, which draws them (and keeps drawing them on whole-page reruns)."""
    _p().lower_seen = True


def lower_wanted() -> bool:
    """Whether this run of the lower panels' fragment draws them: the browser asked (they are in view),
    or a widget inside them was used (a fragment-only run of their own), or they have been in view before
    and this is a whole-page rerun. Otherwise a one-line placeholder; the browser asks when it scrolls to it."""
    p = _p()
    if p.lower_seen:
        return True
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
        ctx = get_script_run_ctx()
        own_run = bool(ctx is not None and getattr(ctx, "fragment_ids_this_run", None))
    except Exception:  # pragma: no cover - a Streamlit without fragment ids: draw them
        own_run = True
    if own_run:
        p.lower_seen = True
    return own_run


def show_lower(where, drawn: str | None) -> None:
    """The lower panels' marker: tells the browser which state they show (``drawn``, a :func:`lower_key`,
    or None for the placeholder). The browser asks for them (trigger ``refresh``) when they are in view and
    ``drawn`` differs from the charts' state (``lower`` in the main mount's data)."""
    with where:
        _mount(LOWER_KEY, {"role": "lower", "drawn": drawn}, on_refresh_change=_on_refresh)


def _on_failed() -> None:
    msg = _component_state(MAIN_KEY).get("failed") or _component_state(PARAMS_KEY).get("failed")
    if msg:
        _p().failed = str(msg)[:200]
        _p().playing = False
        lesson().app_rerun = True  # the server draws the charts now, and the panels below them in the same run


# ---- chart specs ---------------------------------------------------------------------------------------

def _strip_template(spec: dict) -> dict:
    """The plotly template (7 KB) is sent once per payload, not once per chart. In classroom mode every
    text of the chart gets the projector's type scale (theme.type_scale, as the app's other charts)."""
    from dashboard.ui import controls

    spec = theme.type_scale(spec, controls.classroom_wanted())
    if "template" not in spec["layout"]:
        return spec
    layout = dict(spec["layout"])
    del layout["template"]
    return {"data": spec["data"], "layout": layout}


# ---- mounting -----------------------------------------------------------------------------------------------

def _mount(key: str, data: dict, **kwargs):
    """Mount the player with ``data`` sent as one JSON text (player.js parses it). Given a dict, Streamlit
    looks for data frames under each of its keys (a nested dict of strings is tried as a table: ~1.8 ms for
    the preload's two URLs) and serialises it twice; a string is sent as it is."""
    return _COMPONENT(key=key, data=json.dumps(data), **kwargs)


def preload() -> None:
    """Start loading plotly.js in the browser now (call it early in the page, before the run is built):
    its download and parse overlap with the server's work instead of following it."""
    if enabled():
        with st.sidebar:
            _mount("nbem_player_preload", {"role": "preload", "plotly": _PLOTLY})


def show_series(where, *, run, prep, acc, base, font_size: int, classroom: bool, speed: str, view_t,
                cfg=None, smoothing: float | None = None, lower: str | None = None, reference=None) -> None:
    """Play/Pause, the slider and the time-series charts. ``lower``: the state the panels below the charts
    should show (:func:`lower_key`); the browser asks for them when they are in view and show another.
    ``reference(run)``: the run's baselines (:class:`nblab.numbers.Reference`) from the session's cache
    (dashboard/lesson/metrics.reference); None computes them from the run each time a chart is built."""
    p = _p()
    latest = len(run.history) - 1
    serial = lesson().serial
    if not p.playing and p.last_n != (serial, latest):
        # the server moved the run (Step, E/M half-steps, convergence, a shortcut, a rewind): the
        # player goes to the iteration the page shows, and those iterations count as seen
        p.seq += 1
        p.floor = latest
    p.last_n = (serial, latest)
    series, vers = _series(run, prep, acc, base, font_size, reference)
    nxt = lesson().ahead()
    from dashboard.lesson import metrics, status
    from dashboard.lesson.panels import stop_rules
    t = latest if view_t is None else min(int(view_t), latest)
    data = {
        "role": "main", "sid": p.sid, "run": _token(), "n": latest + 1, "done": bool(run.done),
        "seq": p.seq, "t": t, "revealed": latest, "fps": FPS.get(speed, FPS[defaults.DEFAULTS["speed"]]), "lower": lower,
        # the accuracy of each iteration as text, rounded once on the server (numbers.percent)
        "acc": [numbers.percent(a) for a in acc[: latest + 1]],
        "accDelta": _deltas(acc[: latest + 1], base),
        # each iteration in words (the player's text summary, read by screen readers)
        "words": state.memo(("player_words", _acc_version(run, acc[: latest + 1], base, 0)),
                            lambda: numbers.iteration_words(run, prep, acc[: latest + 1], base)),
        # each chart's own version: a λ change moves the supervised baseline (the accuracy chart) only,
        # so α and the likelihood are not redrawn
        "series": [{"name": n, "ver": vers[n], "spec": s} for n, s in series],
        "columns": 2 if classroom else len(series), "classroom": bool(classroom),
        "tpl": TEMPLATE, "plotly": _PLOTLY,
        # what the page says about the iteration on screen, for the player to write while it moves the
        # iteration with no rerun: the status line (templates, dashboard/lesson/status.py) and the stop
        # rules' numbers of every step (as stop_rules.show prints them)
        "status": status.templates(run, lesson().cfg), "stop": stop_rules.texts(run),
        # the keys and labels of those elements (js/bridge.js finds them by these)
        "dom": dom(),
    }
    if cfg is not None and smoothing is not None and not p.playing:
        alt = lambda_alternatives(run, prep, acc, cfg, smoothing, font_size)
        if alt:
            from dashboard.ui import controls
            data["lam"] = {"now": controls.fmt_lam(smoothing), "label": controls.lam_label(), "alt": alt}
    if nxt is not None:
        # the next iteration, for the browser to show the moment Step is pressed (the server's rerun
        # that follows brings the same charts, with the same versions, and redraws nothing)
        acc_next = list(acc[: latest + 1]) + [numbers.score(metrics.proba_at(nxt, latest + 1).argmax(axis=1), prep)]
        nspecs, nvers = _series(nxt, prep, acc_next, base, font_size, reference)
        data["next"] = {"from": latest + 1, "n": latest + 2, "done": bool(nxt.done),
                        "acc": [numbers.percent(a) for a in acc_next],
                        "accDelta": _deltas(acc_next, base),
                        "words": numbers.iteration_words(nxt, prep, acc_next, base),
                        "status": status.templates(nxt, lesson().cfg), "stop": stop_rules.texts(nxt),
                        "series": [{"name": n, "ver": nvers[n], "spec": s} for n, s in nspecs]}
    with where:
        _mount(MAIN_KEY, data, default={"view": None}, on_view_change=_on_view,
               on_need_change=_on_need, on_failed_change=_on_failed)


#: keys and labels of what the server draws elsewhere on the page that the player writes into while it
#: moves the iteration with no rerun (js/bridge.js finds them by these, sent in the main mount's ``dom``):
#: the lower panels' fragment (dashboard/views/lesson.py draws it with this key); the status line's
#: container and the metrics row's labels are metrics_row's own constants.
LOWER_FRAGMENT_KEY = "nbem_lower"


def dom() -> dict:
    """What the player finds on the page (js/bridge.js: ``Dom``), from the constants that draw it."""
    from dashboard.lesson.panels import metrics_row, run_controls, stop_rules
    from dashboard.ui import controls
    return {"step": controls.K_STEP, "status": metrics_row.STATUS_KEY, "stop": stop_rules.KEY,
            "showing": run_controls.SHOWING_KEY, "lower": LOWER_FRAGMENT_KEY,
            "iteration": metrics_row.ITERATION_LABEL, "accuracy": metrics_row.ACCURACY_LABEL_PREFIX}


def _deltas(acc, base) -> list:
    """Each iteration's "+9.3 pts vs supervised" as the metrics row prints it (None without one)."""
    return [numbers.delta_text(a, base) if base is not None and np.isfinite(a) else None for a in acc]


def _series(run, prep, acc, base, font_size: int, reference=None):
    """(specs, versions) of the time-series charts of ``run`` (built once per version, in the memo).
    Each chart has its own version: a λ change moves the supervised baseline (the accuracy chart)
    only, so α and the likelihood are not redrawn."""
    ver = _acc_version(run, acc, base, font_size)

    def build():
        ref = None if reference is None else reference(run)
        return [(n, _strip_template(s)) for n, s in specs.series_specs(run, prep, acc, base, font_size, ref=ref)]

    built = state.memo(("player_series", ver), build)
    lam_key = hash(tuple(s.smoothing for s in run.history))
    vers = {n: ver if n == "acc" else f"{lesson().serial}:{len(run.history) - 1}:{font_size}:{lam_key}"
            for n, _ in built}
    return built, vers


def _acc_version(run, acc, base, font_size: int) -> str:
    lam_key = hash(tuple(s.smoothing for s in run.history))
    return f"{lesson().serial}:{len(run.history) - 1}:{font_size}:{base}:{lam_key}:{len(acc)}"


def lambda_alternatives(run, prep, acc, cfg, smoothing: float, font_size: int) -> dict | None:
    """The accuracy chart for the λ next to the current one on the slider (one notch either way), keyed by
    the slider's label: a λ change mid-run continues the run with its history, so the only chart it
    changes is this one (the supervised baseline). The browser draws it when the slider moves, before the
    server's rerun, which then brings the same chart (same version) and redraws nothing.

    None at t = 0 (a λ change then rebuilds the run: every chart changes) or with nothing to score."""
    from dashboard.lesson import metrics
    from dashboard.ui import controls
    n_hidden = int(prep.score_mask.sum())
    if run.iteration == 0 or not n_hidden or smoothing not in controls.LAMBDAS:
        return None
    i = controls.LAMBDAS.index(smoothing)
    out = {}
    for lam in controls.LAMBDAS[max(0, i - 1): i + 2]:
        if lam == smoothing:
            continue
        b = metrics.baseline_accuracy(cfg, lam, prep)
        ver = _acc_version(run, acc, b, font_size)
        spec = state.memo(("player_acc", ver), lambda: _strip_template(
            lesson_charts.accuracy_figure(acc, b, None, font_size=font_size, n_hidden=n_hidden)))
        out[controls.fmt_lam(lam)] = {"ver": ver, "spec": spec}
    return out


def show_params(where, *, run, prep, model: str, pick: str, font_size: int, classroom: bool,
                truth_beta=None) -> None:
    """The parameter chart (and the truth scatter, when the data set has one) of every iteration."""
    p = _p()
    serial = lesson().serial
    key = (serial, model, pick, font_size, classroom, truth_beta is not None)
    log = p.log
    nxt = lesson().ahead()
    if log is None or log.key != key:
        builders = {"params": lambda t: _strip_template(specs.param_spec(log.run, prep, model, t, pick, font_size,
                                                                    classroom))}
        if truth_beta is not None:
            builders["truth"] = lambda t: _strip_template(specs.truth_spec(log.run, prep, t, truth_beta, font_size))
        log = p.log = ChartLog(key, builders)
    # the frames of the run's iterations and of the one computed ahead (shown when Step is pressed),
    # built from the run whose history holds them all. A frame's source is its snapshot's α array: a
    # snapshot whose stored responsibilities were dropped (KEEP_RESP) is a new object, same parameters.
    log.run = run if nxt is None else nxt
    kept = log.follow([s.alpha for s in log.run.history])
    log.run = None  # only the builders above read it, and only inside log.follow()
    token = f"{_token()}-{abs(hash(key)) % 10 ** 8}"
    sent = p.sent if p.sent and p.sent[0] == token else (token, 0, 0, -1)
    sent = (sent[0], min(sent[1], kept), sent[2], sent[3])  # frames rebuilt (e.g. the one ahead, after a λ change)
    payload = log.payload(sent[1], sent[2], sent[3])
    p.sent = (token, len(log.frames), len(log.strings), log.n_templates)
    charts_ = list(log.builders)
    data = {"role": "params", "token": token, "n": len(log.frames), **payload,
            "charts": charts_, "widths": [3, 2] if len(charts_) == 2 else [1], "plotly": _PLOTLY}
    with where:
        _mount(PARAMS_KEY, data, on_resync_change=_on_resync, on_failed_change=_on_failed)

