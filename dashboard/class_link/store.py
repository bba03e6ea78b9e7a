"""Open classes in the shared store: the teacher's lesson state that a class link's students follow.

A class is one row of ``nblab_classes`` in the same database as the shared data sets
(dashboard/data/store: SQLite by default, PostgreSQL in the deployment), so every app process
answers for every class. The teacher's session opens it (:func:`open_class`) and publishes each
change (:func:`publish`); students only read (:func:`read`), through a per-process cache with a
short time to live (``READ_TTL``): a thousand students polling every two seconds cost the database a
few reads per second per process, not five hundred.

* ids are ``secrets.token_urlsafe(12)`` (96 random bits, 16 characters of ``[A-Za-z0-9_-]``); an id
  of any other shape is refused before the database is asked;
* the write key is a second token, returned once to the teacher; only its SHA-256 is stored;
* the state is checked against the class-link contract (docs/class_link.md): only its keys, numbers
  finite and in range, strings short, at most ``MAX_STATE_BYTES`` of JSON;
* a class nobody published to for ``CLASS_TTL`` (12 h) is gone (read says so; the row is removed
  when classes are next opened); one client (``owner``) may open ``CLASSES_PER_HOUR`` classes an hour,
  the whole store ``STORE_CLASSES_PER_HOUR``;
* the teacher's page touches its class every ``HEARTBEAT`` seconds (:func:`touch`) while it is open:
  a class neither published to nor touched for ``AWAY_AFTER`` is read with ``"away": true`` (its
  teacher's page is gone: closed, crashed, its server down), and students are told so;
* the class belongs to whoever holds its write key, not to a browser session: :func:`claim` gives a
  new session of the teacher (a reload, another tab, another app process) the class's state back;
* a stored state that does not pass the contract's checks any more (a corrupted row) is refused
  (:class:`BadState`, the route answers 500), never served as a state at t = 0.

Every call goes through the store's deadline (``ShareStore._bounded``) and error handling
(``_guard``): a stalled database answers StoreUnavailable within 2.5 s, never hangs a request.
Nothing here imports Streamlit (the store's settings may come from Streamlit secrets: read lazily).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any, Mapping

import streamlit as st

from dashboard.data import store as S

__all__ = [
    "ClassError", "BadClassId", "ClassNotFound", "ClassGone", "WrongKey", "BadState", "TooManyClasses",
    "open_class", "publish", "read", "valid_class_id", "valid_data_key", "get_store", "clear_cache",
    "CLASS_TTL", "READ_TTL", "MAX_STATE_BYTES", "claim", "touch", "HEARTBEAT", "AWAY_AFTER",
]

CLASS_ID_BYTES = 12                 # 96 random bits -> 16 url-safe characters
CLASS_ID_LEN = 16
_CID_RE = re.compile(r"[A-Za-z0-9_-]{%d}" % CLASS_ID_LEN)
_KEY_RE = re.compile(r"[A-Za-z0-9_-]{20,64}")
#: a data key: a shipped data set's name or a share id (both [A-Za-z0-9_-])
_DATA_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
CLASS_TTL = 12 * 3600.0             # s: a class untouched this long is gone
READ_TTL = 0.25                     # s: a process answers a class's state from memory this long
CACHE_ENTRIES = 4096                # classes one process keeps in its read cache
MISS_ENTRIES = 1024                 # ids of missing or gone classes it remembers, apart: a flood of random ids
                                    # pushes out other random ids, never a class students follow
MAX_STATE_BYTES = 4096              # the stored JSON of one state
MAX_STR = 120                       # characters of any string in a state
MAX_T = 100_000                     # the iteration shown
CLASSES_PER_HOUR = 30               # classes one client may open in an hour
STORE_CLASSES_PER_HOUR = 1000       # classes the whole store may open in an hour
MAX_LIVE_CLASSES = 20_000           # classes open at once on the whole store
HEARTBEAT = 15.0                    # s: how often an open teacher's page touches its class
AWAY_AFTER = 45.0                   # s: a class untouched this long has no teacher's page open

SETTING_KEYS = ("dataset", "model", "hidden", "lam", "init", "seed", "max_iter", "tol")
STATE_KEYS = ("data", "settings", "t", "half", "open", "lams", "question", "paused")
QUESTION_PHASES = ("open", "closed", "revealed")   # a state's question: {"id": qid, "phase": one of these}
_QID_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")
MAX_LAMS = 64                       # λ changes one state lists (the run's λ history: [[t, λ], ...])


# ---- errors ---------------------------------------------------------------------------------------

class ClassError(S.ShareError):
    """A class that cannot be opened, published to or read; ``str(e)`` is a short message."""


class BadClassId(ClassError, S.BadId):
    pass


class ClassNotFound(ClassError, S.NotFound):
    pass


class ClassGone(ClassError, S.Gone):
    def __init__(self, msg: str):
        S.Gone.__init__(self, msg, "expired")


class WrongKey(ClassError):
    """The write key does not belong to this class."""


class BadState(ClassError, ValueError):
    """The state is not what the class-link contract allows."""


class TooManyClasses(ClassError, S.RateLimited):
    pass


# ---- checks ---------------------------------------------------------------------------------------

def valid_class_id(cid) -> bool:
    return isinstance(cid, str) and _CID_RE.fullmatch(cid) is not None


def valid_data_key(key) -> bool:
    return isinstance(key, str) and _DATA_RE.fullmatch(key) is not None


def _check_cid(cid) -> str:
    if not valid_class_id(cid):
        raise BadClassId("This class link is not valid (it may have been cut off when it was copied).")
    return cid


def _short(key: str, v) -> str:
    if not isinstance(v, str) or len(v) > MAX_STR or not v.isprintable():
        raise BadState(f"{key}: a short printable text")
    return v


def _int(key: str, v, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v) \
            or not lo <= v <= hi:
        raise BadState(f"{key}: a whole number in {lo}–{hi}")
    return int(v)


def _num(key: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v <= 1e6:
        raise BadState(f"{key}: a finite number")
    return float(v)


def clean_state(state: Mapping, data_key: str | None = None) -> dict:
    """The state as stored: ``{"data", "settings", "t", "half", "open"}`` checked and normalised.

    ``data_key`` (open_class) fills ``data`` when the state has none; a ``class`` or ``v`` key is
    ignored (the store sets them). Anything else raises BadState."""
    if not isinstance(state, Mapping):
        raise BadState("the state must be an object")
    extra = sorted(str(k)[:20] for k in state if k not in STATE_KEYS + ("class", "v"))
    if extra:
        raise BadState(f"unknown state keys: {', '.join(extra)[:80]}")
    data = state.get("data", data_key)
    if data_key is not None and data != data_key:
        raise BadState("data: the state's data set is not the class's")
    if not valid_data_key(data):
        raise BadState("data: a shipped data set's name or a share id")
    settings = state.get("settings") or {}
    if not isinstance(settings, Mapping):
        raise BadState("settings: an object")
    out_s: dict[str, Any] = {}
    for k, v in settings.items():
        if k not in SETTING_KEYS:
            raise BadState(f"settings: unknown key {str(k)[:20]!r}")
        if v is None:
            continue
        if k in ("dataset", "model", "init"):
            out_s[k] = _short(k, v)
        elif k == "hidden":
            out_s[k] = _int(k, v, 0, 100)
        elif k == "seed":
            out_s[k] = _int(k, v, 0, 10**9)
        elif k == "max_iter":
            out_s[k] = _int(k, v, 1, MAX_T)
        else:   # lam, tol
            out_s[k] = _num(k, v)
    half = state.get("half")
    if half not in (None, "e"):
        raise BadState('half: null or "e"')
    is_open = state.get("open", True)
    if not isinstance(is_open, bool):
        raise BadState("open: true or false")
    out = {"data": data, "settings": out_s, "t": _int("t", state.get("t", 0), 0, MAX_T), "half": half,
           "open": is_open}
    lams = state.get("lams")
    if lams is not None:   # [[t, λ], ...]: θ_t on were computed with λ; t from 0, increasing
        if not isinstance(lams, (list, tuple)) or not 1 <= len(lams) <= MAX_LAMS:
            raise BadState(f"lams: a list of 1–{MAX_LAMS} [t, λ] pairs")
        clean = []
        for e in lams:
            if not isinstance(e, (list, tuple)) or len(e) != 2:
                raise BadState("lams: each entry a [t, λ] pair")
            t_i, lam_i = _int("lams t", e[0], 0, MAX_T), _num("lams λ", e[1])
            if (not clean and t_i != 0) or (clean and t_i <= clean[-1][0]) or lam_i < 0:
                raise BadState("lams: t from 0, increasing; λ ≥ 0")
            clean.append([t_i, lam_i])
        out["lams"] = clean
    question = state.get("question")
    if question is not None:   # the teacher's current question: the class page shows it (answers.py)
        if (not isinstance(question, Mapping) or set(question) != {"id", "phase"}
                or not isinstance(question["id"], str) or not _QID_RE.fullmatch(question["id"])
                or question["phase"] not in QUESTION_PHASES):
            raise BadState('question: {"id": a question id, "phase": "open", "closed" or "revealed"}')
        out["question"] = {"id": question["id"], "phase": question["phase"]}
    paused = state.get("paused", False)
    if not isinstance(paused, bool):
        raise BadState("paused: true or false")
    if paused:   # the teacher paused the class: the students' controls wait for Resume
        out["paused"] = True
    if len(_dump(out)) > MAX_STATE_BYTES:
        raise BadState(f"the state is over {MAX_STATE_BYTES} bytes")
    return out


def _dump(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True, ensure_ascii=True, allow_nan=False)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def state_bytes(cid: str, v: int, stored: str, away: bool = False) -> bytes:
    """The state.json a student gets: the contract's object, keys in the contract's order; ``away``
    when the teacher's page has not been heard from for AWAY_AFTER. A stored text that is not a
    state the contract allows (a corrupted row) raises BadState: it is never answered as t = 0."""
    try:
        st = clean_state(json.loads(stored))
    except (ValueError, TypeError, BadState) as e:
        raise BadState("the stored state of this class cannot be read") from e
    out = {"class": cid, "v": int(v), "data": st["data"], "settings": st["settings"], "t": st["t"],
           "half": st["half"], "open": st["open"]}
    if st.get("lams"):
        out["lams"] = st["lams"]
    if st.get("question"):
        out["question"] = st["question"]
    if st.get("paused"):
        out["paused"] = True
    if away:
        out["away"] = True
    return json.dumps(out, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode()


# ---- the store of this process ----------------------------------------------------------------------

_STORE_LOCK = threading.Lock()
_STORES: dict[str, S.ShareStore] = {}
_OPEN_PAUSED: dict[str, float] = {}
OPEN_PAUSE = 3.0


def _secrets() -> dict:
    """The ``[nblab]`` table of Streamlit's secrets, when Streamlit is there and has one."""
    try:
        sec = st.secrets.get("nblab", {})
        return dict(sec) if sec else {}
    except Exception:
        return {}


