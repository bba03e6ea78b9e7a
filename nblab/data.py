"""A data set → the lab's data: one JSON-able dict the browser's engine (``nblab/js``) runs EM on.

:func:`lab_data` takes a :class:`nbcore.Dataset` (or a shipped data set's name);
:func:`lab_data_from_arrays` takes a plain (X, y). Arrays travel as base64 little-endian typed
arrays (``{"dtype": "u16", "b64": "..."}``, decoded by ``nblab/js/data.js``), in the smallest
type that holds them exactly.

The dict (``format`` = ``"nblab-data/1"``)::

    name, description, card, kind        the data set (card: its data card's text or None)
    models                               the event models the lesson offers (ds.models; first = default)
    modelInputs {model: "as_is"|"binarize"}   how ds.for_model(model) makes the model's matrix
    modelOptions {model: {...}}          the model's suggested_options on that matrix (the lesson's
                                         model options, e.g. the Gaussian var_floor)
    classNames (K), featureNames (V)     (V = features; for categorical data, the columns)
    n, v, k
    y                                    (N,) labels EM may see (−1 = unlabelled), int8/16/32
    yTrue                                (N,) the truth where known (−1 where not), or None
    matrix  {"format": "csr", n, v, indptr u32 (n+1), indices u16|u32 (nnz), data (nnz) or None = all ones}
          | {"format": "dense", n, v, values f64 (n*v)}                         (continuous data)
          | {"format": "codes", n, v, codes u8|u16|u32 (n*v), nCategories (v), categories}
    text   None, or the text pipeline that made the features (to turn a typed message into x):
           {analyzer: "word"|"char_wb", tokenPattern, ngramRange, lowercase, stopWords (list|None),
            binary, describe}; the vocabulary is featureNames (column j = featureNames[j])
    imageShape                           e.g. [8, 8] for digits, or None
    truth                                the generating model's α and parameters (synthetic data), or None
    texts                                (N,) the documents, or None (``texts=False`` leaves them out)

The lesson in the app builds its run from the same pieces (``dashboard/lesson/prepare``):
X = ds.for_model(model), labels hidden by ``nbcore.hide_labels(ds.y, hidden / 100, seed)``,
model options = the model's ``suggested_options(X)``. The app's model choice does not change the
text settings (a text pipeline's presence/counts switch changes the model, not the other way), so
one matrix per data set serves every offered model.
"""
from __future__ import annotations

import base64
import sys

import numpy as np

import nbcore
from nbcore.models import get_model, model_made_for

__all__ = ["lab_data", "lab_data_from_arrays", "encode_array", "FORMAT"]

FORMAT = "nblab-data/1"

_DTYPES = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.uint32): "u32",
           np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
           np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


def encode_array(a: np.ndarray) -> dict:
    """A 1-D array as ``{"dtype", "b64"}``: its bytes, little-endian, in base64."""
    a = np.ascontiguousarray(a)
    if a.dtype not in _DTYPES:
        raise TypeError(f"cannot encode an array of dtype {a.dtype}")
    little = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return {"dtype": _DTYPES[a.dtype], "b64": base64.b64encode(little.tobytes()).decode("ascii")}


def _smallest_uint(a: np.ndarray) -> np.ndarray:
    top = int(a.max()) if a.size else 0
    if int(a.min(initial=0)) < 0:
        raise ValueError("negative values cannot be stored unsigned")
    for t in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(t).max:
            return a.astype(t)
    raise ValueError("values beyond 2^32")


def _smallest_int(a: np.ndarray) -> np.ndarray:
    lo, hi = (int(a.min()), int(a.max())) if a.size else (0, 0)
    for t in (np.int8, np.int16, np.int32):
        if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
            return a.astype(t)
    raise ValueError("labels beyond int32")


def _exact_values(a: np.ndarray) -> np.ndarray | None:
    """The matrix's values in the smallest type that holds every one exactly (None: all ones)."""
    a = np.asarray(a, dtype=np.float64)
    if a.size and np.all(a == 1.0):
        return None
    if np.all(a == np.round(a)) and (a.size == 0 or a.min() >= 0) and (a.size == 0 or a.max() < 2 ** 32):
        return _smallest_uint(a.astype(np.int64))
    if np.all(a.astype(np.float32).astype(np.float64) == a):
        return a.astype(np.float32)
    return a


def _is_sparse(X) -> bool:
    return hasattr(X, "tocsr") and hasattr(X, "nnz")


