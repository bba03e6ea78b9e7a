"""A full disk under the SQLite store (dashboard/data/store/sqlite.py), on a real server: the store lives on a
4 MB tmpfs that is then filled to the last byte. Students' reads go on (state.json, the class page, a shared
data set's data, an unknown class's 404), a write fails with the store's message, and the log has one line
per failure, never a traceback. Needs root (it mounts the tmpfs); skipped otherwise, failed in CI."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from dashboard import class_link as C
from dashboard.class_link import store as CS
from dashboard.data import store as S
from kit.server import streamlit_server

CSV = b"text,label\n" + b"".join(b"cheap pills now %d,spam\nlunch at noon %d,ham\n" % (i, i) for i in range(20))


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.fixture
def small_disk(tmp_path):
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        msg = f"cannot mount a small tmpfs (needs root): {r.stderr.strip()}"
        if os.environ.get("CI"):
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def fill(mnt: Path) -> None:
    """Write a file until the filesystem has no byte left."""
    for name, size in (("filler", 4096), ("filler2", 1)):     # then the last partial block too
        with open(mnt / name, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError:
                pass
    st = os.statvfs(mnt)
    assert st.f_bavail == 0, st


def test_reads_go_on_when_the_disk_is_full(small_disk, monkeypatch, caplog):
    store_dir = small_disk / "store"
    monkeypatch.setenv("NBLAB_STORE_DIR", str(store_dir))
    monkeypatch.delenv("NBLAB_STORE_URL", raising=False)
    CS._STORES.clear()
    store = CS.get_store()
    share = store.put("pills.csv", CSV, {}, owner="teacher")
    cid, key = C.open_class("toy_spam", {"t": 3}, store=store)
    cid2, _ = C.open_class(share.id, {"t": 0}, store=store)
    # one class per round of reads below, never read before: its state can only come from the store
    fresh = [C.open_class("toy_spam", {"t": 5 + i}, store=store)[0] for i in range(3)]
    log_path = small_disk.parent / "server.log"
    with streamlit_server(env={"NBLAB_STORE_DIR": str(store_dir), "NBLAB_WARM": "0"}, timeout=90.0,
                          log_path=log_path) as srv:
        base = srv.url
        # the server answers while the disk has room (its store is open from now on)
        assert get(f"{base}/class/{cid}/state.json")[0] == 200
        assert get(f"{base}/class/data/{share.id}.json")[0] == 200
        fill(small_disk)
        # this process's write (the teacher's next Step) fails with the store's message and one log line
        with caplog.at_level(logging.ERROR, logger="dashboard.data.store"):
            with pytest.raises(S.StoreUnavailable, match="not available right now"):
                C.publish(cid, key, {"t": 4}, store=store)
        rec = [r for r in caplog.records if r.name == "dashboard.data.store"]
        assert rec and not rec[-1].exc_info and "\n" not in rec[-1].getMessage(), rec
        store.close()
        CS._STORES.clear()
        # students: each round reads a class the server has not read yet (no cache can answer for it: the
        # store does, on its disk that is full), then the others
        deadline = time.monotonic() + 30
        for i, new in enumerate(fresh):
            status, body = get(f"{base}/class/{new}/state.json")
            assert status == 200 and json.loads(body)["t"] == 5 + i, (status, body[:200])
            status, body = get(f"{base}/class/{cid}/state.json")
            assert status == 200, (status, body[:200])
            assert json.loads(body)["t"] == 3
            status, body = get(f"{base}/class/{cid}")
            assert status == 200 and b"nblab-config" in body, (status, body[:200])
            assert get(f"{base}/class/{cid2}/state.json")[0] == 200
            assert get(f"{base}/class/{'Z' * 16}/state.json")[0] == 404
            assert get(f"{base}/class/data/{share.id}.json")[0] == 200
            assert time.monotonic() < deadline
    log = log_path.read_text()
    assert "Traceback" not in log, log[-3000:]
