"""The store's interface and the logic both backends share (:class:`ShareStore`).

A backend says only how to open a transaction (``_tx``), how to create the schema and which driver
errors mean a corrupt database; everything else is here: the limits on what is shared, eviction,
tombstones, the one-time delete secret, a deadline on every call (``_bounded``) and the translation
of driver errors into a short message for the user (``_guard``).

Failures of the database are logged under the package's logger, ``dashboard.data.store``, the name
the serving guide tells administrators to watch.
"""
from __future__ import annotations

import hmac
import json
import logging
import math
import secrets
import threading
import time
from abc import ABC, abstractmethod
from contextlib import contextmanager
from typing import Callable, Iterator, Mapping

from .errors import (
    DAMAGED_MSG,
    UNAVAILABLE_MSG,
    Gone,
    NotFound,
    RateLimited,
    ShareError,
    StoreDamaged,
    StoreFull,
    StoreUnavailable,
    TooBig,
)
from .limits import Limits, fmt_bytes, fmt_duration
from .records import ID_BYTES, Receipt, Share, check_id, clean_name, options_json, sha, valid_id, valid_secret

__all__ = ["ShareStore", "CALL_TIMEOUT", "MAX_STALLED", "STALL_PAUSE", "TOUCH_EVERY", "GONE_KEEP", "REASONS"]

log = logging.getLogger(__package__)

TOUCH_EVERY = 60.0                # seconds: last_used is rewritten at most this often per share
GONE_KEEP = 400 * 86400.0         # tombstones ("expired", "deleted") are kept this long

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
        size = len(data)
        self._check_size(size)
        opts = options_json(options)
        name = clean_name(name)
        owner_h = sha("owner:" + str(owner))
        share_id = secrets.token_urlsafe(ID_BYTES)
        secret = secrets.token_urlsafe(24)
        with self._guard("put"):
            with self._tx(write=True) as db:
                now = self.clock()
                db.execute("DELETE FROM nblab_share_log WHERE at < ?", (now - 3600.0,))
                self._check_quota(db, owner_h, size, now)
                self._evict(db, now, need=size)
                db.execute(f"INSERT INTO nblab_shares ({_META}, data, delete_hash, owner) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (share_id, name, opts, size, sha(data), now, now, data, sha(secret), owner_h))
                db.execute("INSERT INTO nblab_share_log (owner, at) VALUES (?, ?)", (owner_h, now))
        share = Share(share_id, name, json.loads(opts), size, sha(data), now, now)
        return Receipt(share, secret)

    def _check_size(self, size: int) -> None:
        """TooBig for an empty file or one over the per-file or total limit."""
        lim = self.limits
        if size == 0:
            raise TooBig("The file is empty; there is nothing to share.")
        if size > lim.max_file_bytes or size > lim.max_total_bytes:
            cap = min(lim.max_file_bytes, lim.max_total_bytes)
            raise TooBig(f"The file is {fmt_bytes(size)}; shared files may be at most {fmt_bytes(cap)} "
                         "on this server. Share a smaller sample of the rows.")

    def _check_quota(self, db, owner_h: str, size: int, now: float) -> None:
        """Inside put's write transaction: RateLimited when ``owner_h`` (the owner's hash) or the
        whole server shared its hourly number of files, StoreFull when the owner's files and this
        one (``size`` bytes) would hold more than one client may keep."""
        lim = self.limits
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
            raise StoreFull(f"Files shared from this computer already take {fmt_bytes(held)} on this "
                            f"server, and one client may keep at most {fmt_bytes(lim.owner_max_bytes)}. "
                            "Delete a shared data set you no longer need (its delete link), or share "
                            "a smaller sample of the rows.")

    @staticmethod
    def _wait_minutes(first_at, now: float) -> int:
        """Minutes until the oldest share of the last hour leaves the hourly window."""
        return max(1, math.ceil((float(first_at) + 3600.0 - now) / 60.0)) if first_at is not None else 60

    def _lookup(self, share_id: str) -> Share:
        """The share's metadata (not its bytes); marks it as used (at most every TOUCH_EVERY s).

        Raises BadId (not an id), NotFound, Gone (expired / evicted / deleted) or StoreUnavailable."""
        check_id(share_id)
        with self._guard("lookup"):
            with self._tx(write=False) as db:
                row = db.execute(f"SELECT {_META} FROM nblab_shares WHERE id = ?", (share_id,)).fetchone()
                if row is None:
                    gone = db.execute("SELECT reason FROM nblab_gone WHERE id_hash = ?",
                                      (sha("id:" + share_id),)).fetchone()
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
                try:
                    with self._tx(write=True) as db:
                        db.execute("UPDATE nblab_shares SET last_used = ? WHERE id = ? AND last_used < ?",
                                   (now, share_id, now))
                except Exception as e:  # noqa: BLE001 - a full disk, a lock: the share is read all the same
                    if not driver_error(e):
                        raise
                    log.warning("share store %r: marking a share as used failed (it is served all the same): "
                                "%s: %s", self, type(e).__name__, one_line(e))
        return share

    def _read(self, share_id: str) -> bytes:
        """The stored file's bytes (call lookup() first: read() does not touch or expire)."""
        check_id(share_id)
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
        if not valid_id(share_id) or not valid_secret(secret):
            return False
        with self._guard("delete"):
            with self._tx(write=True) as db:
                row = db.execute("SELECT delete_hash FROM nblab_shares WHERE id = ?", (share_id,)).fetchone()
                if row is None or not hmac.compare_digest(str(row[0]), sha(secret)):
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
        why = REASONS.get(reason, "it was removed").format(ttl=fmt_duration(self.limits.ttl_seconds))
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
            h = sha("id:" + sid)
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
                    f"The server's store for shared data sets is full ({fmt_bytes(lim.max_total_bytes)}), and "
                    f"room for this file could only be made by removing data sets that were opened or shared in "
                    f"the last {fmt_duration(lim.keep_recent_seconds)}, which are kept for the classes using "
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
        database, else StoreUnavailable: locked file, lost connection, full disk) and one log line
        for the administrator (the store, the call, the driver's error); anything else (a bug) is
        logged with its traceback."""
        try:
            yield
        except ShareError:
            raise
        except Exception as e:  # sqlite3.Error / psycopg.Error / OSError
            trace = not driver_error(e)
            if self._damaged(e):
                log.error("share store %r: %s failed, the database is damaged: %s: %s",
                          self, op, type(e).__name__, one_line(e), exc_info=trace)
                raise StoreDamaged(DAMAGED_MSG) from e
            log.error("share store %r: %s failed: %s: %s", self, op, type(e).__name__, one_line(e),
                      exc_info=trace)
            raise StoreUnavailable(UNAVAILABLE_MSG) from e


def driver_error(e: BaseException) -> bool:
    """An error of the database or the system (its message says what happened), not of this code."""
    mod = type(e).__module__ or ""
    return isinstance(e, OSError) or mod.split(".")[0] in ("sqlite3", "psycopg", "psycopg_pool")


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:300]
