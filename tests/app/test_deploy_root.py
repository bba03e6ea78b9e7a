"""The deployment never runs the app as root unless told to (--allow-root)."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

from kit import ROOT

DEPLOY = ROOT / "deploy" / "nblab_deploy.py"


@pytest.mark.skipif(os.geteuid() != 0, reason="the refusal is about running as root")
def test_as_root_the_app_is_not_run_as_root_without_the_flag():
    state = tempfile.mkdtemp(prefix="nblab_deploy_root_")
    # --user root: refused before anything starts (the store URL is never contacted)
    r = subprocess.run([sys.executable, str(DEPLOY), "start", "--processes", "1", "--user", "root",
                        "--store-url", "postgresql://nobody@127.0.0.1:1/none", "--state-dir", state, "--quiet"],
                       cwd=str(ROOT), capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r
    assert "refusing to run the app processes as root" in r.stderr and "--allow-root" in r.stderr
    assert "Traceback" not in r.stderr
    # a user that cannot run this Python (or one that can: then it is used, never root)
    import importlib.util
    spec = importlib.util.spec_from_file_location("nblab_deploy", DEPLOY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        user, note = mod.app_user("nobody")
    except mod.DeployError as e:
        assert "refusing" in str(e) and "--allow-root" in str(e)
        user, note = mod.app_user("nobody", allow_root=True)
        assert user is None and "ROOT" in note
    else:
        assert user == "nobody"
