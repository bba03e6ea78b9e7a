"""Shared data sets: a teacher's upload kept on the server under an unguessable id.

A share is the uploaded file's bytes plus the options it was read with (a JSON
object of plain values). The dashboard stores it when a teacher presses "Share this
data set" and puts ``data=<id>`` in the URL; whoever opens that URL gets the same
file read the same way (re-validated exactly like an upload, see dashboard/data/sharing.py).

Two backends behind one small interface (:class:`ShareStore`):

* SQLite (default): one file in a directory (``NBLAB_STORE_DIR``, default
  ``~/.local/share/nblab``), WAL mode, every write in ``BEGIN IMMEDIATE``, so several
  server processes on one machine can use the same file.
* PostgreSQL: ``NBLAB_STORE_URL=postgresql://user:pw@host/db`` for replicas on
  several machines (psycopg 3 with a small connection pool).

The same database holds the open classes (table ``nblab_classes``: a teacher's lesson state that the
class link's students follow); dashboard/classroom/store.py reads and writes it with this module's
transactions, deadlines and error handling.

Limits (:class:`Limits`, all configurable): bytes per file, bytes in the whole store,
time to live since a share was last opened, shares per hour from one client (its network
address, else its browser session) and shares per hour on the whole server. When the store
is full the least-recently-used share is evicted first, but never one opened or created in
the last 24 hours (``keep_recent_seconds``): if only such shares could make room, the new
share is refused instead, so nobody can push out a data set a class is using.

Failures of the database itself are written to the server log (logger ``dashboard.data.store``)
with their details; the user gets a short message without server paths.

Security: ids are ``secrets.token_urlsafe(18)`` (144 random bits, 24 characters of
``[A-Za-z0-9_-]``), never a path, never sequential; an id that is not exactly that
shape is refused before any query. The one-time delete secret is a second random
token of which only the SHA-256 is stored. There is no call that lists shares.
Nothing in this package imports Streamlit; nothing stored is ever executed.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import os
import re
import secrets
import threading
import time
from abc import ABC, abstractmethod
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping

__all__ = [
    "ID_BYTES", "Limits", "Share", "Receipt", "ShareStore", "ShareError", "BadId", "NotFound", "Gone",
    "TooBig", "RateLimited", "StoreFull", "StoreUnavailable", "StoreDamaged", "valid_id", "settings",
    "open_store", "describe_limits",
]

log = logging.getLogger(__name__)

ID_BYTES = 18                     # 144 random bits -> 24 url-safe characters
ID_LEN = 24
_ID_RE = re.compile(r"[A-Za-z0-9_-]{%d}" % ID_LEN)
_SECRET_RE = re.compile(r"[A-Za-z0-9_-]{20,64}")
TOUCH_EVERY = 60.0                # seconds: last_used is rewritten at most this often per share
GONE_KEEP = 400 * 86400.0         # tombstones ("expired", "deleted") are kept this long
MAX_OPTIONS_CHARS = 4000          # the JSON of the reading options
MAX_NAME_CHARS = 120
MB = 1024 * 1024

#: Seconds any one store call may take, whatever the database does: a page that opens a class link
#: while the database is stopped, frozen or holding a lock shows its notice within this (plus the
#: page's own work), inside 3 s. The databases' own timeouts (see the backends) are shorter still.
CALL_TIMEOUT = 2.5
#: Store calls that may be running at once per store (each in a thread until the database answers).
MAX_STALLED = 16
#: After a call waited out its whole deadline, calls fail at once for this many seconds (then try again).
STALL_PAUSE = 3.0
_STALLED_LOCK = threading.Lock()

REASONS = {
    "expired": "it was not opened for {ttl} and was removed",
    "evicted": "the server's store was full and it was the least recently used data set",
    "deleted": "the person who shared it deleted it",
}


# ---- errors (every one carries a message a teacher can act on) ---------------------------------

class ShareError(Exception):
    """A share that cannot be made or opened; ``str(e)`` is the message for the user."""


class BadId(ShareError):
    pass


class NotFound(ShareError):
    pass


class Gone(ShareError):
    """The share existed but was removed (expired, evicted, deleted)."""

    def __init__(self, msg: str, reason: str):
        super().__init__(msg)
        self.reason = reason


class TooBig(ShareError):
    pass


class RateLimited(ShareError):
    pass


class StoreFull(ShareError):
    """The store has no room that could be made without removing recently used shares."""


class StoreUnavailable(ShareError):
    pass


class StoreDamaged(StoreUnavailable):
    """The store's database is corrupt: waiting does not help, a person has to repair it."""


