"""scikit-learn-style estimators over the event models and EM.

Supervised: :class:`BernoulliNB`, :class:`MultinomialNB`, :class:`CategoricalNB`,
:class:`GaussianNB` — each is one M-step with hard 0/1 weights (the notes
eq. 12-14). Semi- and unsupervised: :class:`SemiSupervisedNB` — the same
M-step inside EM with soft weights (eq. 21-24). ``-1`` (or NaN) marks an
unlabelled row, scikit-learn's convention in ``sklearn.semi_supervised``.

They follow scikit-learn's estimator contract (``__init__`` only stores
parameters, fitted attributes end in ``_``), pass ``check_estimator`` and
scikit-learn's own Naive Bayes tests, with one rename: the smoothing that
scikit-learn calls ``alpha`` is ``smoothing`` here (λ in the notes), because α
is the class prior in the notes. ``BernoulliNB(smoothing=λ)`` is
``sklearn.naive_bayes.BernoulliNB(alpha=λ)``; ``force_smoothing`` is
``force_alpha``. As scikit-learn's ``alpha``, ``smoothing`` of the discrete models
may also be an array of length V: one pseudo-count λ_j per feature. The fitted attributes have scikit-learn's names and shapes
(``feature_log_prob_`` (K, V), ``class_log_prior_``, ``class_count_``,
``feature_count_``/``category_count_``, Gaussian ``theta_`` and ``var_`` (K, V));
``beta_`` (V, K) and ``class_prior_`` (α) are the notes' layout.

``partial_fit`` adds each batch's sufficient statistics to the previous ones with
the event model's ``combine`` hook, then re-derives the parameters: the same code
path as chunked EM.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import binarize as _binarize
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    check_non_negative,
    column_or_1d,
    validate_data,
)

from ._validation import check_smoothing, warn_impossible
from .em import EM, normalize_log, one_hot_labels
from .models import get_model
from .models._base import safe_log

__all__ = ["BernoulliNB", "MultinomialNB", "CategoricalNB", "GaussianNB", "SemiSupervisedNB"]

#: smallest λ used when ``force_smoothing=False`` (scikit-learn's ``_ALPHA_MIN``)
SMOOTHING_MIN = 1e-10


class _NaiveBayesBase(ClassifierMixin, BaseEstimator):
    """Shared input checks and predict/score over ``self.model_`` (an EventModel),
    ``self.params_`` and ``self.class_log_prior_``."""

    def _event_model(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _declared_model(self):
        """The event model before fitting (None if the settings name none: fit explains)."""
        try:
            return self._event_model()
        except (ValueError, TypeError):
            return None

    def _prepare_X(self, X, reset: bool):
        m = self._declared_model()
        sparse = "csr" if m is None or m.accepts_sparse else False
        dtype = np.float64 if m is None else m.input_dtype
        X = validate_data(self, X, accept_sparse=sparse, dtype=dtype, reset=reset)
        return self._transform(self._check_input(X, m))

    def _check_input(self, X, m):
        if m is not None and m.positive_only:
            try:
                check_non_negative(X, f"{type(self).__name__} (input X)")
            except ValueError as e:
                hint = {"categories": " Categories must be coded 0, 1, ..., D−1 (e.g. with "
                                      "sklearn.preprocessing.OrdinalEncoder).",
                        "counts": " The model needs counts (0, 1, 2, ...)."}.get(m.input_kind, "")
                raise ValueError(f"{e}.{hint}") from None
        return X

    def _transform(self, X):
        return X

    # -- prediction (eq. 8-11) ----------------------------------------------
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log p(x, y = k) = log p(x | k) + log α_k for each row, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        X = self._prepare_X(X, reset=False)
        Xp = self.model_.prepare(X, self.params_)
        return self.model_.log_likelihood(Xp, self.params_) + self.class_log_prior_

    def predict_log_proba(self, X) -> np.ndarray:
        """log p(y = k | x) for each row, shape (n_samples, n_classes).

        A row impossible under every class (possible with λ = 0) gets the uniform
        posterior and an ImpossibleDocumentWarning, never NaN."""
        joint = self.predict_joint_log_proba(X)
        posterior, log_marginal, impossible = normalize_log(joint.copy())
        out = np.empty_like(joint)
        ok = ~impossible
        with np.errstate(invalid="ignore"):
            out[ok] = joint[ok] - log_marginal[ok, None]
        if impossible.any():
            out[impossible] = safe_log(posterior[impossible])
            warn_impossible(int(impossible.sum()), int(np.flatnonzero(impossible)[0]))
        return out

    def predict_proba(self, X) -> np.ndarray:
        """p(y = k | x) for each row, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row (in ``classes_``)."""
        joint = self.predict_joint_log_proba(X)
        return self.classes_[np.argmax(joint, axis=1)]

    @property
    def class_prior_(self):
        """(K,) α: the class prior used for prediction."""
        check_is_fitted(self)
        with np.errstate(under="ignore"):
            return np.exp(self.class_log_prior_)


class _SupervisedNB(_NaiveBayesBase):
    """fit / partial_fit over the model's sufficient statistics (``combine`` merges batches)."""

    def fit(self, X, y, sample_weight=None):
        """Count (weighted) co-occurrences and normalise: eq. (12)-(14).

        Parameters
        ----------
        X : (n_samples, n_features)
        y : (n_samples,) labels of any type; every value is a class
        sample_weight : (n_samples,) optional
        """
        X, y = validate_data(self, X, y, reset=True, **self._input_options())
        X = self._check_input(X, self._event_model())  # bad input: the previous fit stays
        check_classification_targets(y)
        self.__dict__.pop("stats_", None)
        self.classes_ = unique_labels(y)
        return self._learn(X, y, sample_weight, first=True)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add one batch: its statistics are combined with the previous batches'.

        Parameters
        ----------
        X : (n_samples, n_features)
        y : (n_samples,)
        classes : array-like of every class, required on the first call
        sample_weight : (n_samples,) optional
        """
        first = getattr(self, "classes_", None) is None
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            self.classes_ = unique_labels(classes)
        elif classes is not None:
            if not np.array_equal(self.classes_, unique_labels(classes)):
                raise ValueError(f"`classes={classes!r}` is not the same as on last call to partial_fit, "
                                 f"was: {self.classes_!r}")
        X, y = validate_data(self, X, y, reset=first, **self._input_options())
        check_classification_targets(y)
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(f"The target label(s) {unknown} in y do not exist in the initial classes "
                             f"{self.classes_}")
        return self._learn(X, y, sample_weight, first=first or not hasattr(self, "stats_"))

    def _input_options(self):
        m = self._event_model()
        return {"accept_sparse": "csr" if m.accepts_sparse else False, "dtype": m.input_dtype}

    def _learn(self, X, y, sample_weight, first: bool):
        model = self._event_model()
        X = self._transform(self._check_input(X, model))
        codes = np.searchsorted(self.classes_, y)
        weights = one_hot_labels(codes, len(self.classes_))
        if sample_weight is not None:
            weights *= _check_sample_weight(sample_weight, X)[:, None]
        Xp, model = self._prepare_batch(model, X, first)
        stats = model.statistics(Xp, weights)
        if not first:
            stats = model.combine([self._stats_for(model, self.stats_), stats])
        params = model.params_from(stats, self._smoothing())  # a bad λ (array) raises before anything changes
        self.model_ = model
        self.stats_ = stats
        self.class_count_ = np.asarray(stats["class_weight"], dtype=np.float64)
        self.class_log_prior_ = self._class_log_prior()
        self.params_ = params
        return self

    def _prepare_batch(self, model, X, first):
        return model.prepare(X), model

    def _stats_for(self, model, stats):
        return stats

    def _class_log_prior(self) -> np.ndarray:
        n_classes = len(self.classes_)
        prior = getattr(self, "class_prior", None)
        if prior is not None:
            prior = np.asarray(prior, dtype=np.float64)
            if prior.shape != (n_classes,):
                raise ValueError("Number of priors must match number of classes.")
            with np.errstate(divide="ignore"):
                return np.log(prior)
        if getattr(self, "fit_prior", True):
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.log(self.class_count_) - np.log(self.class_count_.sum())
        return np.full(n_classes, -np.log(n_classes))

    def _smoothing(self):
        """λ for the M-step: a float, or a (V,) array of λ_j (its length is checked by the
        event model against the features). With ``force_smoothing=False`` every λ (λ_j)
        below 1e-10 is raised to 1e-10, with a warning, as scikit-learn does."""
        value = check_smoothing(self.smoothing)
        if np.min(value) < SMOOTHING_MIN and not self.force_smoothing:
            shown = f"{value:g}" if np.ndim(value) == 0 else f"{float(np.min(value)):g} (smallest λ_j)"
            warnings.warn(
                f"smoothing λ = {shown} (scikit-learn's alpha): alpha too small will result in numeric errors, "
                f"setting alpha = {SMOOTHING_MIN:.1e}. Pass force_smoothing=True to keep λ = 0 "
                "(plain maximum likelihood).", UserWarning)
            return np.maximum(value, SMOOTHING_MIN) if np.ndim(value) else SMOOTHING_MIN
        return value

    def _fitted(self, name):
        check_is_fitted(self)
        return self.params_[name]


class _DiscreteNB(_SupervisedNB):
    """Shared parameters of the discrete models: λ, force_smoothing, fit_prior, class_prior."""

    def __init__(self, smoothing=1.0, force_smoothing=True, fit_prior=True, class_prior=None):
        self.smoothing = smoothing
        self.force_smoothing = force_smoothing
        self.fit_prior = fit_prior
        self.class_prior = class_prior


class _WordNB(_DiscreteNB):
    """Bernoulli and multinomial: one β table (V, K), sparse input welcome."""

    _model_name = ""

    def _event_model(self):
        return get_model(self._model_name)

    @property
    def beta_(self):
        """(V, K) β: p(word j | class k), the notes' layout (``exp(feature_log_prob_).T``)."""
        return self._fitted("beta")

    @property
    def feature_log_prob_(self):
        """(K, V) log p(word j | class k), scikit-learn's layout."""
        with np.errstate(divide="ignore"):
            return np.log(self.beta_).T

    @property
    def feature_count_(self):
        """(K, V) weighted number of documents (Bernoulli) or tokens (multinomial) per class and word."""
        check_is_fitted(self)
        return np.asarray(self.stats_["counts"]).T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True
        return tags


