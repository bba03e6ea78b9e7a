"""Posterior inspector: p(y | x) for one message and the per-word log-odds behind it."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import inspector as inspector_charts
from dashboard.charts import theme
from dashboard.data import datasets
from dashboard.lesson import session
from dashboard.pagekit import figures, inspector_categorical, page_kit
from dashboard.ui import derive, page_state, urlguard

SUBTITLE = "Type or pick a message: which class does Naive Bayes choose, and which words decided it?"
MODEL_CHOICES = ("bernoulli", "multinomial")


@dataclass(frozen=True)
class Data:
    """The data set inspected: its rows X for the event model, every row's known label (-1 for none), and
    the names: of the classes (and as Markdown), of the terms (and as shown, spaces marked)."""
    ds: object
    X: object
    y_known: np.ndarray
    names: list
    md_names: list
    feats: list
    shown_feats: list

    @property
    def K(self) -> int:
        return self.ds.n_classes


@dataclass(frozen=True)
class LogOdds:
    """The message's log-odds of class a against class b: per term, the prior's part, the terms present's
    and absent's, and the total."""
    a: int
    b: int
    lo: np.ndarray
    present: np.ndarray
    prior_term: float
    present_sum: float
    absent_sum: float
    total: float


def main() -> None:
    page = page_kit.page_setup(pages.INSPECTOR, SUBTITLE)
    dataset, model, smoothing, source = sidebar()
    d = inspected_data(dataset, model)
    event_model = nbcore.get_model(model)
    alpha, params = parameters(d, dataset, model, smoothing, source)
    if event_model.input_kind == "categories":  # PlayTennis: classify a new day, every θ shown
        inspector_categorical.new_day(d.ds, d.X, d.y_known, alpha, params, d.ds.class_names, smoothing, page.fs,
                                      counted=source != "run")
        return
    x = the_message(d, event_model)
    ex = nbcore.explain(model, alpha, params, x)
    show_posterior(d, np.asarray(ex.posterior), page.fs)
    a, b = classes_to_compare(d, dataset, model, np.asarray(ex.posterior), x)
    if a == b:
        st.info("Pick two different classes to compare.")
        st.stop()
    odds = log_odds(ex, a, b)
    left, right = st.columns([3, 2])
    with left:
        log_odds_chart(d, odds, page.fs)
    with right:
        log_odds_parts(d, odds, ex, x, dataset, model, smoothing, source)
    every_term(d, odds, ex, x, params)


def sidebar():
    """The data set, event model, λ and where the parameters come from (the lesson's run when it is on
    the same data and model)."""
    sb = st.sidebar
    dataset = page_kit.dataset_picker("insp_dataset", models=MODEL_CHOICES + ("categorical",))
    model = page_kit.model_picker("insp_model", dataset, allowed=MODEL_CHOICES + ("categorical",))
    smoothing = page_kit.lam_picker("insp_lam")
    source_opts = ["labelled", "run"]
    source = "labelled" if not has_run(dataset, model) else sb.radio(
        "Parameters from", source_opts, key="insp_source",
        format_func=lambda s: {"labelled": "Naive Bayes on the labelled documents",
                               "run": "the lesson view's current EM run"}[s],
        help="“Labelled documents”: supervised NB (eq. 12–14) on every row whose label is known. "
             "“Current EM run”: the α and β the lesson view has reached so far (λ from that run).")
    return dataset, model, smoothing, source


def has_run(dataset: str, model: str) -> bool:
    """Whether the lesson view has a run on this data set and event model."""
    lr = session.lesson()
    return lr.run is not None and lr.cfg is not None and lr.cfg.dataset == dataset and lr.cfg.model == model


def inspected_data(dataset: str, model: str) -> Data:
    """The data set's rows for the event model, its known labels and its names."""
    ds, X = page_kit.dataset_for_model(dataset, model)
    names = [str(c) for c in ds.class_names]
    feats = [str(f) for f in ds.feature_names]
    return Data(ds=ds, X=X, y_known=np.asarray(ds.y_true if ds.y_true is not None else ds.y), names=names,
                md_names=[derive.md_escape(n, 40) for n in names], feats=feats,
                shown_feats=[term_label(f) for f in feats])  # in labels, captions and the table: shown literally


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


@st.cache_data(show_spinner=False, max_entries=32)
def fit_shipped(name: str, model: str, smoothing: float):
    d = datasets.load_shipped(name)
    y = np.asarray(d.y_true if d.y_true is not None else d.y)
    return nbcore.supervised_fit(model, d.for_model(model), y, d.n_classes, smoothing)


