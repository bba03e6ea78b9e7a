"""A teacher's own CSV -> :class:`~nbcore.dataset.Dataset` (:func:`read_csv`).

Low-level reading (bytes, encoding, delimiter, header guess) is in ``_csv``; column
guessing in ``_columns``; turning text into word features in :mod:`nbcore.text`.

How :func:`read_csv` reads a file
---------------------------------
The file: a path, the file's bytes, or a binary file-like (e.g. Streamlit's UploadedFile).
Encoding (utf-8, utf-8-sig, latin-1), delimiter (comma, semicolon, tab, pipe; else comma) and
header row are guessed and reported in ``ds.inferred``.  ``header=True/False`` overrides the guess.

Labels: the ``label_column`` (a name, or a position such as -1) may hold any
strings or numbers.  A blank cell, or a missing-value marker (``NaN``, ``NA``,
``N/A``, ``null``, ``None``, ``#N/A``, any case), means "unlabelled" (y = -1).
A column of more than 10 different numbers with decimals is refused with a
question (it is a measurement, not classes).  Classes are
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
word is a run of letters/digits (single letters count).  With
``max_features`` the vocabulary keeps that many most frequent terms
(``ds.inferred`` says when it was cut); by default every term is kept.
``cap`` keeps at most that many terms whatever the pipeline asks (an
application's own limit; the pipeline itself is left as chosen).  ``binary=True`` gives kind "binary" (Bernoulli),
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

Limits: none by default; with ``max_bytes`` a larger file is refused (the
dashboard passes its upload cap).  Encodings tried: UTF-16 with a byte-order mark, UTF-8 (with or
without BOM, reported as "utf-8-sig" / "utf-8"), then Windows cp1252 when
the bytes need it, else latin-1.  Files with NUL bytes or many control
characters are refused as binary.

Cells are always plain text: spreadsheet formulas (``=...``) are not run.
"""

from __future__ import annotations

import numpy as np

from ._columns import guess_columns
from ._csv import DataError, column_as_float, decode, is_missing, is_number, parse, read_bytes
from .dataset import Dataset
from .text import TextPipeline, vectorize

__all__ = ["read_csv"]


# --------------------------------------------------------------------------- #
# read_csv
# --------------------------------------------------------------------------- #
def _sort_key_values(values):
    if all(is_number(v) for v in values):
        return sorted(values, key=lambda v: (float(v), v))
    return sorted(values)


#: A numeric label column with more distinct non-whole values than this is a measurement, not classes.
MAX_DECIMAL_CLASSES = 10


def _check_not_a_measurement(present: list[str], name: str) -> None:
    """Refuse, with a question, a label column of many different decimal numbers (a price, a score):
    read as labels each value would be a class of its own."""
    if len(present) <= MAX_DECIMAL_CLASSES or not all(is_number(v) for v in present):
        return
    values = [float(v) for v in present]
    if all(np.isfinite(v) and float(v).is_integer() for v in values):
        return
    shown = ", ".join(present[:3])
    raise DataError(f"The label column '{name}' holds {len(present):,} different numbers with decimals "
                    f"(e.g. {shown}): is it really the classes? Read as labels, every value would be a "
                    f"class of its own ({len(present):,} classes). Fix: pick the column that holds the "
                    "classes (a few values, e.g. spam/ham), or group these numbers into a few named "
                    "classes (e.g. low/high) in the file.")


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
             pipeline: TextPipeline | None = None, ignore_columns=(), cap=None) -> Dataset:
    """Read a teacher's CSV into a :class:`Dataset` (how each part is read: the module docstring).

    Parameters
    ----------
    path_or_file : path, bytes or binary file-like (e.g. Streamlit's UploadedFile)
    text_column : name, position, list of them, or None
        The text (a list: cells joined with a newline); None: the one other column if it holds words.
    label_column : name or position (e.g. -1)
        Blank cells and missing-value markers (NaN, NA, null, ...) are unlabelled (y = −1).
    ngram_range, analyzer, binary, min_df, max_features, stop_words, lowercase
        Make the :class:`~nbcore.text.TextPipeline` when ``pipeline`` is None (CountVectorizer's
        meanings; analyzer "char" or "char_wb" = character n-grams inside words).
    max_bytes : int or None
        A larger file is refused (the dashboard passes its upload cap).
    binarize : bool
        Numeric table features become ``x > 0`` (kind "binary").
    header : bool or None
        Whether the first row names the columns (None: guessed).
    pipeline : TextPipeline or None
    ignore_columns : name, position or a list of them: columns that are not features
    cap : int or None
        At most this many terms, whatever the pipeline asks (an application's own limit).

    Returns
    -------
    Dataset
        X: (N, V) CSR term counts for text, else (N, D) numbers or category codes; y: (N,) class
        codes, −1 = unlabelled; what was guessed in ``ds.inferred``.
    """
    raw, fname = read_bytes(path_or_file, max_bytes)
    text, encoding = decode(raw)
    text_specs, ignore_specs = _column_specs(text_column, ignore_columns)
    wanted = [str(c) for c in [label_column, *(text_specs or []), *ignore_specs] if isinstance(c, str)]
    table = parse(text, header, wanted)
    columns, rows = table["columns"], table["rows"]
    lab = _label_index(label_column, table)
    y, class_names, n_markers = _read_labels([r[lab] for r in rows], columns[lab])
    inferred = {
        "encoding": encoding, "delimiter": table["delimiter"], "header": table["header"],
        "n_rows": len(rows), "n_columns": len(columns), "columns": list(columns),
        "label_column": columns[lab], "n_labelled": int((y >= 0).sum()),
        "n_unlabelled": int((y < 0).sum()), "n_bytes": len(raw),
        "n_missing_markers": n_markers,   # label cells such as NaN / NA / null read as unlabelled
    }
    ignored = {_resolve_column(c, columns, "ignored", table["header"]) for c in ignore_specs}
    ignored.discard(lab)
    others = [j for j in range(len(columns)) if j != lab and j not in ignored]
    tjs = _text_indices(text_specs, table, lab, others)
    common = dict(name=fname, description=f"Read from {fname}", y=y, class_names=class_names,
                  y_true=y.copy(), inferred=inferred)
    if tjs:
        if pipeline is None:
            pipeline = _pipeline_from_args(analyzer, ngram_range, binary, min_df,
                                           max_features, stop_words, lowercase)
        return _text_dataset(table, tjs, lab, pipeline, cap, common)
    return _table_dataset(table, others, sorted(ignored), binarize, common)


