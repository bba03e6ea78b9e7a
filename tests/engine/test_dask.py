"""nbcore.dask_em: EM over dask row chunks equals in-memory EM.

The oracle is the in-memory :class:`nbcore.EMRun` on the same rows (itself
checked against hand calculations and scikit-learn in test_em.py); the chunked
run must match it to 1e-10 after 10 iterations, stop at the same iteration,
and give bitwise identical results on every scheduler and every repetition.
"""
from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

da = pytest.importorskip("dask.array", reason="the optional extra nbcore[dask] is not installed")
import dask  # noqa: E402

from nbcore import EM, ImpossibleDocumentWarning  # noqa: E402
from nbcore.dask_em import ChunkedData, ChunkedEMRun, count_categories, merge_tree, prepare, start  # noqa: E402
from nbcore.models import get_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
K = 3
SIZES = (37, 100, 13, 1, 149)  # uneven row chunks, one of a single row
N = sum(SIZES)
N_CATEGORIES = [3, 4, 2, 5, 3, 2]


def _data(model, seed=0):
    rng = np.random.default_rng(seed)
    if model == "categorical":
        X = np.stack([rng.integers(0, d, N) for d in N_CATEGORIES], axis=1).astype(np.float64)
        X[:, 3] = np.minimum(X[:, 3], 3)  # value 4 of feature 3 never occurs: a category unseen in the data
        return X
    X = sp.random(N, 40, density=0.15, format="csr", random_state=seed)
    X.data[:] = 1.0 if model == "bernoulli" else rng.integers(1, 6, X.nnz)
    return X


def _labels(seed=0, hidden=0.7):
    rng = np.random.default_rng(seed + 1)
    y = rng.integers(0, K, N)
    y[rng.random(N) < hidden] = -1
    y[:K] = np.arange(K)  # every class has a label (init='labeled')
    return y


def _chunked(X, sizes=SIZES):
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    blocks = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        part = X[a:b]
        meta = sp.csr_matrix((0, 0)) if sp.issparse(X) else np.empty((0, 0))
        blocks.append(da.from_delayed(dask.delayed(part), shape=part.shape, dtype=np.float64, meta=meta))
    return da.concatenate(blocks, axis=0)


def _settings(model, **kw):
    base = dict(model=model, n_classes=K, random_state=7, max_iter=10, tol=0.0)
    if model == "categorical":
        base["model_options"] = {"n_categories": N_CATEGORIES}
    base.update(kw)
    return EM(**base)


def _params(snap):
    out = [snap.alpha]
    for value in snap.params.values():
        out.extend(value if isinstance(value, tuple) else [value])
    return out


def assert_same_run(memory, chunked, rtol=1e-10):
    """Every snapshot equal to 1e-10: α, θ, log-likelihood, objective, Δθ; same stop."""
    assert len(memory.history) == len(chunked.history)
    assert memory.stop_reason == chunked.stop_reason
    for a, b in zip(memory.history, chunked.history):
        assert a.iteration == b.iteration
        for u, v in zip(_params(a), _params(b)):
            np.testing.assert_allclose(v, u, rtol=rtol, atol=1e-12)
        for name in ("log_likelihood", "objective"):
            x, z = getattr(a, name), getattr(b, name)
            if np.isfinite(x):
                assert abs(x - z) <= rtol * abs(x), (name, a.iteration, x, z)
            else:
                assert x == z
        if a.delta is not None:
            assert abs(a.delta - b.delta) <= rtol * max(abs(a.delta), 1e-300) + 1e-18
        assert b.resp is None


def assert_bitwise(run1, run2):
    assert len(run1.history) == len(run2.history)
    for a, b in zip(run1.history, run2.history):
        for u, v in zip(_params(a), _params(b)):
            assert np.array_equal(u, v)
        assert (a.log_likelihood, a.objective, a.delta) == (b.log_likelihood, b.objective, b.delta)


