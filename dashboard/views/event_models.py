"""Event models side by side: Bernoulli and multinomial EM on the same text, the same hidden
labels and the same start, stepped together (McCallum & Nigam 1998; Nigam et al. 2000).

Both runs read the same vocabulary: the data set's words counted (multinomial) and the same
counts turned into presence (Bernoulli), so the only difference is the event model."""
from __future__ import annotations

import warnings

import numpy as np
import streamlit as st

import nbcore
from nbcore.models.bernoulli import binarize
from dashboard.charts import event_models as event_models_charts
from dashboard.charts import theme
from dashboard import pages
from dashboard.ui import controls, derive, figures, page_kit, state
from nblab import numbers
from nblab.lesson_run import status_line
from dashboard.ui import urlguard

PAGE = page_kit.page_setup(pages.EVENT_MODELS,
                         "Same words, same hidden labels, same start: Bernoulli EM (presence and absence of every "
                         "word) next to multinomial EM (word counts).")
FS = PAGE.fs  # chart font size (larger in classroom mode)
MODELS = event_models_charts.MODELS
VOCAB_SIZES = [100, 300, 1_000, 3_000, 10_000, 20_000]
ALL = "all"


sb = st.sidebar
options = page_kit.text_dataset_options()
if not options:
    st.warning("This page needs a text data set (e.g. sms_spam, or a CSV with a text column).")
    st.stop()
dataset = page_kit.dataset_picker("evm_dataset", "sms_spam", container=sb, label="Data set (text)", options=options,
                                  help="Text data sets only: both models need the words of each document.")
hidden = urlguard.slider(sb, "Labels hidden", 0, 100, 95, step=1, format="%d%%", key="evm_hidden",
                         help="The same labels are hidden from both runs; accuracy is measured on them.")
smoothing = page_kit.lam_picker("evm_lam", 1.0, label="Smoothing λ (both runs)")
uw = float(urlguard.slider(sb, "Unlabelled weight (both runs)", 0.0, 1.0, 1.0, step=0.05, key="evm_uw",
                           help="How much an unlabelled document counts in the M-step (Nigam's EM-λ)."))
seed = int(urlguard.number_input(sb, "Seed (which labels are hidden)", 0, 9999, 0, key="evm_seed"))
vocab = urlguard.select_slider(sb, "Vocabulary (most frequent words)", VOCAB_SIZES + [ALL], value=ALL,
                               format_func=lambda v: "all" if v == ALL else f"{v:,}", key="evm_vocab",
                               help="Keep only the V most frequent words (by total count) for both models. "
                                    "The **Vocabulary curve** page draws accuracy against V.")


ds = page_kit.text_counts_dataset(dataset)
Xc = ds.X
if vocab != ALL:
    Xc = Xc[:, event_models_charts.vocabulary_columns(Xc, int(vocab))]
    feature_names = [ds.feature_names[j] for j in event_models_charts.vocabulary_columns(ds.X, int(vocab))]
else:
    feature_names = list(ds.feature_names)
V = Xc.shape[1]
X_by_model = {"bernoulli": binarize(Xc), "multinomial": Xc}
y = np.asarray(ds.y)
y_obs, _ = nbcore.hide_labels(y, fraction=int(hidden) / 100.0, random_state=seed)  # as the lesson view hides them
y_obs = np.asarray(y_obs)
y_eval = np.asarray(ds.y_true) if getattr(ds, "y_true", None) is not None else y
score_mask = (y_obs < 0) & (y_eval >= 0)
K = ds.n_classes
class_names = [str(c) for c in ds.class_names]
md_names = [derive.md_escape(c, 40) for c in class_names]
sb.caption(f"V = {V:,} words · {len(y):,} documents · {int((y_obs >= 0).sum()):,} labelled for EM")

missing = [md_names[k] for k in range(K) if not (y_obs == k).any()]
if missing:
    st.warning("Both runs start from the labelled documents, and no labelled document has class "
               + ", ".join(f"**{m}**" for m in missing) + ". Lower “Labels hidden” or pick another seed.")
    st.stop()


def hidden_accuracy(pred) -> float:
    acc = nbcore.hidden_accuracy(pred, y_eval, y_obs < 0)
    return float("nan") if acc is None else acc


