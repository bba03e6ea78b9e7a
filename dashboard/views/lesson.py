"""Lesson page: watch EM learn from partly labelled data."""
from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import charts, controls, derive, lessons, maths, runner, state

state.init()

# ---- sidebar: classroom mode, upload, data controls -------------------------------
classroom = controls.classroom_toggle()
FS = 22 if classroom else 15  # chart font size

if classroom:
    st.markdown(lessons.CLASSROOM_CSS, unsafe_allow_html=True)
lessons.narrative_panel()  # guided lessons 1 and 2 open this view with ?lesson=<id>

upload_result = runner.process_pending_upload()  # before the widgets: may select the upload
names, descriptions = runner.dataset_names()
settings = controls.data_controls(names, descriptions, state.get(state.UPLOAD_NAME), runner.models_for, classroom)
controls.upload_control(runner.on_upload_change, runner.max_upload_words())
if state.get(state.UPLOAD_ERROR):  # stays next to the uploader until the next file
    st.sidebar.error(state.get(state.UPLOAD_ERROR))
elif upload_result:
    st.sidebar.success(upload_result[1])

runner.sync_run(settings)

st.title("Watch EM learn" if classroom else "Naive Bayes + EM: watch EM learn")
if upload_result and not upload_result[0]:  # in the main area once, right after the upload
    st.error(upload_result[1] + " — the previous data set and run are unchanged.")
if state.get(state.ERROR):
    st.error(f"Can't start a run with these settings: {state.get(state.ERROR)}"
             + (" The previous run is still shown." if state.get(state.RUN) is not None else ""))
if state.get(state.RUN) is None:
    st.info("Pick a data set in the sidebar to start.")
    st.stop()


# ---- run-control callbacks (run before the fragment reruns) ------------------------
def _on_step():
    runner.step(1)


def _on_play():
    state.put(state.PLAYING, not state.get(state.PLAYING))
    state.put(state.VIEW_T, None)
    state.put(state.APP_RERUN, True)  # run_every changes: needs a full rerun


def _on_reset():
    was_playing = bool(state.get(state.PLAYING))
    runner.reset()
    # a full rerun only when it is needed: Play stops (run_every changes) or the rebuild failed
    # (the error is shown above the fragment); otherwise only the fragment reruns
    if was_playing or state.get(state.ERROR):
        state.put(state.APP_RERUN, True)


def _on_converge():
    state.put(state.CONVERGE, True)


def _on_scrub(key: str):
    run = state.get(state.RUN)
    v = st.session_state.get(key)
    latest = len(run.history) - 1
    state.put(state.VIEW_T, int(v) if v is not None and v < latest else None)


def _chart(where, key: str, memo_key: tuple, build) -> None:
    """A chart whose spec is built once per (run, memo_key): moving an unrelated widget
    (another parameters view, the maths pickers, an expander) reuses it."""
    fig = state.memo((key,) + memo_key, lambda: charts.figure(build()))
    where.plotly_chart(fig, key=key, config={"displayModeBar": False})