# ---------------------------------------------------------------------------
# Equal to in-memory EM
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("init", ["uniform", "random", "labeled"])
@pytest.mark.parametrize("model", ["bernoulli", "multinomial", "categorical"])
def test_chunked_equals_in_memory_after_10_iterations(model, init):
    X, y = _data(model), _labels()
    settings = _settings(model, init=init, unlabeled_weight=0.4, smoothing=0.5)
    memory = settings.start(X, y)
    memory.run_to_convergence()
    with dask.config.set(scheduler="threads"):
        run = settings.start(_chunked(X), y)
        assert isinstance(run, ChunkedEMRun)
        run.run_to_convergence()
        assert run.iteration == 10
        assert_same_run(memory, run)
        # lazy outputs: posteriors of the training rows and the responsibilities behind θ_t
        proba = run.predict_proba()
        assert isinstance(proba, da.Array) and proba.shape == (N, K)
        np.testing.assert_allclose(proba.compute(), memory.predict_proba(), rtol=1e-9, atol=1e-12)
        resp = run.responsibilities(5)
        assert isinstance(resp, da.Array)
        np.testing.assert_allclose(resp.compute(), memory.responsibilities(5), rtol=1e-9, atol=1e-12)
        assert run.responsibilities(0) is None
        np.testing.assert_array_equal(run.predict().compute(), memory.predict())


@pytest.mark.parametrize("model", ["bernoulli", "multinomial"])
def test_same_stopping_iteration_with_tol(model):
    X, y = _data(model, seed=3), _labels(seed=3)
    settings = _settings(model, init="random", max_iter=200, tol=1e-7)
    memory = settings.start(X, y)
    memory.run_to_convergence()
    run = settings.start(_chunked(X), y)
    run.run_to_convergence()
    assert memory.stop_reason == "tol" and memory.iteration < 200  # the test means something
    assert (run.iteration, run.stop_reason) == (memory.iteration, memory.stop_reason)
    assert_same_run(memory, run)
    # theta_tol as well
    settings = _settings(model, init="random", max_iter=200, tol=None, theta_tol=1e-8)
    memory = settings.start(X, y)
    memory.run_to_convergence()
    run = settings.start(_chunked(X), y)
    run.run_to_convergence()
    assert memory.stop_reason == "theta"
    assert (run.iteration, run.stop_reason) == (memory.iteration, memory.stop_reason)


@pytest.mark.parametrize("model", ["bernoulli", "multinomial", "categorical"])
def test_lambda_zero_with_impossible_rows(model):
    """λ = 0: β has zeros (and ones), some rows are impossible under every class."""
    X, y = _data(model, seed=5), _labels(seed=5, hidden=0.5)
    if model == "categorical":
        # row 150 takes value 4 of feature 3, never seen in a labelled row
        X[150, 3] = 4
        y[150] = -1
        init = "labeled"
    else:
        X = X.tolil()
        X[150, 39] = 1.0  # word 39 appears in one hidden row only
        X[:, 39] = 0.0
        X[150, 39] = 1.0
        X = X.tocsr()
        y[150] = -1
        init = "labeled"
    settings = _settings(model, init=init, smoothing=0.0, unlabeled_weight=0.0)
    with warnings.catch_warnings(record=True) as seen_memory:
        warnings.simplefilter("always")
        memory = settings.start(X, y)
        memory.run_to_convergence()
    with warnings.catch_warnings(record=True) as seen_chunked:
        warnings.simplefilter("always")
        run = settings.start(_chunked(X), y)
        run.run_to_convergence()
    impossible_memory = [str(w.message) for w in seen_memory if issubclass(w.category, ImpossibleDocumentWarning)]
    impossible_chunked = [str(w.message) for w in seen_chunked if issubclass(w.category, ImpossibleDocumentWarning)]
    assert impossible_memory, "the data must contain an impossible row for this test to mean something"
    assert "first: row 150" in impossible_memory[0]
    assert impossible_chunked == impossible_memory  # same count, same first row, every iteration
    if model != "categorical":
        assert (memory.current.beta == 0).any()
    assert_same_run(memory, run)


def test_persist_false_and_split_every_give_the_same_numbers():
    X, y = _data("multinomial"), _labels()
    settings = _settings("multinomial", init="random")
    persisted = settings.start(_chunked(X), y)
    persisted.run_to_convergence()
    lazy = start(settings, _chunked(X), y, persist=False, split_every=2)
    assert not lazy.data.persisted and persisted.data.persisted
    lazy.run_to_convergence()
    memory = settings.start(X, y)
    memory.run_to_convergence()
    assert_same_run(memory, lazy)
    assert_same_run(persisted, lazy, rtol=1e-13)


