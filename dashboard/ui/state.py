"""The session's keys outside the lesson run, initialised in one place, and the per-run memo.

Everything user-specific (the run, an uploaded data set, notices) lives in
st.session_state, i.e. per browser session. Nothing user-specific is kept at
module level, so one student's upload or run is never visible to another.
The lesson run is one object under its own key (LESSON; dashboard/lesson/session.py creates it);
every other key is declared once below with its default (``_key``), and read and written by
its name. Widget keys (which double as URL query-parameter names) are in
dashboard/ui/url_table.py.
"""
from __future__ import annotations

import streamlit as st

#: every key below with its default: init() creates them, get() and take() fall back to them
_DEFAULTS: dict[str, object] = {}


def _key(name: str, default=None) -> str:
    """Declare one session key (its name, its default) and return the name."""
    if name in _DEFAULTS:
        raise ValueError(f"session key {name!r} declared twice")
    _DEFAULTS[name] = default
    return name


#: the session's LessonRun, created on first use by dashboard/lesson/session.py (not by init())
LESSON = "lesson"

ACC_CACHE = _key("acc_cache")             # {"serial": int, "acc": [float, ...]} accuracy per iteration
BASELINE = _key("baseline")               # {"cfg": DataConfig, "acc": {λ: float | None}, "fit": λ-free statistics} supervised-only accuracy
UPLOAD_DS = _key("upload_ds")             # the session's parsed upload (nbcore Dataset) or None
UPLOAD_NAME = _key("upload_name")         # file name of that upload
PENDING_UPLOAD = _key("pending_upload")   # (name, bytes) waiting to be parsed (set by the uploader callback)
UPLOAD_ERROR = _key("upload_error")       # message of the last failed upload, or None
UPLOAD_SEEN = _key("upload_seen")         # file_id of the last handled upload, so a file is parsed once
UPLOAD_BYTES = _key("upload_bytes")       # the upload's raw bytes (kept so it can be shared), or None
UPLOAD_OPTIONS = _key("upload_options")   # dict: nbcore.read_csv keyword arguments the upload was read with
SHARED_ID = _key("shared_id")             # id of the shared data set this session opened (data=<id>), or None
SHARED_DS = _key("shared_ds")             # its parsed Dataset (the process-wide cached object, read-only)
SHARED_NAME = _key("shared_name")         # its file name
SHARE_RECEIPT = _key("share_receipt")     # {"id", "secret"}: shown to the sharer only (class link + delete link)
SHARE_ERROR = _key("share_error")         # message of the last failed Share press, or None
SHARE_MESSAGE = _key("share_message")     # (kind, text): what happened to a data= / delete= link (shown once)
SHARE_LINK_T = _key("share_link_t")       # the iteration the class link on screen names (t=), or None when none is shown
STOP_TEXTS = _key("stop_texts")           # [(snapshot t-1, snapshot t, texts)]: the stop rules' numbers per step, as printed
UPLOAD_TEXT = _key("upload_text")         # {(id(upload), TextPipeline): Dataset}: the upload re-vectorised (one entry)
UPLOAD_COLUMNS = _key("upload_columns")   # {"info", "choice", "open", "error"}: the upload's columns and the roles picked
UPLOAD_SERIAL = _key("upload_serial", 0)  # int, bumped on each new upload or column choice (DataConfig.upload_id)
MEMO = _key("memo")                       # {"serial": int, "items": {key: value}}: values derived from the current run
CLASS_OPEN = _key("class_open")           # {"cid", "key", "data", "v", "sent"}: the class this session leads (its write key), or None
CLASS_ERROR = _key("class_error")         # message of the last failed open or publish of the class, or None

MEMO_MAX = 32  # entries kept per session (oldest dropped first)


def init() -> None:
    """Create every non-widget key with its default (idempotent)."""
    for key, value in _DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = value


def get(key):
    return st.session_state.get(key, _DEFAULTS.get(key))


def put(key, value) -> None:
    st.session_state[key] = value


def take(key):
    """Read a one-shot flag and reset it to its default."""
    value = st.session_state.get(key, _DEFAULTS.get(key))
    st.session_state[key] = _DEFAULTS.get(key)
    return value


def memo(key: tuple, compute):
    """compute() once per (current run, key), kept in this session only.

    For values derived from the run that do not change when an unrelated widget
    changes (a figure spec at iteration t, the aligned truth matrix, ...). The memo is
    emptied whenever the run is rebuilt (the lesson's serial changes) and holds at most
    MEMO_MAX entries (the least recently used goes first: what every rerun reads, such as the
    maths panel's default document, stays), so it is bounded and never shared with another session."""
    lesson = st.session_state.get(LESSON)
    serial = 0 if lesson is None else lesson.serial
    box = st.session_state.get(MEMO)
    if not box or box["serial"] != serial:
        box = {"serial": serial, "items": {}}
        st.session_state[MEMO] = box
    items = box["items"]
    if key in items:  # least recently used first out: move a hit to the end
        value = items.pop(key)
        items[key] = value
        return value
    value = compute()
    if len(items) >= MEMO_MAX:
        items.pop(next(iter(items)))
    items[key] = value
    return value
