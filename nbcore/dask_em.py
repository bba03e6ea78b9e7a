"""EM on row chunks with Dask: corpora that do not fit in one process, same numbers.

Needs the optional extra: ``pip install 'nbcore[dask]'``. ``import nbcore`` never
imports dask; :meth:`nbcore.EM.start` and :meth:`nbcore.EM.fit` come here when
``X`` is a ``dask.array`` (row chunks that are ``scipy.sparse`` CSR matrices or
ndarrays)::

    import dask.array as da, nbcore
    X = da.concatenate([...])                  # (N, V), one chunk = some rows
    run = nbcore.EM(model="multinomial", n_classes=20).start(X, y)
    run.run_to_convergence()                   # same history / stop rules
    run.predict_proba()                        # a lazy dask array (N, K)

Why it gives the in-memory numbers
----------------------------------
The E-step of NB-EM is row-wise and the M-step needs only sums over rows
(the notes, eq. 23-24), so one iteration is one map-reduce:

1. θ_t enters the graph as **one key**: the event model's ``log_params``
   (e.g. log β − log(1 − β), computed once on the client) with α_t. Tasks refer
   to that key; it is never copied into every task.
2. For **each chunk** the same functions as the in-memory
   :class:`~nbcore.EMRun` run: ``model.log_likelihood_from``, :func:`~nbcore.log_joint`,
   :func:`~nbcore.responsibilities`, :func:`~nbcore.observed_log_likelihood`,
   ``model.statistics``. Each row's log-likelihood is bitwise the in-memory one.
3. A **fixed tree** (:func:`merge_tree`: pairwise by default, ``split_every``
   children per node) merges the statistics with ``model.combine``. It depends on
   the number of chunks only, so two runs add the same numbers in the same order
   on any scheduler and are bitwise identical. Against the in-memory run only the
   order of the sums over rows differs (≈1e-15 relative).
4. Consecutive chunks form **partitions** (by default one per worker thread of a
   ``dask.distributed`` client; without one, one per chunk when persisted and one
   per thread when not): one task per partition runs
   step 2 on each of its chunks and the part of the tree inside it, so only about
   one V × K statistics array per partition leaves its worker. Persisted, a
   partition's chunks are one key (they live on one worker); without persist the
   task reads its own chunks (the part of X's graph that makes them runs inside
   it), so no chunk travels between workers either way. Partitions change the
   tasks, never the numbers.
5. The M-step (``model.params_from``) and the stop rules run on the client,
   in the code of :class:`~nbcore.EMRun`.

Chunks are validated once (``model.prepare`` on every chunk when the run starts;
an error names the chunk) and, with ``persist=True`` (the default), the
prepared chunks stay in memory (the threads' process or the dask.distributed
workers) across iterations. With ``persist=False`` each iteration reads the
chunks again from their source and re-runs ``model.prepare`` (for data larger
than the workers' memory).

Responsibilities are not kept on the snapshots (``resp`` is None);
:meth:`ChunkedEMRun.responsibilities` and :meth:`ChunkedEMRun.predict_proba`
return lazy dask arrays.

Whatever scheduler is active is used: threads by default, ``dask.config.set(
scheduler="synchronous")``, or a ``dask.distributed.Client``.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

try:
    import dask
    import dask.array as da
    from dask import delayed
except ImportError as error:  # pragma: no cover - exercised without dask only
    raise ImportError(
        "nbcore.dask_em needs Dask, an optional extra: pip install 'nbcore[dask]' "
        "(or pip install 'dask[array]' distributed)."
    ) from error

from ._validation import (
    check_labels,
    check_n_classes,
    check_random_state,
    check_run_settings,
    check_something_to_learn,
    warn_classes_without_labels,
    warn_impossible,
)
from .equations import (
    log_joint,
    normalize_log,
    observed_log_likelihood,
    one_hot_labels,
    responsibilities,
    squared_change,
)
from .run import EMRun, EStep, Snapshot
from .run import format_smoothing

if TYPE_CHECKING:
    from .em import EM
from .models import get_model

__all__ = ["ChunkedData", "ChunkedEMRun", "prepare", "start", "fit", "count_categories", "merge_tree"]


# ---------------------------------------------------------------------------
# Data: validated (and optionally persisted) row chunks
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ChunkedData:
    """Row chunks validated by an event model, ready for any number of EM runs.

    Consecutive chunks form **partitions**: one task per partition and
    iteration runs the E-step on each of its chunks and merges their statistics
    locally, so only one statistics array per partition travels. Persisted, a
    partition's chunks are one key (so they live on the same worker).

    Attributes
    ----------
    model : EventModel used to prepare the chunks
    parts : one per partition: a dask Delayed of the tuple of its prepared chunks, or
        (``persist=False``) a reader that makes and prepares them one at a time
        inside the task that uses them
    labels : list of dask Delayed, one per partition: the tuple of its chunks' label vectors
    partitions : list of (first chunk, end chunk) of each partition
    sizes : (C,) rows per chunk
    n_features : V
    y : (N,) int labels (−1 = hidden), read-only
    persisted : whether ``parts`` are held in memory
    settings_key : (model, model options, K) the chunks were prepared for
    """

    model: object
    parts: list
    labels: list
    partitions: list
    sizes: np.ndarray
    n_features: int
    y: np.ndarray
    persisted: bool
    settings_key: tuple
    n_categories: tuple | None = None

    @property
    def offsets(self) -> np.ndarray:
        """Index of the first row of each chunk, then N."""
        return np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)

    @property
    def shape(self):
        return (int(self.sizes.sum()), self.n_features)

    @property
    def n_chunks(self) -> int:
        return len(self.sizes)

    @property
    def n_partitions(self) -> int:
        return len(self.partitions)


class _Proxy:
    """What ``uniform_params``/``random_params`` look at: the shape (and categories)."""

    def __init__(self, shape, n_categories=None):
        self.shape = shape
        self.n_categories = n_categories


def _settings_key(settings: EM):
    model = settings.model
    name = model if isinstance(model, str) else (type(model).__module__, type(model).__qualname__)
    return (name, tuple(sorted((k, repr(v)) for k, v in dict(settings.model_options).items())), int(settings.n_classes))


def _make_model(settings: EM):
    model = get_model(settings.model, **dict(settings.model_options))
    model.check_chunkable(init=settings.init)
    return model


def count_categories(X) -> list:
    """D_j = 1 + the largest code of feature j over all rows of a dask array (one pass)."""
    return [int(d) for d in (X.max(axis=0) + 1).compute()]


def _prepare_part(model, first, *blocks):
    """``model.prepare`` on the consecutive chunks ``first, first + 1, …`` of one partition."""
    out = []
    for index, block in enumerate(blocks, start=first):
        try:
            out.append(model.prepare(block))
        except ValueError as error:
            raise ValueError(f"Row chunk {index}: {error}") from None
    return tuple(out)


class _ChunkReader:
    """A partition's chunks, each made (by its part of X's graph) and prepared when asked for.

    Passed to a task as one opaque argument: the task reads, prepares and uses
    one chunk at a time, on the worker that runs it, so chunks never travel and
    at most one of them is in memory per task.
    """

    __slots__ = ("graphs", "keys", "model", "first")

    def __init__(self, graphs: list, keys: list, model, first: int):
        self.graphs, self.keys, self.model, self.first = graphs, keys, model, first

    def __len__(self):
        return len(self.keys)

    def __getitem__(self, i):
        block = dask.get(self.graphs[i], self.keys[i], scheduler="sync")
        return _prepare_part(self.model, self.first + i, block)[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def _read_all(reader: _ChunkReader):
    """Every chunk of a partition, prepared (what ``persist`` keeps in memory)."""
    return tuple(reader)


# The graph that makes a partition's chunks goes inside the partition's task when it is
# at most this big (pickled) and shares no task with another partition's.
_INLINE_GRAPH_BYTES = 1 << 20


def _readers(blocks, bounds, model):
    """Per partition, a _ChunkReader over its chunks' culled graphs; None when they cannot run inside one task."""
    import pickle

    from dask.highlevelgraph import HighLevelGraph

    graph = HighLevelGraph.merge(*[b.dask for b in blocks])
    out, seen = [], set()
    for a, b in bounds:
        keys = [blocks[c].key for c in range(a, b)]
        graphs = [dict(graph.cull({key})) for key in keys]
        for sub in graphs:
            if seen.intersection(sub):  # shared work (e.g. one big read): would run once per chunk
                return None
            seen.update(sub)
        try:
            if len(pickle.dumps(graphs, protocol=5)) > _INLINE_GRAPH_BYTES:  # data in the graph itself
                return None
        except Exception:  # not picklable: leave it to the scheduler
            return None
        out.append(_ChunkReader(graphs, keys, model, a))
    return out


