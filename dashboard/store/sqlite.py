"""SQLite backend: one file, WAL mode, safe with several server processes on one machine.

Each operation opens its own connection (cheap for SQLite, and safe whichever thread
Streamlit runs a session on). Writers take the database lock up front
(``BEGIN IMMEDIATE``), so the read-then-delete of eviction is never interleaved with
another process's write; readers never block writers in WAL mode. ``busy_timeout``
makes a writer wait for another process instead of failing.
"""
from __future__ import annotations

import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from . import Limits, ShareStore, StoreUnavailable, schema_statements

BUSY_TIMEOUT_MS = 30_000


class SQLiteStore(ShareStore):
    kind = "sqlite"

    def __init__(self, path: str | os.PathLike, limits: Limits | None = None,
                 clock: Callable[[], float] = time.time):
        super().__init__(limits, clock)
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with self._connect() as conn:
                mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise sqlite3.OperationalError(f"journal_mode is {mode}, not wal")
            with self._tx(write=True) as db:
                for stmt in schema_statements("BLOB"):
                    db.execute(stmt)
        except (sqlite3.Error, OSError) as e:
            raise StoreUnavailable(f"The data store file {self.path} cannot be used ({e}).") from e

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA synchronous=NORMAL")   # WAL + NORMAL: durable across app crashes
        return conn

    @contextmanager
    def _tx(self, write: bool):
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            conn.close()

    def journal_mode(self) -> str:
        with self._connect() as conn:
            return str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
