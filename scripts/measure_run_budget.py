"""Server memory for one student's lesson on an oversized file or URL, measured in-process.

Runs the app with Streamlit's AppTest (the script runs in this process, as in the server) and
prints the process's resident memory (RSS) before and after:
  upload  a 6,000-row CSV with 15,000 words and a 500-value label column, then 5 Steps
  url     ?dataset=udhr_langid&max_iter=1000&tol=1e-08, then 40 Steps
Usage: python scripts/measure_run_budget.py upload|url
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def many_classes_csv(n_rows=6000, n_words=15_000, n_classes=500) -> bytes:
    rng = np.random.default_rng(1)
    rows = []
    for i in range(n_rows):
        words = rng.integers(0, n_words, 12)
        words[0] = i % n_words
        rows.append(" ".join(f"w{j}" for j in words) + f",c{i % n_classes}")
    return ("text,label\n" + "\n".join(rows) + "\n").encode()


def main(mode: str) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
    if mode == "url":
        at.query_params.update({"dataset": "udhr_langid", "max_iter": "1000", "tol": "1e-08"})
    at.run()
    steps = 40 if mode == "url" else 5
    print(f"{mode}: RSS after opening the page {rss_mb():.0f} MB")
    if mode == "upload":
        data = many_classes_csv()
        print(f"upload: file {len(data) / 1024:.0f} kB")
        at.session_state["pending_upload"] = ("many_classes.csv", data)
        at.run()
    t0 = time.perf_counter()
    for _ in range(steps):
        buttons = [b for b in at.button if b.key == "step" and not b.disabled]
        if not buttons:
            break
        buttons[0].click().run()
    errors = " | ".join(e.value for e in at.error)[:300]
    run = at.session_state["lesson"].run if "run" in at.session_state else None
    it = run.current.iteration if run is not None else None
    print(f"{mode}: after {steps} Steps ({time.perf_counter() - t0:.1f} s): RSS {rss_mb():.0f} MB, "
          f"iteration {it}, error shown: {errors or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "upload")
