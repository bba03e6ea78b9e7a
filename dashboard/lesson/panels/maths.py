"""The maths beside the pictures: E-step (eq. 21/22) and M-step (eq. 23/24) of the
course notes (the notes) in LaTeX, with the current numbers for one document."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import nbcore
from dashboard.charts import lesson as lesson_charts
from dashboard.ui import controls, derive, state


def _n(v: float, d: int = 3) -> str:
    """A number for LaTeX: fixed decimals, scientific when tiny/huge, ±∞ as such."""
    v = float(v)
    if not np.isfinite(v):
        return r"-\infty" if v < 0 else (r"\infty" if v > 0 else r"\text{NaN}")
    if v != 0 and (abs(v) < 10 ** (-d) or abs(v) >= 1e6):
        m, e = f"{v:.2e}".split("e")
        return rf"{m}\times 10^{{{int(e)}}}"
    return f"{v:.{d}f}"


_md = derive.md_escape  # a name in Markdown (captions, the document's text), shown literally
_tex = derive.latex_escape  # a name's characters for inside \text{…}


def _cls(name) -> str:
    """A class name (or a parameter row's label) inside st.latex: ``\\text{…}``, special characters escaped."""
    return derive.latex_text(name)


@dataclass(frozen=True)
class EStepNumbers:
    """One document's E-step (eq. 21): log α_k, log p(x | k), their sum and the posterior, (K,) each."""
    log_prior: np.ndarray
    log_likelihood: np.ndarray
    log_joint: np.ndarray
    posterior: np.ndarray


def e_step_numbers(model, alpha, params, x) -> EStepNumbers:
    """The E-step for one document ``x`` (V,), from nbcore.explain (the engine's own terms)."""
    ex = nbcore.explain(model, alpha, params, x)
    return EStepNumbers(np.asarray(ex.log_prior), np.asarray(ex.contributions).sum(axis=0),
                        np.asarray(ex.log_joint), np.asarray(ex.posterior))


@dataclass(frozen=True)
class MStepNumbers:
    """The M-step (eq. 23-24) from the weights w (N, K) of one iteration.

    ``alpha = class_weight / total_weight``; where the model's estimate is a ratio
    (``EventModel.estimate_parts``), parameter row r of class k is
    ``(λ + counts[r, k]) / (lam_den[r] λ + totals[r, k]) = values[r, k]``."""
    class_weight: np.ndarray
    total_weight: float
    alpha: np.ndarray
    smoothing: float
    counts: np.ndarray | None = None
    totals: np.ndarray | None = None
    lam_den: np.ndarray | None = None
    values: np.ndarray | None = None


def m_step_numbers(model, Xp, weights, smoothing: float) -> MStepNumbers:
    """The engine's M-step pieces: nbcore.class_prior and the model's statistics."""
    m = nbcore.get_model(model)
    weights = np.asarray(weights, dtype=float)
    class_weight = weights.sum(axis=0)
    alpha = nbcore.class_prior(weights)
    parts = m.estimate_parts(m.statistics(Xp, weights))
    if parts is None:
        return MStepNumbers(class_weight, float(class_weight.sum()), alpha, float(smoothing))
    counts, totals, lam_den = (np.asarray(a, dtype=float) for a in parts)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = (smoothing + counts) / (lam_den[:, None] * smoothing + totals)
    return MStepNumbers(class_weight, float(class_weight.sum()), alpha, float(smoothing), counts, totals, lam_den,
                        values)


def e_step_lines(e: EStepNumbers, class_names) -> list[str]:
    """LaTeX lines ``k: log α_k + (log p(x|k)) = log joint``."""
    return [rf"k={_cls(class_names[k])}:\ & {_n(e.log_prior[k])} + ({_n(e.log_likelihood[k], 2)}) = "
            rf"{_n(e.log_joint[k], 2)}" for k in range(len(class_names))]


def estimate_lines(m: MStepNumbers, row: int, row_label: str, symbol: str, class_names) -> list[str]:
    """LaTeX lines ``symbol_{row, k} = (λ + counts) / (c·λ + totals) = value`` for one parameter row."""
    smoothing = m.smoothing
    c = m.lam_den[row]
    c_tex = f"{c:g}" if float(c).is_integer() else _n(c, 2)
    return [rf"{symbol}_{{{_cls(row_label)},{_cls(class_names[k])}}} &= \frac{{{_n(smoothing, 3)} + "
            rf"{_n(m.counts[row, k], 2)}}}{{{c_tex}\cdot{_n(smoothing, 3)} + {_n(m.totals[row, k], 2)}}} = "
            rf"{_n(m.values[row, k])}" for k in range(len(class_names))]


# Equation numbers as in the notes, written after the equation (a KaTeX \tag is drawn over the
# equation in Streamlit's narrow, centred displays). An equation wider than its column (half the
# page on a 1280 px projector, about 400 px) is cut at the column's edge, number first, so eq. 21
# is set on two lines: the posterior, then what it is proportional to and its number.
EQ_21 = (r"\begin{aligned} &p(y_i = y' \mid X_i, \alpha^t, \beta^t) \\ &\quad\propto p(X_i \mid y_i = y', \beta^t)\,"
         r"p(y_i = y' \mid \alpha^t) \;\; (21) \end{aligned}")
EQ_23 = r"\alpha_{y'}^{t+1} = \frac{1}{N}\sum_{i=1}^N p(y_i = y' \mid X_i, \alpha^t, \beta^t) \quad (23)"

FULL_FEATURE_LIST = 300  # up to this many parameter rows the "Feature j" picker lists them all
N_TOP_CHOICES = 15       # beyond: the top separating rows at t, then the picked document's features


def feature_choices(top_rows, doc_row) -> list[int]:
    """The rows the "Feature j" picker offers for a long vocabulary: the top separating rows at
    the iteration on screen (in that order), then the features document i contains, most
    frequent first (ties in vocabulary order). ``doc_row``: the document's (V,) feature values."""
    out = [int(j) for j in top_rows]
    seen = set(out)
    x = np.asarray(doc_row, dtype=float)
    nz = np.flatnonzero(x)
    for j in nz[np.argsort(-x[nz], kind="stable")]:
        if int(j) not in seen:
            out.append(int(j))
            seen.add(int(j))
    return out


def maths_panel(run, prep, cfg, t: int, next_smoothing: float) -> None:
    """E-step for one document and M-step for one parameter row at iteration t, with the
    engine's numbers (nbcore.explain, the model's statistics, run.m_step_weights)."""
    hist = run.history
    t = max(0, min(t, len(hist) - 1))
    snap = hist[t]
    view = run.model.param_table(snap.params, prep.feature_names, getattr(prep.ds, "categories", None))
    i, j = _pick(run, prep, view, t)
    texts = getattr(prep.ds, "texts", None)
    if texts is not None and 0 <= i < len(texts):  # a text data set: the document itself
        st.markdown(f"Document {i}: “{_md(str(texts[i]).replace(chr(10), ' / '), 300)}”")
    src, dst, fill = _which_step(run, t)
    col_e, col_m = st.columns(2)
    with col_e:
        _e_step_column(run, prep, src, dst, i)
    with col_m:
        _m_step_column(run, prep, cfg, view, dst, j, fill)
    if next_smoothing != float(snap.smoothing) and dst is not None:
        st.caption(f"Note: the next steps use λ = {next_smoothing:g}.")


def _pick(run, prep, view, t: int) -> tuple[int, int]:
    """The document i and the parameter row j the reader picks (dashboard/ui/controls.py maths_controls).
    Their defaults: the hidden document EM is least sure about under θ⁽⁰⁾, and the top separating row at t."""
    model = run.model
    N = prep.X.shape[0]
    # default document: the hidden one EM is least sure about; default row: the top separating one
    unl = np.flatnonzero(prep.y_obs < 0)
    default_doc = int(unl[0]) if len(unl) else 0
    if len(unl):  # under θ⁽⁰⁾, so the default stays put while the run goes on (computed once per run)
        def _least_sure() -> int:
            p = np.asarray(run.predict_proba(t=0))
            return int(unl[np.argmin(p[unl].max(axis=1))])
        default_doc = state.memo(("maths_default_doc",), _least_sure)
    # the top separating rows at t: once per (run, t), not on every λ change or pick
    top = state.memo(("maths_top", t), lambda: lesson_charts.top_separating(view.mat, N_TOP_CHOICES, view.log_scale))
    default_row = int(top[0])
    rows = list(view.rows) if model.estimate_tex else []
    choices, word_help = None, None
    if len(rows) > FULL_FEATURE_LIST and len(rows) == prep.X.shape[1]:  # a long vocabulary: a short list
        def choices(doc: int) -> list[int]:
            return state.memo(("maths_features", t, doc), lambda: feature_choices(top, derive.row(prep.X, doc)))
        word_help = (f"The {len(top)} features that separate the classes most at t = {t}, then the features "
                     f"document i contains (most frequent first). Type to search the list.")
    choice = controls.maths_controls(N, rows, default_row if rows else 0, default_doc, choices, word_help)
    return choice.doc, choice.word


def _which_step(run, t: int) -> tuple[int, int | None, str]:
    """Which half-steps the numbers show, said in a caption: (the iteration the E-step uses, the one the
    M-step makes or None at t = 0, what to press next)."""
    hist = run.history
    # between the half-steps (E-step pressed, M-step not yet) at the iteration on screen: the M-step
    # button is what comes next, and what fills in the numbers of θ⁽t+1⁾
    half = getattr(run, "pending", None) is not None and t == len(hist) - 1
    fill = "press **M-step** (or Step)" if half else "press **Step**"
    if t == 0:
        src, dst = 0, None
        st.caption("t = 0: these are the initial parameters. The E-step below uses θ⁽⁰⁾"
                   + (" (it is done: see *Every document's responsibility*)" if half else "")
                   + f"; {fill} to see the M-step that makes θ⁽¹⁾.")
    else:
        src, dst = t - 1, t
        st.caption(f"How iteration {t} was made: E-step with θ⁽{t-1}⁾, then M-step → θ⁽{t}⁾."
                   + (f" The E-step with θ⁽{t}⁾ is done (see *Every document's responsibility*): "
                      f"{fill} to make θ⁽{t + 1}⁾." if half else ""))
    return src, dst, fill


def _e_step_column(run, prep, src: int, dst: int | None, i: int) -> None:
    """Document i's E-step (eq. 21) with θ⁽src⁾, or its label kept (eq. 22), checked against the engine's
    responsibilities at dst."""
    model, names, K = run.model, prep.class_names, prep.n_classes
    prev = run.history[src]
    st.markdown(f"**E-step** for document *i* = {i}")
    labelled = int(prep.y_obs[i]) >= 0
    if labelled:
        c = int(prep.y_obs[i])
        st.latex(r"p(y_i = y' \mid X_i, \alpha^t, \beta^t) = \begin{cases} 1 & y' = y_i \\ 0 & \text{otherwise}"
                 r"\end{cases} \quad (22)")
        st.markdown(f"Document {i} **is labelled**, so EM keeps its label (eq. 22):")
        st.latex(rf"r_{{{i}}} = \text{{one-hot}}({_cls(names[c])})")
    else:
        st.latex(EQ_21)
        e = state.memo(("maths_e", src, i), lambda: e_step_numbers(model, prev.alpha, prev.params,
                                                                     derive.row(prep.X, i)))
        post = e.posterior
        st.latex(r"\log \alpha_k + \sum_j \big[" + model.term_tex + r"\big]")
        st.latex(r"\begin{aligned}" + r"\\ ".join(e_step_lines(e, names)) + r"\end{aligned}")
        lines = [rf"p(y_{{{i}}} = {_cls(names[k])} \mid X_{{{i}}}) &= {_n(post[k])}" for k in range(K)]
        st.latex(r"\begin{aligned}" + r"\\ ".join(lines) + r"\end{aligned}")
        if dst is not None:
            eng = np.asarray(run.responsibilities(dst))[i]
            ok = np.allclose(eng, post, atol=1e-6)
            st.caption(("✓ same as the engine's responsibilities r" if ok else
                        "engine's responsibilities r: " + ", ".join(f"{v:.3f}" for v in eng))
                       + (f" (true label: {_md(names[prep.y_eval[i]])})" if prep.y_eval[i] >= 0 else ""))
        elif prep.y_eval[i] >= 0:
            st.caption(f"True (hidden) label: {_md(names[prep.y_eval[i]])}")


def _m_step_column(run, prep, cfg, view, dst: int | None, j: int, fill: str) -> None:
    """The M-step (eq. 23-24) that made θ⁽dst⁾, for α and parameter row j, checked against the engine;
    the bare equations at t = 0."""
    model, names, K, N = run.model, prep.class_names, prep.n_classes, prep.X.shape[0]
    st.markdown("**M-step**")
    alpha_tex = EQ_23
    if dst is None:
        st.latex(alpha_tex)
        if model.estimate_tex:
            st.latex(model.estimate_tex)
        st.info(f"{fill[0].upper()}{fill[1:]} to fill these in with numbers.")
        return
    cur = run.history[dst]
    smoothing = float(cur.smoothing)
    m = state.memo(("maths_m_step", dst), lambda: m_step_numbers(model, run.Xp, run.m_step_weights(dst), smoothing))
    st.latex(alpha_tex)
    den_tex = str(N) if cfg.unlabeled_weight == 1.0 else _n(m.total_weight, 1)
    lines = [rf"\alpha_{{{_cls(names[k])}}} &= \frac{{{_n(m.class_weight[k], 2)}}}{{{den_tex}}} = {_n(m.alpha[k])}"
             for k in range(K)]
    st.latex(r"\begin{aligned}" + r"\\ ".join(lines) + r"\end{aligned}")
    if cfg.unlabeled_weight != 1.0:
        st.caption(f"Unlabelled documents count with weight {cfg.unlabeled_weight:g} in these sums.")
    if not np.allclose(m.alpha, cur.alpha, atol=1e-6):
        st.caption("engine's α: " + ", ".join(f"{v:.4f}" for v in cur.alpha))
    if m.values is not None:
        st.latex(model.estimate_tex)
        st.latex(r"\begin{aligned}" + r"\\ ".join(estimate_lines(m, j, view.rows[j], view.short, names))
                 + r"\end{aligned}")
        eng = view.mat[j]  # the engine's parameters at dst = t (the view above)
        ok = np.allclose(m.values[j], eng, atol=1e-6)
        st.caption(f"λ = {smoothing:g}. " + (f"✓ same as the engine's {view.short}" if ok else
                   f"engine's {view.short}: " + ", ".join(f"{v:.4f}" for v in eng)))
    else:
        st.caption(f"The {model.name} model's M-step uses the same weighted sums Σᵢ rᵢₖ·(…); "
                   "its parameters are in the chart on the left.")


def show(f) -> None:
    """The maths of the iteration on screen, in an expander (open unless in classroom mode)."""
    with st.expander("The maths of this iteration (eq. 21–24 of the notes)", expanded=not f.classroom,
                     icon=":material/functions:"):
        maths_panel(f.run, f.prep, f.cfg, f.t, f.smoothing)
