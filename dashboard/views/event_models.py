"""Event models side by side: Bernoulli and multinomial EM on the same text, the same hidden
labels and the same start, stepped together (McCallum & Nigam 1998; Nigam et al. 2000).

Both runs read the same vocabulary: the data set's words counted (multinomial) and the same
counts turned into presence (Bernoulli), so the only difference is the event model."""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import event_models as event_models_charts
from dashboard.charts import theme
from dashboard.pagekit import figures, page_kit
from dashboard.ui import controls, derive, page_state, state, urlguard
from nbcore.models.bernoulli import binarize
from nblab import numbers
from nblab.lesson_run import status_line

SUBTITLE = ("Same words, same hidden labels, same start: Bernoulli EM (presence and absence of every "
            "word) next to multinomial EM (word counts).")
MODELS = event_models_charts.MODELS
ALL = "all"  # the last option of evm_vocab (url_table): every word kept


@dataclass(frozen=True)
class Settings:
    dataset: str
    hidden: int
    smoothing: float
    uw: float
    seed: int
    vocab: object  # a vocabulary size, or ALL


@dataclass(frozen=True)
class TextData:
    """The text both runs read: the counts Xc (n, V) of the words kept, each model's input, the labels
    (y_obs: -1 where hidden from EM; y_eval: the true ones) and the names."""
    ds: object
    Xc: object
    feature_names: list
    X_by_model: dict
    y: np.ndarray
    y_obs: np.ndarray
    y_eval: np.ndarray
    class_names: list
    md_names: list

    @property
    def score_mask(self) -> np.ndarray:
        return (self.y_obs < 0) & (self.y_eval >= 0)

    @property
    def K(self) -> int:
        return self.ds.n_classes

    def hidden_accuracy(self, pred) -> float:
        acc = nbcore.hidden_accuracy(pred, self.y_eval, self.y_obs < 0)
        return float("nan") if acc is None else acc


def main() -> None:
    page = page_kit.page_setup(pages.EVENT_MODELS, SUBTITLE)
    s = sidebar()
    d = text_data(s)
    base = supervised_accuracy(d, s.smoothing)
    state = page_state.get("evm", page_state.SteppedRuns)
    key = (s.dataset, state_serial(s.dataset), s.hidden, s.seed, float(s.smoothing), s.uw, str(s.vocab))
    if state.config != key or state.runs is None:
        state.runs, state.config, state.acc = start_runs(d, s), key, {m: [] for m in MODELS}
    toolbar(state, page.fs)
    for m, run in state.runs.items():
        for t in range(len(state.acc[m]), len(run.history)):
            state.acc[m].append(d.hidden_accuracy(np.asarray(run.predict_proba(t=t)).argmax(axis=1)))
    for m, col in zip(MODELS, st.columns(2)):
        with col:
            show_run(m, state.runs[m], state.acc[m], base[m])
    accuracy_chart(d, state.acc, base, page.fs)
    top_words(d, state.runs, page)
    one_document(d, state.runs, page.fs)


def sidebar() -> Settings:
    """A text data set, the hidden share, λ and the unlabelled weight both runs use, the seed and the vocabulary."""
    sb = st.sidebar
    dataset = page_kit.text_dataset_picker("evm_dataset",
                                           help="Text data sets only: both models need the words of each document.")
    hidden = urlguard.slider(sb, "Labels hidden", format="%d%%", key="evm_hidden",
                             help="The same labels are hidden from both runs; accuracy is measured on them.")
    smoothing = page_kit.lam_picker("evm_lam", label="Smoothing λ (both runs)")
    uw = float(urlguard.slider(sb, "Unlabelled weight (both runs)", key="evm_uw",
                               help="How much an unlabelled document counts in the M-step (Nigam's EM-λ)."))
    seed = int(urlguard.number_input(sb, "Seed (which labels are hidden)", key="evm_seed"))
    vocab = urlguard.select_slider(sb, "Vocabulary (most frequent words)",
                                   format_func=lambda v: "all" if v == ALL else f"{v:,}", key="evm_vocab",
                                   help="Keep only the V most frequent words (by total count) for both models. "
                                        "The **Vocabulary curve** page draws accuracy against V.")
    return Settings(dataset, int(hidden), smoothing, uw, seed, vocab)


def state_serial(dataset: str) -> int:
    """Which upload the data set is (a new upload under the same name starts the runs again)."""
    return state.get(state.UPLOAD_SERIAL) if dataset in controls.USER_DATA else 0


