"""Bernoulli and multinomial Naive Bayes on the same words (McCallum & Nigam 1998): both EM
runs' accuracy, what one document's log-likelihood is made of under each model, each model's
top words and accuracy against vocabulary size.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.charts import theme
from dashboard.ui.derive import plot_text  # names from the data are chart text, never HTML

#: one colour per event model on every chart of these pages (Okabe-Ito blue and vermilion)
MODEL_COLORS = {"bernoulli": "#0072B2", "multinomial": "#D55E00"}


MODEL_TITLES = {"bernoulli": "Bernoulli", "multinomial": "multinomial"}


MODELS = ("bernoulli", "multinomial")


def accuracy_runs_figure(acc: dict, base: dict, font_size: int = 16, height: int = 380,
                         width: int | None = None, n_hidden: int | None = None) -> go.Figure:
    """Hidden-label accuracy of each model's EM run over the iterations (solid), and each
    model's supervised-only accuracy (dotted horizontal line, same colour).

    acc: {model: [accuracy at t = 0, 1, ...]}; base: {model: accuracy or None}."""
    fig = go.Figure()
    longest = max([len(a) for a in acc.values()] + [1])
    values = []
    for model in MODELS:
        if model not in acc:
            continue
        col, name = MODEL_COLORS[model], MODEL_TITLES[model]
        s = theme.finite(acc[model])
        values += [v for v in s if v is not None]
        fig.add_trace(go.Scatter(x=list(range(len(s))), y=s, mode="lines+markers", name=f"EM, {name}",
                                 line=dict(color=col, width=3), marker=dict(size=7),
                                 hovertemplate="t = %{x}: %{y:.1%}<extra>EM, " + name + "</extra>"))
        b = base.get(model)
        if b is not None and np.isfinite(b):
            values.append(float(b))
            fig.add_trace(go.Scatter(x=[0, max(1, longest - 1)], y=[b, b], mode="lines",
                                     name=f"supervised only, {name}", line=dict(color=col, width=2, dash="dot"),
                                     hovertemplate="%{y:.1%}<extra>supervised only, " + name + "</extra>"))
    fig.update_xaxes(title="iteration t", **theme.int_ticks(longest))
    fig.update_yaxes(title="accuracy on the hidden labels", **(theme.percent_ticks(values) if values else {}))
    title = "Accuracy on the hidden labels" + (f" ({n_hidden:,} documents)" if n_hidden else "")
    return theme.style(fig, title, font_size, height, width=width)


def likelihood_parts(x_counts: np.ndarray, log_beta_b: np.ndarray, log_1m_beta_b: np.ndarray,
                     log_beta_m: np.ndarray) -> dict:
    """One document's log p(x | k) under each model, split into the parts each model sums.

    x_counts: (V,) the document's word counts; log_beta_b / log_1m_beta_b: (V, K) log β and
    log(1 − β) of the Bernoulli run; log_beta_m: (V, K) log β of the multinomial run.

    Bernoulli (eq. 11): "words present" Σ_{x_j>0} log β_jk and "words absent" Σ_{x_j=0} log(1 − β_jk).
    Multinomial: Σ_j x_j log β_jk, split into "first occurrences" Σ_{x_j>0} log β_jk and
    "repeats" Σ_j (x_j − 1)₊ log β_jk (the count terms beyond presence); absent words add 0.
    Returns {model: {part: (K,) array}}; each model's parts sum to its log p(x | k)."""
    x = np.asarray(x_counts, dtype=float).ravel()
    present = x > 0
    repeats = np.clip(x - 1.0, 0.0, None)
    with np.errstate(invalid="ignore"):
        b_present = log_beta_b[present].sum(axis=0)
        b_absent = log_1m_beta_b[~present].sum(axis=0)
        m_first = log_beta_m[present].sum(axis=0)
        m_repeat = repeats[present] @ log_beta_m[present] if present.any() else np.zeros(log_beta_m.shape[1])
    return {"bernoulli": {"words present": np.asarray(b_present, dtype=float),
                          "words absent": np.asarray(b_absent, dtype=float)},
            "multinomial": {"first occurrences": np.asarray(m_first, dtype=float),
                            "repeats (counts > 1)": np.asarray(m_repeat, dtype=float)}}


def share(part: np.ndarray, total_parts: Sequence[np.ndarray]) -> np.ndarray:
    """|part| / Σ |parts| per class: the share of log p(x | k) a part makes up (NaN when all are 0)."""
    tot = np.sum([np.abs(p) for p in total_parts], axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, np.abs(part) / np.where(tot > 0, tot, 1.0), np.nan)


def parts_table(parts: dict, class_names: Sequence[str]) -> pd.DataFrame:
    """One row per class: Bernoulli's words present and absent, its log p(x | k) and the share of it
    from the words absent; the multinomial's log p(x | k) (all count terms Σ x_j log β_jk), its part
    from repeated words (counts above one) and that part's share."""
    b, m = parts["bernoulli"], parts["multinomial"]
    bp, ba = b["words present"], b["words absent"]
    mf, mr = m["first occurrences"], m["repeats (counts > 1)"]
    return pd.DataFrame({
        "class": [str(c) for c in class_names],
        "Bernoulli: present": bp,
        "Bernoulli: absent": ba,
        "Bernoulli: total": bp + ba,
        "absent share": share(ba, [bp, ba]),
        "multinomial: total": mf + mr,
        "multinomial: repeats": mr,
        "repeats share": share(mr, [mf, mr]),
    })


