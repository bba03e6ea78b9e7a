"""The two locks (scripts/lock.sh): requirements.lock is the app alone — what the README's run command
installs — and requirements-test.lock the test bench the README's test command installs; the app's pins are
the test lock's own, and CI installs each (.ci/run)."""
from __future__ import annotations

import re

from kit import ROOT

#: what the app runs on (pyproject.toml: nbcore's dependencies and the dashboard extra); babel: the catalogues and the locale's numbers (nblab.i18n)
APP = {"numpy", "scipy", "scikit-learn", "pandas", "plotly", "streamlit", "segno", "httptools", "babel"}
#: what only the test bench needs
BENCH = {"pytest", "hypothesis", "playwright", "jupyterlab", "anywidget", "ipykernel", "zxing-cpp", "ruff",
         "pytest-xdist", "dask", "distributed", "psycopg", "psycopg-binary", "setuptools"}


def pins(name: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for line in (ROOT / name).read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\[\]-]+)==([^\s;]+)", line)
        if m:
            out.setdefault(re.sub(r"\[.*\]", "", m.group(1)).lower(), set()).add(m.group(2))
    return out


def test_the_app_lock_is_the_app_and_what_it_needs():
    app = pins("requirements.lock")
    assert APP <= set(app)
    assert not (BENCH & set(app)), sorted(BENCH & set(app))


def test_the_test_lock_holds_the_bench_and_the_app_at_the_same_versions():
    app, bench = pins("requirements.lock"), pins("requirements-test.lock")
    assert BENCH <= set(bench)
    assert set(app) <= set(bench)
    assert {n: v for n, v in app.items() if v != bench[n]} == {}


def test_the_readme_and_ci_install_each_lock_with_the_same_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    run = "python3 -m pip install -r requirements.lock -e . && python3 -m streamlit run dashboard/server.py"
    test = "python3 -m pip install -q -r requirements-test.lock -e . && python3 -m pytest -q"
    assert run in readme and test in readme
    assert "python3 -m pip install -q -r requirements.lock -e .\npython3 scripts/check_app_install.py" in ci
    assert test in ci
    lock = (ROOT / "scripts" / "lock.sh").read_text()
    assert "--output-file requirements-test.lock" in lock and "--output-file requirements.lock" in lock
