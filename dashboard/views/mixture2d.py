"""The 2-D picture: Gaussian Naive Bayes as a mixture of axis-aligned Gaussians; points coloured by
responsibility, ellipses moving with each half-step, editable points, and k-means beside it."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import pages
from dashboard.charts import mixture2d as mixture2d_charts
from dashboard.pagekit import figures, page_kit
from dashboard.ui import page_state, stepper, urlguard
from nbcore import mixture2d

NAMES = ["A", "B"]
SUBTITLE = ("Two continuous features: Gaussian Naive Bayes is a mixture of axis-aligned Gaussians. "
            "Every point is coloured by its responsibilities; the ellipses are each class's 1σ and 2σ.")
T_MAX = 200
TOOLBAR = stepper.Labels(
    e_help="Compute every point's responsibilities under the current ellipses (colours change, ellipses don't).",
    m_help="Move every class's mean, variances and α to the responsibility-weighted averages.",
    m_icon=":material/open_with:", step_help="E-step and M-step together.", many=10)


def main() -> None:
    page = page_kit.page_setup(pages.MIXTURE2D, SUBTITLE)
    preset, seed, init, show_km = sidebar()
    X, y_obs, y_true = edited_points(preset, seed)
    # the run: iteration t and whether the E-step at θ_t is done (kept per data set)
    run = page_state.for_config("mx_run", page_state.HalfSteps, (preset, seed, X.tobytes(), y_obs.tobytes(), init))
    phase_box = stepper.toolbar("mx", run, TOOLBAR, page.classroom)
    state = em_state(X, y_obs, run, init, seed)
    phase_box.markdown(f"**t = {run.t}** · {phase_text(run)}")
    cols = st.columns(2) if show_km else [st.container()]
    axis_range = padded_range(X)
    show_em_chart(cols[0], X, y_obs, state, run, axis_range, page.fs)
    assign = show_kmeans_chart(cols[1], X, y_obs, init, seed, run.t, axis_range, page.fs) if show_km else None
    show_metrics(state, y_obs, y_true, assign, page.classroom)
    explain(state)


def sidebar():
    """The preset, its seed, EM's start and whether k-means is drawn beside it."""
    sb = st.sidebar
    preset = urlguard.selectbox(sb, "Preset", key="mx_preset")
    seed = int(urlguard.number_input(sb, "Seed", key="mx_seed"))
    init = urlguard.radio(sb, "Start from", key="mx_init",
                          format_func=lambda v: {"labeled": "the labelled points", "random": "random points (seeded)"}[v])
    show_km = urlguard.toggle(sb, "Compare with k-means", key="mx_kmeans")
    sb.caption(mixture2d.PRESETS[preset][0])
    return preset, seed, init, show_km


def edited_points(preset: str, seed: int):
    """The preset's points as the student edited them: (X (n, 2), visible labels, true classes), -1 for none.
    Stops the page while fewer than 3 points are complete."""
    X0, y_true0, y_obs0 = mixture2d.preset(preset, seed)
    base = pd.DataFrame({"x1": X0[:, 0].round(2), "x2": X0[:, 1].round(2),
                         "label": [NAMES[k] if k >= 0 else "" for k in y_obs0],
                         "true class": [NAMES[k] for k in y_true0]})
    # the editor is drawn only while its expander is open (a closed one costs the page nothing); the points
    # as edited are kept for the runs in between, and a reopened editor starts from them
    points = page_state.for_config("mx_points", page_state.EditedPoints, (preset, seed))
    current = base if points.frame is None else points.frame
    with figures.lazy_expander(st, "Edit the points: add a row, change x₁ / x₂ to move a point, give or remove a label",
                               key="mx_points_open", icon=":material/edit:") as opened:
        if opened:
            if not points.was_open:
                points.start, points.opened = current, points.opened + 1
            st.caption("Leave **label** empty for a hidden label (EM must guess it). New rows without a true class are "
                       "not scored. Changing the preset or the seed starts again from its points.")
            points.frame = st.data_editor(
                points.start, key=f"mx_points_{preset}_{seed}_{points.opened}", num_rows="dynamic", hide_index=True,
                width="stretch",
                column_config={"x1": st.column_config.NumberColumn("x₁", format="%.2f", required=True),
                               "x2": st.column_config.NumberColumn("x₂", format="%.2f", required=True),
                               "label": st.column_config.SelectboxColumn("label (visible to EM)", options=["", *NAMES]),
                               "true class": st.column_config.SelectboxColumn("true class", options=NAMES)})
        points.was_open = opened
    edited = current if points.frame is None else points.frame
    pts = edited.dropna(subset=["x1", "x2"])
    dropped = len(edited) - len(pts)
    if dropped:
        st.info(f"{dropped} row(s) without both coordinates are left out until you fill them in.")
    if len(pts) < 3:
        st.error("EM needs at least 3 points: add some rows in “Edit the points”. (The preset's points are back "
                 "if you change the preset or the seed.)")
        st.stop()
    X = pts[["x1", "x2"]].to_numpy(dtype=float)
    label_col = pts["label"].fillna("").astype(str)
    y_obs = np.array([NAMES.index(v) if v in NAMES else -1 for v in label_col])
    truth_col = pts["true class"].fillna("").astype(str)
    y_true = np.array([NAMES.index(v) if v in NAMES else -1 for v in truth_col])
    return X, y_obs, y_true