def parameters(d: Data, dataset: str, model: str, smoothing: float, source: str):
    """(α, the event model's parameters): the lesson run's now, or supervised NB on every labelled row."""
    if source == "run" and has_run(dataset, model):
        snap = session.lesson().run.current
        alpha, params = np.asarray(snap.alpha), dict(snap.params)
        st.caption(f"Using the lesson view's run at iteration {snap.iteration} (λ = {snap.smoothing:g}).")
        return alpha, params
    if not (d.y_known >= 0).any():
        st.warning("This data set has no labels at all, so there is nothing to count. Pick "
                   "“the lesson view's current EM run” (run EM there first) or another data set.")
        st.stop()
    if page_kit.is_shared(dataset):
        return fit_shipped(dataset, model, smoothing)
    return nbcore.supervised_fit(model, d.X, d.y_known, d.K, smoothing)


def the_message(d: Data, event_model) -> np.ndarray:
    """The message scored, x (V,): the typed text's terms, or the words ticked (loaded from a document)."""
    X, feats = d.X, d.feats
    ds = d.ds
    st.subheader("The message")
    if getattr(ds, "vectorizer", None) is not None:
        text = st.text_area("Type a message", value="", key="insp_text",
                            placeholder="e.g. win a free cruise now",
                            help="Words outside the data set's vocabulary are ignored.")
        row_x = np.asarray(ds.transform(text).toarray()).ravel() if text.strip() else None
    else:
        row_x = None
    c1, c2 = st.columns([1, 2])
    pick, pick_ok = document_picker(c1, X, feats)
    if row_x is None:
        x = ticked_words(c2, X, feats, event_model, pick, pick_ok)
    else:
        x = typed_words(c2, row_x, feats)
    if any(term_label(f) != f for f in feats):
        st.caption(f"{SPACE} marks a space at the edge of a term: “{SPACE}en” starts a word, “en{SPACE}” ends one.")
    return x


def document_picker(c1, X, feats: list[str]) -> tuple[int, bool]:
    """The document number and "Load this document", which puts its words in the words box.
    Returns (the number, whether that document exists)."""
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
    c1.button("Load this document", key="insp_load", on_click=_load_clicked, args=(X, feats), disabled=not pick_ok)
    return pick, pick_ok


def _load_row(X, feats: list[str]) -> None:
    """Tick the words of the document the number names (when it exists)."""
    if not 0 <= int(st.session_state.get("insp_row", 0)) < X.shape[0]:
        return
    r = X[int(st.session_state["insp_row"])]
    r = np.asarray(r.toarray() if hasattr(r, "toarray") else r).ravel()
    st.session_state["insp_words"] = [feats[j] for j in np.flatnonzero(r > 0)]


def _load_clicked(X, feats: list[str]) -> None:
    _load_row(X, feats)
    if "insp_text" in st.session_state:
        st.session_state["insp_text"] = ""  # the loaded document is what gets scored, not the typed text


def ticked_words(c2, X, feats: list[str], event_model, pick: int, pick_ok: bool) -> np.ndarray:
    """The words box (bound to the URL): x is 1 for every ticked word, or the picked document's count."""
    if "insp_words" not in st.session_state and st.query_params.get("insp_words") is None:
        _load_row(X, feats)
    words = urlguard.multiselect(c2, "Words present in the message (tick / untick)", options=feats, key="insp_words",
                                 format_func=term_label, help="Bernoulli NB only asks *whether* each word occurs.")
    x = np.zeros(len(feats))
    idx = [feats.index(w) for w in words]
    x[idx] = 1.0
    if event_model.input_kind == "counts" and words and pick_ok:
        r = X[pick]
        r = np.asarray(r.toarray() if hasattr(r, "toarray") else r).ravel()
        # keep the picked document's counts for the ticked words it contains
        x[idx] = np.where(r[idx] > 0, r[idx], 1.0)
    return x


def typed_words(c2, x: np.ndarray, feats: list[str]) -> np.ndarray:
    """The typed text's terms, shown read-only in a words box, and how they are scored."""
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
    return x


def show_posterior(d: Data, post: np.ndarray, FS: int) -> None:
    """p(class | x) of every class (and a chart of them for more than five classes)."""
    K, names, md_names = d.K, d.names, d.md_names
    st.subheader("Which class? p(y | x)")
    mcols = st.columns(min(K, 5))
    for k in range(K):
        mcols[k % len(mcols)].metric(f"p({md_names[k]} | x)", f"{post[k]:.4f}")
    if K > 5:
        top = int(np.argmax(post))
        figures.show_chart(st, figures.cached_figure(inspector_charts.posterior_figure, post, names, FS), key="insp_post",
                           name="Bar chart: the posterior p(class | x) of each class",
                           summary=f"The posterior puts {names[top]} first at {post[top]:.1%}; the {K - 1} other "
                                   f"classes share {1 - post[top]:.1%}.",
                           config={"displayModeBar": False})


