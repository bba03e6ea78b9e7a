"""Why EM climbs: the log-likelihood, the lower bound the E-step makes tight (Jensen / free energy),
and how the M-step raises the bound and with it the likelihood; along a 1-D slice of θ."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import climb as climb_charts
from dashboard.charts import theme
from dashboard.pagekit import figures, page_kit
from dashboard.ui import controls, page_state, stepper, urlguard
from nbcore import bound

SUBTITLE = ("For any guess q of the hidden labels, Jensen's inequality gives a lower bound on the "
            "likelihood. The E-step makes it touch; the M-step climbs it. So EM can never go down.")
MODELS = ("bernoulli", "multinomial", "categorical")
TOOLBAR = stepper.Labels(e_help="q = p(y | x, θ_t): the bound now touches the objective at θ_t.",
                         m_help="θ_{t+1} = the top of the bound (eq. 23–24).", m_icon=":material/north_east:")


def main() -> None:
    page = page_kit.page_setup(pages.CLIMB, SUBTITLE)
    dataset, model, hidden, smoothing, init, seed = sidebar()
    prep, init = prepared(dataset, model, hidden, seed, init)
    # iteration t and whether the E-step at θ_t is done: kept per configuration
    run = page_state.for_config("cl_run", page_state.HalfSteps, (dataset, model, hidden, smoothing, init, seed))
    phase_box = stepper.toolbar("cl", run, TOOLBAR, page.classroom)
    t, e_done = run.t, run.e_done
    if page_kit.is_shared(dataset):
        objs, climbs, sl = climb_path_shipped(dataset, model, int(hidden), float(smoothing), init, seed, t)
    else:
        objs, climbs, sl = _climb_path(prep.X, prep.y_obs, prep.n_classes, model, float(smoothing), init, seed, t)
    phase_box.markdown(f"**t = {t}** · {phase_text(t, e_done)}")
    show_metrics(climbs, t, e_done, page.classroom)
    show_charts(objs, climbs, sl, t, e_done, page)
    explain(climbs)


def sidebar():
    """The data set, event model, hidden share, λ, start and seed, from the sidebar (and the URL)."""
    sb = st.sidebar
    dataset, model = page_kit.data_and_model("cl", models=MODELS)
    hidden = urlguard.select_slider(sb, "Labels hidden (%)", key="cl_hidden")
    smoothing = page_kit.lam_picker("cl_lam")
    init = urlguard.radio(sb, "Start", key="cl_init",
                          format_func=lambda v: controls.INIT_LABELS[v])
    seed = int(urlguard.number_input(sb, "Seed", key="cl_seed"))
    return dataset, model, hidden, smoothing, init, seed


def prepared(dataset: str, model: str, hidden: int, seed: int, init: str):
    """The prepared data and the start EM can use on them, with a word when either is not what was asked."""
    prep = page_kit.prepare(dataset, model, hidden, seed)
    if init == "labeled" and not (prep.y_obs >= 0).any():
        st.info("No label is visible, so EM starts from a random initialisation.")
        init = "random"
    n_rows = prep.X.shape[0]
    if n_rows > 5000:
        st.warning(f"{dataset} has {n_rows:,} documents: the slice needs ~120 evaluations of the likelihood, so this "
                   "view uses the first 5,000.")
    return prep, init


def _climb_path(X, y, K: int, model: str, smoothing: float, init: str, seed: int, t: int):
    """Objective of θ_0 … θ_t, the Climb s → s+1 for every s ≤ t, and the slice at t (plain numbers)."""
    X, y = X[:5000], y[:5000]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = nbcore.EM(model=model, n_classes=K, smoothing=smoothing, init=init, random_state=seed, tol=None,
                        max_iter=t + 1).start(X, y)
        climbs = []
        for _ in range(t + 1):
            climbs.append(bound.climb(run))
            if run.iteration < t:
                run.step()
        sl = bound.bound_slice(run, t, n=121)
    return [c.objective_before for c in climbs], climbs, sl


@st.cache_data(show_spinner=False, max_entries=32)
def climb_path_shipped(dataset: str, model: str, hidden: int, smoothing: float, init: str, seed: int, t: int):
    """Shipped data are the same for everybody: cached across sessions (an upload never is)."""
    p = page_kit.prepare(dataset, model, hidden, seed)
    return _climb_path(p.X, p.y_obs, p.n_classes, model, smoothing, init, seed, t)


def phase_text(t: int, e_done: bool) -> str:
    """Where the run is, and which button comes next."""
    return (f"E-step done at θ_{t}: the bound touches. Press **M-step** to climb it." if e_done else
            "θ_0, the starting parameters: no bound yet. Press **E-step** to build one that touches here." if t == 0
            else f"θ_{t}: the bound from the last E-step is below the objective (the gap is a KL divergence). "
            "Press **E-step** to make it touch.")


def show_metrics(climbs, t: int, e_done: bool, classroom: bool) -> None:
    """The objective and the bound at θ_t, and after the M-step once the E-step is done."""
    c = climbs[t]
    m = [*st.columns(2), *st.columns(2)] if classroom else st.columns(4)
    m[0].metric(f"L(θ_{t})", f"{c.objective_before:.4f}", help="Observed log-likelihood + log prior of λ (the MAP objective).")
    if t > 0:
        prev = climbs[t - 1]
        gap_now = 0.0 if e_done else prev.gap_after
        m[1].metric(f"bound at θ_{t}", f"{c.bound_before if e_done else prev.bound_after:.4f}",
                    delta=f"gap {gap_now:.4g}", delta_color="off",
                    help="F(q, θ_t) + log p(θ_t) with q from the last E-step: equal to L after the E-step.")
    else:
        m[1].metric(f"bound at θ_{t}", f"{c.bound_before:.4f}" if e_done else "—",
                    delta=None if e_done else "press E-step first", delta_color="off", delta_arrow="off",
                    help="Press E-step: with q = p(y | x, θ_0) the bound equals L(θ_0).")
    if e_done:
        m[2].metric(f"bound at θ_{t + 1} (after the M-step)", f"{c.bound_after:.4f}", delta=f"+{c.m_step_gain:.4g}")
        m[3].metric(f"L(θ_{t + 1})", f"{c.objective_after:.4f}", delta=f"+{c.total:.4g}")


def show_charts(objs, climbs, sl, t: int, e_done: bool, page: page_kit.PageContext) -> None:
    """The slice of the objective and the bound (left); the climb's bars after an E-step, else the
    objective so far (right); and the caption that reads them."""
    FS = page.fs  # chart font size (larger in classroom mode)
    c = climbs[t]
    no_bound_yet = t == 0 and not e_done
    # classroom type needs the page's width for each chart (their titles and the bars' numbers): one above the other
    left, right = (st.container(), st.container()) if page.classroom else st.columns([3, 2])
    w_left, w_right = (theme.chart_width(FS), theme.chart_width(FS)) if page.classroom else \
        (theme.chart_width(FS, 1, 3 / 5) - 8, theme.chart_width(FS, 1, 2 / 5) - 8)
    slice_fig = (figures.cached_figure(climb_charts.start_slice_figure, sl["s"], sl["objective"], FS) if no_bound_yet
                 else figures.cached_figure(climb_charts.bound_slice_figure, sl["s"], sl["objective"], sl["bound"],
                                            sl["next_bound"], t, FS, width=w_left))
    s_axis, obj_s = np.asarray(sl["s"], dtype=float), np.asarray(sl["objective"], dtype=float)
    top = int(np.nanargmax(obj_s))
    figures.show_chart(
        left, slice_fig, key="cl_slice",
        name=(f"Line chart: the objective along the straight line from θ_{t}" if no_bound_yet else
              f"Line chart: the objective and the E-step's lower bound along the line from θ_{t} to θ_{t + 1}"),
        summary=(f"Along the slice (s = {s_axis[0]:g} to {s_axis[-1]:g}) the objective goes from {obj_s[0]:.2f} "
                 f"to {obj_s[-1]:.2f} and is highest, {obj_s[top]:.2f}, at s = {s_axis[top]:.2f}"
                 + ("." if no_bound_yet else f"; the bound touches it at s = 0 ({c.objective_before:.2f}) and is highest "
                                             f"at s = 1 ({c.bound_after:.2f}).")),
        config={"displayModeBar": False})
    if e_done:
        figures.show_chart(
            right, figures.cached_figure(climb_charts.climb_bars_figure, c.objective_before, c.bound_after, c.objective_after, FS,
                                                      width=w_right), key="cl_bars",
            name=f"Bar chart: the objective at θ_{t}, the bound after the M-step and the objective at θ_{t + 1}",
            summary=(f"L(θ_{t}) = {c.objective_before:.3f} ≤ bound at θ_{t + 1} = {c.bound_after:.3f} ≤ "
                     f"L(θ_{t + 1}) = {c.objective_after:.3f}: the objective rose by "
                     f"{c.objective_after - c.objective_before:.3f}."),
            config={"displayModeBar": False})
    else:
        figures.show_chart(
            right, figures.cached_figure(climb_charts.climb_history_figure, objs, [x.bound_after for x in climbs[:t]], t, FS,
                                                                    width=w_right), key="cl_hist",
            name=f"Line chart: the objective L(θ) at iterations 0 to {t}",
            summary=(f"The objective goes from {objs[0]:.3f} at t = 0 to {objs[-1]:.3f} at t = {len(objs) - 1}"
                     + (", never falling." if all(b >= a - 1e-9 for a, b in zip(objs, objs[1:])) else
                        ", falling at least once.")),
            config={"displayModeBar": False})
    st.caption("Press **E-step**: the bound it builds touches the objective at θ_0, and the chart shows it and "
               "where the M-step will take θ." if no_bound_yet else
               "The slice: every parameter moves together along the straight line from θ_t (s = 0) to θ_{t+1} "
               "(s = 1) and beyond, as far as the parameters stay probabilities. The green bound touches the black "
               "objective at s = 0 and is highest at s = 1 — that is what the M-step computes. The dashed bound is "
               "the next E-step's: it touches at s = 1.")


def explain(climbs) -> None:
    """Why the bound is below the objective and touches it, and every iteration's numbers."""
    st.subheader("Why the bound is below, and when it touches")
    st.latex(r"\log p(x_i\mid\theta)=\log\sum_k q_{ik}\,\frac{p(x_i,k\mid\theta)}{q_{ik}}\;\ge\;"
             r"\sum_k q_{ik}\log\frac{p(x_i,k\mid\theta)}{q_{ik}}\qquad\text{(Jensen: log is concave)}")
    st.latex(r"L(\theta)-F(q,\theta)=\sum_i \mathrm{KL}\big(q_i\,\|\,p(\cdot\mid x_i,\theta)\big)\;\ge 0")
    st.markdown(
        "* **E-step**: q_i = p(y | x_i, θ_t) makes every KL term zero: the bound *touches* the objective at θ_t.\n"
        "* **M-step**: the bound F(q, θ) + log p(θ) is a weighted Naive Bayes log-likelihood; eq. 23–24 are its "
        "maximum, θ_{t+1}. The bound goes up by the **M-step gain**.\n"
        "* The objective at θ_{t+1} is the bound **plus** a KL gap ≥ 0, so "
        "L(θ_{t+1}) − L(θ_t) = gain + gap ≥ 0: EM never goes down.\n"
        "* Labelled documents have q one-hot on their class (eq. 22): they add log p(x_i, y_i) to both sides.")
    with figures.lazy_expander(st, "Every iteration so far, in numbers", key="cl_iter_table",
                               icon=":material/table:") as opened:
        if not opened:
            return
        st.dataframe(pd.DataFrame({"t → t+1": [f"{x.iteration} → {x.iteration + 1}" for x in climbs],
                                   "L(θ_t)": [x.objective_before for x in climbs],
                                   "M-step gain": [x.m_step_gain for x in climbs],
                                   "KL gap at θ_t+1": [x.gap_after for x in climbs],
                                   "L(θ_t+1)": [x.objective_after for x in climbs]}),
                     hide_index=True, width="stretch",
                     column_config={k: st.column_config.NumberColumn(format="%.6g")
                                    for k in ("L(θ_t)", "M-step gain", "KL gap at θ_t+1", "L(θ_t+1)")})


main()
