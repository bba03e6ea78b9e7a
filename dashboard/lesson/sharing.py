"""A teacher's upload shared with the class by one link (``data=<id>`` in the URL).

* ``share_panel()`` — in the upload box: "Share this data set" stores the uploaded file and
  its reading options in the server's store (dashboard/store) and puts ``data=<id>`` (and
  ``dataset=shared``) in the URL. The sharer sees the class link and a one-time delete link.
* ``apply_url()`` — at the top of every page: a ``data=<id>`` in the URL loads that data set
  into the session (the data set option "shared"); once loaded, every page of the session
  keeps ``data=<id>`` in its URL, so reloading any view restores it. An unknown, expired,
  deleted or malformed id shows a message and the default lesson, never a traceback.
* ``delete_panel()`` — a URL with ``delete=<secret>`` asks for confirmation, then deletes.

The file is read and vectorised once per server process (``_parsed``, st.cache_resource
keyed by id + SHA-256 + options) and re-validated exactly like an upload
(``uploads.read_upload``). Every lookup still asks the store, so a deleted or expired share
stops opening at once on every process. Nothing from the store is executed or rendered as
HTML/Markdown: names are shown escaped, bytes are only ever parsed as CSV.

Who may share is decided by role when the operator sets a share key (``NBLAB_SHARE_KEY``): only
whoever types it (a teacher) may share, so a class behind one NAT address cannot use up its
teacher's quota. Shares count against the client's network address (``st.context.ip_address``;
an IPv6 client by its /64 network), so opening a new tab or websocket does not give a fresh quota;
clients without an address (localhost, a proxy that does not forward it) count as one client.
When the store cannot be asked (down, frozen, locked) a link is never cut: the page says so and
stops with the URL intact (``_hold``).
Store failures are logged by dashboard/store with their details; users see a short message.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import os
import sys
import threading
import time
from urllib.parse import urlencode

import numpy as np
import scipy.sparse as sp
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard.data import store as S
from dashboard.data import uploads
from dashboard.lesson import session
from dashboard.serve import heavy_work, offload
from dashboard.ui import controls, state

log = logging.getLogger(__name__)

DATA_PARAM = "data"        # ?data=<id>
DELETE_PARAM = "delete"    # ?data=<id>&delete=<secret>
ITERATION_PARAM = "t"      # the run's iteration a link restores (dashboard.lesson.session.K_ITERATION)

# Per process, not per user: how many times a shared file was parsed (the load test reads
# the log line; tests read the counter). Guarded by a lock (sessions run in threads).
_PARSES = {"n": 0}
_PARSES_LOCK = threading.Lock()


def parse_count() -> int:
    with _PARSES_LOCK:
        return _PARSES["n"]


# ---- the store of this server process -------------------------------------------------------

def _secrets() -> dict:
    try:
        sec = st.secrets.get("nblab", {})
        return dict(sec) if sec else {}
    except Exception:  # no secrets.toml: fine
        return {}


def config() -> tuple[str, S.Limits]:
    """(store URL, limits): environment variables, else the [nblab] secrets, else defaults."""
    return S.settings(secrets_=_secrets())


@st.cache_resource(show_spinner=False)
def _open(url: str, limits: S.Limits) -> S.ShareStore:
    return S.open_store(url, limits)


#: {store URL: time.monotonic() until which opening it is not tried again}: set when an opening
#: waited a second or more and failed (a frozen or unanswering server). Pages asking meanwhile get
#: the message at once instead of queueing, one after another, on st.cache_resource's lock.
_OPEN_PAUSED: dict[str, float] = {}
OPEN_PAUSE = 3.0


def get_store() -> S.ShareStore:
    """The store (one per process and configuration). Raises ShareError with a message."""
    try:
        url, limits = config()
    except ValueError as e:
        raise S.StoreUnavailable(f"Sharing is not configured correctly on this server: {e}") from None
    # A failed open is not cached (st.cache_resource keeps only results): the next page tries
    # again, so the store works as soon as it is back. A try costs at most the store's deadline
    # (store.CALL_TIMEOUT); dashboard/data/store has logged the cause with its details.
    if time.monotonic() < _OPEN_PAUSED.get(url, 0.0):
        raise S.StoreUnavailable(S.UNAVAILABLE_MSG)
    t0 = time.monotonic()
    try:
        return _open(url, limits)
    except S.StoreUnavailable:
        if time.monotonic() - t0 >= 1.0:
            _OPEN_PAUSED[url] = time.monotonic() + OPEN_PAUSE
        raise


def share_key() -> str | None:
    """The share key the operator set (NBLAB_SHARE_KEY, else ``share_key`` in the [nblab] secrets):
    with one, only whoever types it may share (a teacher), whatever their network address; None:
    anyone may share, within the per-address quotas."""

    key = os.environ.get("NBLAB_SHARE_KEY") or _secrets().get("share_key")
    return str(key) if key else None


def limits_text() -> str:
    try:
        return S.describe_limits(config()[1])
    except ValueError:
        return ""


# ---- reading a share (once per process) ------------------------------------------------------

def _read_like_upload(data: bytes, options: dict):
    return uploads.read_upload(data, options)


def _freeze(ds):
    """The parsed data set is shared by every session of this process: dense arrays are made
    read-only, so no session can change what the others see. A sparse X is cleaned up front
    (explicit zeros removed, as nbcore does to an upload) but stays writeable: nbcore's Bernoulli
    ``prepare`` calls ``X.eliminate_zeros()`` on its input, which on a clean matrix rewrites
    nothing but needs writeable arrays."""

    for arr in (ds.X, ds.y, getattr(ds, "y_true", None)):
        if isinstance(arr, np.ndarray):
            arr.flags.writeable = False
        elif sp.issparse(arr) and hasattr(arr, "eliminate_zeros"):
            arr.eliminate_zeros()   # (indices are not re-sorted: that would change float sums)
    return ds


@st.cache_resource(show_spinner=False, max_entries=16)
def _parsed(share_id: str, sha256: str, options_json: str):
    """(Dataset, None) or (None, message): the stored file read like an upload, once per process."""

    data = get_store().read(share_id)
    if hashlib.sha256(data).hexdigest() != sha256:
        return None, "The stored file does not match its checksum; it was not loaded. Ask for a new link."
    t0 = time.perf_counter()
    try:
        with heavy_work.heavy(notice=False):   # parsing: one of the server's heavy-work slots (no element here:
            # Streamlit replays a cached function's elements)
            ds = offload.run(_read_like_upload, data, json.loads(options_json))   # in a worker process
    except ValueError as e:
        return None, f"The shared file can no longer be read: {e}"
    except Exception as e:  # a parser crash must not reach the class as a traceback
        log.exception("shared data set %s… could not be parsed", share_id[:6])
        return None, f"The shared file can no longer be read as a CSV file ({type(e).__name__})."
    with _PARSES_LOCK:
        _PARSES["n"] += 1
    # one line per parse: the load test counts them per server process
    print(f"nblab: parsed shared data set {share_id[:6]}… ({len(data)} bytes) in "
          f"{time.perf_counter() - t0:.3f} s", file=sys.stderr, flush=True)
    return _freeze(ds), None


def load(share_id: str):
    """(Share, Dataset) for an id; raises ShareError with a message for the user."""
    store = get_store()
    share = store.lookup(share_id)
    ds, err = _parsed(share.id, share.sha256, json.dumps(share.options, sort_keys=True))
    if err:
        raise S.ShareError(err + " The default lesson is shown instead.")
    return share, ds


# ---- session side ------------------------------------------------------------------------------

def _session_owner() -> str:
    try:
        ctx = get_script_run_ctx()
        return ctx.session_id if ctx else "anonymous"
    except Exception:
        return "anonymous"


def _client_address() -> str | None:
    """The client's network address as Streamlit saw it: None for localhost, where Streamlit
    has no such field, or where it is not an IP address (AppTest puts a mock object there)."""
    try:
        ip = getattr(st.context, "ip_address", None)
    except Exception:
        return None
    if not isinstance(ip, str):
        return None
    try:
        return str(ipaddress.ip_address(ip.split("%")[0]))   # (an IPv6 zone "%eth0" is not part of it)
    except ValueError:
        return None


def _client_owner() -> str:
    """Whom a share counts against in the store's hourly quota: the client's address (an
    IPv6 address by its /64, which one household or device is usually given whole). Without an
    address (localhost, or a proxy that does not forward it) every such client is one: counting
    per browser session would give each new tab a fresh quota, and one client could use up the
    whole store's hourly limit for everybody."""
    ip = _client_address()
    if ip is None:
        return "address:unknown"
    addr = ipaddress.ip_address(ip)
    if addr.version == 6:
        if addr.ipv4_mapped is not None:   # ::ffff:a.b.c.d is the IPv4 client a.b.c.d
            return "address:" + str(addr.ipv4_mapped)
        return "address:" + str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return "address:" + str(addr)


