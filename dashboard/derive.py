"""Pure helpers (no st.*): snapshots -> the arrays and tables the page shows."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class ParamView:
    mat: np.ndarray        # (R, K)
    rows: list             # R row labels
    label: str             # e.g. "β = p(word | class)"
    short: str             # e.g. "β"
    log_scale: bool        # rank rows by log-ratio (probabilities) or by plain spread
    zmin: float | None
    zmax: float | None


def param_view(snap, model: str, feature_names, categories=None) -> ParamView:
    """One (rows × classes) matrix for any event model."""
    if model == "categorical":
        mats, rows = [], []
        for j, th in enumerate(snap.theta):
            th = np.asarray(th, dtype=float)
            mats.append(th)
            vals = categories[j] if categories is not None and j < len(categories) else range(th.shape[0])
            rows += [f"{feature_names[j]} = {v}" for v in vals]
        return ParamView(np.vstack(mats), rows, "θ = p(value | class)", "θ", True, 0.0, 1.0)
    if model == "gaussian":
        m = np.asarray(snap.mean, dtype=float)
        return ParamView(m, list(feature_names), "mean μ of each feature", "μ", False, None, None)
    b = np.asarray(snap.beta, dtype=float)
    if model == "multinomial":
        return ParamView(b, list(feature_names), "β = p(word | class) (share of word tokens)", "β", True, 0.0,
                         float(b.max()) if b.size else 1.0)
    return ParamView(b, list(feature_names), "β = p(word present | class)", "β", True, 0.0, 1.0)


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


def params_frame(view: ParamView, class_names) -> pd.DataFrame:
    df = pd.DataFrame(view.mat, columns=[safe_cell(f"{view.short}_{c}") for c in class_names])
    df.insert(0, "feature", [safe_cell(str(r)) for r in view.rows])
    return df


def row(X, i: int) -> np.ndarray:
    """Row i of a dense or scipy.sparse matrix as a 1-D float array."""
    r = X[i]
    if hasattr(r, "toarray"):
        r = r.toarray()
    return np.asarray(r, dtype=float).ravel()


def column_dot(X, j: int, w: np.ndarray) -> float:
    """Σ_i X_ij w_i for dense or sparse X."""
    col = X[:, j]
    if hasattr(col, "toarray"):
        col = col.toarray()
    return float(np.asarray(col, dtype=float).ravel() @ w)


def bernoulli_scores(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log α_k, Σ_j x_j log β_jk + (1-x_j) log(1-β_jk)) for one document (eq. 11)."""
    b = np.clip(np.asarray(beta, dtype=float), 1e-300, 1 - 1e-16)
    la = np.log(np.clip(np.asarray(alpha, dtype=float), 1e-300, None))
    words = x @ np.log(b) + (1 - x) @ np.log1p(-b)
    return la, words


def multinomial_scores(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    b = np.clip(np.asarray(beta, dtype=float), 1e-300, None)
    la = np.log(np.clip(np.asarray(alpha, dtype=float), 1e-300, None))
    return la, x @ np.log(b)


def softmax(s: np.ndarray) -> np.ndarray:
    s = np.asarray(s, dtype=float)
    e = np.exp(s - s.max())
    return e / e.sum()
