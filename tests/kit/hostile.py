"""Hostile upload files, named: empty, binary, huge fields, thousands of columns, mixed encodings,
formula injection, bidi, over the size cap. Shared by the upload tests and the upload benchmark
(benchmarks/bench_hostile_uploads.py)."""
from __future__ import annotations

import codecs

import numpy as np

from nblab import limits

MAX_BYTES = limits.UPLOAD_MAX_BYTES

FORMULAS = ["=cmd|' /C calc'!A0", "=HYPERLINK(\"http://evil.example\",\"x\")", "+1+1", "-2+3", "@SUM(A1:A9)",
            "=1+1", "\t=1+1", "\r=1+1", "=DDE(\"cmd\";\"/C calc\";\"__DdeLink_60_870516294\")"]
ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252", "shift_jis", "koi8-r"]


def csv_line(cells) -> str:
    out = []
    for c in cells:
        c = str(c)
        if any(ch in c for ch in ",\"\n\r"):
            c = '"' + c.replace('"', '""') + '"'
        out.append(c)
    return ",".join(out)


def named_cases() -> dict[str, bytes]:
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(200)]
    text_rows = [" ".join(rng.choice(words, 6)) for _ in range(40)]
    labels = ["spam", "ham", ""] * 14
    ok_text = "text,label\n" + "\n".join(csv_line([t, l]) for t, l in zip(text_rows, labels)) + "\n"
    cases = {
        "empty.csv": b"",
        "whitespace.csv": b"   \n\n \t \n",
        "header_only.csv": b"text,label\n",
        "one_column.csv": b"label\na\nb\na\n",
        "one_class.csv": b"text,label\nhello there,a\nbye now,a\n",
        "no_labels.csv": b"text,label\nhello there,\nbye now,\n",
        "random_bytes.csv": bytes(np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8)),
        "nul_bytes.csv": b"text,label\nhello\x00world,a\nbye,b\n",
        "zip_magic.csv": b"PK\x03\x04" + bytes(200),
        "png_magic.csv": b"\x89PNG\r\n\x1a\n" + bytes(range(256)),
        "utf16_no_bom.csv": ok_text.encode("utf-16-le"),
        "mixed_encodings.csv": ("text,label\n").encode() + "naïve café,a\n".encode("utf-8")
                               + "naïve café,b\n".encode("latin-1") + "日本語 テキスト,a\n".encode("shift_jis"),
        "huge_field.csv": b"text,label\n" + b"x" * (2 * 1024 * 1024) + b",a\nshort text here,b\n",
        "huge_quoted_multiline.csv": b'text,label\n"' + b"line\n" * 200_000 + b'",a\nok text,b\n',
        "unterminated_quote.csv": b'text,label\n"never closed,a\nmore text,b\n',
        "ragged_rows.csv": b"a,b,label\n1,2,x\n1,2,3,4,y\n1,x\n",
        "thousands_of_columns.csv": (",".join(f"c{j}" for j in range(5000)) + ",label\n"
                                     + "\n".join(",".join(str(int(v)) for v in rng.integers(0, 2, 5000)) + f",{k % 2}"
                                                 for k in range(20)) + "\n").encode(),
        "vocabulary_bomb.csv": ("text,label\n" + "\n".join(
            csv_line([" ".join(f"t{i}x{j}" for j in range(60)), "ab"[i % 2]]) for i in range(600)) + "\n").encode(),
        "formula_injection.csv": ("=cmd|' /C calc'!A0,@SUM(1+1),+1+1,label\n"
                                  + "\n".join(csv_line([k % 2, (k // 2) % 2, (k // 3) % 2, FORMULAS[k % 3]])
                                              for k in range(30)) + "\n").encode(),
        "formula_text.csv": ("text,label\n" + "\n".join(
            csv_line([f"{FORMULAS[k % len(FORMULAS)]} hello world", ["=1+1", "@A1"][k % 2]]) for k in range(30))
            + "\n").encode(),
        "over_cap.csv": b"text,label\n" + (b"hello world again and again,a\n" * (MAX_BYTES // 30 + 10)),
        "html_labels.csv": ("text,label\n" + "\n".join(
            csv_line([f"cheap pills word{k} buy now", ["<img src=x onerror=alert(1)>", "<b>ham</b>"][k % 2]])
            for k in range(30)) + "\n").encode(),
        "nan_inf_numbers.csv": b"x1,x2,label\nnan,1,a\ninf,2,b\n-inf,3,a\n1e400,4,b\n",
        "bom_only.csv": codecs.BOM_UTF8,
        "crlf_cr_mix.csv": b"text,label\r\nhello world there,a\rbye now friend,b\nmore words here,a\r\n",
        "control_chars.csv": ("text,label\n" + "\n".join(f"he\x07llo\x1b[31m wor\x08ld {k},{'ab'[k % 2]}"
                                                         for k in range(30)) + "\n").encode(),
        "bidi_and_emoji.csv": ("text,label\n" + "\n".join(f"\u202egnp.exe 😀 word{k} ok,{'ab'[k % 2]}" for k in range(30))
                               + "\n").encode(),
    }
    return cases