def _part_summary(chunks):
    return tuple((int(Xp.shape[0]), int(Xp.shape[1])) for Xp in chunks)


def _local_threads() -> int:
    """Threads of the local (non-distributed) scheduler."""
    import os

    return max(1, int(dask.config.get("num_workers", None) or os.cpu_count() or 1))


def _active_workers():
    """Worker threads of the active dask.distributed Client (None without one)."""
    client = _active_client()
    if client is None:
        return None
    try:
        workers = client.scheduler_info(n_workers=-1)["workers"]
    except TypeError:  # older distributed: no n_workers argument
        workers = client.scheduler_info()["workers"]
    return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))


def _partition_bounds(rows, n_parts: int) -> list:
    """Cut chunks into ``n_parts`` runs of consecutive chunks with about equal rows."""
    rows = np.asarray(rows, dtype=np.float64)
    n = len(rows)
    n_parts = max(1, min(int(n_parts), n))
    if not np.isfinite(rows).all():  # unknown chunk sizes: equal numbers of chunks
        rows = np.ones(n)
    middle = np.cumsum(rows) - rows / 2  # a chunk goes to the partition its middle row falls in
    cuts = [0]
    for i in range(1, n_parts):
        cut = int(np.searchsorted(middle, i * rows.sum() / n_parts))
        cuts.append(min(max(cut, cuts[-1] + 1), n - (n_parts - i)))
    cuts.append(n)
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:])]


