"""The :class:`Dataset` every loader returns (shipped sets, :func:`nbcore.read_csv`).

Notation follows the course notes: ``alpha`` (K,) is the class prior and, for
Bernoulli, ``beta[j, k] = p(word j present | class k)`` has shape (V, K).
Class codes are 0..K-1; ``-1`` in ``y`` means "no label".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._csv import DataError
from .models import get_model, models_for_kind
from .text import TextPipeline, vectorize

#: the kinds of feature a Dataset can hold; which event models read each comes from the model
#: registry (nbcore.models.models_for_kind: each model's ``data_kinds``)
KINDS = ("binary", "counts", "categorical", "continuous")


class _ModelsForKind(Mapping):
    """kind -> the event models that read it, read from the registry on every access (so a model
    registered later is offered too); the first is the default."""

    def __getitem__(self, kind):
        if kind not in KINDS:
            raise KeyError(kind)
        return models_for_kind(kind)

    def __iter__(self):
        return iter(KINDS)

    def __len__(self):
        return len(KINDS)


#: Event models that make sense for each kind of feature; the first is the default.
MODELS_FOR_KIND = _ModelsForKind()

__all__ = ["Dataset", "KINDS", "MODELS_FOR_KIND"]

# --------------------------------------------------------------------------- #
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Dataset:
    """A dataset ready for Naive Bayes.

    ``X`` is (N, V): a dense ndarray (float64; int64 category codes for
    a ``kind`` of categorical) or a scipy.sparse CSR matrix (text).
    ``y`` is (N,) int64 class codes, ``-1`` for unlabelled rows.
    ``y_true`` holds the true labels where they are known (``-1`` where not),
    or None when there is no truth at all.

    Text data sets also keep ``texts`` (N,) the raw documents and ``pipeline``
    the :class:`~nbcore.text.TextPipeline` that turned them into ``X``;
    :meth:`with_pipeline` re-vectorises them with other settings and
    :meth:`transform` scores new text with the same vocabulary.  ``card`` is
    the data card's text (source, licence, citation) for shipped sets.
    """

    name: str
    X: Any
    y: np.ndarray
    feature_names: list
    class_names: list
    kind: str
    description: str = ""
    models: tuple = ()
    y_true: np.ndarray | None = None
    truth: dict | None = None  # generating model: {"model": name, "alpha": (K,), <its params>}
    image_shape: tuple | None = None
    categories: list | None = None
    inferred: dict | None = None
    vectorizer: Any = None
    queries: np.ndarray | None = None
    texts: tuple | None = None
    pipeline: TextPipeline | None = None
    card: str | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {sorted(KINDS)}, got {self.kind!r}")
        if not self.models:
            object.__setattr__(self, "models", models_for_kind(self.kind))
        if self.X.shape[0] != len(self.y):
            raise ValueError(f"X has {self.X.shape[0]} rows but y has {len(self.y)}")
        if self.X.shape[1] != len(self.feature_names):
            raise ValueError(f"X has {self.X.shape[1]} columns but there are "
                             f"{len(self.feature_names)} feature names")
        if self.texts is not None and len(self.texts) != len(self.y):
            raise ValueError(f"There are {len(self.texts)} texts but {len(self.y)} rows")

    @property
    def is_text(self) -> bool:
        """True when the rows are documents whose raw text is kept."""
        return self.texts is not None and self.pipeline is not None

    @property
    def n_classes(self) -> int:
        """K, the number of classes."""
        return len(self.class_names)

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def __repr__(self) -> str:
        labelled = int(np.sum(self.y >= 0))
        return (f"Dataset(name={self.name!r}, kind={self.kind!r}, N={self.n_samples}, "
                f"V={self.n_features}, K={self.n_classes}, labelled={labelled}, "
                f"models={self.models})")

    def for_model(self, name: str):
        """X prepared for event model ``name`` (one of ``self.models``).

        The model's ``adapt`` hook converts data of another kind: "bernoulli" on
        counts or continuous data binarises with ``X > 0`` (float64 0/1, a new
        array).  Otherwise ``self.X`` itself is returned (not a copy).
        """
        if name not in self.models:
            raise ValueError(
                f"The {name!r} model does not fit the {self.name!r} data ({self.kind} "
                f"features). Choose one of: {', '.join(self.models)}.")
        return get_model(name).adapt(self.X, self.kind)

    def with_pipeline(self, pipeline: TextPipeline | None = None, *, cap: int | None = None,
                      **changes) -> "Dataset":
        """The same documents turned into features with other text settings.

        ``pipeline`` replaces the current one; keyword arguments change single
        fields of it (``ds.with_pipeline(tokens="char", ngram_range=(3, 3))``).
        Labels, texts and class names are kept; X, the vocabulary, ``kind`` and
        ``models`` follow the new settings (presence -> Bernoulli first,
        counts -> multinomial first).  ``cap`` keeps at most that many most frequent
        terms whatever the pipeline asks (an application's own limit; None: no cap).
        """
        if not self.is_text:
            raise DataError(f"The {self.name!r} data set has no raw text, so its text "
                            "settings cannot be changed.")
        new = (pipeline if pipeline is not None else self.pipeline)
        if changes:
            new = new.replace(**changes)
        if new == self.pipeline and (cap is None or self.X.shape[1] <= cap):
            return self
        X, vec, info = vectorize(self.texts, new, cap=cap)
        inferred = dict(self.inferred or {})
        inferred.update(info)
        inferred["kind"] = new.kind
        return dataclasses.replace(
            self, X=X, feature_names=[str(t) for t in vec.get_feature_names_out()],
            kind=new.kind, models=models_for_kind(new.kind), vectorizer=vec, pipeline=new,
            inferred=inferred)

    def transform(self, texts) -> sp.csr_matrix:
        """Turn new text(s) into rows of X with this dataset's stored vocabulary.

        Words that are not in the vocabulary are ignored.  Only for text data
        sets (shipped ones such as "sms_spam", or built from a text column by
        :func:`read_csv`).
        """
        if self.vectorizer is None:
            raise ValueError(f"The {self.name!r} dataset was not built from text, so "
                             "there is no vocabulary to score new text with.")
        if isinstance(texts, str):
            texts = [texts]
        texts = ["" if t is None else str(t) for t in texts]
        return self.vectorizer.transform(texts).astype(np.float64).tocsr()


# --------------------------------------------------------------------------- #
# Shipped datasets