# supervised-only baselines: Naive Bayes on the visible labels alone, each model on its own input
base = {}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for m in MODELS:
        alpha_s, params_s = nbcore.supervised_fit(m, X_by_model[m], y_obs, K, smoothing)
        base[m] = hidden_accuracy(nbcore.predict_proba(m, alpha_s, params_s, X_by_model[m]).argmax(axis=1))

key = (dataset, state.get(state.UPLOAD_SERIAL) if dataset in controls.USER_DATA else 0, int(hidden), seed,
       float(smoothing), uw, str(vocab))
if st.session_state.get("evm_key") != key or st.session_state.get("evm_runs") is None:
    runs = {}
    for m in MODELS:
        em = nbcore.EM(model=m, n_classes=K, smoothing=smoothing, init="labeled", unlabeled_weight=uw,
                       max_iter=200, random_state=seed)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runs[m] = em.start(X_by_model[m], y_obs)
        except ValueError as e:
            st.error(f"{event_models_charts.MODEL_TITLES[m]}: {e}")
            st.stop()
    st.session_state["evm_runs"] = runs
    st.session_state["evm_key"] = key
    st.session_state["evm_acc"] = {m: [] for m in MODELS}


def _step(n: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n):
            for r in st.session_state["evm_runs"].values():
                if not r.done:
                    r.step()


def _reset() -> None:
    st.session_state["evm_runs"] = None


runs = st.session_state["evm_runs"]
both_done = all(r.done for r in runs.values())
b1, b2, b3, b4 = st.columns(4) if FS <= 15 else (st.columns(2) + st.columns(2))
b1.button("Step", icon=":material/skip_next:", key="evm_step", on_click=_step, args=(1,), disabled=both_done,
          width="stretch", help="One E-step and one M-step for each run.")
b2.button("10 steps", icon=":material/fast_forward:", key="evm_step10", on_click=_step, args=(10,),
          disabled=both_done, width="stretch")
b3.button("Run to convergence", icon=":material/double_arrow:", key="evm_conv", on_click=_step, args=(200,),
          disabled=both_done, width="stretch")
b4.button("Reset", icon=":material/replay:", key="evm_reset", on_click=_reset, width="stretch")

acc = st.session_state["evm_acc"]
for m, run in runs.items():
    for t in range(len(acc[m]), len(run.history)):
        acc[m].append(hidden_accuracy(np.asarray(run.predict_proba(t=t)).argmax(axis=1)))

cols = st.columns(2)
for m, col in zip(MODELS, cols):
    run = runs[m]
    with col:
        st.markdown(f"### {event_models_charts.MODEL_TITLES[m].capitalize()} EM")
        m1, m2, m3 = st.columns([1, 2, 2])  # the accuracy's delta ("±0.0 pts vs supervised") needs the room
        m1.metric("Iteration", run.iteration)
        a_now, b = acc[m][-1], base[m]
        has_delta = bool(np.isfinite(a_now) and np.isfinite(b))
        m2.metric("Accuracy (hidden)", theme.pct(a_now),
                  delta=numbers.delta_text(a_now, b) if has_delta else None,
                  delta_color=numbers.delta_color(a_now, b) if has_delta else "normal",
                  delta_arrow="off" if has_delta and numbers.delta_color(a_now, b) == "off" else "auto")
        m3.metric("Supervised only", theme.pct(b),
                  help="Naive Bayes with the same event model, trained on the visible labels alone.")
        kind, text = status_line(run)
        st.caption(text.replace("Press Step or Play.", "Press Step (or 10 steps)."))

if score_mask.any():
    figures.show_chart(
        st, event_models_charts.accuracy_runs_figure(acc, base, FS, width=theme.chart_width(FS),
                                                     n_hidden=int(score_mask.sum())),
        key="evm_acc_fig", name="Line chart: accuracy on the hidden labels over the iterations, Bernoulli and multinomial EM",
        summary="; ".join(f"{event_models_charts.MODEL_TITLES[m]} EM: {theme.pct(acc[m][0])} at t = 0, "
                          f"{theme.pct(acc[m][-1])} at t = {len(acc[m]) - 1} (supervised only {theme.pct(base[m])})"
                          for m in MODELS if m in acc) + ".",
        config={"displayModeBar": False})
