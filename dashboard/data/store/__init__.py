"""Shared data sets: a teacher's upload kept on the server under an unguessable id.

A share is the uploaded file's bytes plus the options it was read with (a JSON
object of plain values). The dashboard stores it when a teacher presses "Share this
data set" and puts ``data=<id>`` in the URL; whoever opens that URL gets the same
file read the same way (re-validated exactly like an upload, see dashboard/lesson/sharing.py).

Two backends behind one small interface (:class:`ShareStore`):

* SQLite (default): one file in a directory (``NBLAB_STORE_DIR``, default
  ``~/.local/share/nblab``), WAL mode, every write in ``BEGIN IMMEDIATE``, so several
  server processes on one machine can use the same file.
* PostgreSQL: ``NBLAB_STORE_URL=postgresql://user:pw@host/db`` for replicas on
  several machines (psycopg 3 with a small connection pool).

The same database holds the open classes (table ``nblab_classes``: a teacher's lesson state that the
class link's students follow); dashboard/class_link/store.py reads and writes it with this module's
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

The package, one job per module (the backends import from these, never from this file):

* ``errors.py``: the exceptions and the two messages for a database that fails;
* ``limits.py``: :class:`Limits` and the sentence that describes them;
* ``records.py``: :class:`Share`, :class:`Receipt` and the checks on ids, secrets, names, options;
* ``schema.py``: the tables, in SQL both databases run;
* ``base.py``: :class:`ShareStore`, the logic both backends share (limits, eviction, deadlines);
* ``sqlite.py``, ``postgres.py``: the backends (a transaction, the schema, what "damaged" means);
* ``config.py``: :func:`settings` (environment or secrets) and :func:`open_store` (URL to backend).
"""
from __future__ import annotations

# the names callers use (``from dashboard.data.store import X``, ``S.X``), whichever module holds them
from .base import CALL_TIMEOUT, GONE_KEEP, MAX_STALLED, REASONS, STALL_PAUSE, TOUCH_EVERY, ShareStore
from .config import ENV, SQLITE_FILE, default_store_dir, open_store, settings
from .errors import (
    DAMAGED_MSG,
    UNAVAILABLE_MSG,
    BadId,
    Gone,
    NotFound,
    RateLimited,
    ShareError,
    StoreDamaged,
    StoreFull,
    StoreUnavailable,
    TooBig,
)
from .limits import DEFAULT_FILE_BYTES, MB, Limits, describe_limits
from .records import ID_BYTES, ID_LEN, MAX_NAME_CHARS, MAX_OPTIONS_CHARS, Receipt, Share, clean_name, valid_id
from .schema import SCHEMA, schema_statements

__all__ = [
    "ID_BYTES", "Limits", "Share", "Receipt", "ShareStore", "ShareError", "BadId", "NotFound", "Gone",
    "TooBig", "RateLimited", "StoreFull", "StoreUnavailable", "StoreDamaged", "valid_id", "settings",
    "open_store", "describe_limits",
]
