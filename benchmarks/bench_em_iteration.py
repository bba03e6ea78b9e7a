"""Time one EM iteration of nbcore on 20-Newsgroups-sized sparse data.

Compares, in the same run and on the same synthetic data:

* **nbcore**      ``run.step()`` (one E-step + M-step) of ``nbcore.EM``;
* **(a) sklearn** the usual scikit-learn way to do soft-label EM: refit
  ``MultinomialNB`` / ``BernoulliNB`` (``alpha=λ, force_alpha=True``) on the
  rows stacked once per class (``sp.vstack`` done ONCE, outside the timed
  loop), ``y = repeat(class ids)``, ``sample_weight = responsibilities``
  column-stacked, then ``predict_proba`` for the E-step;
* **(b) pure Python** EM in the style of the notebook (dicts, ``math.log``,
  loops over labels and tokens) on a subsample, scaled to the full size by
  the ratio of work (docs × vocab × K);
* **floor**       the two bare sparse products every EM iteration needs:
  ``X @ W`` (E-step, W dense (V, K)) and ``Xᵀ @ R`` (M-step, R dense (N, K)).

and reports peak memory of one nbcore iteration (tracemalloc peak during
``step()`` + X's own bytes + parameter bytes) against X's size + parameters.

Usage::

    python benchmarks/bench_em_iteration.py            # full size (~1-2 min)
    python benchmarks/bench_em_iteration.py --quick    # smoke run, seconds
    python benchmarks/bench_em_iteration.py --json out.json   # also write JSON ('-' = stdout)

Timings are medians over repeats after warm-up iterations (``time.perf_counter``).
The machine may be noisy: nothing here asserts a timing; the ratios are
against baselines measured in the same run. OPENBLAS_* environment variables
are left exactly as they are.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import sys
import time
import tracemalloc

import numpy as np
import scipy
import scipy.sparse as sp

import nbcore

MODELS = ("bernoulli", "multinomial")

TARGETS = {
    "sklearn_over_nbcore": 10.0,  # nbcore ≥ 10× faster than (a)
    "python_over_nbcore": 1000.0,  # nbcore ≥ 1000× faster than (b)
    "nbcore_over_floor": 1.5,  # within 1.5× of the bare products
    "peak_over_data": 2.0,  # peak within 2× of X + params
}

FULL = dict(n_docs=11314, n_vocab=30000, n_classes=20, mean_len=105, sub_docs=200, sub_vocab=2000)
QUICK = dict(n_docs=1000, n_vocab=3000, n_classes=20, mean_len=60, sub_docs=30, sub_vocab=200)


# ---------------------------------------------------------------------------
# Synthetic data
# ---------------------------------------------------------------------------
def make_corpus(n_docs, n_vocab, n_classes, mean_len, seed=0, zipf_s=1.0, topic_share=0.3):
    """Word counts (CSR, float64) with Zipf-like word frequencies, and the true classes.

    Each token is drawn from a global Zipf law p_j ∝ 1/(j + 2.7)^s; with
    probability ``topic_share`` its word id is sent through a per-class
    permutation of the vocabulary, so classes have their own frequent words.
    Document lengths are log-normal. At full size this gives ≈1.0M non-zeros.
    """
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(n_vocab) + 2.7) ** zipf_s
    cdf = np.cumsum(p / p.sum())
    z = rng.integers(0, n_classes, n_docs)
    lengths = np.maximum(1, rng.lognormal(np.log(mean_len) - 0.5, 1.0, n_docs).astype(np.int64))
    doc = np.repeat(np.arange(n_docs), lengths)
    word = np.searchsorted(cdf, rng.random(doc.size), side="right").clip(max=n_vocab - 1)
    perms = np.stack([rng.permutation(n_vocab) for _ in range(n_classes)])
    topical = rng.random(doc.size) < topic_share
    word[topical] = perms[z[doc[topical]], word[topical]]
    X = sp.csr_matrix((np.ones(doc.size), (doc, word)), shape=(n_docs, n_vocab))
    X.sum_duplicates()
    X.sort_indices()
    return X, z


def binarize(X):
    B = X.copy()
    B.data[:] = 1.0
    return B


def sparse_bytes(X) -> int:
    return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)


# ---------------------------------------------------------------------------
# Timing helpers
# ---------------------------------------------------------------------------
def timed(fn, repeats, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), times


def timed_interleaved(fns, repeats, warmup):
    """Time several callables round-robin (one call of each per round), so that
    machine noise hits all of them alike. Returns {name: (median, times)}."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: (float(np.median(ts)), ts) for name, ts in times.items()}


