"""Digits with 1, 2, 3 (, 4) mixture components per class vs supervised Naive Bayes, over several seeds.

    python scripts/components_digits.py [--hidden 0.95] [--seeds 10] [--lam 1]

Prints one row per seed and the mean ± sd (accuracy on the hidden labels).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import nbcore  # noqa: E402
from nbcore.experiments import compare_components  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=float, default=0.95)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--lam", type=float, default=1.0)
    ap.add_argument("--ms", default="1,2,3")
    args = ap.parse_args()
    ds = nbcore.load_dataset("digits")
    ms = [int(m) for m in args.ms.split(",")]
    t0 = time.time()
    res = compare_components(ds.for_model("bernoulli"), np.asarray(ds.y), 10, args.hidden, ms=ms,
                             seeds=range(args.seeds), smoothing=args.lam)
    print(f"digits, {args.hidden:.0%} of labels hidden, λ = {args.lam:g}, {args.seeds} seeds ({time.time() - t0:.1f} s)")
    print("seed  supervised  " + "  ".join(f"EM m={m}" for m in ms))
    for j, s in enumerate(res["seeds"]):
        print(f"{s:4d}  {res['supervised'][j]:10.3f}  " + "  ".join(f"{res['em'][i, j]:7.3f}" for i in range(len(ms))))
    print(f"mean  {res['supervised'].mean():10.3f}  " + "  ".join(f"{res['em'][i].mean():7.3f}" for i in range(len(ms))))
    print(f"sd    {res['supervised'].std(ddof=1):10.3f}  " + "  ".join(f"{res['em'][i].std(ddof=1):7.3f}" for i in range(len(ms))))
    for i, m in enumerate(ms):
        wins = int(np.sum(res["em"][i] > res["supervised"]))
        print(f"m={m}: EM above supervised on {wins}/{len(res['seeds'])} seeds; mean iterations {res['iterations'][i].mean():.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
