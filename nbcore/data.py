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
import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._csv import MAX_UPLOAD_BYTES, DataError, column_as_float, decode, is_number, parse, read_bytes
from ._columns import guess_columns, inspect_csv
from ._sampling import sample
from .models import get_model
from .text import MAX_FEATURES, TextPipeline, vectorize

#: Event models that make sense for each kind of feature; the first is the default.
MODELS_FOR_KIND = {
    "binary": ("bernoulli", "multinomial"),
    "counts": ("multinomial", "bernoulli"),
    "categorical": ("categorical",),
    "continuous": ("gaussian", "bernoulli"),
}

__all__ = [
    "DataError", "Dataset", "MAX_FEATURES", "MAX_UPLOAD_BYTES", "MODELS_FOR_KIND",
    "TextPipeline", "datasets_dir", "guess_columns", "hide_labels", "inspect_csv",
    "list_datasets", "load_dataset", "read_csv", "sample",
]


# --------------------------------------------------------------------------- #
# Dataset
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
        if self.kind not in MODELS_FOR_KIND:
            raise ValueError(f"kind must be one of {sorted(MODELS_FOR_KIND)}, got {self.kind!r}")
        if not self.models:
            object.__setattr__(self, "models", MODELS_FOR_KIND[self.kind])
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

    def with_pipeline(self, pipeline: TextPipeline | None = None, **changes) -> "Dataset":
        """The same documents turned into features with other text settings.

        ``pipeline`` replaces the current one; keyword arguments change single
        fields of it (``ds.with_pipeline(tokens="char", ngram_range=(3, 3))``).
        Labels, texts and class names are kept; X, the vocabulary, ``kind`` and
        ``models`` follow the new settings (presence -> Bernoulli first,
        counts -> multinomial first).
        """
        if not self.is_text:
            raise DataError(f"The {self.name!r} data set has no raw text, so its text "
                            "settings cannot be changed.")
        new = (pipeline if pipeline is not None else self.pipeline)
        if changes:
            new = new.replace(**changes)
        if new == self.pipeline:
            return self
        X, vec, info = vectorize(self.texts, new)
        inferred = dict(self.inferred or {})
        inferred.update(info)
        inferred["kind"] = new.kind
        return dataclasses.replace(
            self, X=X, feature_names=[str(t) for t in vec.get_feature_names_out()],
            kind=new.kind, models=MODELS_FOR_KIND[new.kind], vectorizer=vec, pipeline=new,
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
# --------------------------------------------------------------------------- #
def datasets_dir() -> Path:
    """Folder holding the shipped data files.

    In order: ``$NBCORE_DATASETS`` if set; ``nbcore/_datasets`` inside an
    installed wheel (``pip install .`` copies the checkout's ``datasets/``
    there); else the ``datasets/`` folder of the source checkout next to the
    ``nbcore`` package (``pip install -e .`` or running from the checkout).
    An installed package never looks at ``site-packages/datasets`` (that is
    the unrelated PyPI ``datasets`` package).
    """
    env = os.environ.get("NBCORE_DATASETS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent
    if (here / "_datasets").is_dir():
        return here / "_datasets"
    return here.parent / "datasets"


def _shipped_file(filename: str) -> Path:
    folder = datasets_dir()
    path = folder / filename
    if not path.is_file():
        raise DataError(
            f"The teaching data file '{filename}' was not found in '{folder}'. The shipped "
            "datasets live in the 'datasets' folder of the nbcore source checkout and "
            "inside the installed package. Fix: reinstall nbcore from the checkout "
            "('pip install .' or 'pip install -e .'), or set the environment variable "
            "NBCORE_DATASETS to the folder that holds the files.")
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
        truth={"model": "bernoulli", "alpha": np.array(t["alpha"], dtype=np.float64),
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


def _card(name: str) -> str | None:
    path = datasets_dir() / f"{name}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _text_dataset(name, texts, labels, class_names, pipeline, **extra) -> Dataset:
    code = {c: k for k, c in enumerate(class_names)}
    y = np.array([code[c] for c in labels], dtype=np.int64)
    X, vec, info = vectorize(texts, pipeline)
    info["kind"] = pipeline.kind
    return Dataset(
        name=name, description=_REGISTRY[name][0], X=X, y=y, y_true=y.copy(),
        feature_names=[str(t) for t in vec.get_feature_names_out()],
        class_names=list(class_names), kind=pipeline.kind, vectorizer=vec,
        texts=tuple(texts), pipeline=pipeline, inferred=info, card=_card(name), **extra)


#: Text settings each shipped corpus opens with (the lab shows and changes them).
DEFAULT_PIPELINES = {
    "sms_spam": TextPipeline(tokens="word", ngram_range=(1, 1), binary=True, min_df=2),
    "udhr_langid": TextPipeline(tokens="char", ngram_range=(1, 3), binary=False),
}


def _load_sms_spam(pipeline: TextPipeline | None = None) -> Dataset:
    """SMS Spam Collection v.1: one message a line, ``label<TAB>text``, no header."""
    labels, texts = [], []
    with open(_shipped_file("sms_spam.tsv"), encoding="utf-8", newline="") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            label, sep, text = line.partition("\t")
            if not sep or label not in ("ham", "spam"):
                raise DataError(f"sms_spam.tsv line {n} is not 'ham|spam<TAB>text'.")
            labels.append(label)
            texts.append(text)
    return _text_dataset("sms_spam", texts, labels, ["ham", "spam"],
                         pipeline or DEFAULT_PIPELINES["sms_spam"])


def _load_udhr_langid(pipeline: TextPipeline | None = None) -> Dataset:
    """Short UDHR passages in 10 languages (built by scripts/build_udhr_langid.py)."""
    with open(_shipped_file("udhr_langid.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    order = []
    for r in rows:  # languages in file order (the build script's order)
        if r["language"] not in order:
            order.append(r["language"])
    return _text_dataset("udhr_langid", [r["text"] for r in rows], [r["language"] for r in rows],
                         order, pipeline or DEFAULT_PIPELINES["udhr_langid"])


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
    "sms_spam": ("5,574 real SMS messages, 747 of them spam (SMS Spam Collection, "
                 "CC BY 4.0): real words in alpha and beta", _load_sms_spam),
    "udhr_langid": ("2,760 short passages of the Universal Declaration of Human Rights "
                    "in 10 languages: language identification with character n-grams",
                    _load_udhr_langid),
}

#: Shipped data sets whose rows are documents (raw text kept, text settings apply).
TEXT_DATASETS = tuple(DEFAULT_PIPELINES)


def list_datasets() -> dict[str, str]:
    """``{name: one-line description}`` of the shipped datasets, in teaching order."""
    return {name: desc for name, (desc, _) in _REGISTRY.items()}


def load_dataset(name: str, pipeline: TextPipeline | None = None, **text_settings) -> Dataset:
    """Load a shipped dataset by name (see :func:`list_datasets`).  Always a fresh copy.

    Text corpora ("sms_spam", "udhr_langid") open with their default text
    settings (``DEFAULT_PIPELINES``); pass a :class:`TextPipeline` or single
    settings to change them, e.g.
    ``load_dataset("sms_spam", binary=False)`` (counts, multinomial) or
    ``load_dataset("udhr_langid", tokens="word")``.
    """
    key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    if key not in _REGISTRY:
        raise DataError(f"There is no dataset called '{name}'. Choose one of: "
                        f"{', '.join(_REGISTRY)}.")
    if key not in DEFAULT_PIPELINES:
        if pipeline is not None or text_settings:
            raise DataError(f"The '{key}' data set is not text, so text settings do not "
                            f"apply. Text data sets: {', '.join(TEXT_DATASETS)}.")
        return _REGISTRY[key][1]()
    p = pipeline if pipeline is not None else DEFAULT_PIPELINES[key]
    if text_settings:
        p = p.replace(**text_settings)
    return _REGISTRY[key][1](p)


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
             max_bytes=None, *, binarize=False, header=None, lowercase=True,
             pipeline: TextPipeline | None = None, ignore_columns=()) -> Dataset:
    """Read a teacher's CSV into a :class:`Dataset`.

    ``path_or_file``: a path, the file's bytes, or a binary file-like (e.g.
    Streamlit's UploadedFile).  Encoding (utf-8, utf-8-sig, latin-1), delimiter
    (comma, semicolon, tab, pipe; else comma) and header row are guessed and
    reported in ``ds.inferred``.  ``header=True/False`` overrides the guess.

    Labels: the ``label_column`` (a name, or a position such as -1) may hold any
    strings or numbers.  A blank cell means "unlabelled" (y = -1).  Classes are
    numbered 0..K-1 in sorted order of the label values (numeric order when all
    labels are numbers); ``ds.class_names`` holds them as strings.

    Text: if ``text_column`` is given (a name/position, or a list of them whose
    cells are joined with a newline), or if the file has exactly one column
    besides the label and it holds words (some cell has a space, or cells are
    15+ characters on average), the text is turned into term counts by a
    :class:`~nbcore.text.TextPipeline` (scikit-learn's CountVectorizer):
    ``pipeline`` if given, else one made from analyzer ("word"; "char" or
    "char_wb" = character n-grams inside words), ngram_range, binary, min_df,
    max_features, stop_words ("english" or None) and lowercase.  With words a
    word is a run of letters/digits (single letters count).  The vocabulary is
    capped at :data:`MAX_FEATURES` most frequent terms (``ds.inferred`` says
    when it was cut).  ``binary=True`` gives kind "binary" (Bernoulli),
    ``binary=False`` kind "counts" (multinomial).  X is CSR; ``ds.texts`` keeps
    the raw text, ``ds.with_pipeline(...)`` re-vectorises it and
    ``ds.transform(["new message"])`` scores new text.  Other columns are
    ignored.  :func:`inspect_csv` guesses which columns are text and label.

    Tables: otherwise every other column is a feature (except ``ignore_columns``).  If all feature columns
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
    text_specs = (list(text_column) if isinstance(text_column, (list, tuple))
                  else [] if text_column is None else [text_column])
    if isinstance(text_column, (list, tuple)) and not text_specs:
        text_specs = None
    ignore_specs = [ignore_columns] if isinstance(ignore_columns, (str, int)) else list(ignore_columns or ())
    wanted = [str(c) for c in [label_column, *(text_specs or []), *ignore_specs] if isinstance(c, str)]
    table = parse(text, header, wanted)
    columns, rows, lines = table["columns"], table["rows"], table["lines"]
    if label_column is None:
        raise DataError("read_csv needs a label column (blank cells in it mean "
                        "'unlabelled'). Fix: add a label column, even if most of it is blank.")
    try:
        lab = _resolve_column(label_column, columns, "label", table["header"])
    except DataError as exc:
        guess = guess_columns(columns, rows, table["header"])
        if guess["label"] is None:
            raise
        raise DataError(f"{exc} The column '{guess['label']}' looks like the labels "
                        f"({guess['reasons'].get(guess['label'], '')}).") from None
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
    ignored = {_resolve_column(c, columns, "ignored", table["header"]) for c in ignore_specs}
    ignored.discard(lab)
    others = [j for j in range(len(columns)) if j != lab and j not in ignored]

    if text_specs:
        tjs = []
        for spec in text_specs:
            tj = _resolve_column(spec, columns, "text", table["header"])
            if tj == lab:
                raise DataError(f"The text column and the label column are both "
                                f"'{columns[lab]}'. Fix: choose two different columns.")
            if tj not in tjs:
                tjs.append(tj)
    elif text_specs is None:
        tjs = []
    elif len(others) == 1 and _looks_like_text([r[others[0]] for r in rows]):
        tjs = [others[0]]
    else:
        tjs = []

    common = dict(name=fname, description=f"Read from {fname}", y=y, class_names=class_names,
                  y_true=y.copy(), inferred=inferred)
    if tjs:
        inferred["text_column"] = columns[tjs[0]]
        inferred["text_columns"] = [columns[j] for j in tjs]
        inferred["ignored_columns"] = [columns[j] for j in range(len(columns))
                                       if j != lab and j not in tjs]
        if pipeline is None:
            pipeline = _pipeline_from_args(analyzer, ngram_range, binary, min_df,
                                           max_features, stop_words, lowercase)
        texts = tuple("\n".join(r[j] for j in tjs) for r in rows)
        X, vec, info = vectorize(texts, pipeline, cap=MAX_FEATURES)
        inferred.update(info)
        inferred["kind"] = pipeline.kind
        return Dataset(X=X, feature_names=[str(t) for t in vec.get_feature_names_out()],
                       kind=pipeline.kind, vectorizer=vec, texts=texts, pipeline=pipeline,
                       **common)

    inferred["text_column"] = None
    inferred["ignored_columns"] = [columns[j] for j in sorted(ignored)]
    if not others:
        raise DataError("Every column besides the label is ignored, so there are no "
                        "features. Fix: pick a text column, or keep some feature columns.")
    X, kind, categories, info = _table_features(rows, lines, columns, others, binarize)
    inferred.update(info)
    inferred["kind"] = kind
    return Dataset(X=X, feature_names=[columns[j] for j in others], kind=kind,
                   categories=categories, **common)


def _pipeline_from_args(analyzer, ngram_range, binary, min_df, max_features, stop_words,
                        lowercase) -> TextPipeline:
    """read_csv's CountVectorizer-style arguments -> a TextPipeline."""
    if analyzer not in ("word", "char", "char_wb"):
        raise DataError(f"analyzer must be 'word', 'char' or 'char_wb', not '{analyzer}'.")
    if stop_words not in (None, "english", True, False):
        raise DataError("stop_words must be 'english' or None.")
    try:
        md = int(min_df)
    except (TypeError, ValueError):
        raise DataError("min_df must be a whole number of documents (1 = keep every word).") from None
    if isinstance(min_df, float) and not float(min_df).is_integer():
        raise DataError("min_df must be a whole number of documents (1 = keep every word).")
    return TextPipeline(tokens="word" if analyzer == "word" else "char",
                        ngram_range=tuple(ngram_range) if ngram_range is not None else (1, 1),
                        binary=bool(binary), min_df=md, max_features=max_features,
                        stop_words=bool(stop_words), lowercase=bool(lowercase))


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
