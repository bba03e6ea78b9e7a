"""The symmetric trap (the note on the uniform start): uniform start, no labels -> EM never moves."""
from __future__ import annotations

import warnings

import numpy as np
import streamlit as st

import nbcore
from dashboard.charts import theme
from dashboard.charts import trap as trap_charts
from dashboard import pages
from dashboard.ui import figures, page_kit, urlguard

PAGE = page_kit.page_setup(pages.TRAP,
                         "Start every class at the same place with no labels, and EM has no reason to ever "
                         "tell them apart (the note on the uniform start).")
FS = PAGE.fs  # chart font size (larger in classroom mode)

sb = st.sidebar
dataset = page_kit.dataset_picker("trap_dataset", "abcd", models=("bernoulli", "multinomial"))
model = page_kit.model_picker("trap_model", dataset)
# bound widgets put the option itself in the URL (?trap_start=random): plain options, explanations as captions
start = urlguard.radio(sb, "Initialisation", ["uniform", "random"], key="trap_start",
                 captions=["α = 1/K, β = ½: the trap", "seeded random α, β: breaks it"])
n_labels = urlguard.slider(sb, "Labels revealed", 0, 10, 0, key="trap_labels",
                     help="Show EM the true label of this many documents (chosen at random by the seed).")
seed = urlguard.number_input(sb, "Seed", 0, 9999, 0, key="trap_seed")
smoothing = page_kit.lam_picker("trap_lam", 1.0)

prep = page_kit.prepare(dataset, model, 100, seed)  # every label hidden ...
N, K = prep.X.shape[0], prep.n_classes
y_obs = np.full(N, -1)
known = np.flatnonzero(prep.y_eval >= 0)
n_labels = min(int(n_labels), max(0, len(known) - 1))
if n_labels:
    chosen = np.random.default_rng(seed).permutation(known)[:n_labels]  # ... except these
    y_obs[chosen] = prep.y_eval[chosen]
hidden = y_obs < 0

key = (dataset, model, start, n_labels, int(seed), float(smoothing))
if st.session_state.get("trap_key") != key or st.session_state.get("trap_run") is None:
    em = nbcore.EM(model=model, n_classes=K, smoothing=smoothing, init=start, max_iter=200, tol=1e-9, random_state=seed)
    st.session_state["trap_run"] = em.start(prep.X, y_obs)
    st.session_state["trap_key"] = key
run = st.session_state["trap_run"]


def _step(n):
    r = st.session_state["trap_run"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n):
            if r.done:
                break
            r.step()


def _reset():
    st.session_state["trap_run"] = None


b1, b2, b3, _ = st.columns([1, 1, 1, 2])
b1.button("Step", icon=":material/skip_next:", key="trap_step", on_click=_step, args=(1,), width="stretch", disabled=run.done)
b2.button("10 steps", icon=":material/fast_forward:", key="trap_step10", on_click=_step, args=(10,), width="stretch", disabled=run.done)
b3.button("Reset", icon=":material/replay:", key="trap_reset", on_click=_reset, width="stretch")  # callbacks run before the script

snap = run.current
t = snap.iteration
proba = np.asarray(run.predict_proba())          # the E-step at the current parameters
dev = float(np.max(np.abs(proba[hidden] - 1.0 / K))) if hidden.any() else float("nan")


def class_spread(s) -> float:
    b = np.asarray(s.beta, dtype=float)
    return float(np.max(b.max(axis=1) - b.min(axis=1))) if b.size else 0.0


spreads = [class_spread(s) for s in run.history]
stuck = dev < 1e-12 and spreads[-1] < 1e-12

# the two long metric labels get the room they need (a label longer than its column is cut with an ellipsis)
m1, m2, m3, m4 = st.columns([2, 4, 4, 4])
m1.metric("Iteration", t)
m2.metric("max |p(y | x) − 1/K| (hidden docs)", f"{dev:.6f}",
          help="0 means every hidden document is split exactly 1/K to each class.")
m3.metric("max β difference between classes", f"{spreads[-1]:.6f}")
m4.metric("α", " / ".join(f"{a:.3f}" for a in snap.alpha))

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

st.markdown(
    "**Why it never moves.** With α = 1/K and β = ½ for every class, every class gives every document the "
    "same probability, p(x | k) = ½ᵛ, so the E-step (eq. 18) splits each document equally: "
    "p(y = k | x) = 1/K. The M-step (eq. 19–20) then counts each document 1/K times in *every* class, so every "
    "class gets exactly the same β again — the overall word frequencies — and α stays 1/K. Identical classes "
    "give identical responsibilities give identical classes: the symmetric point is a fixed point of EM "
    "(a saddle of the likelihood), and EM, which only follows the local slope, has no reason to leave it. "
    "Anything that makes the classes differ — a random start, or a handful of labelled documents whose "
    "one-hot responsibilities (eq. 22) pull the classes apart — lets EM climb away.")

if PAGE.classroom:  # classroom: two charts per row, or their titles run off the charts
    (c1, c2), (c3, _) = st.columns(2), st.columns(2)
    width = theme.chart_width(FS, 2)
else:
    c1, c2, c3 = st.columns(3)
    width = theme.chart_width(FS, 3)  # titles and axis titles are wrapped for this width
if hidden.any():
    ph = np.asarray(proba[hidden], dtype=float)
    figures.show_chart(
        c1, trap_charts.resp_histogram_figure(proba[hidden], prep.class_names, FS, width=width), key="trap_resp",
        name="Histogram: p(class | document) over the hidden documents, one colour per class",
        summary=f"Over the {len(ph):,} hidden documents, p(class | document) ranges from {ph.min():.3f} to "
                f"{ph.max():.3f}; " + ("every one is ½: no document leans to either class."
                                       if np.ptp(ph) < 1e-9 else
                                       f"{int(np.sum(ph.max(axis=1) > 0.8)):,} have a class above 0.8."),
        config={"displayModeBar": False})
beta_now = np.asarray(snap.beta, dtype=float)
figures.show_chart(
    c2, trap_charts.beta_profiles_figure(beta_now, prep.feature_names, prep.class_names, FS, width=width),
    key="trap_beta", name="Line chart: β of each feature, one line per class",
    summary=f"β per feature at t = {t}: the classes' lines differ by at most {spreads[-1]:.3g}"
            + (" (identical lines: the symmetric point)." if spreads[-1] < 1e-12 else "."),
    config={"displayModeBar": False})
figures.show_chart(
    c3, trap_charts.spread_figure(spreads, FS, width=width), key="trap_spread",
    name="Line chart: the largest β difference between classes over the iterations",
    summary=f"The largest β difference between two classes goes from {spreads[0]:.3g} at t = 0 to "
            f"{spreads[-1]:.3g} at t = {len(spreads) - 1}.",
    config={"displayModeBar": False})

if start == "uniform" and n_labels == 0:
    st.info("**Break it:** choose the *random* initialisation in the sidebar, or reveal 1–2 labels, "
            "then press Step again.")
with st.expander("Responsibilities of the first documents"):
    import pandas as pd
    rows = min(N, 12)
    df = pd.DataFrame(proba[:rows], columns=[f"p({c} | x)" for c in prep.class_names])
    df.insert(0, "label seen by EM", [prep.class_names[v] if v >= 0 else "hidden" for v in y_obs[:rows]])
    st.dataframe(df, width="stretch")
