"""Label switching: match learned clusters to true labels (Hungarian algorithm)."""

from __future__ import annotations

import numpy as np

__all__ = ["confusion", "align_clusters", "aligned_accuracy"]


def confusion(y_true, y_pred, n_classes: int) -> np.ndarray:
    """(K, K) counts: rows = clusters (predicted), columns = true labels."""
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.asarray(y_pred, dtype=np.int64)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true and y_pred must have the same length ({y_true.shape[0]} vs {y_pred.shape[0]}).")
    out = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(out, (y_pred, y_true), 1)
    return out


def align_clusters(y_true, y_pred, n_classes: int) -> np.ndarray:
    """mapping[cluster] = label maximising agreement (``linear_sum_assignment``).

    EM without labels finds clusters in an arbitrary order ("label switching");
    this finds the one-to-one relabelling that agrees with y_true most.

    Returns
    -------
    (K,) int array; relabel with ``mapping[y_pred]``.
    """
    from scipy.optimize import linear_sum_assignment  # imported here: scipy.optimize takes ~1 s to import

    table = confusion(y_true, y_pred, n_classes)
    clusters, labels = linear_sum_assignment(table, maximize=True)
    mapping = np.empty(n_classes, dtype=np.int64)
    mapping[clusters] = labels
    return mapping


def aligned_accuracy(y_true, y_pred, n_classes: int):
    """(accuracy before matching, accuracy after matching, mapping)."""
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    mapping = align_clusters(y_true, y_pred, n_classes)
    return float(np.mean(y_pred == y_true)), float(np.mean(mapping[y_pred] == y_true)), mapping
