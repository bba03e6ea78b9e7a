"""The event models as the code holds them, read from the code: nbcore's registry, the browser's models
(nblab/js/models.js, imported by node), and the places that compare a model's name with a string."""
from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

from kit import ROOT

NODE = shutil.which("node")

#: imports nblab/js/models.js and prints {name: the model's properties} for every model it names
_BROWSER_MODELS_JS = """
const m = await import(process.argv[1]);
const out = {};
for (const name of m.MODEL_NAMES) {
  const model = m.getModel(name);
  out[name] = { matrixFormat: model.matrixFormat, scoresAbsentFeatures: model.scoresAbsentFeatures,
                title: model.title, paramNames: model.paramNames, inputKind: model.inputKind };
}
console.log(JSON.stringify(out));
"""


def browser_models(models_js: Path = ROOT / "nblab" / "js" / "models.js") -> dict[str, dict]:
    """{name: {matrixFormat, scoresAbsentFeatures, title, paramNames, inputKind}} of every model models.js registers."""
    res = subprocess.run([NODE, "--input-type=module", "-e", _BROWSER_MODELS_JS, "--", models_js.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def models_without_javascript(registered, browser) -> list[str]:
    """The models registered in nbcore (names) that the browser's registry does not have."""
    return sorted(set(registered) - set(browser))


def python_name_comparisons(path: Path, names) -> list[int]:
    """Lines of ``path`` where a comparison (==, !=, in, not in) has one of ``names`` as a string operand,
    alone or inside a literal tuple, list or set."""
    hits = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        strings = []
        for op in operands:
            items = op.elts if isinstance(op, (ast.Tuple, ast.List, ast.Set)) else [op]
            strings += [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
        if set(strings) & set(names):
            hits.append(node.lineno)
    return hits


def js_name_comparisons(path: Path, names) -> list[int]:
    """Lines of ``path`` where one of ``names`` in quotes is compared with === or !== (either side), is a
    ``case`` label, or stands in an array literal asked ``.includes(...)``."""
    alt = "|".join(re.escape(n) for n in names)
    quoted = rf"""(["'`])(?:{alt})\1"""
    pattern = re.compile(rf"""[!=]==\s*{quoted}|{quoted.replace("1", "2")}\s*[!=]==|\bcase\s+{quoted.replace("1", "3")}"""
                         rf"""|\[[^\]]*{quoted.replace("1", "4")}[^\]]*\]\.includes\(""")
    return [i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
