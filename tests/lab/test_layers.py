"""The layers point one way: nbcore ← nblab (the lesson core) ← dashboard.

Read from the code's own imports (every ``import`` and ``from … import`` statement, at any depth,
``TYPE_CHECKING`` blocks included), not from a list kept by hand: nbcore imports neither nblab nor
dashboard; nblab never imports dashboard or Streamlit; and importing the lesson core in a fresh
interpreter leaves Streamlit out of ``sys.modules``.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(package: str) -> dict[str, set[str]]:
    """{file: top-level names of every module it imports} for each .py file of ``package``."""
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        out[str(path.relative_to(ROOT))] = names
    return out


def offenders(package: str, forbidden: set[str]) -> dict[str, list[str]]:
    return {f: sorted(names & forbidden) for f, names in imported_modules(package).items() if names & forbidden}


def test_imported_modules_reads_nested_and_relative_imports(tmp_path, monkeypatch):
    """The reader itself: an import inside a function or a TYPE_CHECKING block counts; a relative
    import stays inside the package."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import dashboard.x\n"
                              "def f():\n    from streamlit import session_state\nfrom . import b\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert imported_modules("pkg") == {"pkg/a.py": {"typing", "dashboard", "streamlit"}}


def test_nbcore_imports_neither_the_lesson_core_nor_the_app():
    assert offenders("nbcore", {"nblab", "dashboard", "streamlit"}) == {}


def test_the_lesson_core_never_imports_the_app_or_streamlit():
    assert offenders("nblab", {"dashboard", "streamlit"}) == {}


@pytest.mark.parametrize("module", ["nbcore", "nblab.lesson_run", "nblab.prepare", "nblab.numbers", "nblab.frame"])
def test_the_lesson_core_imports_without_streamlit(module):
    code = (f"import sys, {module}; "
            "bad = [m for m in ('streamlit', 'dashboard') if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_lesson_run_is_built_and_stepped_without_the_app():
    """LessonRun().sync() reads a shipped set through nblab's own loader: no Streamlit, no dashboard."""
    code = ("import sys\n"
            "from nblab.config import DataConfig\n"
            "from nblab.lesson_run import LessonRun\n"
            "lr = LessonRun()\n"
            "lr.sync(DataConfig('synthetic_spam', 'bernoulli', 90, 'labeled', 0, 1.0, 100, 1e-6), 1.0)\n"
            "lr.step(3)\n"
            "assert lr.latest == 3, lr.latest\n"
            "bad = [m for m in ('streamlit', 'dashboard') if m in sys.modules]\n"
            "print(bad); sys.exit(1 if bad else 0)\n")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
