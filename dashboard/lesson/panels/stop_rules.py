"""The two stop rules: the sidebar's course-session rule ‖Δθ‖² < ε and each step's numbers for both."""
from __future__ import annotations

import math

import streamlit as st

from dashboard.lesson.session import lesson
from dashboard.ui import state, urlguard
from dashboard.ui.controls import _, page_lang
from nbcore.em import squared_change
from nblab import i18n
from nblab.frame import Frame
from nblab.i18n import N_

K_THETA_TOL, K_THETA_NORM = "theta_tol", "theta_norm"


def sidebar(classroom: bool) -> tuple[float | None, str]:
    """Sidebar: the second stop rule of the course session (‖Δθ‖² < ε) and how ‖Δθ‖² is counted."""
    if classroom:
        ss = st.session_state
        return ss.get(K_THETA_TOL), ss.get(K_THETA_NORM, "parameters")
    lang = page_lang()   # the options' labels in this run's language, whoever formats them later
    norms = {"parameters": N_("each parameter once (α, β)"),
             "both_values": N_("the course session: both values of each binary feature")}
    with st.sidebar.expander(_("Stop rules"), expanded=False):
        st.caption(_("EM stops at the first rule that holds: the relative change of the objective (the "
                     "tolerance under *Advanced*), or the course session's ‖θ_t − θ_t−1‖² < ε."))
        off = _("off")
        tol = urlguard.selectbox(st, "‖Δθ‖² < ε", key=K_THETA_TOL,
                                 format_func=lambda v: off if v is None else f"{v:.0e}")
        norm = urlguard.radio(st, _("Count ‖Δθ‖² as"), key=K_THETA_NORM,
                              format_func=lambda v: i18n.gettext(lang, norms[v]),
                              help=_("The course session sums (Δθ_{k,i,a})² over a = 0 and a = 1. For a binary "
                                     "word θ_{k,i,1} = β and θ_{k,i,0} = 1 − β change by the same amount, so the β "
                                     "part counts twice. Categorical and multinomial parameters already list every "
                                     "value."))
    return tol, norm


def apply() -> None:
    """Continue the session's run with the stop-rule widgets' settings if they changed (history kept).

    Called at the top of the lesson's fragment, so a rebuilt run (Reset, new data) gets them too."""
    lesson().set_stop_rule(st.session_state.get(K_THETA_TOL), st.session_state.get(K_THETA_NORM) or "parameters")


def step_numbers(a, b, model) -> dict:
    """Relative objective change and ‖Δθ‖² both ways for the step from snapshot ``a`` to ``b``."""
    rel = abs(b.objective - a.objective) / abs(a.objective) if a.objective not in (0.0,) and math.isfinite(
        a.objective) and math.isfinite(b.objective) else float("nan")
    return {"rel": rel,
            "parameters": squared_change(model, b.alpha, b.params, a.alpha, a.params, "parameters"),
            "both_values": squared_change(model, b.alpha, b.params, a.alpha, a.params, "both_values")}


def stop_rule_numbers(f) -> dict:
    """Relative objective change and ‖Δθ‖² both ways for the step t−1 → t (None at t = 0)."""
    if f.t == 0:
        return {}
    return step_numbers(f.run.history[f.t - 1], f.run.history[f.t], f.run.model)


#: the three numbers' labels; the first names the iteration (``label_rel``)
LABEL_PARAMETERS, LABEL_BOTH = "‖Δθ‖², each parameter once", "‖Δθ‖², the course session's sum"
#: the container the numbers are drawn in: the browser player writes the iteration it shows into it
KEY = "nbem_stop_rules"


def label_rel(t) -> str:
    return f"|ΔL| / |L| at t={t}"


def texts(run) -> dict:
    """Each step's three numbers as the panel prints them, for every iteration of ``run``: lists
    ``rel``, ``parameters``, ``both_values`` indexed by t ("—" at t = 0), and the first one's ``label``
    with ``{t}`` for the iteration. The browser player writes
    them while it plays or drags (no rerun), the panel draws them: one wording. Each step is computed
    once per pair of snapshots (a run stepped ahead or continued shares its snapshots)."""
    hist = run.history
    cache = state.get(state.STOP_TEXTS) or []
    kept, rows = [None], [("—", "—", "—")]
    for t in range(1, len(hist)):
        a, b = hist[t - 1], hist[t]
        got = cache[t] if t < len(cache) else None
        if got is None or got[0] is not a or got[1] is not b:
            n = step_numbers(a, b, run.model)
            got = (a, b, (f"{n['rel']:.2e}", f"{n['parameters']:.4g}", f"{n['both_values']:.4g}"))
        kept.append(got)
        rows.append(got[2])
    # one more entry kept: the step computed ahead for the browser (its Step then costs nothing here)
    state.put(state.STOP_TEXTS, kept + cache[len(hist):len(hist) + 1])
    return {"label": label_rel("{t}"),  # {t}: the iteration on screen (player.js fills it in)
            "rel": [r[0] for r in rows], "parameters": [r[1] for r in rows], "both_values": [r[2] for r in rows]}


def show(f: Frame) -> None:
    """The step's numbers for both stop rules, beside the rules in force."""
    if f.playing or f.t == 0:
        return
    row = texts(f.run)
    s = f.run.settings
    c1, c2, c3 = st.container(key=KEY).columns(3)
    c1.metric(label_rel(f.t), row["rel"][f.t], help=f"Stops when ≤ {s.tol:.0e} (the tolerance).")
    c2.metric(LABEL_PARAMETERS, row["parameters"][f.t],
              help="Σ(Δα)² + Σ(Δβ)²: what nbcore reports as snapshot.delta by default.")
    c3.metric(LABEL_BOTH, row["both_values"][f.t],
              help="Σ_b (Δθ_b)² + Σ_{k,i,a} (Δθ_{k,i,a})² over both values a of each binary feature.")
    rule = ("off" if s.theta_tol is None else f"< {s.theta_tol:.0e}, counted "
            + ("as the course session writes it" if s.theta_norm == "both_values" else "once per parameter"))
    st.caption(f"Stop rules in force: relative objective change ≤ {s.tol:.0e}; ‖Δθ‖² {rule} (sidebar → Stop rules).")
