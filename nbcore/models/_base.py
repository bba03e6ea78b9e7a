"""The protocol every event model follows (:class:`EventModel`), and the shared maths.

An event model is p(x | y = k; θ). It is the only place that knows the model:
the engine (:mod:`nbcore.em`), the estimators, sampling, :func:`nbcore.explain`,
chunked EM and the dashboard call these hooks and never test a model's name.

Required hooks (abstract; a model that misses one cannot be instantiated):

``prepare(X, params=None)``
    validate X once and turn it into the form the model computes with
    (e.g. one-hot codes for categorical data);
``log_likelihood(Xp, params)``
    log p(x_i | y = k) for every document i and class k, shape (N, K) (eq. 11);
``statistics(Xp, weights)``
    sufficient statistics from (soft or hard) class weights (N, K);
``params_from(stats, smoothing)``
    the (MAP) parameters those statistics imply (eq. 13-14, 24);
``uniform_params(Xp, K)`` / ``random_params(Xp, K, rng)``
    starting points of EM (the symmetric point; a seeded random one);
``feature_terms(params, x)``
    each feature's term of log p(x | k) for one document, (V, K): what
    :func:`nbcore.explain` shows (they sum to ``log_likelihood``);
``sample(params, y, rng, **options)``
    draw one row per class code in ``y`` (the generative story, eq. 3);
``param_table(params, feature_names, categories=None)``
    the parameters as one (rows × K) :class:`ParamTable` for charts and exports.

Hooks with a default (override when the default is wrong for the model):

``log_prior(params, smoothing)`` (0: no prior), ``check_smoothing(smoothing, V)``
(λ as the model computes with it: one number, or one pseudo-count per feature
for models with ``per_feature_smoothing``), ``check_params(params, K)``
(validate user-given parameters, used by :func:`nbcore.sample`),
``adapt(X, kind)`` (data of another kind, e.g. counts for a binary model),
``combine(stats_list)`` (merge the statistics of row chunks; default: sum),
``estimate_parts(stats, smoothing)`` (numerator/denominator of a ratio
estimate, for the dashboard's M-step panel), ``squared_distance`` (and
``squared_distance_all_values``, the the course session norm), ``chunk_layout`` /
``check_chunkable`` (chunked EM), ``log_params`` / ``log_likelihood_from``
(the E-step's θ-only work done once per θ).

λ (``smoothing``) is a float ≥ 0 or, for models with ``per_feature_smoothing``, a (V,)
array of λ_j ≥ 0 (scikit-learn's ``alpha`` array); hooks that take it turn it into the
form they compute with through :meth:`EventModel.check_smoothing`.

Class attributes describe the input: ``input_kind`` ("binary", "counts",
"categories", "continuous"), ``accepts_sparse``, ``positive_only``,
``input_dtype`` (what an estimator's input check asks for) and
``scores_absent_features`` (an absent feature, x_j = 0, still adds a term).

Supervised Naive Bayes calls ``statistics`` with hard 0/1 weights (the notes
eq. 12-13); EM calls the same function with soft responsibilities
(eq. 23-24). That single function is the link the dashboard teaches.

Parameters are plain mappings of read-only numpy arrays so that snapshots can
share them without copying.

A new model subclasses :class:`EventModel`, fills in the hooks and calls
:func:`nbcore.models.register_model`; everything else then accepts its name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._validation import check_smoothing

__all__ = ["EventModel", "ParamTable", "safe_log", "log_dot", "matmul", "column_sum", "freeze",
           "feature_smoothing", "weighted_log_sum"]


class Params(Mapping):
    """An immutable, picklable mapping of parameter name -> read-only array."""

    __slots__ = ("_data",)

    def __init__(self, data):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __reduce__(self):
        return (freeze_dict, (self._data,))

    def __repr__(self):
        return f"Params({', '.join(self._data)})"


def freeze_dict(data) -> "Params":
    return freeze(**data)


def freeze(**arrays) -> Params:
    """Make parameter arrays read-only and wrap them in an immutable mapping."""
    out = {}
    for key, value in arrays.items():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        elif isinstance(value, tuple):
            for v in value:
                v.flags.writeable = False
        out[key] = value
    return Params(out)


def safe_log(p: np.ndarray) -> np.ndarray:
    """log(p) with log(0) = -inf on purpose, without a divide-by-zero warning."""
    with np.errstate(divide="ignore"):
        return np.log(p)


def matmul(X, M: np.ndarray) -> np.ndarray:
    """``np.asarray(X @ M)`` for X (N, V) dense or scipy.sparse and a dense M (V, K), faster for K = 2.

    scipy multiplies a CSR/CSC matrix by K columns at once in one loop whose innermost step
    runs over the K columns; with K = 2 that step costs more than the arithmetic, and two
    single-column products (one tight loop each) take about half the time on long documents.
    Every entry is the same sum taken in the same order (entry by entry along the row or
    column of X), so the result is bitwise identical to ``X @ M``.
    """
    if (sp.issparse(X) and X.format in ("csr", "csc") and isinstance(M, np.ndarray) and M.ndim == 2
            and M.shape[1] == 2 and X.dtype == np.float64 and M.dtype == np.float64):
        out = np.empty((X.shape[0], 2))
        out[:, 0] = X @ np.ascontiguousarray(M[:, 0])
        out[:, 1] = X @ np.ascontiguousarray(M[:, 1])
        return out
    return np.asarray(X @ M)


def column_sum(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=0)`` of a C-ordered (N, K) float array, bitwise the same, faster for K ≤ 4.

    numpy adds the rows of such an array one after another (a sequential sum per column),
    touching K numbers per row; for K ≤ 4 that row loop costs more than the additions. A
    running sum down each column (``np.cumsum``) adds the same numbers in the same order and
    its last entry is the column's sum, about twice as fast.
    """
    if (isinstance(a, np.ndarray) and a.ndim == 2 and 1 <= a.shape[1] <= 4 and a.shape[0] > 1
            and a.dtype == np.float64 and a.flags.c_contiguous):
        return np.array([np.cumsum(a[:, k])[-1] for k in range(a.shape[1])])
    return a.sum(axis=0)


