"""Event models p(x | y): one module each, one shared protocol (see ``_base``)."""

from ._base import EventModel
from .bernoulli import BernoulliModel
from .categorical import CategoricalModel
from .gaussian import GaussianModel
from .multinomial import MultinomialModel

MODELS = {
    "bernoulli": BernoulliModel,
    "multinomial": MultinomialModel,
    "categorical": CategoricalModel,
    "gaussian": GaussianModel,
}

__all__ = ["EventModel", "BernoulliModel", "MultinomialModel", "CategoricalModel", "GaussianModel", "MODELS", "get_model"]


def get_model(name, **options) -> EventModel:
    """Return an event-model instance by name (or pass an instance through)."""
    if isinstance(name, EventModel):
        return name
    try:
        cls = MODELS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"Unknown event model {name!r}; choose one of {', '.join(MODELS)}."
        ) from None
    return cls(**options)
