"""Posterior inspector for categorical data (PlayTennis, seeds 002/003): classify a new day,
every θ number of the product shown. Called with one line from views/inspector.py."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.charts import inspector as inspector_charts
from dashboard.pagekit import figures
from dashboard.ui import derive

#: Mitchell's new day (Machine Learning, 1997, §6.9.1): Sunny, Cool, High, Strong → No
CLASSIC_DAY = {"Outlook": "Sunny", "Temperature": "Cool", "Humidity": "High", "Wind": "Strong"}


def _fraction(num: float, den: float) -> str:
    """'3/5' when the counts are whole numbers (λ whole, labelled counts), else ''."""
    if abs(num - round(num)) < 1e-9 and abs(den - round(den)) < 1e-9 and den > 0:
        return f"{int(round(num))}/{int(round(den))}"
    return ""


@dataclass(frozen=True)
class Day:
    """A day to classify: its features and their values (names), the value picked per feature (codes x),
    θ_j[x_j, k] (V, K), the product α_k Π_j θ_j[x_j, k] (K,) and the posterior (K,)."""
    feats: list
    cats: list
    names: list
    x: list
    terms: np.ndarray
    joint: np.ndarray
    post: np.ndarray


def new_day(ds, X, y_known, alpha, params, class_names, smoothing: float | None, font_size: int, counted: bool) -> None:
    """Pick a value per feature; p(class | day) with the α and θ terms of the product, as numbers and fractions.

    ``counted``: the parameters are supervised counts with smoothing ``smoothing`` (so each θ is shown as a
    fraction (λ + count) / (λ D_j + N_k)); otherwise they come from an EM run (no fractions).
    """
    feats = [str(f) for f in ds.feature_names]
    cats = [[str(c) for c in cs] for cs in ds.categories]
    names = [str(c) for c in class_names]
    x = _pick_day(feats, cats)
    alpha = np.asarray(alpha, dtype=float)
    day = Day(feats, cats, names, x, *_posterior(alpha, params["theta"], x, len(names)))
    post = day.post
    _show_posterior(names, post, day.joint.sum())
    df = _product_table(X, y_known, alpha, day, smoothing, counted)
    left, right = st.columns([3, 2])
    figures.show_light_table(left, df, column_config={n: st.column_config.NumberColumn(format="%.4f") for n in names})
    top = int(np.argmax(post))
    figures.show_chart(right, figures.cached_figure(inspector_charts.posterior_figure, post, names, font_size, title="p(y | day)"),
                       key="insp_cat_post", name="Bar chart: the posterior p(class | day) of each class",
                       summary=f"The posterior puts {names[top]} first at {post[top]:.1%}: "
                               + ", ".join(f"{names[k]} {post[k]:.1%}" for k in range(len(names))) + ".",
                       config={"displayModeBar": False})
    _product_formula(alpha, day, smoothing, counted)


def _pick_day(feats: list[str], cats: list[list[str]]) -> list[int]:
    """A value per feature (the classic day to start with): the value codes."""
    st.subheader("A new day")
    cols = st.columns(len(feats))
    x = []
    for j, (f, col) in enumerate(zip(feats, cols)):
        default = CLASSIC_DAY.get(f, cats[j][0])
        # the label is Markdown (escaped); the options are plain text (shown as they are)
        v = col.selectbox(derive.md_escape(f, 40), cats[j], index=cats[j].index(default) if default in cats[j] else 0,
                          key=f"insp_cat_{j}")
        x.append(cats[j].index(v))
    return x


def _posterior(alpha: np.ndarray, theta, x: list[int], K: int):
    """(θ_j[x_j, k] (V, K), the product α_k Π_j θ_j[x_j, k] (K,), the posterior (K,), NaN when every product is 0)."""
    terms = np.array([[float(theta[j][x[j], k]) for k in range(K)] for j in range(len(x))])  # (V, K)
    with np.errstate(divide="ignore"):
        log_joint = np.log(alpha) + np.log(terms).sum(axis=0)
    joint = np.exp(log_joint)
    total = joint.sum()
    post = joint / total if total > 0 else np.full(K, np.nan)
    return terms, joint, post


def _show_posterior(names: list[str], post: np.ndarray, total: float) -> None:
    """p(class | day) of every class, and a warning when no class allows the day."""
    K = len(names)
    md_names = [derive.md_escape(n, 40) for n in names]  # in labels and captions, shown literally
    st.subheader("Which class? p(y | day)")
    mcols = st.columns(K)
    for k in range(K):
        mcols[k].metric(f"p({md_names[k]} | day)", "—" if not np.isfinite(post[k]) else f"{post[k]:.4f}")
    if total == 0:
        st.warning("Every class gives this day probability 0 (λ = 0 and a value never seen with any class): "
                   "raise λ.")


def _product_table(X, y_known, alpha: np.ndarray, day: Day, smoothing: float | None, counted: bool) -> pd.DataFrame:
    """The product, term by term: α, each θ, the product and the posterior per class (with counts as
    fractions when the parameters are counts)."""
    feats, cats, names, x, terms, joint, post = day.feats, day.cats, day.names, day.x, day.terms, day.joint, day.post
    K = len(names)
    y = np.asarray(y_known)
    n_k = np.array([np.sum(y == k) for k in range(K)], dtype=float)
    rows = [{"term": "α = p(class)", **{f"{names[k]}": alpha[k] for k in range(K)},
             **({f"{names[k]} (count)": _fraction(n_k[k], n_k.sum()) for k in range(K)} if counted else {})}]
    codes = np.asarray(X)
    for j, f in enumerate(feats):
        row = {"term": f"θ({f} = {cats[j][x[j]]} | class)", **{names[k]: terms[j, k] for k in range(K)}}
        if counted:
            for k in range(K):
                c = float(np.sum((codes[:, j] == x[j]) & (y == k)))
                row[f"{names[k]} (count)"] = _fraction(smoothing + c, smoothing * len(cats[j]) + n_k[k])
        rows.append(row)
    rows.append({"term": "product α · Π θ", **{names[k]: joint[k] for k in range(K)}})
    rows.append({"term": "p(class | day) = product / sum", **{names[k]: post[k] for k in range(K)}})
    df = pd.DataFrame(rows)
    count_cols = [c for c in df.columns if c.endswith("(count)")]
    df[count_cols] = df[count_cols].fillna("")
    return df


def _product_formula(alpha: np.ndarray, day: Day, smoothing: float | None, counted: bool) -> None:
    """The product for each class as a formula, and where its numbers come from."""
    names, terms, joint = day.names, day.terms, day.joint
    K, V = len(names), terms.shape[0]
    parts = []
    for k in range(K):
        fac = " \\cdot ".join([f"{alpha[k]:.3f}"] + [f"{terms[j, k]:.3f}" for j in range(V)])
        name = derive.latex_text(names[k])  # \text{…}, LaTeX's special characters escaped
        parts.append(f"p({name})\\prod_j \\theta_j[x_j, {name}] &= {fac} = {joint[k]:.4f}")
    st.latex(r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}")
    if counted:
        st.caption(f"θ_j[d, k] = (λ + count of value d in class k) / (λ·D_j + N_k) with λ = {smoothing:g} (eq. 14 for "
                   "categorical features; D_j = number of values of feature j). α is the share of days in each "
                   "class. The probabilities are normalised only at the end (eq. 8).")
    if not counted:
        st.caption("α and θ from the lesson view's EM run: soft counts, so no fractions.")
