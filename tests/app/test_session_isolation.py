"""Session isolation: one student's upload, run or notice never reaches another session.

Two students on one server: one uploads a CSV and runs EM, the other must see
neither the file nor the run. Checked three ways:

* two independent AppTest sessions in this one process (so any module-level or
  cross-session cache state in dashboard/ would leak between them exactly as it
  would between two browser tabs on one server);
* two websocket clients against a real `streamlit run` server
  (loadtest/stclient.py speaks Streamlit's protocol);
* a static (AST) check of dashboard/*.py: no st.cache_resource, no st.cache_data
  function that takes user data, no module-level mutable object that a function
  mutates or rebinds with `global`.
"""
from __future__ import annotations

import ast
import asyncio
import sys
from pathlib import Path

import pytest

from kit.apptest import page_text  # noqa: E402
from kit.server import streamlit_server  # noqa: E402
from nblab.defaults import DEFAULTS

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboard" / "app.py")
DASHBOARD = ROOT / "dashboard"

st_testing = pytest.importorskip("streamlit.testing.v1")
AppTest = st_testing.AppTest

SECRET_NAME = "zz_private_gradebook.csv"
SECRET_WORD = "qwertzsecretword"   # a word only in A's file: must never reach B's page
SECRET_CSV = ("text,label\n" + "\n".join(
    [f"cheap pills {SECRET_WORD} buy now,spam", "meeting at noon tomorrow,ham",
     f"win a free cruise lottery {SECRET_WORD},spam", "lunch with the project team,ham",
     f"free lottery winner {SECRET_WORD} claim,", "team meeting notes attached,"] * 5) + "\n").encode()


# ------------------------------------------------------------------ helpers



def metric(at, label_start: str) -> str:
    for m in at.metric:
        if m.label.startswith(label_start):
            return m.value
    raise AssertionError(f"no metric {label_start!r}: {[m.label for m in at.metric]}")


def fresh(timeout: float = 60) -> "AppTest":
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


# ------------------------------------------------------------------ AppTest sessions
def test_upload_and_run_stay_in_their_session():
    a = fresh()
    b = fresh()          # B is open before A uploads ...

    a.file_uploader(key="uploader").upload(SECRET_NAME, SECRET_CSV, "text/csv").run()
    assert not a.exception, [e.value for e in a.exception]
    assert a.selectbox(key="dataset").value == "upload", "A's upload should become A's data set"
    a.slider(key="hidden").set_value(50).run()
    a.button(key="step").click().run()
    a.button(key="step").click().run()
    assert not a.exception
    a_iter = metric(a, "Iteration")
    assert a_iter == "2"

    b.run()              # ... and reruns after it; C opens only after it
    c = fresh()
    for other in (b, c):
        assert not other.exception, [e.value for e in other.exception]
        ds = other.selectbox(key="dataset")
        assert ds.value != "upload"
        assert not any("upload" in str(o) or SECRET_NAME in str(o) for o in ds.options), ds.options
        page = page_text(other)
        assert SECRET_NAME not in page, "another session's file name is on the page"
        assert SECRET_WORD not in page, "another session's data is on the page"
        assert metric(other, "Iteration") == "0", "another session's EM steps are visible"
        assert other.slider(key="hidden").value == DEFAULTS["hidden"], "another session's slider moved"
        assert other.session_state["upload_ds"] is None
        assert other.session_state["upload_name"] is None
        assert other.session_state["lesson"].run is not a.session_state["lesson"].run

    # B working does not disturb A either
    b.button(key="step").click().run()
    a.run()
    assert a.selectbox(key="dataset").value == "upload"
    assert metric(a, "Iteration") == a_iter
    assert a.slider(key="hidden").value == 50


def test_failed_upload_message_is_per_session():
    a = fresh()
    b = fresh()
    a.file_uploader(key="uploader").upload("broken.csv", b"\x00\x01\x02 not a csv", "text/csv").run()
    assert a.error, "A should see a message about its broken file"
    b.run()
    assert not b.error, [e.value for e in b.error]
    assert "broken.csv" not in page_text(b)


# ------------------------------------------------------------------ static checks
MUTATING_METHODS = {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update",
                    "setdefault", "add", "discard", "appendleft", "extendleft", "sort", "reverse",
                    "__setitem__", "__delitem__"}
MUTABLE_CALLS = {"list", "dict", "set", "defaultdict", "deque", "OrderedDict", "Counter", "bytearray"}


def _modules():
    return sorted(p for p in DASHBOARD.rglob("*.py") if "__pycache__" not in p.parts)


