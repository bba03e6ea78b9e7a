"""docs/translating.md, followed in a copy of the repository: a fourth language added (Italian), updated,
partly translated, compiled and checked; the page's lookup and nblab.i18n then speak it, English where it is
not translated yet."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from kit import ROOT
from kit.recipe import add_language, copy_repo, translate_po

NODE = shutil.which("node")


def run(root, *args):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(root)
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_the_guide_adds_a_fourth_language(tmp_path):
    guide = (ROOT / "docs" / "translating.md").read_text(encoding="utf-8")
    for step in ("python -m nblab.i18n update", "python -m nblab.i18n compile", "python -m nblab.i18n check",
                 'LANGS = ("en", "es", "de", "fr", "it")'):
        assert step in guide
    root = copy_repo(tmp_path, "nblab", "dashboard")
    add_language(root, "it", "Italiano")
    # step 2: update makes the catalogue, every msgid empty, the language's plural rule in its header
    assert run(root, "-m", "nblab.i18n", "update").returncode == 0
    po = root / "nblab" / "locales" / "it" / "LC_MESSAGES" / "nblab.po"
    text = po.read_text(encoding="utf-8")
    assert "Language: it" in text and "Plural-Forms: nplurals=" in text and 'msgid "Supervised only"' in text
    # not translated yet: check says what is missing and what to run
    res = run(root, "-m", "nblab.i18n", "check")
    assert res.returncode == 1
    assert "it: 'Supervised only' is not translated" in res.stderr
    assert "nblab/locales/it/LC_MESSAGES/nblab.mo is stale: run python -m nblab.i18n compile" in res.stderr
    assert not any(line.startswith(("es:", "de:", "fr:")) for line in res.stderr.splitlines())
    # step 3: a translator's first strings, compiled
    translate_po(po, "Supervised only", "Solo supervisionato")
    translate_po(po, "Settings", "Impostazioni")
    assert run(root, "-m", "nblab.i18n", "compile").returncode == 0
    res = run(root, "-m", "nblab.i18n", "check")
    assert res.returncode == 1 and "it: 'Settings' is not translated" not in res.stderr
    assert "is stale" not in res.stderr                          # only what is left to translate
    py = run(root, "-c", "from nblab import i18n; print(i18n.gettext('it', 'Settings'), '|', "
                         "i18n.gettext('it', 'Accuracy'), '|', i18n.percent('it', 0.853))")
    assert py.stdout.strip() == "Impostazioni | Accuracy | 85,3%"
    table = json.loads((root / "nblab" / "locales" / "it" / "nblab.json").read_text(encoding="utf-8"))
    assert table["messages"] == {"Settings": "Impostazioni", "Supervised only": "Solo supervisionato"}
    if NODE is None:
        pytest.skip("needs node for the page's lookup")
    js = (root / "nblab" / "js" / "i18n.js").as_uri()
    out = subprocess.run([NODE, "--input-type=module", "-e",
                          f"import * as I from {json.dumps(js)};"
                          "console.log(JSON.stringify([I.LANGS, I.NAMES.it, I.pick(['it-IT']), I.translate('it', 'Settings'),"
                          " I.translate('it', 'Accuracy'), I.percent(0.853, 1, 'it')]))"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert json.loads(out) == [["en", "es", "de", "fr", "it"], "Italiano", "it", "Impostazioni", "Accuracy", "85,3%"]
