"""Shared test setup: make `import nbcore` / `import dashboard` work from a checkout,
and one helper that starts a real `streamlit run dashboard/app.py` for the tests that
need a server (browser, isolation, upload fuzzing, deep links)."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: what the test servers run: the app's entry with the class routes (README's run command)
ENTRY = os.environ.get("NBLAB_TEST_ENTRY", "dashboard/server.py")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


from loadtest.server import free_port  # noqa: E402  (one helper for the tests, the scripts and the load test)


class Server:
    """A running streamlit server: .port, .url, .proc, .log_path."""

    def __init__(self, port: int, proc: subprocess.Popen, log_path: Path):
        self.port, self.proc, self.log_path = port, proc, log_path
        self.url = f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def streamlit_server(*extra: str, log_path: Path | None = None, timeout: float = 60.0, port: int | None = None,
                     env: dict | None = None, root: Path = ROOT, entry: str | None = None):
    """Start `streamlit run dashboard/server.py` (ENTRY) on a free 127.0.0.1 port (or ``port``), with ``env``
    added to this process's environment, wait for
    /_stcore/health (failing the test if it exits or does not answer within `timeout`),
    yield a Server, and stop it afterwards. Only /_stcore/health is requested, so the
    first page request is still the caller's. ``root`` and ``entry``: another checkout (a copy of the
    repository) and the file to run from it."""
    import pytest

    port = free_port() if port is None else int(port)
    if log_path is None:
        log_path = Path(tempfile.gettempdir()) / f"streamlit_test_server_{port}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", entry or ENTRY, "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", *extra],
        cwd=str(root), stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, **env} if env else None)
    try:
        deadline = time.time() + timeout
        while True:
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited ({proc.returncode}); see {log_path}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.time() > deadline:
                pytest.fail(f"streamlit did not answer /_stcore/health within {timeout:.0f} s; see {log_path}")
            time.sleep(0.2)
        yield Server(port, proc, log_path)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


def page_text(at) -> str:
    """Every element proto of an AppTest page (main + sidebar), as text."""
    out, stack = [], [at._tree]
    while stack:
        node = stack.pop()
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            stack.extend(children.values())
    return "\n".join(out)


def chart_specs(at) -> list[dict]:
    """The plotly figures of an AppTest page, each parsed from the JSON Streamlit sends.

    Read them as JSON, never by searching the raw string: how Streamlit serialises the
    spec (non-ASCII as ``\\u03bb`` or as UTF-8, key order, spacing) changes between releases.
    """
    import json

    return [json.loads(c.proto.spec) for c in at.get("plotly_chart") if c.proto.spec]


def spec_strings(spec) -> str:
    """Every string inside a parsed figure spec (titles, trace names, annotations, ticks), joined
    by newlines: what a test searches for words shown on a chart."""
    out, stack = [], [spec]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return "\n".join(out)


def chart_with(at, text: str) -> dict:
    """The first figure of the page that shows ``text`` somewhere (title, trace name, annotation)."""
    for spec in chart_specs(at):
        if text in spec_strings(spec):
            return spec
    raise AssertionError(f"no chart on the page shows {text!r}")


# ---- scikit-learn's own Naive Bayes tests (tests/engine/test_sklearn_naive_bayes.py) -------------------
#: test name -> why it does not apply to nbcore (everything else in that file must pass)
SKLEARN_NB_SKIPS = {
    "test_cnb": "ComplementNB: nbcore has no complement Naive Bayes",
    "test_gnb_check_update_with_no_data": "calls scikit-learn's private GaussianNB._update_mean_variance",
    "test_alpha_vector": "its second half calls scikit-learn's private _check_alpha and matches scikit-learn's "
                         "error texts; its per-feature alpha assertions run in tests/engine/test_smoothing_vector.py",
    "test_check_alpha": "calls scikit-learn's private _check_alpha",
    "test_gnb_array_api_compliance": "uses scikit-learn's private sklearn.utils._array_api helpers",
}


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        if not item.nodeid.startswith("tests/engine/test_sklearn_naive_bayes.py::"):
            continue
        name = item.originalname if hasattr(item, "originalname") else item.name
        if name in SKLEARN_NB_SKIPS:
            item.add_marker(pytest.mark.skip(reason=SKLEARN_NB_SKIPS[name]))
        elif "ComplementNB" in item.name:
            item.add_marker(pytest.mark.skip(reason="ComplementNB: nbcore has no complement Naive Bayes"))


def _main_module_fixture():
    """Autouse fixture: put back the process's ``__main__`` after each test. Streamlit's AppTest
    runs a page as ``__main__`` and leaves it there, and a later test that starts processes by
    spawning (a Dask LocalCluster) makes every child re-run that page first: a page made by
    ``AppTest.from_function`` then fails in the child and no worker starts."""
    import pytest

    main = sys.modules.get("__main__")

    @pytest.fixture(autouse=True)
    def _restore_main_module():
        yield
        if sys.modules.get("__main__") is not main:
            sys.modules["__main__"] = main
    return _restore_main_module


_restore_main_module = _main_module_fixture()


def _pg_url_fixture():
    """Session fixture ``pg_url``: a throwaway real PostgreSQL server (tests/pg_cluster.py),
    started once per test session for the store tests (test_share_store.py, test_sharing.py)."""
    import pytest

    @pytest.fixture(scope="session")
    def pg_url():
        pytest.importorskip("psycopg")
        from pg_cluster import cluster
        with cluster() as url:
            yield url
    return pg_url


pg_url = _pg_url_fixture()