#: Shown when the database cannot be reached or used for a moment (details go to the log).
UNAVAILABLE_MSG = ("The server's data store is not available right now, so shared data sets cannot be opened "
                   "or made. Try again in a minute; if it keeps happening, tell the server's administrator "
                   "(the details are in the server log).")
#: Shown when the database is corrupt: no retry advice, it does not heal by itself.
DAMAGED_MSG = ("The server's data store is damaged, so shared data sets cannot be opened or made on this "
               "server. This will not fix itself: the teacher or the server's administrator has to repair "
               "or replace the store (the details are in the server log).")


# ---- limits and records ---------------------------------------------------------------------

#: The per-file default: the upload limit (nblab.limits.UPLOAD_MAX_BYTES, 5 MB; a test keeps them equal).
DEFAULT_FILE_BYTES = 5 * MB


@dataclass(frozen=True)
class Limits:
    """How much the store keeps. Defaults: 5 MB per file (the upload limit), 500 MB in
    all, 30 days since last opened, 10 shares per hour from one client (network address,
    else browser session), 100 shares per hour on the whole server, and a share opened or
    created in the last 24 hours is never evicted to make room."""
    max_file_bytes: int = DEFAULT_FILE_BYTES
    max_total_bytes: int = 500 * MB
    ttl_seconds: float = 30 * 86400.0
    shares_per_hour: int = 10
    store_shares_per_hour: int = 100
    keep_recent_seconds: float = 86400.0
    #: opening a share keeps it safe from eviction only within this long after it was made: a share
    #: opened every day is not kept forever by its openings, so nobody can keep the store full
    keep_opened_max_seconds: float = 7 * 86400.0
    #: bytes one client (address, or share key holder) may have in the store at once
    owner_max_bytes: int = 100 * MB

    def __post_init__(self):
        if self.max_file_bytes <= 0 or self.max_total_bytes <= 0 or self.ttl_seconds <= 0 or self.shares_per_hour < 0:
            raise ValueError("store limits must be positive")
        if self.store_shares_per_hour < 0 or not self.keep_recent_seconds >= 0:
            raise ValueError("store limits must be positive")
        if not self.keep_opened_max_seconds >= 0 or self.owner_max_bytes <= 0:
            raise ValueError("store limits must be positive")


def _fmt_bytes(n: float) -> str:
    if n >= MB:
        return f"{n / MB:g} MB" if float(n / MB).is_integer() else f"{n / MB:.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{int(n)} bytes"


def _fmt_duration(s: float) -> str:
    if s >= 86400 and (s / 86400) >= 2:
        return f"{s / 86400:g} days"
    if s >= 3600:
        return f"{s / 3600:g} hours"
    if s >= 60:
        return f"{s / 60:g} minutes"
    return f"{s:g} seconds"


