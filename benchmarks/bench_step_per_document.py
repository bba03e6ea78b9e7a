"""Server time of one EM Step per document: spam_assassin against sms_spam, in the same run.

What is timed is what the lesson's **Step** button runs on the server: one ``run.step()``
(the M-step from the pending responsibilities, then the E-step product for the new θ, its
log-likelihood and the next responsibilities) of ``nbcore.EM`` with the lesson's default
settings on each shipped data set as it opens:

* the data set's default text settings (``nbcore.load_dataset(name)``) and its first event
  model (Bernoulli for both; ``--model multinomial`` loads the counts instead);
* 90 % of the labels hidden (``nbcore.hide_labels(y, 0.9, random_state=0)``), λ = 1, EM from
  the labelled rows, unlabelled weight 1, max 100 iterations, tol 1e-6, seed 0, the last 2
  responsibilities kept (the dashboard's ``KEEP_RESP``), the model's suggested options.

The two data sets are timed round-robin (one step of each per round) so machine noise hits
both alike; a run that reaches ``max_iter`` or converges is started afresh (not timed).
Reported per data set: N, V, non-zeros, the median and minimum seconds of one step over the
rounds, the median per document (µs) and per non-zero (ns); then the ratios
spam_assassin ÷ sms_spam per document and per non-zero. Nothing is asserted.

Usage::

    python benchmarks/bench_step_per_document.py                 # 41 rounds, a few seconds
    python benchmarks/bench_step_per_document.py --rounds 101 --model multinomial
    python benchmarks/bench_step_per_document.py --json out.json  # also the numbers as JSON
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

import numpy as np  # noqa: E402

import nbcore  # noqa: E402

DATASETS = ("sms_spam", "spam_assassin")
#: The lesson's defaults (dashboard.controls.DEFAULTS and lifecycle.KEEP_RESP).
LESSON = dict(hidden=0.9, smoothing=1.0, init="labeled", unlabeled_weight=1.0, max_iter=100, tol=1e-6, seed=0,
              keep_resp=2)


def lesson_run(name: str, model: str | None):
    """(start(), data set): ``start()`` gives a fresh lesson run on the data set."""
    ds = nbcore.load_dataset(name) if model != "multinomial" else nbcore.load_dataset(name, binary=False)
    model = model or ds.models[0]
    X = ds.for_model(model)
    y_obs, _ = nbcore.hide_labels(ds.y, LESSON["hidden"], random_state=LESSON["seed"])
    em = nbcore.EM(model=model, n_classes=ds.n_classes, smoothing=LESSON["smoothing"], init=LESSON["init"],
                   unlabeled_weight=LESSON["unlabeled_weight"], max_iter=LESSON["max_iter"], tol=LESSON["tol"],
                   random_state=LESSON["seed"], keep_resp=LESSON["keep_resp"],
                   model_options=nbcore.get_model(model).suggested_options(X))

    def start():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return em.start(X, y_obs)
    return start, X, model


def measure(rounds: int, warmup: int, model: str | None) -> dict:
    setups = {name: lesson_run(name, model) for name in DATASETS}
    runs = {name: setups[name][0]() for name in DATASETS}
    times = {name: [] for name in DATASETS}
    for r in range(warmup + rounds):
        for name in DATASETS:
            if runs[name].done:
                runs[name] = setups[name][0]()
            t = time.perf_counter()
            runs[name].step()
            dt = time.perf_counter() - t
            if r >= warmup:
                times[name].append(dt)
    out = {}
    for name in DATASETS:
        _, X, used = setups[name]
        n, v = X.shape
        nnz = int(X.nnz) if hasattr(X, "nnz") else int(np.count_nonzero(X))
        med = statistics.median(times[name])
        out[name] = {"model": used, "N": n, "V": v, "nnz": nnz, "nnz_per_document": nnz / n,
                     "step_s_median": med, "step_s_min": min(times[name]),
                     "us_per_document": med / n * 1e6, "ns_per_nonzero": med / nnz * 1e9}
    a, b = out["spam_assassin"], out["sms_spam"]
    out["ratio_per_document"] = a["us_per_document"] / b["us_per_document"]
    out["ratio_per_nonzero"] = a["ns_per_nonzero"] / b["ns_per_nonzero"]
    out["rounds"] = rounds
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=41, help="timed steps per data set (median taken)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--model", choices=("bernoulli", "multinomial"), default=None,
                    help="event model (default: each data set's first, Bernoulli)")
    ap.add_argument("--json", help="also write the numbers as JSON to this file")
    args = ap.parse_args(argv)
    res = measure(args.rounds, args.warmup, args.model)
    print(f"one EM Step (run.step()), lesson defaults, median of {args.rounds} rounds")
    print("| data set | model | N | V | non-zeros | per document | step median (min) | per document | per non-zero |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in DATASETS:
        r = res[name]
        print(f"| {name} | {r['model']} | {r['N']:,} | {r['V']:,} | {r['nnz']:,} | {r['nnz_per_document']:.1f} | "
              f"{r['step_s_median'] * 1e3:.2f} ms ({r['step_s_min'] * 1e3:.2f}) | {r['us_per_document']:.3f} µs | "
              f"{r['ns_per_nonzero']:.2f} ns |")
    print(f"spam_assassin ÷ sms_spam: per document {res['ratio_per_document']:.2f}×, "
          f"per non-zero {res['ratio_per_nonzero']:.2f}×")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
