"""Posterior inspector: p(y | x) for one message and the per-word log-odds behind it."""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard.data import datasets
from dashboard.charts import inspector as inspector_charts
from dashboard.charts import theme
from dashboard import pages
from dashboard.lesson import session
from dashboard.ui import derive, figures, inspector_categorical, page_kit, urlguard

PAGE = page_kit.page_setup(pages.INSPECTOR,
                         "Type or pick a message: which class does Naive Bayes choose, and which words decided it?")
FS = PAGE.fs  # chart font size (larger in classroom mode)

# ---- controls -----------------------------------------------------------------------------
sb = st.sidebar
MODEL_CHOICES = ("bernoulli", "multinomial")
dataset = page_kit.dataset_picker("insp_dataset", "toy_spam", models=MODEL_CHOICES + ("categorical",))
model = page_kit.model_picker("insp_model", dataset, allowed=MODEL_CHOICES + ("categorical",))
event_model = nbcore.get_model(model)
smoothing = page_kit.lam_picker("insp_lam", 1.0)
source_opts = ["labelled", "run"]
run = session.lesson().run
run_cfg = session.lesson().cfg
has_run = run is not None and run_cfg is not None and run_cfg.dataset == dataset and run_cfg.model == model
source = "labelled" if not has_run else sb.radio(
    "Parameters from", source_opts, key="insp_source",
    format_func=lambda s: {"labelled": "Naive Bayes on the labelled documents",
                           "run": "the lesson view's current EM run"}[s],
    help="“Labelled documents”: supervised NB (eq. 12–14) on every row whose label is known. "
         "“Current EM run”: the α and β the lesson view has reached so far (λ from that run).")

ds, X = page_kit.dataset_for_model(dataset, model)
K = ds.n_classes
names = [str(c) for c in ds.class_names]
feats = [str(f) for f in ds.feature_names]
md_names = [derive.md_escape(n, 40) for n in names]

#: Shown in place of a space at the start or end of a term: character n-grams such as " en" (a word
#: starting "en") and "en " (a word ending "en") would otherwise look the same on screen.
SPACE = "␣"


def term_label(term: str) -> str:
    """A term as the inspector shows it (chart ticks, tables, captions, the words box): leading and
    trailing spaces become ␣, so every n-gram boundary is visible; the term itself is unchanged."""
    core = term.strip(" ")
    if not core:
        return SPACE * len(term)
    lead, trail = len(term) - len(term.lstrip(" ")), len(term) - len(term.rstrip(" "))
    return SPACE * lead + core + SPACE * trail


shown_feats = [term_label(f) for f in feats]
  # in labels, captions and the table: shown literally
y_known = np.asarray(ds.y_true if ds.y_true is not None else ds.y)


@st.cache_data(show_spinner=False, max_entries=32)
def fit_shipped(name: str, model: str, smoothing: float):
    d = datasets.load_shipped(name)
    y = np.asarray(d.y_true if d.y_true is not None else d.y)
    return nbcore.supervised_fit(model, d.for_model(model), y, d.n_classes, smoothing)


if source == "run" and has_run:
    snap = run.current
    alpha, params = np.asarray(snap.alpha), dict(snap.params)
    st.caption(f"Using the lesson view's run at iteration {snap.iteration} (λ = {snap.smoothing:g}).")
else:
    if not (y_known >= 0).any():
        st.warning("This data set has no labels at all, so there is nothing to count. Pick "
                   "“the lesson view's current EM run” (run EM there first) or another data set.")
        st.stop()
    if page_kit.is_shared(dataset):
        alpha, params = fit_shipped(dataset, model, smoothing)
    else:
        alpha, params = nbcore.supervised_fit(model, X, y_known, K, smoothing)

if event_model.input_kind == "categories":  # PlayTennis: classify a new day, every θ shown
    inspector_categorical.new_day(ds, X, y_known, alpha, params, ds.class_names, smoothing, FS, counted=source != "run")
    st.stop()

# ---- the message --------------------------------------------------------------------------
st.subheader("The message")
if getattr(ds, "vectorizer", None) is not None:
    text = st.text_area("Type a message", value="", key="insp_text",
                        placeholder="e.g. win a free cruise now",
                        help="Words outside the data set's vocabulary are ignored.")
    row_x = np.asarray(ds.transform(text).toarray()).ravel() if text.strip() else None
else:
    row_x = None

c1, c2 = st.columns([1, 2])
n_rows = X.shape[0]
# No max_value: a number beyond the data would only turn the field red, with no word of why. It is
# accepted and answered with a message instead (and nothing is loaded from it).
pick = int(c1.number_input("…or start from document #", min_value=0, value=0, step=1, key="insp_row",
                           help=f"Documents are numbered 0 to {n_rows - 1:,}. Loads that document's words "
                                "into the box on the right."))
