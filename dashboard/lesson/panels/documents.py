"""Documents on screen: the hidden documents EM is labelling, and the confusion matrix.

`documents_frame` and `confusion_frame` are pure functions of arrays (tested in
tests/app/test_documents.py); `documents_panel` draws them in the lesson view and
lets a click on a row fill the maths panel (it sets the maths panel's document).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

import nbcore
from dashboard.charts import theme
from dashboard.lesson import metrics
from dashboard.ui import controls, derive, state, table_split, urlguard

#: How the documents table can be ordered.
SORTS = {
    "least sure first": "EM is least sure about these (confidence = the largest responsibility)",
    "most sure first": "the documents EM is most sure about",
    "flipped first": "documents whose predicted class changed at this iteration",
    "wrong first": "documents EM currently gets wrong, least sure first",
    "document order": "as in the file",
}
K_DOC_SORT = "doc_sort"
K_DOC_TABLE = "doc_table"
_SHOW = 200  # rows drawn (the table is sorted first, so these are the interesting ones)


def document_texts(ds, n_rows: int) -> list[str]:
    """Raw text of each row; for word-count data without text, the words present."""
    texts = getattr(ds, "texts", None)
    if texts is not None:
        return [str(t) for t in texts]
    X = ds.X
    names = list(ds.feature_names)
    if getattr(ds, "kind", "") not in ("binary", "counts"):
        return [""] * n_rows
    out = []
    for i in range(n_rows):
        r = X[i]
        r = np.asarray(r.toarray() if hasattr(r, "toarray") else r).ravel()
        out.append("{" + ", ".join(names[j] for j in np.flatnonzero(r > 0)) + "}")
    return out


def documents_frame(proba: np.ndarray, proba_prev: np.ndarray | None, y_true: np.ndarray,
                    rows: np.ndarray, texts: list[str], class_names: list[str],
                    sort: str = "least sure first", split: tuple | None = None,
                    limit: int | None = None) -> pd.DataFrame:
    """One row per document in ``rows`` (the hidden ones), sorted; only the first ``limit``
    rows of that order when ``limit`` is given (the order is computed on arrays, so the
    table the page draws costs ``limit`` rows, not one row per hidden document).

    proba: (N, K) p(y | x_i) under θ_t; proba_prev: the same under θ_{t−1} (None at t = 0).
    Columns: doc (row number), text, true, EM says, responsibility of the true class,
    confidence (largest responsibility), flipped (prediction changed since t − 1), correct;
    with ``split`` and two classes, also the log-odds class 1 : class 0 that the words present and the
    words absent contribute: ``split`` is (present, absent) from the model's ``log_likelihood_by_presence``
    for every row, or a function of the rows drawn returning them for those rows only (what the page
    does: the table draws ``limit`` rows, and the split of every document costs two sparse products).
    """
    rows = np.asarray(rows, dtype=np.int64)
    P = np.asarray(proba, dtype=float)[rows]
    pred = P.argmax(axis=1)
    conf = P.max(axis=1)
    yt = np.asarray(y_true, dtype=np.int64)[rows]
    known = yt >= 0
    if proba_prev is None:
        flipped = np.zeros(len(rows), dtype=bool)
        prev = pred
    else:
        prev = np.asarray(proba_prev, dtype=float)[rows].argmax(axis=1)
        flipped = prev != pred
    correct = np.where(known, pred == yt, False)
    order = _order(sort, rows, conf, flipped, correct)
    if limit is not None:
        order = order[:max(0, int(limit))]
    rows, P, pred, conf, yt, known = rows[order], P[order], pred[order], conf[order], yt[order], known[order]
    prev, flipped, correct = prev[order], flipped[order], correct[order]
    r_true = np.where(known, P[np.arange(len(rows)), np.clip(yt, 0, None)], np.nan)
    names = [str(c) for c in class_names]
    df = pd.DataFrame({
        "doc": rows,
        "text": [texts[i] for i in rows],
        "true": [names[k] if k >= 0 else "?" for k in yt],
        "EM says": [names[k] for k in pred],
        "r(true class)": r_true,
        "confidence": conf,
        "flipped": [f"{names[a]} → {names[b]}" if f else "" for a, b, f in zip(prev, pred, flipped)],
        "correct": correct,
    })
    if split is not None and len(names) == 2:
        present, absent = (np.asarray(a, dtype=float) for a in split(rows)) if callable(split) else \
            (np.asarray(a, dtype=float)[rows] for a in split)
        with np.errstate(invalid="ignore"):
            df[f"words present {names[1]}:{names[0]}"] = present[:, 1] - present[:, 0]
            df[f"words absent {names[1]}:{names[0]}"] = absent[:, 1] - absent[:, 0]
    return df


def _order(sort: str, rows: np.ndarray, conf: np.ndarray, flipped: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """The documents' order for ``sort`` (one of SORTS), ties in document order: indices into ``rows``."""
    if sort == "most sure first":
        return np.lexsort((rows, -conf))
    if sort == "flipped first":
        return np.lexsort((rows, conf, ~flipped))
    if sort == "wrong first":
        return np.lexsort((rows, conf, correct))
    if sort == "document order":
        return np.argsort(rows, kind="stable")
    return np.lexsort((rows, conf))


