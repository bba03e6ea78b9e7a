"""The panels of the lesson view ("Watch EM learn"), one function each.

``views/lesson.py`` draws the sidebar, keeps the run in line with the controls and then,
inside a fragment that reruns while EM plays, calls :func:`advance` and the panels below
in order. Every panel takes a :class:`Frame` (the run at the iteration on screen) and
draws into the current Streamlit container; adding a panel to the lesson view is one
function here and one call in ``views/lesson.py``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import nbcore
from dashboard import charts, controls, derive, lifecycle, maths, metrics, pages, player, state
from dashboard.controls import DataConfig


@dataclass(frozen=True)
class Frame:
    """What the lesson view shows on one pass: the run, its data and the iteration on screen."""
    run: object                   # nbcore EMRun
    prep: lifecycle.Prepared
    cfg: DataConfig
    smoothing: float                    # λ the next step uses
    t: int                        # iteration on screen
    latest: int                   # latest iteration of the run
    view_t: int | None            # iteration picked with the scrubber (None = follow the run)
    acc: list                     # accuracy on the hidden labels per iteration
    base: float | None            # supervised-only accuracy on the same documents
    classroom: bool
    fs: int                       # chart font size
    player: bool = False          # the browser player draws the charts (dashboard/player)

    @property
    def snap(self):
        return self.run.history[self.t]

    @property
    def playing(self) -> bool:
        return bool(state.get(state.PLAYING)) or (self.player and player.playing())


def current_frame(classroom: bool) -> Frame:
    """The session's run at the iteration picked with the scrubber (or the latest one)."""
    run, prep = state.get(state.RUN), state.get(state.PREP)
    cfg, smoothing = state.get(state.RUN_KEY), state.get(state.RUN_LAM)
    latest = len(run.history) - 1
    view_t = state.get(state.VIEW_T)
    t = latest if view_t is None else min(view_t, latest)
    return Frame(run=run, prep=prep, cfg=cfg, smoothing=smoothing, t=t, latest=latest, view_t=view_t,
                 acc=metrics.accuracy_series(run, prep), base=metrics.baseline_accuracy(cfg, smoothing, prep),
                 classroom=classroom, fs=22 if classroom else 15, player=player.enabled())


# ---- run controls: callbacks (they run before the fragment reruns) ---------------------------

def on_step() -> None:
    lifecycle.step(1, ahead=player.take_ahead(state.get(state.RUN)))  # the browser may show it already
    player.follow()


def on_play(playing: bool) -> None:
    """Play (True) or Pause (False). Sets, never toggles: a click delivered twice stays one click."""
    if bool(state.get(state.PLAYING)) == playing:
        return
    state.put(state.PLAYING, playing)
    state.put(state.VIEW_T, None)
    state.put(state.APP_RERUN, True)  # run_every changes: needs a full rerun


def on_reset() -> None:
    was_playing = bool(state.get(state.PLAYING))
    lifecycle.reset()
    player.follow()
    # a full rerun only when it is needed: Play stops (run_every changes) or the rebuild failed
    # (the error is shown above the fragment); otherwise only the fragment reruns
    if was_playing or state.get(state.ERROR):
        state.put(state.APP_RERUN, True)


def on_converge() -> None:
    state.put(state.CONVERGE, True)


def on_scrub(key: str) -> None:
    run = state.get(state.RUN)
    v = st.session_state.get(key)
    latest = len(run.history) - 1
    state.put(state.VIEW_T, int(v) if v is not None and v < latest else None)


def advance(run, max_iter: int, speed: str) -> None:
    """Move the run on: to convergence if that was asked for (with a progress bar), or one
    Play tick's worth of steps while playing."""
    if state.take(state.CONVERGE) and not run.done:
        bar = st.progress(0.0, text="Running EM to convergence …")
        start = run.current.iteration
        while not run.done:
            run.step()
            done_frac = (run.current.iteration - start) / max(1, max_iter - start)
            bar.progress(min(1.0, done_frac), text=f"Running EM … t = {run.current.iteration}")
        bar.empty()
        state.put(state.VIEW_T, None)
        player.follow()

    if state.get(state.PLAYING):
        if run.done:
            state.put(state.PLAYING, False)
            st.rerun(scope="app")
        lifecycle.step(controls.SPEEDS.get(speed, controls.SPEEDS["normal"])[0])


# ---- panels -----------------------------------------------------------------------------------