def log_dot(X, log_p: np.ndarray) -> np.ndarray:
    """X @ log_p where 0 * log(0) counts as 0 and x > 0 times log(0) is -inf.

    ``X`` (N, V) holds non-negative weights (counts or indicators), dense or
    sparse; ``log_p`` (V, K) may contain -inf (a probability of exactly zero,
    possible with λ = 0). Plain ``X @ log_p`` would turn 0 * -inf into NaN for
    dense X; here a zero entry never touches the -inf, and a positive entry
    makes the whole row -inf: the document is impossible under that class.
    """
    finite = np.isfinite(log_p)
    if finite.all():
        return matmul(X, log_p)
    out = matmul(X, np.where(finite, log_p, 0.0))
    hits = matmul(X, (~finite).astype(np.float64))
    out[hits > 0] = -np.inf
    return out


def feature_smoothing(smoothing, n_features: int):
    """λ validated against V features, in the form the M-step and log prior compute with.

    Parameters
    ----------
    smoothing : float or array-like of shape (V,)
    n_features : int, V

    Returns
    -------
    float, or a read-only (V,) ndarray of λ_j. An array whose entries are all equal
    comes back as that one float, so a constant per-feature λ runs exactly the
    scalar arithmetic (same bits as the scalar run).
    """
    lam = check_smoothing(smoothing, n_features)
    if isinstance(lam, np.ndarray) and np.all(lam == lam[0]):
        return float(lam[0])
    return lam


def weighted_log_sum(lam, log_rows: np.ndarray) -> float:
    """Σ_j λ_j Σ_k log_rows[j, k] (a scalar λ: λ Σ log_rows), the log of a prior whose
    exponent for feature j is λ_j.

    Parameters
    ----------
    lam : float or (V,) ndarray from :func:`feature_smoothing`
    log_rows : (V, K) or (V,) logs of probabilities (rows are features); may hold −inf

    Rows with λ_j = 0 have a flat prior and add nothing, even where their log is −inf
    (a probability of zero, possible with λ_j = 0), so 0 · (−∞) never makes a NaN.
    """
    if not isinstance(lam, np.ndarray):
        return float(lam * log_rows.sum()) if lam else 0.0
    used = lam > 0
    row_sums = log_rows[used].sum(axis=1) if log_rows.ndim == 2 else log_rows[used]
    return float(lam[used] @ row_sums)


