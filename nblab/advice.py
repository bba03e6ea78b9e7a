"""Which event model suits a teacher's text, and what EM did to the class priors (no Streamlit here).

:func:`model_advice` fits every text event model the data allow on the *labelled* rows only, scores
each by leave-one-out at the λ it chooses itself (:mod:`nbcore.baselines`: cheap, exact, no hidden label
read) and says which suits the data and why, from the documents' length. :func:`alpha_drift` finds the
classes whose α EM has moved far from their share of the labelled rows.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

import nbcore
from nbcore import baselines
from nblab import limits
from nblab.outcome import CV_LAMBDAS

#: a model is advised over another when its leave-one-out accuracy is at least this much higher
ADVICE_MARGIN = 0.01
#: leave-one-out predicts each labelled row from the others: a class needs this many labelled rows for its
#: left-out row to have one of its own class left (with one, every such row is predicted wrong, whatever the model)
MIN_PER_CLASS = 2
#: texts with at most this many words (median) are "short"
SHORT_TEXT = 20


@dataclass(frozen=True)
class ModelScore:
    model: str
    title: str            # the model's name in a sentence
    counts: bool          # the model reads counts (else presence)
    accuracy: float       # leave-one-out accuracy on the labelled rows, at lam
    lam: float            # the λ leave-one-out chose


@dataclass(frozen=True)
class Advice:
    current: ModelScore
    other: ModelScore
    better: ModelScore | None   # the model to advise, None when the two are within ADVICE_MARGIN
    n_labelled: int
    n_docs: int
    vocabulary: int
    median_words: float         # tokens per document (median)
    median_distinct: float      # distinct terms per document (median)
    repeats: float              # share of documents with some term more than once
    short_classes: int = 0      # classes with fewer than MIN_PER_CLASS labelled rows: then nothing was scored

    @property
    def judged(self) -> bool:
        """Whether leave-one-out could judge the two models (every class has MIN_PER_CLASS labelled rows)."""
        return self.short_classes == 0

    def sentence(self) -> str:
        """Why, in words (Markdown; no text from the data in it)."""
        if not self.judged:
            few = ("a class has" if self.short_classes == 1 else f"{self.short_classes} classes have")
            return (f"Leave-one-out cannot judge the two models on these labels: it predicts each of the "
                    f"{self.n_labelled:,} labelled documents from the others, and {few} fewer than "
                    f"{MIN_PER_CLASS} labelled documents, so its left-out document has none of its class left and "
                    f"is predicted wrong by either model. With at least {MIN_PER_CLASS} labelled documents in every "
                    "class (fewer labels hidden, or more labels in the file) the two can be compared.")
        c, o = self.current, self.other
        scores = (f"Leave-one-out on the {self.n_labelled:,} labelled documents (each one predicted by Naive "
                  f"Bayes fitted to the others, λ chosen the same way): **{c.title} {c.accuracy:.1%}** "
                  f"(λ = {c.lam:g}), **{o.title} {o.accuracy:.1%}** (λ = {o.lam:g}).")
        length = (f"The documents are {'short' if self.median_words <= SHORT_TEXT else 'long'}: a median of "
                  f"{self.median_words:g} words ({self.median_distinct:g} distinct) from a vocabulary of "
                  f"{self.vocabulary:,}; {self.repeats:.0%} of them use some word more than once.")
        absent = next((m for m in (c, o) if not m.counts), None)
        why = ""
        if absent is not None and self.median_words <= SHORT_TEXT:
            why = (f" The {absent.title} model scores each document on the ~{self.vocabulary - self.median_distinct:,.0f} "
                   "words it *lacks* as well as the few it has, and the absent words can outweigh the present ones; "
                   "the model of counts looks only at the words present.")
        elif self.repeats >= 0.5:
            why = " Words repeat within a document, which only the model of counts can use."
        if self.better is None:
            verdict = " The two models are about as good on these data."
        elif self.better is c:
            verdict = f" The **{c.title}** model you use suits these data better."
        else:
            verdict = f" The **{o.title}** model suits these data better."
        return scores + " " + length + why + verdict


def _text_models(ds) -> list[str]:
    """The data set's text models: one of presence and one of counts (the first of each it lists)."""
    out, kinds = [], set()
    for name in ds.models:
        counts = nbcore.get_model(name).input_kind == "counts"
        if counts not in kinds:
            kinds.add(counts)
            out.append(name)
    return out


