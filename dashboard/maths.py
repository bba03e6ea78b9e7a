"""The maths beside the pictures: E-step (eq. 21/22) and M-step (eq. 23/24) of the
course notes (seed 000) in LaTeX, with the current numbers for one document."""
from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import charts, controls, derive, state


def _n(v: float, d: int = 3) -> str:
    """A number for LaTeX: fixed decimals, scientific when tiny/huge."""
    v = float(v)
    if v != 0 and (abs(v) < 10 ** (-d) or abs(v) >= 1e6):
        m, e = f"{v:.2e}".split("e")
        return rf"{m}\times 10^{{{int(e)}}}"
    return f"{v:.{d}f}"


_TEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
        "%": r"\%", "_": r"\_", "^": r"\^{}", "~": r"\~{}"}


def _tex(text) -> str:
    """Uploaded names are data: escape everything LaTeX would interpret."""
    return "".join(_TEX.get(ch, ch) for ch in str(text)[:40])


_md = derive.md_escape


def _cls(name) -> str:
    return r"\text{" + _tex(name) + "}"


def maths_panel(run, prep, cfg, t: int, lam_next: float) -> None:
    hist = run.history
    t = max(0, min(t, len(hist) - 1))
    snap = hist[t]
    model = cfg.model
    K = prep.n_classes
    N = prep.X.shape[0]
    names = prep.class_names

    # default document: the hidden one EM is least sure about; default feature: the top separating one
    view = derive.param_view(snap, model, prep.feature_names, getattr(prep.ds, "categories", None))
    unl = np.flatnonzero(prep.y_obs < 0)  # default document: the hidden one EM is least sure about
    default_doc = int(unl[0]) if len(unl) else 0
    if len(unl):  # under θ⁽⁰⁾, so the default stays put while the run goes on (computed once per run)
        def _least_sure() -> int:
            p = np.asarray(run.predict_proba(t=0))
            return int(unl[np.argmin(p[unl].max(axis=1))])
        default_doc = state.memo(("maths_default_doc",), _least_sure)
    default_word = int(charts.top_separating(view.mat, 1, view.log_scale)[0])
    if model in ("bernoulli", "multinomial"):
        choice = controls.maths_controls(N, list(prep.feature_names), default_word, default_doc)
    else:
        choice = controls.maths_controls(N, [], 0, default_doc)
    i, j = choice.doc, choice.word

    if t == 0:
        src, dst = 0, None
        st.caption(f"t = 0: these are the initial parameters. The E-step below uses θ⁽⁰⁾; "
                   f"press Step to see the M-step that makes θ⁽¹⁾.")
    else:
        src, dst = t - 1, t
        st.caption(f"How iteration {t} was made: E-step with θ⁽{t-1}⁾, then M-step → θ⁽{t}⁾.")
    prev = hist[src]

    col_e, col_m = st.columns(2)
    with col_e:
        st.markdown(f"**E-step** for document *i* = {i}")
        labelled = int(prep.y_obs[i]) >= 0
        if labelled:
            c = int(prep.y_obs[i])
            st.latex(r"p(y_i = y' \mid X_i, \alpha^t, \beta^t) = \begin{cases} 1 & y' = y_i \\ 0 & \text{otherwise}"
                     r"\end{cases} \quad (22)")
            st.markdown(f"Document {i} **is labelled**, so EM keeps its label (eq. 22):")
            st.latex(rf"r_{{{i}}} = \text{{one-hot}}({_cls(names[c])})")
        else:
            st.latex(r"p(y_i = y' \mid X_i, \alpha^t, \beta^t) \propto p(X_i \mid y_i = y', \beta^t)\,"
                     r"p(y_i = y' \mid \alpha^t) \quad (21)")
            x = derive.row(prep.X, i)
            if model in ("bernoulli", "multinomial"):
                f = derive.bernoulli_scores if model == "bernoulli" else derive.multinomial_scores
                la, words = f(x, prev.alpha, prev.beta)
                s = la + words
                post = derive.softmax(s)
                if model == "bernoulli":
                    st.latex(r"\log \alpha_k + \sum_j \big[x_{ij}\log\beta_{jk} + (1-x_{ij})\log(1-\beta_{jk})\big]")
                else:
                    st.latex(r"\log \alpha_k + \sum_j x_{ij}\log\beta_{jk}")
                lines = [rf"k={_cls(names[k])}:\ & {_n(la[k])} + ({_n(words[k], 2)}) = {_n(s[k], 2)}"
                         for k in range(K)]
                st.latex(r"\begin{aligned}" + r"\\ ".join(lines) + r"\end{aligned}")
            else:
                post = np.asarray(run.predict_proba(prep.X[i:i + 1] if not hasattr(prep.X, "tocsr")
                                                    else prep.X[[i]], t=src))[0]
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

    with col_m:
        st.markdown("**M-step**")
        if dst is None:
            st.latex(r"\alpha_{y'}^{t+1} = \frac{1}{N}\sum_{i=1}^N p(y_i = y' \mid X_i, \alpha^t, \beta^t) \quad (23)")
            st.latex(r"\beta_{j,y'}^{t+1} = \frac{\lambda + \sum_i X_{i,j}\, p(y_i = y' \mid X_i)}"
                     r"{2\lambda + \sum_i p(y_i = y' \mid X_i)} \quad (24)")
            st.info("Press **Step** to fill these in with numbers.")
            return
        cur = hist[dst]
        r = np.asarray(run.responsibilities(dst), dtype=float)  # stored or recomputed (keep_resp)
        w = np.where(prep.y_obs >= 0, 1.0, cfg.unlabeled_weight)
        rw = r * w[:, None]
        Sk = rw.sum(axis=0)
        st.latex(r"\alpha_{y'}^{t+1} = \frac{1}{N}\sum_{i=1}^N p(y_i = y' \mid X_i, \alpha^t, \beta^t) \quad (23)")
        denom = float(w.sum())
        den_tex = str(N) if cfg.unlabeled_weight == 1.0 else _n(denom, 1)
        lines = [rf"\alpha_{{{_cls(names[k])}}} &= \frac{{{_n(Sk[k], 2)}}}{{{den_tex}}} = {_n(Sk[k] / denom)}"
                 for k in range(K)]
        st.latex(r"\begin{aligned}" + r"\\ ".join(lines) + r"\end{aligned}")
        if cfg.unlabeled_weight != 1.0:
            st.caption(f"Unlabelled documents count with weight {cfg.unlabeled_weight:g} in these sums.")
        if not np.allclose(Sk / denom, cur.alpha, atol=1e-6):
            st.caption("engine's α: " + ", ".join(f"{v:.4f}" for v in cur.alpha))
        lam = float(cur.smoothing)
        if model == "bernoulli":
            st.latex(r"\beta_{j,y'}^{t+1} = \frac{\lambda + \sum_i X_{i,j}\, p(y_i = y' \mid X_i)}"
                     r"{2\lambda + \sum_i p(y_i = y' \mid X_i)} \quad (24)")
            A = np.array([derive.column_dot(prep.X, j, rw[:, k]) for k in range(K)])
            vals = (lam + A) / (2 * lam + Sk)
            word = _tex(prep.feature_names[j])
            lines = [rf"\beta_{{\text{{{word}}},{_cls(names[k])}}} &= \frac{{{_n(lam, 3)} + {_n(A[k], 2)}}}"
                     rf"{{2\cdot{_n(lam, 3)} + {_n(Sk[k], 2)}}} = {_n(vals[k])}" for k in range(K)]
            st.latex(r"\begin{aligned}" + r"\\ ".join(lines) + r"\end{aligned}")
            eng = np.asarray(cur.beta)[j]
            ok = np.allclose(vals, eng, atol=1e-6)
            st.caption(f"λ = {lam:g}. " + ("✓ same as the engine's β" if ok else
                       "engine's β: " + ", ".join(f"{v:.4f}" for v in eng)))
        elif model == "multinomial":
            st.latex(r"\beta_{j,y'} = \frac{\lambda + \sum_i X_{i,j}\, r_{i,y'}}{V\lambda + \sum_i\sum_{j'} X_{i,j'}\, r_{i,y'}}")
            V = prep.X.shape[1]
            A = np.array([derive.column_dot(prep.X, j, rw[:, k]) for k in range(K)])
            tot = np.asarray(prep.X.sum(axis=1)).ravel() @ rw
            vals = (lam + A) / (V * lam + tot)
            eng = np.asarray(cur.beta)[j]
            word = _tex(prep.feature_names[j])
            lines = [rf"\beta_{{\text{{{word}}},{_cls(names[k])}}} &= \frac{{{_n(lam, 3)} + {_n(A[k], 2)}}}"
                     rf"{{{V}\cdot{_n(lam, 3)} + {_n(tot[k], 1)}}} = {_n(vals[k], 4)}" for k in range(K)]
            st.latex(r"\begin{aligned}" + r"\\ ".join(lines) + r"\end{aligned}")
            ok = np.allclose(vals, eng, atol=1e-6)
            st.caption(f"λ = {lam:g}. " + ("✓ same as the engine's β" if ok else
                       "engine's β: " + ", ".join(f"{v:.4f}" for v in eng)))
        else:
            st.caption(f"The {model} model's M-step uses the same weighted counts Σᵢ rᵢₖ·(…); "
                       "its parameters are in the chart on the left.")
    if lam_next != float(snap.smoothing) and dst is not None:
        st.caption(f"Note: the next steps use λ = {lam_next:g}.")
