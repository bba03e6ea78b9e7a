"""Smoke runs of the load test (3 sessions, 10 s each: `python loadtest/run_load.py --quick`): one server, two
servers with a shared link, and through the deployment."""
import json
import subprocess
import sys

import pytest

from kit import ROOT
from kit.deploy import deploy_module


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


@pytest.mark.slow
def test_quick_shared_link_run(tmp_path):
    """3 students open one shared link at the same moment, on 2 server processes: each process
    parses the file once, every student sees the shared data set, no errors."""
    csv = tmp_path / "class_mail.csv"
    csv.write_text("text,label\n" + "".join(f"win cash prize {i},spam\nlunch meeting notes {i},ham\n"
                                           f"free cash lunch {i},\n" for i in range(40)))
    out = tmp_path / "quick_shared.json"
    proc = subprocess.run([sys.executable, str(ROOT / "loadtest" / "run_load.py"), "--quick", "--ramp", "0",
                           "--replicas", "2", "--shared", str(csv), "--json", str(out)],
                          cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    summary = json.loads(out.read_text())
    assert summary["errors"] == 0, (summary["error_samples"], proc.stdout[-2000:])
    assert summary["shared"]["parses_per_process"] == [1, 1]
    assert summary["shared"]["students_seeing_it"] == 3
    assert summary["checks"]["shared_parsed_once_per_process"]


@pytest.mark.slow
def test_quick_run_through_the_deployment(tmp_path):
    """3 students through deploy/nblab_deploy.py's HAProxy on 2 processes (shares on PostgreSQL): each
    student got the proxy's stickiness cookie, no errors, both processes measured."""
    missing = deploy_module().missing_programs()
    if missing:
        pytest.skip("; ".join(missing))
    out = tmp_path / "quick_proxy.json"
    proc = subprocess.run([sys.executable, str(ROOT / "loadtest" / "run_load.py"), "--quick", "--deploy", "2",
                           "--json", str(out)], cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    assert out.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    summary = json.loads(out.read_text())
    assert summary["errors"] == 0, (summary["error_samples"], proc.stdout[-2000:])
    assert summary["sessions_completed"] == 3
    per = summary["students_per_process"]
    assert sum(per.values()) == 3 and set(per) <= {"app0", "app1"}, per
    assert len(summary["rss_peak_per_process_mb"]) == 2 and min(summary["rss_peak_per_process_mb"]) > 0
