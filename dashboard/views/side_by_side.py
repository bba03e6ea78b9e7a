"""Side by side: two EM runs with different settings, stepped together on the same data and hidden labels."""
from __future__ import annotations

import warnings

import numpy as np
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import lesson as lesson_charts
from dashboard.charts import side_by_side as side_by_side_charts
from dashboard.charts import theme
from dashboard.pagekit import figures, page_kit
from dashboard.ui import controls, page_state, urlguard
from nbcore import baselines
from nblab import numbers
from nblab.lesson_run import status_line
from nblab.outcome import CV_LAMBDAS

SUBTITLE = "Same data, same hidden labels, two settings: step both runs together and compare."
SIDES = ("a", "b")  # each run's λ and start to begin with: the sbs_lam_* and sbs_init_* rows of url_table


def main() -> None:
    page = page_kit.page_setup(pages.SIDE_BY_SIDE, SUBTITLE)
    dataset, model, hidden, seed = sidebar()
    prep = page_kit.prepare(dataset, model, hidden, seed)
    cols = st.columns(2)
    settings = {side: run_settings(side, col, prep, page.classroom) for side, col in zip(SIDES, cols)}
    state = page_state.get("sbs", page_state.SteppedRuns)
    key = (dataset, model, int(hidden), int(seed), settings["a"], settings["b"])
    if state.config != key or state.runs is None:
        state.runs, state.config, state.acc = start_runs(prep, model, seed, settings), key, {"a": [], "b": []}
    toolbar(state)
    follow_accuracy(state, prep)
    for side, col in zip("ab", cols):
        with col:
            show_run(state.runs[side], state.acc[side], page.classroom)
    c1, c2 = st.columns(2)
    if prep.score_mask.any():
        accuracy_chart(c1, state, prep, (dataset, model, int(hidden), int(seed)), settings, page.fs)
    else:
        c1.info("No hidden labels: raise “Labels hidden” to compare accuracy.")
    likelihood_chart(c2, state.runs, settings, page.fs)
    comparable_note(settings)


def sidebar():
    """The data set, event model, hidden share and seed both runs share."""
    sb = st.sidebar
    dataset, model = page_kit.data_and_model("sbs", follow_lesson=True)
    hidden = urlguard.slider(sb, "Labels hidden", format="%d%%", key="sbs_hidden")
    seed = urlguard.number_input(sb, "Seed (hidden labels, random starts)", key="sbs_seed")
    return dataset, model, hidden, seed


def run_settings(side: str, col, prep, classroom: bool):
    """One run's λ, start and unlabelled weight, picked in its column: (λ, init, weight)."""
    has_labels = bool((prep.y_obs >= 0).any())
    with col:
        st.markdown(f"### Run {side.upper()}")
        # three narrow columns per run would break "Initialisation" mid-word at a projector's font size
        c1, c2, c3 = (st.container(), st.container(), st.container()) if classroom else st.columns(3)
        smoothing = float(urlguard.select_slider(c1, "λ", format_func=controls.fmt_lam,
                                                 key=f"sbs_lam_{side}"))
        inits = list(controls.INITS) if has_labels else ["uniform", "random"]
        if st.session_state.get(f"sbs_init_{side}") not in (None, *inits):
            st.session_state[f"sbs_init_{side}"] = inits[-1]
        init = urlguard.selectbox(c2, "Initialisation", options=inits,
                                  default=urlguard.DECLARED if has_labels else "random",
                                  key=f"sbs_init_{side}")
        uw = float(urlguard.slider(c3, "Unlabelled weight", key=f"sbs_uw_{side}"))
        return smoothing, init, uw


def start_runs(prep, model: str, seed: int, settings: dict) -> dict:
    """Both runs at iteration 0 on the same data and hidden labels; a message and a stopped page if one
    can't start."""
    runs = {}
    for side, (smoothing, init, uw) in settings.items():
        em = nbcore.EM(model=model, n_classes=prep.n_classes, smoothing=smoothing, init=init, unlabeled_weight=uw,
                       max_iter=500, random_state=seed)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runs[side] = em.start(prep.X, prep.y_obs)
        except ValueError as e:
            st.error(f"Run {side.upper()}: {e}")
            st.stop()
    return runs


def toolbar(state: page_state.SteppedRuns) -> None:
    """Step both, 10 steps, run both to convergence, Reset (callbacks: they run before the script)."""
    # one row that wraps, each button as wide as its label (four equal columns cut "Run both to convergence")
    b1 = b2 = b3 = b4 = st.container(horizontal=True, gap="small")
    both_done = all(r.done for r in state.runs.values())
    b1.button("Step both", icon=":material/skip_next:", key="sbs_step", on_click=state.step, args=(1,), disabled=both_done)
    b2.button("10 steps", icon=":material/fast_forward:", key="sbs_step10", on_click=state.step, args=(10,), disabled=both_done)
    b3.button("Run both to convergence", icon=":material/double_arrow:", key="sbs_conv", on_click=state.step, args=(500,),
              disabled=both_done)
    b4.button("Reset", icon=":material/replay:", key="sbs_reset", on_click=state.reset)


def follow_accuracy(state: page_state.SteppedRuns, prep) -> None:
    """Score the iterations each run has made since the last rerun (accuracy on the hidden labels)."""
    for side, run in state.runs.items():
        for t in range(len(state.acc[side]), len(run.history)):
            state.acc[side].append(numbers.score(np.asarray(run.predict_proba(t=t)).argmax(axis=1), prep))