def _is_mutable_value(node) -> bool:
    if isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(node, ast.Call):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        return name in MUTABLE_CALLS
    return False


def _decorator_names(fn) -> list[str]:
    out = []
    for d in fn.decorator_list:
        d = d.func if isinstance(d, ast.Call) else d
        out.append(ast.unparse(d))
    return out


# Process-wide state that is shared on purpose, each with its reason. dashboard/lesson/sharing.py
# holds a data set a teacher *published* by link: the same bytes for everyone who has the
# link, so one parse per process is the point; the store connection is per
# process and configuration; _PARSES is a parse counter
# (no user content). dashboard/data/datasets.py keeps the *shipped* data sets, the same for
# everyone, one object per process with read-only arrays (load_shipped; uploads never go there).
# dashboard/serve/ shares the server fairly between clients: which session belongs to which client
# (quotas.py: session ids and client addresses, no user content), the janitor thread (janitor.py) and the
# allocator trims' bookkeeping (memory.py) are process-wide by nature, under a lock; so are the heavy-work worker's multiprocessing
# context and its job counters (dashboard/serve/offload.py; the jobs' data goes to the worker and back,
# never into module state).
# dashboard/class_link/ answers the class link's plain HTTP requests, outside any session: the store
# connection per process, a class's state for 0.25 s (what every student of that class is sent anyway),
# the gzipped lab data per data key (shipped sets, and shares, which are public to whoever has the link),
# the hashed assets; all under locks, none of it a session's. dashboard/class_link/answers.py keeps a question
# and its revealed tally for 0.25 s per process (what every student of the class may read anyway).
# dashboard/pagekit/warm.py warms a fresh server process once (its thread and what it did: no session's data).
# dashboard/serve/modules.py keeps the app's own JavaScript modules (the same code for every browser) and
# whether the app's routes serve them, set once when the process starts.
# dashboard/class_link/teacher_key.py prints the server's own teacher key once per process (which keys it
# printed: the server's, no session's); dashboard/serve/http_limits.py holds the HTTP server's header and body
# limits, set once when the process starts.
# Anything else must stay per session.
SHARED_ON_PURPOSE = {"dashboard/class_link/teacher_key.py", "dashboard/serve/http_limits.py",
                     "dashboard/lesson/sharing.py", "dashboard/data/datasets.py", "dashboard/serve/quotas.py",
                     "dashboard/serve/janitor.py", "dashboard/serve/memory.py", "dashboard/serve/offload.py", "dashboard/serve/modules.py",
                     "dashboard/class_link/routes.py", "dashboard/class_link/store.py", "dashboard/class_link/answers.py",
                     "dashboard/pagekit/warm.py"}


def test_no_cache_resource_in_dashboard():
    hits = []
    for path in _modules():
        if str(path.relative_to(ROOT)) in SHARED_ON_PURPOSE:
            continue
        src = path.read_text()
        for i, line in enumerate(src.splitlines(), 1):
            if "cache_resource" in line and not line.lstrip().startswith("#"):
                hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not hits, ("st.cache_resource objects are shared by every session; keep user data out of them "
                      "(or list the function here with a reason):\n" + "\n".join(hits))


USER_DATA_PARAM = {"data", "raw", "content", "contents", "upload", "uploaded", "file", "buf", "payload", "bytes_"}


def test_cache_data_functions_take_no_user_data():
    """st.cache_data is shared across sessions: it may hold shipped data, never an upload."""
    bad = []
    for path in _modules():
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if not any("cache_data" in d or "cache_resource" in d or d.endswith("cache") for d in _decorator_names(fn)):
                continue
            params = [a.arg for a in fn.args.args + fn.args.kwonlyargs]
            anns = [ast.unparse(a.annotation) for a in fn.args.args + fn.args.kwonlyargs if a.annotation]
            if set(p.lower() for p in params) & USER_DATA_PARAM or any("bytes" in a or "Upload" in a for a in anns):
                bad.append(f"{path.relative_to(ROOT)}:{fn.lineno} {fn.name}({', '.join(params)})")
            # a cached function must not read per-session state either
            body = ast.unparse(fn)
            if "session_state" in body or "state.get(" in body:
                bad.append(f"{path.relative_to(ROOT)}:{fn.lineno} {fn.name} reads session state inside a shared cache")
    assert not bad, "cross-session caches that may hold one student's data:\n" + "\n".join(bad)


