"""Issue 17's panels of the lesson view: the two half-steps, every document's responsibility,
the stop rules as the notes write them, and the keyboard shortcuts. Each is one function called
with one line from ``views/lesson.py`` (panels take the lesson's ``Frame``)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import charts, lifecycle, player, state, urlguard
from nbcore.em import squared_change

K_E_STEP, K_M_STEP = "e_step", "m_step"
K_RESP_OPEN = "resp_panel_open"  # the "Every document's responsibility" expander's state
K_THETA_TOL, K_THETA_NORM = "theta_tol", "theta_norm"
THETA_TOLS = [None, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8]
SMALL = 60  # data sets up to this many documents: every responsibility in one table

#: (keys, what they do) — the buttons carry these shortcuts; the help popover lists them
SHORTCUTS = [
    ("→  or  Page Down", "Step (what a presentation clicker's “next” sends)"),
    ("P", "Play / Pause"),
    ("Home", "Reset"),
    ("E", "E-step only"),
    ("M", "M-step only"),
]


# ---- half-steps ------------------------------------------------------------------------------------

def _on_e_step() -> None:
    run = state.get(state.RUN)
    if run is None or run.done:
        return
    run.e_step()
    st.session_state[K_RESP_OPEN] = True  # what the E-step computed is in that panel
    state.put(state.VIEW_T, None)


def _on_step() -> None:
    """Page Down: the same Step as the Step button's (→)."""
    run = state.get(state.RUN)
    if run is None or run.done or state.get(state.PLAYING):
        return
    lifecycle.step(1, ahead=player.take_ahead(run))


def _on_m_step() -> None:
    run = state.get(state.RUN)
    if run is None:
        return
    try:
        run.m_step()
    except ValueError as e:  # no E-step pending: the engine explains
        state.put(state.ERROR, str(e))
    state.put(state.VIEW_T, None)


def half_steps(f) -> None:
    """E-step and M-step buttons beside Step, the state between them, and the shortcuts popover."""
    run = f.run
    pending = run.pending
    busy = f.playing or f.t != f.latest
    c1, c2, c3 = st.columns([3, 3, 5] if f.classroom else [1, 1, 4])
    # a clicker's "next" sends → (the Step button's shortcut) or Page Down: a second, invisible Step button
    st.html("<style>.st-key-step_pgdn {display: none;}</style>")  # style only: no room, no markdown chunk
    st.button("Step", key="step_pgdn", shortcut="PageDown", on_click=_on_step,
              disabled=f.playing or bool(run.done))
    c1.button("E-step", key=K_E_STEP, icon=":material/visibility:", width="stretch", shortcut="E",
              disabled=busy or pending is not None or bool(run.done), on_click=_on_e_step,
              help="First half: every hidden document's responsibilities under the current α, β (eq. 21). "
                   "The parameters do not change yet.")
    c2.button("M-step", key=K_M_STEP, icon=":material/functions:", width="stretch", shortcut="M",
              disabled=busy or pending is None, on_click=_on_m_step,
              help="Second half: new α, β from those responsibilities (eq. 23–24).")
    with c3:
        if pending is not None and not f.playing:
            st.markdown(f":material/hourglass_top: **Between the half-steps at t = {pending.iteration}:** the "
                        "responsibilities are updated (see *Every document's responsibility*), the parameters "
                        f"are still θ_{pending.iteration}. Press **M-step** (or Step) to re-estimate them.")
        else:
            shortcuts_help()


def shortcuts_help() -> None:
    with st.popover("Keyboard shortcuts", icon=":material/keyboard:"):
        st.markdown("A presentation clicker drives the lesson: its *next* button sends → or Page Down.\n\n"
                    + "\n".join(f"* **{k}** — {v}" for k, v in SHORTCUTS))
        st.caption("Shortcuts work when the focus is not in a text box.")


# ---- every document's responsibility ------------------------------------------------------------------

