"""The symmetric trap's charts: the responsibilities, the class profiles and their spread.

Pure builders: arrays in, plotly figure specs out; no st.* calls.
"""
from __future__ import annotations

from typing import Sequence
import numpy as np
import plotly.graph_objects as go
from dashboard.ui.derive import plot_text  # names from the data are chart text, never HTML
from dashboard.charts import theme


def resp_histogram_figure(resp_hidden: np.ndarray, class_names: Sequence[str], font_size: int = 16,
                          height: int = 330, width: int | None = None) -> go.Figure:
    """Distribution of p(y = k | x_i) over the hidden documents, one panel colour per class."""
    r = np.asarray(resp_hidden, dtype=float)
    K = r.shape[1] if r.ndim == 2 else len(class_names)
    fig = go.Figure()
    for k in range(K):
        fig.add_trace(go.Histogram(x=r[:, k], name=f"p({plot_text(class_names[k])} | x)", marker=dict(color=theme.class_color(k)),
                                   opacity=0.75, xbins=dict(start=0, end=1.0001, size=0.02)))
    fig.add_vline(x=1.0 / K, line=dict(color=theme.WARN, dash="dash", width=2), annotation_text=f"1/K = {1 / K:.3g}")
    fig.update_xaxes(title="responsibility p(y = k | x_i) of each hidden document", range=[0, 1])
    fig.update_yaxes(title="documents")
    return theme.style(fig, "Responsibilities after the last E-step", font_size, height, width=width, barmode="overlay")


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
