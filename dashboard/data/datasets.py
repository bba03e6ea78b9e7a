"""Data sets the dashboard offers: the shipped ones (cached across sessions) and the session's upload."""
from __future__ import annotations

import numpy as np
import streamlit as st

import nbcore
from dashboard.serve import heavy_work, offload
from dashboard.ui import controls, state
from nbcore.data import DEFAULT_PIPELINES
from nblab import limits


def dataset_names() -> tuple[list[str], dict[str, str]]:
    """Shipped data sets (in teaching order) and their one-line descriptions."""
    listed = nbcore.list_datasets()
    return list(listed), dict(listed)


def load_shipped(name: str, text=None):
    """Shipped data sets are the same for everybody: one object per process, shared by every session
    (``st.cache_data`` would unpickle a copy on every call: ~2 ms of each λ change and new session on
    sms_spam). Its arrays are made read-only, so no session can change what another one reads.

    ``text``: a nbcore.text.TextPipeline for the text corpora (None = the set's own settings)."""
    # always both arguments, by position: st.cache_resource keys on the arguments as passed, so
    # load_shipped(n) and load_shipped(n, None) were two entries, each parsing and vectorising the set
    return _load_shipped(name, text)


@st.cache_resource(show_spinner=False, max_entries=16)
def _load_shipped(name: str, text):
    ds = nbcore.load_dataset(name) if text is None else \
        nbcore.load_dataset(name).with_pipeline(text, cap=limits.VOCABULARY_CAP)
    return read_only(ds)


def read_only(ds):
    """``ds`` with every array it holds (X, labels, truth, queries) set read-only, in place."""
    def freeze(a):
        if isinstance(a, np.ndarray):
            a.setflags(write=False)
        elif hasattr(a, "data") and hasattr(a, "indices"):  # scipy.sparse compressed matrix
            # canonical first (sorted indices, no duplicates): scipy sorts a matrix in place the first
            # time a method needs it (X.max(), ...), which a read-only matrix would refuse
            a.sum_duplicates()
            for part in (a.data, a.indices, a.indptr):
                part.setflags(write=False)
        elif isinstance(a, dict):
            for v in a.values():
                freeze(v)
    for name in ("X", "y", "y_true", "queries", "truth"):
        freeze(getattr(ds, name, None))
    return ds


def default_pipeline(name: str):
    """The text settings a data set opens with, or None when it is not text."""
    if name in (controls.UPLOAD, controls.SHARED):
        ds = state.get(state.UPLOAD_DS if name == controls.UPLOAD else state.SHARED_DS)
        return getattr(ds, "pipeline", None) if ds is not None and getattr(ds, "is_text", False) else None
    return DEFAULT_PIPELINES.get(name)


def _revectorised(ds, text):
    """``ds`` with the text settings ``text`` (module-level: runs in dashboard.serve.offload's worker)."""
    return ds.with_pipeline(text, cap=limits.VOCABULARY_CAP)


def _with_text(ds, text):
    """A session's own text data set with other text settings (one variant kept per session)."""
    if text is None or not getattr(ds, "is_text", False) or text == ds.pipeline:
        return ds
    cache = state.get(state.UPLOAD_TEXT) or {}
    key = (id(ds), text)
    if key not in cache:
        with heavy_work.heavy():   # re-vectorising the session's text: one of the server's heavy-work slots
            cache = {key: offload.run(_revectorised, ds, text)}   # in a worker process
        state.put(state.UPLOAD_TEXT, cache)
    return cache[key]


def get_dataset(name: str, text=None):
    if name == controls.UPLOAD:
        ds = state.get(state.UPLOAD_DS)
        if ds is None:
            raise ValueError("There is no uploaded file in this session any more; pick a data set.")
        return _with_text(ds, text)
    if name == controls.SHARED:
        ds = state.get(state.SHARED_DS)
        if ds is None:
            raise ValueError("There is no shared data set in this session; open the class link again.")
        return _with_text(ds, text)
    if text is not None and text == default_pipeline(name):
        text = None  # one cache entry for the default settings
    return load_shipped(name, text)


def models_for(name: str) -> list[str]:
    try:
        if name in (controls.UPLOAD, controls.SHARED):
            return list(get_dataset(name).models)
        return list(load_shipped(name).models)
    except Exception:
        return ["bernoulli"]