def _doc_summary(prep, i: int, max_items: int = 6) -> str:
    ds = prep.ds
    texts = getattr(ds, "texts", None)
    if texts is not None and i < len(texts):
        s = " ".join(str(texts[i]).split())
        return s if len(s) <= 80 else s[:79] + "…"
    X = prep.X
    row = X[i]
    row = np.asarray(row.toarray() if hasattr(row, "toarray") else row).ravel()
    names = prep.feature_names
    cats = getattr(ds, "categories", None)
    if cats:  # categorical codes
        return ", ".join(f"{names[j]}={cats[j][int(v)]}" for j, v in enumerate(row[:max_items]))
    nz = np.flatnonzero(row)
    if set(np.unique(row)) <= {0.0, 1.0}:
        words = [str(names[j]) for j in nz[:max_items]]
        return (", ".join(words) + (" …" if nz.size > max_items else "")) or "(no feature)"
    return ", ".join(f"{names[j]}={row[j]:g}" for j in nz[:max_items]) + (" …" if nz.size > max_items else "")


def current_responsibilities(f):
    """(resp (N, K) or None, which: str): the E-step at θ_t if it is pending, else the one that produced θ_t."""
    run = f.run
    if run.pending is not None and f.t == f.latest:
        return np.asarray(run.pending.resp), f"the E-step at θ_{f.t} (the M-step has not used them yet)"
    if f.t == 0:
        return None, ""
    r = run.responsibilities(f.t)
    return np.asarray(r), f"the E-step at θ_{f.t - 1}, which produced θ_{f.t}"


def responsibilities_panel(f) -> None:
    """Every document's responsibility (small data sets), or a histogram and the most uncertain documents."""
    if f.playing:
        return
    pending = f.run.pending is not None and f.t == f.latest
    box = st.expander("Every document's responsibility", key=K_RESP_OPEN, on_change="rerun",
                      icon=":material/groups:")
    with box:
        if not box.open:  # closed: nothing is built, sent or drawn (the E-step opens it)
            return
        # everything below depends on θ_t (and whether its E-step is pending) only: built once per
        # (run, t), so a λ change, a sort of the documents table or an expander costs nothing here
        got = state.memo(("resp_panel", f.t, pending, f.fs), lambda: _responsibilities_content(f))
        if got is None:
            st.info("No E-step yet: press **E-step** (or Step) to compute p(class | document) for every document.")
            return
        st.caption(f"Responsibilities r_ik = p(y_i = k | x_i) from {got['which']}. Labelled documents are one-hot "
                   "(eq. 22): EM never changes a label it was given.")
        names = got["names"]
        if got["fig"] is None:
            st.dataframe(got["table"], hide_index=True, width="stretch", column_config=_resp_columns(names))
            return
        c1, c2 = st.columns([2, 3])
        c1.plotly_chart(got["fig"], key="resp_hist", config={"displayModeBar": False})
        with c2:
            st.markdown(f"**The {got['n_rows']} most uncertain of {got['n_hidden']:,} hidden documents** "
                        f"({got['unsure']:,} have no class above 0.8)")
            st.dataframe(got["table"], hide_index=True, width="stretch", column_config=_resp_columns(names))


def _responsibilities_content(f) -> dict | None:
    """What :func:`responsibilities_panel` shows at iteration t (None before the first E-step)."""
    resp, which = current_responsibilities(f)
    if resp is None:
        return None
    if resp.shape[1] != len(f.prep.class_names):  # components per class: sum each class's components
        m = resp.shape[1] // len(f.prep.class_names)
        resp = resp.reshape(resp.shape[0], -1, m).sum(axis=2)
    names = [str(c) for c in f.prep.class_names]
    n = resp.shape[0]
    if n <= SMALL:
        return {"which": which, "names": names, "fig": None, "table": responsibility_table(f.prep, resp, range(n))}
    hidden = f.prep.y_obs < 0
    rh = resp[hidden]
    entropy = -np.sum(np.where(rh > 0, rh * np.log(np.where(rh > 0, rh, 1.0)), 0.0), axis=1)
    order = np.flatnonzero(hidden)[np.argsort(-entropy, kind="stable")][:12]
    # a plain dict spec (charts.figure): st.plotly_chart does not re-validate it on every rerun
    fig = charts.figure(responsibility_histogram_spec(rh, names, f.fs))
    return {"which": which, "names": names, "fig": fig, "table": responsibility_table(f.prep, resp, order),
            "n_rows": len(order), "n_hidden": int(hidden.sum()), "unsure": int(np.sum(rh.max(axis=1) < 0.8))}


