"""The layers point one way: nbcore ← nblab (the lesson core) ← dashboard, and inside dashboard its folders
are ordered (:data:`DASHBOARD_LAYERS`), without an import circle, their imports at the top of modules.

Read from the code's own imports (every ``import`` and ``from … import`` statement, at any depth,
``TYPE_CHECKING`` blocks included), not from a list kept by hand: nbcore imports neither nblab nor
dashboard; nblab never imports dashboard or Streamlit; neither imports the load test; the modules
of nbcore (and of nblab) import one another without a cycle; and importing the lesson core in a
fresh interpreter leaves Streamlit out of ``sys.modules``. Inside dashboard a module imports only from its
own layer or the layers below it; the few imports placed inside functions are listed with their reason.
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


# ---- dashboard: its folders in order -----------------------------------------------------------------

#: dashboard's folders and top-level modules, lowest first: a module imports only from its own layer and
#: the layers below it (read from the code: each layer imports what is below it, never what is above)
DASHBOARD_LAYERS = (
    ("pages", "the catalogue of pages: paths, titles, icons; no other module of the app"),
    ("serve", "the server's share per client, where plotly.js comes from, the modules served, the early loader"),
    ("ui", "session state, the settings' widgets, the URL table and guard, pure text and table helpers"),
    ("charts", "plotly figures from arrays and names"),
    ("data", "the data sets, uploads, the share store"),
    ("class_link", "the class link's HTTP routes and its store"),
    ("lesson", "the lesson: its run in the session, the guided lessons, sharing it, its panels"),
    ("pagekit", "what every page is built with: its frame and pickers, charts with their tables, warming"),
    ("views", "the pages Streamlit runs"),
    ("app", "the entry script: the page frame and the navigation"),
    ("server", "the server's entry: the class routes, the middleware, the warming"),
)

#: the modules the rewrite of the Streamlit lesson view removes (its Python panels, the browser player and
#: its run guard, the lesson view itself): their imports may still break the order, close a circle or sit
#: inside functions. Each is named, so a new violation anywhere else fails at once, and the test fails when
#: one is gone (take it off this list then).
LESSON_REWRITE = frozenset({
    "dashboard.views.lesson",
    "dashboard.lesson.run_guard",
    "dashboard.lesson.player", "dashboard.lesson.player.payload",
    "dashboard.lesson.panels", "dashboard.lesson.panels.class_emptied", "dashboard.lesson.panels.climb",
    "dashboard.lesson.panels.documents", "dashboard.lesson.panels.download", "dashboard.lesson.panels.em_drift",
    "dashboard.lesson.panels.exports", "dashboard.lesson.panels.half_steps", "dashboard.lesson.panels.history",
    "dashboard.lesson.panels.maths", "dashboard.lesson.panels.metrics_row", "dashboard.lesson.panels.model_advice",
    "dashboard.lesson.panels.notices", "dashboard.lesson.panels.parameters",
    "dashboard.lesson.panels.responsibilities", "dashboard.lesson.panels.run_controls",
    "dashboard.lesson.panels.stop_rules",
})

#: (module, what it imports inside a function): why the import cannot be at the top
FUNCTION_IMPORTS = {
    ("dashboard.pages", "streamlit"):
        "the catalogue of pages is read without Streamlit (the URL table and its parser); navigation() needs it",
    ("dashboard.data.store.config", "dashboard.data.store.postgres"):
        "the PostgreSQL backend needs psycopg (the postgres extra), imported only for a postgresql:// URL",
    ("dashboard.data.store.postgres", "psycopg"): "optional dependency (the postgres extra)",
    ("dashboard.data.store.postgres", "psycopg.conninfo"): "optional dependency (the postgres extra)",
    ("dashboard.data.store.postgres", "psycopg.pq"): "optional dependency (the postgres extra)",
    ("dashboard.serve.http_limits", "uvicorn.protocols.http"):
        "uvicorn's httptools protocol, patched when it is there (without httptools uvicorn uses h11)",
    ("dashboard.serve.addresses", "fcntl"): "POSIX only: the interfaces are read from the kernel on Linux",
    ("dashboard.serve.offload", "dashboard.serve.worker_log"):
        "the worker process quiets Streamlit's session warnings; the server's own log must keep them",
    ("dashboard.serve.offload", "multiprocessing"):
        "multiprocessing.forkserver: POSIX only, and only when heavy work runs in the forkserver",
    ("dashboard.ui.url_streamlit", "streamlit.runtime.state.query_params"):
        "Streamlit's private API, each import guarded: a release that moves it degrades the URL guard",
    ("dashboard.ui.url_streamlit", "streamlit.runtime.scriptrunner_utils.script_run_context"):
        "Streamlit's private API, each import guarded: a release that moves it degrades the URL guard",
    ("dashboard.pagekit.warm", "*"):
        "the warming's imports are its work: done and timed in a background thread once the server runs",
    ("dashboard.lesson.session", "dashboard.lesson.player"):
        "on_screen asks the browser player, which imports the session (the player goes with the rewrite)",
}

#: entry scripts whose imports follow code: Streamlit runs them by path (the checkout's root goes on
#: sys.path first), and the server tunes the allocator and the served modules before anything registers
LATE_IMPORTS = {"dashboard.app", "dashboard.server"}


def layer_of(module: str, layers=DASHBOARD_LAYERS) -> int:
    """The index of ``module``'s layer (the package ``dashboard`` itself: below every layer)."""
    parts = module.split(".")
    if len(parts) == 1:
        return -1
    names = [name for name, _ in layers]
    assert parts[1] in names, f"{module}: its folder {parts[1]!r} has no place in DASHBOARD_LAYERS"
    return names.index(parts[1])


