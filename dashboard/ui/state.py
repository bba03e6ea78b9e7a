"""The session's keys outside the lesson run, initialised in one place, and the per-run memo.

Everything user-specific (the run, an uploaded data set, notices) lives in
st.session_state, i.e. per browser session. Nothing user-specific is kept at
module level, so one student's upload or run is never visible to another.
The lesson run is one object under its own key (LESSON; dashboard/lesson/session.py creates it);
every other key is declared once below with its default (:class:`Key`), and read and written by
its name. Widget keys (which double as URL query-parameter names) are in
dashboard/ui/url_table.py.
"""
from __future__ import annotations

import streamlit as st


class Key(str):
    """A session key: the name itself (a str, so it indexes ``st.session_state``) and its default."""

    def __new__(cls, name: str, default=None):
        key = super().__new__(cls, name)
        key.default = default
        return key


#: the session's LessonRun, created on first use by dashboard/lesson/session.py (not by init())
LESSON = "lesson"

ACC_CACHE = Key("acc_cache")             # {"serial": int, "acc": [float, ...]} accuracy per iteration
BASELINE = Key("baseline")               # {"cfg": DataConfig, "acc": {λ: float | None}, "fit": λ-free statistics} supervised-only accuracy
UPLOAD_DS = Key("upload_ds")             # the session's parsed upload (nbcore Dataset) or None
UPLOAD_NAME = Key("upload_name")         # file name of that upload
PENDING_UPLOAD = Key("pending_upload")   # (name, bytes) waiting to be parsed (set by the uploader callback)
UPLOAD_ERROR = Key("upload_error")       # message of the last failed upload, or None
UPLOAD_SEEN = Key("upload_seen")         # file_id of the last handled upload, so a file is parsed once
UPLOAD_BYTES = Key("upload_bytes")       # the upload's raw bytes (kept so it can be shared), or None
UPLOAD_OPTIONS = Key("upload_options")   # dict: nbcore.read_csv keyword arguments the upload was read with
SHARED_ID = Key("shared_id")             # id of the shared data set this session opened (data=<id>), or None
SHARED_DS = Key("shared_ds")             # its parsed Dataset (the process-wide cached object, read-only)
SHARED_NAME = Key("shared_name")         # its file name
SHARE_RECEIPT = Key("share_receipt")     # {"id", "secret"}: shown to the sharer only (class link + delete link)
SHARE_ERROR = Key("share_error")         # message of the last failed Share press, or None
SHARE_MESSAGE = Key("share_message")     # (kind, text): what happened to a data= / delete= link (shown once)
SHARE_LINK_T = Key("share_link_t")       # the iteration the class link on screen names (t=), or None when none is shown
STOP_TEXTS = Key("stop_texts")           # [(snapshot t-1, snapshot t, texts)]: the stop rules' numbers per step, as printed
UPLOAD_TEXT = Key("upload_text")         # {(id(upload), TextPipeline): Dataset}: the upload re-vectorised (one entry)
UPLOAD_COLUMNS = Key("upload_columns")   # {"info", "choice", "open", "error"}: the upload's columns and the roles picked
UPLOADER_SERIAL = Key("uploader_serial", 0)  # int, bumped on each refused file: a new, empty uploader is drawn (controls.uploader_key)
UPLOAD_SERIAL = Key("upload_serial", 0)  # int, bumped on each new upload or column choice (DataConfig.upload_id)
MEMO = Key("memo")                       # {"serial": int, "items": {key: value}}: values derived from the current run
CLASS_OPEN = Key("class_open")           # {"cid", "key", "data", "v", "sent", "pending", "class_t", "touched"}: the class this session leads, or None
CLASS_ERROR = Key("class_error")         # message of the last failed open or take-back of a class, or None
CLASS_TROUBLE = Key("class_trouble")     # why the class does not have the lesson's state yet (retried), or None

#: every key above with its default: init() creates them, get() and take() fall back to them
_DEFAULTS = {key: key.default for key in list(globals().values()) if isinstance(key, Key)}

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
