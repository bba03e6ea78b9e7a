"""scikit-learn-style estimators over the event models and EM.

Supervised: :class:`BernoulliNB`, :class:`MultinomialNB`, :class:`CategoricalNB`,
:class:`GaussianNB` — each is one M-step with hard 0/1 weights (seed 000
eq. 12-14). Semi- and unsupervised: :class:`SemiSupervisedNB` — the same
M-step inside EM with soft weights (eq. 21-24). ``-1`` (or NaN) marks an
unlabelled row, scikit-learn's convention in ``sklearn.semi_supervised``.

They follow scikit-learn's estimator contract (``__init__`` only stores
parameters, fitted attributes end in ``_``) and pass ``check_estimator``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import binarize as _binarize
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .em import EM, log_joint, m_step, one_hot_labels
from .models import get_model
from ._validation import check_smoothing

__all__ = ["BernoulliNB", "MultinomialNB", "CategoricalNB", "GaussianNB", "SemiSupervisedNB"]


class _NaiveBayesBase(ClassifierMixin, BaseEstimator):
    """Shared predict/score over ``self.model_`` (an EventModel) and its fitted params."""

    _accept_sparse = "csr"
    _dtype = np.float64

    def _prepare_X(self, X, reset: bool):
        X = validate_data(self, X, accept_sparse=self._accept_sparse, dtype=self._dtype, reset=reset)
        return self._transform(X)

    def _transform(self, X):
        return X

    def _event_model(self):  # pragma: no cover - abstract
        raise NotImplementedError

    # -- prediction (eq. 8-11) ----------------------------------------------
    def _joint_log_likelihood(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = self._prepare_X(X, reset=False)
        Xp = self.model_.prepare(X, self.params_)
        return log_joint(self.model_.log_likelihood(Xp, self.params_), self.class_prior_)

    def predict_log_proba(self, X) -> np.ndarray:
        """log p(y = k | x) for each row, shape (n_samples, n_classes)."""
        joint = self._joint_log_likelihood(X)
        with np.errstate(invalid="ignore"):
            norm = logsumexp(joint, axis=1, keepdims=True)
        out = joint - norm
        impossible = ~np.isfinite(norm[:, 0])
        if impossible.any():  # p(x) = 0 under every class (λ = 0): uniform, never NaN
            out[impossible] = -np.log(joint.shape[1])
        return out

    def predict_proba(self, X) -> np.ndarray:
        """p(y = k | x) for each row, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row (in ``classes_``)."""
        joint = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(joint, axis=1)]


class _SupervisedNB(_NaiveBayesBase):
    def fit(self, X, y, sample_weight=None):
        """Count (weighted) co-occurrences and normalise: eq. (12)-(14).

        Parameters
        ----------
        X : (n_samples, n_features)
        y : (n_samples,) labels of any type; every value is a class
        sample_weight : (n_samples,) optional
        """
        X, y = validate_data(self, X, y, accept_sparse=self._accept_sparse, dtype=self._dtype, reset=True)
        X = self._transform(X)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        weights = one_hot_labels(codes, len(self.classes_))
        if sample_weight is not None:
            from sklearn.utils.validation import _check_sample_weight

            weights *= _check_sample_weight(sample_weight, X)[:, None]
        self.model_ = self._event_model()
        Xp = self.model_.prepare(X)
        self.class_prior_, self.params_ = m_step(self.model_, Xp, weights, self._smoothing())
        return self

    def _smoothing(self) -> float:
        return check_smoothing(self.smoothing)

    def _fitted(self, name):
        check_is_fitted(self)
        return self.params_[name]


class _WordNB(_SupervisedNB):
    """Bernoulli and multinomial: one β table (V, K), sparse input welcome."""

    _model_name = ""

    def _event_model(self):
        return get_model(self._model_name)

    @property
    def beta_(self):
        """(V, K) β: p(word j | class k)."""
        return self._fitted("beta")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True
        return tags


class BernoulliNB(_WordNB):
    """Bernoulli Naive Bayes (seed 000): β_jk = (λ + count_jk) / (2λ + N_k).

    Parameters
    ----------
    smoothing : float, default 1.0
        λ (0 = maximum likelihood, eq. 13).
    binarize : float or None, default 0.0
        Threshold turning X into word-present indicators (x > binarize).
        None: X must already be 0/1.

    Attributes
    ----------
    classes_ : (K,) ; class_prior_ : (K,) α ; beta_ : (V, K) ; n_features_in_ : int
    """

    def __init__(self, smoothing=1.0, binarize=0.0):
        self.smoothing = smoothing
        self.binarize = binarize

    _model_name = "bernoulli"

    def _transform(self, X):
        return X if self.binarize is None else _binarize(X, threshold=self.binarize)


class MultinomialNB(_WordNB):
    """Multinomial Naive Bayes (seed 004): β_jk = (λ + count_jk) / (λV + total_k).

    Attributes
    ----------
    classes_, class_prior_ (α), beta_ (V, K), n_features_in_
    """

    _model_name = "multinomial"

    def __init__(self, smoothing=1.0):
        self.smoothing = smoothing

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


class CategoricalNB(_SupervisedNB):
    """Categorical Naive Bayes (seed 002): θ_j[d, k] = (λ + count) / (λ D_j + N_k).

    X holds category codes 0..D_j−1 per column.

    Attributes
    ----------
    classes_, class_prior_ (α), theta_ (tuple of (D_j, K)), n_categories_ (V,), n_features_in_
    """

    _accept_sparse = False
    _dtype = "int"

    def __init__(self, smoothing=1.0):
        self.smoothing = smoothing

    def _transform(self, X):
        if X.size and X.min() < 0:
            raise ValueError(
                "Negative values in data passed to CategoricalNB: categories must be coded "
                "0, 1, ..., D−1."
            )
        return X

    def _event_model(self):
        return get_model("categorical")

    @property
    def theta_(self):
        return self._fitted("theta")

    @property
    def n_categories_(self):
        return np.array([t.shape[0] for t in self.theta_])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.sparse = False
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True
        return tags


class GaussianNB(_SupervisedNB):
    """Gaussian Naive Bayes (seed 002/003): per-class means and variances.

    Parameters
    ----------
    variance : {"mle", "unbiased"}, default "mle"
        σ² = M2/N_k (biased MLE) or M2/(N_k − 1) (unbiased).
    var_smoothing : float, default 1e-9
        Adds var_smoothing × the largest feature variance to every σ²
        (scikit-learn's rule).
    var_floor : float, default 0.0
        Hard lower bound on every σ².

    Attributes
    ----------
    classes_, class_prior_ (α), mean_ (V, K), var_ (V, K), n_features_in_
    """

    _accept_sparse = False

    def __init__(self, variance="mle", var_smoothing=1e-9, var_floor=0.0):
        self.variance = variance
        self.var_smoothing = var_smoothing
        self.var_floor = var_floor

    def _smoothing(self) -> float:
        return 0.0

    def _event_model(self):
        return get_model("gaussian", variance=self.variance, var_smoothing=self.var_smoothing, var_floor=self.var_floor)

    @property
    def mean_(self):
        return self._fitted("mean")

    @property
    def var_(self):
        return self._fitted("var")


class SemiSupervisedNB(_NaiveBayesBase):
    """Naive Bayes trained by EM on partly (or un-) labelled data.

    ``y = -1`` (or NaN in a float array) marks an unlabelled row.

    Parameters
    ----------
    model : {"bernoulli", "multinomial", "categorical", "gaussian"}, default "bernoulli"
    smoothing : float, default 1.0  (λ)
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
        For model="bernoulli": threshold turning X into 0/1.

    Attributes
    ----------
    classes_, class_prior_ (α), params_, history_ (list of EM snapshots),
    n_iter_, converged_, n_features_in_
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

    @property
    def _accept_sparse(self):
        return False if self.model in ("categorical", "gaussian") else "csr"

    @property
    def _dtype(self):
        return "int" if self.model == "categorical" else np.float64

    def _transform(self, X):
        if self.model == "bernoulli" and self.binarize is not None:
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
        self.class_prior_, self.params_ = snap.alpha, snap.params
        self.n_iter_ = snap.iteration
        self.converged_ = run.converged
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.model not in ("categorical", "gaussian")
        tags.input_tags.positive_only = self.model in ("multinomial", "categorical")
        tags.classifier_tags.poor_score = True
        return tags