def layer_violations(graph: dict[str, set[str]], layers=DASHBOARD_LAYERS, skip=frozenset()) -> list[str]:
    """Every import of a module from a layer above its own ("a -> b"), leaving out the modules in ``skip``."""
    return sorted(f"{a} -> {b}" for a, deps in graph.items() for b in deps
                  if a not in skip and b not in skip and layer_of(b, layers) > layer_of(a, layers))


def function_imports(package: str) -> dict[str, set[str]]:
    """{module: the modules it imports inside a function or method} (relative imports resolved; ``from p
    import m`` names the module p.m when the package has one)."""
    out: dict[str, set[str]] = {}
    files = {module_name(p) for p in (ROOT / package).rglob("*.py")}
    for path in sorted((ROOT / package).rglob("*.py")):
        name = module_name(path)
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    out.setdefault(name, set()).update(a.name for a in node.names)
                elif isinstance(node, ast.ImportFrom):
                    base = ".".join(here[:len(here) - node.level + 1] + [node.module or ""]).strip(".") \
                        if node.level else node.module
                    out.setdefault(name, set()).update(f"{base}.{a.name}" if f"{base}.{a.name}" in files else base
                                                       for a in node.names)
    return out


def late_imports(package: str) -> dict[str, list[int]]:
    """{module: lines of its top-level imports that follow other code} (a ``__main__`` block aside)."""
    out: dict[str, list[int]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        code = False
        for i, node in enumerate(tree.body):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if code:
                    out.setdefault(module_name(path), []).append(node.lineno)
            elif isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
                continue
            elif not (i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                code = True
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    out.setdefault(module_name(path), []).extend(
                        n.lineno for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
        if not out.get(module_name(path), True):
            out.pop(module_name(path))
    return out


def test_the_readers_of_dashboards_layers_see_what_they_are_shown(tmp_path, monkeypatch):
    """The checks themselves, on a hand-made package: an import from a layer above, an import inside a
    function (relative too), an import after code; a module in ``skip`` is not reported."""
    layers = (("low", ""), ("high", ""))
    graph = {"pkg.low.a": {"pkg.high.b"}, "pkg.high.b": {"pkg.low.a"}, "pkg.low.c": {"pkg.high.b"}}
    assert layer_violations(graph, layers) == ["pkg.low.a -> pkg.high.b", "pkg.low.c -> pkg.high.b"]
    assert layer_violations(graph, layers, skip={"pkg.low.c"}) == ["pkg.low.a -> pkg.high.b"]
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "b.py").write_text("")
    (pkg / "a.py").write_text('"""Doc."""\nimport os\nX = 1\nimport sys\n'
                              "def f():\n    from . import b\n    import json\n"
                              'if __name__ == "__main__":\n    import re\n')
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert function_imports("pkg") == {"pkg.a": {"pkg.b", "json"}}
    assert late_imports("pkg") == {"pkg.a": [4]}


def test_dashboards_folders_each_have_a_layer_and_import_only_downwards():
    graph = import_graph("dashboard")
    assert {m.split(".")[1] for m in graph if "." in m} <= {name for name, _ in DASHBOARD_LAYERS}
    assert layer_violations(graph, skip=LESSON_REWRITE) == []


def test_the_class_link_and_classroom_mode_have_names_of_their_own():
    """"classroom" names the projector mode (its toggle, its URL key ``classroom=``) and nothing else: the
    class link's server side is the package dashboard.class_link, and no module is named for the classroom."""
    modules = set(import_graph("dashboard"))
    assert "dashboard.class_link.routes" in modules and "dashboard.class_link.store" in modules
    assert sorted(m for m in modules if "classroom" in m) == []


def test_no_import_circle_inside_dashboard():
    """Outside the modules the lesson rewrite removes, no module comes back to itself by its imports
    (those inside functions included)."""
    graph = {m: deps - LESSON_REWRITE for m, deps in import_graph("dashboard").items() if m not in LESSON_REWRITE}
    assert find_cycle(graph) == []


def test_dashboards_imports_are_at_the_top_of_its_modules():
    """An import inside a function hides a circle or a slow import; the few that must be there are
    listed in FUNCTION_IMPORTS with their reason, and the entry scripts' late imports in LATE_IMPORTS."""
    found = {(m, dep) for m, deps in function_imports("dashboard").items() if m not in LESSON_REWRITE
             for dep in deps if (m, dep) not in FUNCTION_IMPORTS and (m, "*") not in FUNCTION_IMPORTS}
    assert sorted(found) == []
    assert sorted(set(late_imports("dashboard")) - LATE_IMPORTS - LESSON_REWRITE) == []


def test_the_allowlists_name_modules_that_are_there():
    """Each module the lists name exists, and each listed import is still made: one gone (the lesson
    rewrite removed it, or the import moved to the top) is taken off the list."""
    graph = import_graph("dashboard")
    assert sorted(LESSON_REWRITE - set(graph)) == []
    made = function_imports("dashboard")
    assert sorted((m, d) for m, d in FUNCTION_IMPORTS if d != "*" and d not in made.get(m, set())) == []
    assert sorted(m for m, d in FUNCTION_IMPORTS if d == "*" and not made.get(m)) == []
