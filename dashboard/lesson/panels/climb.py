"""Why EM climbs: the lower bound, the M-step's gain and the KL gap at the iteration shown."""
from __future__ import annotations

import streamlit as st

from dashboard.ui import state
from nblab.frame import Frame

K_CLIMB_OPEN = "climb_open"  # the lower-bound expander is open (its contents are built only then)


def show(f: Frame) -> None:
    """L(θ_t), the bound the E-step makes tight, the M-step's rise of it and the KL gap (nbcore.bound)."""
    if f.playing:
        return
    from dashboard import pages
    from dashboard.ui import controls
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
                     query_params=controls.carry({"cl_dataset": f.cfg.dataset, "cl_hidden": str(hidden),
                                               "cl_lam": f"{f.smoothing:g}", "cl_init": f.cfg.init,
                                               "cl_seed": str(f.cfg.seed)}))