def _as_blocks(X):
    if getattr(X, "ndim", None) != 2:
        raise ValueError(
            f"X must be a 2-D dask array of shape (documents, features); got {getattr(X, 'ndim', '?')} "
            "dimension(s)."
        )
    if X.numblocks[1] > 1:  # chunks must hold whole rows
        X = X.rechunk({1: -1})
    return list(X.to_delayed().ravel())


def prepare(settings: EM, X, y=None, *, persist: bool = True, partitions: int | None = None) -> ChunkedData:
    """Validate the row chunks of ``X`` once (and keep them in memory with ``persist``).

    Parameters
    ----------
    settings : EM
        The model and its options decide what a valid chunk is.
    X : dask.array (N, V)
        Row chunks: ``scipy.sparse`` matrices or ndarrays (column chunks are
        merged first).
    y : (N,) labels, −1 (or NaN) = hidden; ndarray, dask array or None (all hidden)
    persist : bool
        Keep the prepared chunks in memory across iterations (recommended when
        they fit in the workers' memory; otherwise every iteration reads them
        again from their source).
    partitions : int or None
        Runs of consecutive chunks handled by one task per iteration: the task
        runs the E-step on each of its chunks and merges their statistics, so
        one V × K array per partition leaves it. When the part of X's graph
        that makes a partition's chunks is small and shared with no other
        partition, the task makes them itself: persisted, they stay on the
        worker that read them; without persist, each pass reads, prepares and
        uses them one at a time (at most one chunk in memory per task), so no
        chunk travels between workers. None: one per worker thread of the
        active ``dask.distributed`` client; without one, one per chunk with
        ``persist`` and one per local thread without.
        The numbers do not depend on it (the merge tree is fixed by the number
        of chunks, see :func:`merge_tree`).

    Returns
    -------
    ChunkedData
    """
    model = _make_model(settings)
    n_classes = check_n_classes(settings.n_classes)
    blocks = _as_blocks(X)
    automatic = partitions is None
    if automatic:  # one per worker thread (distributed), or per local thread when streaming, else per chunk
        workers = _active_workers()
        if workers is None:
            workers = len(blocks) if persist else _local_threads()
        partitions = workers
    if isinstance(partitions, bool) or not isinstance(partitions, (int, np.integer)) or partitions < 1:
        raise ValueError(f"partitions must be a whole number ≥ 1 (or None), got {partitions!r}.")
    bounds = _partition_bounds(X.chunks[0], partitions)
    readers = _readers(blocks, bounds, model) if any(b - a > 1 for a, b in bounds) or not persist else None
    if automatic and readers is None and not persist:  # chunks read elsewhere would travel every iteration
        bounds = [(c, c + 1) for c in range(len(blocks))]
    token = uuid.uuid4().hex
    if readers is not None and not persist:  # each pass's partition task reads its chunks one at a time
        parts = readers
    elif readers is not None:  # read and prepared inside one task each: kept where they were read
        parts = [
            delayed(_read_all, pure=True)(reader, dask_key_name=f"nbcore-chunks-{a}-{b}-{token}")
            for (a, b), reader in zip(bounds, readers)
        ]
    else:
        parts = [
            delayed(_prepare_part, pure=True)(model, a, *blocks[a:b], dask_key_name=f"nbcore-chunks-{a}-{b}-{token}")
            for a, b in bounds
        ]
    n_known = X.shape[0]
    if y is not None and hasattr(y, "compute") and not isinstance(y, np.ndarray):
        y = y.compute()
    if y is not None and isinstance(n_known, (int, np.integer)) and not math.isnan(n_known):
        check_labels(y, int(n_known), n_classes)  # fail before the pass over the data
    if persist:
        parts = list(dask.persist(*parts))
    summaries = [s for part in dask.compute(*[delayed(_part_summary, pure=True)(p) for p in parts]) for s in part]
    sizes = np.array([s[0] for s in summaries], dtype=np.int64)
    n_features = summaries[0][1]
    n = int(sizes.sum())
    y = check_labels(np.full(n, -1) if y is None else y, n, n_classes)
    y.flags.writeable = False
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    labels = [
        delayed(tuple(y[offsets[c]:offsets[c + 1]].copy() for c in range(a, b)), name=f"nbcore-labels-{a}-{b}-{token}", traverse=False)
        for a, b in bounds
    ]
    labels = list(dask.persist(*labels))  # small (8 bytes a row): kept in memory even without persist
    n_categories = model.chunk_layout(n_features)
    return ChunkedData(model, parts, labels, bounds, sizes, n_features, y, persist, _settings_key(settings), n_categories)


