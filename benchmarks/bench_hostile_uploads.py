"""Parse time of each hostile upload against a benign file of the same size, in the same run.

What is timed is the upload path's work without Streamlit: ``dashboard.data.uploads.read_new_upload``
(the columns guessed, the file parsed and vectorised) and the first model's matrix
(``ds.for_model``), in this process. Each hostile file of the test kit (``tests/kit/hostile.py``:
empty, binary, a 2 MB field, 200,000 quoted lines, 5,000 columns, a vocabulary bomb, mixed encodings,
over the size cap, ...) is timed round-robin with a *benign* file of the same byte size: a two-column
``text,label`` CSV of short messages, the shape the lesson expects. A refused file (DataError) is
timed up to its refusal. The ratio hostile ÷ benign says whether a file costs more than its size is
worth: a parser that went quadratic on some shape would show a ratio far above 1, whatever the
machine's speed. Nothing is asserted (the upload tests check what each file gives, not how fast).

Usage::

    python benchmarks/bench_hostile_uploads.py                 # 7 rounds, about a minute
    python benchmarks/bench_hostile_uploads.py --rounds 3 --case huge_field.csv
    python benchmarks/bench_hostile_uploads.py --json out.json  # also the numbers as JSON
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402

from dashboard.data.uploads import read_new_upload  # noqa: E402
from kit.hostile import csv_line, named_cases  # noqa: E402


def benign(n_bytes: int, seed: int = 0) -> bytes:
    """A ``text,label`` CSV of short messages over a 2,000-word vocabulary, labels spam/ham, at least
    ``n_bytes`` long (and at least three rows, so that it is a data set)."""
    rng = np.random.default_rng(seed)
    words = [f"word{i}" for i in range(2000)]
    lines, size = ["text,label"], 11
    while size < n_bytes or len(lines) < 4:
        line = csv_line([" ".join(rng.choice(words, 8)), ("spam", "ham")[len(lines) % 2]])
        lines.append(line)
        size += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


def parse(data: bytes) -> str:
    """Run the upload path once; how it ended ("read" or the refusal's exception name)."""
    try:
        _, _, _, ds = read_new_upload(data, None)
        ds.for_model(ds.models[0])
        return "read"
    except ValueError as e:  # nbcore.data.DataError and the refusals are ValueErrors
        return type(e).__name__


def timed(data: bytes) -> float:
    t0 = time.perf_counter()
    parse(data)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--case", action="append", help="only this hostile file (repeatable)")
    ap.add_argument("--json", help="also write the numbers as JSON to this file")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    cases = named_cases()
    names = sorted(args.case or cases)
    pairs = {n: (cases[n], benign(len(cases[n]))) for n in names}
    ends = {n: parse(pairs[n][0]) for n in names}           # warm-up, and how each file ends
    for n in names:
        parse(pairs[n][1])
    hostile_s = {n: [] for n in names}
    benign_s = {n: [] for n in names}
    for _ in range(args.rounds):             # round-robin: each round times every pair, hostile then benign
        for n in names:
            h, b = pairs[n]
            hostile_s[n].append(timed(h))
            benign_s[n].append(timed(b))
    rows = []
    for n in names:
        h, b = statistics.median(hostile_s[n]), statistics.median(benign_s[n])
        rows.append({"case": n, "bytes": len(pairs[n][0]), "ends": ends[n], "hostile_ms": 1e3 * h,
                     "benign_ms": 1e3 * b, "ratio": h / b if b > 0 else float("nan")})
    print(f"{'file':28} {'bytes':>10} {'ends':>10} {'hostile ms':>11} {'benign ms':>10} {'ratio':>7}")
    for r in rows:
        print(f"{r['case']:28} {r['bytes']:>10,} {r['ends']:>10} {r['hostile_ms']:>11.1f} "
              f"{r['benign_ms']:>10.1f} {r['ratio']:>7.2f}")
    worst = max(rows, key=lambda r: r["ratio"])
    print(f"\nworst ratio: {worst['case']} at {worst['ratio']:.2f}× the benign file of its size "
          f"(medians of {args.rounds} rounds)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rounds": args.rounds, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