def responsibility_histogram_spec(resp_hidden: np.ndarray, class_names, font_size: int = 16,
                                  height: int = 320) -> dict:
    """teach_charts.responsibility_histogram as a plain plotly dict (charts.py's convention: no
    go.Figure validation on the server, ~20 ms per build): one histogram per class of r_ik over the
    hidden rows in bins of 0.05; with two classes only the second (the first is its mirror image)."""
    r = np.asarray(resp_hidden, dtype=float)
    data = []
    for k, name in enumerate(class_names):
        if len(class_names) == 2 and k == 0:
            continue
        counts, edges = np.histogram(r[:, k], bins=20, range=(0.0, 1.0))
        data.append(dict(type="bar", x=((edges[:-1] + edges[1:]) / 2).tolist(), y=counts.tolist(), width=0.05 * 0.9,
                         name=f"r(· = {charts.plot_text(name)})", marker=dict(color=charts.class_color(k)), opacity=0.75))
    layout = dict(barmode="overlay", xaxis=dict(title=dict(text="responsibility r_ik"), range=[0, 1]),
                  yaxis=dict(title=dict(text="documents")))
    return charts._fig(data, layout, "Responsibilities of the hidden documents", font_size, height)


def responsibility_table(prep, resp: np.ndarray, rows) -> pd.DataFrame:
    """One row per document: its features/text, the label EM sees, the true label, r per class."""
    names = [str(c) for c in prep.class_names]
    rows = list(rows)
    out = {"doc": rows, "document": [_doc_summary(prep, i) for i in rows],
           "label EM sees": [names[prep.y_obs[i]] if prep.y_obs[i] >= 0 else "hidden" for i in rows],
           "true label": [names[prep.y_eval[i]] if prep.y_eval[i] >= 0 else "—" for i in rows]}
    for k, name in enumerate(names):
        out[f"r({name})"] = resp[rows, k]
    return pd.DataFrame(out)


def _resp_columns(names) -> dict:
    cols = {f"r({n})": st.column_config.ProgressColumn(f"r({n})", min_value=0.0, max_value=1.0, format="%.3f",
                                                       width="small")
            for n in names}
    cols["document"] = st.column_config.TextColumn("document", width="medium")
    cols["doc"] = st.column_config.NumberColumn("doc", width="small")
    return cols


# ---- stop rules -----------------------------------------------------------------------------------------

def stop_rule_controls(classroom: bool) -> tuple[float | None, str]:
    """Sidebar: the second stop rule of the course session (‖Δθ‖² < ε) and how ‖Δθ‖² is counted."""
    if classroom:
        ss = st.session_state
        return ss.get(K_THETA_TOL), ss.get(K_THETA_NORM, "parameters")
    with st.sidebar.expander("Stop rules", expanded=False):
        st.caption("EM stops at the first rule that holds: the relative change of the objective (the "
                   "tolerance under *Advanced*), or the course session's ‖θ_t − θ_t−1‖² < ε.")
        tol = urlguard.selectbox(st, "‖Δθ‖² < ε", THETA_TOLS, index=0, key=K_THETA_TOL,
                           format_func=lambda v: "off" if v is None else f"{v:.0e}")
        norm = urlguard.radio(st, "Count ‖Δθ‖² as", ["parameters", "seed003"], key=K_THETA_NORM,
                        format_func=lambda v: {"parameters": "each parameter once (α, β)",
                                               "seed003": "the course session: both values of each binary feature"}[v],
                        help="Seed 003 sums (Δθ_{k,i,a})² over a = 0 and a = 1. For a binary word "
                             "θ_{k,i,1} = β and θ_{k,i,0} = 1 − β change by the same amount, so the β part "
                             "counts twice. Categorical and multinomial parameters already list every value.")
    return tol, norm


def apply_stop_rule() -> None:
    """Continue the session's run with the stop-rule widgets' settings if they changed (history kept).

    Called at the top of the lesson's fragment, so a rebuilt run (Reset, new data) gets them too."""
    theta_tol = st.session_state.get(K_THETA_TOL)
    theta_norm = st.session_state.get(K_THETA_NORM) or "parameters"
    run = state.get(state.RUN)
    if run is None:
        return
    s = run.settings
    if s.theta_tol == theta_tol and s.theta_norm == theta_norm:
        return
    try:
        state.put(state.RUN, run.with_settings(theta_tol=theta_tol, theta_norm=theta_norm))
    except ValueError as e:
        state.put(state.ERROR, str(e))


