"""The store's configuration: where it is and its limits (:func:`settings`, from environment
variables or Streamlit secrets), and the backend a store URL names (:func:`open_store`)."""
from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Callable, Mapping

from .base import ShareStore
from .limits import MB, Limits
from .sqlite import SQLiteStore

__all__ = ["ENV", "SQLITE_FILE", "default_store_dir", "settings", "open_store"]

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
        return SQLiteStore(url[len("sqlite:///"):], limits=limits, clock=clock)  # sqlite:////abs/path, sqlite:///rel
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresStore  # psycopg (the postgres extra): only for a PostgreSQL URL
        return PostgresStore(url, limits=limits, clock=clock)
    raise ValueError("The store URL must start with sqlite:/// (a file) or postgresql:// (a server).")