def confusion_frame(y_true: np.ndarray, pred: np.ndarray, class_names: list[str]) -> pd.DataFrame:
    """(K, K) counts on the given documents: rows = true class, columns = EM's class."""
    K = len(class_names)
    m = nbcore.confusion(np.asarray(y_true), np.asarray(pred), K).T  # nbcore: rows = predicted
    names = [str(c) for c in class_names]
    return pd.DataFrame(m, index=[f"true {n}" for n in names], columns=[f"EM: {n}" for n in names])


def _on_pick(order_key: tuple) -> None:
    """A row was clicked: make it the maths panel's document (runs before the rerun)."""
    event = st.session_state.get(K_DOC_TABLE)
    docs = state.memo(order_key, lambda: None)
    try:
        rows = event.selection.rows if hasattr(event, "selection") else event["selection"]["rows"]
    except (KeyError, TypeError, AttributeError):
        return
    if rows and docs is not None and 0 <= rows[0] < len(docs):
        st.session_state[controls.K_DOC] = int(docs[rows[0]])


def documents_panel(run, prep, t: int, model: str, classroom: bool = False) -> None:
    """The hidden documents at iteration t, and the confusion matrix on them."""
    mask = np.asarray(prep.score_mask, dtype=bool)
    if not mask.any():
        return
    if prep.n_classes and not (np.asarray(prep.y_obs) >= 0).any():
        return  # clustering (no label visible): class k is not label k; the accuracy chart aligns them
    rows = np.flatnonzero(mask)
    proba = metrics.proba_at(run, t)
    prev = metrics.proba_at(run, t - 1) if t > 0 else None
    texts = state.memo(("docs_texts",), lambda: document_texts(prep.ds, prep.X.shape[0]))
    names = list(prep.class_names)

    def head():
        pred = proba[rows].argmax(axis=1)
        n_flip = int((prev[rows].argmax(axis=1) != pred).sum()) if prev is not None else 0
        # st.dataframe takes an Arrow table as is: converted once here, not from pandas on every rerun
        return (float(np.mean(pred == prep.y_eval[rows])), n_flip,
                pa.Table.from_pandas(confusion_frame(prep.y_eval[rows], pred, names)))

    # one pass per (run, t): another λ, sort order or expander reuses these
    acc, n_flip, confusion = state.memo(("docs_head", t), head)
    title = (f"The {len(rows):,} hidden documents at t = {t}: {acc:.1%} right"
             + (f", {n_flip:,} flipped at this iteration" if t > 0 else ""))
    with st.expander(title, expanded=not classroom, icon=":material/description:"):
        sort = _order_and_confusion(confusion, classroom)
        split = _presence_split(run, prep, t, model)
        shown = state.memo(("docs_frame", t, sort),  # only the rows drawn are built
                           lambda: documents_frame(proba, prev, prep.y_eval, rows, texts, names, sort, split,
                                                   limit=_SHOW))
        order_key = ("docs_order", t, sort)
        state.memo(order_key, lambda: shown["doc"].to_numpy())
        config, cols, hidden = _table_columns(shown, names, split is not None, sort, theme.MAIN_WIDTH[classroom])
        shown_arrow = state.memo(("docs_arrow", t, sort), lambda: pa.Table.from_pandas(shown))
        st.dataframe(shown_arrow, hide_index=True, width="stretch", height=320 if not classroom else 420,
                     key=K_DOC_TABLE, on_select=lambda: _on_pick(order_key), selection_mode="single-row",
                     column_config=config, column_order=cols)
        more = (f" More columns ({', '.join(config[c]['label'] for c in hidden)}) are in the table's "
                "column menu (the eye at its top right) and in the CSV." if hidden else "")
        st.caption(f"Showing {len(shown):,} of {len(rows):,} ({sort}). Click a row to put that document "
                   "in the maths panel below." + more)
        # every hidden document in this order, made only when clicked (derive.csv_export: no formulas)
        st.download_button(f"All {len(rows):,} hidden documents at t = {t} (CSV)",
                           lambda: derive.csv_export(documents_frame(proba, prev, prep.y_eval, rows, texts, names,
                                                                     sort, split)),
                           file_name=f"documents_t{t}.csv", mime="text/csv", key="dl_documents",
                           on_click="ignore", icon=":material/download:")
        if split is not None:
            _absent_words_note(names)


