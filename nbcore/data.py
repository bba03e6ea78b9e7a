"""Datasets: shipped teaching sets, CSV loading, label hiding, sampling.

Public API
----------
``load_dataset(name)``        one of :func:`list_datasets` -> :class:`Dataset`
``list_datasets()``           ``{name: one-line description}``
``read_csv(path_or_file, ...)`` a teacher's own CSV (text or table) -> :class:`Dataset`
``hide_labels(y, fraction, random_state=None)`` -> ``(y_obs, hidden)``
``sample(model, alpha, params, n, random_state=None, doc_length=20)`` -> ``(X, y)``
``DataError``                 raised for unusable input; the message says the fix
``MAX_UPLOAD_BYTES``, ``MAX_FEATURES``  limits for uploads (5 MB, 20,000 words)

Notation follows the course notes: ``alpha`` (K,) is the class prior and, for
Bernoulli, ``beta[j, k] = p(word j present | class k)`` has shape (V, K).
Class codes are 0..K-1; ``-1`` in ``y`` means "no label".

The shipped data files live in the repository's ``datasets/`` folder (next to
the ``nbcore`` package).  Set the environment variable ``NBCORE_DATASETS`` to
use another folder (e.g. for a non-editable install); "digits" needs no file.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._csv import MAX_UPLOAD_BYTES, DataError, column_as_float, decode, is_number, parse, read_bytes
from ._sampling import sample

#: Largest vocabulary read_csv builds from text (an upper bound on max_features).
MAX_FEATURES = 20_000

#: Event models that make sense for each kind of feature; the first is the default.
MODELS_FOR_KIND = {
    "binary": ("bernoulli", "multinomial"),
    "counts": ("multinomial", "bernoulli"),
    "categorical": ("categorical",),
    "continuous": ("gaussian", "bernoulli"),
}

__all__ = [
    "DataError", "Dataset", "MAX_FEATURES", "MAX_UPLOAD_BYTES", "MODELS_FOR_KIND",
    "datasets_dir", "hide_labels", "list_datasets", "load_dataset", "read_csv", "sample",
]


# --------------------------------------------------------------------------- #
# Dataset
# --------------------------------------------------------------------------- #
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Dataset:
    """A dataset ready for Naive Bayes.

    ``X`` is (N, V): a dense ndarray (float64; int64 category codes for
    ``kind == "categorical"``) or a scipy.sparse CSR matrix (text).
    ``y`` is (N,) int64 class codes, ``-1`` for unlabelled rows.
    ``y_true`` holds the true labels where they are known (``-1`` where not),
    or None when there is no truth at all.
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
    truth: dict | None = None
    image_shape: tuple | None = None
    categories: list | None = None
    inferred: dict | None = None
    vectorizer: Any = None
    queries: np.ndarray | None = None

    def __post_init__(self):
        if self.kind not in MODELS_FOR_KIND:
            raise ValueError(f"kind must be one of {sorted(MODELS_FOR_KIND)}, got {self.kind!r}")
        if not self.models:
            object.__setattr__(self, "models", MODELS_FOR_KIND[self.kind])
        if self.X.shape[0] != len(self.y):
            raise ValueError(f"X has {self.X.shape[0]} rows but y has {len(self.y)}")
        if self.X.shape[1] != len(self.feature_names):
            raise ValueError(f"X has {self.X.shape[1]} columns but there are "
                             f"{len(self.feature_names)} feature names")

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

        "bernoulli" on counts or continuous data binarises with ``X > 0``
        (float64 0/1, a new array).  Otherwise ``self.X`` itself is returned
        (not a copy).
        """
        if name not in self.models:
            raise ValueError(
                f"The {name!r} model does not fit the {self.name!r} data ({self.kind} "
                f"features). Choose one of: {', '.join(self.models)}.")
        if name == "bernoulli" and self.kind in ("counts", "continuous"):
            return _binarize(self.X)
        return self.X

    def transform(self, texts) -> sp.csr_matrix:
        """Turn new text(s) into rows of X with this dataset's stored vocabulary.

        Words that are not in the vocabulary are ignored.  Only for datasets
        built from a text column by :func:`read_csv`.
        """
        if self.vectorizer is None:
            raise ValueError(f"The {self.name!r} dataset was not built from text, so "
                             "there is no vocabulary to score new text with.")
        if isinstance(texts, str):
            texts = [texts]
        texts = ["" if t is None else str(t) for t in texts]
        return self.vectorizer.transform(texts).astype(np.float64).tocsr()


def _binarize(X):
    if sp.issparse(X):
        out = X.tocsr(copy=True).astype(np.float64)
        out.data = (out.data > 0).astype(np.float64)
        out.eliminate_zeros()
        return out
    return (np.asarray(X) > 0).astype(np.float64)


# --------------------------------------------------------------------------- #
# Shipped datasets
# --------------------------------------------------------------------------- #
def datasets_dir() -> Path:
    """Folder holding the shipped data files (``$NBCORE_DATASETS`` or repo/datasets)."""
    env = os.environ.get("NBCORE_DATASETS")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "datasets"


def _shipped_file(filename: str) -> Path:
    folder = datasets_dir()
    path = folder / filename
    if not path.is_file():
        raise DataError(
            f"The teaching data file '{filename}' was not found in '{folder}'. The shipped "
            "datasets live in the 'datasets' folder of the nbcore source checkout. Fix: "
            "install nbcore from the checkout with 'pip install -e .', or set the "
            "environment variable NBCORE_DATASETS to the folder that holds the files.")
    return path


def _read_table(filename: str) -> tuple[list[str], list[list[str]]]:
    with open(_shipped_file(filename), newline="", encoding="utf-8") as f:
        rows = [r for r in csv.reader(f) if r]
    return rows[0], rows[1:]


def _load_toy_spam() -> Dataset:
    header, rows = _read_table("toy_spam.csv")
    data = np.array(rows, dtype=np.float64)
    qheader, qrows = _read_table("toy_spam_queries.csv")
    if qheader != header[:-1]:
        raise DataError("toy_spam_queries.csv columns do not match toy_spam.csv")
    y = data[:, -1].astype(np.int64)
    return Dataset(
        name="toy_spam", description=_REGISTRY["toy_spam"][0],
        X=data[:, :-1], y=y, y_true=y.copy(), feature_names=header[:-1],
        class_names=["ham", "spam"], kind="binary",
        queries=np.array(qrows, dtype=np.float64))


_TENNIS_ORDER = {
    "Outlook": ["Sunny", "Overcast", "Rain"],
    "Temperature": ["Hot", "Mild", "Cool"],
    "Humidity": ["High", "Normal"],
    "Wind": ["Weak", "Strong"],
}


def _load_play_tennis() -> Dataset:
    header, rows = _read_table("play_tennis.csv")
    feats = list(_TENNIS_ORDER)
    idx = [header.index(f) for f in feats]
    X = np.array([[_TENNIS_ORDER[f].index(r[i]) for f, i in zip(feats, idx)] for r in rows],
                 dtype=np.int64)
    classes = ["No", "Yes"]
    y = np.array([classes.index(r[header.index("PlayTennis")]) for r in rows], dtype=np.int64)
    return Dataset(
        name="play_tennis", description=_REGISTRY["play_tennis"][0],
        X=X, y=y, y_true=y.copy(), feature_names=feats, class_names=classes,
        kind="categorical", categories=[list(_TENNIS_ORDER[f]) for f in feats])


def _load_abcd() -> Dataset:
    header, rows = _read_table("abcd.csv")
    data = np.array(rows, dtype=np.int64)
    n = data.shape[0]
    return Dataset(
        name="abcd", description=_REGISTRY["abcd"][0],
        X=data[:, :-1].astype(np.float64), y=np.full(n, -1, dtype=np.int64),
        y_true=data[:, -1].copy(), feature_names=header[:-1],
        class_names=["AB", "CD"], kind="binary")


def _load_synthetic_spam() -> Dataset:
    header, rows = _read_table("synthetic_spam.csv")
    data = np.array(rows, dtype=np.float64)
    with open(_shipped_file("synthetic_spam_truth.json"), encoding="utf-8") as f:
        t = json.load(f)
    y = data[:, -1].astype(np.int64)
    return Dataset(
        name="synthetic_spam", description=_REGISTRY["synthetic_spam"][0],
        X=data[:, :-1], y=y, y_true=y.copy(), feature_names=header[:-1],
        class_names=list(t["class_names"]), kind="binary",
        truth={"alpha": np.array(t["alpha"], dtype=np.float64),
               "beta": np.array(t["beta"], dtype=np.float64)})


def _synthetic_spam_draw() -> tuple[list[str], np.ndarray, np.ndarray]:
    """Re-draw synthetic_spam from the truth file with the documented seed.

    ``python -c "import nbcore.data as d; d._write_synthetic_spam()"`` rewrites
    datasets/synthetic_spam.csv from datasets/synthetic_spam_truth.json.
    """
    with open(_shipped_file("synthetic_spam_truth.json"), encoding="utf-8") as f:
        t = json.load(f)
    X, y = sample("bernoulli", t["alpha"], {"beta": t["beta"]}, t["n"], random_state=t["seed"])
    return list(t["feature_names"]), X, y


def _write_synthetic_spam() -> Path:
    names, X, y = _synthetic_spam_draw()
    path = datasets_dir() / "synthetic_spam.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(names + ["spam"])
        for row, label in zip(X.astype(int).tolist(), y.tolist()):
            w.writerow(row + [label])
    return path


def _load_digits() -> Dataset:
    from sklearn.datasets import load_digits  # bundled with scikit-learn, no download

    d = load_digits()
    X = (d.data > 7).astype(np.float64)
    y = d.target.astype(np.int64)
    return Dataset(
        name="digits", description=_REGISTRY["digits"][0],
        X=X, y=y, y_true=y.copy(),
        feature_names=[f"pixel_{r}_{c}" for r in range(8) for c in range(8)],
        class_names=[str(k) for k in range(10)], kind="binary", image_shape=(8, 8))


_REGISTRY = {
    "toy_spam": ("Six e-mails, three words (Cruise, Lottery, Win): the hand-worked "
                 "spam example", _load_toy_spam),
    "play_tennis": ("Fourteen days of weather and whether tennis was played: "
                    "categorical Naive Bayes by hand", _load_play_tennis),
    "abcd": ("Five unlabelled documents over words A-D: EM finds the two groups",
             _load_abcd),
    "synthetic_spam": ("600 e-mails drawn from a known Bernoulli Naive Bayes over 30 "
                       "words: compare estimates with the truth", _load_synthetic_spam),
    "digits": ("1,797 handwritten digits 0-9 as 8x8 black/white pixels (scikit-learn)",
               _load_digits),
}


def list_datasets() -> dict[str, str]:
    """``{name: one-line description}`` of the shipped datasets, in teaching order."""
    return {name: desc for name, (desc, _) in _REGISTRY.items()}


def load_dataset(name: str) -> Dataset:
    """Load a shipped dataset by name (see :func:`list_datasets`).  Always a fresh copy."""
    key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    if key not in _REGISTRY:
        raise DataError(f"There is no dataset called '{name}'. Choose one of: "
                        f"{', '.join(_REGISTRY)}.")
    return _REGISTRY[key][1]()


# --------------------------------------------------------------------------- #
# read_csv
# --------------------------------------------------------------------------- #
def _sort_key_values(values):
    if all(is_number(v) for v in values):
        return sorted(values, key=lambda v: (float(v), v))
    return sorted(values)


def _resolve_column(spec, columns: list[str], role: str, header: bool) -> int:
    found = ", ".join(f"'{c}'" for c in columns)
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        j = int(spec)
        if -len(columns) <= j < len(columns):
            return j % len(columns)
        raise DataError(f"The {role} column number {j} does not exist; the file has "
                        f"{len(columns)} columns ({found}). Fix: pick one of them.")
    name = str(spec).strip()
    if name in columns:
        return columns.index(name)
    lower = [c.lower() for c in columns]
    if name.lower() in lower and lower.count(name.lower()) == 1:
        return lower.index(name.lower())
    hint = "" if header else (" The file seems to have no header row, so columns are "
                              "numbered; pass the column's position (0 = first, -1 = last).")
    raise DataError(f"No {role} column called '{name}' was found. The columns in the file "
                    f"are: {found}. Fix: choose one of these names as the {role} column."
                    f"{hint}")


def _looks_like_text(cells: list[str]) -> bool:
    vals = [c.strip() for c in cells if c.strip()]
    if not vals or sum(is_number(v) for v in vals) > len(vals) / 2:
        return False
    return any(any(ch.isspace() for ch in v) for v in vals) or np.mean([len(v) for v in vals]) >= 15


def read_csv(path_or_file, text_column=None, label_column="label", ngram_range=(1, 1),
             analyzer="word", binary=True, min_df=1, max_features=None, stop_words=None,
             max_bytes=None, *, binarize=False, header=None) -> Dataset:
    """Read a teacher's CSV into a :class:`Dataset`.

    ``path_or_file``: a path, the file's bytes, or a binary file-like (e.g.
    Streamlit's UploadedFile).  Encoding (utf-8, utf-8-sig, latin-1), delimiter
    (comma, semicolon, tab, pipe; else comma) and header row are guessed and
    reported in ``ds.inferred``.  ``header=True/False`` overrides the guess.

    Labels: the ``label_column`` (a name, or a position such as -1) may hold any
    strings or numbers.  A blank cell means "unlabelled" (y = -1).  Classes are
    numbered 0..K-1 in sorted order of the label values (numeric order when all
    labels are numbers); ``ds.class_names`` holds them as strings.

    Text: if ``text_column`` is given, or if the file has exactly one column
    besides the label and it holds words (some cell has a space, or cells are
    15+ characters on average), the text is turned into word counts with
    scikit-learn's CountVectorizer(analyzer, ngram_range, binary, min_df,
    max_features, stop_words).  Words are lower-cased; with analyzer="word" a
    word is a run of letters/digits (single letters count).  The vocabulary is
    capped at :data:`MAX_FEATURES` most frequent terms (``ds.inferred`` says
    when it was cut).  ``binary=True`` gives kind "binary" (Bernoulli),
    ``binary=False`` kind "counts" (multinomial).  X is CSR; use
    ``ds.transform(["new message"])`` to score new text.  Other columns are
    ignored.

    Tables: otherwise every other column is a feature.  If all feature columns
    are numbers the kind is "continuous" (Gaussian), or "binary" when every value
    is 0 or 1; ``binarize=True`` turns numbers into ``x > 0`` (kind "binary").
    Columns of words are categorical: integer codes in sorted order of the
    values, names in ``ds.categories``.  Numeric columns with at most 20
    distinct values are treated as categories when mixed with word columns.

    Limits: files over ``max_bytes`` (default :data:`MAX_UPLOAD_BYTES`, 5 MB)
    are refused.  Encodings tried: UTF-16 with a byte-order mark, UTF-8 (with or
    without BOM, reported as "utf-8-sig" / "utf-8"), then Windows cp1252 when
    the bytes need it, else latin-1.  Files with NUL bytes or many control
    characters are refused as binary.

    Cells are always plain text: spreadsheet formulas (``=...``) are not run.
    """
    raw, fname = read_bytes(path_or_file, MAX_UPLOAD_BYTES if max_bytes is None else max_bytes)
    text, encoding = decode(raw)
    wanted = [str(c) for c in (label_column, text_column) if isinstance(c, str)]
    table = parse(text, header, wanted)
    columns, rows, lines = table["columns"], table["rows"], table["lines"]
    if label_column is None:
        raise DataError("read_csv needs a label column (blank cells in it mean "
                        "'unlabelled'). Fix: add a label column, even if most of it is blank.")
    lab = _resolve_column(label_column, columns, "label", table["header"])
    if len(columns) < 2:
        raise DataError(f"The file has only one column ('{columns[0]}'), so there are no "
                        "features besides the label. Fix: check the delimiter (commas "
                        "between values) or add feature columns.")

    # ---- labels
    label_cells = [r[lab].strip() for r in rows]
    present = sorted(set(c for c in label_cells if c))
    if not present:
        raise DataError(f"Every cell of the label column '{columns[lab]}' is blank, so no "
                        "class is known. Fix: give at least one row of each class a label "
                        "(EM needs labelled examples to know what the classes are).")
    if len(present) < 2:
        raise DataError(f"The label column '{columns[lab]}' has only one class "
                        f"('{present[0]}'). Naive Bayes needs at least two classes to "
                        "tell apart. Fix: add rows of another class, or choose a "
                        "different label column.")
    class_names = _sort_key_values(present)
    code = {c: k for k, c in enumerate(class_names)}
    y = np.array([code[c] if c else -1 for c in label_cells], dtype=np.int64)

    inferred = {
        "encoding": encoding, "delimiter": table["delimiter"], "header": table["header"],
        "n_rows": len(rows), "n_columns": len(columns), "columns": list(columns),
        "label_column": columns[lab], "n_labelled": int((y >= 0).sum()),
        "n_unlabelled": int((y < 0).sum()), "n_bytes": len(raw),
    }
    others = [j for j in range(len(columns)) if j != lab]

    if text_column is not None:
        tj = _resolve_column(text_column, columns, "text", table["header"])
        if tj == lab:
            raise DataError(f"The text column and the label column are both "
                            f"'{columns[lab]}'. Fix: choose two different columns.")
    elif len(others) == 1 and _looks_like_text([r[others[0]] for r in rows]):
        tj = others[0]
    else:
        tj = None

    common = dict(name=fname, description=f"Read from {fname}", y=y, class_names=class_names,
                  y_true=y.copy(), inferred=inferred)
    if tj is not None:
        inferred["text_column"] = columns[tj]
        inferred["ignored_columns"] = [columns[j] for j in others if j != tj]
        X, vec, info = _vectorize([r[tj] for r in rows], ngram_range, analyzer, binary,
                                  min_df, max_features, stop_words)
        inferred.update(info)
        kind = "binary" if binary else "counts"
        inferred["kind"] = kind
        return Dataset(X=X, feature_names=[str(t) for t in vec.get_feature_names_out()],
                       kind=kind, vectorizer=vec, **common)

    inferred["text_column"] = None
    X, kind, categories, info = _table_features(rows, lines, columns, others, binarize)
    inferred.update(info)
    inferred["kind"] = kind
    return Dataset(X=X, feature_names=[columns[j] for j in others], kind=kind,
                   categories=categories, **common)


def _vectorize(texts, ngram_range, analyzer, binary, min_df, max_features, stop_words):
    from sklearn.feature_extraction.text import CountVectorizer

    if analyzer not in ("word", "char", "char_wb"):
        raise DataError(f"analyzer must be 'word', 'char' or 'char_wb', not '{analyzer}'.")
    try:
        lo, hi = (int(v) for v in ngram_range)
    except (TypeError, ValueError):
        raise DataError("ngram_range must be two whole numbers like (1, 2).") from None
    if not 1 <= lo <= hi:
        raise DataError(f"ngram_range must be (low, high) with 1 <= low <= high; got {ngram_range}.")
    if stop_words not in (None, "english") and isinstance(stop_words, str):
        raise DataError("stop_words must be 'english', None, or a list of words.")
    cap = MAX_FEATURES if max_features is None else min(int(max_features), MAX_FEATURES)
    if cap < 1:
        raise DataError("max_features must be at least 1.")

    def make(mf):
        return CountVectorizer(analyzer=analyzer, ngram_range=(lo, hi), binary=bool(binary),
                               min_df=min_df, max_features=mf, stop_words=stop_words,
                               lowercase=True, dtype=np.float64,
                               token_pattern=r"(?u)\b\w+\b" if analyzer == "word" else None)

    vec = make(None)
    try:
        X = vec.fit_transform(texts)
    except ValueError as exc:
        msg = str(exc)
        if "empty vocabulary" in msg or "no terms remain" in msg or "min_df" in msg:
            raise DataError(
                "No words are left to use as features: the texts are empty, contain only "
                f"stop words, or min_df={min_df} is higher than the number of texts any "
                "word appears in. Fix: lower min_df, turn off stop-word removal, or check "
                "that the text column is the right one.") from None
        raise DataError(f"The text could not be turned into word counts ({msg}). Fix: "
                        "check the text column and the vectorizer settings.") from None
    full = X.shape[1]
    info = {"analyzer": analyzer, "ngram_range": (lo, hi), "binary": bool(binary),
            "min_df": min_df, "stop_words": stop_words, "max_features": cap,
            "vocabulary_size_before_cap": full, "truncated": full > cap}
    if full > cap:
        vec = make(cap)
        X = vec.fit_transform(texts)
    info["vocabulary_size"] = X.shape[1]
    return X.tocsr(), vec, info


def _table_features(rows, lines, columns, others, binarize):
    cols = {j: [r[j] for r in rows] for j in others}
    numeric = {}
    for j, cells in cols.items():
        vals = [c.strip() for c in cells if c.strip()]
        numeric[j] = bool(vals) and sum(is_number(v) for v in vals) > len(vals) / 2
    num_js = [j for j in others if numeric[j]]
    word_js = [j for j in others if not numeric[j]]
    info = {"numeric_columns": [columns[j] for j in num_js],
            "categorical_columns": [columns[j] for j in word_js], "binarized": False}

    if not word_js:
        X = np.column_stack([column_as_float(cols[j], columns[j], lines) for j in others])
        if binarize:
            info["binarized"] = True
            return (X > 0).astype(np.float64), "binary", None, info
        if np.isin(X, (0.0, 1.0)).all():
            return X, "binary", None, info
        return X, "continuous", None, info

    if binarize:
        raise DataError(
            f"binarize=True needs numeric columns, but {_names(columns, word_js)} hold words. "
            "Fix: remove those columns, or leave binarize off to treat words as categories.")
    too_many = [j for j in num_js if len({c.strip() for c in cols[j]}) > 20]
    if too_many:
        raise DataError(
            f"The file mixes columns of words ({_names(columns, word_js)}) with columns of "
            f"many different numbers ({_names(columns, too_many)}). One dataset uses one "
            "kind of feature. Fix: remove one group of columns, or turn the numbers into "
            "a few named bins (e.g. low/medium/high).")
    X = np.zeros((len(rows), len(others)), dtype=np.int64)
    categories = []
    for col, j in enumerate(others):
        cells = [c.strip() for c in cols[j]]
        for c, line in zip(cells, lines):
            if not c:
                raise DataError(f"Column '{columns[j]}' has an empty cell on line {line}. "
                                "Fix: fill it in, or delete that row.")
        names = _sort_key_values(sorted(set(cells)))
        index = {c: d for d, c in enumerate(names)}
        X[:, col] = [index[c] for c in cells]
        categories.append(names)
    return X, "categorical", categories, info


def _names(columns, js) -> str:
    shown = [f"'{columns[j]}'" for j in js[:5]]
    return ", ".join(shown) + (f" and {len(js) - 5} more" if len(js) > 5 else "")


# --------------------------------------------------------------------------- #
# hide_labels
# --------------------------------------------------------------------------- #
def hide_labels(y, fraction, random_state=None):
    """Hide a ``fraction`` of the known labels, stratified by class.

    Returns ``(y_obs, hidden)``: ``y_obs`` is a copy of ``y`` with ``-1`` where
    hidden; ``hidden`` is a boolean mask of the rows whose *known* label was
    hidden (so ``y[hidden]`` is the truth to score against).  Rows that were
    already ``-1`` stay ``-1`` and are **not** marked hidden, since there is no
    truth for them.  Per class, about ``fraction`` of its labelled rows are
    hidden (largest-remainder rounding so the total is
    ``round(fraction * n_labelled)``), but at least one labelled row per class
    is kept unless ``fraction == 1``.  The same ``random_state`` (int or
    numpy Generator) gives the same result.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of class codes; got shape {y.shape}.")
    if y.size and not np.issubdtype(y.dtype, np.integer):
        if not np.all(np.mod(y, 1) == 0):
            raise ValueError("y must hold whole-number class codes (-1 for unlabelled).")
    y = y.astype(np.int64)
    fraction = float(fraction)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be between 0 and 1 (e.g. 0.8 hides 80% of the "
                         f"labels); got {fraction}.")
    rng = random_state if isinstance(random_state, np.random.Generator) \
        else np.random.default_rng(random_state)
    classes = np.unique(y[y >= 0])
    members = [np.flatnonzero(y == k) for k in classes]
    sizes = np.array([m.size for m in members], dtype=np.int64)
    exact = fraction * sizes
    counts = np.floor(exact).astype(np.int64)
    extra = int(round(fraction * sizes.sum())) - int(counts.sum())
    if extra > 0:
        order = np.argsort(-(exact - counts), kind="stable")
        counts[order[:extra]] += 1
    if fraction < 1.0:
        counts = np.minimum(counts, np.maximum(sizes - 1, 0))
    else:
        counts = sizes
    hidden = np.zeros(y.shape, dtype=bool)
    for m, c in zip(members, counts):
        if c:
            hidden[rng.permutation(m)[:c]] = True
    y_obs = y.copy()
    y_obs[hidden] = -1
    return y_obs, hidden
