"""nbcore's EMRun.step() on the lab's default run, for comparison with bench_lab_engine.mjs.

    python3 benchmarks/bench_lab_engine.py [dataset] [model] [iterations]

The run is the lesson's: λ = 1, 90 % of the labels hidden (seed 0), EM from the labelled rows,
the model's suggested options; ms per step is the median of 5 rounds of `iterations` steps (wall clock
and CPU time). numpy may use 2 BLAS threads: OPENBLAS_NUM_THREADS=1 compares one core with one core.
"""
import sys
import time

import nbcore

name = sys.argv[1] if len(sys.argv) > 1 else "sms_spam"
ds = nbcore.load_dataset(name)
model = sys.argv[2] if len(sys.argv) > 2 else ds.models[0]
iters = int(sys.argv[3]) if len(sys.argv) > 3 else 200
X = ds.for_model(model)
y_obs, _ = nbcore.hide_labels(ds.y, 0.9, random_state=0)
em = nbcore.EM(model=model, n_classes=ds.n_classes, smoothing=1.0, init="labeled", max_iter=iters + 20, tol=None,
               random_state=0, keep_resp=2, model_options=nbcore.get_model(model).suggested_options(X))
rounds, cpu = [], []
for _ in range(5):
    run = em.start(X, y_obs)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(iters):
        run.step()
    rounds.append((time.perf_counter() - t0) / iters * 1000)
    cpu.append((time.process_time() - c0) / iters * 1000)
rounds.sort()
cpu.sort()
print(f"{name} {model}: nbcore ms/step {rounds[2]:.3f} (median of 5 rounds of {iters}; min {rounds[0]:.3f}); "
      f"CPU ms/step {cpu[2]:.3f} (min {cpu[0]:.3f})")
