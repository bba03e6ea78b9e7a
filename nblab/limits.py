"""What one classroom server accepts from a user: the dashboard's own limits.

The engine (nbcore) reads files of any size and keeps every term unless told otherwise;
the dashboard serves a whole class from one process, so it passes these caps to every
read of a user's file (uploads and shared files alike).
"""
MB = 1024 * 1024

#: Largest file a user may upload or open from a class link. Keep equal to
#: ``server.maxUploadSize`` in .streamlit/config.toml (a test checks it).
UPLOAD_MAX_BYTES = 5 * MB

#: Largest vocabulary kept from a user's text: the most frequent terms.
VOCABULARY_CAP = 20_000


#: Memory one student's lesson run may hold on the server: the data matrix, the parameters of
#: every iteration (kept so the class can scrub back), the responsibilities kept and a step's
#: working arrays. ``NBLAB_RUN_BUDGET_MB`` overrides it. The shipped lessons need at most
#: ~65 MB at the default 100 iterations (the UDHR sentences, 7,717 character n-grams × 10 languages).
RUN_BUDGET_BYTES = 256 * MB


def run_budget_bytes(environ=None) -> int:
    """The per-run memory budget: ``NBLAB_RUN_BUDGET_MB`` when set to a positive number."""
    import os

    raw = (os.environ if environ is None else environ).get("NBLAB_RUN_BUDGET_MB", "")
    try:
        mb = float(raw)
    except ValueError:
        return RUN_BUDGET_BYTES
    return int(mb * MB) if mb > 0 else RUN_BUDGET_BYTES


def nbytes(obj) -> int:
    """Bytes held by an array, a scipy sparse matrix, or a tuple/list/mapping of them."""
    import numpy as np
    import scipy.sparse as sp

    if obj is None:
        return 0
    if isinstance(obj, dict):
        return sum(nbytes(v) for v in obj.values())
    if isinstance(obj, (tuple, list)):
        return sum(nbytes(v) for v in obj)
    if sp.issparse(obj):
        return sum(getattr(obj, a).nbytes for a in ("data", "indices", "indptr", "row", "col", "offsets")
                   if isinstance(getattr(obj, a, None), np.ndarray))
    return int(np.asarray(obj).nbytes) if hasattr(obj, "__array__") or np.isscalar(obj) else 0


#: A lesson needs at least this many iterations to show EM at work; a file whose parameters
#: leave room for fewer is refused (what to change is said), not started.
MIN_ITERATIONS = 10


def snapshot_nbytes(snapshot) -> int:
    """Bytes of one iteration's parameters (α and the event model's arrays)."""
    return nbytes(snapshot.alpha) + nbytes(dict(snapshot.params))


def run_nbytes(X, snapshot, n_classes: int, max_iter: int, keep_resp: int) -> int:
    """What a run on ``X`` holds after ``max_iter`` iterations: the matrix, one snapshot of the
    parameters per iteration (``snapshot`` is iteration 0's), ``keep_resp`` responsibility
    matrices (N, K) and two more of them as a step's working arrays."""
    return (nbytes(X) + (int(max_iter) + 1) * snapshot_nbytes(snapshot)
            + (int(keep_resp) + 2) * X.shape[0] * n_classes * 8)


def iterations_that_fit(X, snapshot, n_classes: int, keep_resp: int, budget: int) -> int:
    """The most iterations a run on ``X`` can keep within ``budget`` bytes (0 when not even
    iteration 0 fits)."""
    fixed = run_nbytes(X, snapshot, n_classes, max_iter=-1, keep_resp=keep_resp)
    per = max(snapshot_nbytes(snapshot), 1)
    return max(int((budget - fixed) // per) - 1, 0)


def too_big_message(X, snapshot, n_classes: int, keep_resp: int, budget: int) -> str | None:
    """None when at least :data:`MIN_ITERATIONS` iterations fit the budget; otherwise what
    the run would hold and what to change."""
    fits = iterations_that_fit(X, snapshot, n_classes, keep_resp, budget)
    if fits >= MIN_ITERATIONS:
        return None
    need = run_nbytes(X, snapshot, n_classes, MIN_ITERATIONS, keep_resp)
    n_features = X.shape[1]
    fixes = []
    if n_classes > 20:
        fixes.append(f"use a label column with fewer classes (this one has {n_classes:,})")
    if n_features > 2_000:
        fixes.append(f"keep fewer words (Text → features: vocabulary size; now {n_features:,})")
    if not fixes:
        fixes.append("use fewer rows or columns of the file")
    return (f"{MIN_ITERATIONS} iterations of this run would hold about {need / MB:,.0f} MB on the server "
            f"({n_classes:,} classes × {n_features:,} features: {snapshot_nbytes(snapshot) / MB:,.1f} MB "
            f"of parameters per iteration), over the {budget / MB:,.0f} MB each lesson may use on this "
            f"shared server. Fix: {'; or '.join(fixes)}.")
