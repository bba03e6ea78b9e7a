"""Every run type honours one contract (plain, components per class, row chunks on Dask), and the
engine's modules import each other without a cycle."""
import ast
from pathlib import Path

import numpy as np
import pytest

import nbcore

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path, package: str) -> set[str]:
    """nbcore modules a module imports anywhere (module level or inside functions), except under
    ``if TYPE_CHECKING:`` (annotations only, never run)."""
    tree = ast.parse(path.read_text())
    skip = {id(n) for top in ast.walk(tree) if isinstance(top, ast.If)
            and getattr(top.test, "id", None) == "TYPE_CHECKING" for n in ast.walk(top)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip or not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            if node.module is None:
                out |= {f"{base}.{a.name}" for a in node.names}
            else:
                out.add(f"{base}.{node.module}")
        elif (node.module or "").startswith("nbcore"):
            out.add(node.module)
    return out


def test_nbcore_has_no_import_cycle():
    graph = {}
    for path in (ROOT / "nbcore").rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        package = name if rel.name == "__init__" else name.rsplit(".", 1)[0]
        graph[name] = {m for m in _imports(path, package) if m != name}
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in graph.get(node, ()):
            if nxt not in graph:
                continue
            if state.get(nxt) == "open" and not (nxt == "nbcore" or node.startswith(nxt + ".")):
                raise AssertionError("import cycle: " + " -> ".join(stack + [nxt]))
            if nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in graph:
        if node not in state:
            visit(node, [node])


def _data():
    ds = nbcore.load_dataset("synthetic_spam")
    y, _ = nbcore.hide_labels(ds.y, 0.8, random_state=0)
    return ds.X, np.asarray(y), ds.n_classes


def _run(kind: str):
    X, y, K = _data()
    if kind == "chunked":
        da = pytest.importorskip("dask.array")
        X = da.from_array(np.asarray(X.todense() if hasattr(X, "todense") else X), chunks=(150, -1))
    m = 2 if kind == "components" else 1
    return nbcore.EM(n_classes=K, init="labeled", random_state=0, components_per_class=m).start(X, y)


@pytest.mark.parametrize("kind", ["plain", "components", "chunked"])
def test_every_run_type_steps_rewinds_continues_and_predicts_per_class(kind):
    run = _run(kind)
    X, y, K = _data()
    for _ in range(3):
        run.step()
    assert run.predict_proba().shape == (X.shape[0], K)
    # half-steps give the same iteration as a whole step
    e = run.e_step()
    assert e.iteration == run.iteration and e.resp.shape[0] == X.shape[0]
    half = run.m_step()
    assert half.iteration == 3 + 1
    # rewound: the same type, the history cut, and stepping again gives the dropped numbers back
    back = run.rewound(2)
    assert type(back) is type(run) and back.iteration == 2
    back.step(), back.step()
    np.testing.assert_allclose(back.current.alpha, run.current.alpha, rtol=1e-12)
    assert back.predict_proba().shape == (X.shape[0], K)
    # with_settings: the same type, history kept, the next step at the new λ
    cont = run.with_settings(smoothing=0.5, max_iter=50)
    assert type(cont) is type(run) and cont.iteration == run.iteration
    assert cont.step().smoothing == 0.5
    assert cont.predict_proba().shape == (X.shape[0], K)
