"""One press of a run button or clicker key, one action, in the order pressed (``run_guard.js``).

Streamlit merges the presses of one button that reach the server before its script thread has picked up
the previous one into a single rerun, and runs the callbacks of two buttons merged that way in no set
order. The browser hears that a run started only a round trip after the click, so on a busy machine a
quick second Step was lost and Page Down then E could run the E-step first. The guard (a hidden
components-v2 element in the sidebar, on every lesson page, with the browser player or without) notes a
press as sent until the run state changes: meanwhile Step takes no clicks and looks it (greyed, busy
cursor, as while a run goes on), and keys and the other run buttons' clicks wait in a short queue that is
replayed one press per run.
"""
from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from dashboard.lesson.panels import half_steps
from dashboard.ui import controls

HERE = Path(__file__).resolve().parent
KEY = "nbem_run_guard"


def config() -> dict:
    """What the guard watches: the clicker keys → the button each presses, the run buttons, Step."""
    step = controls.K_STEP
    return {
        # → and Page Down are both Step (the hidden Page Down button only carries the shortcut)
        "keys": {"ArrowRight": step, "PageDown": step, "e": half_steps.K_E_STEP, "m": half_steps.K_M_STEP,
                 "Home": controls.K_RESET},
        "buttons": [step, half_steps.K_E_STEP, half_steps.K_M_STEP, controls.K_RESET, controls.K_CONVERGE],
        "step": step,
    }


def css(step: str = controls.K_STEP) -> str:
    """While a press is sent (the guard sets html[data-nbem-sent]) Step looks and acts as while a run goes
    on (controls.STEP_BUSY_CSS); the guard's own element takes no room."""
    return (f".st-key-{KEY} {{ display: none; }}\n"
            f"html[data-nbem-sent] .st-key-{step} {{ cursor: progress; }}\n"
            f"html[data-nbem-sent] .st-key-{step} button {{ pointer-events: none; opacity: 0.55; }}\n")


def _register():
    try:
        from streamlit.components import v2

        from dashboard.serve import modules  # the module once per browser when the app serves it
        text = (HERE / "run_guard.js").read_text(encoding="utf-8")
        return v2.component("nbem_run_guard", css=css(), js=modules.component_js("run_guard", text),
                            isolate_styles=False)
    except Exception:  # components v2 missing or refused: the buttons work as Streamlit's own
        return None


_COMPONENT = _register()


def show() -> None:
    """Mount the guard (in the sidebar: outside the fragments, present on every run of the page)."""
    if _COMPONENT is None:
        return
    with st.sidebar:
        _COMPONENT(key=KEY, data=json.dumps(config()))
