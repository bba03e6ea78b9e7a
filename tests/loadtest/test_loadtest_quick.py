"""Smoke runs of the load test (3 sessions, 10 s each: `python loadtest/run_load.py --quick`): one server, two
servers with a shared link, and through the deployment; and the class answers (a class of 6 on one server,
each student reporting its own EM start once).

The three runs start together in one module fixture and each test reads its own run's summary: a run
spends most of its 20 s waiting on its students' think times, so side by side they take the time of
one instead of three."""
import json
import subprocess
import sys

import pytest

from kit import ROOT
from kit.deploy import deploy_module

RUN_LOAD = str(ROOT / "loadtest" / "run_load.py")


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory):
    """{name: (summary or None, stdout + stderr)} of the three smoke runs, started at once."""
    tmp = tmp_path_factory.mktemp("quick")
    csv = tmp / "class_mail.csv"
    csv.write_text("text,label\n" + "".join(f"win cash prize {i},spam\nlunch meeting notes {i},ham\n"
                                           f"free cash lunch {i},\n" for i in range(40)))
    flags = {"one": [], "shared": ["--ramp", "0", "--replicas", "2", "--shared", str(csv)],
             "answers": ["--class-link", "--sessions", "6", "--duration", "14", "--ramp", "1", "--answers", "report",
                         "--answer-window", "3", "--teacher-every", "1", "2"]}
    if not deploy_module().missing_programs():
        flags["deploy"] = ["--deploy", "2"]
    procs = {name: (tmp / f"{name}.json",
                    subprocess.Popen([sys.executable, RUN_LOAD, *([] if name == "answers" else ["--quick"]), *f, "--json", str(tmp / f"{name}.json")],
                                     cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
             for name, f in flags.items()}
    out = {}
    try:
        for name, (path, proc) in procs.items():
            log, _ = proc.communicate(timeout=300)
            out[name] = (json.loads(path.read_text()) if path.exists() else None, log[-4000:])
    finally:
        for _, proc in procs.values():
            if proc.poll() is None:
                proc.kill()
    return out


def _summary(quick_runs, name):
    summary, log = quick_runs[name]
    assert summary is not None, f"the {name} run wrote no summary:\n{log}"
    return summary, log


@pytest.mark.slow
def test_quick_load_run(quick_runs):
    summary, log = _summary(quick_runs, "one")
    assert summary["sessions_completed"] == 3, log[-2000:]
    assert summary["errors"] == 0, summary["error_samples"]
    assert summary["interactions"] > 0
    # latency/memory targets are for the full run on a quiet machine; the smoke run only checks they are measured
    assert summary["latency_s"]["interaction"]["p95"] is not None
    assert summary["rss_mb"]["peak"] > 0


@pytest.mark.slow
def test_quick_shared_link_run(quick_runs):
    """3 students open one shared link at the same moment, on 2 server processes: each process
    parses the file once, every student sees the shared data set, no errors."""
    summary, log = _summary(quick_runs, "shared")
    assert summary["errors"] == 0, (summary["error_samples"], log[-2000:])
    assert summary["shared"]["parses_per_process"] == [1, 1]
    assert summary["shared"]["students_seeing_it"] == 3
    assert summary["checks"]["shared_parsed_once_per_process"]


@pytest.mark.slow
def test_quick_run_through_the_deployment(quick_runs):
    """3 students through deploy/nblab_deploy.py's HAProxy on 2 processes (shares on PostgreSQL): each
    student got the proxy's stickiness cookie, no errors, both processes measured."""
    missing = deploy_module().missing_programs()
    if missing:
        pytest.skip("; ".join(missing))
    summary, log = _summary(quick_runs, "deploy")
    assert summary["errors"] == 0, (summary["error_samples"], log[-2000:])
    assert summary["sessions_completed"] == 3
    per = summary["students_per_process"]
    assert sum(per.values()) == 3 and set(per) <= {"app0", "app1"}, per
    assert len(summary["rss_peak_per_process_mb"]) == 2 and min(summary["rss_peak_per_process_mb"]) > 0


@pytest.mark.slow
def test_a_class_answers_one_question_under_load(quick_runs):
    """6 students following a class each ask for their seed and report their own start once: every answer
    acknowledged, the teacher's tally counts exactly the 6 (one per token), the teacher stepped during the run."""
    summary, log = _summary(quick_runs, "answers")
    a = summary["answers"]
    assert a is not None and "answered" in a, (a, log[-2000:])
    assert a["answered"] == 6 and a["errors"] == 0, (a["error_samples"], log[-2000:])
    assert a["tally_final"] == 6 and a["tally_s"] is not None
    assert a["answer_p95"] is not None and summary["teacher_steps"] >= 1
    assert summary["errors"] == 0, summary["error_samples"]
