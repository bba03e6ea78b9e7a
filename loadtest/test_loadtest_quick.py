"""Smoke run of the load test (3 sessions, 10 s): `pytest loadtest -m slow` (not in the default test run)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_quick_load_run(tmp_path):
    out = tmp_path / "quick.json"
    proc = subprocess.run([sys.executable, str(ROOT / "loadtest" / "run_load.py"), "--quick", "--json", str(out)],
                          cwd=str(ROOT), capture_output=True, text=True, timeout=240)
    summary = json.loads(out.read_text())
    assert summary["sessions_completed"] == 3, proc.stdout[-2000:]
    assert summary["errors"] == 0, summary["error_samples"]
    assert summary["interactions"] > 0
    # latency/memory targets are for the full run on a quiet machine; the smoke run only checks they are measured
    assert summary["latency_s"]["interaction"]["p95"] is not None
    assert summary["rss_mb"]["peak"] > 0
