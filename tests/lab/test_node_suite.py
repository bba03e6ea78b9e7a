"""The JavaScript unit tests (tests/lab/js/*.test.mjs) under ``node --test``, from pytest.

They need node (v20 or later) and nothing else: no npm install. A failure shows node's own report.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node (v20) runs the lab's JavaScript tests")
def test_node_suite():
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "lab" / "js").glob("*.test.mjs"))
    assert files, "no JavaScript tests found in tests/lab/js"
    proc = subprocess.run([NODE, "--test", *files], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"node --test failed:\n{proc.stdout[-20000:]}\n{proc.stderr[-5000:]}"
