#!/usr/bin/env python
"""Cost of the shipped text corpora: cold load, re-vectorising, one EM step.

    python benchmarks/bench_text.py             # timings (≈1 min on 2 busy cores)
    python benchmarks/bench_text.py --lessons   # also the accuracies quoted in the data cards

For each text corpus (sms_spam, udhr_langid; sms_spam is the largest shipped):

* cold load: a fresh ``python -c "import nbcore; nbcore.load_dataset(name)"``
  (interpreter + numpy/scipy/scikit-learn imports + file + vectorising), median of 3;
  baseline: the same process doing only the imports (``import nbcore, sklearn...``).
* warm load: ``load_dataset(name)`` in this process (imports done), median of 5;
  baseline (the floor): reading the file with the csv module and
  ``CountVectorizer(...).fit_transform`` with the same settings.
* re-vectorise: ``ds.with_pipeline(tokens="char", ngram_range=(3, 3))`` — what the
  lab does when the teacher changes the tokens.
* one EM step: ``run.step()`` at 90 % hidden, λ = 1, from the labelled rows, for
  the default event model and the other one; baseline: one supervised fit of
  scikit-learn's MultinomialNB/BernoulliNB on the visible rows (median of 9).

The dashboard's own server time per interaction is measured on a real server by
``python scripts/measure_rerun.py --query "dataset=sms_spam"`` (see docs/performance.md).
"""
from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbcore  # noqa: E402
from nbcore.data import DEFAULT_PIPELINES, datasets_dir  # noqa: E402


def med(f, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def cold(code: str, n=3) -> float:
    def once():
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    return med(once, n)


def raw_texts(name):
    d = datasets_dir()
    if name == "sms_spam":
        with open(d / "sms_spam.tsv", encoding="utf-8", newline="") as f:
            return [line.rstrip("\n").split("\t", 1)[1] for line in f if line.strip()]
    with open(d / "udhr_langid.csv", encoding="utf-8", newline="") as f:
        return [r["text"] for r in csv.DictReader(f)]


def ms(s):
    return f"{s * 1e3:,.1f} ms"


def timings():
    from sklearn.naive_bayes import BernoulliNB, MultinomialNB

    imports = cold("import nbcore, sklearn.feature_extraction.text, sklearn.datasets")
    print(f"cold imports only (baseline): {ms(imports)}")
    rows = []
    for name in ("sms_spam", "udhr_langid"):
        c = cold(f"import nbcore; nbcore.load_dataset({name!r})")
        ds = nbcore.load_dataset(name)
        warm = med(lambda: nbcore.load_dataset(name), 5)
        texts = raw_texts(name)
        vec = DEFAULT_PIPELINES[name].vectorizer()
        floor = med(lambda: vec.fit_transform(raw_texts(name)), 5)
        revec = med(lambda: ds.with_pipeline(tokens="char", ngram_range=(3, 3)), 3)
        print(f"\n{name}: N = {ds.n_samples:,}, V = {ds.n_features:,}, K = {ds.n_classes}, "
              f"nnz = {ds.X.nnz:,} ({ds.pipeline.describe()})")
        print(f"  cold load (fresh process)   {ms(c):>12}   imports alone {ms(imports)}, "
              f"load itself ≈ {ms(c - imports)}")
        print(f"  warm load_dataset           {ms(warm):>12}   floor (csv + CountVectorizer) "
              f"{ms(floor)}   ratio {warm / floor:.2f}×")
        print(f"  re-vectorise to char 3-grams {ms(revec):>11}")
        y_obs, hidden = nbcore.hide_labels(ds.y, 0.9, random_state=0)
        for model in ds.models:
            X = ds.for_model(model)
            em = nbcore.EM(model=model, n_classes=ds.n_classes, smoothing=1.0, init="labeled",
                           max_iter=10_000, tol=0)
            run = em.start(X, y_obs)
            step = med(run.step, 9)
            vis = y_obs >= 0
            sk = (MultinomialNB if model == "multinomial" else BernoulliNB)(alpha=1.0)
            fit = med(lambda: sk.fit(X[vis], y_obs[vis]), 9)
            print(f"  one EM step, {model:<11}    {ms(step):>12}   sklearn {type(sk).__name__}.fit "
                  f"on the visible rows {ms(fit)}   ratio {step / fit:.2f}×")
            rows.append((name, model, step))
        del texts
    return rows


def lessons():
    print("\naccuracy on the hidden labels (λ = 1, EM from the labelled rows, seed 0):")
    cases = [("sms_spam", {}, "bernoulli"), ("sms_spam", {"binary": False}, "multinomial")]
    for name, kw, model in cases:
        ds = nbcore.load_dataset(name, **kw)
        for frac in (0.9, 0.97, 0.99):
            y_obs, hidden = nbcore.hide_labels(ds.y, frac, random_state=0)
            run = nbcore.EM(model=model, n_classes=ds.n_classes, smoothing=1.0,
                            init="labeled").start(ds.for_model(model), y_obs)
            sup = np.mean(run.predict(t=0)[hidden] == ds.y[hidden])
            run.run_to_convergence()
            em = np.mean(run.predict()[hidden] == ds.y[hidden])
            print(f"  {name:<12} {model:<12} {frac:.0%} hidden: supervised {sup:.3f} -> "
                  f"EM {em:.3f} ({run.iteration} iterations)")
    base = nbcore.load_dataset("udhr_langid")
    for label, kw, frac in [("char 1-3 counts", {}, 0.9), ("words counts", {"tokens": "word"}, 0.9),
                            ("char 2 counts", {"ngram_range": (2, 2)}, 0.98),
                            ("words counts", {"tokens": "word"}, 0.98)]:
        ds = base.with_pipeline(**kw)
        y_obs, hidden = nbcore.hide_labels(ds.y, frac, random_state=0)
        run = nbcore.EM(model="multinomial", n_classes=ds.n_classes, smoothing=1.0,
                        init="labeled").start(ds.X, y_obs)
        sup = np.mean(run.predict(t=0)[hidden] == ds.y[hidden])
        run.run_to_convergence()
        em = np.mean(run.predict()[hidden] == ds.y[hidden])
        print(f"  udhr_langid  {label:<16} {frac:.0%} hidden: supervised {sup:.3f} -> EM {em:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lessons", action="store_true", help="also print the data cards' accuracies")
    args = ap.parse_args()
    timings()
    if args.lessons:
        lessons()


if __name__ == "__main__":
    main()
