"""Uploads: a CSV a student drops in, parsed for this session only.

The uploader's callback stashes the bytes (``on_upload_change``); the page parses them
at the top of its next run (``process_pending_upload``), before the sidebar widgets are
drawn, so a good file can become the selected data set and a bad one changes nothing.
"""
from __future__ import annotations

import io
from types import SimpleNamespace

import numpy as np
import streamlit as st

import nbcore
from dashboard.data import upload_columns
from dashboard.serve import heavy_work, offload, quotas
from dashboard.ui import controls, derive, state, text_controls
from dashboard.ui.controls import _
from nbcore._csv import _utf16_without_bom
from nblab import limits, prepare

#: characters of a parser message (which may quote the user's file) shown at most
MAX_MESSAGE = 300


#: what one feature is, by the event model's ``input_kind``, as the upload message says it
FEATURE_KINDS = {"continuous": "the features are numbers", "counts": "the features are counts (a text column: word counts)",
                 "categories": "the features are categories", "binary": "the features are yes/no"}


def utf16_text(data: bytes) -> bool:
    """A UTF-16 text file (Excel's "Unicode text", some exports): with a byte-order mark, or without
    one when it reads as UTF-16 text (mostly-ASCII text then has a NUL at every other byte)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            data.decode("utf-16")
            return True
        except UnicodeDecodeError:
            return False
    return b"\x00" in data[:65536] and _utf16_without_bom(data) is not None


def looks_binary(data: bytes) -> bool:
    """True for bytes that are not a text file, even when they happen to decode as Latin-1
    (20 KB of 0xC5 "is" ÅÅÅ…): NUL bytes, many control characters, mostly high bytes in
    what is not UTF-8, or 4 KB without a line break."""
    head = data[:65536]
    if not head:
        return False
    if utf16_text(data):
        return False   # NUL bytes are half of every character there: nbcore.read_csv decodes it
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError as e:
        utf8 = e.start >= len(head) - 3  # only a character cut at the 64 KB boundary
    n = len(head)
    control = sum(b < 9 or 13 < b < 32 or b == 127 for b in head) / n
    high = sum(b >= 128 for b in head) / n
    no_lines = n > 4096 and b"\n" not in head and b"\r" not in head
    return control > 0.05 or (not utf8 and high > 0.3) or no_lines


def short_message(text: str, limit: int = MAX_MESSAGE) -> str:
    """A parser message, cut to a short excerpt and escaped (it may quote the file)."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[:limit - 1] + "…"
    return derive.md_escape(text, limit + 1)


def fitting_model(ds) -> str:
    """The event model an uploaded data set is read with first: nbcore lists the one that
    fits its columns first (gaussian for numbers, multinomial for text, …)."""
    return str(ds.models[0])


#: nbcore.read_csv keyword arguments an upload (and so a shared file) may be read with.
READ_OPTIONS = ("text_column", "label_column", "ngram_range", "analyzer", "binary", "min_df", "max_features",
                "stop_words", "binarize", "header", "ignore_columns", "lowercase")


