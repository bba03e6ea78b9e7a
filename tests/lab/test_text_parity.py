"""A typed message becomes the features the data set's own CountVectorizer makes (nblab/js/text.js).

For the shipped text corpora with their own settings (sms_spam: words, presence; udhr_langid:
character 1-3-grams inside words, counts) and with other settings (word 1-2-grams, English stop
words, counts; character 2-4-grams with the case kept), every shipped document and a list of
hostile strings (Unicode spaces, combining marks, scripts without spaces, emoji, lone surrogates,
control characters, final sigma, 10,000 characters) go through node and through
``ds.transform``: the vectors must be equal, and the analyzer's terms equal scikit-learn's
``build_analyzer()``'s, term by term.

A second test checks the two character classes the tokenizer rests on over every code point:
JavaScript's [\\p{L}\\p{N}_] is Python's \\w and toLowerCase is str.lower, except on code points
Python's Unicode tables (older than node's) leave unassigned.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

import nbcore
from nblab.data import lab_data

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node (v20) runs the lab's tokenizer")

HOSTILE = [
    "", " ", "\t\n\r ", "FREE!!! Win £1000 now!!! txt WIN to 80086", "Call 09061701461. Claim code KL341",
    "ÀÉÎõü ñandú Straße", "İstanbul'da ΟΔΟΣ ΣΟΦΟΣ. σοφός", "a\u00a0b\u2003c\u3000d\u2028e\u2029f",
    "x\x1cy\x1dz\x1e\x1fw\x85v", "\ufeffhello\ufeffworld", "emoji 😀😀 text 👍🏽 ok", "e\u0301te\u0301 café",
    "日本語のテキストです", "हिन्दी पाठ यहाँ है", "مرحبا بالعالم", "😀" * 5, "a" * 10000, "\x00\x01\x02 ok",
    "word_with_underscore 123abc 4½ ²³ ⅷ", "<script>alert('u')</script> &amp; don't can't",
    "lone \ud83d surrogate", "tab\tsep\tvalues", "  many   spaces   between  ", "U.S.A. e-mail e‑mail",
    "FREE free Free fReE", "ﬁne ligature ﬀ", "Ⅻ roman ⓐ circled", "ǅungla ǈ titlecase",
]


def _settings():
    sms = nbcore.load_dataset("sms_spam")
    udhr = nbcore.load_dataset("udhr_langid")
    yield "sms_spam", sms
    yield "udhr_langid", udhr
    yield "sms_spam words 1-2, stop words, counts", sms.with_pipeline(ngram_range=(1, 2), stop_words=True, binary=False)
    yield "udhr_langid chars 2-4, case kept", udhr.with_pipeline(ngram_range=(2, 4), lowercase=False)


@pytest.mark.parametrize("label,ds", list(_settings()), ids=lambda v: v if isinstance(v, str) else "")
def test_message_vector_matches_countvectorizer(label, ds, tmp_path):
    docs = list(ds.texts) + HOSTILE
    data_path = tmp_path / "data.json"
    data_path.write_text(json.dumps(lab_data(ds, texts=False)), encoding="utf-8")
    docs_path = tmp_path / "docs.json"
    docs_path.write_text(json.dumps({"transform": docs, "analyze": HOSTILE + list(ds.texts[:200])}), encoding="utf-8")
    proc = subprocess.run([NODE, str(ROOT / "tests" / "lab" / "text_driver.mjs"), str(data_path), str(docs_path)],
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    out = json.loads(proc.stdout)
    X = ds.transform(docs).tocsr()
    X.sort_indices()
    bad = []
    for i, (idx, val) in enumerate(out["terms"]):
        row = X[i]
        if idx != row.indices.tolist() or val != row.data.tolist():
            bad.append(i)
    assert not bad, f"{label}: {len(bad)} documents differ, first {docs[bad[0]]!r}"
    analyze = ds.vectorizer.build_analyzer()
    for doc, tokens in zip(HOSTILE + list(ds.texts[:200]), out["tokens"]):
        assert tokens == analyze(doc), f"{label}: terms of {doc[:60]!r}"


def test_word_characters_and_lowercase_over_every_code_point():
    script = r"""
const word = /[\p{L}\p{N}_]/u, words = [], lower = {};
for (let c = 0; c < 0x110000; c++) {
  if (c >= 0xd800 && c < 0xe000) continue;
  const s = String.fromCodePoint(c);
  if (word.test(s)) words.push(c);
  const l = s.toLowerCase();
  if (l !== s) lower[c] = l;
}
process.stdout.write(JSON.stringify({ words, lower }));
"""
    proc = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    js = json.loads(proc.stdout)
    js_words, js_lower = set(js["words"]), {int(k): v for k, v in js["lower"].items()}
    w = re.compile(r"\w")
    points = [c for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000]
    py_words = {c for c in points if w.match(chr(c))}
    assigned = lambda c: unicodedata.category(chr(c)) != "Cn"  # noqa: E731
    word_diff = [hex(c) for c in js_words ^ py_words if assigned(c)]
    assert not word_diff, f"\\w differs on assigned code points: {word_diff[:20]}"
    lower_diff = [hex(c) for c in points if assigned(c) and js_lower.get(c, chr(c)) != chr(c).lower()]
    assert not lower_diff, f"lower-casing differs on: {lower_diff[:20]}"
