"""Gaussian NB corner (seeds 002/003): continuous features, per-class normal curves, 1/N vs 1/(N−1)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import pages
from dashboard.charts import gaussian as gaussian_charts
from dashboard.pagekit import figures, page_kit
from dashboard.ui import derive, urlguard
from nbcore.models.gaussian import gaussian_moments

SUBTITLE = ("Continuous features: each class gets a normal curve per feature, with a mean and a "
            "variance estimated from its documents (the lecture).")
NAMES = ["A", "B"]
MAX_VALUES = 1000  # per class; a pasted column of a spreadsheet is fine, a megabyte of text is not


def main() -> None:
    page = page_kit.page_setup(pages.GAUSSIAN, SUBTITLE)
    parsed = the_values()
    fitted = [ClassFit(x, problem) if problem else fit_class(x, NAMES[k]) for k, (x, problem) in enumerate(parsed)]
    show_problems(fitted)
    fit_chart(fitted, page.fs)
    fit_table(fitted)
    explain_two_variances()
    see_the_bias(page.fs)


@dataclass
class ClassFit:
    """One class's numbers, computed on their own (a broken class never touches the other)."""
    values: np.ndarray            # the finite values used
    problem: str | None = None    # why nothing can be computed (shown as an error), else None
    mean: float | None = None
    var_mle: float | None = None  # M2 / N
    var_unb: float | None = None  # M2 / (N − 1)
    log10_var: float | None = None  # log10 of σ²_MLE when it overflows a float

    @property
    def ok(self) -> bool:
        return self.problem is None and self.var_mle is not None


def _why_dash(f: ClassFit, value: float | None) -> str | None:
    """What a class's "—" says under it: the class's problem (said above), an overflow, or too few values."""
    if f.ok and value is not None:
        return None
    if f.problem:
        return "see the message above"
    if f.log10_var:
        return "too large for a float"
    return "needs at least 2 values"


def _short(tok: str, limit: int = 24) -> str:
    tok = tok if len(tok) <= limit else tok[:limit] + "…"
    return derive.md_escape(tok, limit + 1)


def parse(text: str, name: str) -> tuple[np.ndarray, str | None]:
    """Comma / semicolon / newline separated numbers -> (values, problem or None)."""
    vals = []
    for tok in str(text).replace(";", ",").replace("\n", ",").split(","):
        tok = tok.strip()
        if not tok:
            continue
        try:
            v = float(tok)
        except ValueError:
            return np.zeros(0), (f"Class {name}: “{_short(tok)}” is not a number. Type numbers separated by "
                                 "commas, e.g. `85, 95, 100, 12`.")
        if not math.isfinite(v):
            what = "NaN (“not a number”)" if math.isnan(v) else f"“{_short(tok)}” (too large: it overflows to ±∞)"
            return np.zeros(0), (f"Class {name}: {what} is not a finite number. A computer's floating-point "
                                 "numbers stop at about ±1.8 × 10^308; type values between those limits.")
        vals.append(v)
        if len(vals) > MAX_VALUES:
            return np.zeros(0), f"Class {name}: more than {MAX_VALUES:,} values; paste at most {MAX_VALUES:,}."
    return np.asarray(vals, dtype=float), None