class BernoulliNB(_WordNB):
    """Bernoulli Naive Bayes (the notes): β_jk = (λ + count_jk) / (2λ + N_k).

    Parameters
    ----------
    smoothing : float or (V,) array-like, default 1.0
        λ (0 = maximum likelihood, eq. 13); scikit-learn's ``alpha``. An array gives
        feature j its own λ_j: β_jk = (λ_j + count_jk) / (2λ_j + N_k).
    force_smoothing : bool, default True
        Keep λ even below 1e-10 (False: raise it (each λ_j) to 1e-10 with a warning, like
        scikit-learn's ``force_alpha=False``).
    binarize : float or None, default 0.0
        Threshold turning X into word-present indicators (x > binarize).
        None: X must already be 0/1.
    fit_prior : bool, default True
        Learn α from the class counts; False: uniform α.
    class_prior : (K,) array-like or None
        A fixed α (overrides ``fit_prior``).

    Attributes
    ----------
    classes_ : (K,) ; class_count_ : (K,) ; class_log_prior_ : (K,) log α ;
    class_prior_ : (K,) α ; feature_count_ : (K, V) ; feature_log_prob_ : (K, V) log β ;
    beta_ : (V, K) β ; n_features_in_ : int
    """

    _model_name = "bernoulli"

    def __init__(self, smoothing=1.0, force_smoothing=True, binarize=0.0, fit_prior=True, class_prior=None):
        super().__init__(smoothing=smoothing, force_smoothing=force_smoothing, fit_prior=fit_prior,
                         class_prior=class_prior)
        self.binarize = binarize

    def _transform(self, X):
        return X if self.binarize is None else _binarize(X, threshold=self.binarize)


