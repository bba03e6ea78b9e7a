"""What the deployment tests share: the script (deploy/nblab_deploy.py), a started deployment, and the
skip-or-fail guard for the programs it needs (HAProxy and PostgreSQL from Debian)."""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from kit import ROOT, free_port

DEPLOY = ROOT / "deploy" / "nblab_deploy.py"


def deploy_module():
    """deploy/nblab_deploy.py imported as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location("nblab_deploy", DEPLOY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def require_deploy_programs() -> None:
    """Skip the calling module when HAProxy or PostgreSQL is missing (fail instead when CI is set: .ci/run
    installs both). Call at module level."""
    missing = deploy_module().missing_programs()
    if missing:
        msg = "the deployment test needs HAProxy and PostgreSQL: " + "; ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(msg + " (.ci/run installs both)", pytrace=False)
        pytest.skip(msg, allow_module_level=True)


@contextlib.contextmanager
def deployment(prefix: str = "nblab_deploy_test_", processes: int = 2, args: tuple[str, ...] = ()):
    """Start the deployment (``processes`` app processes behind HAProxy, the store on the PostgreSQL it
    starts; ``args``: more options of ``start``) in a new state directory on a free port; yield its state.json as a dict, plus ``share_key``
    (the teachers' share key the deployment keeps beside its state) and ``extra`` (a list where a test puts
    processes it starts itself, stopped here); stop and purge it afterwards."""
    state = tempfile.mkdtemp(prefix=prefix)
    port = free_port()
    cmd = [sys.executable, str(DEPLOY), "start", "--processes", str(processes), "--port", str(port),
           "--bind", "127.0.0.1", "--state-dir", state, "--quiet", *args] + (["--allow-root"] if os.geteuid() == 0 else [])
    r = subprocess.run(cmd, cwd=str(ROOT), capture_output=True, text=True, timeout=240)
    extra: list[subprocess.Popen] = []
    try:
        if r.returncode != 0:
            pytest.fail(f"deploy start failed ({r.returncode}): {r.stderr[-2000:]}", pytrace=False)
        info = json.loads((Path(state) / "state.json").read_text())
        key = Path(state) / "share_key"
        info["share_key"] = key.read_text().strip() if key.exists() else None
        info["extra"] = extra
        yield info
    finally:
        for p in extra:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        subprocess.run([sys.executable, str(DEPLOY), "stop", "--purge", "--state-dir", state], cwd=str(ROOT),
                       capture_output=True, timeout=120)