def _use(share: S.Share, ds, select: bool = True) -> None:
    state.put(state.SHARED_ID, share.id)
    state.put(state.SHARED_DS, ds)
    state.put(state.SHARED_NAME, share.name)
    if select:
        st.session_state[controls.K_DATASET] = controls.SHARED


def _hold(message: str) -> None:
    """The store cannot be asked right now (down, frozen, locked): the link's data set may well be
    there, so nothing of the link is dropped (data=, dataset=, t= and every setting stay in the URL)
    and the page stops before any widget could rewrite it. A reload, or Try again, once the store
    answers opens the link's data set; the default lesson is never shown in its place."""
    st.warning(message + " Your link is kept as it is: reload this page (or press Try again) in a "
               "minute and it opens the shared data set.", icon=":material/cloud_off:")
    st.button("Try again", key="share_retry", icon=":material/refresh:")
    st.stop()


def _forget(message: str | tuple | None = None) -> None:
    """Drop the session's shared data set (and its id from the URL); fall back to the default lesson.
    The link's iteration (t=) goes too: it was an iteration of a run on the data that is not here,
    and recomputing it on the default lesson would say "as the link says" about other data."""
    had = state.get(state.SHARED_ID) is not None
    for key in (state.SHARED_ID, state.SHARED_DS, state.SHARED_NAME, state.SHARE_RECEIPT):
        state.put(key, None)
    if st.session_state.get(controls.K_DATASET) == controls.SHARED or had:
        st.session_state[controls.K_DATASET] = controls.DEFAULTS["dataset"]
    for p in (DATA_PARAM, DELETE_PARAM, ITERATION_PARAM):
        if p in st.query_params:
            del st.query_params[p]
    # A data-set picker's URL value naming the shared set (dataset=shared, insp_dataset=... (shared))
    # cannot be used now either; it goes too, so the page's URL check (dashboard/ui/urlguard.py, which
    # reads the URL after apply_url) does not add a second notice about it under this message.
    for p in list(st.query_params):
        if (p == controls.K_DATASET or p.endswith("_" + controls.K_DATASET)) and any(
                _names_shared(v) for v in st.query_params.get_all(p)):
            del st.query_params[p]
    if message:
        state.put(state.SHARE_MESSAGE, message if isinstance(message, tuple) else ("warning", message))


