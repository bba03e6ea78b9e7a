"""Row chunks for chunked EM (:mod:`nbcore.dask_em`): validated once, grouped into partitions.

:func:`prepare` runs ``model.prepare`` on every row chunk of a dask array (an error names the
chunk), groups consecutive chunks into **partitions** (one task per partition and pass) and, with
``persist``, keeps the prepared chunks in memory across iterations. When the part of X's graph
that makes a partition's chunks is small and shared with no other partition, the partition's
task makes them itself, so no chunk travels between workers. Partitions change the tasks, never
the numbers. Needs Dask (imported by :mod:`nbcore.dask_em`, which says how to install it).
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass

import dask
import numpy as np
from dask import delayed

from ._settings import EMSettings
from ._validation import check_labels, check_n_classes
from .models import get_model

__all__ = ["ChunkedData", "prepare", "count_categories"]


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


def _settings_key(settings: EMSettings):
    model = settings.model
    name = model if isinstance(model, str) else (type(model).__module__, type(model).__qualname__)
    return (name, tuple(sorted((k, repr(v)) for k, v in dict(settings.model_options).items())), int(settings.n_classes))


def _make_model(settings: EMSettings):
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


def _active_client():
    """The dask.distributed Client that dask.compute would use now, or None."""
    try:
        scheduler = dask.base.get_scheduler()
    except Exception:  # pragma: no cover
        return None
    client = getattr(scheduler, "__self__", None)
    return client if type(client).__name__ == "Client" else None


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


def _n_partitions(partitions, n_chunks: int, persist: bool) -> int:
    """The number of partitions asked for, checked.

    Parameters
    ----------
    partitions : int or None
        None: one per worker thread of the active ``dask.distributed`` client; without one,
        one per chunk when persisting and one per local thread when not.
    n_chunks : int, C
    persist : bool

    Returns
    -------
    int, ≥ 1
    """
    if partitions is None:
        workers = _active_workers()
        if workers is None:
            workers = n_chunks if persist else _local_threads()
        partitions = workers
    if isinstance(partitions, bool) or not isinstance(partitions, (int, np.integer)) or partitions < 1:
        raise ValueError(f"partitions must be a whole number ≥ 1 (or None), got {partitions!r}.")
    return partitions


def _partition_tasks(model, blocks: list, bounds: list, readers, persist: bool, token: str) -> list:
    """One entry per partition: its prepared chunks as one task, or (``persist=False`` with
    ``readers``) the reader its pass tasks read them from one at a time.

    Parameters
    ----------
    model : EventModel
    blocks : list of dask Delayed, the C row chunks of X
    bounds : list of (first chunk, end chunk), one per partition
    readers : list of _ChunkReader (one per partition) or None (the chunks cannot be read
        inside one task: each partition's task takes the chunks as its arguments)
    persist : bool
    token : str, unique to this preparation (names the tasks)
    """
    if readers is not None and not persist:  # each pass's partition task reads its chunks one at a time
        return readers
    if readers is not None:  # read and prepared inside one task each: kept where they were read
        return [
            delayed(_read_all, pure=True)(reader, dask_key_name=f"nbcore-chunks-{a}-{b}-{token}")
            for (a, b), reader in zip(bounds, readers)
        ]
    return [
        delayed(_prepare_part, pure=True)(model, a, *blocks[a:b], dask_key_name=f"nbcore-chunks-{a}-{b}-{token}")
        for a, b in bounds
    ]


def _early_labels(y, n_rows, n_classes: int):
    """``y`` computed (a dask array) and, when X's number of rows is known, checked before the pass
    over the data.

    Parameters
    ----------
    y : (N,) ndarray, dask array or None
    n_rows : N, or NaN when X's chunk sizes are unknown
    n_classes : int, K

    Returns
    -------
    (N,) ndarray or None
    """
    if y is not None and hasattr(y, "compute") and not isinstance(y, np.ndarray):
        y = y.compute()
    if y is not None and isinstance(n_rows, (int, np.integer)) and not math.isnan(n_rows):
        check_labels(y, int(n_rows), n_classes)  # fail before the pass over the data
    return y


def _chunk_shapes(parts: list) -> tuple:
    """Rows per chunk and the number of features, from one pass over the prepared chunks.

    Returns
    -------
    sizes : (C,) int64
    n_features : int, V
    """
    summaries = [s for part in dask.compute(*[delayed(_part_summary, pure=True)(p) for p in parts]) for s in part]
    return np.array([s[0] for s in summaries], dtype=np.int64), summaries[0][1]


def _chunk_labels(y: np.ndarray, sizes: np.ndarray, bounds: list, token: str) -> list:
    """Per partition, the tuple of its chunks' label vectors, held in memory.

    Parameters
    ----------
    y : (N,) int labels, −1 = hidden
    sizes : (C,) rows per chunk
    bounds : list of (first chunk, end chunk), one per partition
    token : str, unique to this preparation (names the keys)

    Returns
    -------
    list of dask Delayed, one per partition
    """
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    labels = [
        delayed(tuple(y[offsets[c]:offsets[c + 1]].copy() for c in range(a, b)), name=f"nbcore-labels-{a}-{b}-{token}",
                traverse=False)
        for a, b in bounds
    ]
    return list(dask.persist(*labels))  # small (8 bytes a row): kept in memory even without persist


def prepare(settings: EMSettings, X, y=None, *, persist: bool = True, partitions: int | None = None) -> ChunkedData:
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
    bounds = _partition_bounds(X.chunks[0], _n_partitions(partitions, len(blocks), persist))
    readers = _readers(blocks, bounds, model) if any(b - a > 1 for a, b in bounds) or not persist else None
    if automatic and readers is None and not persist:  # chunks read elsewhere would travel every iteration
        bounds = [(c, c + 1) for c in range(len(blocks))]
    token = uuid.uuid4().hex
    parts = _partition_tasks(model, blocks, bounds, readers, persist, token)
    y = _early_labels(y, X.shape[0], n_classes)
    if persist:
        parts = list(dask.persist(*parts))
    sizes, n_features = _chunk_shapes(parts)
    n = int(sizes.sum())
    y = check_labels(np.full(n, -1) if y is None else y, n, n_classes)
    y.flags.writeable = False
    labels = _chunk_labels(y, sizes, bounds, token)
    n_categories = model.chunk_layout(n_features)
    return ChunkedData(model, parts, labels, bounds, sizes, n_features, y, persist, _settings_key(settings),
                       n_categories)