def chart(where, key: str, memo_key: tuple, build) -> None:
    """A chart whose spec is built once per (run, memo_key): moving an unrelated widget
    (another parameters view, the maths pickers, an expander) reuses it."""
    fig = state.memo((key,) + memo_key, lambda: charts.figure(build()))
    where.plotly_chart(fig, key=key, config={"displayModeBar": False})


def notices(f: Frame) -> None:
    """What the last control change did (new run / continued), and the λ = 0 warning."""
    notice = state.get(state.NOTICE)
    if notice:
        kind, text = notice
        if kind == "continued":
            st.success(text, icon=":material/trending_flat:")
        else:
            st.info(text, icon=":material/restart_alt:")
    options_note = state.memo(("options_note", f.cfg.model),
                              lambda: nbcore.get_model(f.cfg.model).options_note(lifecycle.model_options(f.cfg, f.prep)))
    if options_note:
        st.caption(options_note)
    if f.smoothing == 0:
        st.warning("λ = 0 (no smoothing): a document with a word never seen in a class gets probability 0 "
                   "under that class, and if that happens for every class the engine can only give it a "
                   "uniform posterior. Watch what happens to the accuracy, then try λ > 0.",
                   icon=":material/warning:")
    class_emptied_notice(f)


K_EMPTIED = "class_emptied_rows"  # session cache: per iteration, what class_emptied_notice reads off θ_t
#: A class counts as emptied at iteration t when its α_t is below EMPTIED_SHARE of its α at t = 0 or below
#: EMPTIED_FLOOR / K, when the hidden documents' mean responsibility for it is below EMPTIED_SHARE of that
#: start (α also holds the labelled documents, so it cannot fall below their share), or when no hidden
#: document has it as its most probable class.
EMPTIED_SHARE = 0.01
EMPTIED_FLOOR = 0.005


def emptied_classes(alphas, hidden_means, hidden_counts) -> dict[int, int]:
    """{class k: first EM iteration (t ≥ 1) of the stretch of iterations, up to the last one given, in
    which k has been emptied}, for the classes emptied at the last iteration (t = 0 is the start EM was
    given, not something EM did: a class already empty there counts from t = 1).

    alphas, hidden_means: (T, K) α_t and the hidden documents' mean p(k | x, θ_t); hidden_counts: (T, K)
    how many hidden documents have k as their most probable class under θ_t."""
    a = np.asarray(alphas, dtype=float)
    mean = np.asarray(hidden_means, dtype=float)
    counts = np.asarray(hidden_counts)
    if a.ndim != 2 or a.shape[0] < 2:
        return {}
    K = a.shape[1]
    start = a[0]
    empty = (a < EMPTIED_SHARE * start) | (a < EMPTIED_FLOOR / K) | (mean < EMPTIED_SHARE * start) | (counts == 0)
    out = {}
    for k in np.flatnonzero(empty[-1]):
        t = a.shape[0] - 1
        while t > 1 and empty[t - 1, k]:
            t -= 1
        out[int(k)] = t
    return out


def _emptied_rows(f: Frame) -> list:
    """(α_t, hidden mean responsibility, hidden argmax counts) for t = 0 … f.t, computed once per
    iteration of the run (a row is recomputed when its α no longer matches the run's, e.g. after a
    λ change rewound and re-stepped it)."""
    serial = state.get(state.RUN_SERIAL)
    cache = st.session_state.get(K_EMPTIED)
    if not cache or cache["serial"] != serial:
        cache = {"serial": serial, "rows": []}
        st.session_state[K_EMPTIED] = cache
    rows = cache["rows"]
    hidden = np.asarray(f.prep.y_obs) < 0
    K = f.prep.n_classes
    newest = len(f.run.history) - 2  # the latest two are in metrics.proba_at's memo already
    for t in range(f.t + 1):
        alpha = np.asarray(f.run.history[t].alpha, dtype=float)
        if t < len(rows) and np.array_equal(rows[t][0], alpha):
            continue
        del rows[t:]
        proba = np.asarray(metrics.proba_at(f.run, t) if t >= newest else f.run.predict_proba(t=t))[hidden]
        rows.append((alpha, proba.mean(axis=0), np.bincount(proba.argmax(axis=1), minlength=K)))
    return rows[: f.t + 1]