class MultinomialNB(_WordNB):
    """Multinomial Naive Bayes (the notebook): β_jk = (λ + count_jk) / (λV + total_k).

    Parameters: ``smoothing`` (scikit-learn's ``alpha``), ``force_smoothing``,
    ``fit_prior``, ``class_prior`` as for :class:`BernoulliNB`. With an array of λ_j
    (length V), β_jk = (λ_j + count_jk) / (Σ_j' λ_j' + total_k), scikit-learn's
    (fc + alpha) / (fc.sum(1) + alpha.sum()).

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, class_prior_ (α), feature_count_ (K, V),
    feature_log_prob_ (K, V), beta_ (V, K), n_features_in_
    """

    _model_name = "multinomial"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


class CategoricalNB(_DiscreteNB):
    """Categorical Naive Bayes (the lecture): θ_j[d, k] = (λ + count) / (λ D_j + N_k).

    X holds category codes 0..D_j−1 per column.

    Parameters
    ----------
    smoothing, force_smoothing, fit_prior, class_prior : as for :class:`BernoulliNB`
        (an array of λ_j, length V: θ_j[d, k] = (λ_j + count) / (λ_j D_j + N_k))
    min_categories : int, (V,) array-like or None
        At least this many categories per feature (D_j = max(this, largest code + 1)),
        for categories that may be missing from the training data.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, class_prior_ (α),
    category_count_ (list of (K, D_j)), feature_log_prob_ (list of (K, D_j)),
    theta_ (tuple of (D_j, K), the notes' layout), n_categories_ (V,), n_features_in_
    """

    def __init__(self, smoothing=1.0, force_smoothing=True, fit_prior=True, class_prior=None, min_categories=None):
        super().__init__(smoothing=smoothing, force_smoothing=force_smoothing, fit_prior=fit_prior,
                         class_prior=class_prior)
        self.min_categories = min_categories

    def _event_model(self):
        return get_model("categorical")

    def _min_categories(self, n_features: int) -> np.ndarray:
        if self.min_categories is None:
            return np.zeros(n_features, dtype=np.int64)
        m = np.asarray(self.min_categories)
        if m.ndim == 0:
            if not np.issubdtype(m.dtype, np.integer):
                raise ValueError(f"'min_categories' should have integral type. Got {m.dtype} instead.")
            return np.full(n_features, int(m))
        if m.shape != (n_features,):
            raise ValueError(f"'min_categories' should have shape ({n_features},) when an array-like is "
                             f"provided. Got {m.shape} instead.")
        if not np.issubdtype(m.dtype, np.integer):
            raise ValueError(f"'min_categories' should have integral type. Got {m.dtype} instead.")
        return m.astype(np.int64)

    def _prepare_batch(self, model, X, first):
        """Categories per feature: the largest code seen so far + 1 (at least min_categories);
        a later batch with a new category widens the table."""
        seen = (X.max(axis=0) + 1) if X.shape[0] else np.zeros(X.shape[1], dtype=np.int64)
        n_cat = np.maximum(seen, self._min_categories(X.shape[1]))
        if not first:
            n_cat = np.maximum(n_cat, self.stats_["n_categories"])
        model = get_model("categorical", n_categories=[int(d) for d in n_cat])
        return model.prepare(X), model

    def _stats_for(self, model, stats):
        """Earlier statistics widened to ``model``'s categories (new categories count 0)."""
        new = tuple(int(d) for d in model.n_categories)
        old = tuple(stats["n_categories"])
        if old == new:
            return stats
        blocks, start = [], 0
        for d_old, d_new in zip(old, new):
            block = stats["counts"][start:start + d_old]
            start += d_old
            blocks.append(np.vstack([block, np.zeros((d_new - d_old, block.shape[1]))]))
        return {**stats, "counts": np.vstack(blocks), "n_categories": new}

    @property
    def theta_(self):
        """tuple of (D_j, K): θ_j[d, k] = p(x_j = d | class k), the notes' layout."""
        return self._fitted("theta")

    @property
    def n_categories_(self):
        """(V,) number of categories D_j of each feature."""
        return np.array([t.shape[0] for t in self.theta_])

    @property
    def feature_log_prob_(self):
        """list of (K, D_j): log θ_j, scikit-learn's layout."""
        with np.errstate(divide="ignore"):
            return [np.log(t).T for t in self.theta_]

    @property
    def category_count_(self):
        """list of (K, D_j): weighted count of each category per class."""
        check_is_fitted(self)
        out, start = [], 0
        for d in self.stats_["n_categories"]:
            out.append(np.asarray(self.stats_["counts"][start:start + d]).T)
            start += d
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.sparse = False
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True
        return tags


