"""nbcore: Naive Bayes + EM, one iteration at a time.

A small numpy/scipy engine for teaching Naive Bayes and the EM algorithm.
The notation follows the course notes: alpha is the class prior (K,),
beta[j, k] = p(word j present | class k) has shape (V, K), lambda is the
smoothing (called ``smoothing`` in code).

``import nbcore`` never imports streamlit.
"""

__version__ = "0.1.0"

from .data import (  # noqa: E402
    Dataset,
    hide_labels,
    list_datasets,
    load_dataset,
    read_csv,
    sample,
)

__all__ = [
    "Dataset",
    "hide_labels",
    "list_datasets",
    "load_dataset",
    "read_csv",
    "sample",
]
