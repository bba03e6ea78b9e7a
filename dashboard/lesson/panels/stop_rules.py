"""The two stop rules: the sidebar's course-session rule ‖Δθ‖² < ε and each step's numbers for both."""
from __future__ import annotations

import math

import streamlit as st

from nblab.frame import Frame
from dashboard.lesson.session import lesson
from dashboard.ui import urlguard
from nbcore.em import squared_change


K_THETA_TOL, K_THETA_NORM = "theta_tol", "theta_norm"


THETA_TOLS = [None, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8]


def sidebar(classroom: bool) -> tuple[float | None, str]:
    """Sidebar: the second stop rule of the course session (‖Δθ‖² < ε) and how ‖Δθ‖² is counted."""
    if classroom:
        ss = st.session_state
        return ss.get(K_THETA_TOL), ss.get(K_THETA_NORM, "parameters")
    with st.sidebar.expander("Stop rules", expanded=False):
        st.caption("EM stops at the first rule that holds: the relative change of the objective (the "
                   "tolerance under *Advanced*), or the course session's ‖θ_t − θ_t−1‖² < ε.")
        tol = urlguard.selectbox(st, "‖Δθ‖² < ε", THETA_TOLS, index=0, key=K_THETA_TOL,
                           format_func=lambda v: "off" if v is None else f"{v:.0e}")
        norm = urlguard.radio(st, "Count ‖Δθ‖² as", ["parameters", "both_values"], key=K_THETA_NORM,
                        format_func=lambda v: {"parameters": "each parameter once (α, β)",
                                               "both_values": "the course session: both values of each binary feature"}[v],
                        help="The course session sums (Δθ_{k,i,a})² over a = 0 and a = 1. For a binary word "
                             "θ_{k,i,1} = β and θ_{k,i,0} = 1 − β change by the same amount, so the β part "
                             "counts twice. Categorical and multinomial parameters already list every value.")
    return tol, norm


def apply() -> None:
    """Continue the session's run with the stop-rule widgets' settings if they changed (history kept).

    Called at the top of the lesson's fragment, so a rebuilt run (Reset, new data) gets them too."""
    lesson().set_stop_rule(st.session_state.get(K_THETA_TOL), st.session_state.get(K_THETA_NORM) or "parameters")


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
            "both_values": squared_change(model, b.alpha, b.params, a.alpha, a.params, "both_values")}


def show(f: Frame) -> None:
    """The step's numbers for both stop rules, beside the rules in force."""
    if f.playing or f.t == 0:
        return
    num = stop_rule_numbers(f)
    s = f.run.settings
    c1, c2, c3 = st.columns(3)
    c1.metric(f"|ΔL| / |L| at t={f.t}", f"{num['rel']:.2e}", help=f"Stops when ≤ {s.tol:.0e} (the tolerance).")
    c2.metric("‖Δθ‖², each parameter once", f"{num['parameters']:.4g}",
              help="Σ(Δα)² + Σ(Δβ)²: what nbcore reports as snapshot.delta by default.")
    c3.metric("‖Δθ‖², the course session's sum", f"{num['both_values']:.4g}",
              help="Σ_b (Δθ_b)² + Σ_{k,i,a} (Δθ_{k,i,a})² over both values a of each binary feature.")
    rule = ("off" if s.theta_tol is None else f"< {s.theta_tol:.0e}, counted "
            + ("as the course session writes it" if s.theta_norm == "both_values" else "once per parameter"))
    st.caption(f"Stop rules in force: relative objective change ≤ {s.tol:.0e}; ‖Δθ‖² {rule} (sidebar → Stop rules).")