def stop_rule_numbers(f) -> dict:
    """Relative objective change and ‖Δθ‖² both ways for the step t−1 → t (None at t = 0)."""
    if f.t == 0:
        return {}
    a, b = f.run.history[f.t - 1], f.run.history[f.t]
    rel = abs(b.objective - a.objective) / abs(a.objective) if a.objective not in (0.0,) and math.isfinite(
        a.objective) and math.isfinite(b.objective) else float("nan")
    model = f.run.model
    return {"rel": rel,
            "parameters": squared_change(model, b.alpha, b.params, a.alpha, a.params, "parameters"),
            "seed003": squared_change(model, b.alpha, b.params, a.alpha, a.params, "seed003")}


def stop_rule_panel(f) -> None:
    """The step's numbers for both stop rules, beside the rules in force."""
    if f.playing or f.t == 0:
        return
    num = stop_rule_numbers(f)
    s = f.run.settings
    c1, c2, c3 = st.columns(3)
    c1.metric(f"|ΔL| / |L| at t={f.t}", f"{num['rel']:.2e}", help=f"Stops when ≤ {s.tol:.0e} (the tolerance).")
    c2.metric("‖Δθ‖², each parameter once", f"{num['parameters']:.4g}",
              help="Σ(Δα)² + Σ(Δβ)²: what nbcore reports as snapshot.delta by default.")
    c3.metric("‖Δθ‖², the course session's sum", f"{num['seed003']:.4g}",
              help="Σ_b (Δθ_b)² + Σ_{k,i,a} (Δθ_{k,i,a})² over both values a of each binary feature.")
    rule = ("off" if s.theta_tol is None else f"< {s.theta_tol:.0e}, counted "
            + ("as the course session writes it" if s.theta_norm == "seed003" else "once per parameter"))
    st.caption(f"Stop rules in force: relative objective change ≤ {s.tol:.0e}; ‖Δθ‖² {rule} (sidebar → Stop rules).")


# ---- why EM climbs, at the iteration on screen ----------------------------------------------------------

K_CLIMB_OPEN = "climb_open"  # the lower-bound expander is open (its contents are built only then)


def climb_panel(f) -> None:
    """L(θ_t), the bound the E-step makes tight, the M-step's rise of it and the KL gap (nbcore.bound)."""
    if f.playing:
        return
    from dashboard import pages
    from nbcore import bound

    run = f.run
    # built only while open (a stateful expander: opening it reruns the live fragment); the label
    # stays the same from one iteration to the next, so the expander stays open while scrubbing
    with st.expander("Why EM climbs: the lower bound at this iteration", expanded=False, key=K_CLIMB_OPEN,
                     on_change="rerun", icon=":material/trending_up:") as box:
        if not box.open:
            return
        try:
            c = state.memo(("climb", f.t, run.smoothing, run.iteration), lambda: bound.climb(run, f.t))
        except ValueError as e:
            st.info(f"Not available for this run: {e}")
            return
        m = st.columns(4)
        m[0].metric(f"L(θ_{f.t}) = bound after the E-step", f"{c.objective_before:.4f}",
                    help="Log-likelihood + log prior of λ. With q = p(y | x, θ_t) the bound F(q, θ) touches it here.")
        m[1].metric("M-step raises the bound by", f"{c.m_step_gain:.4g}",
                    help="θ_{t+1} is the maximum of F(q_t, θ) + log p(θ) (eq. 23–24).")
        m[2].metric(f"gap at θ_{f.t + 1} (a KL divergence)", f"{c.gap_after:.4g}",
                    help="L(θ_{t+1}) − F(q_t, θ_{t+1}) = Σ_i KL(q_i ‖ p(· | x_i, θ_{t+1})) ≥ 0.")
        m[3].metric(f"L(θ_{f.t + 1})", f"{c.objective_after:.4f}", delta=f"+{c.total:.4g}")
        st.caption("L(θ_{t+1}) − L(θ_t) = M-step gain + gap, both ≥ 0: that is why EM never goes down. "
                   f"(θ_{f.t + 1} here is the M-step with the current λ = {run.smoothing:g}.)")
        hidden = min([0, 25, 50, 75, 90, 100], key=lambda v: abs(v - f.cfg.hidden_pct))
        st.page_link(pages.CLIMB.path, label="See the bound along a slice of θ", icon=":material/arrow_forward:",
                     query_params={"cl_dataset": f.cfg.dataset, "cl_hidden": str(hidden), "cl_lam": f"{f.smoothing:g}",
                                   "cl_init": f.cfg.init, "cl_seed": str(f.cfg.seed)})
