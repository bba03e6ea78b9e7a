"""SQLite backend: one file, WAL mode, safe with several server processes on one machine.

Each write opens its own connection (cheap for SQLite, and safe whichever thread
Streamlit runs a session on). Writers take the database lock up front
(``BEGIN IMMEDIATE``), so the read-then-delete of eviction is never interleaved with
another process's write; readers never block writers in WAL mode. ``busy_timeout``
makes a writer wait for another process instead of failing.

Reads reuse connections kept open for them (``query_only``, at most ``READERS`` idle), one of
them from the store's opening on: a read needs nothing written, so reads go on when the disk is
full (a new connection's first statement would have to create the WAL's files, and its
``PRAGMA synchronous`` fail). A kept connection is used only while the file at the store's path
is the one it opened (same device and inode): a file replaced under a running server is read as
the new file.

A file that is not an SQLite database, or whose pages are corrupt, raises StoreDamaged
(a person has to repair or replace it); the file's path is written to the log only,
never into a message a user sees.
"""
from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from .base import ShareStore, one_line
from .errors import DAMAGED_MSG, StoreDamaged, StoreUnavailable
from .limits import Limits
from .schema import ADDED_COLUMNS, schema_statements

log = logging.getLogger(__name__)

#: How long a call waits for another process's write lock before the store says it is busy: inside
#: the per-call deadline (store.CALL_TIMEOUT), so a page never waits longer than that.
BUSY_TIMEOUT_MS = 2_000
READERS = 8     # idle read connections kept
SQLITE_CORRUPT, SQLITE_NOTADB = 11, 26   # sqlite3 primary result codes of a damaged file

UNUSABLE_MSG = ("The server's data store cannot be used: its folder or file cannot be created or opened, so "
                "shared data sets cannot be opened or made. The server's administrator has to check the "
                "store's location (NBLAB_STORE_DIR) and its permissions (the details are in the server log).")


def is_damaged(error: BaseException) -> bool:
    """Whether an sqlite3 error says the file is not a database or is corrupt."""
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and (code & 0xFF) in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return True
    text = str(error).lower()
    return "not a database" in text or "malformed" in text


class SQLiteStore(ShareStore):
    kind = "sqlite"

    def __init__(self, path: str | os.PathLike, limits: Limits | None = None,
                 clock: Callable[[], float] = time.time):
        super().__init__(limits, clock)
        self.path = Path(path).expanduser()
        self._readers: list[tuple[sqlite3.Connection, tuple | None]] = []
        self._readers_lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            conn = self._connect()
            try:
                mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise sqlite3.OperationalError(f"journal_mode is {mode}, not wal")
            finally:
                conn.close()
            with self._tx(write=True) as db:
                for stmt in schema_statements("BLOB"):
                    db.execute(stmt)
                for table, column, sql_type in ADDED_COLUMNS:   # SQLite has no ADD COLUMN IF NOT EXISTS
                    have = {r[1] for r in db.execute(f"PRAGMA table_info({table})").fetchall()}
                    if column not in have:
                        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {sql_type}")
            with self._tx(write=False) as db:   # the first kept read connection: it holds the WAL's files
                db.execute("SELECT 1").fetchone()
        except (sqlite3.Error, OSError) as e:
            if is_damaged(e):
                log.error("share store file %s is damaged: %s: %s", self.path, type(e).__name__, one_line(e))
                raise StoreDamaged(DAMAGED_MSG) from e
            log.error("share store file %s cannot be used: %s: %s", self.path, type(e).__name__, one_line(e))
            raise StoreUnavailable(UNUSABLE_MSG) from e

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def _damaged(self, error: BaseException) -> bool:
        return is_damaged(error)

    def _connect(self, read: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            if read:
                conn.execute("PRAGMA query_only=ON")      # a reader never writes
            else:
                conn.execute("PRAGMA synchronous=NORMAL")   # WAL + NORMAL: durable across app crashes
        except BaseException:
            conn.close()
            raise
        return conn

    def _file_id(self) -> tuple | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def _reader(self) -> tuple[sqlite3.Connection, tuple | None]:
        """A kept read connection to the file now at the path (stale ones are closed), else a new one."""
        ident = self._file_id()
        stale = []
        got = None
        with self._readers_lock:
            while self._readers:
                conn, cid = self._readers.pop()
                if ident is not None and cid == ident:
                    got = conn
                    break
                stale.append(conn)
        for conn in stale:
            conn.close()
        return (got if got is not None else self._connect(read=True)), ident

    def _keep(self, conn: sqlite3.Connection, ident: tuple | None) -> None:
        with self._readers_lock:
            if ident is not None and len(self._readers) < READERS:
                self._readers.append((conn, ident))
                return
        conn.close()

    @contextmanager
    def _tx(self, write: bool):
        conn, ident = (self._connect(), None) if write else self._reader()
        reuse = False
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:  # a damaged or vanished file: the first error is the one to report
                    pass
                raise
            conn.execute("COMMIT")
            reuse = not write
        finally:
            if reuse:
                self._keep(conn, ident)
            else:
                conn.close()

    def close(self) -> None:
        with self._readers_lock:
            kept, self._readers = self._readers, []
        for conn, _ in kept:
            conn.close()

    def journal_mode(self) -> str:
        with self._tx(write=False) as db:
            return str(db.execute("PRAGMA journal_mode").fetchone()[0]).lower()