class GaussianNB(_SupervisedNB):
    """Gaussian Naive Bayes (the lecture/003): per-class means and variances.

    Parameters
    ----------
    priors : (K,) array-like or None
        Fixed class prior α (non-negative, summing to 1); None: from the class counts.
    var_smoothing : float, default 1e-9
        Adds var_smoothing × the largest feature variance to every σ²
        (scikit-learn's rule).
    variance : {"mle", "unbiased"}, default "mle"
        σ² = M2/N_k (biased MLE, scikit-learn's) or M2/(N_k − 1) (unbiased, the lecture).
    var_floor : float, default 0.0
        Hard lower bound on every σ².

    Attributes
    ----------
    classes_, class_count_ (K,), class_prior_ (α), class_log_prior_,
    theta_ (K, V) means, var_ (K, V) variances (scikit-learn's shapes), n_features_in_
    """

    def __init__(self, priors=None, var_smoothing=1e-9, variance="mle", var_floor=0.0):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.variance = variance
        self.var_floor = var_floor

    def _smoothing(self) -> float:
        return 0.0

    def _input_options(self):
        """float32 input is accepted and the fitted attributes keep its dtype (computed in float64)."""
        return {"accept_sparse": False, "dtype": [np.float64, np.float32]}

    def _learn(self, X, y, sample_weight, first: bool):
        self._out_dtype = X.dtype
        return super()._learn(np.asarray(X, dtype=np.float64), y, sample_weight, first)

    def _out(self, a) -> np.ndarray:
        return np.asarray(a).astype(getattr(self, "_out_dtype", np.float64), copy=False)

    def _event_model(self):
        return get_model("gaussian", variance=self.variance, var_smoothing=self.var_smoothing, var_floor=self.var_floor)

    def _class_log_prior(self) -> np.ndarray:
        if self.priors is None:
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.log(self.class_count_) - np.log(self.class_count_.sum())
        priors = np.asarray(self.priors, dtype=np.float64)
        if priors.shape != (len(self.classes_),):
            raise ValueError("Number of priors must match number of classes.")
        if not np.isclose(priors.sum(), 1.0):
            raise ValueError("The sum of the priors should be 1.")
        if (priors < 0).any():
            raise ValueError("Priors must be non-negative.")
        with np.errstate(divide="ignore"):
            return np.log(priors)

    @property
    def class_prior_(self):
        """(K,) α: the priors given, or the class frequencies."""
        check_is_fitted(self)
        if self.priors is not None:
            return self._out(self.priors)
        return self._out(self.class_count_ / self.class_count_.sum())

    @property
    def theta_(self):
        """(K, V) mean of each feature per class (scikit-learn's layout)."""
        return self._out(self._fitted("mean")).T

    @property
    def var_(self):
        """(K, V) variance of each feature per class (scikit-learn's layout)."""
        return self._out(self._fitted("var")).T