pick_ok = pick < n_rows
if not pick_ok:
    c1.error(f"Document {pick:,} does not exist: this data set has {n_rows:,} "
             f"document{'s' if n_rows != 1 else ''} (numbered 0–{n_rows - 1:,}).", icon=":material/error:")


def _load_row():
    if not 0 <= int(st.session_state.get("insp_row", 0)) < n_rows:
        return
    r = X[int(st.session_state["insp_row"])]
    r = np.asarray(r.toarray() if hasattr(r, "toarray") else r).ravel()
    st.session_state["insp_words"] = [feats[j] for j in np.flatnonzero(r > 0)]


def _load_clicked():
    _load_row()
    if "insp_text" in st.session_state:
        st.session_state["insp_text"] = ""  # the loaded document is what gets scored, not the typed text


c1.button("Load this document", key="insp_load", on_click=_load_clicked, disabled=not pick_ok)
if row_x is None:
    if "insp_words" not in st.session_state and st.query_params.get("insp_words") is None:
        _load_row()
    words = urlguard.multiselect(c2, "Words present in the message (tick / untick)", feats, key="insp_words",
                                 format_func=term_label, help="Bernoulli NB only asks *whether* each word occurs.")
    x = np.zeros(len(feats))
    idx = [feats.index(w) for w in words]
    x[idx] = 1.0
    if event_model.input_kind == "counts" and words and pick_ok:
        r = X[pick]
        r = np.asarray(r.toarray() if hasattr(r, "toarray") else r).ravel()
        # keep the picked document's counts for the ticked words it contains
        x[idx] = np.where(r[idx] > 0, r[idx], 1.0)
else:
    x = row_x
    typed_terms = [feats[j] for j in np.flatnonzero(x)]
    # The typed text decides what is scored, so the box shows its terms (read-only, not in the URL: the
    # ticked words of the last document stay there for when the text box is cleared).
    st.session_state["insp_typed_words"] = typed_terms
    c2.multiselect("Words present in the typed message", typed_terms, key="insp_typed_words",
                   format_func=term_label, disabled=True,
                   help="The terms of the typed text that are in the vocabulary. Clear the text box (or load a "
                        "document) to tick words yourself.")
    st.caption("Scoring the typed text: " + (", ".join(f"{derive.md_escape(term_label(feats[j]), 40)}×{x[j]:g}"
                                                       for j in np.flatnonzero(x))
                                             or "no known word"))
if any(term_label(f) != f for f in feats):
    st.caption(f"{SPACE} marks a space at the edge of a term: “{SPACE}en” starts a word, “en{SPACE}” ends one.")

# ---- explanation --------------------------------------------------------------------------
ex = nbcore.explain(model, alpha, params, x)
post = np.asarray(ex.posterior)

st.subheader("Which class? p(y | x)")
mcols = st.columns(min(K, 5))
for k in range(K):
    mcols[k % len(mcols)].metric(f"p({md_names[k]} | x)", f"{post[k]:.4f}")
if K > 5:
    top = int(np.argmax(post))
    figures.show_chart(st, inspector_charts.posterior_figure(post, names, FS), key="insp_post",
                       name="Bar chart: the posterior p(class | x) of each class",
                       summary=f"The posterior puts {names[top]} first at {post[top]:.1%}; the {K - 1} other "
                               f"classes share {1 - post[top]:.1%}.",
                       config={"displayModeBar": False})

order = np.argsort(-post, kind="stable")
a_default, b_default = int(order[0]), int(order[1])
if K > 2:
    # The comparison follows the message: the two most probable classes for it, unless the reader picked
    # other classes for this same message. A new message (another document, ticked words or typed text)
    # brings the comparison back to its own top two; so do other parameters (λ, the source) while the
    # reader has not picked. The selectboxes are identified by their key alone, so their index argument
    # would only be a first-run default: the value is set through session state.
    ss = st.session_state
    message = (dataset, model, K, hashlib.sha1(np.ascontiguousarray(x, dtype=float).tobytes()).hexdigest())
    auto = ss.get("_insp_ab_auto")  # (message, a, b) as last set here
    picked = (auto is not None and auto[0] == message and "insp_a" in ss and "insp_b" in ss
              and (ss["insp_a"], ss["insp_b"]) != auto[1:])
    if not picked:
        ss["insp_a"], ss["insp_b"] = a_default, b_default
        ss["_insp_ab_auto"] = (message, a_default, b_default)
    d1, d2 = st.columns(2)
    a = d1.selectbox("Compare class", range(K), format_func=lambda k: names[k], key="insp_a")
    b = d2.selectbox("against class", range(K), format_func=lambda k: names[k], key="insp_b")
