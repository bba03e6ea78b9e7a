#!/usr/bin/env python
"""Worst case inside the upload caps: what one student's largest allowed CSV costs the server.

    python loadtest/big_upload.py            # nbcore only: parse, time per EM step, bytes per snapshot
    python loadtest/big_upload.py --ui 100   # through the page (AppTest): upload, max iterations 100,
                                             # Run to convergence; wall time and RSS growth of this process

Builds a text CSV just under nbcore.data.MAX_UPLOAD_BYTES (5 MB): ~250,000 three-word
documents over a 30,000-word vocabulary (cut to MAX_FEATURES = 20,000), 10 classes,
5 % labelled. Bounded: at most --steps EM steps (nbcore) or one Run to convergence
with the given max iterations (UI, <= 1000, the widget's limit).
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import nbcore  # noqa: E402
from loadtest import procstat  # noqa: E402


def rss_mb() -> float:
    """This process's RSS in MB (NaN when it cannot be read)."""
    v = procstat.rss_mb(os.getpid())
    return float("nan") if v is None else v


def make_csv(limit: int) -> bytes:
    rng = np.random.default_rng(0)
    vocab = np.array([f"w{i}" for i in range(30000)])
    lines, size = ["text,label"], 11
    labels = list("abcdefghij")
    while size < limit - 200:
        doc = " ".join(rng.choice(vocab, 3))
        line = f"{doc},{labels[rng.integers(10)] if rng.random() < 0.05 else ''}"
        lines.append(line)
        size += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--ui", type=int, metavar="MAX_ITER", help="go through the page with this max iterations")
    args = ap.parse_args()
    raw = make_csv(nbcore.data.MAX_UPLOAD_BYTES)
    print(f"CSV: {len(raw) / 1e6:.2f} MB (cap {nbcore.data.MAX_UPLOAD_BYTES / 1e6:.2f} MB)")
    if args.ui:
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=900)
        at.run()
        r0, t0 = rss_mb(), time.perf_counter()
        at.file_uploader(key="uploader").upload("big.csv", raw, "text/csv").run()
        print(f"upload: {time.perf_counter() - t0:.1f} s, RSS {r0:.0f} -> {rss_mb():.0f} MB;",
              [e.value[:120] for e in at.error] or [s.value[:120] for s in at.success])
        at.number_input(key="max_iter").set_value(min(1000, max(1, args.ui))).run()
        at.select_slider(key="tol").set_value(1e-8).run()       # the tightest tolerance offered
        at.select_slider(key="lam").set_value(0.001).run()
        r1, t1 = rss_mb(), time.perf_counter()
        at.button(key="converge").click().run()
        it = next((m.value for m in at.metric if m.label.startswith("Iteration")), "?")
        print(f"Run to convergence (max {args.ui}): {time.perf_counter() - t1:.1f} s, iteration {it}, "
              f"RSS {r1:.0f} -> {rss_mb():.0f} MB; exceptions: {[e.value[:120] for e in at.exception]}")
        return 0
    t = time.perf_counter()
    ds = nbcore.read_csv(io.BytesIO(raw))
    print(f"read_csv: {time.perf_counter() - t:.1f} s -> {ds}")
    X = ds.for_model(ds.models[0])
    run = nbcore.EM(model=ds.models[0], n_classes=ds.n_classes, smoothing=0.001, max_iter=1000, tol=1e-8).start(X, ds.y)
    r0, t = rss_mb(), time.perf_counter()
    for _ in range(args.steps):
        run.step()
    dt = (time.perf_counter() - t) / args.steps
    s = run.current
    per = s.resp.nbytes + sum(np.asarray(v).nbytes for v in s.params.values() if hasattr(v, "nbytes"))
    print(f"EM step: {dt * 1000:.0f} ms; one snapshot keeps {per / 1e6:.1f} MB (resp N x K + params); "
          f"RSS {r0:.0f} -> {rss_mb():.0f} MB after {args.steps} steps")
    print(f"=> max iterations 100: ~{dt * 100:.0f} s and ~{per * 100 / 1e9:.1f} GB per session; "
          f"1000: ~{dt * 1000:.0f} s and ~{per * 1000 / 1e9:.1f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