def _order_and_confusion(confusion, classroom: bool) -> str:
    """The confusion matrix, then the order picker on a row of its own (its five options need about
    560 px: beside the matrix the last ones were cut at the column's edge), then the table gets the full
    width below: the message text and the words present/absent columns are what a reader looks at.
    Returns the order."""
    st.markdown("**Confusion on the hidden labels** (rows: true class; columns: the class EM gives it now)")
    st.dataframe(confusion, width="content" if not classroom else "stretch")
    sort = urlguard.segmented_control(st, "Order", key=K_DOC_SORT,
                                      help="\n\n".join(f"**{k}**: {v}" for k, v in SORTS.items()))
    return sort or "least sure first"


def _presence_split(run, prep, t: int, model: str):
    """For a two-class model that scores absent words (Bernoulli): a function of the rows drawn giving
    their log-likelihood from the words present and absent; else None."""
    if len(prep.class_names) == 2 and nbcore.get_model(model).scores_absent_features:
        def split(shown_rows):  # the rows drawn only
            return nbcore.get_model(model).log_likelihood_by_presence(prep.X[shown_rows], run.history[t].params)
        return split
    return None


#: The column each order is about: shown before the other optional columns.
_ORDER_COLUMN = {"least sure first": "confidence", "most sure first": "confidence",
                 "flipped first": "flipped", "wrong first": "correct"}
#: px the table loses to the expander's padding and the grid's row-selection column.
_BOX_LOSS_PX = 76
_TEXT_MIN_PX, _TEXT_MAX_PX = 180, 400


def _column_width(config: dict) -> int:
    """The px width a column's configuration names (every column of this table names one)."""
    width = config.get("width")
    return width if isinstance(width, int) else {"small": 75, "medium": 200, "large": 400}[width]


