"""The test suite's own rule (docs/testing.md): a test module imports no other test module; what two files
share lives in tests/kit/."""
from __future__ import annotations

import ast

from kit import ROOT

TESTS = ROOT / "tests"


def _test_modules():
    return sorted(p for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts)


def _imported(tree: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append(node.module)
    return out


def test_no_test_module_imports_another():
    found = []
    for path in _test_modules():
        for name in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            head = name.split(".")[0]
            if head.startswith("test_") or head == "tests" or head == "conftest":
                found.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not found, "move what they share into tests/kit/: " + "; ".join(found)


def test_the_rule_sees_an_import_of_a_test_module():
    tree = ast.parse("from test_lab_page import READY\nimport test_properties\nfrom kit.lab_page import Opened\n")
    assert [n for n in _imported(tree) if n.startswith("test_")] == ["test_lab_page", "test_properties"]
