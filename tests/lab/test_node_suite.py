"""The JavaScript unit tests under ``node --test``, from pytest: the lab page's (tests/lab/js/*.test.mjs) and
the app's browser modules' (tests/app/js/*.test.mjs: the lesson player's playback and decoding).

They need node (v20 or later) and nothing else: no npm install. A failure shows node's own report.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
#: where the JavaScript tests are (each must hold some)
JS_TEST_DIRS = ("tests/lab/js", "tests/app/js")


@pytest.mark.skipif(NODE is None, reason="node (v20) runs the lab's JavaScript tests")
def test_node_suite():
    files = sorted(str(p.relative_to(ROOT)) for d in JS_TEST_DIRS for p in (ROOT / d).glob("*.test.mjs"))
    for d in JS_TEST_DIRS:
        assert any(f.startswith(d + "/") for f in files), f"no JavaScript tests found in {d}"
    proc = subprocess.run([NODE, "--test", *files], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"node --test failed:\n{proc.stdout[-20000:]}\n{proc.stderr[-5000:]}"
