"""Writes tests/lab/js/numpy_values.mjs: numbers drawn by numpy (and labels hidden by nbcore) that
the JavaScript unit tests (tests/lab/js/*.test.mjs) must reproduce bit for bit.

    python3 tests/lab/make_numpy_values.py

Run it again only if the tests' cases change; the file is committed (the node tests never run Python).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import nbcore

OUT = Path(__file__).resolve().parent / "js" / "numpy_values.mjs"


def main() -> None:
    v = {"numpy": np.__version__}
    seeds = [0, 1, 2, 42, 12345, 2**32 - 1, 2**32, 2**63 + 5, 2**128 + 7]
    v["raw64"] = {str(s): [str(int(x)) for x in np.random.default_rng(s).bit_generator.random_raw(5)] for s in seeds}
    v["uniform"] = [np.random.default_rng(s).uniform(0.01, 0.99, 7).tolist() for s in range(50)]
    v["random"] = [np.random.default_rng(s).random(5).tolist() for s in range(20)]
    # permutation(np.arange(10))[:3] for every seed the lab offers (0..9999), as one string of digits
    v["perm10"] = "".join("".join(str(d) for d in np.random.default_rng(s).permutation(np.arange(10))[:3])
                          for s in range(10000))
    v["perm_long"] = {str(s): np.random.default_rng(s).permutation(np.arange(n))[:6].tolist()
                      for s, n in [(0, 5574), (1, 5574), (7, 2**16 + 3), (9999, 1797), (3, 2)]}
    v["choice"] = [[s, n, k, np.random.default_rng(s).choice(n, size=k, replace=False).tolist()]
                   for s, n, k in [(0, 5574, 2), (1, 150, 3), (7, 100, 10), (5, 1797, 10), (3, 20000, 1000),
                                   (4, 12000, 300), (8, 5, 5)]]
    v["integers"] = [[s, n, np.random.default_rng(s).integers(0, n, size=9).tolist()]
                     for s, n in [(0, 2), (1, 5), (2, 1000), (3, 2**31 + 11), (4, 7)]]
    # uniform draws after a choice (the Gaussian random start: α, then rows, then nothing else)
    rng = np.random.default_rng(11)
    first = rng.uniform(0.01, 0.99, 3).tolist()
    rows = rng.choice(150, size=3, replace=False).tolist()
    v["mixed"] = {"seed": 11, "uniform": first, "choice": rows, "after": rng.uniform(0.01, 0.99, 4).tolist()}
    # nbcore.hide_labels
    y = np.array([0] * 7 + [1] * 3 + [-1] * 2 + [2] * 5 + [0] * 4 + [1])
    hide = []
    for frac in (0.0, 0.25, 0.5, 0.9, 0.99, 1.0):
        for s in (0, 1, 2, 99, 9999):
            y_obs, hidden = nbcore.hide_labels(y, frac, random_state=s)
            hide.append([frac, s, np.flatnonzero(hidden).tolist()])
    v["hide"] = {"y": y.tolist(), "cases": hide}
    OUT.write_text("// Written by tests/lab/make_numpy_values.py (numpy " + np.__version__ + "); do not edit.\n"
                   "export default " + json.dumps(v) + ";\n", encoding="utf-8")


if __name__ == "__main__":
    main()
