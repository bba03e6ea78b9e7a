"""How the lesson scores a run and writes its numbers (no Streamlit here): the metrics row,
the browser player and the offline lesson print the same strings."""
from __future__ import annotations

import numpy as np

import nbcore
from nblab.prepare import Prepared


def score(pred: np.ndarray, prep: Prepared) -> float:
    """nbcore.hidden_accuracy on the run's hidden rows (NaN when none is scored); without any
    visible label the clusters carry no names, so they are matched to the labels first."""
    no_labels = not (prep.y_obs >= 0).any()
    acc = nbcore.hidden_accuracy(pred, prep.y_eval, prep.y_obs < 0, n_classes=prep.n_classes if no_labels else None)
    return float("nan") if acc is None else acc


def percent(acc) -> str | None:
    """An accuracy as the page shows it ("97.0%"), None when there is none: the one rounding
    shared by the metrics row and the browser's player, so the two never read 97.1 % and 97.0 %
    for the same iteration."""
    return None if acc is None or not np.isfinite(acc) else f"{acc:.1%}"


def delta_text(acc: float, base: float) -> str:
    """Accuracy minus the supervised-only accuracy, in points; a difference that rounds to
    zero is "±0.0" (not a red "↓ −0.0" when both read 86.8 %)."""
    d = (acc - base) * 100
    if abs(d) < 0.05:
        return "±0.0 pts vs supervised"
    return f"{d:+.1f} pts vs supervised"


def delta_color(acc: float, base: float) -> str:
    return "off" if abs((acc - base) * 100) < 0.05 else "normal"