def parts_figure(parts: dict, class_names: Sequence[str], font_size: int = 16, height: int = 380,
                 width: int | None = None) -> go.Figure:
    """Two panels (Bernoulli | multinomial): per class, a bar for each part of log p(x | k)
    (stacked, so each bar's length is the whole log-likelihood), the share of the first
    Bernoulli part labelled on it."""
    names = [plot_text(c, 30) for c in class_names]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.06,
                        subplot_titles=("Bernoulli", "multinomial"))
    colors = {"words present": "#009E73", "words absent": "#CC79A7",
              "first occurrences": "#009E73", "repeats (counts > 1)": "#E69F00"}
    for col, model in enumerate(MODELS, start=1):
        parts_m = parts[model]
        total = list(parts_m.values())
        for part, v in parts_m.items():
            v = np.asarray(v, dtype=float)
            sh = share(v, total)
            fig.add_trace(go.Bar(
                y=names, x=theme.finite(v), orientation="h", name=part, legendgroup=part,
                marker=dict(color=colors[part]), showlegend=True,
                text=[f"{s:.0%}" if np.isfinite(s) and s >= 0.05 else "" for s in sh], textposition="inside",
                hovertemplate="%{y}: %{x:.1f}<extra>" + part + "</extra>"), row=1, col=col)
    fig.update_layout(barmode="relative")
    fig.update_xaxes(title="log p(x | k) (nats)", row=1, col=1)
    fig.update_xaxes(title="log p(x | k) (nats)", row=1, col=2)
    fig.update_yaxes(autorange="reversed")
    return theme.style(fig, "What this document's log-likelihood is made of, per class", font_size,
                   max(height, 160 + 50 * len(names)), width=width)


def top_words(beta: np.ndarray, feature_names: Sequence[str], class_names: Sequence[str],
              n: int = 10) -> pd.DataFrame:
    """The n words that set each class apart most under one model: ranked by
    β_jk · log(β_jk / β̄_j), β̄_j the mean of β_j over the other classes (a word counts when it
    is frequent in class k *and* much more frequent there than elsewhere). One column of words
    and one of β per class; cells are plain text."""
    b = np.asarray(beta, dtype=float)
    V, K = b.shape
    out = {}
    for k in range(K):
        others = np.delete(b, k, axis=1)
        rest = others.mean(axis=1) if others.shape[1] else np.full(V, np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = b[:, k] * (np.log(b[:, k]) - np.log(rest))
        score = np.where(np.isfinite(score), score, -np.inf)
        order = np.argsort(-score, kind="stable")[:n]
        name = str(class_names[k])
        words = [str(feature_names[j]) for j in order] + [""] * (n - len(order))
        vals = [float(b[j, k]) for j in order] + [np.nan] * (n - len(order))
        out[f"{name}"] = words
        out[f"β({name})"] = vals
    return pd.DataFrame(out, index=pd.RangeIndex(1, n + 1, name="rank"))


def vocabulary_figure(sizes: Sequence[int], acc: dict, font_size: int = 16, height: int = 440,
                      width: int | None = None) -> go.Figure:
    """Accuracy on the hidden labels against vocabulary size (log x axis): per event model,
    supervised only (dotted) and EM (solid).

    acc: {model: {"supervised": [...], "em": [...]}} aligned with sizes."""
    x = [int(v) for v in sizes]
    fig = go.Figure()
    values = []
    for model in MODELS:
        if model not in acc:
            continue
        col, name = MODEL_COLORS[model], MODEL_TITLES[model]
        for what, dash, label in (("supervised", "dot", "supervised only"), ("em", "solid", "EM")):
            y = theme.finite(acc[model][what])
            values += [v for v in y if v is not None]
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers", name=f"{label}, {name}",
                                     line=dict(color=col, width=3, dash=dash),
                                     marker=dict(size=9, symbol="circle" if what == "em" else "square"),
                                     hovertemplate="V = %{x:,}: %{y:.1%}<extra>" + f"{label}, {name}</extra>"))
    fig.update_xaxes(type="log", title="vocabulary size V (the V most frequent words; log scale)",
                     tickvals=x, ticktext=[f"{v:,}" for v in x])
    fig.update_yaxes(title="accuracy on the hidden labels", **(theme.percent_ticks(values) if values else {}))
    return theme.style(fig, "Accuracy as the vocabulary grows", font_size, height, width=width)


def vocabulary_columns(X, size: int) -> np.ndarray:
    """Column indices (ascending) of the ``size`` most frequent words of a count matrix X
    (total count over all documents; ties keep the earlier column), as nbcore.text.vectorize
    keeps them for a vocabulary cap; every column when size ≥ V."""
    freq = np.asarray(X.sum(axis=0)).ravel()
    if size >= freq.shape[0]:
        return np.arange(freq.shape[0])
    return np.sort(np.argsort(-freq, kind="stable")[: int(size)])
