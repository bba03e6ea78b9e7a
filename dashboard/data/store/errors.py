"""The store's errors: every one carries a message a teacher can act on (``str(e)``).

Driver errors never reach a page: the store turns them into StoreUnavailable (or StoreDamaged for a
corrupt database) with one of the two messages below, and writes the details to the server log.
"""
from __future__ import annotations

__all__ = [
    "ShareError", "BadId", "NotFound", "Gone", "TooBig", "RateLimited", "StoreFull", "StoreUnavailable",
    "StoreDamaged", "UNAVAILABLE_MSG", "DAMAGED_MSG",
]

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