def describe_limits(limits: Limits) -> str:
    """One sentence for the UI and the README."""
    return (f"Shared files: at most {_fmt_bytes(limits.max_file_bytes)} each, "
            f"{_fmt_bytes(limits.max_total_bytes)} on this server in all; a shared data set is removed "
            f"after {_fmt_duration(limits.ttl_seconds)} without being opened (the least recently used goes first "
            f"when the store is full, but never one made in the last {_fmt_duration(limits.keep_recent_seconds)}, nor "
            f"one opened in that time during its first {_fmt_duration(limits.keep_opened_max_seconds)}: then a new "
            f"share is refused instead); {_fmt_bytes(limits.owner_max_bytes)} in all from one computer; at most {limits.shares_per_hour} shares per hour from one "
            f"computer and {limits.store_shares_per_hour} per hour on this server in all.")


@dataclass(frozen=True)
class Share:
    """What the store knows about one share (without the file's bytes)."""
    id: str
    name: str
    options: dict
    size: int
    sha256: str
    created: float
    last_used: float


@dataclass(frozen=True)
class Receipt:
    """Returned once, to the sharer: the id and the one-time delete secret."""
    share: Share
    delete_secret: str

    @property
    def id(self) -> str:
        return self.share.id


def valid_id(share_id) -> bool:
    return isinstance(share_id, str) and _ID_RE.fullmatch(share_id) is not None


def _check_id(share_id) -> str:
    if not valid_id(share_id):
        raise BadId("This link's data id is not valid (it may have been cut off when it was copied). "
                    "Ask for the link again; the default lesson is shown meanwhile.")
    return share_id


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def clean_name(name) -> str:
    """A display name: printable characters only, at most MAX_NAME_CHARS, never a path."""
    s = "".join(ch for ch in str(name or "") if ch.isprintable())
    s = s.replace("/", "_").replace("\\", "_").strip() or "shared data"
    return s[:MAX_NAME_CHARS]


def _options_json(options: Mapping | None) -> str:
    """Reading options as canonical JSON of plain values (str, int, float, bool, None, lists)."""
    def plain(v, depth=0):
        if depth > 3:
            raise ValueError("reading options nest too deeply")
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            if not math.isfinite(v):
                raise ValueError("reading options must be finite numbers")
            return v
        if isinstance(v, (list, tuple)):
            return [plain(x, depth + 1) for x in v]
        if isinstance(v, Mapping):
            return {str(k): plain(x, depth + 1) for k, x in v.items()}
        raise ValueError(f"reading option of type {type(v).__name__} cannot be stored")
    text = json.dumps(plain(dict(options or {})), sort_keys=True, separators=(",", ":"))
    if len(text) > MAX_OPTIONS_CHARS:
        raise ValueError("reading options are too long to store")
    return text


# ---- the interface and the logic both backends share ----------------------------------------

_META = "id, name, options, size, sha256, created, last_used"


