"""Which event model suits a teacher's own text, with the other one a click away."""
from __future__ import annotations

import streamlit as st

from dashboard.serve import heavy_work, offload
from dashboard.ui import controls, state, text_controls
from nblab import advice
from nblab.frame import Frame


def _use(model: str, counts: bool) -> None:
    """Switch the event model and the text's counting together (before the rerun, as the counts radio does)."""
    st.session_state[controls.K_MODEL] = model
    st.session_state[text_controls.K_COUNTS] = "counts" if counts else "presence"


def advice_for(f: Frame):
    """The advice for the run's data (memoised per data settings apart from the model)."""
    cfg = f.cfg
    key = ("model_advice", cfg.dataset, cfg.upload_id, cfg.hidden_pct, cfg.seed, cfg.model,
           None if cfg.text is None else cfg.text.describe())

    def compute():
        # scoring both event models re-vectorises the whole text: heavy work, so it takes one of the
        # server's heavy-work slots like an upload's parsing does (a class's Steps never wait behind it)
        with heavy_work.heavy("Comparing the two event models on your data …"):
            return offload.run(advice.model_advice, f.prep.ds, f.prep.y_obs, cfg.model)   # in a worker process
    return state.memo(key, compute)


def show(f: Frame) -> None:
    """For the session's own text (an upload or a shared file): both event models scored on the labelled
    documents, which suits the data and why, and a button for the other one."""
    if f.cfg.dataset not in controls.USER_DATA or not getattr(f.prep.ds, "is_text", False):
        return
    try:
        adv = advice_for(f)
    except ValueError:
        return
    if adv is None:
        return
    box = st.container(border=True)
    box.markdown(":material/lightbulb: **Which event model suits your data?** " + adv.sentence())
    other = adv.other
    box.button(f"Use the {other.title} model ({'word counts' if other.counts else 'presence'}) on the same data",
               key="advice_other_model", on_click=_use, args=(other.model, other.counts),
               type="primary" if adv.better is other else "secondary", icon=":material/swap_horiz:")