def _names_shared(value: str) -> bool:
    """A data-set picker value meaning the shared set: "shared" or the label "<file> (shared)"."""
    return value == controls.SHARED or value.endswith(" (shared)")


def _url_dataset() -> str | None:
    """The URL's dataset= value, with the bound widget's label "<file> (shared)" read as "shared"."""
    v = st.query_params.get(controls.K_DATASET)
    if v is not None and _names_shared(v):
        return controls.SHARED
    return v


def apply_url() -> None:
    """Load the data set a ``data=<id>`` names (call at the top of a page, before its widgets).

    Same id as already loaded: nothing to do. No ``data=`` but the session has a shared set:
    put the id back in the URL (a page switch drops query parameters), so a reload restores it."""
    raw = st.query_params.get_all(DATA_PARAM) if DATA_PARAM in st.query_params else []
    current = state.get(state.SHARED_ID)
    if DELETE_PARAM in st.query_params:
        return  # delete_panel() decides; nothing is loaded from a delete link before it is confirmed
    if not raw:
        if current is not None:
            st.query_params[DATA_PARAM] = current
        elif _url_dataset() == controls.SHARED:
            _forget("This link asks for a shared data set but carries no data id (it may have been cut off). "
                    "The default lesson is shown instead.")
        return
    wanted = raw[-1]
    if wanted == current and len(raw) == 1:
        return
    try:
        share, ds = load(wanted)
    except S.StoreDamaged as e:
        _forget(str(e))   # a damaged store does not come back by waiting: the default lesson, and why
        return
    except S.StoreUnavailable as e:
        _hold(str(e))   # the link is kept whole; the page stops here
        return
    except S.ShareError as e:
        _forget(str(e))
        return
    # the link's data set is selected unless the URL picks another one (dataset=... beside data=)
    _use(share, ds, select=_url_dataset() in (None, controls.SHARED))
    st.query_params[DATA_PARAM] = share.id


def drop_orphan_iteration() -> None:
    """A link naming an uploaded file this session does not have (uploads live in one browser session
    and are lost on a reload or a server restart): its t= is an iteration of a run on that file, so it
    is taken out of the URL before the page reads it; the data-set picker's notice says what
    happened to the upload. A link on a shipped data set keeps its t= (the same settings give the
    same numbers after a restart)."""
    if ITERATION_PARAM not in st.query_params or state.get(state.UPLOAD_DS) is not None \
            or state.get(state.PENDING_UPLOAD):
        return
    v = st.query_params.get(controls.K_DATASET)
    if v is not None and (v == controls.UPLOAD or v.endswith("(your upload)")):
        del st.query_params[ITERATION_PARAM]