def em_state(X, y_obs, run: page_state.HalfSteps, init: str, seed: int):
    """EM's parameters and responsibilities at the run's half-step; a message and a stopped page if EM can't run."""
    t, e_done = run.t, run.e_done
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = mixture2d.half_step_state(X, y_obs, 2, t, e_done, init=init, seed=seed)
    except ValueError as e:
        st.error(f"EM can't run on these points: {e}")
        st.stop()
    return state


def phase_text(run: page_state.HalfSteps) -> str:
    """What the last half-step did, and what comes next."""
    return ("E-step done: colours are p(class | x) under these ellipses; press **M-step** to move them" if run.e_done
            else "ready: press **E-step** (or Step)" if run.t == 0 else
            "M-step done: the ellipses moved; the colours are still the responsibilities that moved them")


def padded_range(X):
    """Both charts' axis ranges: the points' extent with a margin."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.15 * np.maximum(hi - lo, 1.0)
    return ((lo[0] - pad[0], hi[0] + pad[0]), (lo[1] - pad[1], hi[1] + pad[1]))


def show_em_chart(box, X, y_obs, state, run: page_state.HalfSteps, axis_range, FS: int) -> None:
    """The points coloured by their responsibilities, with each class's ellipses."""
    t, e_done = run.t, run.e_done
    labelled = y_obs >= 0
    resp = state.resp
    if resp is None:  # nothing computed yet: labelled points in their class colour, hidden ones neutral
        resp = np.where(labelled[:, None], np.eye(2)[np.maximum(y_obs, 0)], 0.5)
    mean = np.asarray(state.mean, dtype=float)   # (2 features, 2 classes)
    figures.show_chart(
        box, figures.cached_figure(mixture2d_charts.mixture2d_figure, X, resp, labelled, state.mean, state.var, NAMES, FS,
                                   prev_mean=state.prev_mean if not e_done else None, axis_range=axis_range,
                                   title=f"EM: soft responsibilities (t = {t})"),
        key="mx_fig", name=f"Scatter plot: {len(X)} points coloured by EM's responsibility, with each class's Gaussian at t = {t}",
        summary=(f"{len(X)} points ({int(labelled.sum())} labelled); {int(np.sum(np.asarray(resp)[:, 0] >= 0.5))} lean to "
                 f"class A. Class means: " + "; ".join(f"{n} at ({mean[0, k]:.2f}, {mean[1, k]:.2f})"
                                                        for k, n in enumerate(NAMES)) + "."),
        config={"displayModeBar": False})


