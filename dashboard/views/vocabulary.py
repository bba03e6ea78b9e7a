"""Vocabulary curve: accuracy on the hidden labels as the vocabulary grows, for supervised NB and
EM under both event models, the label budget fixed (McCallum & Nigam 1998, fig. 1-3)."""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import event_models as event_models_charts
from dashboard.charts import theme
from dashboard.pagekit import figures, page_kit
from dashboard.ui import controls, derive, page_state, state, urlguard
from nbcore.models.bernoulli import binarize

SUBTITLE = ("Keep the V most frequent words, for V from 100 to the whole vocabulary: which event "
            "model gains from more words, and does EM still help?")
SIZES = (100, 300, 1_000, 3_000, 10_000, 20_000)
MAX_ITER = 100


@dataclass(frozen=True)
class Labelled:
    """The words counted (X: n documents × V_all words) and the labels: y_obs (-1 where hidden from EM)
    and y_eval (the true ones)."""
    X: object
    y_obs: np.ndarray
    y_eval: np.ndarray
    K: int


def main() -> None:
    page = page_kit.page_setup(pages.VOCABULARY, SUBTITLE)
    dataset, hidden, smoothing, uw, seed = sidebar()
    d = labelled_text(dataset, hidden, seed)
    V_all = d.X.shape[1]
    sizes = [v for v in SIZES if v < V_all] + [V_all]
    df = curve(d, dataset, hidden, smoothing, uw, seed, sizes)
    show_curve(df, sizes, page.fs)


def sidebar():
    """A text data set, the hidden share, λ, the unlabelled weight and the seed."""
    sb = st.sidebar
    dataset = page_kit.text_dataset_picker("voc_dataset")
    hidden = int(urlguard.slider(sb, "Labels hidden", format="%d%%", key="voc_hidden",
                                 help="The label budget, fixed for every vocabulary size: the same labels are hidden "
                                      "each time, and accuracy is measured on them."))
    smoothing = page_kit.lam_picker("voc_lam")
    uw = float(urlguard.slider(sb, "Unlabelled weight", key="voc_uw",
                               help="How much an unlabelled document counts in EM's M-step (Nigam's EM-λ)."))
    seed = int(urlguard.number_input(sb, "Seed (which labels are hidden)", key="voc_seed"))
    return dataset, hidden, smoothing, uw, seed


def labelled_text(dataset: str, hidden: int, seed: int) -> Labelled:
    """The data set's words counted, its labels hidden as the lesson view hides them. Stops the page when a
    class has no labelled document or no label is hidden."""
    ds = page_kit.text_counts_dataset(dataset)
    y, y_obs, y_eval = page_kit.hidden_labels(ds, hidden, seed)
    K = ds.n_classes
    score_mask = (y_obs < 0) & (y_eval >= 0)
    st.sidebar.caption(f"Vocabulary: {ds.X.shape[1]:,} words ({ds.pipeline.replace(binary=False).describe()}) · "
                       f"{int((y_obs >= 0).sum()):,} labelled documents")
    missing = [derive.md_escape(ds.class_names[k], 40) for k in range(K) if not (y_obs == k).any()]
    if missing or not score_mask.any():
        st.warning("EM starts from the labelled documents and is scored on the hidden ones: "
                   + (("no labelled document has class " + ", ".join(f"**{m}**" for m in missing) + ". ")
                      if missing else "no label is hidden. ")
                   + "Change “Labels hidden” or the seed.")
        st.stop()
    return Labelled(X=ds.X, y_obs=y_obs, y_eval=y_eval, K=K)