def fit_class(x: np.ndarray, name: str) -> ClassFit:
    """μ, σ²_MLE = M2/N and σ²_unbiased = M2/(N−1) of one class (nbcore.gaussian_moments, eq. of
    the lecture), computed on x / max|x| and scaled back, so huge but finite values do not overflow
    on the way; a σ² that is itself beyond float range is reported with its order of magnitude."""
    n = len(x)
    if n < 2:
        return ClassFit(x, f"Class {name} needs at least two values (it has {n}): with one value the "
                           "unbiased variance divides by N − 1 = 0.")
    scale = float(np.max(np.abs(x)))
    if scale == 0.0:
        return ClassFit(x, None, 0.0, 0.0, 0.0)
    _, mean, m2 = gaussian_moments((x / scale)[:, None], np.ones((n, 1)))
    mu_s, m2_s = float(mean[0, 0]), float(m2[0, 0])
    mu = mu_s * scale
    if m2_s == 0.0:
        return ClassFit(x, None, mu, 0.0, 0.0)
    log10_var = 2 * math.log10(scale) + math.log10(m2_s / n)
    with np.errstate(over="ignore"):
        var_mle = (m2_s / n) * scale * scale
        var_unb = (m2_s / (n - 1)) * scale * scale
    if not (math.isfinite(var_mle) and math.isfinite(var_unb)):
        return ClassFit(x, (f"Class {name}: the values are so far apart that σ² ≈ 10^{log10_var:.0f}, beyond the "
                            "largest floating-point number (≈ 1.8 × 10^308), so no normal curve can be computed. "
                            "Rescale the values (e.g. divide them all by the same power of ten)."),
                        mu, None, None, log10_var)
    return ClassFit(x, None, mu, var_mle, var_unb, log10_var)


def the_values() -> list[tuple[np.ndarray, str | None]]:
    """Each class's values, typed or drawn from two normal distributions: [(values, problem or None)] for A and B."""
    sb = st.sidebar
    source = urlguard.radio(sb, "Data", key="gs_source",
                            captions=["type the numbers", "draw them from two normal distributions"])
    if source == "typed":
        ta = urlguard.text_input(sb, "Class A values", key="gs_a",
                                 help="Comma-separated. Default: the exam scores of the lecture.")
        tb = urlguard.text_input(sb, "Class B values", key="gs_b")
        parsed = [parse(ta, "A"), parse(tb, "B")]
    else:
        n = urlguard.slider(sb, "Documents per class N", key="gs_n")
        mu_a = urlguard.slider(sb, "True mean of A", key="gs_mua")
        mu_b = urlguard.slider(sb, "True mean of B", key="gs_mub")
        sd = urlguard.slider(sb, "True standard deviation σ (both)", key="gs_sd")
        seed = urlguard.number_input(sb, "Seed", key="gs_seed")
        rng = np.random.default_rng(int(seed))
        parsed = [(mu_a + sd * rng.standard_normal(n), None), (mu_b + sd * rng.standard_normal(n), None)]
    return parsed


def show_problems(fitted: list[ClassFit]) -> None:
    """Why a class has no curve, and a warning for a class whose values are all equal."""
    for f in fitted:
        if f.problem:
            st.error(f.problem, icon=":material/error:")
    for k, f in enumerate(fitted):
        if f.ok and f.var_mle == 0.0:
            st.warning(f"Class {NAMES[k]}: all {len(f.values)} values are equal ({f.mean:.6g}), so σ² = 0 with "
                       "either formula. A normal curve with zero variance is a spike: its density is infinite at "
                       f"{f.mean:.6g} and zero everywhere else, so one different value would get probability 0. "
                       "Gaussian NB software therefore adds a small variance floor (scikit-learn: var_smoothing).",
                       icon=":material/warning:")


def fit_chart(fitted: list[ClassFit], FS: int) -> None:
    """Each class's values and its fitted normal curves, MLE and unbiased variance."""
    good = [k for k, f in enumerate(fitted) if f.ok]
    if good:
        figures.show_chart(
            st, figures.cached_figure(gaussian_charts.gaussian_fit_figure,
                [fitted[k].values for k in good], [NAMES[k] for k in good], [fitted[k].mean for k in good],
                [fitted[k].var_mle for k in good], [fitted[k].var_unb for k in good], FS, class_index=good),
            key="gs_fit", name="Chart: each class's values and the fitted normal curves, MLE and unbiased variance",
            summary=" ".join(f"{NAMES[k]}: {len(fitted[k].values)} values, mean {fitted[k].mean:.4g}, "
                             f"σ² {fitted[k].var_mle:.4g} (MLE) or {fitted[k].var_unb:.4g} (unbiased)." for k in good),
            config={"displayModeBar": False})


