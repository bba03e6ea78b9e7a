"""The parameters at the iteration shown (images, heatmap or top features) and estimate against truth."""
from __future__ import annotations

import streamlit as st

from dashboard.lesson import player, specs
from dashboard.lesson.panels import memo_chart
from dashboard.ui import controls
from nblab.frame import Frame


def views(f: Frame):
    """(view at t, view at t-1 or None) of the run's parameters (nbcore ParamTable)."""
    view = specs.param_view(f.run, f.cfg.model, f.prep, f.t)
    prev = specs.param_view(f.run, f.cfg.model, f.prep, f.t - 1) if f.t > 0 else None
    return view, prev


def show(f: Frame, view, prev_view, truth_slot=None) -> None:
    """The parameters at t (images / heatmap / top features; ``view``/``prev_view`` from
    :func:`views`), and the truth scatter when the generating β is known."""
    prep, t, fs = f.prep, f.t, f.fs
    truth = specs.truth_of(prep, f.cfg.model, f.cfg.dataset in controls.USER_DATA)
    options = specs.param_view_options(prep.ds)
    if f.player:  # every iteration's chart goes to the browser once; the slider and Play redraw there
        pick = st.segmented_control("Parameters view", options, default=options[0], key=controls.K_PARAM_VIEW,
                                    label_visibility="collapsed") or options[0]
        player.show_params(st.container(), run=f.run, prep=prep, model=f.cfg.model, pick=pick, font_size=fs,
                           classroom=f.classroom, truth_beta=None if truth is None else truth["beta"])
        return
    if truth is not None and truth_slot is None:
        left, right = st.columns([3, 2])
    else:
        left, right = st.container(), truth_slot
    with left:
        pick = st.segmented_control("Parameters view", options, default=options[0], key=controls.K_PARAM_VIEW,
                                    label_visibility="collapsed") or options[0]
        # the same builder the player and the offline lesson use
        def build():
            return specs.param_spec(f.run, prep, f.cfg.model, t, pick, fs, f.classroom)
        memo_chart(st, "fig_params", (pick, t, fs), build)  # depends on θ at t and t-1 only
    if truth is not None and right is not None:
        with right:
            memo_chart(st, "fig_truth", (t, fs), lambda: specs.truth_spec(f.run, prep, t, truth["beta"], fs))
