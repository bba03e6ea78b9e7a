"""Gaussian NB corner (seeds 002/003): continuous features, per-class normal curves, 1/N vs 1/(N−1)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import controls, depth_charts, lessons

FS = lessons.page_setup(":material/ssid_chart: Gaussian NB corner",
                        "Continuous features: each class gets a normal curve per feature, with a mean and a "
                        "variance estimated from its documents (seed 002).")

sb = st.sidebar
source = sb.radio("Data", ["typed", "random"], key="gs_source", bind=controls.QP,
                  captions=["type the numbers", "draw them from two normal distributions"])
NAMES = ["A", "B"]


def parse(text: str) -> np.ndarray:
    vals = []
    for tok in text.replace(";", ",").replace("\n", ",").split(","):
        tok = tok.strip()
        if tok:
            vals.append(float(tok))
    return np.asarray(vals, dtype=float)


if source == "typed":
    ta = sb.text_input("Class A values", "85, 95, 100, 12", key="gs_a", bind=controls.QP,
                       help="Comma-separated. Default: the exam scores of seed 002.")
    tb = sb.text_input("Class B values", "40, 55, 48, 62, 51", key="gs_b", bind=controls.QP)
    try:
        samples = [parse(ta), parse(tb)]
    except ValueError:
        st.error("Please type numbers separated by commas, e.g. `85, 95, 100, 12`.")
        st.stop()
else:
    n = sb.slider("Documents per class N", 2, 50, 4, key="gs_n", bind=controls.QP)
    mu_a = sb.slider("True mean of A", -5.0, 5.0, -1.0, step=0.5, key="gs_mua", bind=controls.QP)
    mu_b = sb.slider("True mean of B", -5.0, 5.0, 1.5, step=0.5, key="gs_mub", bind=controls.QP)
    sd = sb.slider("True standard deviation σ (both)", 0.2, 3.0, 1.0, step=0.1, key="gs_sd", bind=controls.QP)
    seed = sb.number_input("Seed", 0, 9999, 0, key="gs_seed", bind=controls.QP)
    rng = np.random.default_rng(int(seed))
    samples = [mu_a + sd * rng.standard_normal(n), mu_b + sd * rng.standard_normal(n)]

if any(len(s) < 2 for s in samples):
    st.warning("Each class needs at least two values: with one value the unbiased variance divides by N − 1 = 0.")
    st.stop()

X = np.concatenate(samples)[:, None]
y = np.concatenate([np.full(len(s), k) for k, s in enumerate(samples)])
fits = {v: nbcore.GaussianNB(variance=v, var_smoothing=0.0).fit(X, y) for v in ("mle", "unbiased")}
means = np.asarray(fits["mle"].mean_)[0]
var_mle = np.asarray(fits["mle"].var_)[0]
var_unb = np.asarray(fits["unbiased"].var_)[0]

st.plotly_chart(depth_charts.gaussian_fit_figure(samples, NAMES, means, var_mle, var_unb, FS),
                key="gs_fit", config={"displayModeBar": False})

rows = []
for k, s in enumerate(samples):
    N = len(s)
    rows.append({"class": NAMES[k], "N": N, "mean μ": means[k],
                 "σ² = 1/N Σ(x−μ)² (MLE)": var_mle[k], "σ² = 1/(N−1) Σ(x−μ)² (unbiased)": var_unb[k],
                 "ratio (N−1)/N": var_mle[k] / var_unb[k]})
st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
             column_config={"mean μ": st.column_config.NumberColumn(format="%.6g"),
                            "σ² = 1/N Σ(x−μ)² (MLE)": st.column_config.NumberColumn(format="%.6g"),
                            "σ² = 1/(N−1) Σ(x−μ)² (unbiased)": st.column_config.NumberColumn(format="%.6g"),
                            "ratio (N−1)/N": st.column_config.NumberColumn(format="%.3f")})
c1, c2 = st.columns(2)
for k, col in enumerate((c1, c2)):
    col.metric(f"Class {NAMES[k]}: σ² MLE (1/N)", f"{var_mle[k]:.6g}")
    col.metric(f"Class {NAMES[k]}: σ² unbiased (1/(N−1))", f"{var_unb[k]:.6g}")

st.markdown(
    "**Why two variances?** The maximum-likelihood estimate divides by N (seed 002), but it measures spread "
    "around the sample's *own* mean, which is always closer to the data than the true mean is — so on average "
    "it comes out too small by the factor (N − 1)/N. Dividing by N − 1 fixes the average. With 4 exam scores the "
    "difference is 25 %; with 1,000 documents it no longer matters. EM for Gaussian NB uses the MLE, because "
    "that is what maximises the likelihood.")
st.latex(r"\sigma^2_{\text{MLE}} = \frac1N\sum_{i=1}^N (x_i-\hat\mu)^2,\qquad "
         r"E[\sigma^2_{\text{MLE}}] = \frac{N-1}{N}\,\sigma^2,\qquad "
         r"\sigma^2_{\text{unbiased}} = \frac{1}{N-1}\sum_{i=1}^N (x_i-\hat\mu)^2")

st.subheader("See the bias: many small samples")
b1, b2 = st.columns([1, 3])
reps = b1.select_slider("Samples per N", [1000, 5000, 20000], value=5000, key="gs_reps")
true_var = b1.slider("True σ²", 0.5, 4.0, 1.0, step=0.5, key="gs_truevar")


@st.cache_data(show_spinner=False, max_entries=16)
def bias_table(reps: int, true_var: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    ns = list(range(2, 11))
    mle, unb = [], []
    for n in ns:
        x = rng.normal(0.0, np.sqrt(true_var), size=(reps, n))
        ss = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        mle.append(float(np.mean(ss / n)))
        unb.append(float(np.mean(ss / (n - 1))))
    return ns, mle, unb


ns, mle, unb = bias_table(int(reps), float(true_var))
b2.plotly_chart(depth_charts.bias_figure(ns, mle, unb, float(true_var), FS, n_reps=int(reps)), key="gs_bias",
                config={"displayModeBar": False})