def test_column_chunks_and_dense_chunks_are_accepted():
    X, y = _data("bernoulli"), _labels()
    settings = _settings("bernoulli", init="labeled")
    memory = settings.start(X, y)
    memory.run_to_convergence()
    by_columns = da.from_array(X, chunks=(60, 15), asarray=False)  # 3 column chunks: merged first
    run = settings.start(by_columns, y)
    run.run_to_convergence()
    assert_same_run(memory, run)
    dense = da.from_array(X.toarray(), chunks=(45, -1))
    run = settings.start(dense, da.from_array(y, chunks=50))  # labels as a dask array too
    run.run_to_convergence()
    assert_same_run(memory, run)


def test_fit_with_restarts_matches_in_memory_fit():
    X, y = _data("bernoulli", seed=2), _labels(seed=2)
    settings = _settings("bernoulli", init="random", n_init=3, max_iter=30, tol=1e-8, random_state=11)
    memory = settings.fit(X, y)
    calls = []
    run = settings.fit(_chunked(X), y, callback=lambda i, r: calls.append((i, type(r).__name__)))
    assert calls == [(0, "ChunkedEMRun"), (1, "ChunkedEMRun"), (2, "ChunkedEMRun")]
    assert [r[0] for r in run.restarts] == [r[0] for r in memory.restarts]
    np.testing.assert_allclose([r[1] for r in run.restarts], [r[1] for r in memory.restarts], rtol=1e-10)
    assert [r[2] for r in run.restarts] == [r[2] for r in memory.restarts]
    assert_same_run(memory, run)


def test_with_settings_continues_like_in_memory():
    X, y = _data("multinomial"), _labels()
    settings = _settings("multinomial", init="labeled", max_iter=20)
    memory = settings.start(X, y)
    run = settings.start(_chunked(X), y)
    for r in (memory, run):
        r.run_to_convergence(max_steps=4)
    memory2, run2 = memory.with_settings(smoothing=0.1), run.with_settings(smoothing=0.1)
    assert isinstance(run2, ChunkedEMRun) and run.iteration == 4
    for r in (memory2, run2):
        r.run_to_convergence(max_steps=5)
    assert_same_run(memory2, run2)


def test_predict_proba_on_new_data():
    X, y = _data("bernoulli"), _labels()
    settings = _settings("bernoulli", init="labeled")
    memory = settings.start(X, y)
    memory.run_to_convergence()
    run = settings.start(_chunked(X), y)
    run.run_to_convergence()
    new = _data("bernoulli", seed=9)[:50]
    lazy = run.predict_proba(_chunked(new, sizes=(20, 30)))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), memory.predict_proba(new), rtol=1e-9)
    eager = run.predict_proba(new, t=3)
    assert isinstance(eager, np.ndarray)
    np.testing.assert_allclose(eager, memory.predict_proba(new, t=3), rtol=1e-9)


# ---------------------------------------------------------------------------
# Reproducible on every scheduler
# ---------------------------------------------------------------------------
def _ten_iterations(model, init="random"):
    X, y = _data(model), _labels()
    settings = _settings(model, init=init, unlabeled_weight=0.7)
    run = settings.start(_chunked(X), y)
    run.run_to_convergence()
    memory = settings.start(X, y)
    memory.run_to_convergence()
    return memory, run


@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_two_runs_bitwise_equal_and_equal_to_memory(scheduler):
    with dask.config.set(scheduler=scheduler):
        for model in ("bernoulli", "multinomial", "categorical"):
            memory, first = _ten_iterations(model)
            _, second = _ten_iterations(model)
            assert_same_run(memory, first)
            assert_bitwise(first, second)


def test_synchronous_and_threads_give_bitwise_the_same_run():
    with dask.config.set(scheduler="synchronous"):
        _, sync = _ten_iterations("multinomial", init="labeled")
    with dask.config.set(scheduler="threads", num_workers=2):
        _, threads = _ten_iterations("multinomial", init="labeled")
    assert_bitwise(sync, threads)


