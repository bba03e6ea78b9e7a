"""The symmetric trap (the note on the uniform start): uniform start, no labels -> EM never moves."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import theme
from dashboard.charts import trap as trap_charts
from dashboard.pagekit import figures, page_kit
from dashboard.ui import page_state, urlguard

SUBTITLE = ("Start every class at the same place with no labels, and EM has no reason to ever "
            "tell them apart (the note on the uniform start).")


def main() -> None:
    page = page_kit.page_setup(pages.TRAP, SUBTITLE)
    dataset, model, start, n_labels, seed, smoothing = sidebar()
    prep = page_kit.prepare(dataset, model, 100, seed)  # every label hidden ...
    y_obs, n_labels = revealed_labels(prep, n_labels, seed)
    state = page_state.for_config("trap", page_state.SteppedRun, (dataset, model, start, n_labels, int(seed), float(smoothing)))
    if state.run is None:
        em = nbcore.EM(model=model, n_classes=prep.n_classes, smoothing=smoothing, init=start, max_iter=200, tol=1e-9,
                       random_state=seed)
        state.run = em.start(prep.X, y_obs)
    toolbar(state)
    run = state.run
    proba = np.asarray(run.predict_proba())          # the E-step at the current parameters
    hidden = y_obs < 0
    dev = float(np.max(np.abs(proba[hidden] - 1.0 / prep.n_classes))) if hidden.any() else float("nan")
    spreads = [class_spread(s) for s in run.history]
    show_metrics(run, dev, spreads)
    verdict(run.current.iteration, dev, spreads, prep.n_classes)
    explain()
    show_charts(prep, run, proba, hidden, spreads, page)
    if start == "uniform" and n_labels == 0:
        st.info("**Break it:** choose the *random* initialisation in the sidebar, or reveal 1–2 labels, "
                "then press Step again.")
    first_documents(prep, proba, y_obs)


def sidebar():
    """The data set, event model, start, labels revealed, seed and λ."""
    sb = st.sidebar
    dataset, model = page_kit.data_and_model("trap")
    # bound widgets put the option itself in the URL (?trap_start=random): plain options, explanations as captions
    start = urlguard.radio(sb, "Initialisation", key="trap_start",
                           captions=["α = 1/K, β = ½: the trap", "seeded random α, β: breaks it"])
    n_labels = urlguard.slider(sb, "Labels revealed", key="trap_labels",
                               help="Show EM the true label of this many documents (chosen at random by the seed).")
    seed = urlguard.number_input(sb, "Seed", key="trap_seed")
    smoothing = page_kit.lam_picker("trap_lam")
    return dataset, model, start, n_labels, seed, smoothing


def revealed_labels(prep, n_labels: int, seed: int):
    """The labels EM sees: every one hidden (-1) except ``n_labels`` picked by the seed (one true label
    at least stays hidden). Returns (labels, how many are shown)."""
    y_obs = np.full(prep.X.shape[0], -1)
    known = np.flatnonzero(prep.y_eval >= 0)
    n_labels = min(int(n_labels), max(0, len(known) - 1))
    if n_labels:
        chosen = np.random.default_rng(seed).permutation(known)[:n_labels]  # ... except these
        y_obs[chosen] = prep.y_eval[chosen]
    return y_obs, n_labels


def toolbar(state: page_state.SteppedRun) -> None:
    """Step, 10 steps and Reset (callbacks run before the script: the page draws the run they changed)."""
    done = state.run.done
    b1, b2, b3, _ = st.columns([1, 1, 1, 2])
    b1.button("Step", icon=":material/skip_next:", key="trap_step", on_click=state.step, args=(1,), width="stretch", disabled=done)
    b2.button("10 steps", icon=":material/fast_forward:", key="trap_step10", on_click=state.step, args=(10,), width="stretch",
              disabled=done)
    b3.button("Reset", icon=":material/replay:", key="trap_reset", on_click=state.reset, width="stretch")


def class_spread(s) -> float:
    """The largest difference in β between two classes, over the features."""
    b = np.asarray(s.beta, dtype=float)
    return float(np.max(b.max(axis=1) - b.min(axis=1))) if b.size else 0.0


def show_metrics(run, dev: float, spreads: list[float]) -> None:
    """The iteration, how far the responsibilities and the classes are from the symmetric point, and α."""
    snap = run.current
    # the two long metric labels get the room they need (a label longer than its column is cut with an ellipsis)
    m1, m2, m3, m4 = st.columns([2, 4, 4, 4])
    m1.metric("Iteration", snap.iteration)
    m2.metric("max |p(y | x) − 1/K| (hidden docs)", f"{dev:.6f}",
              help="0 means every hidden document is split exactly 1/K to each class.")
    m3.metric("max β difference between classes", f"{spreads[-1]:.6f}")
    m4.metric("α", " / ".join(f"{a:.3f}" for a in snap.alpha))


def verdict(t: int, dev: float, spreads: list[float], K: int) -> None:
    """Whether EM is at the symmetric point, stuck there, or has left it."""
    stuck = dev < 1e-12 and spreads[-1] < 1e-12
    if stuck and t == 0:
        st.info(f"**The symmetric start.** Every hidden document has responsibility exactly 1/K = {1 / K:.3g} for each "
                "class and every class has the same β. Press **Step** and see whether EM moves.")
    elif stuck:
        st.error(f"**Stuck at the symmetric point.** After {t} iteration{'s' if t != 1 else ''} every hidden "
                 f"document still has responsibility exactly 1/K = {1 / K:.3g} for each class, and every class "
                 "has the same β.")
    elif t > 0:
        st.success(f"**The symmetry is broken**: the classes differ by up to {spreads[-1]:.3f} in β, "
                   f"and responsibilities are up to {dev:.3f} away from 1/K.")


def explain() -> None:
    """Why EM never leaves the symmetric point."""
    st.markdown(
        "**Why it never moves.** With α = 1/K and β = ½ for every class, every class gives every document the "
        "same probability, p(x | k) = ½ᵛ, so the E-step (eq. 18) splits each document equally: "
        "p(y = k | x) = 1/K. The M-step (eq. 19–20) then counts each document 1/K times in *every* class, so every "
        "class gets exactly the same β again — the overall word frequencies — and α stays 1/K. Identical classes "
        "give identical responsibilities give identical classes: the symmetric point is a fixed point of EM "
        "(a saddle of the likelihood), and EM, which only follows the local slope, has no reason to leave it. "
        "Anything that makes the classes differ — a random start, or a handful of labelled documents whose "
        "one-hot responsibilities (eq. 22) pull the classes apart — lets EM climb away.")


def show_charts(prep, run, proba, hidden, spreads: list[float], page: page_kit.PageContext) -> None:
    """The hidden documents' responsibilities, β per class now, and the classes' spread over the iterations."""
    FS = page.fs  # chart font size (larger in classroom mode)
    t = run.current.iteration
    if page.classroom:  # classroom: two charts per row, or their titles run off the charts
        (c1, c2), (c3, _) = st.columns(2), st.columns(2)
        width = theme.chart_width(FS, 2)
    else:
        c1, c2, c3 = st.columns(3)
        width = theme.chart_width(FS, 3)  # titles and axis titles are wrapped for this width
    if hidden.any():
        ph = np.asarray(proba[hidden], dtype=float)
        figures.show_chart(
            c1, figures.cached_figure(trap_charts.resp_histogram_figure, proba[hidden], prep.class_names, FS, width=width), key="trap_resp",
            name="Histogram: p(class | document) over the hidden documents, one colour per class",
            summary=f"Over the {len(ph):,} hidden documents, p(class | document) ranges from {ph.min():.3f} to "
                    f"{ph.max():.3f}; " + ("every one is ½: no document leans to either class."
                                           if np.ptp(ph) < 1e-9 else
                                           f"{int(np.sum(ph.max(axis=1) > 0.8)):,} have a class above 0.8."),
            config={"displayModeBar": False})
    beta_now = np.asarray(run.current.beta, dtype=float)
    figures.show_chart(
        c2, figures.cached_figure(trap_charts.beta_profiles_figure, beta_now, prep.feature_names, prep.class_names, FS, width=width),
        key="trap_beta", name="Line chart: β of each feature, one line per class",
        summary=f"β per feature at t = {t}: the classes' lines differ by at most {spreads[-1]:.3g}"
                + (" (identical lines: the symmetric point)." if spreads[-1] < 1e-12 else "."),
        config={"displayModeBar": False})
    figures.show_chart(
        c3, figures.cached_figure(trap_charts.spread_figure, spreads, FS, width=width), key="trap_spread",
        name="Line chart: the largest β difference between classes over the iterations",
        summary=f"The largest β difference between two classes goes from {spreads[0]:.3g} at t = 0 to "
                f"{spreads[-1]:.3g} at t = {len(spreads) - 1}.",
        config={"displayModeBar": False})


def first_documents(prep, proba, y_obs) -> None:
    """A table of the first documents' responsibilities and the label EM sees."""
    with figures.lazy_expander(st, "Responsibilities of the first documents", key="trap_docs_table") as opened:
        if not opened:
            return
        rows = min(prep.X.shape[0], 12)
        df = pd.DataFrame(proba[:rows], columns=[f"p({c} | x)" for c in prep.class_names])
        df.insert(0, "label seen by EM", [prep.class_names[v] if v >= 0 else "hidden" for v in y_obs[:rows]])
        st.dataframe(df, width="stretch")


main()
