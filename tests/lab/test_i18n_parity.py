"""The lab page's lookup (nblab/js/i18n.js over the compiled nblab/js/catalogue.js) gives nblab.i18n's text for
every msgid of the template in every language — placeholders filled, each plural form — and the same
numbers and percentages, on the lesson's kind of values."""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from kit import ROOT
from nblab import i18n

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs node")

DRIVER = "\n".join([
    f"import * as I from {json.dumps((ROOT / 'nblab' / 'js' / 'i18n.js').as_uri())};",
    "import { readFileSync } from 'node:fs';",
    "const job = JSON.parse(readFileSync(0, 'utf8'));",
    "const out = { texts: [], numbers: [], percents: [] };",
    "for (const c of job.texts) out.texts.push(c.plural === null ? I.translate(c.lang, c.id, c.params)",
    "  : I.translatePlural(c.lang, c.id, c.plural, c.n, c.params));",
    "for (const [lang, v, d] of job.numbers) out.numbers.push(I.number(v, d, lang));",
    "for (const [lang, v, d] of job.percents) out.percents.push(I.percent(v, d, lang));",
    "process.stdout.write(JSON.stringify(out));"])


def _params(text: str) -> dict:
    # a value per placeholder that says which it is, with text a translation must not read again
    return {name: f"<{name}:{{x}}>" for name in i18n.PLACEHOLDER.findall(text)}


def test_the_page_s_lookup_gives_the_catalogue_s_text_for_every_msgid_in_every_language():
    template = [m for m in i18n.read(i18n.POT) if m.id]
    cases, want = [], []
    for lang in i18n.LANGS:
        for m in template:
            if m.pluralizable:
                for n in (0, 1, 2, 3, 11, 21, 100, 1000000, 2000000):
                    params = _params(m.id[0] + m.id[1])
                    params.pop("n", None)
                    cases.append({"lang": lang, "id": m.id[0], "plural": m.id[1], "n": n, "params": params})
                    want.append(i18n.ngettext(lang, m.id[0], m.id[1], n, **params))
            else:
                params = _params(m.id)
                cases.append({"lang": lang, "id": m.id, "plural": None, "n": None, "params": params})
                want.append(i18n.gettext(lang, m.id, **params))
    rng = np.random.default_rng(51)
    # log-likelihoods and objectives (large, negative, one decimal), small counts, accuracies k / n
    values = [float(v) for v in np.concatenate([-rng.uniform(1, 2e6, 300), rng.uniform(-50, 50, 200),
                                                 np.round(rng.uniform(-1e4, 1e4, 100), 2), [0.0, -0.0, -0.04, 1234.25]])]
    numbers = [[lang, v, d] for lang in i18n.LANGS for v in values for d in (0, 1, 2)]
    shares = [k / n for n in (7, 40, 200, 400, 747, 5000) for k in range(0, n + 1, max(1, n // 97))]
    percents = [[lang, a, d] for lang in i18n.LANGS for a in shares for d in (0, 1)]
    job = {"texts": cases, "numbers": numbers, "percents": percents}
    out = subprocess.run([NODE, "--input-type=module", "-e", DRIVER], input=json.dumps(job), capture_output=True,
                         text=True, check=True, timeout=120).stdout
    got = json.loads(out)
    assert len(template) >= 40 and len(cases) == len(want)
    bad = [(c["lang"], c["id"], c["n"], g, w) for c, g, w in zip(cases, got["texts"], want) if g != w]
    assert bad == []
    # the slice is really translated, not English everywhere (the comparison would pass on English alone)
    translated = sum(g != c["id"] for c, g in zip(cases, got["texts"]) if c["lang"] != "en" and c["plural"] is None
                     and not c["params"])
    assert translated > 30
    assert [(lang, v, d, g) for (lang, v, d), g in zip(numbers, got["numbers"]) if g != i18n.number(lang, v, d)] == []
    assert [(lang, a, d, g) for (lang, a, d), g in zip(percents, got["percents"]) if g != i18n.percent(lang, a, d)] == []


def test_the_page_s_catalogue_is_the_json_per_language():
    js = i18n.JS_PATH.read_text(encoding="utf-8")
    for lang in i18n.LANGS[1:]:
        table = json.loads(i18n.json_path(lang).read_text(encoding="utf-8"))
        assert table["lang"] == lang and table["plural_forms"] == i18n.plural_forms(lang)
        assert json.dumps(table["messages"], ensure_ascii=False, sort_keys=True)[1:-1] in js