# ---------------------------------------------------------------------------
# One pass over the chunks: the map (per chunk) and the fixed-order tree (merge)
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Theta:
    """θ_t as the E-step uses it: one key of every iteration's graph."""

    model: object
    lp: object  # model.log_params(θ_t, λ)[0]
    alpha: np.ndarray
    unlabeled_weight: float
    n_classes: int


@dataclass(frozen=True, eq=False)
class _Partial:
    """Sums over the rows of some chunks."""

    stats: dict  # model.statistics(X, weights), combined
    class_weight: np.ndarray  # Σ_i weights_ik (for α, eq. 23)
    log_likelihood: float  # Σ observed log-likelihood (eq. 15-17) at θ_t
    n_impossible: int
    first_impossible: int  # global row index, −1 = none


def _e_and_statistics(Xp, y, theta: _Theta, offset: int) -> _Partial:
    """E-step at θ_t on one chunk (eq. 21-22) and the M-step's sums (eq. 23-24)."""
    model = theta.model
    joint = log_joint(model.log_likelihood_from(Xp, theta.lp), theta.alpha)
    resp, log_marginal, impossible = responsibilities(joint, y)
    ll = observed_log_likelihood(joint, log_marginal, y, theta.unlabeled_weight)
    n_impossible = int(impossible.sum())
    first = offset + int(np.flatnonzero(impossible)[0]) if n_impossible else -1
    del joint, log_marginal
    weights = resp if theta.unlabeled_weight == 1.0 else resp * np.where(y < 0, theta.unlabeled_weight, 1.0)[:, None]
    return _Partial(model.statistics(Xp, weights), weights.sum(axis=0), ll, n_impossible, first)