def show_kmeans_chart(box, X, y_obs, init: str, seed: int, t: int, axis_range, FS: int):
    """k-means from EM's start, t rounds on: the points' clusters and the centres. Returns the clusters."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = mixture2d.half_step_state(X, y_obs, 2, 0, False, init=init, seed=seed)
        assign, centres = mixture2d.kmeans_state(X, start.mean.T, t)
    cen = np.asarray(centres, dtype=float)
    cen = cen if cen.shape[0] == len(NAMES) else cen.T   # one row per cluster
    figures.show_chart(
        box, figures.cached_figure(mixture2d_charts.kmeans2d_figure, X, assign, centres, NAMES, FS, axis_range=axis_range,
                                   title=f"k-means, same start: hard (t = {t})"),
        key="mx_km", name=f"Scatter plot: the same points assigned by k-means at t = {t}",
        summary=(f"k-means puts {int(np.sum(np.asarray(assign) == 0))} points in A and "
                 f"{int(np.sum(np.asarray(assign) == 1))} in B; centres: "
                 + "; ".join(f"{n} at ({cen[k, 0]:.2f}, {cen[k, 1]:.2f})" for k, n in enumerate(NAMES)) + "."),
        config={"displayModeBar": False})
    return assign


def show_metrics(state, y_obs, y_true, assign, classroom: bool) -> None:
    """The log-likelihood, α, and EM's (and k-means') accuracy on the hidden points that have a true class."""
    labelled = y_obs >= 0
    hidden_scored = (y_true >= 0) & ~labelled
    pred = state.resp.argmax(axis=1) if state.resp is not None else None
    # two rows, so that each metric has the room its label needs ("Unsure points (0.2 < r < 0.8)", "k-means accuracy (hidden)"):
    # a metric label longer than its column is cut with an ellipsis
    m = [*st.columns(3), *st.columns(3)] if classroom else [*st.columns(3), *st.columns(2)]
    m[0].metric("log-likelihood of θ_t", f"{state.log_likelihood:.3f}")
    m[1].metric("α (A, B)", f"{state.alpha[0]:.2f}, {state.alpha[1]:.2f}")
    if pred is not None and hidden_scored.any():
        acc = float(np.mean(pred[hidden_scored] == y_true[hidden_scored]))
        if not labelled.any():  # no names without labels: match clusters to classes
            acc = max(acc, 1.0 - acc)
        m[2].metric("EM accuracy (hidden)", f"{acc:.1%}")
        unsure = int(np.sum(np.abs(state.resp[~labelled, 0] - 0.5) < 0.3))
        m[3].metric("Unsure points (0.2 < r < 0.8)", unsure)
    if assign is not None and hidden_scored.any():
        km_acc = float(np.mean(assign[hidden_scored] == y_true[hidden_scored]))
        if not labelled.any():
            km_acc = max(km_acc, 1.0 - km_acc)
        m[4].metric("k-means accuracy (hidden)", f"{km_acc:.1%}",
                    help="k-means ignores the labels and gives every point one cluster; its clusters are named by the "
                         "starting centres.")


def explain(state) -> None:
    """The parameters, soft vs hard, and the E- and M-step's formulas."""
    params = pd.DataFrame({"class": NAMES, "α": state.alpha, "μ₁": state.mean[0], "μ₂": state.mean[1],
                           "σ₁²": state.var[0], "σ₂²": state.var[1]})
    figures.show_light_table(st, params,
                             column_config={c: st.column_config.NumberColumn(format="%.3f") for c in params.columns[1:]})
    st.markdown(
        "**Soft vs hard.** EM gives a point in the overlap *part* of each class (its colour is a mix) and every point "
        "pulls on every ellipse in proportion; k-means gives each point wholly to the nearest centre and draws only "
        "circles (one shared spread). With unequal sizes or stretched clouds the two disagree: EM's ellipses learn "
        "each class's own σ² per feature and its α. Gaussian **Naive** Bayes means the ellipses stay axis-aligned: "
        "within a class, x₁ and x₂ are independent.")
    st.latex(r"r_{ik}=\frac{\alpha_k\,\mathcal N(x_{i1};\mu_{1k},\sigma^2_{1k})\,\mathcal N(x_{i2};\mu_{2k},\sigma^2_{2k})}"
             r"{\sum_c \alpha_c\,\mathcal N(x_{i1};\mu_{1c},\sigma^2_{1c})\,\mathcal N(x_{i2};\mu_{2c},\sigma^2_{2c})}")
    st.latex(r"\mu_{jk}=\frac{\sum_i r_{ik}x_{ij}}{\sum_i r_{ik}},\qquad "
             r"\sigma^2_{jk}=\frac{\sum_i r_{ik}(x_{ij}-\mu_{jk})^2}{\sum_i r_{ik}},\qquad \alpha_k=\frac1N\sum_i r_{ik}")


main()
