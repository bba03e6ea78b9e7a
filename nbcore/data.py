"""Datasets: the shipped teaching sets (this module), and re-exported here: the
:class:`Dataset` type (``dataset``), a teacher's CSV (``csv_reader``), label hiding
(``labels``) and sampling (``_sampling``).

Public API
----------
``load_dataset(name)``        one of :func:`list_datasets` -> :class:`Dataset`
``list_datasets()``           ``{name: one-line description}``
``read_csv(path_or_file, ...)`` a teacher's own CSV (text or table) -> :class:`Dataset`
``hide_labels(y, fraction, random_state=None)`` -> ``(y_obs, hidden)``
``sample(model, alpha, params, n, random_state=None, doc_length=20)`` -> ``(X, y)``
``DataError``                 raised for unusable input; the message says the fix

Notation follows the course notes: ``alpha`` (K,) is the class prior and, for
Bernoulli, ``beta[j, k] = p(word j present | class k)`` has shape (V, K).
Class codes are 0..K-1; ``-1`` in ``y`` means "no label".

The shipped data files live in the repository's ``datasets/`` folder (next to
the ``nbcore`` package).  Set the environment variable ``NBCORE_DATASETS`` to
use another folder (e.g. for a non-editable install); "digits" needs no file.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
from pathlib import Path

import numpy as np

from ._columns import NOT_USED, guess_columns, inspect_csv

# the data set type, a teacher's CSV and label hiding live in their own modules; they are
# re-exported here, where a user of ``nbcore.data`` has always found them
from ._csv import DataError
from ._sampling import sample
from .csv_reader import read_csv
from .dataset import MODELS_FOR_KIND, Dataset
from .labels import hide_labels
from .text import TextPipeline, vectorize

__all__ = [
    "DataError", "Dataset", "MODELS_FOR_KIND", "NOT_USED",
    "TextPipeline", "datasets_dir", "guess_columns", "hide_labels", "inspect_csv",
    "list_datasets", "load_dataset", "read_csv", "read_shipped_csv", "sample",
]


# --------------------------------------------------------------------------- #
# Dataset


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
    # e-mails are long: words in >= 2 messages, and the 20,000 most frequent of them (the
    # lab's own vocabulary cap), so the matrix and every beta stay a classroom size
    "spam_assassin": TextPipeline(tokens="word", ngram_range=(1, 1), binary=True, min_df=2,
                                  max_features=20_000),
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


def _load_spam_assassin(pipeline: TextPipeline | None = None) -> Dataset:
    """SpamAssassin public corpus, cleaned subject + body text (built by
    scripts/build_spam_assassin.py): gzip TSV with a header ``label, group, id, text``.
    The group (the corpus's sub-folder) and id stay in the file; the data set keeps label and text."""
    labels, texts = [], []
    with gzip.open(_shipped_file("spam_assassin.tsv.gz"), "rt", encoding="utf-8", newline="") as f:
        header = f.readline().rstrip("\n").split("\t")
        if header != ["label", "group", "id", "text"]:
            raise DataError("spam_assassin.tsv.gz does not start with the header "
                            "'label, group, id, text' (tab-separated).")
        for n, line in enumerate(f, 2):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4 or parts[0] not in ("ham", "spam"):
                raise DataError(f"spam_assassin.tsv.gz line {n} is not 'ham|spam<TAB>group<TAB>id<TAB>text'.")
            labels.append(parts[0])
            texts.append(parts[3])
    return _text_dataset("spam_assassin", texts, labels, ["ham", "spam"],
                         pipeline or DEFAULT_PIPELINES["spam_assassin"])


def read_shipped_csv(name: str, **read_options) -> Dataset:
    """A shipped data set that is one plain CSV, ``datasets/<name>.csv``, read by
    :func:`nbcore.read_csv` (``read_options``: ``label_column``, ``text_column``, ...), with
    its one-line description from the registry and its data card ``datasets/<name>.md``.

    This is the whole loader of a new tabular or text data set: one registry entry
    ``"<name>": ("description", lambda: read_shipped_csv("<name>", label_column="label"))``."""
    from dataclasses import replace

    ds = read_csv(_shipped_file(f"{name}.csv"), **read_options)
    return replace(ds, name=name, description=_REGISTRY[name][0], card=_card(name))


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
    "spam_assassin": ("5,915 real e-mails, 1,807 of them spam (SpamAssassin public corpus, "
                      "PDDL 1.0 / CC0 1.0): long documents, where Bernoulli and multinomial part ways",
                      _load_spam_assassin),
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