def _g(v, fmt="{:.6g}") -> str:
    return "—" if v is None else fmt.format(v)


def fit_table(fitted: list[ClassFit]) -> None:
    """Each class's N, mean and both variances with their ratio, and the variances as metrics."""
    rows = []
    for k, f in enumerate(fitted):
        ratio = None if not f.ok or f.var_unb == 0.0 else f.var_mle / f.var_unb
        rows.append({"class": NAMES[k], "N": str(len(f.values)) if f.problem is None or len(f.values) else "—",
                     "mean μ": _g(f.mean),
                     "σ² = 1/N Σ(x−μ)² (MLE)": _g(f.var_mle) if f.ok else (f"≈ 1e{f.log10_var:.0f}" if f.log10_var else "—"),
                     "σ² = 1/(N−1) Σ(x−μ)² (unbiased)": _g(f.var_unb) if f.ok else "—",
                     "ratio (N−1)/N": _g(ratio, "{:.3f}") if ratio is not None else ("— (0/0)" if f.ok else "—")})
    figures.show_light_table(st, pd.DataFrame(rows))
    c1, c2 = st.columns(2)
    for k, col in enumerate((c1, c2)):
        f = fitted[k]
        col.metric(f"Class {NAMES[k]}: σ² MLE (1/N)", _g(f.var_mle) if f.ok else "—",
                   delta=_why_dash(f, f.var_mle), delta_color="off", delta_arrow="off")
        col.metric(f"Class {NAMES[k]}: σ² unbiased (1/(N−1))", _g(f.var_unb) if f.ok else "—",
                   delta=_why_dash(f, f.var_unb), delta_color="off", delta_arrow="off")


def explain_two_variances() -> None:
    """Why the MLE divides by N and the unbiased estimate by N − 1."""
    st.markdown(
        "**Why two variances?** The maximum-likelihood estimate divides by N (the lecture), but it measures spread "
        "around the sample's *own* mean, which is always closer to the data than the true mean is — so on average "
        "it comes out too small by the factor (N − 1)/N. Dividing by N − 1 fixes the average. With 4 exam scores the "
        "difference is 25 %; with 1,000 documents it no longer matters. EM for Gaussian NB uses the MLE, because "
        "that is what maximises the likelihood.")
    st.latex(r"\sigma^2_{\text{MLE}} = \frac1N\sum_{i=1}^N (x_i-\hat\mu)^2,\qquad "
             r"E[\sigma^2_{\text{MLE}}] = \frac{N-1}{N}\,\sigma^2,\qquad "
             r"\sigma^2_{\text{unbiased}} = \frac{1}{N-1}\sum_{i=1}^N (x_i-\hat\mu)^2")


def see_the_bias(FS: int) -> None:
    """The average of both estimates over many small samples, against the sample size."""
    st.subheader("See the bias: many small samples")
    b1, b2 = st.columns([1, 3])
    reps = b1.select_slider("Samples per N", [1000, 5000, 20000], value=5000, key="gs_reps")
    true_var = b1.slider("True σ²", 0.5, 4.0, 1.0, step=0.5, key="gs_truevar")
    ns, mle, unb = bias_table(int(reps), float(true_var))
    figures.show_chart(
        b2, figures.cached_figure(gaussian_charts.bias_figure, ns, mle, unb, float(true_var), FS, n_reps=int(reps)), key="gs_bias",
        name="Line chart: the average MLE and unbiased variance estimates against the sample size n",
        summary=(f"True σ² = {float(true_var):g}. At n = {ns[0]} the MLE averages {mle[0]:.3g} and the unbiased "
                 f"estimate {unb[0]:.3g}; at n = {ns[-1]}, {mle[-1]:.3g} and {unb[-1]:.3g}."),
        config={"displayModeBar": False})


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


main()
