"""Event models p(x | y): one module each, one shared protocol (``_base.EventModel``),
and the registry that maps a name (``EM(model="bernoulli")``) to a model class.

To add an event model: subclass :class:`EventModel`, implement its abstract hooks,
and ``register_model(MyModel)`` (or use it as a class decorator). ``nbcore.EM``,
``supervised_fit``, ``predict_proba``, ``SemiSupervisedNB``, ``nbcore.sample`` and
``nbcore.explain`` then accept its name.
"""

from ._base import EventModel, ParamTable
from .bernoulli import BernoulliModel
from .categorical import CategoricalModel
from .gaussian import GaussianModel
from .multinomial import MultinomialModel

#: name -> EventModel subclass. Change it through register_model / unregister_model.
MODELS: dict = {}

__all__ = ["EventModel", "ParamTable", "BernoulliModel", "MultinomialModel", "CategoricalModel", "GaussianModel",
           "MODELS", "get_model", "model_made_for", "models_for_kind", "register_model", "unregister_model"]


def register_model(cls, name: str | None = None, *, replace: bool = False):
    """Make ``cls`` (an :class:`EventModel` subclass) available under ``name`` (default ``cls.name``).

    Returns ``cls``, so it also works as a class decorator. Registering a taken name
    raises ValueError unless ``replace=True``.
    """
    if not (isinstance(cls, type) and issubclass(cls, EventModel)):
        raise TypeError(f"register_model needs an EventModel subclass, got {cls!r}.")
    name = name or cls.name
    if not isinstance(name, str) or not name:
        raise ValueError("An event model needs a non-empty name (set the class attribute `name`).")
    if name in MODELS and MODELS[name] is not cls and not replace:
        raise ValueError(f"An event model called {name!r} is already registered ({MODELS[name].__name__}); "
                         "pass replace=True to replace it.")
    MODELS[name] = cls
    return cls


def unregister_model(name: str) -> None:
    """Remove ``name`` from the registry (a no-op if it is not there)."""
    MODELS.pop(name, None)


for _cls in (BernoulliModel, MultinomialModel, CategoricalModel, GaussianModel):
    register_model(_cls)


def models_for_kind(kind: str) -> tuple[str, ...]:
    """The registered models that read a data set's feature ``kind`` (their ``data_kinds``): the
    ones made for it first, then the others in registration order. A data set's ``models``."""
    made_for = [n for n, cls in MODELS.items() if cls.data_kinds[:1] == (kind,)]
    others = [n for n, cls in MODELS.items() if kind in cls.data_kinds[1:]]
    return tuple(made_for + others)


def model_made_for(kind: str):
    """The registered model class made for a data set's feature ``kind`` (the first of
    :func:`models_for_kind`), or None when no registered model reads it. Its tags (``input_dtype``,
    ``accepts_sparse``, ``input_kind``) say how data of that kind is held, so callers ask the model
    instead of comparing its name."""
    names = models_for_kind(kind)
    return MODELS[names[0]] if names else None


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
