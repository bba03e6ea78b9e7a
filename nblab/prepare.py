"""A lesson run's data and first parameters, from the data settings (no Streamlit here).

:func:`prepare` reads the data set and hides labels; :func:`build_run` starts EM on it within
the lesson's memory budget (``nblab.limits``); :func:`describe_change` says in words what
changed between two data settings.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

import nbcore
from nblab import limits
from nblab.config import DataConfig


@dataclass(frozen=True)
class Prepared:
    """Data of one run: the matrix for the chosen event model and which labels are hidden."""
    ds: object
    X: object
    y_obs: np.ndarray     # -1 = hidden from EM
    hidden: np.ndarray    # bool: label existed but was hidden (scored for accuracy)
    y_eval: np.ndarray    # labels used for scoring (-1 = none)
    n_classes: int
    class_names: list
    feature_names: list

    @property
    def score_mask(self) -> np.ndarray:
        """Rows scored for accuracy: EM doesn't see their label, but we know it."""
        return (self.y_obs < 0) & (self.y_eval >= 0)


def load_shipped(name: str, text=None):
    """A shipped data set, with other text settings when ``text`` (a nbcore.text.TextPipeline) says so.

    The default loader of :func:`prepare`; the app passes its own (one copy per process, uploads and
    shared files of the session)."""
    ds = nbcore.load_dataset(name)
    return ds if text is None else ds.with_pipeline(text, cap=limits.VOCABULARY_CAP)


def prepare(cfg: DataConfig, load=None) -> Prepared:
    """The data of a run on ``cfg``: ``load(name, text)`` reads the data set (default :func:`load_shipped`)."""
    ds = (load or load_shipped)(cfg.dataset, cfg.text)
    if cfg.model not in ds.models:
        raise ValueError(f"The {cfg.dataset} data can't be used with the {cfg.model} model "
                         f"(it allows: {', '.join(ds.models)}).")
    X = ds.for_model(cfg.model)
    y = np.asarray(ds.y)
    y_obs, hidden = nbcore.hide_labels(y, fraction=cfg.hidden_pct / 100.0, random_state=cfg.seed)
    y_obs = np.asarray(y_obs)
    hidden = np.asarray(hidden, dtype=bool)
    y_true = getattr(ds, "y_true", None)
    y_eval = np.asarray(y_true) if y_true is not None else y
    K = int(ds.n_classes)
    class_names = list(getattr(ds, "class_names", None) or [str(k) for k in range(K)])
    feature_names = list(getattr(ds, "feature_names", None) or [f"x{j}" for j in range(X.shape[1])])
    return Prepared(ds, X, y_obs, hidden, y_eval, K, class_names, feature_names)


def effective_init(cfg: DataConfig, prep: Prepared) -> str:
    """'from labelled' needs a visible label; with none (e.g. abcd, or 100% hidden) start at random."""
    if cfg.init == "labeled" and not (prep.y_obs >= 0).any():
        return "random"
    return cfg.init


#: Responsibilities (N×K) are stored on the latest snapshots only; older ones are
#: recomputed exactly by run.responsibilities(t). Without this a 5 MB upload
#: (250k rows, K=10) held ~20 MB per iteration: 2 GB at 100 iterations.
KEEP_RESP = 2


#: Gaussian variances in the lesson view are floored at this share of the smallest feature
#: variance. Started from one labelled document per class, σ² is 0 (+ 1e-9 smoothing): the
#: log-likelihood reads −4e10 and the climb is invisible. max(σ², floor) is nbcore's exact
#: constrained M-step (var_floor), so EM still never goes down.
def model_options(cfg: DataConfig, prep) -> dict:
    """The options the lesson gives the event model on this data (the model suggests them,
    e.g. the Gaussian variance floor)."""
    return nbcore.get_model(cfg.model).suggested_options(prep.X)


def iteration_cap(cfg: DataConfig, prep: Prepared, options: dict) -> int:
    """The most iterations this run may keep within one lesson's memory budget on the server
    (nblab.limits); a run that cannot keep even a few is refused (ValueError saying what
    to change). The parameters' size is read off a start on the first few rows, so an
    oversized file is refused in milliseconds, before any real work."""
    n = min(prep.X.shape[0], 32)
    probe = nbcore.EM(model=cfg.model, n_classes=prep.n_classes, init="random", random_state=0,
                      model_options=options).start(prep.X[:n], np.full(n, -1))
    budget = limits.run_budget_bytes()
    msg = limits.too_big_message(prep.X, probe.current, prep.n_classes, KEEP_RESP, budget)
    if msg:
        raise ValueError(msg)
    return limits.iterations_that_fit(prep.X, probe.current, prep.n_classes, KEEP_RESP, budget)


def build_run(cfg: DataConfig, smoothing: float, load=None):
    prep = prepare(cfg, load)
    options = model_options(cfg, prep)
    max_iter = min(cfg.max_iter, iteration_cap(cfg, prep, options))
    em = nbcore.EM(model=cfg.model, n_classes=prep.n_classes, smoothing=smoothing, init=effective_init(cfg, prep),
                   unlabeled_weight=cfg.unlabeled_weight, max_iter=max_iter, tol=cfg.tol,
                   random_state=cfg.seed, keep_resp=KEEP_RESP, model_options=options)
    run = em.start(prep.X, prep.y_obs)
    return prep, run


_LABELS = {"dataset": "data set", "model": "event model", "hidden_pct": "labels hidden", "init": "initialisation",
           "seed": "seed", "unlabeled_weight": "unlabelled weight", "max_iter": "max iterations", "tol": "tolerance",
           "text": "text → features", "upload_id": "uploaded file"}


def _fmt(field: str, v) -> str:
    if field == "hidden_pct":
        return f"{v}%"
    if field == "tol":
        return f"{v:.0e}"
    if field == "text":
        return "—" if v is None else v.describe()
    if field == "upload_id":
        return f"#{v}"
    return str(v)


def describe_change(old: DataConfig | None, new: DataConfig) -> str:
    if old is None:
        return ""
    fields = [f for f in _LABELS if getattr(old, f) != getattr(new, f)]
    if "dataset" in fields:  # another data set brings its own text settings: no need to list them
        fields = [f for f in fields if f not in ("text", "upload_id")]
    parts = [f"{_LABELS[f]}: {new.text.changes_from(old.text)}" if f == "text" and new.text is not None
             else "the uploaded file or its columns" if f == "upload_id"
             else f"{_LABELS[f]} {_fmt(f, getattr(old, f))} → {_fmt(f, getattr(new, f))}"
             for f in fields]
    return ", ".join(parts)


def only_continuable_changed(old: DataConfig | None, new: DataConfig) -> bool:
    """True when the data settings differ at most in max iterations / tolerance:
    those (and λ) can change mid-run without a new run (nbcore EMRun.with_settings)."""
    return old is not None and replace(old, max_iter=new.max_iter, tol=new.tol) == new
