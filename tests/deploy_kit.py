"""What the deployment tests share: the script (deploy/nblab_deploy.py) and the skip-or-fail guard for the
programs it needs (HAProxy and PostgreSQL from Debian)."""
from __future__ import annotations

import importlib.util
import os

import pytest

from conftest import ROOT

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
