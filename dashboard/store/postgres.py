"""PostgreSQL backend for replicas on several machines (psycopg 3 + psycopg_pool).

Selected by a ``postgresql://`` store URL (NBLAB_STORE_URL or the ``store_url`` secret).
Writers serialise on a transaction-scoped advisory lock, the PostgreSQL counterpart
of SQLite's ``BEGIN IMMEDIATE``, so eviction (read sizes, then delete) is never
interleaved with another replica's write. The schema is created on first use under
the same lock (concurrent ``CREATE TABLE IF NOT EXISTS`` can otherwise collide).
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable

from . import Limits, ShareStore, StoreUnavailable, schema_statements

LOCK_KEY = 0x6E626C6162  # "nblab": the advisory lock every writer takes
POOL_MAX = 8


class _Db:
    """``execute(sql with ?) -> cursor`` over a psycopg connection."""

    def __init__(self, conn):
        self.conn = conn

    def execute(self, sql: str, params=()):
        return self.conn.execute(sql.replace("?", "%s"), params)


class PostgresStore(ShareStore):
    kind = "postgresql"

    def __init__(self, url: str, limits: Limits | None = None, clock: Callable[[], float] = time.time,
                 timeout: float = 10.0):
        super().__init__(limits, clock)
        try:
            from psycopg_pool import ConnectionPool
        except ImportError as e:  # pragma: no cover - psycopg is in requirements.txt
            raise StoreUnavailable("A postgresql:// store needs psycopg: pip install 'psycopg[binary,pool]'.") from e
        self._url = url
        try:
            self.pool = ConnectionPool(url, min_size=1, max_size=POOL_MAX, timeout=timeout, open=False,
                                       name="nblab-store", kwargs={"connect_timeout": int(max(1, timeout))})
            self.pool.open(wait=True, timeout=timeout)
            with self._tx(write=True) as db:
                for stmt in schema_statements("BYTEA"):
                    db.execute(stmt)
        except Exception as e:
            try:
                self.pool.close()
            except Exception:
                pass
            raise StoreUnavailable(f"The PostgreSQL data store cannot be reached ({type(e).__name__}). "
                                   "Check NBLAB_STORE_URL.") from e

    def __repr__(self) -> str:
        return "PostgresStore(<url hidden>)"

    @contextmanager
    def _tx(self, write: bool):
        with self.pool.connection() as conn:
            with conn.transaction():
                if write:
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
                yield _Db(conn)

    def close(self) -> None:
        self.pool.close()
