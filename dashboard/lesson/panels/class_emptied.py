"""The "EM emptied a class" warning: when a class's α collapses or no hidden document keeps it."""
from __future__ import annotations

import numpy as np
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.lesson import metrics
from dashboard.ui import controls, derive
from nblab.frame import Frame

K_EMPTIED = "class_emptied_rows"  # session cache: per iteration, what class_emptied_notice reads off θ_t


#: A class counts as emptied at iteration t when its α_t is below EMPTIED_SHARE of its α at t = 0 or below
#: EMPTIED_FLOOR / K, when the hidden documents' mean responsibility for it is below EMPTIED_SHARE of that
#: start (α also holds the labelled documents, so it cannot fall below their share), or when no hidden
#: document has it as its most probable class.
EMPTIED_SHARE = 0.01


EMPTIED_FLOOR = 0.005


def emptied_classes(alphas, hidden_means, hidden_counts) -> dict[int, int]:
    """{class k: first EM iteration (t ≥ 1) of the stretch of iterations, up to the last one given, in
    which k has been emptied}, for the classes emptied at the last iteration (t = 0 is the start EM was
    given, not something EM did: a class already empty there counts from t = 1).

    alphas, hidden_means: (T, K) α_t and the hidden documents' mean p(k | x, θ_t); hidden_counts: (T, K)
    how many hidden documents have k as their most probable class under θ_t."""
    a = np.asarray(alphas, dtype=float)
    mean = np.asarray(hidden_means, dtype=float)
    counts = np.asarray(hidden_counts)
    if a.ndim != 2 or a.shape[0] < 2:
        return {}
    K = a.shape[1]
    start = a[0]
    empty = (a < EMPTIED_SHARE * start) | (a < EMPTIED_FLOOR / K) | (mean < EMPTIED_SHARE * start) | (counts == 0)
    out = {}
    for k in np.flatnonzero(empty[-1]):
        t = a.shape[0] - 1
        while t > 1 and empty[t - 1, k]:
            t -= 1
        out[int(k)] = t
    return out


def _emptied_rows(f: Frame) -> list:
    """(α_t, hidden mean responsibility, hidden argmax counts) for t = 0 … f.t, computed once per
    iteration of the run (a row is recomputed when its α no longer matches the run's, e.g. after a
    λ change rewound and re-stepped it)."""
    serial = f.serial
    cache = st.session_state.get(K_EMPTIED)
    if not cache or cache["serial"] != serial:
        cache = {"serial": serial, "rows": []}
        st.session_state[K_EMPTIED] = cache
    rows = cache["rows"]
    hidden = np.asarray(f.prep.y_obs) < 0
    K = f.prep.n_classes
    newest = len(f.run.history) - 2  # the latest two are in metrics.proba_at's memo already
    for t in range(f.t + 1):
        alpha = np.asarray(f.run.history[t].alpha, dtype=float)
        if t < len(rows) and np.array_equal(rows[t][0], alpha):
            continue
        del rows[t:]
        proba = np.asarray(metrics.proba_at(f.run, t) if t >= newest else f.run.predict_proba(t=t))[hidden]
        rows.append((alpha, proba.mean(axis=0), np.bincount(proba.argmax(axis=1), minlength=K)))
    return rows[: f.t + 1]


def show(f: Frame) -> None:
    """A warning when EM has emptied a class at the iteration on screen (see :func:`emptied_classes`),
    naming the class and the iteration it happened, with a link to the Event models page on the same
    data settings (on text). Needs labelled documents (without them a class is not a label) and hidden ones."""
    if f.t < 1 or f.playing or not (np.asarray(f.prep.y_obs) >= 0).any() or not (np.asarray(f.prep.y_obs) < 0).any():
        return
    rows = _emptied_rows(f)
    emptied = emptied_classes([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    if not emptied:
        return
    names = f.prep.class_names
    a0, at = rows[0][0], rows[-1][0]
    lines = []
    for k, since in sorted(emptied.items(), key=lambda kv: kv[1]):
        name = derive.md_escape(names[k], 40)
        n_docs = int(rows[-1][2][k])
        now = "" if since == f.t else f" (t = {f.t} now)"
        lines.append(f"EM emptied the class **{name}** at iteration **{since}**: α({name}) is {at[k]:.2%}{now}, "
                     f"it started at {a0[k]:.2%}, and {n_docs:,} of the {int(rows[-1][2].sum()):,} hidden documents "
                     "have it as their most probable class: only its labelled documents still hold it."
                     + (" The start (t = 0, the fit to the labelled documents) already gave it no hidden document."
                        if rows[0][2][k] == 0 else ""))
    text = " ".join(lines)
    if nbcore.get_model(f.cfg.model).scores_absent_features:
        text += (" Bernoulli NB counts every word a document *lacks* (log(1 − β)), and a small class with few "
                 "labels loses on thousands of them.")
    st.warning(text, icon=":material/warning:")
    if getattr(f.prep.ds, "is_text", False):
        params = {"evm_dataset": f.cfg.dataset, "evm_hidden": str(int(f.cfg.hidden_pct)),
                  "evm_lam": controls.fmt_lam(f.smoothing), "evm_seed": str(int(f.cfg.seed)),
                  "evm_uw": f"{float(f.cfg.unlabeled_weight):g}"}
        if f.classroom:
            params[controls.K_CLASSROOM] = "true"
        st.page_link(pages.EVENT_MODELS.path, label="Compare Bernoulli and multinomial EM on the same data and "
                     "hidden labels: Event models side by side", icon=":material/text_compare:", query_params=controls.carry(params))
