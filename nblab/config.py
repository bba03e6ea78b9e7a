"""The data settings a lesson run is built from (no Streamlit here)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DataConfig:
    """Everything that, when changed, needs a new run from iteration 0."""
    dataset: str
    model: str
    hidden_pct: int
    init: str
    seed: int
    unlabeled_weight: float
    max_iter: int
    tol: float
    text: object = None    # nbcore.text.TextPipeline for text data sets (the text → features settings)
    upload_id: int = 0     # bumped when the session's upload (or its column choice) changes