def _table_columns(shown: pd.DataFrame, names: list[str], split: bool, sort: str = "least sure first",
                   box_px: int = theme.MAIN_WIDTH[False]) -> tuple[dict, list[str], list[str]]:
    """The table's column configuration, its column order (the words present / absent columns next to
    the classes) and the columns hidden because they do not fit ``box_px`` (the main column's width on a
    1280×720 screen). A column cut at the box's edge scrolls out of a class's sight: the document, its
    text, the two classes, the words split and r(true class) are always shown, then the column the
    order is about; the rest are hidden (the table's toolbar shows them again, the CSV has them all)."""
    # a class column as wide as its header or its longest class name ("portuguese"), as the grid draws them
    name_px = int(max(len(str(n)) for n in names) * table_split.CHAR_PX + table_split.CELL_PAD) if names else 0
    config = {
        "doc": st.column_config.NumberColumn("doc", help="Row number in the data set", width=56),
        "text": st.column_config.TextColumn("text", width=_TEXT_MIN_PX,
                                            help="The message (click the row: it is shown whole below)."),
        "true": st.column_config.TextColumn("true", width=max(64, name_px)),
        "EM says": st.column_config.TextColumn("EM says", width=max(76, name_px)),
        # a bar and its number ("0.523") side by side: a column narrower than this cuts the number
        "r(true class)": st.column_config.ProgressColumn(
            "r(true class)", min_value=0.0, max_value=1.0, format="%.3f", width=140,
            help="Responsibility EM gives the document's true class: p(true class | x, θ_t)."),
        "confidence": st.column_config.NumberColumn(
            "confidence", format="%.3f", width=95, help="The largest responsibility: how sure EM is."),
        "flipped": st.column_config.TextColumn("flipped at t", width=max(110, 2 * name_px),
                                               help="Predicted class at t − 1 → at t."),
        "correct": st.column_config.CheckboxColumn("correct", width=80),
    }
    if split:  # the column names are plain text; their help (a tooltip) is Markdown
        pair = f"{derive.md_escape(names[1], 40)}:{derive.md_escape(names[0], 40)}"
        for which in ("present", "absent"):
            col = f"words {which} {names[1]}:{names[0]}"
            if col in shown.columns:  # the label leaves out the class pair (it would be cut): the help has it
                config[col] = st.column_config.NumberColumn(
                    f"words {which}", format="%.1f", width=104,
                    help=f"Log-odds {pair} from the words {which} in the message "
                         "(positive: towards the first class named).")
    cols = list(shown.columns)
    split_cols = [c for c in cols if c.startswith(("words present", "words absent"))]
    if split_cols:  # the Bernoulli lesson reads these two next to the message: before the rest
        at = cols.index("EM says") + 1
        cols = [c for c in cols[:at] if c not in split_cols] + split_cols + \
            [c for c in cols[at:] if c not in split_cols]
    hidden = _hidden_columns(config, cols, sort, box_px - _BOX_LOSS_PX)
    for c in hidden:
        config[c] = {**config[c], "hidden": True}
    shown_px = sum(_column_width(config[c]) for c in cols if c not in hidden)
    config["text"]["width"] = int(min(_TEXT_MAX_PX, _TEXT_MIN_PX + max(0, box_px - _BOX_LOSS_PX - shown_px)))
    return config, cols, hidden


def _hidden_columns(config: dict, cols: list[str], sort: str, room_px: int) -> list[str]:
    """The columns left out of ``room_px``: always shown are the document, its text, the classes, the
    words split and r(true class); then the order's own column, then the others in table order while
    they fit."""
    always = [c for c in cols if c in ("doc", "text", "true", "EM says", "r(true class)")
              or c.startswith(("words present", "words absent"))]
    optional = [c for c in cols if c not in always]
    first = _ORDER_COLUMN.get(sort)
    if first in optional:
        optional = [first] + [c for c in optional if c != first]
    used = sum(_column_width(config[c]) for c in always)
    hidden = []
    for c in optional:
        if used + _column_width(config[c]) <= room_px:
            used += _column_width(config[c])
        else:
            hidden.append(c)
    return [c for c in cols if c in hidden]


def _absent_words_note(names: list[str]) -> None:
    """What the words absent column means, and when it decides."""
    c1, c0 = derive.md_escape(names[1], 40), derive.md_escape(names[0], 40)  # shown literally
    st.caption(f"Bernoulli NB scores the words a message lacks too: “words absent” is the log-odds {c1}:{c0} "
               f"Σ over every vocabulary word *not* in it of log(1 − β({c1})) − log(1 − β({c0})); "
               f"“words present” the same over the words it has, with log β. A short message lacks "
               "thousands of words; when the absent column outweighs the present one, the absent words "
               "decide the class.")


def show(f) -> None:
    """The documents panel of the lesson view at the iteration on screen."""
    documents_panel(f.run, f.prep, f.t, f.cfg.model, f.classroom)
