"""Warnings next to the charts when EM's result should not be trusted as it looks: a class's α moved far
from its share of the labelled documents, or EM below the best supervised baseline mid-run."""
from __future__ import annotations

import numpy as np
import streamlit as st

import nbcore
from dashboard.lesson.panels import class_emptied
from dashboard.ui import derive
from nblab import advice
from nblab.frame import Frame

#: mid-run, EM this far below the best supervised baseline is worth a warning (at the end of the run the
#: history panel's note says it at any distance)
BELOW_BY = 0.02


def drift_text(f: Frame) -> str | None:
    """The α warning at the iteration on screen (see :func:`nblab.advice.alpha_drift`), None when no class
    drifted. Classes EM emptied are left to the "EM emptied a class" warning."""
    alpha = np.asarray(f.run.history[f.t].alpha, dtype=float)
    a0 = np.asarray(f.run.history[0].alpha, dtype=float)
    K = f.prep.n_classes
    drifts = [d for d in advice.alpha_drift(alpha, f.prep.y_obs, K)
              if not (d.alpha < class_emptied.EMPTIED_SHARE * a0[d.k] or d.alpha < class_emptied.EMPTIED_FLOOR / K)]
    if not drifts:
        return None
    n = int((np.asarray(f.prep.y_obs) >= 0).sum())
    parts = []
    for d in drifts:
        name = derive.md_escape(f.prep.class_names[d.k], 40)
        parts.append(f"α({name}) is **{d.alpha:.1%}** at t = {f.t}, but **{d.share:.1%}** of the {n:,} labelled "
                     f"documents are {name} (a random sample of the data: sampling alone explains about "
                     f"±{d.allowed:.0%})")
    text = ("EM moved a class prior far from the labelled documents: " + "; ".join(parts) + ". EM's clusters "
            "are drifting away from the classes, so its accuracy on the hidden labels may suffer.")
    model = nbcore.get_model(f.cfg.model)
    if model.scores_absent_features and getattr(f.prep.ds, "is_text", False):
        text += (f" The {model.title} model scores every word a document *lacks*; on short texts those absent "
                 "words can decide the class. Try the multinomial model (word counts) on the same data.")
    return text


def below_text(f: Frame) -> str | None:
    """EM more than BELOW_BY under the best supervised baseline at the iteration on screen, before the end
    of the run (the end is the history panel's note)."""
    if f.ref is None or f.t >= len(f.acc) or (f.run.done and f.t == f.latest):
        return None
    best = f.ref.best(f.t)
    a = f.acc[f.t]
    if best is None or not np.isfinite(a) or a >= best[1] - BELOW_BY:
        return None
    return (f"At t = {f.t} EM is **{(best[1] - a) * 100:.1f} pts below** the best supervised baseline, "
            f"{derive.md_escape(best[0], 120)} ({best[1]:.1%}): so far the unlabelled documents have cost "
            "accuracy, not added it.")


def show(f: Frame) -> None:
    """Both warnings, when they apply (t ≥ 1, some labelled and some hidden documents, not while playing)."""
    if f.t < 1 or f.playing or not (np.asarray(f.prep.y_obs) >= 0).any() or not (np.asarray(f.prep.y_obs) < 0).any():
        return
    for text in (drift_text(f), below_text(f)):
        if text:
            st.warning(text, icon=":material/warning:")
