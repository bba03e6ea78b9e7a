"""The class link in the deployment (deploy/nblab_deploy.py: 2 app processes running dashboard/server.py behind
HAProxy, the store on PostgreSQL): a class opened through the store is served by both processes (each
port directly, and through the proxy without any cookie), follows a publish on every process, and
survives a restart of one app process. Students in Chromium following it through the proxy with every
WebSocket refused: tests/browser/test_deploy_proxy.py."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from kit import ROOT
from kit.deploy import deployment as kit_deployment
from kit.deploy import require_deploy_programs

require_deploy_programs()
pytest.importorskip("psycopg")


@pytest.fixture(scope="module")
def deployment():
    with kit_deployment("nblab_deploy_class_") as info:
        yield info


def get(url: str, headers: dict | None = None, timeout: float = 30) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def _store(url: str):
    from dashboard.data import store as S
    return S.open_store(url)


def _bases(dep) -> list[str]:
    return [f"http://127.0.0.1:{p['port']}" for p in dep["processes"]]


def _serves(base: str, cid: str, v: int) -> None:
    status, h, body = get(f"{base}/class/{cid}")
    assert status == 200 and h["content-type"].startswith("text/html"), (base, status, body[:300])
    assert f'"state":"{cid}/state.json"' in body.decode()
    assert "set-cookie" not in h   # no session, no stickiness for the class link
    status, h, body = get(f"{base}/class/data/toy_spam.json", {"Accept-Encoding": "gzip"})
    assert status == 200 and h["cache-control"].endswith("immutable") and h["content-encoding"] == "gzip"
    deadline = time.time() + 5
    while True:
        status, h, body = get(f"{base}/class/{cid}/state.json")
        assert status == 200, (base, status, body[:300])
        if json.loads(body)["v"] == v or time.time() > deadline:
            break
        time.sleep(0.1)
    st = json.loads(body)
    assert st["class"] == cid and st["v"] == v and h["etag"] == f'"{v}"'


def test_a_class_is_served_by_every_process_and_through_the_proxy(deployment):
    from dashboard import class_link as C

    store = _store(deployment["store_url"])
    try:
        cid, key = C.open_class("toy_spam", {"settings": {"hidden": 50, "lam": 1.0}, "t": 1}, store=store)
        for base in _bases(deployment):
            _serves(base, cid, 1)
        # through HAProxy: no cookie is needed or set, every request answers (whichever process)
        for _ in range(6):
            _serves(deployment["url"], cid, 1)
        # a publish is seen on every process
        assert C.publish(cid, key, {"settings": {"hidden": 50, "lam": 1.0}, "t": 2, "half": "e"}, store=store) == 2
        for base in _bases(deployment) + [deployment["url"]]:
            _serves(base, cid, 2)
        # the proxy: a class URL with anything but GET/HEAD is refused there
        req = urllib.request.Request(f"{deployment['url']}/class/{cid}/state.json", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=30)
        assert e.value.code == 405
        # unknown class: 404 from every process
        for base in _bases(deployment) + [deployment["url"]]:
            assert get(f"{base}/class/{'A' * 16}/state.json")[0] == 404
        # the Streamlit app still sets its stickiness cookie on its own pages
        status, h, _ = get(deployment["url"] + "/")
        assert status == 200 and "NBLAB=" in h.get("set-cookie", "")
        cfg = Path(deployment["haproxy"]["config"]).read_text()
        assert "backend classlink" in cfg and "use_backend classlink if class_link" in cfg
    finally:
        store.close()


# what a client may say it accepts, each read twice through the proxy (the second from its cache)
ENCODINGS = ["gzip", "identity", "gzip;q=0", "", "gzip, deflate, br", "*", "gzip;q=0, identity", "x-gzip",
             "*;q=0, identity", "deflate"]


def test_the_proxy_keeps_the_shipped_data_and_assets_and_never_a_share(deployment):
    """The shipped data sets and the page's assets come from HAProxy's cache after their first request
    (``Age``: the cache answered, no app process), in the encoding the app itself sends for that
    Accept-Encoding (q=0 honoured); a shared data set always reaches an app process, so a deleted share
    stops at once through the proxy too."""
    from nblab import site

    direct = _bases(deployment)[0]
    asset = next(n for n in site.assets() if n.endswith(".js"))
    for path in ("/class/data/sms_spam.json", "/class/data/toy_spam.json", f"/class/assets/{asset}"):
        for enc in ENCODINGS:
            want_status, want_h, want_body = get(direct + path, {"Accept-Encoding": enc})
            assert want_status == 200, (path, enc)
            for i in range(2):
                status, h, body = get(deployment["url"] + path, {"Accept-Encoding": enc})
                assert status == 200 and body == want_body, (path, enc, i)
                assert h.get("content-encoding") == want_h.get("content-encoding"), (path, enc, i, h)
                assert h["etag"] == want_h["etag"] and h["cache-control"] == want_h["cache-control"]
            assert "age" in h, (path, enc, "the second request was not answered from the proxy's cache")
    store = _store(deployment["store_url"])
    try:
        receipt = store.put("words.csv", b"text,label\nwin cash now,spam\nsee you at lunch,ham\n", {}, owner="t")
        path = f"/class/data/{receipt.id}.json"
        for i in range(3):
            status, h, _ = get(deployment["url"] + path, {"Accept-Encoding": "gzip"})
            assert status == 200 and h["cache-control"].startswith("private") and "age" not in h, (i, h)
        assert store.delete(receipt.id, receipt.delete_secret)
        assert get(deployment["url"] + path, {"Accept-Encoding": "gzip"})[0] == 404
    finally:
        store.close()


def test_a_students_answer_passes_the_proxy_and_nothing_else_that_writes(deployment):
    """The proxy lets a POST through only to a question's answer and assignment routes (the app checks the
    rest); any other POST under /class/ is refused there with 405."""
    from dashboard import class_link as C
    from dashboard.class_link import answers as A

    store = _store(deployment["store_url"])
    try:
        cid, key = C.open_class("toy_spam", {"t": 0}, store=store)
        A.ask(cid, key, "q1", "choice", options=["up", "down"], store=store)
        token = "T" * 32
        for i, choice in enumerate(["up", "down"]):
            body = json.dumps({"token": token, "answer": choice}).encode()
            req = urllib.request.Request(f"{deployment['url']}/class/{cid}/q/q1/answer", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as r:
                assert r.status == 200 and json.loads(r.read())["replaced"] is bool(i)
        assert A.tally(cid, key, "q1", store=store)["n"] == 1
        for path in (f"/class/{cid}/q/q1", f"/class/{cid}/state.json", f"/class/{cid}/q/q1/answer/x",
                     f"/class/{cid}/q/q1/tally"):
            req = urllib.request.Request(deployment["url"] + path, data=b"{}", method="POST")
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(req, timeout=30)
            assert e.value.code == 405, path
    finally:
        store.close()


def test_a_class_survives_a_restart_of_one_app_process(deployment):
    from dashboard import class_link as C

    store = _store(deployment["store_url"])
    try:
        cid, key = C.open_class("toy_spam", {"t": 0}, store=store)
        app0 = deployment["processes"][0]
        os.kill(app0["pid"], signal.SIGTERM)
        deadline = time.time() + 30
        while get_ok(f"http://127.0.0.1:{app0['port']}/_stcore/health") and time.time() < deadline:
            time.sleep(0.2)
        # while it is down, the proxy still answers the class (the other process, from the shared store)
        for _ in range(6):
            _serves(deployment["url"], cid, 1)
        assert C.publish(cid, key, {"t": 5}, store=store) == 2
        # start it again (as the deployment does: same command, same store URL, same port)
        env = dict(os.environ, NBLAB_STORE_URL=deployment["store_url"], PYTHONUNBUFFERED="1")
        env.pop("NBLAB_STORE_DIR", None)
        log = open(Path(deployment["state_dir"]) / "logs" / "app0-restarted.log", "w")
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "dashboard/server.py",
                                 "--server.headless", "true", "--server.address", "127.0.0.1",
                                 "--server.port", str(app0["port"]), "--browser.gatherUsageStats", "false"],
                                cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        log.close()
        deployment["extra"].append(proc)
        deadline = time.time() + 90
        while not get_ok(f"http://127.0.0.1:{app0['port']}/_stcore/health"):
            assert proc.poll() is None, "the restarted app process exited"
            assert time.time() < deadline, "the restarted app process did not answer"
            time.sleep(0.2)
        for base in _bases(deployment) + [deployment["url"]]:
            _serves(base, cid, 2)
    finally:
        store.close()


def get_ok(url: str) -> bool:
    try:
        return get(url, timeout=2)[0] == 200
    except OSError:
        return False
