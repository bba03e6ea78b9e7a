"""Measure where the unlabelled data really help, to choose the lesson's default settings.

For every (labels hidden, event model, λ) on a real text set and seeds 0–9 it runs the lesson's own
run (nblab.prepare.build_run: the app's data, EM from the labelled rows, ≤ 100 iterations, tol 1e-6)
to convergence and scores, on the hidden rows:

* EM at convergence;
* the baselines (nbcore.baselines): the majority class, supervised NB at the run's λ, and supervised
  NB at the λ chosen by leave-one-out on the labelled rows alone;
* EM's gain over the *best* of those baselines.

It prints one line per setting (mean and spread over the seeds) and, last, the setting with the
largest worst-case gain among those where EM beats the best baseline at every seed.

    python scripts/choose_default_lesson.py                       # the full grid (a few minutes)
    python scripts/choose_default_lesson.py --hidden 97 --models bernoulli --lams 0.1 --seeds 3
    python scripts/choose_default_lesson.py --json /tmp/grid.json  # every number, for a closer look
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nblab.outcome import lesson_outcome  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default="sms_spam")
    ap.add_argument("--hidden", type=int, nargs="+", default=[90, 95, 97, 98, 99])
    ap.add_argument("--models", nargs="+", default=["bernoulli", "multinomial"])
    ap.add_argument("--lams", type=float, nargs="+", default=[0.01, 0.1, 0.3, 1.0])
    ap.add_argument("--seeds", type=int, default=10, help="seeds 0 … n−1")
    ap.add_argument("--json", help="write every number to this file")
    args = ap.parse_args(argv)
    rows = []
    print(f"{'hidden':>6} {'model':>11} {'λ':>5} | {'majority':>8} {'NB@λ':>6} {'NB@LOO':>6} {'EM':>6} | "
          f"{'gain over best: mean ± sd':>25} {'min':>6} {'max':>6} | {'LOO λ (seeds)'}")
    for hidden in args.hidden:
        for model in args.models:
            for lam in args.lams:
                t0 = time.time()
                outs = []
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for seed in range(args.seeds):
                        outs.append(lesson_outcome(args.dataset, model, hidden, lam, seed))
                g = np.array([o.gain for o in outs]) * 100
                mean = lambda f: 100 * float(np.mean([f(o) for o in outs]))  # noqa: E731
                row = dict(dataset=args.dataset, hidden=hidden, model=model, lam=lam,
                           majority=mean(lambda o: o.majority), at_lambda=mean(lambda o: o.at_lambda),
                           cv=mean(lambda o: o.cv), em=mean(lambda o: o.em), gain_mean=float(g.mean()),
                           gain_sd=float(g.std(ddof=1)) if g.size > 1 else 0.0, gain_min=float(g.min()),
                           gain_max=float(g.max()), cv_lambdas=[o.cv_lambda for o in outs],
                           gains=[float(v) for v in g], seconds=time.time() - t0)
                rows.append(row)
                print(f"{hidden:>5}% {model:>11} {lam:>5g} | {row['majority']:>7.1f}% {row['at_lambda']:>5.1f}% "
                      f"{row['cv']:>5.1f}% {row['em']:>5.1f}% | {row['gain_mean']:>+14.1f} ± {row['gain_sd']:.1f} pts "
                      f"{row['gain_min']:>+6.1f} {row['gain_max']:>+6.1f} | "
                      f"{', '.join(f'{v:g}' for v in sorted(set(row['cv_lambdas'])))}", flush=True)
    robust = [r for r in rows if r["gain_min"] > 0]
    if robust:
        best = max(robust, key=lambda r: (r["gain_min"], r["gain_mean"]))
        print(f"\nLargest worst-case gain with EM above the best baseline at every seed: {best['hidden']}% hidden, "
              f"{best['model']}, λ = {best['lam']:g}: EM {best['em']:.1f}% vs best baseline, gain "
              f"{best['gain_mean']:+.1f} ± {best['gain_sd']:.1f} pts (min {best['gain_min']:+.1f}, "
              f"max {best['gain_max']:+.1f}) over seeds 0–{args.seeds - 1}")
    else:
        print("\nNo setting where EM beats the best supervised baseline at every seed.")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