def _csr_parts(X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, data) of X as CSR without stored zeros, entries in X's own order within a
    row (a dense X: ascending columns)."""
    if _is_sparse(X):
        M = X.tocsr()
        indptr, indices, data = M.indptr, M.indices, np.asarray(M.data, dtype=np.float64)
    else:
        D = np.asarray(X, dtype=np.float64)
        rows, cols = np.nonzero(D)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=D.shape[0]))])
        indices, data = cols, D[rows, cols]
    keep = data != 0  # what the Bernoulli model's prepare drops; a zero adds nothing elsewhere
    if not keep.all():
        rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows[keep], minlength=len(indptr) - 1))])
        indices, data = indices[keep], data[keep]
    return np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int64), data


def matrix_format(kind: str) -> str:
    """How the lab's JSON holds a matrix of feature ``kind``, from the tags of the event model made for it
    (nbcore's registry): "codes" when it reads integer codes, "dense" when it takes no sparse matrix, "csr"
    otherwise (words, counts, pixels; also a kind no registered model is made for). The browser's model
    of that name says the same in its ``matrixFormat`` (nblab/js/models.js)."""
    reader = model_made_for(kind)
    if reader is None:
        return "csr"
    if np.issubdtype(np.dtype(reader.input_dtype), np.integer):
        return "codes"
    return "csr" if reader.accepts_sparse else "dense"


def _matrix(X, kind: str, ds=None) -> dict:
    n, v = X.shape
    layout = matrix_format(kind)
    if layout == "codes":
        codes = np.asarray(X, dtype=np.int64)
        n_categories = (codes.max(axis=0) + 1) if n else np.zeros(v, dtype=np.int64)  # what nbcore's prepare counts
        cats = getattr(ds, "categories", None) if ds is not None else None
        return {"format": "codes", "n": n, "v": v, "codes": encode_array(_smallest_uint(codes.ravel())),
                "nCategories": [int(d) for d in n_categories],
                "categories": [[str(c) for c in col] for col in cats] if cats else None}
    if layout == "dense":
        values = np.asarray(X.toarray() if _is_sparse(X) else X, dtype=np.float64)
        return {"format": "dense", "n": n, "v": v, "values": encode_array(values.ravel())}
    # words, counts, pixels: CSR in the matrix's own entry order (the order nbcore's sums run in)
    indptr, indices, data = _csr_parts(X)
    data = _exact_values(data)
    return {"format": "csr", "n": n, "v": v,
            "indptr": encode_array(indptr.astype(np.uint32)),
            "indices": encode_array(indices.astype(np.uint16 if v < 65536 else np.uint32)),
            "data": None if data is None else encode_array(data)}


def _same_matrix(a, b) -> bool:
    if _is_sparse(a) and _is_sparse(b):
        return a.shape == b.shape and (a != b).nnz == 0
    if _is_sparse(a) or _is_sparse(b):
        return False
    return np.array_equal(np.asarray(a), np.asarray(b))


def _model_input(ds, model: str) -> str:
    """How ds.for_model(model) makes the model's matrix from ds.X: "as_is" or "binarize"."""
    X = ds.for_model(model)
    if X is ds.X:
        return "as_is"
    from nbcore.models.bernoulli import binarize

    if _same_matrix(X, binarize(ds.X)):
        return "binarize"
    raise NotImplementedError(f"The lab cannot rebuild the {model} model's input from {ds.kind} data "
                              "(only as it is, or x > 0).")


def _options(options: dict) -> dict:
    return {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in options.items()}


def _text(ds) -> dict | None:
    vec = getattr(ds, "vectorizer", None)
    if vec is None:
        return None
    if vec.strip_accents is not None or vec.preprocessor is not None or vec.tokenizer is not None \
            or callable(vec.analyzer) or vec.analyzer not in ("word", "char_wb", "char"):
        raise NotImplementedError("The lab's tokenizer supports word and char_wb n-grams without "
                                  "accent stripping or custom callables.")
    vocab = vec.vocabulary_
    names = list(ds.feature_names)
    if len(vocab) != len(names) or any(vocab.get(t) != j for j, t in enumerate(names)):
        raise ValueError("The data set's vectorizer vocabulary is not its feature names in order.")
    stop = vec.get_stop_words()
    pipeline = getattr(ds, "pipeline", None)
    return {"analyzer": vec.analyzer, "tokenPattern": vec.token_pattern if vec.analyzer == "word" else None,
            "ngramRange": [int(vec.ngram_range[0]), int(vec.ngram_range[1])],
            "lowercase": bool(vec.lowercase), "stopWords": sorted(stop) if stop else None,
            "binary": bool(vec.binary), "describe": pipeline.describe() if pipeline is not None else None}


def _truth(ds) -> dict | None:
    truth = getattr(ds, "truth", None)
    if not truth:
        return None
    out = {}
    for key, value in truth.items():
        out[key] = np.asarray(value, dtype=float).tolist() if isinstance(value, (np.ndarray, list)) else value
    return out


def lab_data(dataset, *, texts: bool = True) -> dict:
    """The lab's data for a data set (a :class:`nbcore.Dataset`, or a shipped data set's name).

    Parameters
    ----------
    dataset : nbcore.Dataset or str
    texts : bool
        Include the documents (text data sets) for the documents table and the message box.

    Returns
    -------
    dict, JSON-able (see the module's docstring for the keys).
    """
    ds = nbcore.load_dataset(dataset) if isinstance(dataset, str) else dataset
    models = list(ds.models)
    model_inputs = {m: _model_input(ds, m) for m in models}
    model_options = {}
    for m in models:
        model_options[m] = _options(get_model(m).suggested_options(ds.for_model(m)))
    y = np.asarray(ds.y, dtype=np.int64)
    y_true = getattr(ds, "y_true", None)
    # text for people (names, documents) without bidi controls, whoever made the Dataset (a user's arrays in a
    # notebook too): shown on the page, it could not reorder what follows it
    clean = nbcore.strip_bidi
    out = {
        "format": FORMAT,
        "name": clean(ds.name) if isinstance(ds.name, str) else ds.name,
        "description": clean(ds.description or ""),
        "card": getattr(ds, "card", None),
        "kind": ds.kind,
        "models": models,
        "modelInputs": model_inputs,
        "modelOptions": model_options,
        "classNames": [clean(str(c)) for c in ds.class_names],
        "featureNames": [clean(str(f)) for f in ds.feature_names],
        "n": int(ds.X.shape[0]), "v": int(ds.X.shape[1]), "k": int(ds.n_classes),
        "y": encode_array(_smallest_int(y)),
        "yTrue": None if y_true is None else encode_array(_smallest_int(np.asarray(y_true, dtype=np.int64))),
        "matrix": _matrix(ds.X, ds.kind, ds),
        "text": _text(ds),
        "imageShape": list(ds.image_shape) if getattr(ds, "image_shape", None) else None,
        "truth": _truth(ds),
        "texts": [clean(str(t)) for t in ds.texts] if texts and getattr(ds, "texts", None) is not None else None,
    }
    return out


def _infer_kind(X) -> str:
    values = X.data if _is_sparse(X) else np.asarray(X, dtype=np.float64).ravel()
    if values.size == 0 or np.all((values == 0) | (values == 1)):
        return "binary"
    if np.all(values >= 0) and np.all(values == np.round(values)):
        return "counts"
    return "continuous"


def lab_data_from_arrays(X, y=None, *, kind: str | None = None, class_names=None, feature_names=None,
                         name: str = "data", description: str = "", y_true=None, texts=None) -> dict:
    """The lab's data for a plain (X, y): a run on arrays, or an upload already read into arrays.

    Parameters
    ----------
    X : (N, V) ndarray or scipy.sparse matrix
    y : (N,) int class codes, −1 = unlabelled (None: all unlabelled)
    kind : "binary", "counts", "categorical" or "continuous"; None guesses from the values
        (0/1 → binary, whole numbers ≥ 0 → counts, else continuous; codes must be asked for)
    class_names, feature_names : lists (default "0".."K−1", "x0".."x(V−1)")
    y_true : (N,) the truth where known (−1 where not), or None
    texts : (N,) documents to show, or None
    """
    from nbcore.dataset import Dataset

    n = X.shape[0]
    y = np.full(n, -1, dtype=np.int64) if y is None else np.asarray(y, dtype=np.int64)
    kind = kind or _infer_kind(X)
    if class_names is None:
        top = max(int(y.max(initial=-1)), int(np.max(y_true, initial=-1)) if y_true is not None else -1)
        class_names = [str(k) for k in range(max(top + 1, 2))]
    if feature_names is None:
        feature_names = [f"x{j}" for j in range(X.shape[1])]
    if matrix_format(kind) == "codes":
        X = np.asarray(X, dtype=np.int64)
    ds = Dataset(name=name, X=X, y=y, feature_names=list(feature_names), class_names=list(class_names),
                 kind=kind, description=description,
                 y_true=None if y_true is None else np.asarray(y_true, dtype=np.int64),
                 texts=None if texts is None else tuple(str(t) for t in texts))
    return lab_data(ds, texts=texts is not None)


if __name__ == "__main__":  # python -m nblab.data sms_spam > sms_spam.json
    import json

    json.dump(lab_data(sys.argv[1] if len(sys.argv) > 1 else "sms_spam"), sys.stdout, ensure_ascii=False)