def text_data(s: Settings) -> TextData:
    """The data set's words counted, cut to the vocabulary, with the labels hidden as the lesson view hides
    them. Stops the page when a class has no labelled document to start from."""
    sb = st.sidebar
    ds = page_kit.text_counts_dataset(s.dataset)
    Xc = ds.X
    if s.vocab != ALL:
        Xc = Xc[:, event_models_charts.vocabulary_columns(Xc, int(s.vocab))]
        feature_names = [ds.feature_names[j] for j in event_models_charts.vocabulary_columns(ds.X, int(s.vocab))]
    else:
        feature_names = list(ds.feature_names)
    y, y_obs, y_eval = page_kit.hidden_labels(ds, s.hidden, s.seed)
    class_names = [str(c) for c in ds.class_names]
    md_names = [derive.md_escape(c, 40) for c in class_names]
    sb.caption(f"V = {Xc.shape[1]:,} words · {len(y):,} documents · {int((y_obs >= 0).sum()):,} labelled for EM")
    missing = [md_names[k] for k in range(ds.n_classes) if not (y_obs == k).any()]
    if missing:
        st.warning("Both runs start from the labelled documents, and no labelled document has class "
                   + ", ".join(f"**{m}**" for m in missing) + ". Lower “Labels hidden” or pick another seed.")
        st.stop()
    return TextData(ds=ds, Xc=Xc, feature_names=feature_names, X_by_model={"bernoulli": binarize(Xc), "multinomial": Xc},
                    y=y, y_obs=y_obs, y_eval=y_eval, class_names=class_names, md_names=md_names)


def supervised_accuracy(d: TextData, smoothing: float) -> dict:
    """Supervised-only baselines: Naive Bayes on the visible labels alone, each model on its own input."""
    base = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in MODELS:
            alpha_s, params_s = nbcore.supervised_fit(m, d.X_by_model[m], d.y_obs, d.K, smoothing)
            base[m] = d.hidden_accuracy(nbcore.predict_proba(m, alpha_s, params_s, d.X_by_model[m]).argmax(axis=1))
    return base


def start_runs(d: TextData, s: Settings) -> dict:
    """Both runs at iteration 0, from the labelled documents; a message and a stopped page if one can't start."""
    runs = {}
    for m in MODELS:
        em = nbcore.EM(model=m, n_classes=d.K, smoothing=s.smoothing, init="labeled", unlabeled_weight=s.uw,
                       max_iter=200, random_state=s.seed)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runs[m] = em.start(d.X_by_model[m], d.y_obs)
        except ValueError as e:
            st.error(f"{event_models_charts.MODEL_TITLES[m]}: {e}")
            st.stop()
    return runs


def toolbar(state: page_state.SteppedRuns, FS: int) -> None:
    """Step, 10 steps, run to convergence and Reset, for both runs together."""
    both_done = all(r.done for r in state.runs.values())
    b1, b2, b3, b4 = st.columns(4) if FS <= 15 else (st.columns(2) + st.columns(2))
    b1.button("Step", icon=":material/skip_next:", key="evm_step", on_click=state.step, args=(1,), disabled=both_done,
              width="stretch", help="One E-step and one M-step for each run.")
    b2.button("10 steps", icon=":material/fast_forward:", key="evm_step10", on_click=state.step, args=(10,),
              disabled=both_done, width="stretch")
    b3.button("Run to convergence", icon=":material/double_arrow:", key="evm_conv", on_click=state.step, args=(200,),
              disabled=both_done, width="stretch")
    b4.button("Reset", icon=":material/replay:", key="evm_reset", on_click=state.reset, width="stretch")


def show_run(m: str, run, acc: list[float], b: float) -> None:
    """One run's iteration, accuracy against the supervised baseline ``b``, and status."""
    st.markdown(f"### {event_models_charts.MODEL_TITLES[m].capitalize()} EM")
    m1, m2, m3 = st.columns([1, 2, 2])  # the accuracy's delta ("±0.0 pts vs supervised") needs the room
    m1.metric("Iteration", run.iteration)
    a_now = acc[-1]
    has_delta = bool(np.isfinite(a_now) and np.isfinite(b))
    m2.metric("Accuracy (hidden)", theme.pct(a_now),
              delta=numbers.delta_text(a_now, b) if has_delta else None,
              delta_color=numbers.delta_color(a_now, b) if has_delta else "normal",
              delta_arrow="off" if has_delta and numbers.delta_color(a_now, b) == "off" else "auto")
    m3.metric("Supervised only", theme.pct(b),
              help="Naive Bayes with the same event model, trained on the visible labels alone.")
    kind, text = status_line(run)
    st.caption(text.replace("Press Step or Play.", "Press Step (or 10 steps)."))