def _label_statistics(Xp, y, theta: _Theta, offset: int) -> _Partial:
    """Statistics of the labelled rows only (init='labeled', the course session step 1)."""
    weights = one_hot_labels(y, theta.n_classes)
    return _Partial(theta.model.statistics(Xp, weights), weights.sum(axis=0), 0.0, 0, -1)


def _merge(theta: _Theta, *parts: _Partial) -> _Partial:
    class_weight = parts[0].class_weight.copy()
    ll = parts[0].log_likelihood
    for p in parts[1:]:
        class_weight += p.class_weight
        ll += p.log_likelihood
    firsts = [p.first_impossible for p in parts if p.first_impossible >= 0]
    return _Partial(
        theta.model.combine([p.stats for p in parts]),
        class_weight,
        ll,
        sum(p.n_impossible for p in parts),
        min(firsts) if firsts else -1,
    )


def merge_tree(n_chunks: int, split_every: int):
    """The fixed reduction tree over chunks ``0 … n_chunks − 1``: nodes ``(first, end, children)``.

    A node of more than one chunk splits its run into ``min(split_every, size)``
    runs of nearly equal length (pairwise summation for ``split_every = 2``).
    It depends on the number of chunks only, never on how tasks are placed, so
    every scheduler (and every ``partitions``) adds the same numbers in the same
    order.
    """
    def build(a, b):
        if b - a == 1:
            return (a, b, ())
        k = min(split_every, b - a)
        cuts = [a + (b - a) * i // k for i in range(k + 1)]
        return (a, b, tuple(build(cuts[i], cuts[i + 1]) for i in range(k)))

    return build(0, int(n_chunks))


def _cover(node, a: int, b: int) -> list:
    """The largest nodes of the tree that lie inside chunks [a, b), left to right."""
    first, end, children = node
    if a <= first and end <= b:
        return [node]
    if end <= a or b <= first:
        return []
    return [n for child in children for n in _cover(child, a, b)]


def _partition_pass(function, theta: _Theta, nodes, first: int, offsets, chunks, labels):
    """One task: ``function`` on each chunk of a partition, merged along the fixed tree.

    Returns one _Partial per node of ``nodes`` (the partition's part of the tree):
    the same additions as separate merge tasks would do, without moving the
    statistics between tasks.
    """
    def evaluate(node):
        a, _, children = node
        if not children:
            return function(chunks[a - first], labels[a - first], theta, int(offsets[a - first]))
        return _merge(theta, *[evaluate(child) for child in children])

    return tuple(evaluate(node) for node in nodes)


def _pass_graph(function, theta_key, data: ChunkedData, split_every: int):
    """The graph of one pass: one task per partition, then merges of what partitions share."""
    tree = merge_tree(data.n_chunks, split_every)
    offsets = data.offsets
    token = uuid.uuid4().hex[:12]
    done = {}
    for (a, b), chunks, labels in zip(data.partitions, data.parts, data.labels):
        nodes = _cover(tree, a, b)
        task = delayed(_partition_pass, pure=False, nout=len(nodes))(
            function, theta_key, nodes, a, offsets[a:b], chunks, labels,
            dask_key_name=f"nbcore-{function.__name__.strip('_')}-{a}-{b}-{token}",
        )
        for i, node in enumerate(nodes):
            done[node[:2]] = task[i]

    def build(node):
        if node[:2] in done:
            return done[node[:2]]
        first, end, children = node
        return delayed(_merge, pure=False)(
            theta_key, *[build(child) for child in children], dask_key_name=f"nbcore-merge-{first}-{end}-{token}"
        )

    return build(tree)


def _lazy_part(function, theta, chunks, labels):
    """(rows of the partition, K): ``function`` on each chunk, stacked."""
    blocks = [function(Xp, y, theta) if labels is not None else function(Xp, theta) for Xp, y in zip(chunks, labels or [None] * len(chunks))]
    return blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=0)