def show_run(run, acc: list[float], classroom: bool) -> None:
    """One run's iteration, accuracy, objective and status."""
    m1, m2, m3 = st.columns([1, 2, 2] if classroom else 3)  # classroom: room for the long numbers
    m1.metric("Iteration", run.iteration)
    m2.metric("Accuracy (hidden)", theme.pct(acc[-1]))
    m3.metric("Objective", f"{run.current.objective:.1f}")
    kind, text = status_line(run)
    st.caption(text.replace("Press Step or Play.", "Press Step both (or 10 steps)."))


def label(settings: dict, side: str) -> str:
    """A run's name on the charts: its side and settings."""
    smoothing, init, uw = settings[side]
    return f"{side.upper()}: λ={smoothing:g}, {init}" + (f", w={uw:g}" if uw != 1.0 else "")


def supervised_baselines(state: page_state.SteppedRuns, prep, data_key: tuple, lams: tuple):
    """The supervised baselines (nbcore.baselines: none reads a hidden label), once per data split and λ pair;
    None without visible labels."""
    dataset, model, hidden, seed = data_key
    bkey = ("sbs_baselines", dataset, model, hidden, seed, lams)
    if state.base_config != bkey:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state.base = (baselines.baselines(model, prep.X, prep.y_obs, prep.y_eval, prep.n_classes, lams, CV_LAMBDAS)
                          if (prep.y_obs >= 0).any() else None)
        state.base_config = bkey
    return state.base


def accuracy_chart(c1, state: page_state.SteppedRuns, prep, data_key: tuple, settings: dict, FS: int) -> None:
    """Both runs' accuracy on the hidden labels over the iterations, with the supervised baselines, and
    what EM gained over the best of them."""
    acc, name_a, name_b = state.acc, label(settings, "a"), label(settings, "b")
    lams = (settings["a"][0], settings["b"][0])
    base = supervised_baselines(state, prep, data_key, lams)
    lines = []
    if base is not None:
        lines = [("majority class", base.majority, lesson_charts.MAJORITY_LINE)]
        for lam_, dash in zip(sorted(set(lams)), ("dash", "longdash")):
            lines.append((f"NB at λ = {lam_:g}", base.at_lambda[float(lam_)], {**lesson_charts.AT_LAMBDA_LINE, "dash": dash}))
        if base.cv_lambda is not None:
            lines.append((f"NB at λ = {base.cv_lambda:g} (leave-one-out)", base.cv, lesson_charts.CV_LINE))
    figures.show_chart(
        c1, figures.cached_figure(side_by_side_charts.two_runs_figure, acc["a"], acc["b"], name_a, name_b, "accuracy",
                                                f"Accuracy on the {int(prep.score_mask.sum())} hidden labels",
                                                FS, percent=True, width=theme.chart_width(FS, 2), baselines=lines),
        key="sbs_acc_fig", name="Line chart: accuracy on the hidden labels over the iterations, run A against run B",
        summary=" ".join(f"{nm}: {theme.pct(acc[side][0])} at t = 0, {theme.pct(acc[side][-1])} at "
                         f"t = {len(acc[side]) - 1}." for side, nm in (("a", name_a), ("b", name_b)))
        + "".join(f" {n}: {theme.pct(v)}." for n, v, _ in lines if v is not None),
        config={"displayModeBar": False})
    if base is not None:
        for side in "ab":
            best = base.best(settings[side][0])
            sentence = numbers.gain_sentence(acc[side][-1], best) if best is not None and len(acc[side]) > 1 else None
            if sentence:
                c1.markdown(f"Run {side.upper()} (t = {len(acc[side]) - 1}): {sentence}")


def likelihood_chart(c2, runs: dict, settings: dict, FS: int) -> None:
    """Both runs' log-likelihood over the iterations."""
    name_a, name_b = label(settings, "a"), label(settings, "b")
    lls = {side: [s.log_likelihood for s in runs[side].history] for side in ("a", "b")}
    figures.show_chart(
        c2, figures.cached_figure(side_by_side_charts.two_runs_figure, lls["a"], lls["b"], name_a, name_b, "log-likelihood",
                                                "Log-likelihood of the data", FS, width=theme.chart_width(FS, 2)),
        key="sbs_ll_fig", name="Line chart: the log-likelihood over the iterations, run A against run B",
        summary=" ".join(f"{nm}: {lls[side][0]:.1f} at t = 0, {lls[side][-1]:.1f} at t = {len(lls[side]) - 1}."
                         for side, nm in (("a", name_a), ("b", name_b))),
        config={"displayModeBar": False})


def comparable_note(settings: dict) -> None:
    """Which of the two runs' numbers can be compared."""
    same_start = settings["a"][1] == settings["b"][1]
    uw_a, uw_b = settings["a"][2], settings["b"][2]
    if uw_a != uw_b:
        ll_note = (f" The log-likelihoods are **not comparable**: each run sums over the documents with its own "
                   f"unlabelled weight (A counts an unlabelled document {uw_a:g} times, B {uw_b:g} times), so the run "
                   "with the smaller weight adds up less. Compare the accuracies, or give both the same weight.")
    else:
        ll_note = (" Log-likelihoods are comparable (same documents, same unlabelled weight); the MAP objectives "
                   "are not when λ differs (each adds its own prior).")
    st.caption("Both runs use the same documents and the same hidden labels"
               + (" and the same kind of start." if same_start else ".") + ll_note)


main()