def model_advice(ds, y_obs, current: str, cap: int | None = limits.VOCABULARY_CAP) -> Advice | None:
    """Leave-one-out of both text event models on the labelled rows of ``ds`` (``y_obs``: -1 = hidden), and
    which suits the data; None for data that are not text, or with fewer than two labelled rows."""
    if not getattr(ds, "is_text", False):
        return None
    y_obs = np.asarray(y_obs)
    if int((y_obs >= 0).sum()) < 2:
        return None
    names = _text_models(ds)
    if current not in names or len(names) < 2:
        return None
    per_class = np.bincount(y_obs[y_obs >= 0], minlength=int(ds.n_classes))
    short = int((per_class < MIN_PER_CLASS).sum())
    if short:   # nothing to score: say what leave-one-out needs instead of two meaningless 0 %
        titles = {}
        for name in names:
            model = nbcore.get_model(name)
            title = getattr(model, "title", name)
            titles[name] = ModelScore(name, title() if callable(title) else str(title),
                                      model.input_kind == "counts", float("nan"), float("nan"))
        other = next(s for n, s in titles.items() if n != current)
        return Advice(titles[current], other, None, int((y_obs >= 0).sum()), int(ds.n_samples), 0, 0.0, 0.0, 0.0,
                      short_classes=short)
    scores = {}
    for name in names:
        model = nbcore.get_model(name)
        counts = model.input_kind == "counts"
        data = ds if ds.pipeline.binary != counts else ds.with_pipeline(replace(ds.pipeline, binary=not counts),
                                                                         cap=cap)
        res = baselines.loo_scores(name, data.for_model(name), y_obs, ds.n_classes, CV_LAMBDAS)
        i = int(np.argmax(np.array(res.lambdas) == res.best))
        title = getattr(model, "title", name)
        scores[name] = ModelScore(name, title() if callable(title) else str(title), counts,
                                  float(res.accuracy[i]), res.best)
        if counts:
            X = data.for_model(name)
    cur = scores[current]
    other = next(s for n, s in scores.items() if n != current)
    better = None
    if abs(cur.accuracy - other.accuracy) >= ADVICE_MARGIN:
        better = cur if cur.accuracy > other.accuracy else other
    X = X.tocsr() if hasattr(X, "tocsr") else np.asarray(X)
    words = np.asarray(X.sum(axis=1)).ravel()
    distinct = np.diff(X.indptr) if hasattr(X, "indptr") else (X > 0).sum(axis=1)
    return Advice(cur, other, better, int((y_obs >= 0).sum()), int(X.shape[0]), int(X.shape[1]),
                  float(np.median(words)), float(np.median(distinct)), float(np.mean(words > distinct)))


@dataclass(frozen=True)
class Drift:
    k: int
    alpha: float     # α_k at t
    share: float     # k's share of the labelled rows
    allowed: float   # the distance sampling alone explains (see alpha_drift)


def alpha_drift(alpha, y_obs, n_classes: int, floor: float = 0.10) -> list[Drift]:
    """Classes whose α EM has moved far from their share of the labelled rows: further than ``floor`` and
    than three standard errors of that share (sqrt(p(1 − p)/n), n labelled rows). The labelled rows are a
    random sample of the data (the lesson hides labels at random, stratified), so their share is an
    estimate of α; a distance this large means EM's clusters are not the classes any more."""
    y = np.asarray(y_obs)
    seen = y[y >= 0]
    n = seen.size
    if n < 2:
        return []
    share = np.bincount(seen, minlength=n_classes) / n
    a = np.asarray(alpha, dtype=float)
    allowed = np.maximum(floor, 3 * np.sqrt(share * (1 - share) / n))
    return [Drift(int(k), float(a[k]), float(share[k]), float(allowed[k]))
            for k in range(n_classes) if abs(a[k] - share[k]) > allowed[k]]