def start_run(model, X, y, K, smoothing, unlabeled_weight):
    return nbcore.EM(
        model=model,
        n_classes=K,
        smoothing=smoothing,
        init="random",
        random_state=0,
        unlabeled_weight=unlabeled_weight,
        max_iter=10**9,
        tol=None,
    ).start(X, y)


def bench_nbcore_and_floor(model, X, y, K, smoothing, unlabeled_weight, repeats, warmup, seed=1):
    """nbcore's step() and the two bare products, interleaved round-robin.

    Floor: ``X @ W`` (W dense (V, K)) and ``X.T @ R`` (R dense (N, K)) on the
    CSR matrix as given (``X.T`` is a free CSC view; a precomputed CSR copy of
    Xᵀ is no faster with scipy's kernels).
    """
    run = start_run(model, X, y, K, smoothing, unlabeled_weight)
    rng = np.random.default_rng(seed)
    W = rng.random((X.shape[1], K))
    R = rng.random((X.shape[0], K))
    res = timed_interleaved(
        {"nbcore": run.step, "floor_e": lambda: X @ W, "floor_m": lambda: X.T @ R}, repeats, warmup
    )
    return res, run


def nbcore_memory(model, X, y, K, smoothing, unlabeled_weight):
    """tracemalloc peak of one step() (after one un-traced warm-up step)."""
    run = start_run(model, X, y, K, smoothing, unlabeled_weight)
    run.step()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    snap = run.step()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    params_bytes = int(snap.alpha.nbytes + sum(np.asarray(v).nbytes for v in snap.params.values()))
    return peak - base, params_bytes, int(snap.resp.nbytes)


# -- (a) scikit-learn ---------------------------------------------------------
def bench_sklearn(model, X, K, smoothing, resp0, repeats, warmup):
    from sklearn.naive_bayes import BernoulliNB, MultinomialNB

    N = X.shape[0]
    X_stacked = sp.vstack([X] * K, format="csr")  # once, outside the timed loop
    y_stacked = np.repeat(np.arange(K), N)
    state = {"resp": resp0}

    def make():
        if model == "bernoulli":
            return BernoulliNB(alpha=smoothing, force_alpha=True, binarize=None)
        return MultinomialNB(alpha=smoothing, force_alpha=True)

    def iteration():
        w = state["resp"].ravel(order="F")  # column-stacked: class 0's column, then class 1's, ...
        clf = make().fit(X_stacked, y_stacked, sample_weight=w)  # M-step
        state["resp"] = clf.predict_proba(X)  # E-step
        return clf

    med, times = timed(iteration, repeats, warmup)
    return med, times


# -- (b) pure Python, the notebook style -----------------------------------------
def _logsumexp(data):
    c = max(data)
    return c + math.log(sum(math.exp(x - c) for x in data))


class PyNB:
    """The notebook's dict-based Naive Bayes (Bernoulli as in the notebook; multinomial
    filled in the same style: a loop over labels and every vocabulary token)."""

    def __init__(self, labels, tokens, kind):
        self.labels, self.tokens, self.kind = labels, tokens, kind
        self.prior, self.likelihood = {}, {}

    def initialize(self):
        distribution = [random.uniform(0.01, 0.99) for _ in self.labels]
        denominator = sum(distribution)
        for label, probability in zip(self.labels, distribution):
            self.prior[label] = probability / denominator
        for label in self.labels:
            distribution = [random.uniform(0.01, 0.99) for _ in self.tokens]
            total = sum(distribution) if self.kind == "multinomial" else 1.0
            self.likelihood[label] = {t: p / total for t, p in zip(self.tokens, distribution)}

    def calculate_posterior(self, document):
        posterior = {}
        for label in self.labels:
            posterior[label] = math.log(self.prior[label])
            for token in self.tokens:
                if self.kind == "bernoulli":
                    if token in document:
                        posterior[label] += math.log(self.likelihood[label][token])
                    else:
                        posterior[label] += math.log(1 - self.likelihood[label][token])
                else:
                    posterior[label] += document.get(token, 0) * math.log(self.likelihood[label][token])
        return posterior