@pytest.fixture(scope="module")
def cluster_client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    ) as cluster, distributed.Client(cluster, set_as_default=False) as client:
        client.run(sys.path.insert, 0, str(ROOT))  # workers import this checkout's nbcore
        yield client


def test_local_cluster_two_processes(cluster_client):
    with dask.config.set(scheduler="synchronous"):
        _, reference = _ten_iterations("bernoulli", init="uniform")
    with cluster_client.as_current(), dask.config.set(scheduler=cluster_client):
        for model in ("bernoulli", "multinomial", "categorical"):
            init = {"bernoulli": "uniform", "multinomial": "random", "categorical": "labeled"}[model]
            memory, run = _ten_iterations(model, init)
            assert_same_run(memory, run)
        _, again = _ten_iterations("bernoulli", init="uniform")
        assert_bitwise(reference, again)  # same bits on 2 worker processes as on one thread
        # by default one partition per worker: 2 tasks per pass instead of 5, same bits
        assert again.data.n_partitions == 2 and reference.data.n_partitions == len(SIZES)
        X, y = _data("bernoulli"), _labels()
        settings = _settings("bernoulli", init="uniform", unlabeled_weight=0.7)
        lazy = start(settings, _chunked(X), y, persist=False)  # each partition task reads its own chunks
        assert lazy.data.n_partitions == 2 and not lazy.data.persisted
        lazy.run_to_convergence()
        assert_bitwise(reference, lazy)
        proba = run.predict_proba()
        np.testing.assert_allclose(proba.compute(), memory.predict_proba(), rtol=1e-9, atol=1e-12)
    # both workers did chunk work
    assert len(cluster_client.scheduler_info()["workers"]) == 2


def _leaves(node):
    first, end, children = node
    return [first] if not children else [c for child in children for c in _leaves(child)]


@pytest.mark.parametrize("n_chunks", [1, 2, 5, 10, 37])
@pytest.mark.parametrize("split_every", [2, 3, 8])
def test_merge_tree_is_fixed_and_balanced(n_chunks, split_every):
    """Every chunk once, left to right; each node splits its run into min(k, size) near-equal runs."""
    tree = merge_tree(n_chunks, split_every)
    assert _leaves(tree) == list(range(n_chunks))
    assert merge_tree(n_chunks, split_every) == tree  # a function of the chunk count only

    def check(node):
        first, end, children = node
        if end - first == 1:
            assert children == ()
            return
        assert len(children) == min(split_every, end - first)
        assert children[0][0] == first and children[-1][1] == end
        assert all(a[1] == b[0] for a, b in zip(children, children[1:]))
        lengths = [c[1] - c[0] for c in children]
        assert max(lengths) - min(lengths) <= 1
        for child in children:
            check(child)

    check(tree)
    if n_chunks == 10 and split_every == 2:  # by hand: 10 → 5 + 5 → (2 + 3) + (2 + 3)
        assert [c[:2] for c in tree[2]] == [(0, 5), (5, 10)]
        assert [c[:2] for c in tree[2][0][2]] == [(0, 2), (2, 5)]


@pytest.mark.parametrize("persist", [True, False])
def test_partitions_change_the_tasks_not_the_numbers(persist):
    """Any grouping of chunks into tasks adds the same numbers in the same order: same bits."""
    X, y = _data("multinomial"), _labels()
    settings = _settings("multinomial", init="labeled", unlabeled_weight=0.4)
    with dask.config.set(scheduler="threads", num_workers=3):
        reference = start(settings, _chunked(X), y, persist=persist)
        reference.run_to_convergence()
        # no distributed client: one per chunk when persisted, else one per thread (streaming)
        assert reference.data.n_partitions == (len(SIZES) if persist else 3)
        for n_parts in (1, 2, 3, 4):
            run = start(settings, _chunked(X), y, persist=persist, partitions=n_parts)
            assert run.data.n_partitions == n_parts
            run.run_to_convergence()
            assert_bitwise(reference, run)
            np.testing.assert_array_equal(run.predict_proba().compute(), reference.predict_proba().compute())
    # rows per partition about equal: SIZES = 37, 100, 13, 1, 149 (300 rows) → 150 + 150 by hand
    assert prepare(settings, _chunked(X), y, partitions=2).partitions == [(0, 3), (3, 5)]
    assert prepare(settings, _chunked(X), y, partitions=9).partitions == [(c, c + 1) for c in range(5)]


