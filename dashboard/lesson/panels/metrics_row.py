"""The metrics row: the iteration shown, its accuracy against supervised-only, the status line."""
from __future__ import annotations


import numpy as np
import streamlit as st

from nblab import numbers
from dashboard.lesson import player
from nblab.frame import Frame
from nblab.prepare import effective_init
from dashboard.lesson.session import lesson


def show(f: Frame) -> None:
    """Iteration, accuracy at t (vs supervised only), supervised-only accuracy, status."""
    kind, status = lesson().status()
    if f.classroom:  # big numbers need room: status on a row of its own
        m1, m2, m3 = st.columns(3)
        m4 = st.container()
    else:
        m1, m2, m3, m4 = st.columns([1, 1.4, 1, 2.6])  # the accuracy's "+10.2 pts vs supervised" needs room
    if f.player and f.playing:  # the browser plays: say where the audience is, not how far EM has got
        status = f"Running … t = {player.shown(f.latest)}"
    # One iteration for both numbers: the one on screen (scrubbed back, or, while the browser plays
    # ahead of the computed run, the one it shows), never the furthest one computed beside it.
    t_acc = player.shown(f.latest) if f.player and f.playing else f.t
    m1.metric("Iteration", t_acc, help=f"The iteration shown; EM has computed {f.latest}."
              if t_acc != f.latest else None)
    a_now = f.acc[t_acc] if t_acc < len(f.acc) else float("nan")
    base = f.base
    has_delta = base is not None and np.isfinite(a_now)
    m2.metric(f"Accuracy (t={t_acc})", numbers.percent(a_now) or "—",
              delta=numbers.delta_text(a_now, base) if has_delta else None,
              delta_color=numbers.delta_color(a_now, base) if has_delta else "normal",
              delta_arrow="off" if has_delta and numbers.delta_color(a_now, base) == "off" else "auto")
    m3.metric("Supervised only", "—" if base is None else f"{base:.1%}",
              help="Naive Bayes trained on the visible labels alone, scored on the same hidden documents.")
    cfg = f.cfg
    with m4:
        st.markdown(f"**Status:** {status}")
        init = effective_init(cfg, f.prep)
        st.caption(f"{cfg.dataset} · {cfg.model} · {cfg.hidden_pct}% labels hidden · λ = {f.smoothing:g} · "
                   f"init {init}" + (" (no label visible)" if init != cfg.init else "") + f" · seed {cfg.seed}"
                   + (f" · features: {cfg.text.describe()}, V = {f.prep.X.shape[1]:,}"
                      if getattr(cfg, "text", None) is not None else ""))