class ShareStore(ABC):
    """Stores shares; backends only say how to open a transaction (``_tx``) and create the schema.

    All SQL below uses ``?`` placeholders (translated by backends that need ``%s``) and
    standard types, so the same statements run on SQLite and PostgreSQL."""

    def __init__(self, limits: Limits | None = None, clock: Callable[[], float] = time.time,
                 deadline: float | None = None):
        self.limits = limits or Limits()
        self.clock = clock
        self.deadline = CALL_TIMEOUT if deadline is None else (deadline or None)   # 0: no deadline
        self._waiting = 0   # calls running in their own thread right now
        self._stalled_until = 0.0   # time.monotonic() until which calls fail at once (after a stall)

    # backend hooks
    @abstractmethod
    @contextmanager
    def _tx(self, write: bool) -> Iterator:
        """A transaction; yields an object with ``execute(sql, params) -> cursor``.
        ``write=True`` must serialise writers (the store's eviction reads then deletes)."""

    def close(self) -> None:  # pragma: no cover - trivial
        pass

    @property
    @abstractmethod
    def kind(self) -> str:
        ...

    # public API
    def _put(self, name: str, data: bytes, options: Mapping | None = None, owner: str = "") -> Receipt:
        """Store a file; returns the id and the one-time delete secret.

        ``owner`` names the client (its network address, else its session); only its hash is
        stored. Raises TooBig (file over the per-file or total limit), RateLimited (too many
        shares from ``owner``, or on the whole server, in the last hour), StoreFull (room could
        only be made by removing shares used in the last ``keep_recent_seconds``) or
        StoreUnavailable. Expired shares are removed, then least-recently-used ones (not used
        recently) until the new file fits."""
        data = bytes(data)
        lim = self.limits
        size = len(data)
        if size == 0:
            raise TooBig("The file is empty; there is nothing to share.")
        if size > lim.max_file_bytes or size > lim.max_total_bytes:
            cap = min(lim.max_file_bytes, lim.max_total_bytes)
            raise TooBig(f"The file is {_fmt_bytes(size)}; shared files may be at most {_fmt_bytes(cap)} "
                         "on this server. Share a smaller sample of the rows.")
        opts = _options_json(options)
        name = clean_name(name)
        owner_h = _sha("owner:" + str(owner))
        share_id = secrets.token_urlsafe(ID_BYTES)
        secret = secrets.token_urlsafe(24)
        with self._guard("put"):
            with self._tx(write=True) as db:
                now = self.clock()
                db.execute("DELETE FROM nblab_share_log WHERE at < ?", (now - 3600.0,))
                if lim.shares_per_hour == 0 or lim.store_shares_per_hour == 0:
                    raise RateLimited("Sharing is turned off on this server (its limit is 0 shares per hour).")
                # per client: its address (or session) may share shares_per_hour files an hour
                n_own, first_own = db.execute("SELECT COUNT(*), MIN(at) FROM nblab_share_log WHERE owner = ?",
                                              (owner_h,)).fetchone()
                if int(n_own) >= lim.shares_per_hour:
                    raise RateLimited(f"{int(n_own)} data sets were shared from this computer in the last hour "
                                      f"(the limit is {lim.shares_per_hour}). Try again in about "
                                      f"{self._wait_minutes(first_own, now)} minutes, or use a link you "
                                      "already made.")
                # whole server: however many clients there are, the store takes this many an hour
                n_all, first_all = db.execute("SELECT COUNT(*), MIN(at) FROM nblab_share_log").fetchone()
                if int(n_all) >= lim.store_shares_per_hour:
                    log.warning("share refused: %d shares on this server in the last hour (limit %d)",
                                int(n_all), lim.store_shares_per_hour)
                    raise RateLimited(f"{int(n_all)} data sets were shared on this server in the last hour, "
                                      f"which is its limit for everyone together "
                                      f"({lim.store_shares_per_hour} an hour). Try again in about "
                                      f"{self._wait_minutes(first_all, now)} minutes, or use a link you "
                                      "already made.")
                held = int(db.execute("SELECT COALESCE(SUM(size), 0) FROM nblab_shares WHERE owner = ?",
                                      (owner_h,)).fetchone()[0])
                if held + size > lim.owner_max_bytes:
                    raise StoreFull(f"Files shared from this computer already take {_fmt_bytes(held)} on this "
                                    f"server, and one client may keep at most {_fmt_bytes(lim.owner_max_bytes)}. "
                                    "Delete a shared data set you no longer need (its delete link), or share "
                                    "a smaller sample of the rows.")
                self._evict(db, now, need=size)
                db.execute(f"INSERT INTO nblab_shares ({_META}, data, delete_hash, owner) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (share_id, name, opts, size, _sha(data), now, now, data, _sha(secret), owner_h))
                db.execute("INSERT INTO nblab_share_log (owner, at) VALUES (?, ?)", (owner_h, now))
        share = Share(share_id, name, json.loads(opts), size, _sha(data), now, now)
        return Receipt(share, secret)

    @staticmethod
    def _wait_minutes(first_at, now: float) -> int:
        """Minutes until the oldest share of the last hour leaves the hourly window."""
        return max(1, math.ceil((float(first_at) + 3600.0 - now) / 60.0)) if first_at is not None else 60

    def _lookup(self, share_id: str) -> Share:
        """The share's metadata (not its bytes); marks it as used (at most every TOUCH_EVERY s).

        Raises BadId (not an id), NotFound, Gone (expired / evicted / deleted) or StoreUnavailable."""
        _check_id(share_id)
        with self._guard("lookup"):
            with self._tx(write=False) as db:
                row = db.execute(f"SELECT {_META} FROM nblab_shares WHERE id = ?", (share_id,)).fetchone()
                if row is None:
                    gone = db.execute("SELECT reason FROM nblab_gone WHERE id_hash = ?",
                                      (_sha("id:" + share_id),)).fetchone()
            now = self.clock()
            if row is None:
                if gone is not None:
                    raise self._gone(gone[0])
                raise NotFound("No shared data set has this link's id (it may be mistyped, or it was never "
                               "shared on this server). The default lesson is shown instead.")
            share = self._share(row)
            if now - share.last_used > self.limits.ttl_seconds:
                with self._tx(write=True) as db:
                    self._remove(db, [share_id], "expired", now)
                raise self._gone("expired")
            if now - share.last_used > TOUCH_EVERY:
                with self._tx(write=True) as db:
                    db.execute("UPDATE nblab_shares SET last_used = ? WHERE id = ? AND last_used < ?",
                               (now, share_id, now))
        return share

    def _read(self, share_id: str) -> bytes:
        """The stored file's bytes (call lookup() first: read() does not touch or expire)."""
        _check_id(share_id)
        with self._guard("read"):
            with self._tx(write=False) as db:
                row = db.execute("SELECT data FROM nblab_shares WHERE id = ?", (share_id,)).fetchone()
        if row is None:
            raise NotFound("The shared data set was removed while it was being opened. The default lesson "
                           "is shown instead.")
        return bytes(row[0])

    def _delete(self, share_id: str, secret: str) -> bool:
        """Delete a share if ``secret`` is its delete secret. A wrong secret (or an unknown
        id) changes nothing and returns False; each secret works once."""
        if not valid_id(share_id) or not isinstance(secret, str) or not _SECRET_RE.fullmatch(secret):
            return False
        with self._guard("delete"):
            with self._tx(write=True) as db:
                row = db.execute("SELECT delete_hash FROM nblab_shares WHERE id = ?", (share_id,)).fetchone()
                if row is None or not hmac.compare_digest(str(row[0]), _sha(secret)):
                    return False
                self._remove(db, [share_id], "deleted", self.clock())
        return True

    def _evict_now(self) -> int:
        with self._guard("evict"):
            with self._tx(write=True) as db:
                return self._evict(db, self.clock(), need=0)

    def _usage(self) -> tuple[int, int]:
        with self._guard("usage"):
            with self._tx(write=False) as db:
                n, total = db.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM nblab_shares").fetchone()
        return int(n), int(total)

    # public API: every call has a deadline (CALL_TIMEOUT), whatever the database does
    def put(self, name: str, data: bytes, options: Mapping | None = None, owner: str = "") -> Receipt:
        """Store a file (see :meth:`_put`); raises ShareError subclasses with a message."""
        return self._bounded("put", self._put, name, data, options, owner)

    def lookup(self, share_id: str) -> Share:
        """The share's metadata, marked as used (see :meth:`_lookup`)."""
        return self._bounded("lookup", self._lookup, share_id)

    def read(self, share_id: str) -> bytes:
        """The stored file's bytes (see :meth:`_read`)."""
        return self._bounded("read", self._read, share_id)

    def delete(self, share_id: str, secret: str) -> bool:
        """Delete with the one-time secret (see :meth:`_delete`)."""
        return self._bounded("delete", self._delete, share_id, secret)

    def evict(self) -> int:
        """Remove expired shares now (put() does this too). Returns how many were removed."""
        return self._bounded("evict", self._evict_now)

    def usage(self) -> tuple[int, int]:
        """(number of shares, bytes stored): for the operator and tests, never shown to students."""
        return self._bounded("usage", self._usage)

    def _bounded(self, op: str, fn, *args):
        """``fn(*args)`` with a deadline of ``self.deadline`` seconds. The database's own timeouts
        (PostgreSQL's statement_timeout and lock_timeout, SQLite's busy timeout) end most waits,
        but not a server that stopped answering mid-call (frozen, or gone without closing its
        socket: a Unix socket has no TCP timeout). So the call runs in a thread of its own and the
        page gets StoreUnavailable when the deadline passes; the abandoned thread finishes (and
        gives its connection back) whenever the database answers. At most MAX_STALLED calls may be
        waiting at once: beyond that a call fails at once instead of starting another thread."""
        if self.deadline is None:
            return fn(*args)
        if time.monotonic() < self._stalled_until:
            # a call just waited out the whole deadline: for a few seconds, answer at once rather than
            # make every page (queued behind one another on a cache's lock) wait the deadline again
            raise StoreUnavailable(UNAVAILABLE_MSG)
        with _STALLED_LOCK:
            busy = self._waiting
            if busy < MAX_STALLED:
                self._waiting += 1
        if busy >= MAX_STALLED:
            log.error("share store %r: %s refused at once: %d earlier calls are still waiting for the "
                      "database", self, op, busy)
            raise StoreUnavailable(UNAVAILABLE_MSG)
        box: dict = {}
        done = threading.Event()

        def work():
            try:
                box["value"] = fn(*args)
            except BaseException as e:  # noqa: BLE001 - handed to the caller below
                box["error"] = e
            finally:
                with _STALLED_LOCK:
                    self._waiting -= 1
                done.set()

        threading.Thread(target=work, name=f"nblab-store-{op}", daemon=True).start()
        if not done.wait(self.deadline):
            self._stalled_until = time.monotonic() + STALL_PAUSE
            log.error("share store %r: %s did not finish within %g s (the database does not answer); "
                      "the page was answered without it", self, op, self.deadline)
            raise StoreUnavailable(UNAVAILABLE_MSG)
        if "error" in box:
            raise box["error"]
        return box["value"]

    # helpers
    def _gone(self, reason: str) -> Gone:
        why = REASONS.get(reason, "it was removed").format(ttl=_fmt_duration(self.limits.ttl_seconds))
        return Gone(f"This shared data set is no longer on the server: {why}. Ask for a new link; the "
                    "default lesson is shown instead.", reason)

    @staticmethod
    def _share(row) -> Share:
        sid, name, opts, size, sha, created, last_used = row
        try:
            options = json.loads(opts)
        except (TypeError, ValueError):
            options = {}
        return Share(str(sid), str(name), options if isinstance(options, dict) else {}, int(size), str(sha),
                     float(created), float(last_used))

    def _remove(self, db, ids: list[str], reason: str, now: float) -> None:
        for sid in ids:
            db.execute("DELETE FROM nblab_shares WHERE id = ?", (sid,))
            h = _sha("id:" + sid)
            db.execute("DELETE FROM nblab_gone WHERE id_hash = ?", (h,))
            db.execute("INSERT INTO nblab_gone (id_hash, reason, at) VALUES (?, ?, ?)", (h, reason, now))

    def _evict(self, db, now: float, need: int) -> int:
        lim = self.limits
        db.execute("DELETE FROM nblab_gone WHERE at < ?", (now - GONE_KEEP,))
        old = [r[0] for r in db.execute("SELECT id FROM nblab_shares WHERE last_used < ?",
                                        (now - lim.ttl_seconds,)).fetchall()]
        self._remove(db, old, "expired", now)
        removed = len(old)
        total = int(db.execute("SELECT COALESCE(SUM(size), 0) FROM nblab_shares").fetchone()[0])
        if total + need > lim.max_total_bytes:
            # Only shares neither opened nor created within keep_recent_seconds may make room
            # (least recently used first): a link a class opened today keeps working.
            # A share opened recently is safe only within keep_opened_max_seconds of being made, so
            # opening shares every day cannot keep the store full for ever.
            recent = now - lim.keep_recent_seconds
            made_long_ago = now - lim.keep_opened_max_seconds
            victims = []
            for sid, size in db.execute("SELECT id, size FROM nblab_shares WHERE created < ? AND "
                                        "(last_used < ? OR created < ?) ORDER BY last_used, created",
                                        (recent, recent, made_long_ago)).fetchall():
                if total + need <= lim.max_total_bytes:
                    break
                victims.append(sid)
                total -= int(size)
            if need and total + need > lim.max_total_bytes:
                # not enough room even without every older share: remove nothing, refuse the new one
                log.warning("share refused: the store is full (%d bytes in use, limit %d, %d bytes asked) and "
                            "only shares used in the last %g s could make room",
                            total, lim.max_total_bytes, need, lim.keep_recent_seconds)
                raise StoreFull(
                    f"The server's store for shared data sets is full ({_fmt_bytes(lim.max_total_bytes)}), and "
                    f"room for this file could only be made by removing data sets that were opened or shared in "
                    f"the last {_fmt_duration(lim.keep_recent_seconds)}, which are kept for the classes using "
                    "them. Share a smaller sample of the rows, or try again tomorrow; the server's administrator "
                    "can raise the store's size limit (NBLAB_STORE_MAX_MB).")
            self._remove(db, victims, "evicted", now)
            removed += len(victims)
        return removed

    def _damaged(self, error: BaseException) -> bool:
        """Whether a driver error means the database itself is corrupt (backends say how)."""
        return False

    @contextmanager
    def _guard(self, op: str = "operation"):
        """Driver errors become a short message for the user (StoreDamaged for a corrupt
        database, else StoreUnavailable: locked file, lost connection, full disk) and a log
        record with the details and the traceback for the administrator."""
        try:
            yield
        except ShareError:
            raise
        except Exception as e:  # sqlite3.Error / psycopg.Error / OSError
            if self._damaged(e):
                log.error("share store %r: %s failed, the database is damaged: %s: %s",
                          self, op, type(e).__name__, e, exc_info=True)
                raise StoreDamaged(DAMAGED_MSG) from e
            log.error("share store %r: %s failed: %s: %s", self, op, type(e).__name__, e, exc_info=True)
            raise StoreUnavailable(UNAVAILABLE_MSG) from e


SCHEMA = """
CREATE TABLE IF NOT EXISTS nblab_shares (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    options TEXT NOT NULL,
    size BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    last_used DOUBLE PRECISION NOT NULL,
    data {blob} NOT NULL,
    delete_hash TEXT NOT NULL,
    owner TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS nblab_shares_last_used ON nblab_shares (last_used);
CREATE TABLE IF NOT EXISTS nblab_share_log (
    owner TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS nblab_share_log_owner ON nblab_share_log (owner, at);
CREATE INDEX IF NOT EXISTS nblab_share_log_at ON nblab_share_log (at);
CREATE TABLE IF NOT EXISTS nblab_gone (
    id_hash TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS nblab_classes (
    id TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL,
    owner TEXT NOT NULL,
    state TEXT NOT NULL,
    v BIGINT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS nblab_classes_updated ON nblab_classes (updated);
CREATE INDEX IF NOT EXISTS nblab_classes_owner ON nblab_classes (owner, created);
"""


def schema_statements(blob: str) -> list[str]:
    return [s.strip() for s in SCHEMA.format(blob=blob).split(";") if s.strip()]


# ---- configuration ----------------------------------------------------------------------------

ENV = {
    "store_url": "NBLAB_STORE_URL",
    "store_dir": "NBLAB_STORE_DIR",
    "share_max_mb": "NBLAB_SHARE_MAX_MB",
    "store_max_mb": "NBLAB_STORE_MAX_MB",
    "share_ttl_days": "NBLAB_SHARE_TTL_DAYS",
    "shares_per_hour": "NBLAB_SHARES_PER_HOUR",
    "store_shares_per_hour": "NBLAB_STORE_SHARES_PER_HOUR",
    "share_keep_hours": "NBLAB_SHARE_KEEP_HOURS",
    "share_keep_opened_days": "NBLAB_SHARE_KEEP_OPENED_DAYS",
    "owner_max_mb": "NBLAB_SHARE_OWNER_MAX_MB",
}
SQLITE_FILE = "shares.sqlite3"


def default_store_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "nblab"


def settings(env: Mapping[str, str] | None = None, secrets_: Mapping | None = None) -> tuple[str, Limits]:
    """(store URL, limits) from environment variables, else a ``[nblab]`` table of Streamlit
    secrets (same names in lower case: store_url, store_dir, share_max_mb, store_max_mb,
    share_ttl_days, shares_per_hour, store_shares_per_hour, share_keep_hours), else the
    defaults. Bad values raise ValueError."""
    env = os.environ if env is None else env
    sec = dict(secrets_ or {})

    def get(key):
        v = env.get(ENV[key])
        if v in (None, ""):
            v = sec.get(key)
        return None if v in (None, "") else v

    def num(key, default, scale, minimum):
        v = get(key)
        if v is None:
            return default * scale
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"{ENV[key]} must be a number, not {v!r}") from None
        if not math.isfinite(x) or x < minimum:
            raise ValueError(f"{ENV[key]} must be at least {minimum:g}, not {v!r}")
        return x * scale

    d = Limits()
    limits = Limits(
        max_file_bytes=int(num("share_max_mb", d.max_file_bytes / MB, MB, 0.001)),
        max_total_bytes=int(num("store_max_mb", d.max_total_bytes / MB, MB, 0.001)),
        ttl_seconds=float(num("share_ttl_days", d.ttl_seconds / 86400.0, 86400.0, 1e-6)),
        shares_per_hour=int(num("shares_per_hour", d.shares_per_hour, 1.0, 0)),
        store_shares_per_hour=int(num("store_shares_per_hour", d.store_shares_per_hour, 1.0, 0)),
        keep_recent_seconds=float(num("share_keep_hours", d.keep_recent_seconds / 3600.0, 3600.0, 0)),
        keep_opened_max_seconds=float(num("share_keep_opened_days", d.keep_opened_max_seconds / 86400.0,
                                          86400.0, 0)),
        owner_max_bytes=int(num("owner_max_mb", d.owner_max_bytes / MB, MB, 0.001)),
    )
    url = get("store_url")
    if url is None:
        directory = Path(get("store_dir") or default_store_dir()).expanduser()
        url = "sqlite:///" + str((directory / SQLITE_FILE).resolve())
    return str(url), limits


def open_store(url: str | None = None, limits: Limits | None = None,
               clock: Callable[[], float] = time.time) -> ShareStore:
    """Open the store a URL names: ``sqlite:///abs/path/file.sqlite3`` or ``postgresql://...``
    (``postgres://`` too). With no URL, :func:`settings` decides (environment, default SQLite)."""
    if url is None:
        url, env_limits = settings()
        limits = limits or env_limits
    if url.startswith("sqlite:///"):
        from .sqlite import SQLiteStore
        return SQLiteStore(url[len("sqlite:///"):], limits=limits, clock=clock)  # sqlite:////abs/path, sqlite:///rel
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresStore
        return PostgresStore(url, limits=limits, clock=clock)
    raise ValueError("The store URL must start with sqlite:/// (a file) or postgresql:// (a server).")