def test_no_module_level_mutable_state_is_mutated():
    """Module globals are shared by all sessions of a server. Constants are fine; a
    module-level list/dict/set that any function mutates, or a `global` rebinding,
    is shared state between students."""
    problems = []
    for path in _modules():
        tree = ast.parse(path.read_text())
        rel = path.relative_to(ROOT)
        if str(rel) in SHARED_ON_PURPOSE:
            continue
        mutable = set()
        for node in tree.body:
            targets = []
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            if _is_mutable_value(value):
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            mutable.add(n.id)
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            local = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
            for n in ast.walk(fn):
                if isinstance(n, (ast.Global, ast.Nonlocal)) and isinstance(n, ast.Global):
                    problems.append(f"{rel}:{n.lineno}: `global {', '.join(n.names)}` in {getattr(fn, 'name', 'lambda')}")
                # NAME[...] = / del NAME[...] / NAME[...] += ...
                tgts = []
                if isinstance(n, ast.Assign):
                    tgts = n.targets
                elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
                    tgts = [n.target]
                elif isinstance(n, ast.Delete):
                    tgts = n.targets
                for t in tgts:
                    base = t
                    while isinstance(base, (ast.Subscript, ast.Attribute)):
                        base = base.value
                    if isinstance(base, ast.Name) and base.id in mutable and base.id not in local and base is not t:
                        problems.append(f"{rel}:{n.lineno}: writes into module-level {base.id}")
                    if isinstance(n, ast.AugAssign) and isinstance(t, ast.Name) and t.id in mutable:
                        problems.append(f"{rel}:{n.lineno}: augments module-level {t.id}")
                # NAME.append(...) etc.
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in MUTATING_METHODS:
                    base = n.func.value
                    if isinstance(base, ast.Name) and base.id in mutable and base.id not in local:
                        problems.append(f"{rel}:{n.lineno}: {base.id}.{n.func.attr}(...) mutates a module-level object")
    assert not problems, "module-level state shared by all sessions:\n" + "\n".join(sorted(set(problems)))


# ------------------------------------------------------------------ real server, two websocket clients
@pytest.fixture(scope="module")
def server():
    with streamlit_server() as srv:
        yield srv.port


def test_two_websocket_sessions_on_one_server(server):
    sys.path.insert(0, str(ROOT))
    from loadtest.stclient import Session, upload_file

    url = f"ws://127.0.0.1:{server}/_stcore/stream"

    async def scenario():
        a = Session(url, name="A", run_timeout=60)
        b = Session(url, name="B", run_timeout=60)
        await a.connect()
        await b.connect()
        try:
            assert (await a.load()).ok
            assert (await b.load()).ok
            r = await upload_file(a, "uploader", SECRET_NAME, SECRET_CSV)
            assert r.ok, r
            shown = (SECRET_NAME, SECRET_NAME.replace("_", "\\_"))  # names are shown literally (Markdown escaped)
            assert any("Loaded" in body and any(n in body for n in shown) for _, body in a.alerts), a.alerts
            assert (await a.set_value("hidden", 50)).ok
            for _ in range(3):
                assert (await a.click("step")).ok
            a_status = [t for t in a.texts if t.startswith("**Status:**")]
            r = await b.load()   # B reloads the page
            assert r.ok, r
            b_page = "\n".join(b.texts) + "\n".join(body for _, body in b.alerts)
            assert SECRET_NAME not in b_page and SECRET_WORD not in b_page
            assert "upload" not in list(b.widget("dataset").proto.options)
            status = [t for t in b.texts if t.startswith("**Status:**")]
            assert status and "t = 0" in status[-1], status
            from nblab.defaults import DEFAULTS  # B still sees the default lesson's settings
            assert any(f"{DEFAULTS['hidden']}% labels hidden" in t for t in b.texts), b.texts
            return a_status
        finally:
            await a.close()
            await b.close()

    a_status = asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    # A stepped three times (at the default λ its run may converge after two): B's reload did not touch it
    import re
    got = re.search(r"at t = (\d+)", a_status[-1]) if a_status else None
    assert got and int(got.group(1)) >= 2 and "Converged" in a_status[-1] or "t = 3" in a_status[-1], a_status


def test_shipped_data_sets_shared_by_every_session_are_read_only():
    """load_shipped hands every session the same object: no session can write into it."""
    import numpy as np
    import pytest

    from dashboard.data import datasets

    for name in ("sms_spam", "synthetic_spam", "digits"):
        ds = datasets.load_shipped(name)
        assert datasets.load_shipped(name) is ds
        X = ds.X
        with pytest.raises(ValueError, match="read-only"):
            (X.data if hasattr(X, "data") and not isinstance(X, np.ndarray) else X)[0] = 7
        with pytest.raises(ValueError, match="read-only"):
            ds.y[0] = 7
