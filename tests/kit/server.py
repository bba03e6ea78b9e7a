"""A real ``streamlit run`` of the app (or of another entry or checkout) on a free 127.0.0.1 port, for the
tests that need a server: the browser tier, session isolation, upload fuzzing, the class routes."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from kit import ROOT, free_port

#: what the test servers run: the app's entry with the class routes (README's run command)
ENTRY = os.environ.get("NBLAB_TEST_ENTRY", "dashboard/server.py")


class Server:
    """A running streamlit server: .port, .url, .proc, .log_path."""

    def __init__(self, port: int, proc: subprocess.Popen, log_path: Path):
        self.port, self.proc, self.log_path = port, proc, log_path
        self.url = f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def streamlit_server(*extra: str, log_path: Path | None = None, timeout: float = 60.0, port: int | None = None,
                     env: dict | None = None, root: Path = ROOT, entry: str | None = None):
    """Start `streamlit run dashboard/server.py` (ENTRY) on a free 127.0.0.1 port (or ``port``), with ``env``
    added to this process's environment, wait for
    /_stcore/health (failing the test if it exits or does not answer within `timeout`),
    yield a Server, and stop it afterwards. Only /_stcore/health is requested, so the
    first page request is still the caller's. ``root`` and ``entry``: another checkout (a copy of the
    repository) and the file to run from it."""
    import pytest

    port = free_port() if port is None else int(port)
    if log_path is None:
        log_path = Path(tempfile.gettempdir()) / f"streamlit_test_server_{port}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", entry or ENTRY, "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", *extra],
        cwd=str(root), stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, **env} if env else None)
    try:
        deadline = time.time() + timeout
        while True:
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited ({proc.returncode}); see {log_path}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.time() > deadline:
                pytest.fail(f"streamlit did not answer /_stcore/health within {timeout:.0f} s; see {log_path}")
            time.sleep(0.2)
        yield Server(port, proc, log_path)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()
