"""The layers point one way: nbcore ← nblab (the lesson core) ← dashboard.

Read from the code's own imports (every ``import`` and ``from … import`` statement, at any depth,
``TYPE_CHECKING`` blocks included), not from a list kept by hand: nbcore imports neither nblab nor
dashboard; nblab never imports dashboard or Streamlit; neither imports the load test; the modules
of nbcore (and of nblab) import one another without a cycle; and importing the lesson core in a
fresh interpreter leaves Streamlit out of ``sys.modules``.
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


def module_name(path: Path) -> str:
    """``nbcore/models/_base.py`` -> ``nbcore.models._base``; a package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: str) -> dict[str, set[str]]:
    """{module: the modules of ``package`` it imports} from every import statement of each .py file
    (at any depth, ``TYPE_CHECKING`` blocks included); relative imports are resolved, and
    ``from . import x`` names the submodule x when there is one."""
    files = {module_name(p): p for p in sorted((ROOT / package).rglob("*.py"))}
    graph = {}
    for name, path in files.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(here[:len(here) - node.level + 1] + [node.module or ""]).strip(".") \
                    if node.level else node.module
                targets.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base
                               for alias in node.names)
        for target in targets:
            while target not in files and "." in target:   # a name inside a module: the module
                target = target.rsplit(".", 1)[0]
            if target in files and target != name:
                graph.setdefault(name, set()).add(target)
        graph.setdefault(name, set())
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as [a, b, ..., a], or [] when the graph has none."""
    state: dict[str, int] = {}   # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return []

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return []


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


def test_import_graph_sees_a_cycle_through_type_checking_and_relative_imports(tmp_path, monkeypatch):
    """The graph reader itself: a ``TYPE_CHECKING`` import, a function-level import and
    ``from . import x`` are edges; names imported from a module point at the module."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import A\n")
    (pkg / "a.py").write_text("from .sub.b import B\nclass A: pass\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from ..c import C\nclass B: pass\n")
    (pkg / "c.py").write_text("def f():\n    from . import a\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    graph = import_graph("pkg")
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.sub.b"}, "pkg.sub": set(), "pkg.sub.b": {"pkg.c"},
                     "pkg.c": {"pkg.a"}}
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]
    (pkg / "c.py").write_text("import numpy\n")
    assert find_cycle(import_graph("pkg")) == []


@pytest.mark.parametrize("package", ["nbcore", "nblab"])
def test_no_import_cycle_inside_the_package(package):
    """A reader can follow any module's imports without coming back to it (TYPE_CHECKING included)."""
    assert find_cycle(import_graph(package)) == []


def test_the_share_store_modules_never_import_their_package():
    """dashboard/data/store: the backends and the shared modules import one another, never the
    package's ``__init__`` (which only gathers their names for callers), and without a cycle."""
    graph = import_graph("dashboard/data/store")
    package = "dashboard.data.store"
    assert {m: sorted(deps) for m, deps in graph.items() if m != package and package in deps} == {}
    assert find_cycle(graph) == []


def test_nbcore_and_the_lesson_core_never_import_the_app_or_the_load_test():
    assert offenders("nbcore", {"dashboard", "loadtest"}) == {}
    assert offenders("nblab", {"dashboard", "loadtest"}) == {}


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
