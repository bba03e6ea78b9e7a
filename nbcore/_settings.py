"""What a run reads of its settings: the fields of :class:`nbcore.EM`, as a protocol.

The runs (:mod:`nbcore.run`, :mod:`nbcore.dask_em`) are made by ``EM.start`` and keep the settings
they were made with; they name the settings' type through this protocol, so neither imports
:mod:`nbcore.em` (which imports them) and nbcore's imports have no cycle.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol

__all__ = ["EMSettings"]


class EMSettings(Protocol):
    """The settings of one EM run (read only); :class:`nbcore.EM` is the one implementation.

    Attributes
    ----------
    model : str or EventModel
    n_classes : int, K ≥ 2
    smoothing : float, λ ≥ 0
    init : {"uniform", "random", "labeled"}
    unlabeled_weight : float in [0, 1]
    max_iter : int
    tol : float
    theta_tol : float or None
    n_init : int
    random_state : int, Generator or None
    model_options : mapping of str to value
    keep_resp : int or None
    theta_norm : {"parameters", "both_values"}
    components_per_class : int, m ≥ 1
    """

    model: Any
    n_classes: int
    smoothing: float
    init: str
    unlabeled_weight: float
    max_iter: int
    tol: float
    theta_tol: float | None
    n_init: int
    random_state: Any
    model_options: Mapping[str, Any]
    keep_resp: int | None
    theta_norm: str
    components_per_class: int

    def _fit_runs(self, new_run: Callable[[Any], Any], callback=None) -> Any:
        """The restarts of ``EM.fit``: ``new_run(random_state)`` makes one run; the best is returned."""
        ...