def read_upload(data: bytes, options: dict | None = None):
    """Read an uploaded file's bytes into a Dataset, with every check an upload gets.

    The one way a CSV from a user is read: uploads and shared files (re-read from the
    store) both come here. ``options`` are nbcore.read_csv keyword arguments; unknown
    ones are refused (ValueError), never passed on. Raises ValueError with a message."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(READ_OPTIONS))
    if unknown:
        raise ValueError(f"It was stored with reading options this server does not know ({', '.join(unknown)[:80]}).")
    ds = nbcore.read_csv(io.BytesIO(data), max_bytes=limits.UPLOAD_MAX_BYTES,
                         cap=limits.VOCABULARY_CAP, **options)
    X = ds.for_model(ds.models[0])
    if getattr(X, "shape", (0,))[0] == 0:
        raise ValueError("The file has no rows.")
    return ds


def read_new_upload(data: bytes, options: dict | None = None):
    """An upload read as the sidebar needs it: (info, choice, options, ds). ``options`` None: a
    fresh upload, whose columns' roles are guessed (info and choice are shown, and changeable); else
    the file is read with them (info and choice None). Module-level, Streamlit-free and dependent on
    its arguments only (not on the server's settings): it runs in a worker process
    (dashboard.serve.offload)."""
    info = choice = None
    if options is None:
        info, choice = upload_columns.guess(data)
        options = upload_columns.choice_options(choice)
    ds = read_upload(data, options)  # per session; never cached across sessions
    return info, choice, options, ds


def read_with_columns(data: bytes, choice):
    """The upload read with the columns the teacher picked: (info, choice, options, ds); runs in a
    worker process like :func:`read_new_upload`."""
    info, choice = upload_columns.guess(data, choice)
    options = upload_columns.choice_options(choice)
    return info, choice, options, read_upload(data, options)


def handle_upload(name: str, data: bytes, options: dict | None = None) -> tuple[bool, str]:
    """Parse an uploaded CSV for this session only (never cached across sessions).

    On success the upload becomes the selected data set. On failure nothing the
    user had is touched: the message is stored for display and the previous
    data set and run stay. Must be called before the sidebar widgets are drawn."""
    info = choice = None
    shown = derive.md_escape(name, 80)  # the file name, literally (never Markdown)
    refusal = quotas.upload_refusal()
    if refusal:
        return _refused(_("Could not use “{name}”: {why}", name=shown, why=refusal))
    if looks_binary(data):
        return _refused(_("Could not use “{name}”: this is not a text file (it looks like an image, a spreadsheet "
                          "or another binary file). Save it as CSV (in a spreadsheet program: Save as → CSV UTF-8).",
                          name=shown))
    try:
        with heavy_work.heavy():  # parsing and vectorising: one of the server's heavy-work slots,
            # in a worker process (pure Python that would otherwise hold every other student's GIL)
            info, choice, options, ds = offload.run(read_new_upload, bytes(data), options)
            X = ds.for_model(ds.models[0])
            too_big = over_budget(ds)   # here: the memory budget is this server's setting
    except ValueError as e:  # nbcore.data.DataError is a ValueError
        return _refused(_("Could not use “{name}”: {why}", name=shown, why=short_message(e)))
    except Exception as e:  # a parser crash must not give a student a traceback either
        return _refused(_("Could not read “{name}” as a CSV file ({error}).", name=shown, error=type(e).__name__))
    if too_big:  # refused before it is selected: the sidebar stays on the data set the run uses
        return _refused(_("Could not use “{name}”: {why}", name=shown, why=short_message(too_big, 600)))
    model = _select_upload(name, data, options, ds, info, choice)
    note = _labels_as_given(ds)
    return True, _loaded_message(shown, ds, X, model, info, choice) + (" " + note if note else "")


#: the share of a teacher's own labels "Labels hidden" starts at when the file leaves rows unlabelled
HELD_OUT_PCT = 50


def _labels_as_given(ds) -> str | None:
    """A file whose label column has blanks is read as the teacher meant it: the blank rows are EM's
    unlabelled rows, and "Labels hidden" (which hides a share of the *given* labels, the rows accuracy is
    measured on) starts at :data:`HELD_OUT_PCT` instead of the lesson's 99 %, which would leave EM a label or
    two of a small file. With fewer than 4 given labels it starts at 0 % (nothing to hold out: no accuracy).
    Sets the slider before it is drawn; returns the sentence that says which and why (None: no blanks)."""

    y = np.asarray(ds.y)
    given, blank = int((y >= 0).sum()), int((y < 0).sum())
    if blank == 0 or given == 0:
        return None
    pct = HELD_OUT_PCT if given >= 4 else 0
    st.session_state[controls.K_HIDDEN] = pct
    kept = given - int(round(given * pct / 100))
    if pct == 0:
        return (f"{blank:,} of its rows have no label: EM reads them as its unlabelled rows and learns from your "
                f"{given:,} labels. **Labels hidden** starts at 0 %: with so few labels none is held out, so there is "
                "no accuracy to measure (it shows “—”).")
    return (f"{blank:,} of its rows have no label: EM reads them as its unlabelled rows. **Labels hidden** starts at "
            f"{pct} % of your {given:,} labels: about {given - kept:,} are held out to measure the accuracy on, and EM "
            f"learns from the other {kept:,} and the unlabelled rows (at 0 % EM sees every label and no accuracy can "
            "be measured).")


def _refused(msg: str) -> tuple[bool, str]:
    """An upload refused: its message kept for the sidebar (until the next file), and returned; the uploader
    drawn next is an empty one (it does not go on showing the refused file)."""
    state.put(state.UPLOAD_ERROR, msg)
    controls.refuse_uploaded_file()
    return False, msg


def _select_upload(name: str, data: bytes, options: dict | None, ds, info, choice) -> str:
    """Make the parsed upload the session's data set, selected in the sidebar with the event model that
    fits it (returned)."""
    state.put(state.UPLOAD_DS, ds)
    quotas.note_upload(True)
    state.put(state.UPLOAD_NAME, name)
    state.put(state.UPLOAD_ERROR, None)
    state.put(state.UPLOAD_BYTES, bytes(data))          # kept so "Share this data set" can store it
    state.put(state.UPLOAD_OPTIONS, dict(options or {}))
    state.put(state.SHARE_ERROR, None)
    state.put(state.UPLOAD_COLUMNS, None if info is None else {"info": info, "choice": choice, "open": True})
    state.put(state.UPLOAD_SERIAL, state.get(state.UPLOAD_SERIAL) + 1)
    state.put(state.UPLOAD_TEXT, None)
    st.session_state[controls.K_DATASET] = controls.UPLOAD
    model = fitting_model(ds)
    st.session_state[controls.K_MODEL] = model  # the model that fits the new data, not the last one used
    return model


def _loaded_message(shown: str, ds, X, model: str, info, choice) -> str:
    """What the sidebar says of an upload that loaded: its size, the columns' roles, the event model, and
    what was left out."""
    msg = f"Loaded “{shown}”: {X.shape[0]} rows, {X.shape[1]} features."
    if info is not None:
        msg += " " + upload_columns.choice_message(info, choice)
    kind = FEATURE_KINDS.get(nbcore.get_model(model).input_kind)  # what the model reads, from the registry
    msg += f" Event model: **{model}**" + (f" ({kind})" if kind else "") + "."
    inferred = getattr(ds, "inferred", None) or {}
    if inferred.get("truncated"):
        msg += (f" The text had {inferred.get('vocabulary_size_before_cap', '?'):,} different words; only the "
                f"{inferred.get('vocabulary_size', X.shape[1]):,} most frequent are kept.")
    if inferred.get("ignored_columns"):
        msg += " Ignored columns: " + ", ".join(derive.md_escape(c, 30) for c in inferred["ignored_columns"]) + "."
    return msg


def over_budget(ds) -> str | None:
    """Why a lesson run on ``ds`` (with the event model it opens with) would not fit one lesson's
    memory budget on this server (nblab.limits), or None when it fits. The same check the run's
    build makes (nblab.prepare.iteration_cap), made before the upload becomes the selected data
    set, so a refused file never leaves the sidebar naming it while the old run goes on."""
    model = fitting_model(ds)
    X = ds.for_model(model)
    try:
        prepare.iteration_cap(SimpleNamespace(model=model), SimpleNamespace(X=X, n_classes=int(ds.n_classes)),
                              nbcore.get_model(model).suggested_options(X))
    except ValueError as e:
        return str(e)
    return None


def max_upload_words() -> int:
    """The vocabulary cap of an uploaded text."""
    return limits.VOCABULARY_CAP


def on_upload_change() -> None:
    """file_uploader callback: stash the bytes; they are parsed at the top of the next run."""
    f = st.session_state.get(controls.uploader_key())
    if f is not None and state.get(state.UPLOAD_SEEN) != f.file_id:
        state.put(state.UPLOAD_SEEN, f.file_id)
        # the file's name is shown in the sidebar's list and in messages: without bidi controls
        state.put(state.PENDING_UPLOAD, (nbcore.strip_bidi(f.name), f.getvalue()))


def process_pending_upload() -> tuple[bool, str] | None:
    """Parse a file the uploader stashed. Returns (ok, message) if there was one, else None."""
    pending = state.get(state.PENDING_UPLOAD)
    if not pending:
        return None
    state.put(state.PENDING_UPLOAD, None)
    name, data = pending
    with st.spinner(f"Reading {derive.md_escape(name, 80)} …"):
        return handle_upload(name, data)



def columns_panel() -> None:
    """The upload's columns and their roles (main area); applying a new choice rereads the file."""
    box = state.get(state.UPLOAD_COLUMNS)
    data = state.get(state.UPLOAD_BYTES)
    if not box or data is None or st.session_state.get(controls.K_DATASET) != controls.UPLOAD:
        return
    name = state.get(state.UPLOAD_NAME) or "your file"
    with st.expander(f"Columns of “{derive.md_escape(name, 40)}”: {box['choice'].describe()}",
                     expanded=bool(box.get("open")), icon=":material/table_view:"):
        read_ds = state.get(state.UPLOAD_DS)  # read with box["choice"]: the panel shows what was read
        new = upload_columns.column_picker(box["info"], box["choice"], read=getattr(read_ds, "inferred", None))
        err = box.get("error")
        if err:
            st.error(err + " — the data set and run are unchanged.")
    if new is None:
        return
    try:
        with heavy_work.heavy():
            info, choice, options, ds = offload.run(read_with_columns, bytes(data), new)
    except ValueError as e:  # nbcore DataError: say why, keep everything
        state.put(state.UPLOAD_COLUMNS, {**box, "error": f"Could not use these columns: {short_message(e)}",
                                         "open": True})
        st.rerun()
    state.put(state.UPLOAD_DS, ds)
    state.put(state.UPLOAD_OPTIONS, options)  # a share of this upload is read with the same columns
    state.put(state.UPLOAD_TEXT, None)
    state.put(state.UPLOAD_COLUMNS, {"info": info, "choice": choice, "open": True})
    state.put(state.UPLOAD_SERIAL, state.get(state.UPLOAD_SERIAL) + 1)
    for k in text_controls.KEYS:  # the new text column starts from the default text settings
        st.session_state.pop(k, None)
    st.rerun()
