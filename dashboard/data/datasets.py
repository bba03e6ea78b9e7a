"""Data sets the dashboard offers: the shipped ones (cached across sessions) and the session's upload."""
from __future__ import annotations

import streamlit as st

import nbcore
from dashboard.ui import controls, state
from dashboard import limits


def dataset_names() -> tuple[list[str], dict[str, str]]:
    """Shipped data sets (in teaching order) and their one-line descriptions."""
    listed = nbcore.list_datasets()
    return list(listed), dict(listed)


@st.cache_data(show_spinner=False, max_entries=16)
def load_shipped(name: str, text=None):
    """Shipped data sets are the same for everybody: cached across sessions.

    ``text``: a nbcore.text.TextPipeline for the text corpora (None = the set's own settings)."""
    if text is None:
        return nbcore.load_dataset(name)
    return nbcore.load_dataset(name).with_pipeline(text, cap=limits.VOCABULARY_CAP)


def default_pipeline(name: str):
    """The text settings a data set opens with, or None when it is not text."""
    if name in (controls.UPLOAD, controls.SHARED):
        ds = state.get(state.UPLOAD_DS if name == controls.UPLOAD else state.SHARED_DS)
        return getattr(ds, "pipeline", None) if ds is not None and getattr(ds, "is_text", False) else None
    from nbcore.data import DEFAULT_PIPELINES
    return DEFAULT_PIPELINES.get(name)


def _with_text(ds, text):
    """A session's own text data set with other text settings (one variant kept per session)."""
    if text is None or not getattr(ds, "is_text", False) or text == ds.pipeline:
        return ds
    cache = state.get(state.UPLOAD_TEXT) or {}
    key = (id(ds), text)
    if key not in cache:
        cache = {key: ds.with_pipeline(text, cap=limits.VOCABULARY_CAP)}
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


@st.cache_data(show_spinner=False, max_entries=64)
def _shipped_models(name: str) -> tuple[str, ...]:
    """A shipped set's models. Its own cache: load_shipped (st.cache_data) unpickles the whole data
    set on every call, ~4 ms of every rerun for udhr_langid, for a few names."""
    return tuple(load_shipped(name).models)


def models_for(name: str) -> list[str]:
    try:
        if name in (controls.UPLOAD, controls.SHARED):
            return list(get_dataset(name).models)
        return list(_shipped_models(name))
    except Exception:
        return ["bernoulli"]