def class_emptied_notice(f: Frame) -> None:
    """A warning when EM has emptied a class at the iteration on screen (see :func:`emptied_classes`),
    naming the class and the iteration it happened, with a link to the Event models page on the same
    data settings (on text). Needs labelled documents (without them a class is not a label) and hidden ones."""
    if f.t < 1 or f.playing or not (np.asarray(f.prep.y_obs) >= 0).any() or not (np.asarray(f.prep.y_obs) < 0).any():
        return
    rows = _emptied_rows(f)
    emptied = emptied_classes([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    if not emptied:
        return
    names = f.prep.class_names
    a0, at = rows[0][0], rows[-1][0]
    lines = []
    for k, since in sorted(emptied.items(), key=lambda kv: kv[1]):
        name = derive.md_escape(names[k], 40)
        n_docs = int(rows[-1][2][k])
        now = "" if since == f.t else f" (t = {f.t} now)"
        lines.append(f"EM emptied the class **{name}** at iteration **{since}**: α({name}) is {at[k]:.2%}{now}, "
                     f"it started at {a0[k]:.2%}, and {n_docs:,} of the {int(rows[-1][2].sum()):,} hidden documents "
                     "have it as their most probable class: only its labelled documents still hold it."
                     + (" The start (t = 0, the fit to the labelled documents) already gave it no hidden document."
                        if rows[0][2][k] == 0 else ""))
    text = " ".join(lines)
    if nbcore.get_model(f.cfg.model).scores_absent_features:
        text += (" Bernoulli NB counts every word a document *lacks* (log(1 − β)), and a small class with few "
                 "labels loses on thousands of them.")
    st.warning(text, icon=":material/warning:")
    if getattr(f.prep.ds, "is_text", False):
        params = {"evm_dataset": f.cfg.dataset, "evm_hidden": str(int(f.cfg.hidden_pct)),
                  "evm_lam": controls.fmt_lam(f.smoothing), "evm_seed": str(int(f.cfg.seed)),
                  "evm_uw": f"{float(f.cfg.unlabeled_weight):g}"}
        if f.classroom:
            params[controls.K_CLASSROOM] = "true"
        st.page_link(pages.EVENT_MODELS.path, label="Compare Bernoulli and multinomial EM on the same data and "
                     "hidden labels: Event models side by side", icon=":material/text_compare:", query_params=params)


def metrics_row(f: Frame) -> None:
    """Iteration, accuracy at t (vs supervised only), supervised-only accuracy, status."""
    kind, status = lifecycle.status_line(f.run)
    if f.classroom:  # big numbers need room: status on a row of its own
        m1, m2, m3 = st.columns(3)
        m4 = st.container()
    else:
        m1, m2, m3, m4 = st.columns([1, 1.4, 1, 2.6])  # the accuracy's "+10.2 pts vs supervised" needs room
    if f.player and f.playing:  # the browser plays: say where the audience is, not how far EM has got
        status = f"Running … t = {player.shown(f.latest)}"
    # One iteration for both numbers: the one on screen (scrubbed back, or, while the browser plays
    # ahead of the computed run, the one it shows), never the furthest one computed beside it.
    t_acc = player.shown(f.latest) if f.player and f.playing else f.t
    m1.metric("Iteration", t_acc, help=f"The iteration shown; EM has computed {f.latest}."
              if t_acc != f.latest else None)
    a_now = f.acc[t_acc] if t_acc < len(f.acc) else float("nan")
    base = f.base
    has_delta = base is not None and np.isfinite(a_now)
    m2.metric(f"Accuracy (t={t_acc})", metrics.percent(a_now) or "—",
              delta=metrics.delta_text(a_now, base) if has_delta else None,
              delta_color=metrics.delta_color(a_now, base) if has_delta else "normal",
              delta_arrow="off" if has_delta and metrics.delta_color(a_now, base) == "off" else "auto")
    m3.metric("Supervised only", "—" if base is None else f"{base:.1%}",
              help="Naive Bayes trained on the visible labels alone, scored on the same hidden documents.")
    cfg = f.cfg
    with m4:
        st.markdown(f"**Status:** {status}")
        init = lifecycle.effective_init(cfg, f.prep)
        st.caption(f"{cfg.dataset} · {cfg.model} · {cfg.hidden_pct}% labels hidden · λ = {f.smoothing:g} · "
                   f"init {init}" + (" (no label visible)" if init != cfg.init else "") + f" · seed {cfg.seed}"
                   + (f" · features: {cfg.text.describe()}, V = {f.prep.X.shape[1]:,}"
                      if getattr(cfg, "text", None) is not None else ""))


def run_controls(f: Frame) -> None:
    """Step / Play / Reset / Run to convergence, and the iteration scrubber (the player has its own
    Play and slider)."""
    controls.run_controls(f.playing, bool(f.run.done), on_step=on_step, on_play=on_play, on_reset=on_reset,
                          on_converge=on_converge, show_play=not f.player)
    if not f.player:
        controls.scrubber(len(f.run.history), f.t, on_change=on_scrub, playing=f.playing,
                          serial=state.get(state.RUN_SERIAL))
    slot = st.container()  # always there, so the charts after it keep their place (not re-created)
    if f.view_t is not None and f.view_t < f.latest:
        slot.caption(f"Showing iteration {f.t} of {f.latest} (drag the slider to the right end to follow the run).")


def _truth(f: Frame):
    """The shipped generating parameters when the run uses the generating model, else None."""
    truth = getattr(f.prep.ds, "truth", None) if f.cfg.dataset not in controls.USER_DATA else None
    return truth if (truth and "beta" in truth and truth.get("model") == f.cfg.model) else None


def history_charts(f: Frame):
    """α, accuracy and objective over the iterations. Returns the slot for the truth scatter
    in classroom mode (two charts per row), else None."""
    run, t, fs = f.run, f.t, f.fs
    smoothings = [s.smoothing for s in run.history]
    warn = st.container()  # always there (see run_controls)
    if charts.decreases([s.objective for s in run.history], smoothings):
        warn.warning("The MAP objective went down at fixed λ — EM should never do that. Please report it.")
    if f.player:
        player.show_series(st.container(), run=run, prep=f.prep, acc=f.acc, base=f.base, font_size=fs,
                           classroom=f.classroom, speed=state.get(controls.K_SPEED) or "normal", view_t=f.view_t,
                           cfg=f.cfg, smoothing=f.smoothing)
        with st.container():  # always one element: the parameter charts after it keep their place
            below_supervised_note(f)
        return None
    smoothing_changes = [(k, smoothings[k]) for k in range(1, len(smoothings)) if smoothings[k] != smoothings[k - 1]]
    if f.classroom:  # two charts per row on a projector; the truth scatter beside the likelihood
        c1, c2 = st.columns(2)
        c3, truth_slot = st.columns(2)
    else:
        c1, c2, c3 = st.columns(3)
        truth_slot = None
    T = len(run.history)
    chart(c1, "fig_alpha", (T, t, fs),
          lambda: charts.alpha_figure(np.array([s.alpha for s in run.history]), f.prep.class_names, t, smoothing_changes,
                                      font_size=fs))
    n_hidden = int(f.prep.score_mask.sum())
    if n_hidden:
        chart(c2, "fig_acc", (T, t, fs, f.base),
              lambda: charts.accuracy_figure(f.acc, f.base, t, font_size=fs, n_hidden=n_hidden))
    else:
        c2.info("No hidden labels to score: raise “Labels hidden” to measure accuracy.")
    chart(c3, "fig_ll", (T, t, fs),
          lambda: charts.likelihood_figure([s.log_likelihood for s in run.history],
                                           [s.objective for s in run.history], smoothings, t, font_size=fs))
    below_supervised_note(f)
    return truth_slot


def below_supervised_note(f: Frame) -> None:
    """EM finished less accurate than Naive Bayes on the labelled documents alone (digits at the
    default settings: 81.9 % -> 77.5 %): say why, or a class thinks EM is broken."""
    if not f.run.done or f.base is None or not f.acc or f.t != f.latest:
        return
    final = f.acc[-1]
    if not np.isfinite(final) or final >= f.base - 0.0005:
        return
    st.info(
        f"EM ended **below supervised** ({final:.1%} vs {f.base:.1%}), although its objective went up at "
        "every step. EM maximises the likelihood of *all* documents, labelled or not, under the Naive "
        "Bayes model; when that model is wrong for the data (pixels or words are not independent given "
        "the class), the clusters that explain the unlabelled documents best need not be the classes. "
        "With many unlabelled documents they outvote the few labels. Try a smaller *unlabelled weight* "
        "(Advanced), fewer hidden labels, or see the **Label-budget curve**.",
        icon=":material/trending_down:")


def param_views(f: Frame):
    """(view at t, view at t-1 or None) of the run's parameters (nbcore ParamTable)."""
    categories = getattr(f.prep.ds, "categories", None)
    view = derive.param_view(f.snap, f.cfg.model, f.prep.feature_names, categories)
    prev = (derive.param_view(f.run.history[f.t - 1], f.cfg.model, f.prep.feature_names, categories)
            if f.t > 0 else None)
    return view, prev


def parameters(f: Frame, view, prev_view, truth_slot=None) -> None:
    """The parameters at t (images / heatmap / top features; ``view``/``prev_view`` from
    :func:`param_views`), and the truth scatter when the generating β is known."""
    prep, t, fs = f.prep, f.t, f.fs
    truth = _truth(f)
    options = ["Top features", "Heatmap"]
    shape = getattr(prep.ds, "image_shape", None)
    if shape:
        options.insert(0, "Images")
    if f.player:  # every iteration's chart goes to the browser once; the slider and Play redraw there
        pick = st.segmented_control("Parameters view", options, default=options[0], key=controls.K_PARAM_VIEW,
                                    label_visibility="collapsed") or options[0]
        player.show_params(st.container(), run=f.run, prep=prep, model=f.cfg.model, pick=pick, font_size=fs,
                           classroom=f.classroom, truth_beta=None if truth is None else truth["beta"])
        return
    if truth is not None and truth_slot is None:
        left, right = st.columns([3, 2])
    else:
        left, right = st.container(), truth_slot
    with left:
        pick = st.segmented_control("Parameters view", options, default=options[0], key=controls.K_PARAM_VIEW,
                                    label_visibility="collapsed") or options[0]
        if pick == "Images":
            def build():
                return charts.digits_figure(view.mat, tuple(shape), prep.class_names, view.short, fs,
                                            zmin=view.zmin, zmax=view.zmax)
        elif pick == "Heatmap":
            def build():
                return charts.heatmap_figure(view.mat, view.rows, prep.class_names, view.short, fs,
                                             zmin=view.zmin, zmax=view.zmax)
        else:
            def build():
                return charts.beta_bars_figure(view.mat, None if prev_view is None else prev_view.mat, view.rows,
                                               prep.class_names, n_top=10 if f.classroom else 12,
                                               value_label=view.label, log_scale=view.log_scale, font_size=fs)
        chart(st, "fig_params", (pick, t, fs), build)  # depends on θ at t and t-1 only
    if truth is not None and right is not None:
        with right:
            chart(st, "fig_truth", (t, fs),
                  lambda: charts.truth_figure(np.asarray(truth["beta"]),
                                              metrics.aligned(np.asarray(f.snap.beta, dtype=float), f.run, prep, t),
                                              prep.class_names, "β", fs))


def maths_expander(f: Frame) -> None:
    with st.expander("The maths of this iteration (eq. 21–24 of the notes)", expanded=not f.classroom,
                     icon=":material/functions:"):
        maths.maths_panel(f.run, f.prep, f.cfg, f.t, f.smoothing)


K_EXPORTS_OPEN = "exports_open"  # the CSV exports expander is open


def exports(f: Frame, view) -> None:
    """α, the parameters at t (``view``) and the whole history as CSV downloads."""
    t, snap = f.t, f.snap
    # the buttons are drawn only while the expander is open (opening it reruns the live fragment)
    with st.expander("Export α, β and the history as CSV", expanded=False, key=K_EXPORTS_OPEN, on_change="rerun",
                     icon=":material/download:") as box:
        if not box.open:
            return
        e1, e2, e3 = st.columns(3)
        # callables: the CSV is only made when clicked (nothing is stored on every Play tick)
        names, hist, acc_now = f.prep.class_names, list(f.run.history), list(f.acc)
        e1.download_button(f"α at t={t} (CSV)", lambda: derive.csv_export(derive.alpha_frame(snap, names)),
                           file_name=f"alpha_t{t}.csv", mime="text/csv", key="dl_alpha", on_click="ignore",
                           icon=":material/download:")
        e2.download_button(f"{view.short} at t={t} (CSV)", lambda: derive.csv_export(derive.params_frame(view, names)),
                           file_name=f"params_t{t}.csv", mime="text/csv", key="dl_params", on_click="ignore",
                           icon=":material/download:")
        e3.download_button("History, every iteration (CSV)",
                           lambda: derive.csv_export(derive.history_frame(hist, names, acc_now)),
                           file_name="em_history.csv", mime="text/csv", key="dl_history", on_click="ignore",
                           icon=":material/download:")
