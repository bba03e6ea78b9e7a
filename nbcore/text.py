"""The text pipeline: raw documents -> a document-term matrix for Naive Bayes.

One frozen :class:`TextPipeline` says how text becomes features (the choices a
teacher shows on screen: word or character n-grams and their range, presence
vs counts, vocabulary size, minimum document frequency, English stop words,
lower-casing).  :func:`vectorize` applies it with scikit-learn's
``CountVectorizer``.  The event model follows the counting choice: presence
(``binary=True``) gives features of kind "binary" (Bernoulli NB, eq. 5),
counts give kind "counts" (multinomial NB, the notebook).

>>> p = TextPipeline(tokens="char", ngram_range=(3, 3))
>>> X, vec, info = vectorize(["hello world", "hallo welt"], p)   # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from ._csv import DataError

#: tokens -> CountVectorizer analyzer.  "char" uses "char_wb": n-grams inside
#: words padded with a space, so "the" gives " th", "the", "he ".
ANALYZERS = {"word": "word", "char": "char_wb"}

#: A word is a run of letters/digits; single letters count ("u", "2", "i").
WORD_PATTERN = r"(?u)\b\w+\b"

__all__ = ["ANALYZERS", "TextPipeline", "vectorize"]


@dataclass(frozen=True, slots=True)
class TextPipeline:
    """How raw text becomes the feature matrix X.

    Parameters
    ----------
    tokens : {"word", "char"}
        Words (runs of letters/digits) or character n-grams inside words.
    ngram_range : (int, int)
        Smallest and largest n; (1, 2) = single words and pairs of words, or
        with ``tokens="char"`` e.g. (1, 3) = characters, bigrams and trigrams.
    binary : bool
        True: x_j = 1 if term j occurs in the document (Bernoulli);
        False: x_j = how many times it occurs (multinomial).
    max_features : int or None
        Keep only this many most frequent terms (None: every term).
    min_df : int
        Drop terms that occur in fewer than this many documents.
    stop_words : bool
        Drop scikit-learn's English stop-word list ("the", "and", ...).
        Only used with ``tokens="word"``.
    lowercase : bool
        Lower-case the text first ("FREE" and "free" are one term).
    """

    tokens: str = "word"
    ngram_range: tuple = (1, 1)
    binary: bool = True
    max_features: int | None = None
    min_df: int = 1
    stop_words: bool = False
    lowercase: bool = True

    def __post_init__(self):
        if self.tokens not in ANALYZERS:
            raise DataError(f"tokens must be 'word' or 'char', not '{self.tokens}'.")
        try:
            lo, hi = (int(v) for v in self.ngram_range)
        except (TypeError, ValueError):
            raise DataError("The n-gram range must be two whole numbers like (1, 2).") from None
        if not 1 <= lo <= hi <= 10:
            raise DataError(f"The n-gram range must be (low, high) with 1 <= low <= high <= 10; "
                            f"got {tuple(self.ngram_range)}.")
        object.__setattr__(self, "ngram_range", (lo, hi))
        if self.max_features is not None:
            mf = int(self.max_features)
            if mf < 1:
                raise DataError("The vocabulary size must be at least 1 term.")
            object.__setattr__(self, "max_features", mf)
        md = int(self.min_df)
        if md < 1:
            raise DataError("The minimum document frequency must be at least 1 document.")
        object.__setattr__(self, "min_df", md)
        object.__setattr__(self, "binary", bool(self.binary))
        object.__setattr__(self, "stop_words", bool(self.stop_words))
        object.__setattr__(self, "lowercase", bool(self.lowercase))

    @property
    def kind(self) -> str:
        """Dataset kind this pipeline produces: "binary" or "counts"."""
        return "binary" if self.binary else "counts"

    @property
    def event_model(self) -> str:
        """The event model that matches the features: bernoulli or multinomial."""
        return "bernoulli" if self.binary else "multinomial"

    def replace(self, **changes) -> "TextPipeline":
        """A copy with some settings changed (unknown names raise DataError)."""
        unknown = sorted(set(changes) - set(self.__dataclass_fields__))
        if unknown:
            raise DataError(f"Unknown text setting(s): {', '.join(unknown)}. The settings "
                            f"are: {', '.join(self.__dataclass_fields__)}.")
        return replace(self, **changes)

    def describe(self) -> str:
        """One line for a caption, e.g. 'words (1-2), presence, ≤ 5,000 terms, min df 2'."""
        lo, hi = self.ngram_range
        n = f"{lo}" if lo == hi else f"{lo}–{hi}"
        unit = "words" if self.tokens == "word" else "character n-grams"
        parts = [f"{unit}, n = {n}", "presence (0/1)" if self.binary else "counts"]
        if self.max_features:
            parts.append(f"≤ {self.max_features:,} terms")
        if self.min_df > 1:
            parts.append(f"in ≥ {self.min_df} documents")
        if self.stop_words and self.tokens == "word":
            parts.append("English stop words removed")
        if not self.lowercase:
            parts.append("case kept")
        return ", ".join(parts)

    def changes_from(self, old: "TextPipeline | None") -> str:
        """What differs from ``old``, in words: 'tokens words → characters, n 1 → 3'."""
        if old is None:
            return self.describe()

        def n(p):
            lo, hi = p.ngram_range
            return f"{lo}" if lo == hi else f"{lo}–{hi}"

        def vocab(p):
            return "all" if not p.max_features else f"{p.max_features:,}"

        fields = [("tokens", lambda p: "words" if p.tokens == "word" else "characters"),
                  ("n", n), ("x", lambda p: "presence" if p.binary else "counts"),
                  ("vocabulary", vocab), ("min df", lambda p: str(p.min_df)),
                  ("stop words", lambda p: "out" if p.stop_words else "kept"),
                  ("lower-case", lambda p: "on" if p.lowercase else "off")]
        parts = [f"{name} {get(old)} → {get(self)}" for name, get in fields if get(old) != get(self)]
        return ", ".join(parts) or "no change"

    def vectorizer(self, max_features=None):
        """A fresh, unfitted scikit-learn CountVectorizer for these settings."""
        from sklearn.feature_extraction.text import CountVectorizer

        word = self.tokens == "word"
        return CountVectorizer(
            analyzer=ANALYZERS[self.tokens], ngram_range=self.ngram_range, binary=self.binary,
            min_df=self.min_df, max_features=max_features, lowercase=self.lowercase,
            stop_words="english" if (self.stop_words and word) else None,
            token_pattern=WORD_PATTERN if word else None, dtype=np.float64)


def vectorize(texts, pipeline: TextPipeline, *, cap: int | None = None):
    """Fit ``pipeline`` on ``texts``: returns ``(X, vectorizer, info)``.

    ``X`` is (N, V) CSR float64; ``vectorizer`` is the fitted CountVectorizer
    (``vectorizer.transform`` scores new text with the same vocabulary);
    ``info`` says what happened (vocabulary size before/after the cap, ...).
    The vocabulary keeps the ``pipeline.max_features`` most frequent terms, and at
    most ``cap`` of them (an application's own limit); with neither, every term.
    """
    texts = ["" if t is None else str(t) for t in texts]
    limits = [n for n in (pipeline.max_features, cap) if n]
    limit = min(limits) if limits else None
    vec = pipeline.vectorizer()
    try:
        X = vec.fit_transform(texts)
    except ValueError as exc:
        msg = str(exc)
        if "empty vocabulary" in msg or "no terms remain" in msg or "min_df" in msg:
            raise DataError(
                "No words are left to use as features: the texts are empty, contain only "
                "stop words, or the minimum document frequency (min_df = "
                f"{pipeline.min_df}) is higher than the number of texts any term appears "
                "in. Fix: lower min_df, turn off stop-word removal, or check that the "
                "text column is the right one.") from None
        raise DataError(f"The text could not be turned into term counts ({msg}). Fix: "
                        "check the text column and the pipeline settings.") from None
    full = X.shape[1]
    if limit is not None and full > limit:
        # Same result as CountVectorizer(max_features=limit) without a second pass
        # over the text: keep the `limit` most frequent terms (ties by term order).
        freq = np.asarray(X.sum(axis=0)).ravel()
        keep = np.sort(np.argsort(-freq, kind="stable")[:limit])
        terms = vec.get_feature_names_out()[keep]
        vec.vocabulary_ = {t: i for i, t in enumerate(terms)}
        X = X[:, keep]
    info = {"tokens": pipeline.tokens, "analyzer": ANALYZERS[pipeline.tokens],
            "ngram_range": pipeline.ngram_range, "binary": pipeline.binary,
            "min_df": pipeline.min_df, "stop_words": "english" if pipeline.stop_words else None,
            "lowercase": pipeline.lowercase, "max_features": limit,
            "vocabulary_size_before_cap": int(full),
            "truncated": bool(limit is not None and full > limit),
            "vocabulary_size": int(X.shape[1])}
    return sp.csr_matrix(X, dtype=np.float64), vec, info
