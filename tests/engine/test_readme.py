"""The README describes this tree: its layout list names every top-level folder of the checkout (and nothing
that is not there), its test folders are the ones that hold tests, and every file path the README and docs/
name in backticks exists; the entry points' docstrings give the README's run command."""
from __future__ import annotations

import re
import subprocess

from kit import ROOT

README = (ROOT / "README.md").read_text()
#: a path to a file of the tree, as the docs write it: `nbcore/equations.py`, `scripts/lock.sh`
PATH = re.compile(r"`((?:nbcore|nblab|dashboard|scripts|tests|loadtest|deploy|benchmarks|datasets|docs)/"
                  r"[\w./-]*\.(?:py|js|mjs|sh|md|json|css|toml))`")


def tracked_top_folders() -> set[str]:
    """The checkout's top-level folders (what git tracks; hidden ones, like .ci, left out)."""
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {line.split("/", 1)[0] for line in out.splitlines() if "/" in line and not line.startswith(".")}


def layout_list() -> list[str]:
    block = README[README.index("The tree:"):README.index("## Quick start")]
    return re.findall(r"^- `([\w.-]+)/`", block, flags=re.M)


def test_the_layout_list_names_every_top_level_folder_once():
    named = layout_list()
    assert len(named) == len(set(named)), named
    assert set(named) == tracked_top_folders()


def test_the_test_folders_named_are_the_ones_that_hold_tests():
    holding = {p.relative_to(ROOT / "tests").parts[0] for p in (ROOT / "tests").rglob("test_*.py")}
    line = next(x for x in README[README.index("The tree:"):].splitlines() if x.startswith("- `tests/`"))
    block = line + README.split(line, 1)[1].split("\n- ", 1)[0].split("\n\n", 1)[0]
    named = set(re.findall(r"`(\w+)/`", block)) - {"tests"}
    assert named == holding | {"kit"}
    assert (ROOT / "tests" / "kit").is_dir()
    words = {3: "three", 4: "four", 5: "five", 6: "six"}
    assert f"{words[len(holding)]}\nfolders of tests" in README or f"{words[len(holding)]} folders of tests" in README


def test_every_path_the_readme_and_the_docs_name_exists():
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for path in PATH.findall(doc.read_text()):
            if "<" in path or "*" in path:
                continue
            if not (ROOT / path).exists():
                missing.append(f"{doc.relative_to(ROOT)}: {path}")
    assert missing == []


def test_the_entry_points_give_the_readmes_run_command():
    assert "python3 -m streamlit run dashboard/server.py" in README
    for entry in ("dashboard/__init__.py", "dashboard/app.py"):
        head = (ROOT / entry).read_text().split('"""')[1]
        assert "dashboard/server.py" in head, entry
        assert not re.search(r"\(run: streamlit run dashboard/app\.py\)|Run from the repo root:\s+streamlit run "
                             r"dashboard/app\.py", head), entry


def test_the_notes_point_at_the_equations_module():
    notes = (ROOT / "docs" / "notes.md").read_text()
    assert "`nbcore/em.py` has one function per equation" not in notes
    assert "`nbcore/equations.py` has one function per equation" in notes
    assert re.search(r"^def eq\d+|^def ", (ROOT / "nbcore" / "equations.py").read_text(), flags=re.M)