def py_em_iteration(model, data, smoothing):
    """One iteration of the notebook's ``expectation_maximization`` (without the print)."""
    posterior = {}
    for i, document in enumerate(data):
        posterior[i] = model.calculate_posterior(document)
    for i in range(len(data)):
        denominator = _logsumexp([posterior[i][label] for label in model.labels])
        for label in model.labels:
            posterior[i][label] = math.exp(posterior[i][label] - denominator)
    for label in model.labels:
        marginal = sum(posterior[i][label] for i in range(len(data)))
        model.prior[label] = marginal / len(data)
        if model.kind == "bernoulli":
            for token in model.tokens:
                probability = sum(posterior[i][label] * (token in document) for i, document in enumerate(data))
                model.likelihood[label][token] = (probability + smoothing) / (marginal + 2 * smoothing)
        else:
            counts = {}
            for token in model.tokens:
                counts[token] = sum(posterior[i][label] * document.get(token, 0) for i, document in enumerate(data))
            total = sum(counts.values())
            for token in model.tokens:
                model.likelihood[label][token] = (counts[token] + smoothing) / (total + smoothing * len(model.tokens))


def bench_python(model_name, X, K, smoothing, sub_docs, sub_vocab, repeats, warmup):
    sub = X[:sub_docs, :sub_vocab].tocsr()  # the first docs × the most frequent words
    if model_name == "bernoulli":
        sub = binarize(sub)
    data = []
    for i in range(sub.shape[0]):
        lo, hi = sub.indptr[i], sub.indptr[i + 1]
        data.append({f"w{j}": float(c) for j, c in zip(sub.indices[lo:hi], sub.data[lo:hi])})
    random.seed(0)
    nb = PyNB([f"c{k}" for k in range(K)], [f"w{j}" for j in range(sub.shape[1])], model_name)
    nb.initialize()
    med, times = timed(lambda: py_em_iteration(nb, data, smoothing), repeats, warmup)
    return med, times, sub.shape