@dataclass(frozen=True)
class ParamTable:
    """A model's parameters as one (rows × classes) matrix, for charts and exports.

    Attributes
    ----------
    mat : (R, K) ndarray
    rows : list of R row labels (a feature, or "feature = value")
    label : str, e.g. "β = p(word present | class)"
    short : str, the symbol, e.g. "β"
    log_scale : bool, rank rows by log-ratio (probabilities) rather than by spread
    zmin, zmax : colour range (None: from the data)
    """

    mat: np.ndarray
    rows: list
    label: str
    short: str
    log_scale: bool
    zmin: float | None
    zmax: float | None


class EventModel(ABC):
    """One event model p(x | y). Subclasses implement the abstract hooks (see the module)."""

    #: registry name (``"bernoulli"``, ...), used by :class:`nbcore.EM` and the estimators
    name: str = ""
    #: parameter names in a snapshot, e.g. ``("beta",)``
    param_names: tuple = ()
    #: whether the model accepts scipy.sparse input
    accepts_sparse: bool = True
    #: the feature kinds of a Dataset ("binary", "counts", "categorical", "continuous") this model
    #: reads, through :meth:`adapt`; the first is the kind it is made for
    data_kinds: tuple = ()
    #: what one feature is: "binary", "counts", "categories" or "continuous"
    input_kind: str = "counts"
    #: inputs must be ≥ 0 (scikit-learn's ``positive_only`` tag)
    positive_only: bool = False
    #: dtype an estimator's input check converts X to
    input_dtype = np.float64
    #: an absent feature (x_j = 0) still adds a term to log p(x | k) (Bernoulli's 1 − β)
    scores_absent_features: bool = False
    #: LaTeX of feature j's term of log p(x_i | y = k) (eq. 11), for the dashboard's E-step
    term_tex: str = r"\log p(x_{ij} \mid y = k)"
    #: LaTeX of the M-step estimate (eq. 24) when it is a ratio (see ``estimate_parts``), else None
    estimate_tex: str | None = None
    #: the model's name in a sentence ("Bernoulli", "multinomial", ...)
    title: str = ""
    #: λ may be a (V,) array, one pseudo-count per feature (params_from and log_prior take it)
    per_feature_smoothing: bool = False

    # -- required hooks ----------------------------------------------------
    @abstractmethod
    def prepare(self, X, params=None):
        """Validate X (N, V); with ``params``, also check it fits a fitted model.
        Returns X in the form the other hooks take (``Xp``)."""

    @abstractmethod
    def log_likelihood(self, Xp, params) -> np.ndarray:
        """log p(x_i | y = k), shape (N, K); −inf where a row is impossible under k."""

    @abstractmethod
    def statistics(self, Xp, weights: np.ndarray) -> dict:
        """Sufficient statistics of the rows weighted by ``weights`` (N, K)."""

    @abstractmethod
    def params_from(self, stats: dict, smoothing: float):
        """The (MAP, with λ = ``smoothing``) parameters the statistics imply."""

    @abstractmethod
    def uniform_params(self, Xp, n_classes: int):
        """The symmetric starting point: every class the same."""

    @abstractmethod
    def random_params(self, Xp, n_classes: int, rng: np.random.Generator):
        """A random starting point drawn with ``rng``."""

    @abstractmethod
    def feature_terms(self, params, x: np.ndarray) -> np.ndarray:
        """(V, K): feature j's term of log p(x | k) for one document ``x`` (V,).

        The terms sum over j to ``log_likelihood``; :func:`nbcore.explain` shows them."""

    @abstractmethod
    def sample(self, params, y: np.ndarray, rng: np.random.Generator, **options) -> np.ndarray:
        """One row drawn from p(x | k) for every class code k in ``y``: shape (len(y), V)."""

    @abstractmethod
    def param_table(self, params, feature_names, categories=None) -> ParamTable:
        """The parameters as one (rows × K) table with row labels (see :class:`ParamTable`)."""

    # -- hooks with a default ----------------------------------------------
    def log_prior(self, params, smoothing: float) -> float:
        """log p(θ) (up to a constant) of the prior that λ stands for. Default: no prior (0)."""
        return 0.0

    def check_smoothing(self, smoothing, n_features: int):
        """λ for data with V = ``n_features`` features, as this model computes with it.

        Returns a float, or a read-only (V,) array of λ_j when the model has
        ``per_feature_smoothing`` (a constant array comes back as its float, see
        :func:`feature_smoothing`). Raises ValueError for a bad λ, an array of the
        wrong length, or an array given to a model that takes a single λ.
        """
        lam = check_smoothing(smoothing, n_features)
        if isinstance(lam, np.ndarray) and not self.per_feature_smoothing:
            raise ValueError(
                f"The {self.title or self.name or type(self).__name__} model takes a single smoothing "
                f"λ ≥ 0, not one per feature; got an array of {lam.shape[0]} values."
            )
        return feature_smoothing(lam, n_features)

    def check_params(self, params, n_classes: int):
        """Validate parameters given by a user (e.g. to :func:`nbcore.sample`); return them.

        Default: every name in ``param_names`` is there, finite, with K columns."""
        out = {}
        for key in self.param_names:
            out[key] = param_matrix(params, key, self.name, n_classes)
        return out

    def adapt(self, X, kind: str):
        """X whose features are of ``kind`` turned into this model's input (default: X itself)."""
        return X

    def estimate_parts(self, stats: dict):
        """``(counts, totals, lam_den)`` when the estimate is a smoothed ratio of weighted counts:
        ``param_table(params_from(stats, λ)).mat == (λ + counts) / (lam_den[:, None] λ + totals)``
        for a single λ, with counts, totals (R, K) and lam_den (R,). None (the default) for
        other estimates.
        The dashboard's M-step panel fills ``estimate_tex`` in with these numbers."""
        return None

    def describe_row(self, x, feature_names, categories=None) -> str:
        """One document ``x`` (V,) in words, e.g. for drawn samples. Default: ``name=value``
        for every non-zero feature."""
        idx = np.flatnonzero(np.asarray(x) != 0)
        return ", ".join(f"{feature_names[j]}={float(x[j]):.3g}" for j in idx) or "(all zero)"

    def suggested_options(self, X) -> dict:
        """Constructor options that keep EM on data X (N, V) well-behaved when nobody chose them
        (the dashboard's lesson uses these). Default: none."""
        return {}

    def options_note(self, options: dict) -> str | None:
        """A sentence (Markdown) for students on what ``options`` (from :meth:`suggested_options`)
        do and why; None when there is nothing to say (the default)."""
        return None

    def input_note(self, kind: str) -> str | None:
        """What this model does with features of ``kind`` ("binary" or "counts", e.g. the
        text pipeline's presence vs counts) when that is not its own ``input_kind``; None when
        the input is what the model expects (the default says nothing)."""
        return None

    def log_likelihood_by_presence(self, X, params):
        """``(present, absent)``, each (N, K): log p(x_i | k) split into the terms of the
        features present and of the features absent (they sum to it), for models whose
        absent features score (``scores_absent_features``); None for the others (the default)."""
        return None

    def check_chunkable(self, init: str | None = None) -> None:
        """Raise ValueError (saying why) if the model cannot learn from row chunks (nbcore.dask_em)
        starting with ``init`` ("uniform", "random", "labeled"; None = any)."""

    def chunk_layout(self, n_features: int):
        """Layout every chunk must share (e.g. categories per feature), or None."""
        return None

    def squared_distance_all_values(self, params, other) -> float:
        """‖Δθ‖² summed over *every value* of each feature (the course session step 4).

        Same as :meth:`squared_distance` for models whose parameters list every value;
        a binary feature's β stands for two values (β and 1 − β) and counts twice."""
        return self.squared_distance(params, other)

    # -- shared ------------------------------------------------------------
    def evaluate(self, Xp, params, smoothing: float):
        """(log_likelihood (N, K), log_prior) in one go.

        EM needs both for every new θ; models override this to take the logs
        of their parameters once instead of twice.
        """
        return self.log_likelihood(Xp, params), self.log_prior(params, smoothing)

    # -- chunking (nbcore.dask_em) -------------------------------------------
    def log_params(self, params, smoothing: float):
        """θ in the form the E-step multiplies with, and log p(θ): ``(lp, log_prior)``.

        Computed once per θ; :meth:`log_likelihood_from` then applies ``lp`` to
        any number of row chunks, so ``evaluate(Xp, θ, λ)`` is exactly
        ``(log_likelihood_from(Xp, lp), log_prior)``. Default: ``lp`` is θ itself.
        """
        return params, self.log_prior(params, smoothing)

    def log_likelihood_from(self, Xp, lp) -> np.ndarray:
        """log p(x_i | k) (N, K) from the output of :meth:`log_params`."""
        return self.log_likelihood(Xp, lp)

    def combine(self, stats_list):
        """Merge the statistics of row chunks into those of all their rows.

        ``statistics`` are sums over rows for the discrete models, so the
        default adds them, in list order (a fixed order gives bitwise
        reproducible results). Entries that are not numbers (e.g. the
        categorical block layout) must agree and are kept once. Models whose
        statistics are not sums (Gaussian means/variances) override this.
        """
        stats_list = list(stats_list)
        if not stats_list:
            raise ValueError("combine needs the statistics of at least one chunk.")
        def is_sum(value):
            return isinstance(value, (np.ndarray, float, int, np.number)) and not isinstance(value, bool)

        head = stats_list[0]
        for key, first in head.items():  # layouts first: they decide whether the sums fit
            if not is_sum(first):
                for stats in stats_list[1:]:
                    if stats[key] != first:
                        raise ValueError(
                            f"Cannot combine statistics of chunks with different {key!r} "
                            f"({first!r} vs {stats[key]!r})."
                        )
        out = {}
        for key, first in head.items():
            if is_sum(first):
                total = np.array(first, dtype=np.float64, copy=True)
                for stats in stats_list[1:]:
                    total += stats[key]
                out[key] = total if total.ndim else float(total)
            else:
                out[key] = first
        return out

    def squared_distance(self, params, other) -> float:
        """Σ (θ − θ')² over all parameters (without building flat copies)."""
        total = 0.0
        for key in self.param_names:
            a, b = params[key], other[key]
            pairs = zip(a, b) if isinstance(a, tuple) else [(a, b)]
            for u, v in pairs:
                for start in range(0, len(u), 4096):  # in blocks: no full-size temporary
                    d = np.subtract(u[start:start + 4096], v[start:start + 4096])
                    np.multiply(d, d, out=d)
                    total += float(d.sum())
        return total

    def __repr__(self):
        return f"{type(self).__name__}()"

    @staticmethod
    def check_n_features(X, n_features: int) -> None:
        if X.shape[1] != n_features:
            raise ValueError(
                f"X has {X.shape[1]} features but the model was fitted on {n_features}. "
                "Transform new documents with the same vocabulary as the training data."
            )

    @staticmethod
    def weighted_counts(Xp, weights: np.ndarray) -> np.ndarray:
        """Σ_i X[i, j] · weights[i, k] for every j, k: shape (V, K).

        This is the numerator of eq. (24) without λ; with one-hot weights it is
        the count in eq. (13).
        """
        if sp.issparse(Xp):
            return matmul(Xp.T, weights)
        return Xp.T @ weights


def param_matrix(params, key: str, model: str, n_classes: int) -> np.ndarray:
    """``params[key]`` as a finite float (V, K) array, or a ValueError saying what is wrong."""
    if not isinstance(params, Mapping):
        raise ValueError(f"params must be a dict, e.g. {{'{key}': ...}}.")
    if key not in params:
        raise ValueError(f"sample('{model}', ...) needs params['{key}'] "
                         f"(got keys: {sorted(params)}).")
    a = np.asarray(params[key], dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != n_classes:
        raise ValueError(f"params['{key}'] must have shape (V, K) = (V, {n_classes}); got {a.shape}.")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"params['{key}'] contains NaN or infinity.")
    return a


def check_columns_sum_to_one(a: np.ndarray, what: str) -> None:
    if np.any(a < 0) or not np.allclose(a.sum(axis=0), 1.0, atol=1e-6):
        raise ValueError(f"{what} must be non-negative and each column (class) must sum to 1; "
                         f"column sums are {np.round(a.sum(axis=0), 6).tolist()}.")
