"""nbcore: Naive Bayes + EM, one iteration at a time.

A small numpy/scipy engine for teaching Naive Bayes and the EM algorithm.
The notation follows the course notes (the notes): α is the class prior (K,),
β[j, k] = p(word j present | class k) has shape (V, K), λ is the smoothing
(``smoothing`` in code).

>>> import nbcore
>>> run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0).start(X, y)  # doctest: +SKIP
>>> snap = run.step()                                                          # doctest: +SKIP

``import nbcore`` never imports streamlit.
"""

__version__ = "0.1.0"

from ._csv import strip_bidi
from ._validation import ImpossibleDocumentWarning
from .align import align_clusters, aligned_accuracy, confusion
from .data import DataError, Dataset, hide_labels, list_datasets, load_dataset, read_csv, sample
from .em import (
    EM,
    EMRun,
    Snapshot,
    class_prior,
    log_joint,
    m_step,
    normalize_log,
    observed_log_likelihood,
    predict_proba,
    responsibilities,
    supervised_fit,
)
from .experiments import Explanation, explain, hidden_accuracy, label_budget_curve, restarts, smoothing_sweep
from .models import MODELS, get_model

__all__ = [
    "EM",
    "EMRun",
    "Snapshot",
    "class_prior",
    "log_joint",
    "m_step",
    "normalize_log",
    "observed_log_likelihood",
    "predict_proba",
    "responsibilities",
    "supervised_fit",
    "align_clusters",
    "aligned_accuracy",
    "confusion",
    "BernoulliNB",
    "MultinomialNB",
    "CategoricalNB",
    "GaussianNB",
    "SemiSupervisedNB",
    "Explanation",
    "explain",
    "hidden_accuracy",
    "label_budget_curve",
    "restarts",
    "smoothing_sweep",
    "MODELS",
    "get_model",
    "ImpossibleDocumentWarning",
    "DataError",
    "Dataset",
    "hide_labels",
    "list_datasets",
    "load_dataset",
    "read_csv",
    "sample",
    "strip_bidi",
]

_ESTIMATORS = ("BernoulliNB", "MultinomialNB", "CategoricalNB", "GaussianNB", "SemiSupervisedNB")
#: the lesson as one offline file and in a notebook live in the lesson core (nblab), which nbcore never imports
_MOVED = {"export_lesson": "nblab.export_lesson(run, ds, 'lesson.html')", "show": "nblab.show(run, ds)"}


def __getattr__(name):
    # The scikit-learn-style estimators import scikit-learn (~1 s); load them on
    # first use so that ``import nbcore`` needs only numpy and scipy.
    if name in _ESTIMATORS:
        from . import estimators

        return getattr(estimators, name)
    if name in _MOVED:
        raise AttributeError(f"nbcore.{name} has moved to the lesson core: use {_MOVED[name]} "
                             f"(import nblab; it ships with nbcore)")
    raise AttributeError(f"module 'nbcore' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_ESTIMATORS))
