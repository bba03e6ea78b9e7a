"""A fair share of the server per client (dashboard/serve): the heavy-work gate's limit and its order,
the waiting notice, the per-client caps, and memory handed back. Orders, limits and counters are
checked, never milliseconds (a loaded 2-core CI machine must pass them the same)."""
from __future__ import annotations

import threading

import pytest

from dashboard.serve import memory
from dashboard.serve.gate import FairGate, wait_until


def _job(gate, client, started, release, log):
    with gate.hold(client):
        log.append(client)
        started.set()
        release.wait(30)


def test_at_most_slots_heavy_jobs_run_at_once_and_the_rest_wait():
    gate = FairGate(2, poll=0.05)
    release = threading.Event()
    log, threads = [], []
    for i in range(6):
        t = threading.Thread(target=_job, args=(gate, "address:a", threading.Event(), release, log), daemon=True)
        t.start()
        threads.append(t)
    assert wait_until(lambda: gate.running == 2 and gate.waiting == 4)
    assert len(log) == 2
    release.set()
    for t in threads:
        t.join(30)
    s = gate.stats()
    assert s["granted"] == 6 and s["waited"] == 4 and s["peak_running"] == 2 and s["running"] == 0


def test_one_clients_queue_does_not_hold_back_another_clients_job():
    """Client A queues 10 heavy jobs; client B asks for one after them: B's goes next, not 11th."""
    gate = FairGate(1, poll=0.05)
    gates = {}
    order = []

    def job(client, i):
        ev = gates[(client, i)] = threading.Event()
        with gate.hold(client):
            order.append((client, i))
            ev.wait(30)

    threads = [threading.Thread(target=job, args=("address:a", i), daemon=True) for i in range(10)]
    threads[0].start()
    assert wait_until(lambda: gate.running == 1)
    for t in threads[1:]:
        t.start()
    assert wait_until(lambda: gate.waiting == 9)
    tb = threading.Thread(target=job, args=("address:b", 0), daemon=True)
    tb.start()
    assert wait_until(lambda: gate.waiting == 10)
    gates[("address:a", 0)].set()                       # A's first job ends: B's job is next
    assert wait_until(lambda: len(order) == 2)
    assert order[1] == ("address:b", 0), order
    for ev in list(gates.values()):
        ev.set()
    assert wait_until(lambda: len(order) == 11 and gate.running == 0, timeout=30)
    for ev in list(gates.values()):
        ev.set()


def test_heavy_work_is_reentrant_and_a_waiting_job_is_told_and_can_leave():
    gate = FairGate(1, poll=0.05)
    with gate.hold("address:a"):
        with gate.hold("address:a"):                    # nested: no second slot, no deadlock
            assert gate.running == 1
        told = []

        class Stop(Exception):
            pass

        def on_wait(ahead):
            told.append(ahead)
            if len(told) >= 3:
                raise Stop                              # Streamlit stopping an outdated run

        err = []

        def waiter():
            try:
                with gate.hold("address:b", on_wait=on_wait):
                    pass
            except Stop:
                err.append("stopped")

        t = threading.Thread(target=waiter, daemon=True)
        t.start()
        t.join(30)
        assert err == ["stopped"] and told[0] == 0 and gate.waiting == 0
    assert gate.running == 0


def test_memory_is_trimmed_after_heavy_work_and_when_sessions_end(monkeypatch):
    monkeypatch.setattr(memory, "TRIM_EVERY", 0.0)
    before = memory.trims()
    assert memory.trim() and memory.trims() == before + 1
    sessions = [30]
    j = memory.Janitor(lambda: sessions[0], every=3600)
    assert not j.look()                                  # first look: nothing ended yet
    sessions[0] = 2                                      # the wave left
    assert j.look() and memory.trims() == before + 2
    assert not j.look()                                  # nothing new
    reaped = [0]
    j = memory.Janitor(lambda: 2, every=3600, reap=lambda: reaped[0])
    assert not j.look()
    reaped[0] = 3                                        # closed tabs' sessions dropped after their TTL
    assert j.look() and memory.trims() == before + 3
    if memory.available():
        assert memory.rss_bytes() > 0


