"""The text pipeline on screen: how a text data set's documents become features.

`text_controls()` draws the settings of a `nbcore.text.TextPipeline` (tokens,
n-gram range, presence vs counts, vocabulary size, minimum document frequency,
stop words, lower-casing) and returns the pipeline. Every widget is bound to the
URL (its key is the query-parameter name); the defaults are the data set's own
(`nbcore.data.DEFAULT_PIPELINES`), and switching data set puts them back.

The event model follows the counting choice: presence → Bernoulli, counts →
multinomial (the callback sets the model widget before the rerun); picking the
other model is allowed and `model_note()` says what it means.
"""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

import nbcore
from dashboard.ui import urlguard
from dashboard.ui.controls import _
from nbcore.text import TextPipeline

QP = "query-params"
K_TOKENS, K_NGRAM, K_COUNTS, K_VOCAB = "tokens", "ngram", "counts", "vocab"
K_MIN_DF, K_STOP, K_LOWER = "min_df", "stop", "lower"
KEYS = (K_TOKENS, K_NGRAM, K_COUNTS, K_VOCAB, K_MIN_DF, K_STOP, K_LOWER)
_OWNER = "_text_controls_dataset"  # which data set the widgets' values belong to

# Bound widgets write the option as shown into the URL, so the options are plain words
# (no format_func): ?tokens=chars&ngram=3&ngram=3&counts=counts&vocab=2000&min_df=2. The options
# and ranges are the rows of these keys in url_table; the defaults are the data set's own settings.
TOKENS = {"words": "word", "chars": "char"}


def _defaults(p: TextPipeline) -> dict:
    return {K_TOKENS: "words" if p.tokens == "word" else "chars", K_NGRAM: tuple(p.ngram_range),
            K_COUNTS: "presence" if p.binary else "counts",
            K_VOCAB: "all" if not p.max_features else str(p.max_features),
            K_MIN_DF: int(p.min_df), K_STOP: bool(p.stop_words), K_LOWER: bool(p.lowercase)}


def _follow_counts(model_key: str) -> None:
    """Presence → Bernoulli, counts → multinomial (runs before the rerun)."""
    counts = st.session_state.get(K_COUNTS) == "counts"
    st.session_state[model_key] = "multinomial" if counts else "bernoulli"


def text_controls(dataset: str, default: TextPipeline, model_key: str = "model",
                  container=None, expanded: bool = True) -> TextPipeline:
    """Draw the pipeline settings for ``dataset`` (whose own settings are ``default``)."""
    ss = st.session_state
    d = _defaults(default)
    if ss.get(_OWNER) not in (None, dataset):
        # Another data set: its own settings come back. They are written into the widgets'
        # state, not dropped from it: these widgets are identified by their key alone, so the
        # browser would keep showing (and send back on the next rerun) the old data set's value
        # while the run used the new default.
        for k in KEYS:
            ss[k] = d[k]
    ss[_OWNER] = dataset
    where = container if container is not None else st.sidebar
    with where.expander("Text → features", expanded=expanded, icon=":material/text_fields:"):
        tokens = urlguard.segmented_control(st, "Tokens", default=d[K_TOKENS], key=K_TOKENS,
            help="Words (runs of letters and digits), or character n-grams inside words "
                 "(“the” → “ th”, “the”, “he ”): better for short texts and language identification.")
        tokens = TOKENS[tokens or d[K_TOKENS]]
        lo, hi = urlguard.slider(st, "n-gram range (n)", default=d[K_NGRAM], key=K_NGRAM,
                           help="1–1: single tokens; 1–2 adds pairs of words (or characters); "
                                "3–3: only 3-grams.")
        counts = urlguard.radio(st, "x_j is the term's", default=d[K_COUNTS],
                          key=K_COUNTS, horizontal=True,
                          on_change=_follow_counts, args=(model_key,),
                          help="Presence: whether term j occurs (Bernoulli NB). Counts: how often "
                               "(multinomial NB). The event model follows.")
        c1, c2 = st.columns(2)
        vocab = urlguard.selectbox(c1, "Vocabulary", default=d[K_VOCAB],
                             key=K_VOCAB, help="Keep only this many of the most frequent terms (all = every term).")
        min_df = urlguard.number_input(c2, "min df", default=d[K_MIN_DF], step=1, key=K_MIN_DF,
                                 help="Drop terms found in fewer documents than this.")
        stop = urlguard.checkbox(st, "drop English stop words", default=d[K_STOP], key=K_STOP,
                           disabled=tokens != "word",
                           help="Drop “the”, “and”, “to”… (words only).")
        lower = urlguard.checkbox(st, "lower-case", default=d[K_LOWER], key=K_LOWER,
                            help="“FREE” and “free” become one term.")
    try:
        return TextPipeline(tokens=tokens, ngram_range=(int(lo), int(hi)), binary=(counts != "counts"),
                            max_features=None if vocab == "all" else int(vocab), min_df=int(min_df),
                            stop_words=bool(stop) and tokens == "word", lowercase=bool(lower))
    except ValueError:  # cannot happen from these widgets; keep the data set's own settings
        return default


def model_note(pipeline: TextPipeline | None, model: str) -> str | None:
    """Say what happens when the event model does not match the counting choice."""
    if pipeline is None:
        return None
    return nbcore.get_model(model).input_note("binary" if pipeline.binary else "counts")


def summary(pipeline: TextPipeline, n_features: int) -> str:
    """One line for the page: what the features are and how many."""
    return f"Features: {pipeline.describe()} → V = {n_features:,}."


def apply(settings, default: TextPipeline | None, upload_serial: int = 0, expanded: bool = True):
    """The lesson view's hook: draw the text settings for a text data set and put them in
    the run's DataConfig (a change rebuilds the run with the usual notice)."""
    data = settings.data
    # the session's own file (an upload, or the shared copy it became): its serial says when
    # the file or its columns changed (sharing keeps the serial, so the run carries on)
    upload_id = int(upload_serial) if data.dataset in ("upload", "shared") else 0
    if default is None:
        return replace(settings, data=replace(data, text=None, upload_id=upload_id))
    pipeline = text_controls(data.dataset, default, expanded=expanded)
    note = model_note(pipeline, data.model)
    if note:
        st.sidebar.caption(note)
    return replace(settings, data=replace(data, text=pipeline, upload_id=upload_id))


def known_truth_button(dataset: str) -> None:
    """One click from real text to the synthetic set whose true α and β are known."""
    if dataset == "synthetic_spam":
        return

    def go():
        st.session_state["dataset"] = "synthetic_spam"

    st.sidebar.button(_("Synthetic spam: known true α, β"), key="to_synthetic", on_click=go,
                      icon=":material/science:", width="stretch",
                      help=_("600 e-mails drawn from a known Bernoulli NB: compare EM's estimates with the truth."))