def get_store() -> S.ShareStore:
    """The shared store (one per process and store URL): the same configuration as the shares
    (NBLAB_STORE_URL / NBLAB_STORE_DIR, else the ``[nblab]`` secrets, else the default SQLite file)."""
    try:
        url, limits = S.settings(secrets_=_secrets())
    except ValueError as e:
        raise S.StoreUnavailable(f"The store is not configured correctly on this server: {e}") from None
    with _STORE_LOCK:
        got = _STORES.get(url)
    if got is not None:
        return got
    if time.monotonic() < _OPEN_PAUSED.get(url, 0.0):
        raise S.StoreUnavailable(S.UNAVAILABLE_MSG)
    t0 = time.monotonic()
    try:
        made = S.open_store(url, limits)
    except S.StoreUnavailable:
        if time.monotonic() - t0 >= 1.0:
            _OPEN_PAUSED[url] = time.monotonic() + OPEN_PAUSE
        raise
    with _STORE_LOCK:
        got = _STORES.setdefault(url, made)
    if got is not made:
        made.close()
    return got


# ---- writing (the teacher) -------------------------------------------------------------------------

def open_class(data_key: str, state: Mapping, *, owner: str = "", store: S.ShareStore | None = None
               ) -> tuple[str, str]:
    """Open a class on ``data_key`` (a shipped data set's name or a share id) with its first state.

    Returns ``(cid, write_key)``: the class id for the link (``/class/<cid>``) and the key
    :func:`publish` needs (keep it in the teacher's session only). ``owner``: who opens it (the
    client's address), for the hourly quota. Raises BadState, TooManyClasses, StoreUnavailable."""
    if not valid_data_key(data_key):
        raise BadState("data: a shipped data set's name or a share id")
    clean = clean_state(state, data_key)
    text = _dump(clean)
    store = store or get_store()
    cid = secrets.token_urlsafe(CLASS_ID_BYTES)
    key = secrets.token_urlsafe(24)
    owner_h = _sha("class-owner:" + str(owner))

    def work():
        with store._guard("open class"):
            with store._tx(write=True) as db:
                now = store.clock()
                db.execute("DELETE FROM nblab_classes WHERE updated < ?", (now - CLASS_TTL,))
                n_own = db.execute("SELECT COUNT(*) FROM nblab_classes WHERE owner = ? AND created >= ?",
                                   (owner_h, now - 3600.0)).fetchone()[0]
                if int(n_own) >= CLASSES_PER_HOUR:
                    raise TooManyClasses(f"{int(n_own)} classes were opened from this computer in the last "
                                         f"hour (the limit is {CLASSES_PER_HOUR}). Use a class you opened.")
                n_new, n_live = db.execute("SELECT COALESCE(SUM(CASE WHEN created >= ? THEN 1 ELSE 0 END), 0), "
                                           "COUNT(*) FROM nblab_classes", (now - 3600.0,)).fetchone()
                if int(n_new) >= STORE_CLASSES_PER_HOUR or int(n_live) >= MAX_LIVE_CLASSES:
                    raise TooManyClasses("This server has opened as many classes as it may for now. Try "
                                         "again later.")
                db.execute("INSERT INTO nblab_classes (id, key_hash, owner, state, v, created, updated, made) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (cid, _sha(key), owner_h, text, 1, now, now, now))
        return cid, key
    return store._bounded("open class", work)


def publish(cid: str, write_key: str, state: Mapping, *, store: S.ShareStore | None = None,
            made: float | None = None) -> int:
    """Publish the teacher's new state; returns the class's new version ``v`` (one more than before).

    ``state``: the contract's keys (``data``, ``settings``, ``t``, ``half``, ``open``); without ``data``
    the class stays on its data set. The whole state is replaced (a missing ``settings`` is ``{}``).

    ``made``: when the teacher made this state (the store's clock; default: now, when the call starts).
    The newest state wins, not the last write: a publish whose call gave up on a stalled database
    (``StoreUnavailable`` after the deadline) may still land when the database answers again, after the
    teacher's later states were published by the page's retries. Such a late state is dropped, and the
    call returns the class's version unchanged.

    Raises BadClassId, WrongKey (the key is not this class's), ClassNotFound, ClassGone (untouched
    for CLASS_TTL), BadState, StoreUnavailable."""
    _check_key(cid, write_key)
    keep_data = isinstance(state, Mapping) and state.get("data") is None
    clean = clean_state({**state, "data": "_"} if keep_data else state)
    store = store or get_store()
    made = store.clock() if made is None else float(made)

    def work():
        with store._guard("publish"):
            with store._tx(write=True) as db:
                now = store.clock()
                v_old, stored, _, stored_made = _owned_row(db, store, cid, write_key)
                if stored_made > made:      # a newer state of the teacher's is already there
                    return v_old, False
                v = v_old + 1
                if keep_data:   # a state without "data": the class stays on its data set
                    try:
                        clean["data"] = json.loads(stored).get("data")
                    except (ValueError, AttributeError):
                        clean["data"] = None
                    if not valid_data_key(clean["data"]):
                        raise BadState("data: a shipped data set's name or a share id")
                text = _dump(clean)
                db.execute("UPDATE nblab_classes SET state = ?, v = ?, updated = ?, made = ? WHERE id = ?",
                           (text, v, now, made, cid))
        return v, True
    v, changed = store._bounded("publish", work)
    if changed:
        _forget(cid)
    return v


def _owned_row(db, store: S.ShareStore, cid: str, write_key: str):
    """The class's row ``(v, state, updated, made)`` when ``write_key`` is its key (raises otherwise)."""
    row = db.execute("SELECT key_hash, v, updated, state, made FROM nblab_classes WHERE id = ?", (cid,)).fetchone()
    if row is None:
        raise ClassNotFound("This class is not on the server (it was closed or never opened).")
    if not hmac.compare_digest(str(row[0]), _sha(write_key)):
        raise WrongKey("This is not the class's write key.")
    if float(row[2]) < store.clock() - CLASS_TTL:
        raise ClassGone("This class was not used for 12 hours and was closed. Open a new one.")
    return int(row[1]), str(row[3]), float(row[2]), float(row[4])


def _check_key(cid, write_key) -> None:
    _check_cid(cid)
    if not isinstance(write_key, str) or not _KEY_RE.fullmatch(write_key):
        raise WrongKey("This is not the class's write key.")


def claim(cid: str, write_key: str, *, store: S.ShareStore | None = None) -> tuple[int, dict]:
    """The class ``cid`` for the holder of its write key, in a new session of the teacher (a reload,
    another tab, another app process): ``(v, state)`` as stored, the state cleaned as publish stores it.
    The class is touched (its students hear that their teacher is back). Raises like :func:`publish`."""
    _check_key(cid, write_key)
    store = store or get_store()

    def work():
        with store._guard("claim class"):
            with store._tx(write=True) as db:
                v, text, _, _ = _owned_row(db, store, cid, write_key)
                try:
                    state = clean_state(json.loads(text))
                except (ValueError, TypeError, BadState):
                    raise BadState("the stored state of this class cannot be read; open a new class") from None
                db.execute("UPDATE nblab_classes SET updated = ? WHERE id = ?", (store.clock(), cid))
        return v, state
    got = store._bounded("claim class", work)
    _forget(cid)
    return got


def touch(cid: str, write_key: str, *, store: S.ShareStore | None = None) -> int:
    """The teacher's page is still open (called every HEARTBEAT seconds): the class is not away, and its
    12 hours start again. Returns the class's version (unchanged). Raises like :func:`publish`."""
    _check_key(cid, write_key)
    store = store or get_store()

    def work():
        with store._guard("touch class"):
            with store._tx(write=True) as db:
                v, _, updated, _ = _owned_row(db, store, cid, write_key)
                now = store.clock()
                db.execute("UPDATE nblab_classes SET updated = ? WHERE id = ?", (now, cid))
        return v, now - updated >= AWAY_AFTER
    v, was_away = store._bounded("touch class", work)
    if was_away:   # the students read "away" from the cache until it expires: not after the teacher is back
        _forget(cid)
    return v


# ---- reading (the students), through a per-process cache -----------------------------------------

_CACHE: "OrderedDict[tuple[int, str], tuple[float, Any]]" = OrderedDict()
_MISSES: "OrderedDict[tuple[int, str], tuple[float, Any]]" = OrderedDict()
_CACHE_LOCK = threading.Lock()
_FETCH_LOCKS: dict[tuple[int, str], threading.Lock] = {}
_DB_READS: dict[int, int] = {}


def db_reads(store: S.ShareStore) -> int:
    """How many reads this process sent to ``store``'s database (tests check the cache with it). Counted
    per store, so a reader of another store (another test's server thread) does not move the count."""
    return _DB_READS.get(id(store), 0)


def clear_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()
        _MISSES.clear()


def _forget(cid: str) -> None:
    with _CACHE_LOCK:
        for cache in (_CACHE, _MISSES):
            for k in [k for k in cache if k[1] == cid]:
                del cache[k]


def _read_db(store: S.ShareStore, cid: str) -> tuple[int, bytes]:
    def work():
        with store._guard("read class"):
            with store._tx(write=False) as db:
                row = db.execute("SELECT v, state, updated FROM nblab_classes WHERE id = ?", (cid,)).fetchone()
        with _CACHE_LOCK:
            _DB_READS[id(store)] = _DB_READS.get(id(store), 0) + 1
        if row is None:
            raise ClassNotFound("This class is not on the server (it was closed or never opened).")
        now = store.clock()
        if float(row[2]) < now - CLASS_TTL:
            raise ClassGone("This class was not used for 12 hours and was closed.")
        return int(row[0]), state_bytes(cid, int(row[0]), str(row[1]), away=float(row[2]) < now - AWAY_AFTER)
    return store._bounded("read class", work)


def peek(cid: str, *, store: S.ShareStore | None = None) -> tuple[int, bytes] | None:
    """What :func:`read` would answer from this process's cache without asking the database (an event
    loop may call it directly), or None when it would have to ask. Raises like :func:`read` for a class
    the cache knows is missing or gone."""
    if not valid_class_id(cid):
        raise BadClassId("This class link is not valid.")
    if store is None:
        with _STORE_LOCK:
            if len(_STORES) != 1:
                return None
            store = next(iter(_STORES.values()))
    with _CACHE_LOCK:
        hit = _CACHE.get((id(store), cid)) or _MISSES.get((id(store), cid))
    if hit is None or time.monotonic() - hit[0] >= READ_TTL:
        return None
    return _answer(hit[1])


def read(cid: str, *, store: S.ShareStore | None = None) -> tuple[int, bytes]:
    """``(v, state.json bytes)`` of a class, at most READ_TTL seconds old.

    Raises BadClassId (before any query), ClassNotFound, ClassGone, StoreUnavailable. Within one
    process, concurrent readers of one class wait for a single database read."""
    _check_cid(cid)
    store = store or get_store()
    ck = (id(store), cid)
    now = time.monotonic()
    with _CACHE_LOCK:
        hit = _CACHE.get(ck) or _MISSES.get(ck)
        if hit is not None and now - hit[0] < READ_TTL:
            return _answer(hit[1])
        lock = _FETCH_LOCKS.setdefault(ck, threading.Lock())
    with lock:
        with _CACHE_LOCK:   # another reader may have fetched it meanwhile
            hit = _CACHE.get(ck) or _MISSES.get(ck)
            if hit is not None and time.monotonic() - hit[0] < READ_TTL:
                return _answer(hit[1])
        t0 = time.monotonic()
        try:
            got: Any = _read_db(store, cid)
        except (ClassNotFound, ClassGone, BadState) as e:   # a corrupted row, too, is one read per READ_TTL
            got = e
        with _CACHE_LOCK:
            cache, size, other = ((_MISSES, MISS_ENTRIES, _CACHE) if isinstance(got, Exception)
                                  else (_CACHE, CACHE_ENTRIES, _MISSES))
            other.pop(ck, None)
            cache[ck] = (t0, got)
            cache.move_to_end(ck)
            while len(cache) > size:
                cache.popitem(last=False)
            _FETCH_LOCKS.pop(ck, None)
    return _answer(got)


def _answer(got):
    if isinstance(got, Exception):
        raise type(got)(str(got))
    return got
