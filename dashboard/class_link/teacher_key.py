"""Who may open a class: whoever holds the teacher key, never any visitor of the lesson page.

The key is the server's share key when its operator set one (``NBLAB_SHARE_KEY``, or ``share_key`` in
the ``[nblab]`` secrets: the deployment always does). Where none is set (one ``streamlit run`` on a
teacher's own machine, docs/serving.md), the server makes a key of its own the first time it is
needed: 128 random bits in the file ``teacher_key`` (mode 600) of the store's folder, printed once
per process on the server's terminal, where the teacher who started it reads it. Every process
that shares that folder uses the same key; deleting the file makes a new one.

Nothing here imports Streamlit.
"""
from __future__ import annotations

import hmac
import os
import secrets
import sys
from pathlib import Path
from typing import Callable, Mapping

from dashboard.data.store import config as store_config

FILE = "teacher_key"
_PRINTED: set[str] = set()


def key_dir(env: Mapping[str, str] | None = None, secrets_: Mapping | None = None) -> Path:
    """The folder of the server's own key: the store's folder (NBLAB_STORE_DIR, ``store_dir`` in the
    secrets, else the default)."""
    env = os.environ if env is None else env
    d = env.get("NBLAB_STORE_DIR") or (secrets_ or {}).get("store_dir") or store_config.default_store_dir()
    return Path(str(d)).expanduser()


def own_key(directory: Path, say: Callable[[str], None] | None = None) -> str:
    """The key kept in ``directory/teacher_key``, made (atomically, mode 600) when there is none yet.
    ``say`` (default: the server's stderr) is told where it is, once per process and file."""
    path = directory / FILE
    key = None
    try:
        key = path.read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        key = None
    if key is None:
        directory.mkdir(parents=True, exist_ok=True)
        made = secrets.token_urlsafe(16)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:   # another process made it meanwhile: use that one
            key = path.read_text(encoding="ascii").strip()
        else:
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(made + "\n")
            key = made
    if str(path) not in _PRINTED:
        _PRINTED.add(str(path))
        (say or _stderr)(f"Naive Bayes + EM Lab: the teacher key for opening a class on this server is {key} "
                         f"(kept in {path}; type it under 'Open for the class').")
    return key


def _stderr(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def teacher_key(share_key: str | None, env: Mapping[str, str] | None = None, secrets_: Mapping | None = None) -> str:
    """The key that opens a class here: the operator's share key, else the server's own."""
    if share_key:
        return share_key
    return own_key(key_dir(env, secrets_))


def matches(typed, key: str) -> bool:
    """Whether ``typed`` is the key (constant time; surrounding spaces from a paste are ignored)."""
    t = str(typed or "").strip()
    return bool(t) and hmac.compare_digest(t.encode("utf-8", "replace"), key.encode("utf-8"))