def vocabulary_curve(X, y_obs, y_eval, n_classes, sizes, smoothing, uw, seed, callback=None) -> list[dict]:
    """For each vocabulary size V (the V most frequent words of the count matrix X) and each event
    model (multinomial on the counts, Bernoulli on their presence): supervised NB on the labelled
    rows and EM (init from the labelled rows) to convergence, both scored on the hidden rows."""
    hidden_rows = y_obs < 0
    out, done, total = [], 0, 2 * len(sizes)
    for v in sizes:
        Xv = X[:, event_models_charts.vocabulary_columns(X, v)]
        for model, Xm in (("bernoulli", binarize(Xv)), ("multinomial", Xv)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                alpha, params = nbcore.supervised_fit(model, Xm, y_obs, n_classes, smoothing)
                pred_s = nbcore.predict_proba(model, alpha, params, Xm).argmax(axis=1)
                run = nbcore.EM(model=model, n_classes=n_classes, smoothing=smoothing, init="labeled",
                                unlabeled_weight=uw, max_iter=MAX_ITER, random_state=seed).start(Xm, y_obs)
                run.run_to_convergence()
            out.append({"V": int(v), "model": model,
                        "acc_supervised": nbcore.hidden_accuracy(pred_s, y_eval, hidden_rows),
                        "acc_em": nbcore.hidden_accuracy(run.predict(), y_eval, hidden_rows),
                        "iterations": int(run.iteration)})
            done += 1
            if callback is not None:
                callback(done, total)
    return out


def curve(d: Labelled, dataset: str, hidden: int, smoothing: float, uw: float, seed: int, sizes: list[int]):
    """Every point of the curve: computed when **Draw the curve** is pressed and kept until the settings
    change. Until then the page stops with a word on what the button does."""
    stored = page_state.get("voc", page_state.Result)
    upload_id = state.get(state.UPLOAD_SERIAL) if dataset in controls.USER_DATA else 0
    key = (dataset, upload_id, hidden, seed, float(smoothing), uw, tuple(sizes), MAX_ITER)
    go = st.button("Draw the curve", icon=":material/play_arrow:", key="voc_go", type="primary",
                   help=f"{len(sizes)} vocabulary sizes × 2 event models: a supervised fit and an EM run each.")
    if go:
        def compute(callback):
            return vocabulary_curve(d.X, d.y_obs, d.y_eval, d.K, sizes, smoothing, uw, seed, callback=callback)

        # shipped data: cached across sessions by the settings; an upload: kept in this session only
        stored.value = page_kit.cached("vocabulary", key, compute, "Fitting …", shareable=page_kit.is_shared(dataset))
        stored.config = key
    if stored.value is None or stored.config != key:
        st.info(f"Press **Draw the curve**: V = {', '.join(f'{v:,}' for v in sizes)} words, Bernoulli and "
                "multinomial, supervised and EM"
                + (" (the settings changed since the last curve)." if stored.value is not None else "."))
        st.stop()
    return pd.DataFrame(stored.value)


def show_curve(df: pd.DataFrame, sizes: list[int], FS: int) -> None:
    """Accuracy against V per event model, supervised and EM; each model's best V; every point."""
    acc = {m: {"supervised": df[df.model == m]["acc_supervised"].tolist(), "em": df[df.model == m]["acc_em"].tolist()}
           for m in event_models_charts.MODELS}

    def _best(values) -> str:
        v = np.asarray(values, dtype=float)
        if not np.isfinite(v).any():
            return "—"
        i = int(np.nanargmax(v))
        return f"{v[i]:.1%} at V = {sizes[i]:,}"

    figures.show_chart(
        st, figures.cached_figure(event_models_charts.vocabulary_figure, sizes, acc, FS, width=theme.chart_width(FS)), key="voc_fig",
        name="Line chart: accuracy on the hidden labels against the vocabulary size V, per event model, supervised and EM",
        summary=" ".join(f"{event_models_charts.MODEL_TITLES[m]}: EM best {_best(acc[m]['em'])}, supervised best "
                         f"{_best(acc[m]['supervised'])}." for m in event_models_charts.MODELS),
        config={"displayModeBar": False})

    cols = st.columns(2) if FS <= 15 else (st.container(), st.container())
    for m, col in zip(event_models_charts.MODELS, cols):
        sub = df[df.model == m].reset_index(drop=True)
        i = int(np.nanargmax(sub["acc_em"].to_numpy(dtype=float)))
        gain = sub["acc_em"] - sub["acc_supervised"]
        col.metric(f"{event_models_charts.MODEL_TITLES[m].capitalize()} EM: best V", f"{int(sub['V'][i]):,} words",
                   delta=f"{sub['acc_em'][i]:.1%} ({gain[i] * 100:+.1f} pts vs supervised)", delta_color="off")
    st.caption("Each point is one supervised fit or one EM run on the same labelled and hidden documents; only the "
               "vocabulary changes. Bernoulli scores every word a document lacks, so each extra rare word adds a term "
               "to every document's likelihood; the multinomial only adds terms for the words a document has "
               "(McCallum & Nigam 1998).")
    with figures.lazy_expander(st, "Every point", key="voc_points_table") as opened:
        if opened:
            st.dataframe(df, hide_index=True, width="stretch",
                         column_config={c: st.column_config.NumberColumn(c, format="%.3f")
                                        for c in ("acc_supervised", "acc_em")})


main()
