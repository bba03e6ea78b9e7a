"""The half-step toolbar of the pages that take EM apart (views/climb.py, views/mixture2d.py):
E-step, M-step, Step, a few steps at once and Reset, beside a line that says where the run is."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard.ui.page_state import HalfSteps


@dataclass(frozen=True)
class Labels:
    """What a page says on its toolbar: the E-step's and M-step's help, the M-step's icon, the Step
    button's help and how many steps the fourth button takes."""
    e_help: str
    m_help: str
    m_icon: str
    step_help: str | None = None
    many: int = 5


def toolbar(prefix: str, run: HalfSteps, labels: Labels, classroom: bool):
    """Draw the five buttons (keys ``<prefix>_btn_e``, ``_m``, ``_step``, ``_<many>``, ``_reset``), which
    change ``run`` when pressed, and return the place for the phase line: beside the buttons, or under
    them in classroom mode.

    The buttons sit in a row that wraps, each as wide as its label: five equal columns cut the labels
    ("M-st…", "10 st…") on a 1280 px screen and in classroom type."""
    row, phase_box = (st.container(), st) if classroom else st.columns([2, 1], vertical_alignment="center")
    b = row.container(horizontal=True, gap="small")
    b.button("E-step", key=f"{prefix}_btn_e", on_click=run.e_step, disabled=run.e_done, icon=":material/visibility:",
             help=labels.e_help)
    b.button("M-step", key=f"{prefix}_btn_m", on_click=run.m_step, disabled=not run.e_done, icon=labels.m_icon,
             help=labels.m_help)
    b.button("Step", key=f"{prefix}_btn_step", on_click=run.steps, args=(1,), type="primary",
             icon=":material/skip_next:", help=labels.step_help)
    b.button(f"{labels.many} steps", key=f"{prefix}_btn_{labels.many}", on_click=run.steps, args=(labels.many,),
             icon=":material/fast_forward:")
    b.button("Reset", key=f"{prefix}_btn_reset", on_click=run.reset, icon=":material/restart_alt:")
    return phase_box
