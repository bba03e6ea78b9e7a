"""The store's tables, in SQL that SQLite and PostgreSQL both run (``{blob}`` is the one type that
differs: BLOB or BYTEA).

* ``nblab_shares``: one row per share (the file's bytes, its reading options, the hashes of its
  delete secret and of its owner);
* ``nblab_share_log``: when each owner shared, for the hourly limits;
* ``nblab_gone``: why a removed share is gone (by the hash of its id), so its link can say so;
* ``nblab_classes``: the open classes (dashboard/class_link/store.py); ``made`` is when the teacher
  made the stored state, so a publish that lands late never replaces a newer one;
* ``nblab_questions``, ``nblab_answers``, ``nblab_answer_rate``, ``nblab_assignments``: a class's questions,
  its students' answers (one per token hash and question), each token's answer budget and the labelled
  share a report question handed each token (dashboard/class_link/answers.py).
"""
from __future__ import annotations

__all__ = ["SCHEMA", "schema_statements", "ADDED_COLUMNS"]

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
    updated DOUBLE PRECISION NOT NULL,
    made DOUBLE PRECISION NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS nblab_classes_updated ON nblab_classes (updated);
CREATE INDEX IF NOT EXISTS nblab_classes_owner ON nblab_classes (owner, created);
CREATE TABLE IF NOT EXISTS nblab_questions (
    class_id TEXT NOT NULL,
    qid TEXT NOT NULL,
    kind TEXT NOT NULL,
    spec TEXT NOT NULL,
    is_open INTEGER NOT NULL,
    right_answer TEXT,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (class_id, qid)
);
CREATE TABLE IF NOT EXISTS nblab_answers (
    class_id TEXT NOT NULL,
    qid TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    choice TEXT,
    num DOUBLE PRECISION,
    report TEXT,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (class_id, qid, token_hash)
);
CREATE TABLE IF NOT EXISTS nblab_assignments (
    class_id TEXT NOT NULL,
    qid TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    slot BIGINT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (class_id, qid, token_hash)
);
CREATE TABLE IF NOT EXISTS nblab_answer_rate (
    class_id TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    tokens DOUBLE PRECISION NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (class_id, token_hash)
);
"""

#: columns added to a table after stores were made without them: ``(table, column, SQL type)``. A store
#: opened by this version adds the missing ones (each dialect in its own way, see sqlite.py and postgres.py).
#: ``nblab_classes.made``: when the teacher made the stored state (see class_link.store.publish).
ADDED_COLUMNS = (
    ("nblab_classes", "made", "DOUBLE PRECISION NOT NULL DEFAULT 0"),
)


def schema_statements(blob: str) -> list[str]:
    """The schema as single statements, with ``blob`` as the type of the file column."""
    return [s.strip() for s in SCHEMA.format(blob=blob).split(";") if s.strip()]

