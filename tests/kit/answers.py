"""The class answers in the app's tests: a fresh store (SQLite or a real PostgreSQL) that the class routes use,
with a clock the test moves, and a student's token as a page makes one."""
from __future__ import annotations

import secrets

TABLES = ("nblab_classes", "nblab_questions", "nblab_answers", "nblab_answer_rate", "nblab_assignments")


class Clock:
    """The store's clock (``time.time`` in the app): stands still until the test moves ``now``."""

    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def token() -> str:
    """A student's token: 256 random bits, as the class page makes one per browser."""
    return secrets.token_urlsafe(32)


def fresh_answer_store(tmp_path, monkeypatch, *, pg_url: str | None = None):
    """A fixture's body (yields once): an empty store on SQLite (in ``tmp_path``) or on the PostgreSQL of
    ``pg_url`` (the class tables dropped first), with a :class:`Clock` (``store.test_clock``) and its URL
    (``store.test_url``, for a second "process" on the same database), made the store the class routes
    use (``get_store``), the class and answer caches emptied before and after."""
    from dashboard.class_link import answers
    from dashboard.class_link import store as CS
    from dashboard.data import store as S
    if pg_url:
        import psycopg
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS " + ", ".join(TABLES))
        url = pg_url
    else:
        url = "sqlite:///" + str(tmp_path / "answers.sqlite3")
    clock = Clock()
    st = S.open_store(url, clock=clock)
    st.test_clock, st.test_url = clock, url
    monkeypatch.setattr(CS, "get_store", lambda: st)
    monkeypatch.setattr(CS, "_STORES", {url: st})
    CS.clear_cache()
    answers.clear_cache()
    yield st
    CS.clear_cache()
    answers.clear_cache()
    st.close()
