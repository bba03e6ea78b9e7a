"""Side by side: two EM runs with different settings, stepped together on the same data and hidden labels."""
from __future__ import annotations

import warnings

import numpy as np
import streamlit as st

import nbcore
from dashboard.charts import side_by_side as side_by_side_charts
from dashboard.charts import theme
from dashboard.charts import lesson as lesson_charts
from nbcore import baselines
from nblab.outcome import CV_LAMBDAS
from dashboard import pages
from dashboard.ui import controls, figures, page_kit, urlguard
from nblab import numbers
from nblab.lesson_run import status_line

PAGE = page_kit.page_setup(pages.SIDE_BY_SIDE,
                         "Same data, same hidden labels, two settings: step both runs together and compare.")
FS = PAGE.fs  # chart font size (larger in classroom mode)

sb = st.sidebar
dataset = page_kit.dataset_picker("sbs_dataset", "synthetic_spam", models=("bernoulli", "multinomial"))
model = page_kit.model_picker("sbs_model", dataset)
hidden = urlguard.slider(sb, "Labels hidden", 0, 100, 90, step=5, format="%d%%", key="sbs_hidden")
seed = urlguard.number_input(sb, "Seed (hidden labels, random starts)", 0, 9999, 0, key="sbs_seed")

prep = page_kit.prepare(dataset, model, hidden, seed)
has_labels = bool((prep.y_obs >= 0).any())

cols = st.columns(2)
settings = {}
for side, col, lam_default, init_default in (("a", cols[0], 0.01, "labeled"), ("b", cols[1], 1.0, "labeled")):
    with col:
        st.markdown(f"### Run {side.upper()}")
        # three narrow columns per run would break "Initialisation" mid-word at a projector's font size
        c1, c2, c3 = (st.container(), st.container(), st.container()) if PAGE.classroom else st.columns(3)
        smoothing = float(urlguard.select_slider(c1, "λ", controls.LAMBDAS, value=lam_default, format_func=controls.fmt_lam,
                                     key=f"sbs_lam_{side}"))
        inits = list(controls.INITS) if has_labels else ["uniform", "random"]
        if st.session_state.get(f"sbs_init_{side}") not in (None, *inits):
            st.session_state[f"sbs_init_{side}"] = inits[-1]
        init = urlguard.selectbox(c2, "Initialisation", inits, index=inits.index(init_default) if init_default in inits else 1,
                            key=f"sbs_init_{side}")
        uw = float(urlguard.slider(c3, "Unlabelled weight", 0.0, 1.0, 1.0, step=0.05, key=f"sbs_uw_{side}"))
        settings[side] = (smoothing, init, uw)

key = (dataset, model, int(hidden), int(seed), settings["a"], settings["b"])
if st.session_state.get("sbs_key") != key or st.session_state.get("sbs_runs") is None:
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
    st.session_state["sbs_runs"] = runs
    st.session_state["sbs_key"] = key
    st.session_state["sbs_acc"] = {"a": [], "b": []}


def _step(n: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n):
            for r in st.session_state["sbs_runs"].values():
                if not r.done:
                    r.step()


def _reset() -> None:
    st.session_state["sbs_runs"] = None


# one row that wraps, each button as wide as its label (four equal columns cut "Run both to convergence")
b1 = b2 = b3 = b4 = st.container(horizontal=True, gap="small")
runs = st.session_state["sbs_runs"]
both_done = all(r.done for r in runs.values())
b1.button("Step both", icon=":material/skip_next:", key="sbs_step", on_click=_step, args=(1,), disabled=both_done)
b2.button("10 steps", icon=":material/fast_forward:", key="sbs_step10", on_click=_step, args=(10,), disabled=both_done)
b3.button("Run both to convergence", icon=":material/double_arrow:", key="sbs_conv", on_click=_step, args=(500,), disabled=both_done)
b4.button("Reset", icon=":material/replay:", key="sbs_reset", on_click=_reset)


def score(run, t: int) -> float:
    return numbers.score(np.asarray(run.predict_proba(t=t)).argmax(axis=1), prep)


acc = st.session_state["sbs_acc"]
for side, run in runs.items():
    for t in range(len(acc[side]), len(run.history)):
        acc[side].append(score(run, t))


def label(side: str) -> str:
    smoothing, init, uw = settings[side]
    return f"{side.upper()}: λ={smoothing:g}, {init}" + (f", w={uw:g}" if uw != 1.0 else "")


for side, col in zip("ab", cols):
    run = runs[side]
    with col:
        m1, m2, m3 = st.columns([1, 2, 2] if PAGE.classroom else 3)  # classroom: room for the long numbers
        m1.metric("Iteration", run.iteration)
        m2.metric("Accuracy (hidden)", theme.pct(acc[side][-1]))
        m3.metric("Objective", f"{run.current.objective:.1f}")
        kind, text = status_line(run)
        st.caption(text.replace("Press Step or Play.", "Press Step both (or 10 steps)."))

name_a, name_b = label("a"), label("b")
c1, c2 = st.columns(2)
if prep.score_mask.any():
    # the supervised baselines (nbcore.baselines: none reads a hidden label), once per data split and λ pair
    lams = (settings["a"][0], settings["b"][0])
    bkey = ("sbs_baselines", dataset, model, int(hidden), int(seed), lams)
    if st.session_state.get("sbs_bkey") != bkey:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            st.session_state["sbs_base"] = (baselines.baselines(model, prep.X, prep.y_obs, prep.y_eval, prep.n_classes,
                                                                lams, CV_LAMBDAS) if has_labels else None)
        st.session_state["sbs_bkey"] = bkey
    base = st.session_state["sbs_base"]
    lines = []
    if base is not None:
        lines = [("majority class", base.majority, lesson_charts.MAJORITY_LINE)]
        for lam_, dash in zip(sorted(set(lams)), ("dash", "longdash")):
            lines.append((f"NB at λ = {lam_:g}", base.at_lambda[float(lam_)], {**lesson_charts.AT_LAMBDA_LINE, "dash": dash}))
        if base.cv_lambda is not None:
            lines.append((f"NB at λ = {base.cv_lambda:g} (leave-one-out)", base.cv, lesson_charts.CV_LINE))
    figures.show_chart(
        c1, side_by_side_charts.two_runs_figure(acc["a"], acc["b"], name_a, name_b, "accuracy",
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
else:
    c1.info("No hidden labels: raise “Labels hidden” to compare accuracy.")
lls = {side: [s.log_likelihood for s in runs[side].history] for side in ("a", "b")}
figures.show_chart(
    c2, side_by_side_charts.two_runs_figure(lls["a"], lls["b"], name_a, name_b, "log-likelihood",
                                            "Log-likelihood of the data", FS, width=theme.chart_width(FS, 2)),
    key="sbs_ll_fig", name="Line chart: the log-likelihood over the iterations, run A against run B",
    summary=" ".join(f"{nm}: {lls[side][0]:.1f} at t = 0, {lls[side][-1]:.1f} at t = {len(lls[side]) - 1}."
                     for side, nm in (("a", name_a), ("b", name_b))),
    config={"displayModeBar": False})
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
