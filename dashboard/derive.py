"""Pure helpers (no st.*): snapshots -> the arrays and tables the page shows."""
from __future__ import annotations

import numpy as np
import pandas as pd

import nbcore
from nbcore.models import ParamTable


def param_view(snap, model, feature_names, categories=None) -> ParamTable:
    """One (rows × classes) table of a snapshot's parameters: the event model's ``param_table``."""
    return nbcore.get_model(model).param_table(snap.params, feature_names, categories)


def md_escape(text, limit: int = 80) -> str:
    """Uploaded names in markdown: escape what markdown (and Streamlit's $…$ maths) would interpret."""
    return "".join("\\" + ch if ch in "\\`*_[]<>~$|" else ch for ch in str(text)[:limit])


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(v):
    """Text from an upload must not become a spreadsheet formula in an export (CSV injection):
    prefix an apostrophe to text starting with = + - @ (numbers are left alone)."""
    if isinstance(v, str) and v.lstrip(" ").startswith(_FORMULA_START):
        try:
            float(v)
            return v
        except ValueError:
            return "'" + v
    return v


def history_frame(history, class_names, acc=None) -> pd.DataFrame:
    rows = []
    for s in history:
        r = {"iteration": s.iteration, "lambda": s.smoothing, "log_likelihood": s.log_likelihood,
             "objective": s.objective, "delta": s.delta}
        for k, c in enumerate(class_names):
            r[safe_cell(f"alpha_{c}")] = float(s.alpha[k])
        rows.append(r)
    df = pd.DataFrame(rows)
    if acc is not None:
        df["hidden_accuracy"] = list(acc)[: len(df)] + [np.nan] * max(0, len(df) - len(acc))
    return df


def alpha_frame(snap, class_names) -> pd.DataFrame:
    return pd.DataFrame({"class": [safe_cell(str(c)) for c in class_names],
                         "alpha": np.asarray(snap.alpha, dtype=float)})


def params_frame(view: ParamTable, class_names) -> pd.DataFrame:
    df = pd.DataFrame(view.mat, columns=[safe_cell(f"{view.short}_{c}") for c in class_names])
    df.insert(0, "feature", [safe_cell(str(r)) for r in view.rows])
    return df


def row(X, i: int) -> np.ndarray:
    """Row i of a dense or scipy.sparse matrix as a 1-D float array."""
    r = X[i]
    if hasattr(r, "toarray"):
        r = r.toarray()
    return np.asarray(r, dtype=float).ravel()
