"""Shared test setup: ``import nbcore`` / ``import dashboard`` / ``import kit`` from a checkout, the two
tiers, scikit-learn's skipped NB tests, and the session fixtures every folder uses. Helpers live in
``tests/kit/``, never here, and no test module imports another.

The tiers, by one rule: **the browser tier is the folder ``tests/browser``**. Every test there is marked
``browser``; ``pytest`` alone (``addopts`` in pyproject.toml deselects ``browser``) runs the fast tier,
``pytest -m browser`` the browser tier. A test outside ``tests/browser`` that launches Chromium fails
(``_no_browser_outside_the_browser_tier``), and a ``browser`` mark outside it is refused at collection.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
BROWSER_TIER = TESTS / "browser"
for _p in (str(ROOT), str(TESTS)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

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



def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (addopts) spreads the fast tier over the machine's cores; the browser tier runs in one
    process, its one Chromium and its servers shared by every test (they need the cores themselves)."""
    expr = (config.getoption("markexpr", "") or "").replace(" ", "")
    if "browser" in expr and "notbrowser" not in expr:
        return 0
    return None


def pytest_configure(config):
    """Under pytest-xdist each worker keeps the app's default store (the class links, the shares) in a
    directory of its own, so that no worker's test empties or fills another's store."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and "NBLAB_STORE_DIR" not in os.environ and "NBLAB_STORE_URL" not in os.environ:
        os.environ["NBLAB_STORE_DIR"] = tempfile.mkdtemp(prefix=f"nblab-store-{worker}-")


def _in_browser_tier(item) -> bool:
    return BROWSER_TIER in Path(str(item.path)).resolve().parents


def pytest_collection_modifyitems(config, items):
    outside = [item.nodeid for item in items
               if not _in_browser_tier(item) and item.get_closest_marker("browser") is not None]
    if outside:
        raise pytest.UsageError("a test marked 'browser' outside tests/browser (the browser tier is that folder; "
                                "move it there): " + ", ".join(outside))
    for item in items:
        if _in_browser_tier(item):
            item.add_marker(pytest.mark.browser)
        if not item.nodeid.startswith("tests/engine/test_sklearn_naive_bayes.py::"):
            continue
        name = item.originalname if hasattr(item, "originalname") else item.name
        if name in SKLEARN_NB_SKIPS:
            item.add_marker(pytest.mark.skip(reason=SKLEARN_NB_SKIPS[name]))
        elif "ComplementNB" in item.name:
            item.add_marker(pytest.mark.skip(reason="ComplementNB: nbcore has no complement Naive Bayes"))
    _slow_files_first(items)


def _slow_files_first(items) -> None:
    """The files that hold a ``slow`` test run first, each file's tests kept together and in their order.
    pytest-xdist (``--dist loadfile``) hands out whole files in this order as workers come free, so the
    long files start at once and the short ones fill the end; in collection order a long file that came
    last would leave the other workers idle until it finished."""
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow)   # stable: the order within each group stays


#: what a test outside the browser tier gets when it launches Chromium
OUTSIDE_TIER = "this test drives Chromium but is not in tests/browser (the browser tier): move it there"


@pytest.fixture(autouse=True)
def _no_browser_outside_the_browser_tier(request, monkeypatch, tmp_path_factory):
    """Outside tests/browser, launching Chromium fails the test: Playwright's launch (sync and async share
    one implementation) raises, and ``CHROMIUM`` points a child process at a program that exits with the
    same message."""
    if _in_browser_tier(request.node):
        yield
        return
    try:
        from playwright._impl._browser_type import BrowserType
    except ImportError:  # no Playwright: nothing can launch a browser through it
        BrowserType = None

    def refuse(*args, **kwargs):
        pytest.fail(OUTSIDE_TIER, pytrace=False)

    if BrowserType is not None:
        for name in ("launch", "launch_persistent_context", "connect", "connect_over_cdp"):
            monkeypatch.setattr(BrowserType, name, refuse)
    guard = tmp_path_factory.getbasetemp() / "chromium-outside-the-browser-tier"
    if not guard.exists():
        guard.write_text(f"#!/bin/sh\necho '{OUTSIDE_TIER}' >&2\nexit 3\n", encoding="utf-8")
        guard.chmod(guard.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("CHROMIUM", str(guard))
    yield


@pytest.fixture(autouse=True)
def _restore_main_module():
    """Put back the process's ``__main__`` after each test. Streamlit's AppTest runs a page as ``__main__``
    and leaves it there, and a later test that starts processes by spawning (a Dask LocalCluster) makes
    every child re-run that page first: a page made by ``AppTest.from_function`` then fails in the child
    and no worker starts."""
    main = sys.modules.get("__main__")
    yield
    if sys.modules.get("__main__") is not main:
        sys.modules["__main__"] = main


@pytest.fixture(scope="session")
def pg_url():
    """A throwaway real PostgreSQL server (kit/pg.py), started once per test session for the store tests."""
    pytest.importorskip("psycopg")
    from kit.pg import cluster
    with cluster() as url:
        yield url

