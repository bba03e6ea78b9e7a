"""α, accuracy and the objective over the iterations (server-drawn, or by the browser player)."""
from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard.charts import lesson as lesson_charts
from dashboard.lesson import metrics, player, specs
from dashboard.lesson.panels import memo_chart
from dashboard.ui import controls, state
from nblab.frame import Frame


def show(f: Frame):
    """α, accuracy and objective over the iterations. Returns the slot for the truth scatter
    in classroom mode (two charts per row), else None."""
    run, t, fs = f.run, f.t, f.fs
    smoothings = [s.smoothing for s in run.history]
    warn = st.container()  # always there (see run_controls)
    if lesson_charts.decreases([s.objective for s in run.history], smoothings):
        warn.warning("The MAP objective went down at fixed λ — EM should never do that. Please report it.")
    if f.player:
        # no λ alternatives (cfg, smoothing): a λ change mid-run starts a new segment at the next step and
        # leaves the charts of the iterations already made as they are, so there is nothing to draw ahead
        player.show_series(st.container(), run=run, prep=f.prep, acc=f.acc, base=f.base, font_size=fs,
                           classroom=f.classroom, speed=state.get(controls.K_SPEED) or "normal", view_t=f.view_t,
                           lower=player.lower_key(f), reference=lambda r: metrics.reference(r, f.cfg, f.prep))
        with st.container():  # always one element: the parameter charts after it keep their place
            below_supervised_note(f)
        return None
    if f.classroom:  # two charts per row on a projector; the truth scatter beside the likelihood
        c1, c2 = st.columns(2)
        c3, truth_slot = st.columns(2)
    else:
        c1, c2, c3 = st.columns(3)
        truth_slot = None
    T = len(run.history)

    def spec(name):  # the same builder the player and the offline lesson use, with the marker at t
        return lambda: specs.series_spec(name, run, f.prep, f.acc, f.base, fs, t_sel=t, ref=f.ref)

    memo_chart(c1, "fig_alpha", (T, t, fs), spec("alpha"))
    if "acc" in specs.series_names(f.prep):
        memo_chart(c2, "fig_acc", (T, t, fs, f.base, None if f.ref is None else f.ref.segments), spec("acc"))
    else:
        c2.info("No hidden labels to score: raise “Labels hidden” to measure accuracy.")
    memo_chart(c3, "fig_ll", (T, t, fs), spec("ll"))
    below_supervised_note(f)
    return truth_slot


def below_supervised_note(f: Frame) -> None:
    """EM finished less accurate than the best supervised baseline (digits at the default settings:
    81.9 % -> 77.5 %): say why, or a class thinks EM is broken."""
    if not f.run.done or f.ref is None or not f.acc or f.t != f.latest:
        return
    final = f.acc[-1]
    best = f.ref.best(f.latest)
    if best is None or not np.isfinite(final) or final >= best[1] - 0.0005:
        return
    name, base = best
    st.info(
        f"EM ended **below the best supervised baseline** ({final:.1%} vs {base:.1%}, {name}), although its "
        "objective went up at every step. EM maximises the likelihood of *all* documents, labelled or not, "
        "under the Naive Bayes model; when that model is wrong for the data (pixels or words are not "
        "independent given the class), the clusters that explain the unlabelled documents best need not be "
        "the classes. With many unlabelled documents they outvote the few labels. Try a smaller *unlabelled "
        "weight* (Advanced), fewer hidden labels, another event model, or see the **Label-budget curve**.",
        icon=":material/trending_down:")
