"""docs/extending.md's recipes, followed to the letter in a copy of the repository: what
tests/app/test_extending.py (AppTest, no browser: the server's charts) and
tests/browser/test_extending_in_chromium.py (Chromium, the browser player on and off) share.

Each ``add_*`` function touches only the files its recipe names and returns nothing; the copy is
made by :func:`copy_repo` (the parts named, and ``.streamlit``)."""
from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path

from kit import ROOT

IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")

#: what the panel shows: t and α at the iteration on screen, α as a share or a percentage (its widget)
PANEL_TEXT = "Hello panel: t = {t}, α = {alpha}"
#: the page's URL-bound widget: its key, range and default (one row of dashboard/ui/url_table.py)
PAGE_KEY, PAGE_LO, PAGE_HI, PAGE_DEFAULT = "hello_n", 1, 10, 3


def copy_repo(tmp_path: Path, *parts: str) -> Path:
    root = tmp_path / "repo"
    for part in parts:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, root / part, ignore=IGNORE)
        else:
            (root / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, root / part)
    shutil.copytree(ROOT / ".streamlit", root / ".streamlit")
    return root


def add_page(root: Path) -> None:
    """"How to add a page": a view file, one entry in pages.py, and in url_table.py one row per
    widget bound to the URL, which holds its range and default (each drawn through a URL guard
    wrapper that reads them there: the data set picker, a slider)."""
    (root / "dashboard" / "views" / "hello.py").write_text(textwrap.dedent(f'''
        """A page made by following docs/extending.md."""
        import streamlit as st

        from dashboard import pages
        from dashboard.pagekit import page_kit
        from dashboard.ui import urlguard


        def main() -> None:
            page = page_kit.page_setup(pages.HELLO, "Made by following the recipe.")
            dataset = page_kit.dataset_picker("hello_dataset")
            n = urlguard.slider(st.sidebar, "How many hellos", key="{PAGE_KEY}")
            st.write(f"Hello from a new page, on {{dataset}}, chart font {{page.fs}}.")
            st.write(f"Hello × {{n}}")


        main()
    '''))
    reg = root / "dashboard" / "pages.py"
    src = reg.read_text()
    anchor = "#: Navigation order."
    assert src.count(anchor) == 1
    src = src.replace(anchor, 'HELLO = Page("views/hello.py", "Hello", ":material/waving_hand:")\n\n' + anchor)
    tree = ast.parse(src)
    pages_tuple = next(n for n in tree.body if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "PAGES")
    lines = src.splitlines(keepends=True)
    end = pages_tuple.value.end_lineno - 1, pages_tuple.value.end_col_offset - 1   # the closing parenthesis
    assert lines[end[0]][end[1]] == ")"
    lines[end[0]] = lines[end[0]][:end[1]] + ", HELLO" + lines[end[0]][end[1]:]
    reg.write_text("".join(lines))
    table = root / "dashboard" / "ui" / "url_table.py"
    src = table.read_text()
    anchor = "\n)\n\nBY_KEY"
    assert src.count(anchor) == 1
    src = src.replace(anchor, '\n    _dataset("hello_dataset", pages.HELLO, "toy_spam"),'
                              f'\n    UrlKey("{PAGE_KEY}", pages.HELLO, "slider", Number({PAGE_LO}, {PAGE_HI}, {PAGE_DEFAULT}, 1, True)),'
                              + anchor)
    table.write_text(src)