def test_the_waiting_notice_is_shown_while_a_job_waits():
    """AppTest: a page whose heavy work waits shows "Waiting for the server" and then runs."""
    from streamlit.testing.v1 import AppTest

    from dashboard.serve import heavy_work

    def page():
        import streamlit as st

        from dashboard.serve import heavy_work
        with heavy_work.heavy():
            st.write("done")

    held = threading.Event()
    release = threading.Event()

    def other():
        with heavy_work.GATE.hold("address:someone-else"):
            held.set()
            release.wait(60)

    t = threading.Thread(target=other, daemon=True)
    t.start()
    assert held.wait(10)
    at = AppTest.from_function(page, default_timeout=60)
    runner = threading.Thread(target=at.run, daemon=True)
    runner.start()
    assert wait_until(lambda: heavy_work.GATE.waiting == 1, timeout=30)
    release.set()
    runner.join(60)
    assert not at.exception
    assert [m.value for m in at.markdown] == ["done"]
    assert heavy_work.GATE.stats()["waited"] >= 1


def test_a_client_over_its_session_limit_gets_a_short_page(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from dashboard.serve import quotas
    from kit import ROOT

    monkeypatch.setenv("NBLAB_SESSIONS_PER_CLIENT", "2")
    monkeypatch.setattr(quotas, "_SESSIONS", {"s1": "address:unknown", "s2": "address:unknown"})
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert any("2 pages of the lab open" in w.value for w in at.warning), [w.value for w in at.warning]
    assert not at.selectbox                               # no lesson drawn for it
    monkeypatch.setenv("NBLAB_SESSIONS_PER_CLIENT", "3")
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception and at.selectbox


def test_uploads_per_client_are_capped(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from dashboard.serve import quotas
    from kit import ROOT

    monkeypatch.setenv("NBLAB_UPLOADS_PER_CLIENT", "1")
    monkeypatch.setattr(quotas, "_SESSIONS", {"s1": "address:unknown"})
    monkeypatch.setattr(quotas, "_UPLOADS", {"s1"})
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.session_state["pending_upload"] = ("mine.csv", b"text,label\nwin cash,spam\nlunch now,ham\nhi,\n")
    at.run()
    assert not at.exception
    shown = " ".join(e.value for e in at.error)
    assert "1 uploaded files open" in shown and at.session_state["dataset"] != "upload"


def test_the_event_model_advice_on_an_upload_is_heavy_work(monkeypatch):
    """Scoring both event models on an upload re-vectorises the whole text: it must hold a heavy-work
    slot (and run in the worker process), or one client's uploads run it beside the gated work and
    slow every other student's Step."""
    from streamlit.testing.v1 import AppTest

    from dashboard.serve import heavy_work, offload
    from kit import ROOT
    from nblab import advice

    held = []
    real = offload.run

    def recording(fn, *a, **k):
        if fn is advice.model_advice:
            held.append(getattr(heavy_work.GATE._local, "depth", 0))
        return real(fn, *a, **k)

    monkeypatch.setattr(offload, "run", recording)
    rows = "".join(f"win cash prize {i},spam\nlunch at noon {i},ham\nsee you {i},\n" for i in range(20))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.session_state["pending_upload"] = ("mine.csv", ("text,label\n" + rows).encode())
    at.run()      # the upload's own run holds a slot from its start (dashboard.serve.page_run)
    assert not at.exception
    assert at.session_state["dataset"] == "upload"
    held.clear()
    at.slider(key="hidden").set_value(at.slider(key="hidden").value - 10).run()   # a new run: advice again
    assert not at.exception
    assert held and all(d >= 1 for d in held), held


def test_heavy_work_leaves_the_trim_to_the_janitor_and_never_collects_in_a_students_thread(monkeypatch):
    """The end of heavy work only asks for a trim: a full garbage collection holds the GIL while it
    walks every object, so done in a script thread (or after every heavy job) it stalls every other
    student's Step. The janitor trims in its own thread, and collects only when sessions went away."""
    collected = []
    monkeypatch.setattr(memory.gc, "collect", lambda *a: collected.append(threading.get_ident()) or 0)
    monkeypatch.setattr(memory, "TRIM_EVERY", 0.0)
    before = memory.trims()
    memory.request()                                      # what heavy_work.heavy() does when its work ends
    assert memory.trims() == before and not collected
    sessions = [5]
    j = memory.Janitor(lambda: sessions[0], every=3600)
    assert j.look() and memory.trims() == before + 1      # the pending trim, in the janitor's look
    assert not collected                                  # ... without a full collection
    sessions[0] = 1                                       # sessions ended: now collect their cycles
    assert j.look() and memory.trims() == before + 2 and len(collected) == 1


_FREED_BIG_BLOCK = r"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("memory", sys.argv[1] + "/dashboard/serve/memory.py")
memory = importlib.util.module_from_spec(spec)
spec.loader.exec_module(memory)          # the module alone: importing dashboard.serve would tune already
if sys.argv[2] == "tuned":
    memory.tune_allocator({})
big = bytearray(12 * 2**20); del big        # glibc would now raise its mmap threshold to 12 MB
r0 = memory.rss_bytes()
block = bytearray(6 * 2**20)                 # touched (zero-filled): 6 MB resident
r1 = memory.rss_bytes()
del block
r2 = memory.rss_bytes()
print((r1 - r0) / 2**20, (r1 - r2) / 2**20)
"""


@pytest.mark.skipif(not memory.available(), reason="glibc's allocator only")
def test_a_freed_run_sized_array_goes_back_to_the_system_at_once():
    """With the tuned allocator, a 6 MB block (a run's array) freed after a larger one was freed is
    returned to the system immediately; with glibc's defaults it stays in the process."""
    import subprocess
    import sys

    from kit import ROOT

    def given_back(mode):
        out = subprocess.run([sys.executable, "-c", _FREED_BIG_BLOCK, str(ROOT), mode], env={"PATH": "/usr/bin:/bin"},
                             capture_output=True, text=True, check=True).stdout.split()
        grew, back = map(float, out)
        assert grew > 5, out            # the block was resident
        return back

    assert given_back("tuned") > 5       # all of it back at once
    assert given_back("default") < 1     # glibc's default: kept (the case the tuning is for)


def test_an_ended_sessions_state_is_emptied_even_if_its_session_object_lingers(monkeypatch):
    """A session the server no longer holds (neither connected nor kept for a reconnect) can never
    be reached again: if something still keeps its AppSession alive, its state (an upload, a run's
    history) is emptied by the janitor's reap. A session the server still holds keeps its state."""
    import weakref

    from streamlit.runtime.state.session_state import SessionState

    from dashboard.serve import janitor

    class Session:                      # the attribute AppSession keeps its state in
        def __init__(self):
            self._session_state = SessionState()
            self._session_state["run"] = list(range(1000))

    gone, kept = Session(), Session()
    monkeypatch.setattr(janitor, "_HELD", {"gone": weakref.ref(gone), "kept": weakref.ref(kept),
                                         "collected": weakref.ref(Session())})
    assert janitor.release_ended({"kept"}) == 1
    assert "run" not in gone._session_state and "run" in kept._session_state
    assert set(janitor._HELD) == {"kept"}
    assert janitor.release_ended({"kept"}) == 0


def test_the_reap_empties_ended_sessions(monkeypatch):
    """The janitor's reap (dashboard.serve.janitor.reap_expired_sessions) releases ended sessions' state."""
    from dashboard.serve import janitor, sessions

    calls = []
    monkeypatch.setattr(sessions, "live_session_ids", lambda: {"a"})
    monkeypatch.setattr(janitor, "release_ended", lambda live: calls.append(live) or 2)

    class Cache:
        def expire(self):
            return []

    class Mgr:
        _session_storage = type("S", (), {"_cache": Cache()})()
        _storage_lock = None

    class Runtime:
        @staticmethod
        def exists():
            return True

        @staticmethod
        def instance():
            return type("R", (), {"_session_mgr": Mgr()})()

    import streamlit.runtime
    monkeypatch.setattr(streamlit.runtime, "Runtime", Runtime)
    assert janitor.reap_expired_sessions() == 2 and calls == [{"a"}]