else:
    a, b = 1, 0  # two classes: always "class 1 vs class 0" (spam vs ham), so the bars keep their side
if a == b:
    st.info("Pick two different classes to compare.")
    st.stop()

lo = ex.log_odds(a, b)
prior_term = float(ex.log_prior[a] - ex.log_prior[b])
with np.errstate(invalid="ignore"):
    total = prior_term + float(np.sum(lo))
present = np.asarray(ex.present)
absent_sum = float(np.sum(np.where(present, 0.0, lo)))
present_sum = float(np.sum(np.where(present, lo, 0.0)))

left, right = st.columns([3, 2])
with left:
    with np.errstate(invalid="ignore"):
        strongest = int(np.nanargmax(np.where(np.isnan(lo), -np.inf, np.abs(lo)))) if len(lo) else None
    figures.show_chart(
        st, inspector_charts.log_odds_figure(shown_feats, lo, present, prior_term, names[a], names[b],
                                             theme.class_color(a), theme.class_color(b), FS, top_n=20),
        key="insp_logodds", name=f"Bar chart: each feature's log-odds for {names[a]} against {names[b]}",
        summary=(f"The log-odds {names[a]} : {names[b]} add up to {total:+.3f} (prior {prior_term:+.3f}, "
                 f"features present {present_sum:+.3f}, absent {absent_sum:+.3f})"
                 + ("" if strongest is None else
                    f"; the strongest feature is “{shown_feats[strongest]}” ({lo[strongest]:+.3f})") + "."),
        config={"displayModeBar": False})
with right:
    def _f(v):
        return "+∞" if v == np.inf else "−∞" if v == -np.inf else f"{v:+.3f}"

    st.markdown(
        f"**log p({md_names[a]} | x) − log p({md_names[b]} | x)**\n\n"
        f"| part | value |\n|---|---|\n"
        f"| prior log α | {_f(prior_term)} |\n"
        f"| words present | {_f(present_sum)} |\n"
        f"| words absent | {_f(absent_sum)} |\n"
        f"| **total** | **{_f(total)}** |")
    if event_model.scores_absent_features:
        st.info("**Bernoulli NB counts absent words too**: each word *not* in the message adds "
                "(1 − x) log(1 − β) (eq. 11, hatched bars). Here they add "
                f"**{_f(absent_sum)}** to the log-odds.")
    else:
        st.info("**Multinomial NB ignores absent words**: a word that does not occur contributes "
                "x log β = 0. Only the words present (times their counts) move the posterior.")
    other = next((m for m in MODEL_CHOICES if m != model), None)
    if other in ds.models and source != "run":
        try:
            x_other = nbcore.get_model(other).adapt(x[None, :], event_model.input_kind)[0]
            a2, p2 = (fit_shipped(dataset, other, smoothing) if page_kit.is_shared(dataset)
                      else nbcore.supervised_fit(other, ds.for_model(other), y_known, K, smoothing))
            ex2 = nbcore.explain(other, a2, p2, x_other)
            st.caption(f"Same message under **{other}** NB: p({md_names[a]} | x) = {ex2.posterior[a]:.4f} "
                       f"(vs {post[a]:.4f} here).")
        except ValueError:
            pass
    if not np.isfinite(lo).all():
        bad = [derive.md_escape(shown_feats[j], 40) for j in np.flatnonzero(~np.isfinite(lo))]
        st.warning(f"λ = 0 makes some words **impossible** for a class (β = 0 or 1): {', '.join(bad[:8])}. "
                   "One such word vetoes a class whatever the other words say (the notes §3.1).")

with st.expander("Every term (eq. 11) as a table"):
    rows = []
    beta = np.asarray(params["beta"])
    for j, f in enumerate(shown_feats):
        r = {"word": f, "x": x[j]}
        for k in (a, b):
            r[f"β({names[k]})"] = beta[j, k]
            r[f"term({names[k]})"] = ex.contributions[j, k]
        r[f"log-odds {names[a]}:{names[b]}"] = lo[j]
        rows.append(r)
    df = pd.DataFrame(rows)
    st.dataframe(df, hide_index=True, width="stretch")
    st.caption("Bernoulli term = x log β + (1 − x) log(1 − β); multinomial term = x log β. "
               "log α: " + ", ".join(f"{md_names[k]} {ex.log_prior[k]:.3f}" for k in range(K)))