else:
    st.info("No hidden labels: raise “Labels hidden” to compare accuracy.")

# ---- the words each model puts first -------------------------------------------------------
st.markdown("#### The words that set each class apart, now")
n_top = 8 if PAGE.classroom else 10
word_cols = st.columns(2) if FS <= 15 else (st.container(), st.container())
for m, col in zip(MODELS, word_cols):
    beta = np.asarray(runs[m].current.params["beta"], dtype=float)
    table = event_models_charts.top_words(beta, feature_names, class_names, n=n_top)
    with col:
        st.markdown(f"**{event_models_charts.MODEL_TITLES[m].capitalize()}** (t = {runs[m].iteration})")
        st.dataframe(table, width="stretch",
                     column_config={c: st.column_config.NumberColumn(c, format="%.4f")
                                    for c in table.columns if c.startswith("β(")})
st.caption("Ranked by β_jk · log(β_jk / β̄_j), β̄_j the mean over the other classes: frequent in the class and "
           "much rarer elsewhere. Bernoulli's β is p(word present | class); the multinomial's is the word's share "
           "of the class's tokens.")

# ---- why: one hidden document's log-likelihood, part by part ------------------------------
st.markdown("#### Why they differ: one hidden document")
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
doc = int(urlguard.number_input(d1, "Document (row)", 0, len(y) - 1, default_doc, step=1, key="evm_doc",
                                help="Any row; a hidden one is what EM labels. The default is the first hidden "
                                     "document of the smallest class."))
d2.button(f"Next hidden document the two runs label differently ({n_differ:,} now)", key="evm_differ",
          icon=":material/compare_arrows:", on_click=_next_disagreement, disabled=n_differ == 0)

x_counts = np.asarray(Xc[doc].toarray() if hasattr(Xc, "toarray") else Xc[doc], dtype=float).ravel()
beta_b = np.asarray(runs["bernoulli"].current.params["beta"], dtype=float)
beta_m = np.asarray(runs["multinomial"].current.params["beta"], dtype=float)
with np.errstate(divide="ignore"):
    parts = event_models_charts.likelihood_parts(x_counts, np.log(beta_b), np.log1p(-beta_b), np.log(beta_m))
texts = getattr(ds, "texts", None)
raw = str(texts[doc]) if texts is not None else ""
status = "hidden from EM" if y_obs[doc] < 0 else "labelled (EM sees its label)"
true = class_names[y_eval[doc]] if y_eval[doc] >= 0 else "?"
n_present = int((x_counts > 0).sum())
st.markdown(f"**Document {doc}** ({status}; true class **{derive.md_escape(true, 40)}**): "
            f"“{derive.md_escape(raw, 300)}”")
post = {m: np.asarray(runs[m].predict_proba(X_by_model[m][doc]))[0] for m in MODELS}
st.caption(f"{n_present:,} of the V = {V:,} words occur in it, so Bernoulli adds {V - n_present:,} absent-word "
           "terms log(1 − β) per class; the multinomial adds a term x_j log β only for the words that occur. "
           + " · ".join(f"{event_models_charts.MODEL_TITLES[m]} says **{md_names[int(post[m].argmax())]}** "
                        f"({post[m].max():.1%})" for m in MODELS))
table = event_models_charts.parts_table(parts, class_names)
figures.show_chart(
    st, event_models_charts.parts_figure(parts, class_names, FS, width=theme.chart_width(FS)), key="evm_parts_fig",
    name=f"Bar chart: the parts of log p(x | class) of document {doc} under each event model",
    summary=" ".join(f"{row['class']}: Bernoulli {row['Bernoulli: total']:.1f} ({row['absent share']:.0%} from the "
                     f"words absent), multinomial {row['multinomial: total']:.1f}." for _, row in table.iterrows()),
    config={"displayModeBar": False})
st.dataframe(table, hide_index=True, width="stretch",
             column_config={c: (st.column_config.ProgressColumn(c, min_value=0.0, max_value=1.0, format="percent")
                                if c.endswith("share") else st.column_config.NumberColumn(c, format="%.1f"))
                            for c in table.columns if c != "class"})
if K >= 2:
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