def test_partition_bounds_by_hand():
    from nbcore.dask_chunks import _partition_bounds

    # rows 10, 10, 10, 70: the middle rows are 5, 15, 25, 65; halves of 100 rows cut at 50
    assert _partition_bounds([10, 10, 10, 70], 2) == [(0, 3), (3, 4)]
    assert _partition_bounds([10, 10, 10, 70], 4) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert _partition_bounds([10, 10, 10, 70], 9) == [(0, 1), (1, 2), (2, 3), (3, 4)]  # at most one per chunk
    assert _partition_bounds([5], 3) == [(0, 1)]
    # unknown chunk sizes (NaN): equal numbers of chunks, every partition non-empty
    assert _partition_bounds([np.nan] * 5, 2) == [(0, 2), (2, 5)]
    assert _partition_bounds([np.nan] * 6, 3) == [(0, 2), (2, 4), (4, 6)]


def test_partition_reads_inline_only_when_its_graph_is_small_and_unshared():
    """A partition task runs X's graph for its chunks itself, unless that work is shared (or big)."""
    import nbcore.dask_chunks as dask_chunks

    X, y = _data("bernoulli"), _labels()
    settings = _settings("bernoulli", init="labeled")
    separate = _chunked(X)  # one independent task per chunk: read inside the partition task
    blocks = list(separate.to_delayed().ravel())
    readers = dask_chunks._readers(blocks, [(0, 2), (2, 5)], get_model("bernoulli"))
    assert [len(r) for r in readers] == [2, 3]
    assert [Xp.shape for Xp in readers[1]] == [(13, 40), (1, 40), (149, 40)]  # chunks 2, 3, 4, read one at a time
    shared = da.from_delayed(dask.delayed(X), shape=X.shape, dtype=np.float64, meta=sp.csr_matrix((0, 0))).rechunk(
        (SIZES, (40,))
    )  # every chunk is a slice of one task: running it per partition would repeat it
    assert dask_chunks._readers(list(shared.to_delayed().ravel()), [(0, 2), (2, 5)], get_model("bernoulli")) is None
    with dask.config.set(scheduler="threads"):
        reference = start(settings, separate, y)
        reference.run_to_convergence()
        for data in (shared, separate):
            run = start(settings, data, y, persist=False, partitions=2)
            run.run_to_convergence()
            assert_bitwise(reference, run)
        original = dask_chunks._INLINE_GRAPH_BYTES
        dask_chunks._INLINE_GRAPH_BYTES = 0  # too big to carry: the chunks stay separate tasks
        try:
            assert dask_chunks._readers(blocks, [(0, 2), (2, 5)], get_model("bernoulli")) is None
            run = start(settings, separate, y, partitions=2)
            run.run_to_convergence()
            assert_bitwise(reference, run)
        finally:
            dask_chunks._INLINE_GRAPH_BYTES = original


def test_theta_is_one_key_of_each_iteration_graph():
    """θ enters each pass as a single key that every chunk task refers to."""
    X, y = sp.random(N, 2000, density=0.01, format="csr", random_state=0), _labels()
    X.data[:] = 1.0  # V = 2000: θ is 48 kB, far bigger than any task
    run = _settings("bernoulli").start(_chunked(X), y)
    captured = {}
    import nbcore.dask_em as dask_em

    original = dask_em.dask.compute

    def spy(*args, **kwargs):
        captured["graph"] = dict(args[0].__dask_graph__())
        return original(*args, **kwargs)

    dask_em.dask.compute = spy
    try:
        run.step()
    finally:
        dask_em.dask.compute = original
    graph = captured["graph"]
    theta_keys = [k for k in graph if str(k).startswith("nbcore-theta")]
    assert len(theta_keys) == 1
    data_keys = {c.key for c in run.data.parts} | {c.key for c in run.data.labels} | set(theta_keys)
    chunk_tasks = [k for k in graph if "e_and_statistics" in str(k)]
    assert len(chunk_tasks) == len(SIZES)  # without a distributed client: one task per chunk
    import pickle

    theta_bytes = len(pickle.dumps(graph[theta_keys[0]], protocol=5))
    assert theta_bytes > run.current.beta.nbytes  # the key holds log β − log(1 − β)
    for key in set(graph) - data_keys:  # no other task carries θ-sized data
        assert len(pickle.dumps(graph[key], protocol=5)) < theta_bytes / 4, key