def accuracy_chart(d: TextData, acc: dict, base: dict, FS: int) -> None:
    """Both runs' accuracy on the hidden labels over the iterations, with the supervised baselines."""
    score_mask = d.score_mask
    if score_mask.any():
        figures.show_chart(
            st, figures.cached_figure(event_models_charts.accuracy_runs_figure, acc, base, FS, width=theme.chart_width(FS),
                                                         n_hidden=int(score_mask.sum())),
            key="evm_acc_fig", name="Line chart: accuracy on the hidden labels over the iterations, Bernoulli and multinomial EM",
            summary="; ".join(f"{event_models_charts.MODEL_TITLES[m]} EM: {theme.pct(acc[m][0])} at t = 0, "
                              f"{theme.pct(acc[m][-1])} at t = {len(acc[m]) - 1} (supervised only {theme.pct(base[m])})"
                              for m in MODELS if m in acc) + ".",
            config={"displayModeBar": False})
    else:
        st.info("No hidden labels: raise “Labels hidden” to compare accuracy.")


def top_words(d: TextData, runs: dict, page: page_kit.PageContext) -> None:
    """The words that set each class apart in each run, now."""
    FS = page.fs
    st.markdown("#### The words that set each class apart, now")
    n_top = 8 if page.classroom else 10
    word_cols = st.columns(2) if FS <= 15 else (st.container(), st.container())
    for m, col in zip(MODELS, word_cols):
        beta = np.asarray(runs[m].current.params["beta"], dtype=float)
        table = event_models_charts.top_words(beta, d.feature_names, d.class_names, n=n_top)
        with col:
            st.markdown(f"**{event_models_charts.MODEL_TITLES[m].capitalize()}** (t = {runs[m].iteration})")
            figures.show_light_table(st, table, hide_index=False, width_px=theme.chart_width(FS, 1 if FS > 15 else 2),
                                     column_config={c: st.column_config.NumberColumn(c, format="%.4f")
                                                    for c in table.columns if c.startswith("β(")},
                                     keep=0, classroom=page.classroom)
    st.caption("Ranked by β_jk · log(β_jk / β̄_j), β̄_j the mean over the other classes: frequent in the class and "
               "much rarer elsewhere. Bernoulli's β is p(word present | class); the multinomial's is the word's share "
               "of the class's tokens.")


def one_document(d: TextData, runs: dict, FS: int) -> None:
    """Why the two models differ: one hidden document's log-likelihood, part by part."""
    st.markdown("#### Why they differ: one hidden document")
    doc = pick_document(d, runs, FS)
    parts = document_parts(d, runs, doc, FS)
    if d.K >= 2:
        decisive_part(d, runs, parts)


def pick_document(d: TextData, runs: dict, FS: int) -> int:
    """The document picker (its default: the first hidden document of the smallest class) and the button
    that moves it to the next hidden document the runs label differently."""
    y_eval, y_obs, K, y = d.y_eval, d.y_obs, d.K, d.y
    score_mask = d.score_mask
    hidden_rows = np.flatnonzero(score_mask if score_mask.any() else y_obs < 0)
    if not hidden_rows.size:
        st.info("No hidden documents: raise “Labels hidden”.")
        st.stop()
    smallest = int(np.argmin(np.bincount(y_eval[hidden_rows][y_eval[hidden_rows] >= 0], minlength=K))) \
        if (y_eval[hidden_rows] >= 0).any() else 0
    in_smallest = hidden_rows[y_eval[hidden_rows] == smallest]
    default_doc = int(in_smallest[0] if in_smallest.size else hidden_rows[0])
    preds = {m: np.asarray(runs[m].predict_proba()).argmax(axis=1) for m in MODELS}

    def _next_disagreement() -> None:
        """Put the next hidden document the two runs label differently in the picker."""
        cur = int(st.session_state.get("evm_doc", default_doc))
        differ = hidden_rows[preds["bernoulli"][hidden_rows] != preds["multinomial"][hidden_rows]]
        if differ.size:
            later = differ[differ > cur]
            st.session_state["evm_doc"] = int(later[0] if later.size else differ[0])

    n_differ = int((preds["bernoulli"][hidden_rows] != preds["multinomial"][hidden_rows]).sum())
    if st.session_state.get("evm_doc") is not None and not 0 <= int(st.session_state["evm_doc"]) < len(y):
        st.session_state["evm_doc"] = default_doc
    d1, d2 = st.columns([1, 2]) if FS <= 15 else (st.container(), st.container())
    doc = int(urlguard.number_input(d1, "Document (row)", hi=len(y) - 1, default=default_doc, step=1, key="evm_doc",
                                    help="Any row; a hidden one is what EM labels. The default is the first hidden "
                                         "document of the smallest class."))
    d2.button(f"Next hidden document the two runs label differently ({n_differ:,} now)", key="evm_differ",
              icon=":material/compare_arrows:", on_click=_next_disagreement, disabled=n_differ == 0)
    return doc


