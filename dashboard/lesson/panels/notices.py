"""What the last control change did (a new run, or the run continued), the model's options note and the λ = 0 warning."""
from __future__ import annotations

import streamlit as st

import nbcore
from dashboard.lesson.session import lesson
from dashboard.ui import state
from nblab import vocabulary
from nblab.frame import Frame
from nblab.prepare import model_options


def show(f: Frame) -> None:
    """What the last control change did (new run / continued), and the λ = 0 warning."""
    notice = lesson().notice
    if notice:
        kind, text = notice
        if kind == "continued":
            st.success(text, icon=":material/trending_flat:")
        else:
            st.info(text, icon=":material/restart_alt:")
    options_note = state.memo(("options_note", f.cfg.model),
                              lambda: nbcore.get_model(f.cfg.model).options_note(model_options(f.cfg, f.prep)))
    if options_note:
        st.caption(options_note)
    if f.smoothing == 0:
        st.warning(vocabulary.WORDS["lam_zero" if f.prep.hidden.any() else "lam_zero_unscored"],
                   icon=":material/warning:")
