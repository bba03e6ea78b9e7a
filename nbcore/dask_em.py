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
than the workers' memory). The chunks and their partitions are made in :mod:`nbcore.dask_chunks`
(:func:`prepare`, :class:`ChunkedData`, re-exported here); this module holds the passes and the run.

Responsibilities are not kept on the snapshots (``resp`` is None);
:meth:`ChunkedEMRun.responsibilities` and :meth:`ChunkedEMRun.predict_proba`
return lazy dask arrays.

Whatever scheduler is active is used: threads by default, ``dask.config.set(
scheduler="synchronous")``, or a ``dask.distributed.Client``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

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

from ._settings import EMSettings
from ._validation import (
    check_random_state,
    check_run_settings,
    check_something_to_learn,
    warn_classes_without_labels,
    warn_impossible,
)
from .dask_chunks import ChunkedData, _active_client, _as_blocks, _settings_key, count_categories, prepare
from .equations import (
    log_joint,
    normalize_log,
    observed_log_likelihood,
    one_hot_labels,
    responsibilities,
    squared_change,
)
from .run import EMRun, EStep, Snapshot, format_smoothing

__all__ = ["ChunkedData", "ChunkedEMRun", "prepare", "start", "fit", "count_categories", "merge_tree"]


class _Proxy:
    """What ``uniform_params``/``random_params`` look at: the shape (and categories)."""

    def __init__(self, shape, n_categories=None):
        self.shape = shape
        self.n_categories = n_categories


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
        self, settings: EMSettings, X, y=None, random_state=None, _from=None, *,
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


def start(settings: EMSettings, X, y=None, *, persist: bool = True, split_every: int = 2, partitions: int | None = None) -> ChunkedEMRun:
    """:meth:`nbcore.EM.start` on row chunks, with the chunking options."""
    return ChunkedEMRun(
        settings, X, y, random_state=settings.random_state, persist=persist, split_every=split_every, partitions=partitions
    )


def fit(
    settings: EMSettings, X, y=None, callback=None, *, persist: bool = True, split_every: int = 2, partitions: int | None = None
) -> ChunkedEMRun:
    """:meth:`nbcore.EM.fit` on row chunks: the chunks are validated once for all restarts."""
    if not isinstance(settings.n_init, int) or settings.n_init < 1:
        raise ValueError(f"n_init must be a whole number ≥ 1, got {settings.n_init!r}.")
    data = X if isinstance(X, ChunkedData) else prepare(settings, X, y, persist=persist, partitions=partitions)
    return settings._fit_runs(
        lambda random_state: ChunkedEMRun(settings, data, random_state=random_state, split_every=split_every), callback
    )
