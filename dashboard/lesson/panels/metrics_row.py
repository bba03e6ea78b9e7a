"""The metrics row: the iteration shown, its accuracy against supervised-only, the status line."""
from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard.lesson import player, status
from dashboard.ui import derive
from nblab import numbers, vocabulary
from nblab.frame import Frame
from nblab.prepare import effective_init

# What the browser player finds on the page (dashboard/lesson/player: dom()): the status line's
# container, and the metrics' labels (the accuracy's is this prefix, the iteration and ")").
STATUS_KEY = "nbem_status"
ITERATION_LABEL, ACCURACY_LABEL_PREFIX = "Iteration", "Accuracy (t="


def why_dash(dash: bool, unscored: bool, unseen: bool) -> str | None:
    """What a baseline's "—" says under it: nothing hidden to score it on, or nothing visible to fit it to."""
    if not dash:
        return None
    return vocabulary.WORDS["no_score"] if unscored else vocabulary.WORDS["no_visible"] if unseen else None


def show(f: Frame) -> None:
    """Iteration, accuracy at t (vs supervised only), supervised-only accuracy, status."""
    # the four numbers on one row, the status on a row of its own: beside a status column the labels
    # ("Supervised only", "Best supervised") and the accuracy's "+10.2 pts vs best supervised" were cut
    # at 1280 px; the accuracy's column is the widest for its delta
    m1, m2, m3, m5 = st.columns([0.7, 1.6, 1, 1])
    m4 = st.container()
    # every number here is about the iteration on screen (f.t: scrubbed back, or the one the browser
    # player shows while it plays), never the furthest one computed beside it; while the browser moves
    # it with no rerun, the player writes the same strings into these elements (player.js)
    t_acc = f.t
    status_line = status.text(status.templates(f.run, f.cfg), f.t, f.playing,
                              seen=player.seen_before_play() if f.player else None)
    m1.metric(ITERATION_LABEL, t_acc, help=f"The iteration shown; EM has computed {f.latest}."
              if t_acc != f.latest else None)
    a_now = f.acc[t_acc] if t_acc < len(f.acc) else float("nan")
    ref = f.ref
    best = ref.best(t_acc) if ref is not None else None
    base = best[1] if best is not None else f.base
    has_delta = base is not None and np.isfinite(a_now)
    unscored = not f.prep.hidden.any()      # no hidden label: "—", and the delta's place says why
    unseen = not (f.prep.y_obs >= 0).any()  # no visible label: no baseline
    m2.metric(f"{ACCURACY_LABEL_PREFIX}{t_acc})", numbers.percent(a_now) or "—",
              delta=numbers.delta_text(a_now, base) if has_delta else vocabulary.WORDS["no_score"] if unscored else None,
              delta_color=numbers.delta_color(a_now, base) if has_delta else "off",
              delta_arrow="off" if not has_delta or numbers.delta_color(a_now, base) == "off" else "auto",
              help="EM's accuracy on the hidden documents at this iteration, against the best supervised "
                   "baseline of its λ segment (see *Best supervised*)."
                   + (" " + vocabulary.WORDS["no_score_help"] if unscored else ""))
    seg = ref.segment_of(t_acc) if ref is not None else None
    sup = seg[3] if seg is not None else None
    m3.metric("Supervised only", "—" if sup is None else f"{sup:.1%}",
              delta=why_dash(sup is None, unscored, unseen), delta_color="off", delta_arrow="off",
              help=f"Naive Bayes trained on the visible labels alone at the λ of this iteration "
                   f"(λ = {seg[2]:g}), scored on the same hidden documents." if seg is not None else
              "Naive Bayes trained on the visible labels alone, scored on the same hidden documents.")
    m5.metric("Best supervised", "—" if best is None else f"{best[1]:.1%}",
              delta=why_dash(best is None, unscored, unseen), delta_color="off", delta_arrow="off",
              help=("The best of: " + "; ".join(f"{derive.md_escape(n, 120)}: {a:.1%}" for n, a in ref.candidates(t_acc))
                     + ". None of them reads a hidden label (λ is chosen on the labelled documents alone).")
              if ref is not None else None)
    cfg = f.cfg
    with m4:
        # keyed: the player finds it and writes the status of the iteration it shows (player.js)
        st.container(key=STATUS_KEY).markdown(f"**Status:** {status_line}")
        init = effective_init(cfg, f.prep)
        st.caption(f"{cfg.dataset} · {cfg.model} · {cfg.hidden_pct}% labels hidden · λ = {f.smoothing:g} · "
                   f"init {init}" + (" (no label visible)" if init != cfg.init else "") + f" · seed {cfg.seed}"
                   + (f" · features: {cfg.text.describe()}, V = {f.prep.X.shape[1]:,}"
                      if getattr(cfg, "text", None) is not None else ""))
        # class names come from the data (an upload): escaped before they go into Markdown
        gain = (numbers.gain_sentence(a_now, (derive.md_escape(best[0], 120), best[1]))
                if t_acc > 0 and best is not None and not f.playing else None)
        if gain:
            st.markdown(gain)