# ---------------------------------------------------------------------------
def run_benchmark(args):
    cfg = dict(QUICK if args.quick else FULL)
    for key in ("n_docs", "n_vocab", "n_classes", "sub_docs", "sub_vocab"):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    N, V, K = cfg["n_docs"], cfg["n_vocab"], cfg["n_classes"]
    reps = args.repeats if args.repeats is not None else (3 if args.quick else 9)
    warm = args.warmup if args.warmup is not None else (1 if args.quick else 2)
    sk_reps = args.sklearn_repeats if args.sklearn_repeats is not None else (2 if args.quick else 3)
    py_reps = args.python_repeats if args.python_repeats is not None else (1 if args.quick else 2)

    t0 = time.perf_counter()
    counts, z = make_corpus(N, V, K, cfg["mean_len"], seed=args.seed)
    gen_s = time.perf_counter() - t0
    rng = np.random.default_rng(args.seed + 1)
    y = np.full(N, -1, dtype=np.int64)
    shown = rng.random(N) < args.labelled
    y[shown] = z[shown]

    out = {
        "config": {
            **cfg,
            "nnz": int(counts.nnz),
            "smoothing": args.smoothing,
            "labelled_fraction": args.labelled,
            "unlabeled_weight": args.unlabeled_weight,
            "repeats": reps,
            "warmup": warm,
            "sklearn_repeats": sk_reps,
            "python_repeats": py_reps,
            "seed": args.seed,
            "generate_seconds": gen_s,
        },
        "environment": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "nbcore": nbcore.__version__,
            "cpus": os.cpu_count(),
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
            "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE"),
        },
        "targets": TARGETS,
        "models": {},
    }
    try:
        import sklearn

        out["environment"]["sklearn"] = sklearn.__version__
    except ImportError:  # pragma: no cover
        out["environment"]["sklearn"] = None

    for name in MODELS:
        X = binarize(counts) if name == "bernoulli" else counts
        res = {}
        timings, run = bench_nbcore_and_floor(name, X, y, K, args.smoothing, args.unlabeled_weight, reps, warm)
        nb_s = timings["nbcore"][0]
        res["nbcore_s"], res["nbcore_times"] = nb_s, timings["nbcore"][1]
        floor_e, floor_m = timings["floor_e"][0], timings["floor_m"][0]
        res["floor_e_s"], res["floor_m_s"], res["floor_s"] = floor_e, floor_m, floor_e + floor_m
        res["floor_e_times"], res["floor_m_times"] = timings["floor_e"][1], timings["floor_m"][1]
        res["nbcore_over_floor_min"] = min(res["nbcore_times"]) / (min(res["floor_e_times"]) + min(res["floor_m_times"]))

        if args.skip_sklearn:
            res["sklearn_s"] = None
        else:
            resp0 = np.asarray(run.current.resp)  # a realistic responsibility matrix
            res["sklearn_s"], res["sklearn_times"] = bench_sklearn(
                name, X, K, args.smoothing, resp0, sk_reps, 1 if sk_reps > 1 else 0
            )

        if args.skip_python:
            res["python_s"] = None
        else:
            py_s, py_times, shape = bench_python(
                name, X, K, args.smoothing, cfg["sub_docs"], cfg["sub_vocab"], py_reps, 0
            )
            scale = (N * V * K) / (shape[0] * shape[1] * K)
            res["python_sub_s"], res["python_sub_times"] = py_s, py_times
            res["python_sub_shape"] = [int(shape[0]), int(shape[1]), K]
            res["python_scale"] = scale
            res["python_s"] = py_s * scale

        peak, params_bytes, resp_bytes = nbcore_memory(name, X, y, K, args.smoothing, args.unlabeled_weight)
        x_bytes = sparse_bytes(X)
        res["tracemalloc_peak_bytes"] = peak
        res["x_bytes"] = x_bytes
        res["params_bytes"] = params_bytes
        res["resp_bytes"] = resp_bytes
        res["peak_bytes"] = peak + x_bytes + params_bytes
        res["peak_over_data"] = res["peak_bytes"] / (x_bytes + params_bytes)

        res["sklearn_over_nbcore"] = res["sklearn_s"] / nb_s if res["sklearn_s"] else None
        res["python_over_nbcore"] = res["python_s"] / nb_s if res["python_s"] else None
        res["nbcore_over_floor"] = nb_s / res["floor_s"]
        res["meets"] = {
            "sklearn_over_nbcore": None if res["sklearn_over_nbcore"] is None
            else res["sklearn_over_nbcore"] >= TARGETS["sklearn_over_nbcore"],
            "python_over_nbcore": None if res["python_over_nbcore"] is None
            else res["python_over_nbcore"] >= TARGETS["python_over_nbcore"],
            "nbcore_over_floor": res["nbcore_over_floor"] <= TARGETS["nbcore_over_floor"],
            "peak_over_data": res["peak_over_data"] <= TARGETS["peak_over_data"],
        }
        out["models"][name] = res
        del run
    return out


def _fmt_s(x):
    if x is None:
        return "skipped"
    if x >= 100:
        return f"{x:,.0f} s"
    if x >= 1:
        return f"{x:.2f} s"
    return f"{x * 1e3:.1f} ms"


def _fmt_r(x, target, higher_is_better):
    if x is None:
        return "skipped"
    ok = x >= target if higher_is_better else x <= target
    sign = "≥" if higher_is_better else "≤"
    return f"{x:,.1f}×  (target {sign} {target:g}×: {'met' if ok else 'NOT met'})" if x >= 10 else \
        f"{x:.2f}×  (target {sign} {target:g}×: {'met' if ok else 'NOT met'})"


