"""PostgreSQL backend for replicas on several machines (psycopg 3).

Selected by a ``postgresql://`` store URL (NBLAB_STORE_URL or the ``store_url`` secret).
Writers serialise on a transaction-scoped advisory lock, the PostgreSQL counterpart
of SQLite's ``BEGIN IMMEDIATE``, so eviction (read sizes, then delete) is never
interleaved with another replica's write. The schema is created on first use under
the same lock (concurrent ``CREATE TABLE IF NOT EXISTS`` can otherwise collide).

Every connection carries server-side timeouts (SESSION_TIMEOUTS: statement, lock wait, a
transaction left idle), and every store call has a deadline of its own (ShareStore._bounded), so a
locked table, a frozen server or a Unix socket nobody answers never holds a page longer than that.

Connections come from a small pool of our own (:class:`_Pool`) that never waits for a
background reconnection: a page asks for a connection, gets an idle one that answers,
else opens a new one at once, with a short connect timeout (CONNECT_TIMEOUT). So while
the database server is down a page gets its message within about two seconds, and the
first request after the server is back succeeds straight away (idle connections left
from before the outage are found dead on checkout and all dropped).
"""
from __future__ import annotations

import logging
import math
import threading
import time
from contextlib import contextmanager
from typing import Callable

from .base import ShareStore, driver_error, one_line
from .errors import ShareError, StoreUnavailable
from .limits import Limits
from .schema import ADDED_COLUMNS, schema_statements

log = logging.getLogger(__name__)

LOCK_KEY = 0x6E626C6162  # "nblab": the advisory lock every writer takes
POOL_MAX = 8             # connections per server process at most
CONNECT_TIMEOUT = 2.0    # s: to connect, and to wait for a free connection (libpq's minimum is 2 s)
#: Server-side limits set on every connection (milliseconds): a statement may run 2 s, wait 1 s for
#: a lock (a table another session locked, or the writers' advisory lock), and a transaction left
#: open by a stalled client is ended after 30 s, so it cannot hold the writers' lock for longer.
SESSION_TIMEOUTS = {"statement_timeout": 2000, "lock_timeout": 1000, "idle_in_transaction_session_timeout": 30000}
DAMAGED_SQLSTATES = ("XX001", "XX002")   # data_corrupted, index_corrupted

UNREACHABLE_MSG = ("The PostgreSQL data store cannot be reached, so shared data sets cannot be opened or made. "
                   "The server's administrator has to check that the database server is running and that "
                   "NBLAB_STORE_URL is right (the details are in the server log).")


class _Db:
    """``execute(sql with ?) -> cursor`` over a psycopg connection."""

    def __init__(self, conn):
        self.conn = conn

    def execute(self, sql: str, params=()):
        return self.conn.execute(sql.replace("?", "%s"), params)


class PoolBusy(Exception):
    """Every connection of the pool stayed in use for the whole timeout."""


class _Pool:
    """At most ``size`` connections (autocommit; transactions are explicit). Idle ones are
    kept for reuse and checked with one round trip when taken: a dead one (the server
    restarted or went away) is closed together with every other idle connection, which
    died with it, and a new connection is opened in its place. Nothing reconnects in the
    background, so the pool has no state that outlives an outage."""

    def __init__(self, url: str, size: int, timeout: float):
        self._url, self._timeout = url, timeout
        self._slots = threading.BoundedSemaphore(size)
        self._idle: list = []
        self._lock = threading.Lock()

    def _connect(self):
        import psycopg
        from psycopg.conninfo import conninfo_to_dict
        # tcp_user_timeout (ms): a connection whose sent data stays unacknowledged that long (the
        # server's machine or the network is gone) fails instead of hanging a page; unused on a Unix
        # socket, where the store's per-call deadline (ShareStore._bounded) is what ends the wait.
        # The session's timeouts go in libpq's "options" (after any the URL sets, so ours win).
        own = conninfo_to_dict(self._url).get("options") or ""
        options = " ".join([own] + [f"-c {k}={v}" for k, v in SESSION_TIMEOUTS.items()]).strip()
        return psycopg.connect(self._url, autocommit=True, connect_timeout=max(2, math.ceil(self._timeout)),
                               tcp_user_timeout=int(max(2.0, self._timeout) * 1000), options=options)

    def _drop_idle(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _take(self):
        while True:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                return self._connect()
            try:
                if not (conn.closed or conn.broken):
                    conn.execute("SELECT 1")
                    return conn
            except Exception:  # psycopg.OperationalError: the server closed it
                pass
            conn.close()
            self._drop_idle()

    def _give_back(self, conn) -> None:
        from psycopg.pq import TransactionStatus
        reusable = not (conn.closed or conn.broken) and conn.info.transaction_status == TransactionStatus.IDLE
        if reusable:
            with self._lock:
                self._idle.append(conn)
        else:
            conn.close()

    @contextmanager
    def connection(self):
        if not self._slots.acquire(timeout=self._timeout):
            raise PoolBusy(f"no free connection within {self._timeout:g} s")
        try:
            conn = self._take()
            try:
                yield conn
            finally:
                self._give_back(conn)
        finally:
            self._slots.release()

    def close(self) -> None:
        self._drop_idle()


class PostgresStore(ShareStore):
    kind = "postgresql"

    def __init__(self, url: str, limits: Limits | None = None, clock: Callable[[], float] = time.time,
                 timeout: float = CONNECT_TIMEOUT):
        super().__init__(limits, clock)
        try:
            import psycopg  # noqa: F401
        except ImportError as e:  # pragma: no cover - psycopg is in requirements.txt
            raise StoreUnavailable("A postgresql:// store needs psycopg: pip install 'psycopg[binary,pool]'.") from e
        self.pool = _Pool(url, POOL_MAX, timeout)
        try:
            self._bounded("open", self._create_schema)
        except Exception as e:
            self.pool.close()
            # the exception names host and port, never the password; the URL itself is not logged
            log.error("share store %r cannot be opened: %s: %s", self, type(e).__name__, one_line(e),
                      exc_info=not (driver_error(e) or isinstance(e, ShareError)))
            raise StoreUnavailable(UNREACHABLE_MSG) from e

    def __repr__(self) -> str:
        return "PostgresStore(<url hidden>)"

    def _create_schema(self) -> None:
        with self._tx(write=True) as db:
            for stmt in schema_statements("BYTEA"):
                db.execute(stmt)
            for table, column, sql_type in ADDED_COLUMNS:
                db.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {sql_type}")

    def _damaged(self, error: BaseException) -> bool:
        return getattr(error, "sqlstate", None) in DAMAGED_SQLSTATES

    @contextmanager
    def _tx(self, write: bool):
        with self.pool.connection() as conn:
            with conn.transaction():
                if write:
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
                yield _Db(conn)

    def close(self) -> None:
        self.pool.close()