def _predict(Xp, theta: _Theta):
    return normalize_log(log_joint(theta.model.log_likelihood_from(Xp, theta.lp), theta.alpha))[0]


def _responsibilities(Xp, y, theta: _Theta):
    return responsibilities(log_joint(theta.model.log_likelihood_from(Xp, theta.lp), theta.alpha), y)[0]


def _prepare_new(block, model, params):
    return model.prepare(block, params)


def _active_client():
    """The dask.distributed Client that dask.compute would use now, or None."""
    try:
        scheduler = dask.base.get_scheduler()
    except Exception:  # pragma: no cover
        return None
    client = getattr(scheduler, "__self__", None)
    return client if type(client).__name__ == "Client" else None


def _put(value, name: str):
    """One key for a (possibly large) value: scattered to a distributed cluster, else in the graph."""
    client = _active_client()
    if client is not None:
        return client.scatter(value, hash=False)
    return delayed(value, name=f"{name}-{uuid.uuid4().hex}", traverse=False)


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------
class ChunkedEMRun(EMRun):
    """An EM run over row chunks: same ``step`` / ``history`` / stop rules as :class:`~nbcore.EMRun`.

    Create it with :meth:`nbcore.EM.start` on a dask array (or :func:`start`).
    Snapshots carry ``resp=None``; the training data is ``run.data``
    (:class:`ChunkedData`), ``run.Xp`` is None.

    Parameters
    ----------
    settings : EM
    X : dask.array or ChunkedData
    y : labels (ignored when X is ChunkedData, which carries them)
    persist : keep the prepared chunks in memory (see :func:`prepare`)
    split_every : children per node of the fixed reduction tree (≥ 2; 2 = pairwise,
        which lets each partition's statistics leave its worker as one array)
    partitions : consecutive chunks per task (see :func:`prepare`; numbers unchanged)
    """

    def __init__(
        self, settings: EM, X, y=None, random_state=None, _from=None, *,
        persist: bool = True, split_every: int = 2, partitions: int | None = None,
    ):
        self.settings = settings
        self.smoothing, self.unlabeled_weight, self.n_classes = check_run_settings(settings)
        if settings.components_per_class != 1:
            raise ValueError(
                "Chunked EM supports components_per_class = 1 only (one mixture component "
                "per class); use an in-memory array for several components per class."
            )
        if isinstance(split_every, bool) or not isinstance(split_every, (int, np.integer)) or split_every < 2:
            raise ValueError(f"split_every must be a whole number ≥ 2, got {split_every!r}.")
        self.split_every = int(split_every)
        self.restarts = None
        self.Xp = None
        self._resp = None
        self._pending = None  # the EStep of a half-done iteration (E done, M not yet)
        if _from is not None:  # continue another run with new settings (with_settings)
            self.data, self.model, self.y = _from.data, _from.model, _from.y
            self.split_every = _from.split_every
            self.history = list(_from.history)
            self._sums = _from._sums  # the pass at θ_t does not depend on these settings
            self._pending = _from._pending
            self.stop_reason = None
            return
        if isinstance(X, ChunkedData):
            if X.settings_key != _settings_key(settings):
                raise ValueError(
                    "These chunks were prepared for another model, model options or number of "
                    "classes; prepare them again with nbcore.dask_em.prepare(settings, X, y)."
                )
            self.data = X
        else:
            self.data = prepare(settings, X, y, persist=persist, partitions=partitions)
        self.model = self.data.model
        self.y = self.data.y
        check_something_to_learn(int((self.y >= 0).sum()), settings.init, self.unlabeled_weight)
        rng = check_random_state(random_state)
        alpha, params = self._initial_parameters(settings.init, rng)
        self.stop_reason = None
        log_prior = self._evaluate(params, alpha)
        ll = self._sums.log_likelihood
        self.history = [Snapshot(0, alpha, params, None, ll, ll + log_prior, None, self.smoothing)]

    # -- passes over the chunks ---------------------------------------------
    def _theta(self, alpha, lp):
        theta = _Theta(self.model, lp, alpha, self.unlabeled_weight, self.n_classes)
        return _put(theta, "nbcore-theta")

    def _pass(self, function, theta_key) -> _Partial:
        (merged,) = dask.compute(_pass_graph(function, theta_key, self.data, self.split_every))
        return merged

    def _initial_parameters(self, init, rng):
        if init != "labeled":
            proxy = _Proxy(self.data.shape, self.data.n_categories)
            K = self.n_classes
            if init == "uniform":
                alpha = np.full(K, 1.0 / K)
                params = self.model.uniform_params(proxy, K)
            else:
                raw = rng.uniform(0.01, 0.99, size=K)  # the notebook's ``initialize`` (as EMRun)
                alpha = raw / raw.sum()
                params = self.model.random_params(proxy, K, rng)
            alpha = np.asarray(alpha, dtype=np.float64)
            alpha.flags.writeable = False
            return alpha, params
        part = self._pass(_label_statistics, self._theta(np.full(self.n_classes, 1.0 / self.n_classes), None))
        alpha, params = self._m_step(part)
        if (alpha == 0).any():
            warn_classes_without_labels(alpha == 0)
        return alpha, params

    def _m_step(self, part: _Partial):
        """α = Σ_i w_ik / Σ w (eq. 23) and the model's parameters (eq. 24), on the client."""
        alpha = part.class_weight / part.class_weight.sum()
        alpha.flags.writeable = False
        return alpha, self.model.params_from(part.stats, self.smoothing)

    def _evaluate(self, params, alpha) -> float:
        """One pass at θ: its observed log-likelihood and the sums for the next M-step.

        Returns the log prior of θ.
        """
        lp, log_prior = self.model.log_params(params, self.smoothing)
        self._sums = self._pass(_e_and_statistics, self._theta(alpha, lp))
        if self._sums.n_impossible:
            warn_impossible(self._sums.n_impossible, self._sums.first_impossible)
        return log_prior

    def e_step(self) -> EStep:
        """First half of an iteration: ``resp`` is a lazy dask array (N, K) of the E-step at θ_t.

        The sums the M-step needs were computed in the pass that evaluated θ_t.
        """
        if self._pending is None:
            snap = self.current
            self._pending = EStep(snap.iteration, self.responsibilities_at(snap), snap.log_likelihood, snap.objective)
        return self._pending

    def m_step(self) -> Snapshot:
        """θ_{t+1} from the sums of the pass at θ_t (eq. 23-24), then one pass at θ_{t+1}."""
        previous = self.current
        alpha, params = self._m_step(self._sums)
        delta = squared_change(self.model, alpha, params, previous.alpha, previous.params, self.settings.theta_norm)
        log_prior = self._evaluate(params, alpha)
        ll = self._sums.log_likelihood
        snap = Snapshot(previous.iteration + 1, alpha, params, None, ll, ll + log_prior, delta, self.smoothing)
        self._pending = None
        self.history.append(snap)
        self._update_stop_reason(previous, snap)
        return snap

    def step(self) -> Snapshot:
        """One E-step (eq. 21-22) + M-step (eq. 23-24): one graph over the chunks."""
        return self.m_step()

    # -- lazy outputs ---------------------------------------------------------
    def _lazy(self, function, theta_key, with_labels: bool):
        blocks = []
        offsets = self.data.offsets
        for (a, b), chunks, labels in zip(self.data.partitions, self.data.parts, self.data.labels):
            task = delayed(_lazy_part, pure=False)(function, theta_key, chunks, labels if with_labels else None)
            blocks.append(da.from_delayed(task, shape=(int(offsets[b] - offsets[a]), self.n_classes), dtype=np.float64))
        return da.concatenate(blocks, axis=0)

    def _snap_theta(self, snap: Snapshot):
        lp, _ = self.model.log_params(snap.params, snap.smoothing)
        return self._theta(snap.alpha, lp)

    def responsibilities(self, t: int):
        """The responsibilities that produced θ_t, as a lazy (N, K) dask array (None for t = 0)."""
        if t == 0:
            return None
        return self.responsibilities_at(self.history[t - 1])

    def responsibilities_at(self, snap: Snapshot):
        """The E-step at the parameters of ``snap`` (eq. 21-22), lazy (N, K)."""
        return self._lazy(_responsibilities, self._snap_theta(snap), with_labels=True)

    def predict_proba(self, X=None, t: int | None = None):
        """p(y = k | x_i) under snapshot t (default: the current one).

        ``X=None`` (the training chunks) or a dask array: a lazy dask array
        (N, K). An in-memory X: an ndarray, as :meth:`nbcore.EMRun.predict_proba`.
        """
        snap = self.current if t is None else self.history[t]
        if X is None:
            return self._lazy(_predict, self._snap_theta(snap), with_labels=False)
        if hasattr(X, "to_delayed") and hasattr(X, "numblocks"):
            theta_key = self._snap_theta(snap)
            model, params = self.model, snap.params
            rows = X.chunks[0]
            blocks = [
                da.from_delayed(
                    delayed(_predict, pure=False)(delayed(_prepare_new, pure=True)(b, model, params), theta_key),
                    shape=(rows[i], self.n_classes),
                    dtype=np.float64,
                )
                for i, b in enumerate(_as_blocks(X))
            ]
            return da.concatenate(blocks, axis=0)
        Xp = self.model.prepare(X, snap.params)
        return normalize_log(log_joint(self.model.log_likelihood(Xp, snap.params), snap.alpha))[0]

    def __repr__(self) -> str:
        return (
            f"<ChunkedEMRun {self.model.name} K={self.n_classes} λ={format_smoothing(self.smoothing)} "
            f"t={self.iteration} chunks={self.data.n_chunks} stop={self.stop_reason}>"
        )


def start(settings: EM, X, y=None, *, persist: bool = True, split_every: int = 2, partitions: int | None = None) -> ChunkedEMRun:
    """:meth:`nbcore.EM.start` on row chunks, with the chunking options."""
    return ChunkedEMRun(
        settings, X, y, random_state=settings.random_state, persist=persist, split_every=split_every, partitions=partitions
    )


def fit(
    settings: EM, X, y=None, callback=None, *, persist: bool = True, split_every: int = 2, partitions: int | None = None
) -> ChunkedEMRun:
    """:meth:`nbcore.EM.fit` on row chunks: the chunks are validated once for all restarts."""
    if not isinstance(settings.n_init, int) or settings.n_init < 1:
        raise ValueError(f"n_init must be a whole number ≥ 1, got {settings.n_init!r}.")
    data = X if isinstance(X, ChunkedData) else prepare(settings, X, y, persist=persist, partitions=partitions)
    return settings._fit_runs(
        lambda random_state: ChunkedEMRun(settings, data, random_state=random_state, split_every=split_every), callback
    )
