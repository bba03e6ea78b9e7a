"""The symmetric trap's charts: the responsibilities, the class profiles and their spread.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.charts import theme
from dashboard.ui.derive import plot_text  # names from the data are chart text, never HTML

#: the responsibility histogram's bins: 0.02 wide from 0, the last starting at 1.00 (a document at exactly 1)
RESP_BIN, RESP_BINS = 0.02, 51


def resp_histogram_figure(resp_hidden: np.ndarray, class_names: Sequence[str], font_size: int = 16,
                          height: int = 330, width: int | None = None) -> go.Figure:
    """Distribution of p(y = k | x_i) over the hidden documents, one panel colour per class.

    A histogram drawn as bars: the counts are numpy's, in bins of 0.02 from 0 (the last, from 1.00,
    holds the documents at exactly 1), so that the app's own plotly.js build, which has no histogram
    trace, draws it (dashboard/pagekit/lean_chart.py)."""
    r = np.asarray(resp_hidden, dtype=float)
    K = r.shape[1] if r.ndim == 2 else len(class_names)
    edges = np.arange(RESP_BINS + 1) * RESP_BIN
    fig = go.Figure()
    for k in range(K):
        vals = r[:, k] if r.ndim == 2 else np.zeros(0)
        counts, _ = np.histogram(vals[np.isfinite(vals)], bins=edges)
        fig.add_trace(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=RESP_BIN,
                             customdata=np.column_stack([edges[:-1], edges[1:]]),
                             hovertemplate="%{customdata[0]:.2f} to %{customdata[1]:.2f}: %{y} documents",
                             name=f"p({plot_text(class_names[k])} | x)", marker=dict(color=theme.class_color(k), line_width=0),
                             opacity=0.75))
    fig.add_vline(x=1.0 / K, line=dict(color=theme.WARN, dash="dash", width=2), annotation_text=f"1/K = {1 / K:.3g}")
    fig.update_xaxes(title="responsibility p(y = k | x_i) of each hidden document", range=[0, 1])
    fig.update_yaxes(title="documents")
    return theme.style(fig, "Responsibilities after the last E-step", font_size, height, width=width, barmode="overlay",
                       bargap=0)


def beta_profiles_figure(beta: np.ndarray, feature_names: Sequence[str], class_names: Sequence[str],
                         font_size: int = 16, height: int = 330, max_features: int = 40,
                         width: int | None = None) -> go.Figure:
    """β_jk over the features, one line per class: identical lines = the symmetric point."""
    b = np.asarray(beta, dtype=float)[:max_features]
    fig = go.Figure()
    for k, c in enumerate(class_names):
        fig.add_trace(go.Scatter(x=[plot_text(f) for f in feature_names[: len(b)]], y=b[:, k], mode="lines+markers",
                                 name=plot_text(c), line=dict(color=theme.class_color(k), width=3 + 2 * (len(class_names) - k)),
                                 marker=dict(size=8)))
    fig.update_yaxes(title="β = p(word | class)", range=[0, 1])
    fig.update_xaxes(title="word", tickangle=-45 if len(b) > 8 else 0)
    return theme.style(fig, "β of each class (one line = no difference)", font_size, height, width=width)


def spread_figure(spreads: Sequence[float], font_size: int = 16, height: int = 330,
                  width: int | None = None) -> go.Figure:
    s = np.asarray(spreads, dtype=float)
    fig = go.Figure(go.Scatter(x=np.arange(len(s)), y=s, mode="lines+markers", line=dict(color=theme.EM_COLOR, width=3),
                               name="max difference"))
    fig.update_xaxes(title="iteration t", rangemode="tozero")
    fig.update_yaxes(title="max_j,k,k' |β_jk − β_jk'|", rangemode="tozero")
    return theme.style(fig, "How different are the classes?", font_size, height, width=width)