class SemiSupervisedNB(_NaiveBayesBase):
    """Naive Bayes trained by EM on partly (or un-) labelled data.

    ``y = -1`` (or NaN in a float array) marks an unlabelled row.

    Parameters
    ----------
    model : str or EventModel, default "bernoulli"
        A registered event model ("bernoulli", "multinomial", "categorical",
        "gaussian", or one added with ``nbcore.models.register_model``).
    smoothing : float or (V,) array-like, default 1.0
        λ (scikit-learn's alpha); an array gives each feature its own λ_j (discrete models
        only: the Gaussian model refuses one).
    init : {"labeled", "uniform", "random"}, default "labeled"
    max_iter : int, default 100
    tol : float, default 1e-6  (relative change of the objective)
    unlabeled_weight : float in [0, 1], default 1.0
    n_init : int, default 1  (restarts; the best objective wins)
    random_state : int or None
    n_classes : int or None
        Needed only when no row is labelled (fully unsupervised); classes_
        are then 0..K−1.
    binarize : float or None, default 0.0
        For a binary model (Bernoulli): threshold turning X into 0/1.

    Attributes
    ----------
    classes_, class_prior_ (α), class_log_prior_, params_, model_ (the EventModel),
    history_ (list of EM snapshots), n_iter_, converged_, n_features_in_
    """

    def __init__(
        self,
        model="bernoulli",
        smoothing=1.0,
        init="labeled",
        max_iter=100,
        tol=1e-6,
        unlabeled_weight=1.0,
        n_init=1,
        random_state=None,
        n_classes=None,
        binarize=0.0,
    ):
        self.model = model
        self.smoothing = smoothing
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.unlabeled_weight = unlabeled_weight
        self.n_init = n_init
        self.random_state = random_state
        self.n_classes = n_classes
        self.binarize = binarize

    def _transform(self, X):
        m = self._declared_model()
        if m is not None and m.input_kind == "binary" and self.binarize is not None:
            return _binarize(X, threshold=self.binarize)
        return X

    def _event_model(self):
        return get_model(self.model)

    @staticmethod
    def _split_labels(y):
        """Return (labels array with None for hidden, hidden mask)."""
        y = column_or_1d(np.asarray(y, dtype=object) if np.asarray(y).dtype.kind in "OUS" else np.asarray(y), warn=True)
        if y.dtype.kind == "f":
            hidden = np.isnan(y) | (y == -1)
        elif y.dtype.kind in "iub":
            hidden = y == -1
        else:
            hidden = np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in y])
        return y, hidden

    def fit(self, X, y):
        """Run EM (``n_init`` starts) on X with the labels in y (−1/NaN = hidden)."""
        X = self._prepare_X(X, reset=True)
        y, hidden = self._split_labels(y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels.")
        known = y[~hidden]
        known_classes = np.unique(known)
        if known.size:
            check_classification_targets(known)
            self.classes_ = known_classes
        elif self.n_classes is not None:
            self.classes_ = np.arange(self.n_classes)
        else:
            raise ValueError(
                "Every label is hidden: pass n_classes=K to cluster without labels "
                "(fully unsupervised EM)."
            )
        n_classes = max(len(self.classes_), int(self.n_classes or 0))
        if n_classes < 2:
            raise ValueError(
                f"Only one class ({self.classes_[0]!r}) among the labelled rows: EM needs "
                "at least two classes (label a row of another class or pass n_classes)."
            )
        if n_classes > len(self.classes_):
            self.classes_ = np.concatenate([self.classes_, np.arange(len(self.classes_), n_classes)])
        codes = np.full(y.shape[0], -1, dtype=np.int64)
        codes[~hidden] = np.searchsorted(known_classes, known)
        em = EM(
            model=self.model,
            n_classes=n_classes,
            smoothing=self.smoothing,
            init=self.init,
            unlabeled_weight=self.unlabeled_weight,
            max_iter=self.max_iter,
            tol=self.tol,
            n_init=self.n_init,
            random_state=self.random_state,
        )
        run = em.fit(X if not sp.issparse(X) else X.tocsr(), codes)
        self.model_ = run.model
        self.history_ = run.history
        snap = run.current
        self.class_log_prior_, self.params_ = safe_log(np.asarray(snap.alpha)), snap.params
        self.n_iter_ = snap.iteration
        self.converged_ = run.converged
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        m = self._declared_model()
        tags.input_tags.sparse = m is None or m.accepts_sparse
        tags.input_tags.positive_only = m is not None and m.positive_only
        tags.classifier_tags.poor_score = True
        return tags