def source_note(dataset: str) -> None:
    """Under the data-set picker: which shared file this is (plain text, escaped)."""
    if dataset == controls.SHARED and state.get(state.SHARED_NAME):
        ds = state.get(state.SHARED_DS)
        rows = f" · {ds.n_samples:,} rows" if ds is not None else ""
        st.sidebar.caption(":material/link: Opened from a class link:")
        st.sidebar.text(f"Shared data set: {state.get(state.SHARED_NAME)}{rows}")  # plain text, never markdown


def show_message(container=None) -> None:
    """A message from the last ``data=`` link that could not be opened (shown once)."""
    msg = state.take(state.SHARE_MESSAGE)
    if msg:
        kind, text = msg
        box = container or st
        {"success": box.success, "error": box.error}.get(kind, box.warning)(
            text, icon=":material/link_off:" if kind != "success" else ":material/check:")


def link_iteration() -> int | None:
    """The iteration a class link names: the one on screen (None without a run)."""
    lr = session.lesson()
    return None if lr.run is None else session.on_screen()


#: the teacher key of the class a teacher leads (dashboard/lesson/panels/class_link.py): never in a link
TEACHER_PARAM = "teacher"


def class_link(share_id: str) -> str:
    """The URL students open: this page with the current settings, data=<id> and the iteration on screen
    (read from the lesson, not from the URL's copy of it, which a rerun of the charts alone may not
    have written yet)."""
    params = {k: v for k, v in st.query_params.to_dict().items()
              if k not in (DATA_PARAM, DELETE_PARAM, ITERATION_PARAM, TEACHER_PARAM)}
    params[controls.K_DATASET] = controls.SHARED
    params[DATA_PARAM] = share_id
    t = link_iteration()
    if t:
        params[ITERATION_PARAM] = str(t)
    base = st.context.url or ""
    return f"{base}?{urlencode(params)}"


def link_behind(t: int) -> bool:
    """The class link on screen (the sharer's sidebar, drawn on whole-page runs only) names another
    iteration than ``t``, the one on screen now: a Step or a drag reran the charts alone."""
    drawn = state.get(state.SHARE_LINK_T)
    return drawn is not None and drawn != int(t)


def delete_link(share_id: str, secret: str) -> str:
    base = st.context.url or ""
    return f"{base}?{urlencode({DATA_PARAM: share_id, DELETE_PARAM: secret})}"


def text_read_options(pipeline) -> dict:
    """nbcore.read_csv keyword arguments that read a text file with ``pipeline`` (a TextPipeline):
    stored with a share, so every student's copy has the features the sharer's run uses."""
    if pipeline is None:
        return {}
    return {"analyzer": pipeline.tokens, "ngram_range": list(pipeline.ngram_range), "binary": pipeline.binary,
            "min_df": pipeline.min_df, "max_features": pipeline.max_features,
            "stop_words": "english" if pipeline.stop_words else None, "lowercase": pipeline.lowercase}


K_SHARE_KEY = "share_key_typed"   # the share key typed under the Share button (never in the URL)


def _on_share() -> None:
    """Button callback: store the session's upload and switch the session to the shared copy."""
    data, name = state.get(state.UPLOAD_BYTES), state.get(state.UPLOAD_NAME)
    if not data or state.get(state.UPLOAD_DS) is None:
        state.put(state.SHARE_ERROR, "Upload a file first; then it can be shared.")
        return
    lr = session.lesson()
    cfg = lr.cfg
    options = dict(state.get(state.UPLOAD_OPTIONS) or {})
    if cfg is not None and cfg.dataset == controls.UPLOAD and getattr(state.get(state.UPLOAD_DS), "is_text", False):
        # the text settings the run uses (min df, n-grams, vocabulary…) travel with the file
        options.update(text_read_options(cfg.text))
    key = share_key()
    if key is not None:
        typed = str(st.session_state.get(K_SHARE_KEY) or "")
        if not hmac.compare_digest(typed.encode(), key.encode()):
            state.put(state.SHARE_ERROR, "Could not share this file: sharing on this server needs its share key "
                                         "(the server's administrator gives it to teachers), and the key typed "
                                         "is " + ("missing." if not typed else "not it."))
            return
    try:
        # a key holder (a teacher) counts against the key's quota, not the address a class shares
        owner = "key:" + _client_owner() if key is not None else _client_owner()
        receipt = get_store().put(name, data, options, owner=owner)
        share, ds = load(receipt.id)
    except S.ShareError as e:
        state.put(state.SHARE_ERROR, f"Could not share this file: {e}")
        return
    state.put(state.SHARE_ERROR, None)
    if cfg is not None and cfg.dataset == controls.UPLOAD:
        # the same bytes read the same way: the sharer's run carries on, now on the shared copy
        lr.rename_dataset(controls.SHARED)
    state.put(state.SHARE_RECEIPT, {"id": receipt.id, "secret": receipt.delete_secret, "sha256": share.sha256})
    _use(share, ds)
    st.query_params[DATA_PARAM] = share.id   # (dataset=shared follows from the widget's value)


