"""How the lesson scores a run and writes its numbers (no Streamlit here): the metrics row,
the browser player and the offline lesson print the same strings."""
from __future__ import annotations

from dataclasses import dataclass

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
    zero is "±0.0" (not a red "↓ −0.0" when both read 86.8 %). An accuracy that carries its own
    reference (:class:`Scored`: the best supervised baseline of its λ segment) is compared with that."""
    ref = getattr(acc, "ref", None)
    what = "supervised" if ref is None else "best supervised"
    d = (acc - (base if ref is None else ref)) * 100
    if abs(d) < 0.05:
        return f"±0.0 pts vs {what}"
    return f"{d:+.1f} pts vs {what}"


def delta_color(acc: float, base: float) -> str:
    ref = getattr(acc, "ref", None)
    return "off" if abs((acc - (base if ref is None else ref)) * 100) < 0.05 else "normal"


# ---- the baselines a run is compared with ------------------------------------------------------------

#: EM's gain over the best supervised baseline below this (in accuracy, 1 point) is called small
SMALL_GAIN = 0.01


class Scored(float):
    """An accuracy that carries the baseline it is compared with (``ref``: the best supervised baseline
    of its λ segment), so every place that writes "+x pts vs …" for it compares like with like."""
    ref: float | None

    def __new__(cls, value, ref=None):
        out = super().__new__(cls, value)
        out.ref = None if ref is None or not np.isfinite(ref) else float(ref)
        return out

    def __reduce__(self):
        return (Scored, (float(self), self.ref))


def with_refs(acc, refs) -> list:
    """``acc`` with each iteration's reference (``refs[t]``, None = none) attached (:class:`Scored`)."""
    return [Scored(a, refs[t] if t < len(refs) else None) for t, a in enumerate(acc)]


def segments(lams) -> list[tuple[int, int, float]]:
    """(first t, last t, λ) of each stretch of iterations made at one λ (``lams[t]``: the λ of snapshot t;
    t = 0 is the fit to the labelled rows at the run's first λ). A λ change mid-run starts a new segment:
    the objective and the supervised baseline at λ belong to one segment each."""
    out = []
    for t, lam in enumerate(lams):
        if out and out[-1][2] == lam:
            out[-1] = (out[-1][0], t, lam)
        else:
            out.append((t, t, float(lam)))
    return out


@dataclass(frozen=True)
class Reference:
    """The supervised baselines of one lesson split, scored on its hidden rows (nbcore.baselines):
    the majority class, supervised NB at each segment's λ, and supervised NB at the λ chosen by
    leave-one-out on the labelled rows."""
    majority: float | None
    majority_name: str
    cv_lambda: float | None
    cv: float | None
    cv_method: str | None
    n_labelled: int
    segments: tuple            # ((first t, last t, λ, supervised NB accuracy at λ), ...)

    def segment_of(self, t: int):
        for seg in self.segments:
            if seg[0] <= t <= seg[1]:
                return seg
        return self.segments[-1] if self.segments else None

    def candidates(self, t: int) -> list[tuple[str, float]]:
        """(name, accuracy) of every baseline next to iteration t (its segment's λ)."""
        seg = self.segment_of(t)
        out = [(f"majority class ({self.majority_name})", self.majority)]
        if seg is not None:
            out.append((f"supervised NB at λ = {seg[2]:g}", seg[3]))
        if self.cv_lambda is not None:
            out.append((f"supervised NB at λ = {self.cv_lambda:g}, chosen by {self.cv_method} on the "
                        f"{self.n_labelled:,} labelled", self.cv))
        return [(n, a) for n, a in out if a is not None and np.isfinite(a)]

    def best(self, t: int) -> tuple[str, float] | None:
        """(name, accuracy) of the best supervised baseline next to iteration t."""
        c = self.candidates(t)
        return max(c, key=lambda na: na[1]) if c else None

    def refs(self, n: int) -> list:
        """The best baseline's accuracy for t = 0 … n − 1."""
        return [(self.best(t) or (None, None))[1] for t in range(n)]


def reference(majority, majority_name, cv_lambda, cv, cv_method, n_labelled, lams, at_lambda) -> Reference:
    """A :class:`Reference` for a run whose snapshots were made at ``lams`` (``at_lambda(λ)``: supervised NB
    accuracy at λ)."""
    segs = tuple((a, b, lam, at_lambda(lam)) for a, b, lam in segments(lams))
    return Reference(majority, majority_name, cv_lambda, cv, cv_method, int(n_labelled), segs)


def gain_sentence(acc: float, best: tuple[str, float] | None) -> str | None:
    """EM against the best supervised baseline in words, saying plainly when the gain is small."""
    if best is None or acc is None or not np.isfinite(acc):
        return None
    name, b = best
    d = acc - b
    head = f"EM against the best supervised baseline, {name} ({b:.1%}): **{(d * 100):+.1f} pts**."
    if d <= -0.0005:
        return head + " EM is *below* it: the labelled documents alone do better."
    if d < SMALL_GAIN:
        return head + (" That is a **small** gain: the labelled documents alone, with a well-chosen λ, do almost "
                       "as well — here the unlabelled documents add little.")
    return head + " That gain is what the unlabelled documents add."


def iteration_words(run, prep, acc, base) -> list[str]:
    """Each iteration's state in words, after "Iteration t of n: " (the player's status sentence, shown
    above the charts and announced to screen readers): the class priors and the accuracy against
    supervised baseline ("α ham 0.87, spam 0.13; accuracy 97.0%, 2.0 points above the best supervised": the
    best supervised baseline of the iteration's λ segment when ``acc`` holds :class:`Scored` values)."""
    names = [str(c) for c in prep.class_names]
    out = []
    for i, snap in enumerate(run.history):
        text = "α " + ", ".join(f"{n} {a:.2f}" for n, a in zip(names, np.asarray(snap.alpha, dtype=float)))
        a = acc[i] if i < len(acc) else None
        shown = percent(a)
        if shown is not None:
            text += f"; accuracy {shown}"
            # the best supervised baseline of the iteration's λ segment when the accuracy carries it
            # (Scored), else the one given: the words compare like with like, as the pill does
            ref = getattr(a, "ref", None)
            ref, what = (ref, "the best supervised") if ref is not None else (base, "supervised")
            if ref is not None:
                d = (a - ref) * 100
                text += (f", the same as {what}" if abs(d) < 0.05
                         else f", {abs(d):.1f} points {'above' if d > 0 else 'below'} {what}")
        out.append(text)
    return out
