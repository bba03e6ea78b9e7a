"""Heavy Python work in a worker process (dashboard/serve/offload.py): results and errors come back
as they would in-process, a dead worker is an error and not a hang, and an upload's parsing really
runs outside the server's process (so it never holds the GIL other students' scripts need)."""
from __future__ import annotations

import os

import pytest

from dashboard.serve import offload


def _pid_and(x):
    return os.getpid(), x * 2


def _raise_value(msg):
    raise ValueError(msg)


def _raise_key():
    raise KeyError("k")


def _die():
    os._exit(3)


def test_the_work_runs_in_another_process_and_its_result_comes_back():
    pid, out = offload.run(_pid_and, 21)
    assert out == 42 and pid != os.getpid()


def test_errors_come_back_as_the_same_kind_with_the_same_message():
    with pytest.raises(ValueError, match="^No label column: name one$"):
        offload.run(_raise_value, "No label column: name one")
    with pytest.raises(KeyError):
        offload.run(_raise_key)


def test_a_worker_that_dies_is_an_error_not_a_hang():
    died = offload.stats()["died"]
    with pytest.raises(offload.WorkerDied, match="exit code 3"):
        offload.run(_die)
    assert offload.stats()["died"] == died + 1


def test_switched_off_it_runs_in_this_process(monkeypatch):
    monkeypatch.setenv("NBLAB_HEAVY_PROCESS", "0")
    assert offload.run(_pid_and, 1) == (os.getpid(), 2)


def test_an_upload_is_parsed_outside_the_server_process(monkeypatch):
    """With nbcore's CSV reader broken in this (the server's) process, an upload still reads: the
    reading happened in a worker. Before, it was parsed in the script's thread, holding the GIL."""
    from streamlit.testing.v1 import AppTest

    import nbcore
    from kit import ROOT

    def broken(*a, **k):
        raise RuntimeError("parsed in the server process")

    monkeypatch.setattr(nbcore, "read_csv", broken)
    monkeypatch.setattr("dashboard.data.upload_columns.inspect_csv", broken)
    jobs = offload.stats()["jobs"]
    rows = "".join(f"win cash prize {i},spam\nlunch at noon {i},ham\nsee you {i},\n" for i in range(10))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120)
    at.session_state["pending_upload"] = ("mine.csv", ("text,label\n" + rows).encode())
    at.run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["dataset"] == "upload"
    assert offload.stats()["jobs"] > jobs


def _my_nice():
    return os.nice(0)


def test_the_worker_runs_at_a_lower_cpu_priority(monkeypatch):
    """When the cores are busy, a Step in the server goes before an upload's parsing."""
    monkeypatch.setenv("NBLAB_HEAVY_NICE", "7")
    assert offload.run(_my_nice) == min(19, os.nice(0) + 7)
