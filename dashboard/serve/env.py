"""Numbers the server's limits read from the environment (``NBLAB_*``)."""
from __future__ import annotations

import os


def env_int(name: str, default: int, minimum: int) -> int:
    """The integer in environment variable ``name``, or ``default`` when it is unset, not a whole number or
    below ``minimum``."""
    raw = os.environ.get(name, "")
    try:
        v = int(raw)
    except ValueError:
        return default
    return v if v >= minimum else default
