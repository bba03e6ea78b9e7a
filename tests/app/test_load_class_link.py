"""Smoke test of the class-link load tool itself (loadtest/run_load.py --class-link, loadtest/class_link.py):
5 students for 5 s against a real `streamlit run dashboard/server.py` (a temporary SQLite store), a teacher
Stepping every 1-2 s. Checks the summary's keys and that nothing failed; the latency goals are not checked
here (a busy test machine), only that they were measured."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (ROOT / "dashboard" / "server.py").exists(),
                                 reason="dashboard/server.py (the class routes) is not there")]

KEYS = ("page_p95", "follow_p95", "teacher_step_p95", "errors", "error_samples", "bytes_per_student", "requests",
        "server_cpu_s_per_student_per_min", "sessions", "duration_s", "ramp_s", "checks", "passed")


def test_class_link_load_smoke(tmp_path):
    out = tmp_path / "class.json"
    r = subprocess.run([sys.executable, "loadtest/run_load.py", "--class-link", "--sessions", "5", "--duration", "5",
                        "--ramp", "1", "--teacher-every", "1", "2", "--json", str(out)],
                       cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), f"exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    s = json.loads(out.read_text())
    missing = [k for k in KEYS if k not in s]
    assert not missing, missing
    assert s["errors"] == 0, s["error_samples"]
    assert s["students_loaded"] == 5 and s["students_following"] == 5
    assert s["page_p95"] is not None and s["page_p95"] > 0
    assert s["follow_n"] >= 1 and s["follow_p95"] is not None
    assert s["teacher_steps"] >= 1 and s["teacher_step_p95"] is not None
    # every student fetched the page, its 3 assets and the data once, then polled the state
    kinds = s["requests_by_kind"]
    assert kinds["html"] == 5 and kinds["data"] == 5 and kinds["asset"] == 15, kinds
    assert kinds["state"] >= 10
    assert s["bytes_per_student"] > 10_000
    assert all(s["gzip"].values()) and all(s["immutable"].values()), (s["gzip"], s["immutable"])
    assert s["server_cpu_s_per_student_per_min"] is not None
