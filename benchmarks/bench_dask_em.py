"""EM over Dask row chunks against in-memory EM: seconds per iteration and peak memory.

    python benchmarks/bench_dask_em.py                    # 1M × 50k, 50M non-zeros, K = 20, 100 .npz files
    python benchmarks/bench_dask_em.py --quick            # 20k × 5k, 1M non-zeros, 10 files (a smoke run)
    python benchmarks/bench_dask_em.py --iterations 3 --json out.json

1. Writes a synthetic corpus to disk **file by file** (never the whole matrix in
   one process): multinomial word counts, Zipf-like word frequencies with a
   per-class permutation for 30 % of the tokens, log-normal document lengths
   calibrated to the requested non-zeros; CSR float64 saved uncompressed with
   ``scipy.sparse.save_npz``; the true classes, 10 % of them visible, in ``y.npy``.
   Files are reused when the same corpus is already there.
2. Runs every configuration in a **fresh Python process** (so peaks do not mix):

   ``in-memory``  the baseline: the files stacked into one CSR matrix, ``EM.start`` +
                  ``step()`` (``keep_resp=0``: no responsibilities kept, like chunked runs).
                  Single-threaded, like the chunked tasks: scipy's CSR products and
                  numpy's element-wise work use one core (its CPU seconds ≈ its wall seconds).
   ``cluster``    ``dask.distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                  processes=True)``; one dask chunk = ``--files-per-chunk`` files;
                  persisted chunks or not; default partitions (one per worker)
   ``threads``    the default threaded scheduler in one process (optional)

   The in-memory process lives through the whole benchmark, and each configuration's
   iterations **alternate** with in-memory iterations (in-memory step, chunked step,
   in-memory step, ...): on a shared machine both sides of every ratio see the same
   load. For each: seconds for ``start`` (read + validate + persist + the pass at θ₀),
   the median wall seconds per ``step()``, the CPU seconds per step (client + every
   worker; in-memory: its process) and the peak memory: in-memory = the process
   high-water mark (``ru_maxrss``) and the sampled RSS peak during the iterations;
   cluster = each worker's ``ru_maxrss`` (its whole life: start-up, reading,
   persisting, iterating) and the client's.
3. Prints the ratios against the in-memory iterations paired with each configuration
   (target: per-worker peak ≤ 1/3 of in-memory, s/iteration ≤ in-memory) and the load
   average before/after each configuration. The final objective of every run is
   compared with the in-memory one at the same iteration.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FULL = dict(rows=1_000_000, vocab=50_000, nnz=50_000_000, classes=20, files=100)
QUICK = dict(rows=20_000, vocab=5_000, nnz=1_000_000, classes=20, files=10)


# ---------------------------------------------------------------------------
# The corpus, file by file
# ---------------------------------------------------------------------------
def _generator(vocab, classes, seed=0, zipf_s=1.0):
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(vocab) + 2.7) ** zipf_s
    cdf = np.cumsum(p / p.sum())
    perms = np.stack([rng.permutation(vocab) for _ in range(classes)])
    return cdf, perms


def _block(rows, vocab, classes, mean_len, cdf, perms, rng, topic_share=0.3):
    z = rng.integers(0, classes, rows)
    lengths = np.maximum(1, rng.lognormal(np.log(mean_len) - 0.5, 1.0, rows).astype(np.int64))
    doc = np.repeat(np.arange(rows), lengths)
    word = np.searchsorted(cdf, rng.random(doc.size), side="right").clip(max=vocab - 1)
    topical = rng.random(doc.size) < topic_share
    word[topical] = perms[z[doc[topical]], word[topical]]
    X = sp.csr_matrix((np.ones(doc.size), (doc, word)), shape=(rows, vocab))
    X.sum_duplicates()
    X.sort_indices()
    return X, z


def _calibrate(target_per_row, vocab, classes, cdf, perms):
    """Mean document length (tokens) that gives ``target_per_row`` distinct words per row."""
    rng = np.random.default_rng(12345)
    mean_len = float(target_per_row)
    for _ in range(6):
        X, _ = _block(4000, vocab, classes, mean_len, cdf, perms, rng)
        got = X.nnz / 4000
        mean_len *= target_per_row / got
    return mean_len


def write_corpus(directory: Path, rows, vocab, nnz, classes, files, labelled=0.1, seed=0) -> dict:
    directory.mkdir(parents=True, exist_ok=True)
    meta_path = directory / "corpus.json"
    wanted = dict(rows=rows, vocab=vocab, nnz=nnz, classes=classes, files=files, labelled=labelled, seed=seed)
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("wanted") == wanted and all((directory / f).exists() for f in meta["paths"]):
            return meta
    t0 = time.perf_counter()
    cdf, perms = _generator(vocab, classes, seed)
    mean_len = _calibrate(nnz / rows, vocab, classes, cdf, perms)
    per_file = np.full(files, rows // files)
    per_file[: rows % files] += 1
    paths, sizes, total, ys = [], [], 0, []
    for f, n in enumerate(per_file):
        rng = np.random.default_rng([seed, f + 1])
        X, z = _block(int(n), vocab, classes, mean_len, cdf, perms, rng)
        name = f"chunk-{f:04d}.npz"
        sp.save_npz(directory / name, X, compressed=False)
        y = np.where(rng.random(int(n)) < labelled, z, -1)
        ys.append(y)
        paths.append(name)
        sizes.append(int(n))
        total += X.nnz
        del X
    np.save(directory / "y.npy", np.concatenate(ys))
    meta = dict(wanted=wanted, paths=paths, sizes=sizes, nnz=int(total), mean_len=mean_len, seconds=time.perf_counter() - t0)
    meta_path.write_text(json.dumps(meta))
    return meta


def _load_files(paths):
    parts = [sp.load_npz(p) for p in paths]
    return parts[0] if len(parts) == 1 else sp.vstack(parts, format="csr")


# ---------------------------------------------------------------------------
# Measurements (each in its own process)
# ---------------------------------------------------------------------------
class _Sampler:
    """Peak RSS of this process, sampled every 5 ms while active."""

    def __init__(self):
        import psutil

        self._process = psutil.Process()
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._process.memory_info().rss)
            time.sleep(0.005)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _maxrss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def _settings(K, model):
    import nbcore

    # tol=None: every run does exactly the steps it is asked for (tol=0 could stop where the objective repeats)
    return nbcore.EM(model=model, n_classes=K, smoothing=1.0, init="labeled", max_iter=100_000, tol=None, keep_resp=0)


def _serve(step, finish):
    """Answer the parent: one ``step`` per line "step", then "finish" (one JSON line each)."""
    for line in sys.stdin:
        command = line.strip()
        if command == "step":
            print(json.dumps(step()), flush=True)
        elif command == "finish":
            print(json.dumps(finish()), flush=True)
            return


def child_in_memory(cfg):
    directory = Path(cfg["dir"])
    meta = json.loads((directory / "corpus.json").read_text())
    y = np.load(directory / "y.npy")
    t0 = time.perf_counter()
    X = _load_files([directory / p for p in meta["paths"]])
    load = time.perf_counter() - t0
    after_load = _maxrss_bytes()
    settings = _settings(cfg["classes"], cfg["model"])
    t0 = time.perf_counter()
    run = settings.start(X, y)
    start = time.perf_counter() - t0
    sampler = _Sampler().__enter__()
    print(json.dumps(dict(ready=True, load_s=load, start_s=start)), flush=True)

    def step():
        t0, c0 = time.perf_counter(), time.process_time()
        run.step()
        return dict(wall=time.perf_counter() - t0, cpu=time.process_time() - c0, iteration=run.iteration,
                    peak_bytes=_maxrss_bytes())  # grows by θ's size a step: the history keeps every θ

    def finish():
        sampler.__exit__()
        return dict(
            objectives=[s.objective for s in run.history],
            peak_bytes=_maxrss_bytes(),
            peak_after_load_bytes=after_load,
            peak_iterations_bytes=sampler.peak,
            x_bytes=int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes),
        )

    _serve(step, finish)


def _dask_array(directory, meta, files_per_chunk):
    import dask
    import dask.array as da

    paths, sizes = meta["paths"], meta["sizes"]
    blocks = []
    for i in range(0, len(paths), files_per_chunk):
        group = [str(directory / p) for p in paths[i:i + files_per_chunk]]
        rows = sum(sizes[i:i + files_per_chunk])
        blocks.append(
            da.from_delayed(
                dask.delayed(_load_files, pure=True)(group),
                shape=(rows, meta["wanted"]["vocab"]),
                dtype=np.float64,
                meta=sp.csr_matrix((0, 0)),
            )
        )
    return da.concatenate(blocks, axis=0)


def _worker_maxrss():
    import resource as r

    return r.getrusage(r.RUSAGE_SELF).ru_maxrss * 1024


def _worker_sampler_start(dask_worker):
    """In a worker (``client.run``): sample its RSS every 5 ms from now on (the peak during the iterations)."""
    worker = dask_worker
    sampler = _Sampler()
    sampler.__enter__()
    worker._nbcore_sampler = sampler
    return sampler._process.memory_info().rss


def _worker_sampler_stop(dask_worker):
    sampler = dask_worker._nbcore_sampler
    sampler.__exit__(None, None, None)
    return sampler.peak


def _cpu_seconds():
    return time.process_time()


def child_chunked(cfg):
    import dask

    from nbcore.dask_em import start as chunked_start

    directory = Path(cfg["dir"])
    meta = json.loads((directory / "corpus.json").read_text())
    y = np.load(directory / "y.npy")
    X = _dask_array(directory, meta, cfg["files_per_chunk"])
    settings = _settings(cfg["classes"], cfg["model"])
    out = dict(chunks=X.numblocks[0], chunk_rows=int(max(X.chunks[0])))
    client = cluster = None
    if cfg["scheduler"] == "cluster":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=cfg["workers"], threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        )
        client = Client(cluster)
        client.run(sys.path.insert, 0, str(ROOT))
        context = dask.config.set(scheduler=client)
    else:
        context = dask.config.set(scheduler="threads", num_workers=cfg["workers"])
    try:
        with context:
            t0 = time.perf_counter()
            run = chunked_start(settings, X, y, persist=cfg["persist"])
            out["start_s"] = time.perf_counter() - t0
            out["partitions"] = run.data.n_partitions
            if client is not None:
                out["worker_rss_before_iterations_bytes"] = sorted(client.run(_worker_sampler_start).values())
            sampler = _Sampler().__enter__()
            print(json.dumps(dict(out, ready=True)), flush=True)

            def step():
                workers0 = client.run(_cpu_seconds) if client is not None else {}
                t0, c0 = time.perf_counter(), time.process_time()
                run.step()
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                workers1 = client.run(_cpu_seconds) if client is not None else {}
                worker_cpu = [workers1[w] - workers0[w] for w in sorted(workers0)]
                return dict(wall=wall, cpu=cpu + sum(worker_cpu), client_cpu=cpu, worker_cpu=worker_cpu, iteration=run.iteration)

            def finish():
                sampler.__exit__()
                result = dict(objectives=[s.objective for s in run.history], client_peak_bytes=_maxrss_bytes(),
                              client_peak_iterations_bytes=sampler.peak)
                if client is not None:
                    result["worker_peak_iterations_bytes"] = sorted(client.run(_worker_sampler_stop).values())
                    result["worker_peak_bytes"] = sorted(client.run(_worker_maxrss).values())
                return result

            _serve(step, finish)
    finally:
        if client is not None:
            client.close()
            cluster.close()


# ---------------------------------------------------------------------------
# Orchestration and report
# ---------------------------------------------------------------------------
class _Child:
    """A configuration in its own process, stepped one iteration at a time by the parent."""

    def __init__(self, cfg, timeout):
        import tempfile

        self.timeout = timeout
        self.stderr = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--child", json.dumps(cfg)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True, bufsize=1,
        )
        self.ready = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait(timeout=self.timeout)
            self.stderr.seek(0)
            tail = self.stderr.read().strip().splitlines()[-1:] or [""]
            raise RuntimeError(f"child exited with {code}: {tail[0]}")
        return json.loads(line)

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._read()

    def finish(self):
        result = self.ask("finish")
        self.proc.stdin.close()
        self.proc.wait(timeout=self.timeout)
        return result


def _gb(x):
    return f"{x / 1e9:.2f} GB"


def _median(rows, key):
    return float(np.median([r[key] for r in rows]))


def report(out) -> str:
    base = out["in_memory"]
    lines = []
    c = out["corpus"]
    lines.append(
        f"corpus: {c['rows']:,} × {c['vocab']:,}, {c['nnz']:,} non-zeros, K = {c['classes']}, {c['files']} files "
        f"({out['model']}, λ = 1, init = labeled, 10 % labelled); {out['iterations']} iterations per configuration, "
        f"each paired with an in-memory iteration run just before it; {os.cpu_count()} CPUs; python {sys.version.split()[0]}"
    )
    if "error" in base:
        lines.append(f"in-memory run failed: {base['error']}")
        return "\n".join(lines)
    base_peak = base["peak_bytes"]
    lines.append("")
    lines.append(
        f"{'configuration':<44} {'start s':>7} {'s/iter':>7} {'mem s/iter':>10} {'× mem':>6} {'CPU s/it':>8} {'mem CPU':>7} "
        f"{'peak/worker':>11} {'÷ mem':>6} {'|Δobj|/|obj|':>12}  load 1-min"
    )
    lines.append(
        f"{'in-memory (baseline), all its iterations':<44} {base['load_s'] + base['start_s']:7.1f} {'':>7} "
        f"{_median(base['steps'], 'wall'):10.2f} {'':>6} {'':>8} {_median(base['steps'], 'cpu'):7.2f} {_gb(base_peak):>11} {1.0:6.2f}"
    )
    lines.append(
        f"{'':<44} (X = {_gb(base['x_bytes'])}; peak after loading {_gb(base['peak_after_load_bytes'])}, "
        f"sampled peak during the iterations {_gb(base['peak_iterations_bytes'])})"
    )
    short = base["steps"][out["iterations"] - 1]["peak_bytes"] if len(base["steps"]) >= out["iterations"] else base_peak
    lines.append(
        f"{'':<44} (its peak after {out['iterations']} iterations, the length of each chunked run: {_gb(short)}; "
        f"÷ mem is against the peak after all {len(base['steps'])}, ÷ short against this one)"
    )
    for row in out["chunked"]:
        cfg = row["config"]
        name = (f"{cfg['scheduler']} ×{cfg['workers']} {'persist' if cfg['persist'] else 'no persist'}, "
                f"{row.get('chunks', '?')} × {row.get('chunk_rows', 0) // 1000}k rows ({row.get('partitions', '?')} part.)")
        if "error" in row:
            lines.append(f"{name:<44} failed: {row['error']}")
            continue
        step, paired = _median(row["steps"], "wall"), _median(row["paired"], "wall")
        workers = row.get("worker_peak_bytes")
        peak = max(workers) if workers else row["client_peak_bytes"]
        t = len(row["objectives"]) - 1
        rel = abs(row["objectives"][-1] - base["objectives"][t]) / abs(base["objectives"][t])
        lines.append(
            f"{name:<44} {row['start_s']:7.1f} {step:7.2f} {paired:10.2f} {step / paired:6.2f} {_median(row['steps'], 'cpu'):8.2f} "
            f"{_median(row['paired'], 'cpu'):7.2f} {_gb(peak):>11} {peak / base_peak:6.2f} {rel:12.1e}  "
            f"{row['load'][0][0]:.1f}→{row['load'][1][0]:.1f}"
        )
        if row.get("worker_peak_iterations_bytes"):
            lines.append(
                f"{'':<44} (workers: RSS before the iterations {', '.join(_gb(b) for b in row['worker_rss_before_iterations_bytes'])}; "
                f"sampled peak during them {', '.join(_gb(b) for b in row['worker_peak_iterations_bytes'])}; "
                f"client {_gb(row['client_peak_bytes'])}; ÷ short {peak / short:.2f})"
            )
    lines.append("")
    lines.append(
        "s/iter: median wall seconds per step(); mem s/iter: median of the in-memory steps paired with this "
        "configuration's (run alternately, so both see the same machine load); × mem = s/iter ÷ mem s/iter "
        "(target ≤ 1). CPU s/it: CPU seconds per step summed over the client and every worker (in-memory: its "
        "process). ÷ mem: the largest worker's peak RSS (threads: the process's) ÷ the in-memory process's "
        "peak RSS (target ≤ 0.33). |Δobj|/|obj|: final objective against the in-memory one at the same iteration."
    )
    return "\n".join(lines)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small corpus (20k × 5k, 1M non-zeros, 10 files)")
    p.add_argument("--dir", default=None, help="where the corpus files go (default: a folder in the temp dir)")
    p.add_argument("--model", default="multinomial", choices=["multinomial", "bernoulli"])
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--files-per-chunk", default="1,4,10", help="chunk sizes, in files per dask chunk")
    p.add_argument("--no-persist-files-per-chunk", default="1,10", help="chunk sizes also run without persist ('' = none)")
    p.add_argument("--threads", action="store_true", help="also run the threaded scheduler (no persist, largest chunks)")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds per configuration")
    p.add_argument("--json", default=None, help="also write every number as JSON to this file")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        cfg = json.loads(args.child)
        child_in_memory(cfg) if cfg["kind"] == "in_memory" else child_chunked(cfg)
        return 0
    size = QUICK if args.quick else FULL
    import tempfile

    directory = Path(args.dir or Path(tempfile.gettempdir()) / f"nbcore-bench-dask-{size['rows']}x{size['vocab']}")
    meta = write_corpus(directory, **size)
    print(f"corpus in {directory}: {meta['nnz']:,} non-zeros ({meta.get('seconds', 0):.0f} s to write)", file=sys.stderr)
    common = dict(dir=str(directory), classes=size["classes"], model=args.model, workers=args.workers)
    out = dict(corpus=dict(size, nnz=meta["nnz"]), model=args.model, iterations=args.iterations, chunked=[])
    print(f"in-memory ... (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
    baseline = _Child(dict(common, kind="in_memory"), args.timeout)
    out["in_memory"] = dict(baseline.ready, steps=[])
    configs = [dict(common, kind="chunked", scheduler="cluster", persist=True, files_per_chunk=int(f)) for f in args.files_per_chunk.split(",") if f]
    configs += [dict(common, kind="chunked", scheduler="cluster", persist=False, files_per_chunk=int(f)) for f in args.no_persist_files_per_chunk.split(",") if f]
    if args.threads:
        largest = max(int(f) for f in f"{args.files_per_chunk},{args.no_persist_files_per_chunk}".split(",") if f)
        configs.append(dict(common, kind="chunked", scheduler="threads", persist=False, files_per_chunk=largest))
    for cfg in configs:
        print(f"{cfg['scheduler']} persist={cfg['persist']} files/chunk={cfg['files_per_chunk']} ... (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
        row = dict(config={k: cfg[k] for k in ("scheduler", "workers", "persist", "files_per_chunk")}, steps=[], paired=[])
        load_before = os.getloadavg()
        try:
            child = _Child(cfg, args.timeout)
            row.update(child.ready)
            for i in range(args.iterations):  # alternate: in-memory, chunked, in-memory, chunked, ...
                paired = baseline.ask("step")
                row["paired"].append(paired)
                out["in_memory"]["steps"].append(paired)
                row["steps"].append(child.ask("step"))
            row.update(child.finish())
        except Exception as error:  # noqa: BLE001 - report and go on with the next configuration
            row["error"] = f"{type(error).__name__}: {error}"
        row["load"] = [load_before, os.getloadavg()]
        out["chunked"].append(row)
        print(f"  -> {json.dumps({k: row.get(k) for k in ('start_s', 'partitions', 'worker_peak_bytes', 'error')})} "
              f"s/iter {[round(r['wall'], 2) for r in row['steps']]} vs in-memory {[round(r['wall'], 2) for r in row['paired']]}",
              file=sys.stderr)
    out["in_memory"].update(baseline.finish())
    text = report(out)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