def _column_specs(text_column, ignore_columns) -> tuple:
    """read_csv's ``text_column`` and ``ignore_columns`` as lists of names or positions.

    Returns
    -------
    text_specs : list, or None for an empty list or tuple given (no text column, none guessed)
    ignore_specs : list
    """
    text_specs = (list(text_column) if isinstance(text_column, (list, tuple))
                  else [] if text_column is None else [text_column])
    if isinstance(text_column, (list, tuple)) and not text_specs:
        text_specs = None
    ignore_specs = [ignore_columns] if isinstance(ignore_columns, (str, int)) else list(ignore_columns or ())
    return text_specs, ignore_specs


def _label_index(label_column, table: dict) -> int:
    """The label column's index in the parsed ``table``; a DataError names the column that looks
    like the labels when ``label_column`` is not found, and refuses a file of one column."""
    columns, rows = table["columns"], table["rows"]
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
    return lab


def _read_labels(cells: list[str], name: str) -> tuple:
    """Class codes from the label column's cells: a blank cell or a missing-value marker (NaN, NA,
    null, None…) is "unlabelled"; classes are numbered in sorted order of their values.

    Parameters
    ----------
    cells : (N,) the column's cells, as read
    name : the column's name (for the messages)

    Returns
    -------
    y : (N,) int64, −1 = unlabelled
    class_names : list of K ≥ 2 str
    n_markers : int, cells that held a missing-value marker
    """
    label_cells = [c.strip() for c in cells]
    n_markers = sum(1 for c in label_cells if c and is_missing(c))
    label_cells = ["" if is_missing(c) else c for c in label_cells]
    present = sorted(set(c for c in label_cells if c))
    if not present:
        raise DataError(f"Every cell of the label column '{name}' is blank, so no "
                        "class is known. Fix: give at least one row of each class a label "
                        "(EM needs labelled examples to know what the classes are).")
    if len(present) < 2:
        raise DataError(f"The label column '{name}' has only one class "
                        f"('{present[0]}'). Naive Bayes needs at least two classes to "
                        "tell apart. Fix: add rows of another class, or choose a "
                        "different label column.")
    _check_not_a_measurement(present, name)
    class_names = _sort_key_values(present)
    code = {c: k for k, c in enumerate(class_names)}
    return np.array([code[c] if c else -1 for c in label_cells], dtype=np.int64), class_names, n_markers


def _text_indices(text_specs, table: dict, lab: int, others: list[int]) -> list[int]:
    """The text columns' indices: those asked for (never the label), else the one other column
    when it holds words; [] for a table."""
    columns, rows = table["columns"], table["rows"]
    if text_specs:
        tjs = []
        for spec in text_specs:
            tj = _resolve_column(spec, columns, "text", table["header"])
            if tj == lab:
                raise DataError(f"The text column and the label column are both "
                                f"'{columns[lab]}'. Fix: choose two different columns.")
            if tj not in tjs:
                tjs.append(tj)
        return tjs
    if text_specs is not None and len(others) == 1 and _looks_like_text([r[others[0]] for r in rows]):
        return [others[0]]
    return []


def _text_dataset(table: dict, tjs: list[int], lab: int, pipeline: TextPipeline, cap, common: dict) -> Dataset:
    """A text data set: the cells of the columns ``tjs`` (joined with a newline) -> (N, V) term counts."""
    columns, rows, inferred = table["columns"], table["rows"], common["inferred"]
    inferred["text_column"] = columns[tjs[0]]
    inferred["text_columns"] = [columns[j] for j in tjs]
    inferred["ignored_columns"] = [columns[j] for j in range(len(columns)) if j != lab and j not in tjs]
    texts = tuple("\n".join(r[j] for j in tjs) for r in rows)
    X, vec, info = vectorize(texts, pipeline, cap=cap)
    inferred.update(info)
    inferred["kind"] = pipeline.kind
    return Dataset(X=X, feature_names=[str(t) for t in vec.get_feature_names_out()],
                   kind=pipeline.kind, vectorizer=vec, texts=texts, pipeline=pipeline, **common)


def _table_dataset(table: dict, others: list[int], ignored: list[int], binarize: bool, common: dict) -> Dataset:
    """A table data set: the columns ``others`` as (N, D) features (numbers, 0/1 or category codes)."""
    columns, inferred = table["columns"], common["inferred"]
    inferred["text_column"] = None
    inferred["ignored_columns"] = [columns[j] for j in ignored]
    if not others:
        raise DataError("Every column besides the label is ignored, so there are no "
                        "features. Fix: pick a text column, or keep some feature columns.")
    X, kind, categories, info = _table_features(table["rows"], table["lines"], columns, others, binarize)
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
