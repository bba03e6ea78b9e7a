"""What a share is (:class:`Share`, :class:`Receipt`) and the checks on what goes in: ids, delete
secrets, display names and reading options.

Ids are ``secrets.token_urlsafe(18)`` (144 random bits, 24 characters of ``[A-Za-z0-9_-]``), never a
path, never sequential; an id that is not exactly that shape is refused before any query. Of the
one-time delete secret only the SHA-256 is stored.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Mapping

from .errors import BadId

__all__ = ["ID_BYTES", "ID_LEN", "Share", "Receipt", "valid_id", "valid_secret", "check_id", "sha",
           "clean_name", "options_json"]

ID_BYTES = 18                     # 144 random bits -> 24 url-safe characters
ID_LEN = 24
_ID_RE = re.compile(r"[A-Za-z0-9_-]{%d}" % ID_LEN)
_SECRET_RE = re.compile(r"[A-Za-z0-9_-]{20,64}")
MAX_OPTIONS_CHARS = 4000          # the JSON of the reading options
MAX_NAME_CHARS = 120


@dataclass(frozen=True)
class Share:
    """What the store knows about one share (without the file's bytes)."""
    id: str
    name: str
    options: dict
    size: int
    sha256: str
    created: float
    last_used: float


@dataclass(frozen=True)
class Receipt:
    """Returned once, to the sharer: the id and the one-time delete secret."""
    share: Share
    delete_secret: str

    @property
    def id(self) -> str:
        return self.share.id


def valid_id(share_id) -> bool:
    return isinstance(share_id, str) and _ID_RE.fullmatch(share_id) is not None


def valid_secret(secret) -> bool:
    """Whether ``secret`` has the shape of a delete secret (checked before any query)."""
    return isinstance(secret, str) and _SECRET_RE.fullmatch(secret) is not None


def check_id(share_id) -> str:
    if not valid_id(share_id):
        raise BadId("This link's data id is not valid (it may have been cut off when it was copied). "
                    "Ask for the link again; the default lesson is shown meanwhile.")
    return share_id


def sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def clean_name(name) -> str:
    """A display name: printable characters only, at most MAX_NAME_CHARS, never a path."""
    s = "".join(ch for ch in str(name or "") if ch.isprintable())
    s = s.replace("/", "_").replace("\\", "_").strip() or "shared data"
    return s[:MAX_NAME_CHARS]


def options_json(options: Mapping | None) -> str:
    """Reading options as canonical JSON of plain values (str, int, float, bool, None, lists)."""
    def plain(v, depth=0):
        if depth > 3:
            raise ValueError("reading options nest too deeply")
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            if not math.isfinite(v):
                raise ValueError("reading options must be finite numbers")
            return v
        if isinstance(v, (list, tuple)):
            return [plain(x, depth + 1) for x in v]
        if isinstance(v, Mapping):
            return {str(k): plain(x, depth + 1) for k, x in v.items()}
        raise ValueError(f"reading option of type {type(v).__name__} cannot be stored")
    text = json.dumps(plain(dict(options or {})), sort_keys=True, separators=(",", ":"))
    if len(text) > MAX_OPTIONS_CHARS:
        raise ValueError("reading options are too long to store")
    return text