def live() -> None:
    """Everything that changes while EM runs. Runs as a fragment, with run_every while playing."""
    if state.take(state.APP_RERUN):
        st.rerun(scope="app")
    run = state.get(state.RUN)
    prep = state.get(state.PREP)
    cfg = state.get(state.RUN_KEY)
    lam_next = state.get(state.RUN_LAM)

    if state.take(state.CONVERGE) and not run.done:
        bar = st.progress(0.0, text="Running EM to convergence …")
        start = run.current.iteration
        while not run.done:
            run.step()
            done_frac = (run.current.iteration - start) / max(1, cfg.max_iter - start)
            bar.progress(min(1.0, done_frac), text=f"Running EM … t = {run.current.iteration}")
        bar.empty()
        state.put(state.VIEW_T, None)

    if state.get(state.PLAYING):
        if run.done:
            state.put(state.PLAYING, False)
            st.rerun(scope="app")
        runner.step(controls.SPEEDS.get(settings.speed, controls.SPEEDS["normal"])[0])

    notice = state.get(state.NOTICE)
    if notice:
        kind, text = notice
        if kind == "continued":
            st.success(text, icon=":material/trending_flat:")
        else:
            st.info(text, icon=":material/restart_alt:")

    if lam_next == 0:
        st.warning("λ = 0 (no smoothing): a document with a word never seen in a class gets probability 0 "
                   "under that class, and if that happens for every class the engine can only give it a "
                   "uniform posterior. Watch what happens to the accuracy, then try λ > 0.",
                   icon=":material/warning:")

    latest = len(run.history) - 1
    view_t = state.get(state.VIEW_T)
    t = latest if view_t is None else min(view_t, latest)
    snap = run.history[t]
    acc = runner.accuracy_series(run, prep)
    base = runner.baseline_accuracy(cfg, lam_next, prep)

    kind, status = runner.status_line(run)
    if classroom:  # big numbers need room: status on a row of its own
        m1, m2, m3 = st.columns(3)
        m4 = st.container()
    else:
        m1, m2, m3, m4 = st.columns([1, 1, 1, 3])
    m1.metric("Iteration", latest)
    a_now = acc[t] if t < len(acc) else float("nan")
    m2.metric(f"Accuracy (t={t})", "—" if not np.isfinite(a_now) else f"{a_now:.1%}",
              delta=None if (base is None or not np.isfinite(a_now)) else f"{(a_now - base) * 100:+.1f} pts vs supervised")
    m3.metric("Supervised only", "—" if base is None else f"{base:.1%}",
              help="Naive Bayes trained on the visible labels alone, scored on the same hidden documents.")
    with m4:
        st.markdown(f"**Status:** {status}")
        st.caption(f"{cfg.dataset} · {cfg.model} · {cfg.hidden_pct}% labels hidden · λ = {lam_next:g} · "
                   f"init {cfg.init} · seed {cfg.seed}")

    controls.run_controls(bool(state.get(state.PLAYING)), bool(run.done),
                          on_step=_on_step, on_play=_on_play, on_reset=_on_reset, on_converge=_on_converge)
    controls.scrubber(len(run.history), t, on_change=_on_scrub, playing=bool(state.get(state.PLAYING)),
                      serial=state.get(state.RUN_SERIAL))
    if view_t is not None and view_t < latest:
        st.caption(f"Showing iteration {t} of {latest} (drag the slider to the right end to follow the run).")

    lams = [s.smoothing for s in run.history]
    lam_changes = [(k, lams[k]) for k in range(1, len(lams)) if lams[k] != lams[k - 1]]
    truth = getattr(prep.ds, "truth", None) if cfg.dataset != controls.UPLOAD else None
    # the shipped truth is a Bernoulli model's β: compare it with Bernoulli estimates only
    has_truth = bool(truth) and "beta" in truth and cfg.model == "bernoulli"
    if classroom:  # two charts per row on a projector; the truth scatter beside the likelihood
        c1, c2 = st.columns(2)
        c3, truth_slot = st.columns(2)
    else:
        c1, c2, c3 = st.columns(3)
        truth_slot = None
    T = len(run.history)
    _chart(c1, "fig_alpha", (T, t, FS),
           lambda: charts.alpha_figure(np.array([s.alpha for s in run.history]), prep.class_names, t, lam_changes,
                                       font_size=FS))
    n_hidden = int(prep.score_mask.sum())
    if n_hidden:
        _chart(c2, "fig_acc", (T, t, FS, base),
               lambda: charts.accuracy_figure(acc, base, t, font_size=FS, n_hidden=n_hidden))
    else:
        c2.info("No hidden labels to score: raise “Labels hidden” to measure accuracy.")
    _chart(c3, "fig_ll", (T, t, FS),
           lambda: charts.likelihood_figure([s.log_likelihood for s in run.history],
                                            [s.objective for s in run.history], lams, t, font_size=FS))
    if charts.decreases([s.objective for s in run.history], lams):
        st.warning("The MAP objective went down at fixed λ — EM should never do that. Please report it.")

    view = derive.param_view(snap, cfg.model, prep.feature_names, getattr(prep.ds, "categories", None))
    prev_view = derive.param_view(run.history[t - 1], cfg.model, prep.feature_names,
                                  getattr(prep.ds, "categories", None)) if t > 0 else None
    options = ["Top features", "Heatmap"]
    shape = getattr(prep.ds, "image_shape", None)
    if shape:
        options.insert(0, "Images")
    if has_truth and truth_slot is None:
        left, right = st.columns([3, 2])
    else:
        left, right = st.container(), truth_slot
    with left:
        pick = st.segmented_control("Parameters view", options, default=options[0], key=controls.K_PARAM_VIEW,
                                    label_visibility="collapsed") or options[0]
        if pick == "Images":
            def build():
                return charts.digits_figure(view.mat, tuple(shape), prep.class_names, view.short, FS,
                                            zmin=view.zmin, zmax=view.zmax)
        elif pick == "Heatmap":
            def build():
                return charts.heatmap_figure(view.mat, view.rows, prep.class_names, view.short, FS,
                                             zmin=view.zmin, zmax=view.zmax)
        else:
            def build():
                return charts.beta_bars_figure(view.mat, None if prev_view is None else prev_view.mat, view.rows,
                                               prep.class_names, n_top=10 if classroom else 12,
                                               value_label=view.label, log_scale=view.log_scale, font_size=FS)
        _chart(st, "fig_params", (pick, t, FS), build)  # depends on θ at t and t-1 only
    if has_truth and right is not None:
        with right:
            _chart(st, "fig_truth", (t, FS),
                   lambda: charts.truth_figure(np.asarray(truth["beta"]),
                                               runner.aligned(np.asarray(snap.beta, dtype=float), run, prep, t),
                                               prep.class_names, "β", FS))

    if state.get(state.PLAYING):  # keep Play ticks light; the numbers come back on Pause
        st.caption("The maths panel and the exports are back when you press Pause.")
        return
    with st.expander("The maths of this iteration (eq. 21–24 of the notes)", expanded=not classroom,
                     icon=":material/functions:"):
        maths.maths_panel(run, prep, cfg, t, lam_next)

    with st.expander("Export α, β and the history as CSV", expanded=False, icon=":material/download:"):
        e1, e2, e3 = st.columns(3)
        # callables: the CSV is only made when clicked (nothing is stored on every Play tick)
        names, hist, acc_now = prep.class_names, list(run.history), list(acc)
        e1.download_button(f"α at t={t} (CSV)", lambda: derive.alpha_frame(snap, names).to_csv(index=False),
                           file_name=f"alpha_t{t}.csv", mime="text/csv", key="dl_alpha", on_click="ignore",
                           icon=":material/download:")
        e2.download_button(f"{view.short} at t={t} (CSV)", lambda: derive.params_frame(view, names).to_csv(index=False),
                           file_name=f"params_t{t}.csv", mime="text/csv", key="dl_params", on_click="ignore",
                           icon=":material/download:")
        e3.download_button("History, every iteration (CSV)",
                           lambda: derive.history_frame(hist, names, acc_now).to_csv(index=False),
                           file_name="em_history.csv", mime="text/csv", key="dl_history", on_click="ignore",
                           icon=":material/download:")


interval = controls.SPEEDS.get(settings.speed, controls.SPEEDS["normal"])[1] if state.get(state.PLAYING) else None
st.fragment(live, run_every=interval)()