def share_panel() -> None:
    """Under the uploader: "Share this data set" for an upload not shared yet; after sharing,
    the class link and the one-time delete link (shown to the sharer's session only)."""

    receipt = state.get(state.SHARE_RECEIPT)
    data = state.get(state.UPLOAD_BYTES)
    state.put(state.SHARE_LINK_T, None)  # no class link on screen (set below when there is one)
    if receipt:
        box = st.container(border=True)
        box.markdown(":material/link: **Link for the class**: students who open it see this data set "
                     "with these settings.")
        box.code(class_link(receipt["id"]), language=None, wrap_lines=True)
        state.put(state.SHARE_LINK_T, link_iteration() or 0)
        box.caption("Delete link: keep it to yourself. It works once and removes the data set for everyone.")
        box.code(delete_link(receipt["id"], receipt["secret"]), language=None, wrap_lines=True)
    if state.get(state.UPLOAD_DS) is not None and data and not (
            receipt and receipt.get("sha256") == hashlib.sha256(data).hexdigest()):
        if share_key() is not None:
            st.text_input("Share key", type="password", key=K_SHARE_KEY,
                          help="Sharing on this server is for teachers: its administrator gives them this key.")
        st.button("Share this data set", icon=":material/share:", key="share_upload", on_click=_on_share,
                  help="Stores your uploaded file on this server and gives you one link for the class. "
                       "Files you do not share stay in your session only. " + limits_text())
    err = state.get(state.SHARE_ERROR)
    if err:
        st.error(err)
    if receipt or (state.get(state.UPLOAD_DS) is not None and data):
        st.caption(limits_text())


def _on_delete(share_id: str, secret: str) -> None:
    """Confirm button callback (runs before the page's widgets are drawn)."""
    try:
        ok = get_store().delete(share_id, secret)
    except S.ShareError as e:
        state.put(state.SHARE_MESSAGE, ("error", str(e)))
        return
    if ok:
        _forget(("success", "The shared data set was deleted: its link no longer opens it, on any device."))
    else:
        _forget(("error", "This delete link is not valid for that data set (wrong, or already used). "
                          "Nothing was deleted."))


def _on_keep() -> None:
    if DELETE_PARAM in st.query_params:
        del st.query_params[DELETE_PARAM]


def delete_panel() -> bool:
    """If the URL is a delete link: ask for confirmation (the delete happens only on the button,
    so a link preview or a prefetch never deletes anything). Returns True if shown."""
    if DELETE_PARAM not in st.query_params:
        return False
    sid = st.query_params.get(DATA_PARAM, "")
    secret = st.query_params.get(DELETE_PARAM, "")
    box = st.container(border=True)
    if not S.valid_id(sid):
        box.error("This delete link is not valid (its data id is missing or damaged). Nothing was deleted.")
        box.button("Close", key="delete_close", on_click=_forget)
        return True
    try:
        share = get_store().lookup(sid)
    except S.ShareError as e:  # already deleted, expired, unknown, or the store is down: nothing to ask
        box.warning(f"Nothing to delete: {e}")
        box.button("Close", key="delete_close", on_click=_forget)
        return True
    box.markdown("**Delete a shared data set?** Anyone who opens its link afterwards gets the default "
                 "lesson instead. This cannot be undone.")
    shared_on = time.strftime("%Y-%m-%d", time.gmtime(share.created))
    box.text(f"{share.name} · {share.size:,} bytes · shared {shared_on}")  # plain text, never markdown
    c1, c2 = box.columns(2)
    c1.button("Delete it for everyone", icon=":material/delete:", type="primary", key="delete_confirm",
              on_click=_on_delete, args=(sid, secret))
    c2.button("Keep it", key="delete_cancel", on_click=_on_keep)
    return True