def document_parts(d: TextData, runs: dict, doc: int, FS: int) -> dict:
    """The document's text, what each model says of it, and its log p(x | class) in parts (chart and table)."""
    Xc, y_obs, y_eval, class_names, md_names = d.Xc, d.y_obs, d.y_eval, d.class_names, d.md_names
    V = Xc.shape[1]
    x_counts = np.asarray(Xc[doc].toarray() if hasattr(Xc, "toarray") else Xc[doc], dtype=float).ravel()
    beta_b = np.asarray(runs["bernoulli"].current.params["beta"], dtype=float)
    beta_m = np.asarray(runs["multinomial"].current.params["beta"], dtype=float)
    with np.errstate(divide="ignore"):
        parts = event_models_charts.likelihood_parts(x_counts, np.log(beta_b), np.log1p(-beta_b), np.log(beta_m))
    texts = getattr(d.ds, "texts", None)
    raw = str(texts[doc]) if texts is not None else ""
    status = "hidden from EM" if y_obs[doc] < 0 else "labelled (EM sees its label)"
    true = class_names[y_eval[doc]] if y_eval[doc] >= 0 else "?"
    n_present = int((x_counts > 0).sum())
    st.markdown(f"**Document {doc}** ({status}; true class **{derive.md_escape(true, 40)}**): "
                f"“{derive.md_escape(raw, 300)}”")
    post = {m: np.asarray(runs[m].predict_proba(d.X_by_model[m][doc]))[0] for m in MODELS}
    st.caption(f"{n_present:,} of the V = {V:,} words occur in it, so Bernoulli adds {V - n_present:,} absent-word "
               "terms log(1 − β) per class; the multinomial adds a term x_j log β only for the words that occur. "
               + " · ".join(f"{event_models_charts.MODEL_TITLES[m]} says **{md_names[int(post[m].argmax())]}** "
                            f"({post[m].max():.1%})" for m in MODELS))
    table = event_models_charts.parts_table(parts, class_names)
    figures.show_chart(
        st, figures.cached_figure(event_models_charts.parts_figure, parts, class_names, FS, width=theme.chart_width(FS)), key="evm_parts_fig",
        name=f"Bar chart: the parts of log p(x | class) of document {doc} under each event model",
        summary=" ".join(f"{row['class']}: Bernoulli {row['Bernoulli: total']:.1f} ({row['absent share']:.0%} from the "
                         f"words absent), multinomial {row['multinomial: total']:.1f}." for _, row in table.iterrows()),
        config={"displayModeBar": False})
    figures.show_light_table(st, table, width_px=theme.chart_width(FS),
                       column_config={c: (st.column_config.ProgressColumn(c, min_value=0.0, max_value=1.0, format="percent")
                                          if c.endswith("share") else st.column_config.NumberColumn(c, format="%.1f"))
                                      for c in table.columns if c != "class"})
    return parts


def decisive_part(d: TextData, runs: dict, parts: dict) -> None:
    """Which part moves Bernoulli's decision: log-odds between the two classes it weighs most."""
    md_names = d.md_names
    # which part moves the decision: log-odds between the two classes the Bernoulli run weighs most
    lj = np.log(np.asarray(runs["bernoulli"].current.alpha, dtype=float)) + parts["bernoulli"]["words present"] \
        + parts["bernoulli"]["words absent"]
    a, b = (int(i) for i in np.argsort(-lj)[:2])
    pres = parts["bernoulli"]["words present"][a] - parts["bernoulli"]["words present"][b]
    absn = parts["bernoulli"]["words absent"][a] - parts["bernoulli"]["words absent"][b]
    st.caption(f"Bernoulli, **{md_names[a]}** against **{md_names[b]}**: the words present give "
               f"{pres:+.1f} nats, the words absent {absn:+.1f}. When the absent words outweigh the present ones, "
               "what a document *lacks* decides its class: with few labels and λ = 1 the small class's β is "
               "pulled up for every word, so each of the thousands of missing words costs it a little more.")


main()
