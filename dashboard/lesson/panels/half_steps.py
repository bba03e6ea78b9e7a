"""The E-step and M-step buttons, the state between them, and the keyboard shortcuts."""
from __future__ import annotations

import streamlit as st

from dashboard.lesson import session
from dashboard.lesson.panels.responsibilities import K_RESP_OPEN
from dashboard.lesson.session import lesson
from nblab.frame import Frame

K_E_STEP, K_M_STEP = "e_step", "m_step"


#: (keys, what they do) — the buttons carry these shortcuts; the help popover lists them
SHORTCUTS = [
    ("→  or  Page Down", "Step (what a presentation clicker's “next” sends)"),
    ("P", "Play / Pause"),
    ("Home", "Reset"),
    ("E", "E-step only"),
    ("M", "M-step only"),
]


def _on_e_step() -> None:
    if lesson().e_step():
        st.session_state[K_RESP_OPEN] = True  # what the E-step computed is in that panel


def _on_m_step() -> None:
    lesson().m_step()


def show(f: Frame) -> None:
    """E-step and M-step buttons beside Step, the state between them, and the shortcuts popover."""
    run = f.run
    pending = run.pending
    busy = f.playing or f.t != f.latest
    c1, c2, c3 = st.columns([3, 3, 5] if f.classroom else [1, 1, 4])
    # a clicker's "next" sends → (the Step button's shortcut) or Page Down: a second, invisible Step button
    st.html("<style>.st-key-step_pgdn {display: none;}</style>")  # style only: no room, no markdown chunk
    st.button("Step", key="step_pgdn", shortcut="PageDown", on_click=session.on_step,  # Page Down: the Step button's Step (→)
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
