"""Every document's responsibility: a table for small data, else a histogram and the most uncertain documents."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.charts import lesson as lesson_charts
from dashboard.charts import theme
from dashboard.pagekit import figures
from dashboard.ui import state
from nblab.frame import Frame

K_RESP_OPEN = "resp_panel_open"  # the "Every document's responsibility" expander's state


SMALL = 60  # data sets up to this many documents: every responsibility in one table


def _doc_summary(prep, i: int, max_items: int = 6) -> str:
    ds = prep.ds
    texts = getattr(ds, "texts", None)
    if texts is not None and i < len(texts):
        s = " ".join(str(texts[i]).split())
        return s if len(s) <= 80 else s[:79] + "…"
    X = prep.X
    row = X[i]
    row = np.asarray(row.toarray() if hasattr(row, "toarray") else row).ravel()
    names = prep.feature_names
    cats = getattr(ds, "categories", None)
    if cats:  # categorical codes
        return ", ".join(f"{names[j]}={cats[j][int(v)]}" for j, v in enumerate(row[:max_items]))
    nz = np.flatnonzero(row)
    if set(np.unique(row)) <= {0.0, 1.0}:
        words = [str(names[j]) for j in nz[:max_items]]
        return (", ".join(words) + (" …" if nz.size > max_items else "")) or "(no feature)"
    return ", ".join(f"{names[j]}={row[j]:g}" for j in nz[:max_items]) + (" …" if nz.size > max_items else "")


def current_responsibilities(f):
    """(resp (N, K) or None, which: str): the E-step at θ_t if it is pending, else the one that produced θ_t."""
    run = f.run
    if run.pending is not None and f.t == f.latest:
        return np.asarray(run.pending.resp), f"the E-step at θ_{f.t} (the M-step has not used them yet)"
    if f.t == 0:
        return None, ""
    r = run.responsibilities(f.t)
    return np.asarray(r), f"the E-step at θ_{f.t - 1}, which produced θ_{f.t}"


def show(f: Frame) -> None:
    """Every document's responsibility (small data sets), or a histogram and the most uncertain documents."""
    if f.playing:
        return
    pending = f.run.pending is not None and f.t == f.latest
    box = st.expander("Every document's responsibility", key=K_RESP_OPEN, on_change="rerun",
                      icon=":material/groups:")
    with box:
        if not box.open:  # closed: nothing is built, sent or drawn (the E-step opens it)
            return
        # everything below depends on θ_t (and whether its E-step is pending) only: built once per
        # (run, t), so a λ change, a sort of the documents table or an expander costs nothing here
        got = state.memo(("resp_panel", f.t, pending, f.fs), lambda: _responsibilities_content(f))
        if got is None:
            st.info("No E-step yet: press **E-step** (or Step) to compute p(class | document) for every document.")
            return
        st.caption(f"Responsibilities r_ik = p(y_i = k | x_i) from {got['which']}. Labelled documents are one-hot "
                   "(eq. 22): EM never changes a label it was given.")
        names = got["names"]
        if got["fig"] is None:
            st.dataframe(got["table"], hide_index=True, width="stretch", column_config=_resp_columns(names))
            return
        c1, c2 = st.columns([2, 3])
        figures.show_chart(c1, got["fig"], key="resp_hist",
                           name="Histogram: the responsibilities p(class | document) of the hidden documents",
                           summary=f"{got['unsure']:,} of the {got['n_hidden']:,} hidden documents have no class "
                                   "above 0.8; the others lean clearly to one class.",
                           config={"displayModeBar": False})
        with c2:
            st.markdown(f"**The {got['n_rows']} most uncertain of {got['n_hidden']:,} hidden documents** "
                        f"({got['unsure']:,} have no class above 0.8)")
            st.dataframe(got["table"], hide_index=True, width="stretch", column_config=_resp_columns(names))


def _responsibilities_content(f) -> dict | None:
    """What :func:`responsibilities_panel` shows at iteration t (None before the first E-step)."""
    resp, which = current_responsibilities(f)
    if resp is None:
        return None
    if resp.shape[1] != len(f.prep.class_names):  # components per class: sum each class's components
        m = resp.shape[1] // len(f.prep.class_names)
        resp = resp.reshape(resp.shape[0], -1, m).sum(axis=2)
    names = [str(c) for c in f.prep.class_names]
    n = resp.shape[0]
    if n <= SMALL:
        return {"which": which, "names": names, "fig": None, "table": responsibility_table(f.prep, resp, range(n))}
    hidden = f.prep.y_obs < 0
    rh = resp[hidden]
    entropy = -np.sum(np.where(rh > 0, rh * np.log(np.where(rh > 0, rh, 1.0)), 0.0), axis=1)
    order = np.flatnonzero(hidden)[np.argsort(-entropy, kind="stable")][:12]
    # a plain dict spec (theme.figure): st.plotly_chart does not re-validate it on every rerun
    fig = theme.figure(lesson_charts.responsibility_histogram(rh, names, f.fs))
    return {"which": which, "names": names, "fig": fig, "table": responsibility_table(f.prep, resp, order),
            "n_rows": len(order), "n_hidden": int(hidden.sum()), "unsure": int(np.sum(rh.max(axis=1) < 0.8))}


def responsibility_table(prep, resp: np.ndarray, rows) -> pd.DataFrame:
    """One row per document: its features/text, the label EM sees, the true label, r per class."""
    names = [str(c) for c in prep.class_names]
    rows = list(rows)
    out = {"doc": rows, "document": [_doc_summary(prep, i) for i in rows],
           "label EM sees": [names[prep.y_obs[i]] if prep.y_obs[i] >= 0 else "hidden" for i in rows],
           "true label": [names[prep.y_eval[i]] if prep.y_eval[i] >= 0 else "—" for i in rows]}
    for k, name in enumerate(names):
        out[f"r({name})"] = resp[rows, k]
    return pd.DataFrame(out)


def _resp_columns(names) -> dict:
    cols = {f"r({n})": st.column_config.ProgressColumn(f"r({n})", min_value=0.0, max_value=1.0, format="%.3f",
                                                       width="small")
            for n in names}
    cols["document"] = st.column_config.TextColumn("document", width="medium")
    cols["doc"] = st.column_config.NumberColumn("doc", width="small")
    return cols