def report(out) -> str:
    c, e = out["config"], out["environment"]
    mb = 1024 * 1024
    lines = [
        f"EM iteration benchmark: N={c['n_docs']:,} docs, V={c['n_vocab']:,} words, K={c['n_classes']}, "
        f"nnz={c['nnz']:,}, λ={c['smoothing']:g}, labelled={c['labelled_fraction']:.0%}, "
        f"w={c['unlabeled_weight']:g}",
        f"  synthetic Zipf-like corpus, seed {c['seed']} (generated in {c['generate_seconds']:.2f} s); "
        f"median of {c['repeats']} interleaved repeats after {c['warmup']} warm-up (sklearn: {c['sklearn_repeats']}, "
        f"pure Python: {c['python_repeats']})",
        f"  python {e['python']}, numpy {e['numpy']}, scipy {e['scipy']}, sklearn {e['sklearn']}, "
        f"cpus {e['cpus']}, OPENBLAS_CORETYPE={e['OPENBLAS_CORETYPE']}, OPENBLAS_L2_SIZE={e['OPENBLAS_L2_SIZE']}",
    ]
    for name, r in out["models"].items():
        lines.append("")
        lines.append(f"[{name}]  seconds per EM iteration (E-step + M-step)")
        lines.append(f"  nbcore run.step()                  {_fmt_s(r['nbcore_s'])}")
        lines.append(f"  (a) sklearn refit on K-stacked X   {_fmt_s(r['sklearn_s'])}")
        if r.get("python_s") is not None:
            d, v, k = r["python_sub_shape"]
            lines.append(
                f"  (b) pure Python (the notebook style)   {_fmt_s(r['python_s'])}   "
                f"= {_fmt_s(r['python_sub_s'])} on {d}×{v}×K={k}, × {r['python_scale']:,.0f} "
                f"(docs×vocab×K ratio {c['n_docs']}·{c['n_vocab']}·{c['n_classes']} / {d}·{v}·{k})"
            )
        else:
            lines.append("  (b) pure Python (the notebook style)   skipped")
        lines.append(
            f"  floor X@W + Xᵀ@R                   {_fmt_s(r['floor_s'])}   "
            f"(X@W {_fmt_s(r['floor_e_s'])}, Xᵀ@R {_fmt_s(r['floor_m_s'])})"
        )
        lines.append(f"  (a)/nbcore      {_fmt_r(r['sklearn_over_nbcore'], TARGETS['sklearn_over_nbcore'], True)}")
        lines.append(f"  (b)/nbcore      {_fmt_r(r['python_over_nbcore'], TARGETS['python_over_nbcore'], True)}")
        lines.append(
            f"  nbcore/floor    {_fmt_r(r['nbcore_over_floor'], TARGETS['nbcore_over_floor'], False)}"
            f"   [best-of-repeats ratio {r['nbcore_over_floor_min']:.2f}×]"
        )
        lines.append(
            f"  memory: tracemalloc peak in step() {r['tracemalloc_peak_bytes'] / mb:.1f} MiB + X "
            f"{r['x_bytes'] / mb:.1f} MiB + params {r['params_bytes'] / mb:.1f} MiB = {r['peak_bytes'] / mb:.1f} MiB"
        )
        lines.append(f"  peak/(X+params) {_fmt_r(r['peak_over_data'], TARGETS['peak_over_data'], False)}")
    return "\n".join(lines)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small smoke run (seconds)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH ('-' = stdout, table to stderr)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--smoothing", type=float, default=1.0, help="λ (sklearn alpha)")
    p.add_argument("--labelled", type=float, default=0.1, help="fraction of rows with a visible label")
    p.add_argument("--unlabeled-weight", type=float, default=1.0)
    p.add_argument("--n-docs", type=int)
    p.add_argument("--n-vocab", type=int)
    p.add_argument("--n-classes", type=int)
    p.add_argument("--sub-docs", type=int, help="pure-Python subsample: documents")
    p.add_argument("--sub-vocab", type=int, help="pure-Python subsample: vocabulary")
    p.add_argument("--repeats", type=int)
    p.add_argument("--warmup", type=int)
    p.add_argument("--sklearn-repeats", type=int)
    p.add_argument("--python-repeats", type=int)
    p.add_argument("--skip-sklearn", action="store_true")
    p.add_argument("--skip-python", action="store_true")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    out = run_benchmark(args)
    text = report(out)
    if args.json == "-":
        print(text, file=sys.stderr)
        print(json.dumps(out, indent=2))
    else:
        print(text)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(out, fh, indent=2)
    return out


if __name__ == "__main__":
    main()