def add_panel(root: Path) -> None:
    """"How to add a lesson panel": one module with show(f), one call in lower_panels() of
    views/lesson.py (with its import). The panel holds a widget of its own."""
    (root / "dashboard" / "lesson" / "panels" / "hello.py").write_text(textwrap.dedent('''
        """A lesson panel made by following docs/extending.md: α of the iteration on screen."""
        import streamlit as st

        from nblab.frame import Frame


        def show(f: Frame) -> None:
            pct = st.toggle("α as a percentage", key="hello_pct")
            alpha = f"{100 * f.snap.alpha[0]:.4f} %" if pct else f"{f.snap.alpha[0]:.6f}"
            st.markdown(f"Hello panel: t = {f.t}, α = {alpha}")
    '''))
    view = root / "dashboard" / "views" / "lesson.py"
    src = view.read_text()
    tree = ast.parse(src)
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "lower_panels"]
    assert len(funcs) == 1, "views/lesson.py has one lower_panels()"
    last = funcs[0].body[-1]
    lines = src.splitlines(keepends=True)
    indent = " " * last.col_offset
    lines.insert(last.end_lineno, f"{indent}hello.show(f)\n")
    future = next(i for i, line in enumerate(lines) if line.startswith("from __future__"))
    lines.insert(future + 1, "from dashboard.lesson.panels import hello\n")
    view.write_text("".join(lines))
    assert view.read_text().count("hello.show(f)") == 1


def alpha_text(alpha: float, pct: bool = False) -> str:
    return f"{100 * alpha:.4f} %" if pct else f"{alpha:.6f}"


def add_data_set(root: Path) -> None:
    """"How to add a data set": a CSV and its card in datasets/, one entry in nbcore/data.py's
    _REGISTRY (the copy must hold nbcore and datasets/). Eighty made-up days, five binary features."""
    import numpy as np

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 80)
    X = (rng.random((80, 5)) < np.where(y[:, None] == 1, 0.8, 0.2)).astype(int)
    lines = ["sunny,windy,humid,cold,cloudy,label"] + [",".join(map(str, r)) + f",{'go' if c else 'stay'}"
                                                        for r, c in zip(X.tolist(), y.tolist())]
    (root / "datasets" / "outing.csv").write_text("\n".join(lines) + "\n")
    (root / "datasets" / "outing.md").write_text("# outing\n\nEighty made-up days: go out or stay in.\n")
    data = root / "nbcore" / "data.py"
    src = data.read_text()
    anchor = "_REGISTRY = {\n"
    assert anchor in src
    src = src.replace(anchor, anchor + '    "outing": ("Eighty made-up days: go out or stay in", '
                                       'lambda: read_shipped_csv("outing", label_column="label")),\n')
    data.write_text(src)


def add_event_model(root: Path) -> None:
    """"How to add an event model", as a built-in one: one class in one file of nbcore/models/,
    registered in nbcore/models/__init__.py. The multinomial's maths under another name."""
    (root / "nbcore" / "models" / "counts_twin.py").write_text(textwrap.dedent('''
        """An event model made by following docs/extending.md."""
        from .multinomial import MultinomialModel


        class CountsTwinModel(MultinomialModel):
            name = "counts_twin"
            title = "counts twin"
            data_kinds = ("counts", "binary")
    '''))
    init = root / "nbcore" / "models" / "__init__.py"
    init.write_text(init.read_text() + "\n\nfrom .counts_twin import CountsTwinModel  # noqa: E402\n\n"
                                       "register_model(CountsTwinModel)\n")


def add_language(root: Path, lang: str, name: str) -> None:
    """docs/translating.md's "Add a language", step 1: the code and its name in nblab/i18n.py's tables."""
    path = root / "nblab" / "i18n.py"
    src = path.read_text(encoding="utf-8")
    langs = 'LANGS = ("en", "es", "de", "fr")'
    names = '"fr": "Français"}'
    assert langs in src and names in src, "nblab/i18n.py's tables are not as docs/translating.md says"
    src = src.replace(langs, f'LANGS = ("en", "es", "de", "fr", "{lang}")')
    src = src.replace(names, f'"fr": "Français", "{lang}": "{name}"}}')
    path.write_text(src, encoding="utf-8")


def translate_po(po: Path, msgid: str, msgstr: str) -> None:
    """A translator's edit: the empty msgstr under ``msgid`` filled."""
    text = po.read_text(encoding="utf-8")
    empty = f'msgid "{msgid}"\nmsgstr ""\n'
    assert empty in text, f"{msgid!r} is not an empty msgid of {po}"
    po.write_text(text.replace(empty, f'msgid "{msgid}"\nmsgstr "{msgstr}"\n'), encoding="utf-8")