def classes_to_compare(d: Data, dataset: str, model: str, post: np.ndarray, x: np.ndarray) -> tuple[int, int]:
    """The two classes whose log-odds are drawn: the message's two most probable, or the reader's pick
    for this same message (more than two classes); class 1 against class 0 for two."""
    K, names = d.K, d.names
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
        page = page_state.get("insp", page_state.Inspector)
        auto = page.ab_auto  # (message, a, b) as last set here
        picked = (auto is not None and auto[0] == message and "insp_a" in ss and "insp_b" in ss
                  and (ss["insp_a"], ss["insp_b"]) != auto[1:])
        if not picked:
            ss["insp_a"], ss["insp_b"] = a_default, b_default
            page.ab_auto = (message, a_default, b_default)
        d1, d2 = st.columns(2)
        a = d1.selectbox("Compare class", range(K), format_func=lambda k: names[k], key="insp_a")
        b = d2.selectbox("against class", range(K), format_func=lambda k: names[k], key="insp_b")
    else:
        a, b = 1, 0  # two classes: always "class 1 vs class 0" (spam vs ham), so the bars keep their side
    if a == b:
        st.info("Pick two different classes to compare.")
        st.stop()
    return a, b


def log_odds(ex, a: int, b: int) -> LogOdds:
    """The log-odds of a against b, and its parts."""
    lo = ex.log_odds(a, b)
    prior_term = float(ex.log_prior[a] - ex.log_prior[b])
    with np.errstate(invalid="ignore"):
        total = prior_term + float(np.sum(lo))
    present = np.asarray(ex.present)
    absent_sum = float(np.sum(np.where(present, 0.0, lo)))
    present_sum = float(np.sum(np.where(present, lo, 0.0)))
    return LogOdds(a, b, lo, present, prior_term, present_sum, absent_sum, total)


def log_odds_chart(d: Data, o: LogOdds, FS: int) -> None:
    """The terms' log-odds as bars (the strongest 20), beside the prior's."""
    names, shown_feats = d.names, d.shown_feats
    a, b, lo, present, prior_term = o.a, o.b, o.lo, o.present, o.prior_term
    total, present_sum, absent_sum = o.total, o.present_sum, o.absent_sum
    with np.errstate(invalid="ignore"):
        strongest = int(np.nanargmax(np.where(np.isnan(lo), -np.inf, np.abs(lo)))) if len(lo) else None
    figures.show_chart(
        st, figures.cached_figure(inspector_charts.log_odds_figure, shown_feats, lo, present, prior_term, names[a], names[b],
                                             theme.class_color(a), theme.class_color(b), FS, top_n=20),
        key="insp_logodds", name=f"Bar chart: each feature's log-odds for {names[a]} against {names[b]}",
        summary=(f"The log-odds {names[a]} : {names[b]} add up to {total:+.3f} (prior {prior_term:+.3f}, "
                 f"features present {present_sum:+.3f}, absent {absent_sum:+.3f})"
                 + ("" if strongest is None else
                    f"; the strongest feature is “{shown_feats[strongest]}” ({lo[strongest]:+.3f})") + "."),
        config={"displayModeBar": False})


def log_odds_parts(d: Data, o: LogOdds, ex, x: np.ndarray, dataset: str, model: str, smoothing: float,
                   source: str) -> None:
    """The log-odds in parts, what the event model does with absent words, the same message under the
    other event model, and a word on impossible terms."""
    md_names, shown_feats, ds, y_known, K = d.md_names, d.shown_feats, d.ds, d.y_known, d.K
    a, b, lo, prior_term, total, present_sum, absent_sum = o.a, o.b, o.lo, o.prior_term, o.total, o.present_sum, o.absent_sum
    event_model = nbcore.get_model(model)
    post = np.asarray(ex.posterior)
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


def every_term(d: Data, o: LogOdds, ex, x: np.ndarray, params: dict) -> None:
    """Every term of eq. 11 for the two classes, as a table."""
    names, shown_feats, md_names, K, a, b, lo = d.names, d.shown_feats, d.md_names, d.K, o.a, o.b, o.lo
    with figures.lazy_expander(st, "Every term (eq. 11) as a table", key="insp_terms_table") as opened:
        if not opened:
            return
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


main()