# ---------------------------------------------------------------------------
# The protocol's combine
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("model", ["bernoulli", "multinomial", "categorical"])
def test_combine_of_chunk_statistics_equals_statistics_of_all_rows(model):
    m = get_model(model, **({"n_categories": N_CATEGORIES} if model == "categorical" else {}))
    X = _data(model)
    Xp = m.prepare(X)
    weights = np.random.default_rng(0).dirichlet(np.ones(K), size=N)
    whole = m.statistics(Xp, weights)
    offsets = np.concatenate([[0], np.cumsum(SIZES)])
    parts = [m.statistics(m.prepare(X[a:b]), weights[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]
    merged = m.combine(parts)
    assert set(merged) == set(whole)
    for key, value in whole.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_allclose(merged[key], value, rtol=1e-12)
        else:
            assert merged[key] == value


def test_combine_refuses_mismatched_layouts():
    m = get_model("categorical")
    a = m.statistics(m.prepare(np.array([[0.0], [1.0]])), np.ones((2, 2)) / 2)
    b = m.statistics(m.prepare(np.array([[2.0]])), np.ones((1, 2)) / 2)
    with pytest.raises(ValueError, match="different 'n_categories'"):
        m.combine([a, b])
    with pytest.raises(ValueError, match="at least one chunk"):
        m.combine([])


# ---------------------------------------------------------------------------
# Clear messages
# ---------------------------------------------------------------------------
def test_categorical_needs_n_categories_up_front():
    X = _data("categorical")
    with pytest.raises(ValueError, match="number of categories up front"):
        EM(model="categorical", n_classes=K).start(_chunked(X))
    assert count_categories(_chunked(X)) == [3, 4, 2, 4, 3, 2]


def test_bad_chunk_is_named():
    X = _data("bernoulli").tolil()
    X[140, 2] = 3.0  # rows 138..150 are chunk 2
    X = X.tocsr()
    with pytest.raises(ValueError, match=r"Row chunk 2: Bernoulli Naive Bayes needs binary data"):
        EM(model="bernoulli", n_classes=K).start(_chunked(X))
    with pytest.raises(ValueError, match=r"Row chunk 2: Bernoulli Naive Bayes needs binary data"):
        start(EM(model="bernoulli", n_classes=K), _chunked(X), persist=False, partitions=2)  # read inside the task


def test_label_errors_before_the_pass():
    X = _data("bernoulli")
    with pytest.raises(ValueError, match=f"X has {N} rows but y has 5 labels"):
        EM(n_classes=K).start(_chunked(X), np.zeros(5))
    with pytest.raises(ValueError, match="outside 0..2"):
        EM(n_classes=K).start(_chunked(X), np.full(N, 7))
    with pytest.raises(ValueError, match="every label is hidden"):
        EM(n_classes=K, init="labeled").start(_chunked(X))


def test_prepared_chunks_belong_to_their_settings():
    X, y = _data("bernoulli"), _labels()
    data = prepare(_settings("bernoulli"), _chunked(X), y)
    assert isinstance(data, ChunkedData) and data.shape == (N, 40) and list(data.sizes) == list(SIZES)
    run = _settings("bernoulli").start(data)  # EM.start accepts prepared chunks
    assert isinstance(run, ChunkedEMRun)
    with pytest.raises(ValueError, match="prepared for another model"):
        _settings("multinomial").start(data)


def test_bad_options():
    X = _chunked(_data("bernoulli"))
    with pytest.raises(ValueError, match="split_every must be a whole number ≥ 2"):
        start(EM(n_classes=K), X, split_every=1)
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match=r"partitions must be a whole number ≥ 1 \(or None\)"):
            start(EM(n_classes=K), X, partitions=bad)
    with pytest.raises(ValueError, match="2-D dask array"):
        EM(n_classes=K).start(da.ones(5, chunks=2))


def test_import_nbcore_does_not_import_dask():
    code = (
        "import sys, numpy as np, nbcore; "
        "nbcore.EM(n_classes=2).start(np.eye(4)).step(); "
        "assert not any(m == 'dask' or m.startswith('dask.') for m in sys.modules), 'dask imported'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_half_steps_and_theta_norm_like_in_memory():
    X, y = _data("bernoulli"), _labels()
    settings = _settings("bernoulli", init="labeled", theta_norm="both_values")
    memory, run = settings.start(X, y), settings.start(_chunked(X), y)
    for _ in range(3):
        e_memory, e_chunked = memory.e_step(), run.e_step()
        assert run.e_step() is e_chunked and run.pending is e_chunked
        assert isinstance(e_chunked.resp, da.Array)
        np.testing.assert_allclose(e_chunked.resp.compute(), e_memory.resp, rtol=1e-9, atol=1e-12)
        assert e_chunked.objective == pytest.approx(e_memory.objective, rel=1e-12)
        memory.m_step(), run.m_step()
        assert run.pending is None
    memory.run_to_convergence(), run.run_to_convergence()
    assert_same_run(memory, run)


def test_components_per_class_is_refused_clearly():
    with pytest.raises(ValueError, match="components_per_class = 1 only"):
        EM(n_classes=K, components_per_class=2).start(_chunked(_data("bernoulli")))


def test_gaussian_combine_is_the_parallel_mean_variance_merge():
    """Chan et al.'s merge of chunk moments equals the moments of all rows (and so θ)."""
    rng = np.random.default_rng(4)
    X = rng.normal(5.0, 3.0, size=(N, 4)) + 1e4  # a large offset: naive Σx² − n μ² would cancel
    weights = rng.dirichlet(np.ones(K), size=N)
    weights[:, 2] = 0.0  # a class with no weight at all
    m = get_model("gaussian")
    whole = m.statistics(X, weights)
    offsets = np.concatenate([[0], np.cumsum(SIZES)])
    merged = m.combine([m.statistics(X[a:b], weights[a:b]) for a, b in zip(offsets[:-1], offsets[1:])])
    for key in ("class_weight", "mean", "m2", "feature_mean", "feature_m2"):
        np.testing.assert_allclose(merged[key], whole[key], rtol=1e-10, atol=1e-12)
    # by hand for one class and feature: the weighted sum of squared deviations of all rows
    w = weights[:, 0]
    mu = (w * X[:, 1]).sum() / w.sum()
    assert merged["m2"][1, 0] == pytest.approx((w * (X[:, 1] - mu) ** 2).sum(), rel=1e-9)
    for u, v in zip(m.params_from(merged).values(), m.params_from(whole).values()):
        np.testing.assert_allclose(u, v, rtol=1e-10)


def test_gaussian_chunked_with_labeled_init_equals_in_memory():
    rng = np.random.default_rng(8)
    y = _labels(seed=8)
    centres = rng.normal(0, 3, size=(K, 5))
    X = centres[np.where(y >= 0, y, rng.integers(0, K, N))] + rng.normal(size=(N, 5))
    # tol=None: 10 iterations each (tol=0 would stop where the objective repeats to the last bit,
    # which depends on the order of the sums over rows, not on the mathematics)
    settings = EM(model="gaussian", n_classes=K, init="labeled", max_iter=10, tol=None, unlabeled_weight=0.6)
    memory = settings.start(X, y)
    memory.run_to_convergence()
    run = settings.start(da.from_array(X, chunks=(70, 5)), y)
    run.run_to_convergence()
    assert_same_run(memory, run, rtol=1e-9)
    with pytest.raises(ValueError, match="supports init='labeled' only"):
        EM(model="gaussian", n_classes=K).start(da.from_array(X, chunks=(70, 5)), y)
