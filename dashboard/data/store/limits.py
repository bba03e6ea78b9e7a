"""How much the store keeps (:class:`Limits`) and the sentence that tells teachers so."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MB", "DEFAULT_FILE_BYTES", "Limits", "describe_limits", "fmt_bytes", "fmt_duration"]

MB = 1024 * 1024

#: The per-file default: the upload limit (nblab.limits.UPLOAD_MAX_BYTES, 5 MB; a test keeps them equal).
DEFAULT_FILE_BYTES = 5 * MB


@dataclass(frozen=True)
class Limits:
    """How much the store keeps. Defaults: 5 MB per file (the upload limit), 500 MB in
    all, 30 days since last opened, 10 shares per hour from one client (network address,
    else browser session), 100 shares per hour on the whole server, and a share opened or
    created in the last 24 hours is never evicted to make room."""
    max_file_bytes: int = DEFAULT_FILE_BYTES
    max_total_bytes: int = 500 * MB
    ttl_seconds: float = 30 * 86400.0
    shares_per_hour: int = 10
    store_shares_per_hour: int = 100
    keep_recent_seconds: float = 86400.0
    #: opening a share keeps it safe from eviction only within this long after it was made: a share
    #: opened every day is not kept forever by its openings, so nobody can keep the store full
    keep_opened_max_seconds: float = 7 * 86400.0
    #: bytes one client (address, or share key holder) may have in the store at once
    owner_max_bytes: int = 100 * MB

    def __post_init__(self):
        if self.max_file_bytes <= 0 or self.max_total_bytes <= 0 or self.ttl_seconds <= 0 or self.shares_per_hour < 0:
            raise ValueError("store limits must be positive")
        if self.store_shares_per_hour < 0 or not self.keep_recent_seconds >= 0:
            raise ValueError("store limits must be positive")
        if not self.keep_opened_max_seconds >= 0 or self.owner_max_bytes <= 0:
            raise ValueError("store limits must be positive")


def fmt_bytes(n: float) -> str:
    if n >= MB:
        return f"{n / MB:g} MB" if float(n / MB).is_integer() else f"{n / MB:.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{int(n)} bytes"


def fmt_duration(s: float) -> str:
    if s >= 86400 and (s / 86400) >= 2:
        return f"{s / 86400:g} days"
    if s >= 3600:
        return f"{s / 3600:g} hours"
    if s >= 60:
        return f"{s / 60:g} minutes"
    return f"{s:g} seconds"


def describe_limits(limits: Limits) -> str:
    """One sentence for the UI and the README."""
    return (f"Shared files: at most {fmt_bytes(limits.max_file_bytes)} each, "
            f"{fmt_bytes(limits.max_total_bytes)} on this server in all; a shared data set is removed "
            f"after {fmt_duration(limits.ttl_seconds)} without being opened (the least recently used goes first "
            f"when the store is full, but never one made in the last {fmt_duration(limits.keep_recent_seconds)}, nor "
            f"one opened in that time during its first {fmt_duration(limits.keep_opened_max_seconds)}: then a new "
            f"share is refused instead); {fmt_bytes(limits.owner_max_bytes)} in all from one computer; at most {limits.shares_per_hour} shares per hour from one "
            f"computer and {limits.store_shares_per_hour} per hour on this server in all.")

