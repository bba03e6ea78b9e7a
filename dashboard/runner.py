"""The session's EM run: build / continue / reset / step, uploads, derived series.

All computation is nbcore's; this module only calls it, caches what is
expensive, and keeps everything per session in st.session_state (state.py).
"""
from __future__ import annotations

import io
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

import nbcore
from dashboard import controls, derive, state
from dashboard.controls import DataConfig, Settings

PREP = state.PREP        # aliases kept for other pages
RUN_LAM = state.RUN_LAM



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


# ---- data -------------------------------------------------------------------

def dataset_names() -> tuple[list[str], dict[str, str]]:
    """Shipped data sets and one-line descriptions (falls back to the known names)."""
    try:
        listed = nbcore.list_datasets()
    except Exception:  # data module not there yet: keep the app usable
        return list(controls.SHIPPED), {}
    if isinstance(listed, dict):
        return list(listed), {k: str(v) for k, v in listed.items()}
    names, desc = [], {}
    for item in listed:
        if isinstance(item, (tuple, list)):
            names.append(str(item[0]))
            desc[str(item[0])] = str(item[1]) if len(item) > 1 else ""
        else:
            names.append(str(item))
    return names, desc


@st.cache_data(show_spinner=False, max_entries=16)
def load_shipped(name: str):
    """Shipped data sets are the same for everybody: cached across sessions."""
    return nbcore.load_dataset(name)


def get_dataset(name: str):
    if name == controls.UPLOAD:
        ds = state.get(state.UPLOAD_DS)
        if ds is None:
            raise ValueError("There is no uploaded file in this session any more; pick a data set.")
        return ds
    return load_shipped(name)


def models_for(name: str) -> list[str]:
    try:
        return list(get_dataset(name).models)
    except Exception:
        return ["bernoulli"]


def handle_upload(name: str, data: bytes) -> tuple[bool, str]:
    """Parse an uploaded CSV for this session only (never cached across sessions).

    On success the upload becomes the selected data set. On failure nothing the
    user had is touched: the message is stored for display and the previous
    data set and run stay. Must be called before the sidebar widgets are drawn."""
    try:
        ds = nbcore.read_csv(io.BytesIO(data))  # per session; never cached across sessions
        X = ds.for_model(ds.models[0])
        if getattr(X, "shape", (0,))[0] == 0:
            raise ValueError("The file has no rows.")
    except ValueError as e:  # nbcore.data.DataError is a ValueError
        msg = f"Could not use “{name}”: {e}"
        state.put(state.UPLOAD_ERROR, msg)
        return False, msg
    except Exception as e:  # a parser crash must not give a student a traceback either
        msg = f"Could not read “{name}” as a CSV file ({type(e).__name__})."
        state.put(state.UPLOAD_ERROR, msg)
        return False, msg
    state.put(state.UPLOAD_DS, ds)
    state.put(state.UPLOAD_NAME, name)
    state.put(state.UPLOAD_ERROR, None)
    st.session_state[controls.K_DATASET] = controls.UPLOAD
    msg = f"Loaded “{name}”: {X.shape[0]} rows, {X.shape[1]} features."
    info = getattr(ds, "inferred", None) or {}
    if info.get("truncated"):
        msg += (f" The text had {info.get('vocabulary_size_before_cap', '?'):,} different words; only the "
                f"{info.get('vocabulary_size', X.shape[1]):,} most frequent are kept.")
    if info.get("ignored_columns"):
        msg += " Ignored columns: " + ", ".join(derive.md_escape(c, 30) for c in info["ignored_columns"]) + "."
    return True, msg


def max_upload_words() -> int | None:
    try:
        from nbcore.data import MAX_FEATURES
        return int(MAX_FEATURES)
    except (ImportError, TypeError, ValueError):
        return None


def on_upload_change() -> None:
    """file_uploader callback: stash the bytes; they are parsed at the top of the next run."""
    f = st.session_state.get(controls.K_UPLOADER)
    if f is not None and state.get(state.UPLOAD_SEEN) != f.file_id:
        state.put(state.UPLOAD_SEEN, f.file_id)
        state.put(state.PENDING_UPLOAD, (f.name, f.getvalue()))


def process_pending_upload() -> tuple[bool, str] | None:
    """Parse a file the uploader stashed. Returns (ok, message) if there was one, else None."""
    pending = state.get(state.PENDING_UPLOAD)
    if not pending:
        return None
    state.put(state.PENDING_UPLOAD, None)
    name, data = pending
    with st.spinner(f"Reading {name} …"):
        return handle_upload(name, data)


# ---- runs -------------------------------------------------------------------

def prepare(cfg: DataConfig) -> Prepared:
    ds = get_dataset(cfg.dataset)
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


def build_run(cfg: DataConfig, lam: float):
    prep = prepare(cfg)
    em = nbcore.EM(model=cfg.model, n_classes=prep.n_classes, smoothing=lam, init=effective_init(cfg, prep),
                   unlabeled_weight=cfg.unlabeled_weight, max_iter=cfg.max_iter, tol=cfg.tol,
                   random_state=cfg.seed, keep_resp=KEEP_RESP)
    run = em.start(prep.X, prep.y_obs)
    return prep, run


def _install(cfg: DataConfig, lam: float, prep: Prepared, run) -> None:
    state.put(state.RUN, run)
    state.put(state.RUN_KEY, cfg)
    state.put(RUN_LAM, lam)
    state.put(PREP, prep)
    state.put(state.RUN_SERIAL, state.get(state.RUN_SERIAL) + 1)
    state.put(state.VIEW_T, None)
    state.put(state.PLAYING, False)
    state.put(state.ERROR, None)


_LABELS = {"dataset": "data set", "model": "event model", "hidden_pct": "labels hidden", "init": "initialisation",
           "seed": "seed", "unlabeled_weight": "unlabelled weight", "max_iter": "max iterations", "tol": "tolerance"}


def _fmt(field: str, v) -> str:
    if field == "hidden_pct":
        return f"{v}%"
    if field == "tol":
        return f"{v:.0e}"
    return str(v)


def describe_change(old: DataConfig | None, new: DataConfig) -> str:
    if old is None:
        return ""
    parts = [f"{_LABELS[f]} {_fmt(f, getattr(old, f))} → {_fmt(f, getattr(new, f))}"
             for f in _LABELS if getattr(old, f) != getattr(new, f)]
    return ", ".join(parts)


def _only_continuable_changed(old: DataConfig | None, new: DataConfig) -> bool:
    """True when the data settings differ at most in max iterations / tolerance:
    those (and λ) can change mid-run without a new run (nbcore EMRun.with_settings)."""
    return old is not None and replace(old, max_iter=new.max_iter, tol=new.tol) == new


def sync_run(settings: Settings) -> None:
    """Bring the run in line with the controls.

    A changed data setting rebuilds the run (iteration 0); a changed λ, max
    iterations or tolerance continues from the current parameters via
    run.with_settings (history kept).
    Either way NOTICE says which happened. A ValueError from nbcore keeps the
    previous run and is shown as a message (state.ERROR)."""
    cfg, lam = settings.data, settings.lam
    run, old_cfg, old_lam = state.get(state.RUN), state.get(state.RUN_KEY), state.get(RUN_LAM)
    if run is not None and old_cfg == cfg and old_lam == lam:
        state.put(state.ERROR, None)
        return
    if run is not None and run.current.iteration > 0 and _only_continuable_changed(old_cfg, cfg):
        t = run.current.iteration
        changes = {}
        if lam != old_lam:
            changes["smoothing"] = lam
        if cfg.max_iter != old_cfg.max_iter:
            changes["max_iter"] = cfg.max_iter
        if cfg.tol != old_cfg.tol:
            changes["tol"] = cfg.tol
        try:
            state.put(state.RUN, run.with_settings(**changes))
        except ValueError as e:
            state.put(state.ERROR, str(e))
            return
        state.put(RUN_LAM, lam)
        state.put(state.RUN_KEY, cfg)
        what = [f"λ changed {old_lam:g} → {lam:g}"] if lam != old_lam else []
        what += [describe_change(old_cfg, cfg)] if old_cfg != cfg else []
        state.put(state.NOTICE, ("continued",
                                 f"{'; '.join(what)}: EM **continues** from iteration {t} with the current "
                                 f"parameters (history kept; the next steps use λ = {lam:g})."))
        return
    try:
        with st.spinner("Preparing the data and the first parameters …"):
            prep, new_run = build_run(cfg, lam)
    except ValueError as e:
        msg = str(e)
        if "init=" in msg:
            msg += " (Sidebar → Advanced → Initialisation.)"
        state.put(state.ERROR, msg)
        return
    _install(cfg, lam, prep, new_run)
    if run is None:
        state.put(state.NOTICE, None)
    elif old_cfg == cfg:
        state.put(state.NOTICE, ("rebuilt", f"λ changed {old_lam:g} → {lam:g} before any step: "
                                            f"**new run** from iteration 0 with λ = {lam:g}."))
    else:
        state.put(state.NOTICE, ("rebuilt", f"Data settings changed ({describe_change(old_cfg, cfg)}): "
                                            f"**new run** from iteration 0."))
    if effective_init(cfg, prep) != cfg.init:
        kind, text = state.get(state.NOTICE) or ("rebuilt", "")
        state.put(state.NOTICE, (kind, (text + " " if text else "") +
                                 "No label is visible, so EM starts from a **random** initialisation "
                                 "(“from the labelled documents” needs at least one label)."))


def reset() -> None:
    cfg, lam = state.get(state.RUN_KEY), state.get(RUN_LAM)
    if cfg is None:
        return
    try:
        prep, run = build_run(cfg, lam)
    except ValueError as e:
        state.put(state.ERROR, str(e))
        return
    _install(cfg, lam, prep, run)
    state.put(state.NOTICE, ("rebuilt", "Reset: **new run** from iteration 0 with the same settings."))


def step(n: int = 1) -> None:
    run = state.get(state.RUN)
    try:
        for _ in range(n):
            if run is None or run.done:
                break
            run.step()
    except ValueError as e:  # the engine explains; never a traceback
        state.put(state.ERROR, str(e))
        state.put(state.PLAYING, False)
    state.put(state.VIEW_T, None)


# ---- derived series ------------------------------------------------------------

def _score(pred: np.ndarray, prep: Prepared) -> float:
    mask = prep.score_mask
    if not mask.any():
        return float("nan")
    if not (prep.y_obs >= 0).any():  # no visible labels: clusters carry no names -> align (Hungarian)
        mapping = np.asarray(nbcore.align_clusters(prep.y_eval[mask], pred[mask], prep.n_classes))
        pred = mapping[pred]
    return float(np.mean(pred[mask] == prep.y_eval[mask]))


def accuracy_series(run, prep: Prepared) -> list[float]:
    """Accuracy on the hidden labels at every iteration (computed once per snapshot)."""
    serial = state.get(state.RUN_SERIAL)
    cache = state.get(state.ACC_CACHE)
    if not cache or cache["serial"] != serial:
        cache = {"serial": serial, "acc": []}
    acc = cache["acc"]
    for t in range(len(acc), len(run.history)):
        proba = run.predict_proba(t=t)
        acc.append(_score(np.asarray(proba).argmax(axis=1), prep))
    state.put(state.ACC_CACHE, cache)
    return acc


def baseline_accuracy(cfg: DataConfig, lam: float, prep: Prepared) -> float | None:
    """Supervised-only Naive Bayes on the visible labels, scored on the hidden ones."""
    key = (cfg, lam)
    cached = state.get(state.BASELINE)
    if cached and cached["key"] == key:
        return cached["acc"]
    acc = None
    if (prep.y_obs >= 0).any() and prep.score_mask.any():
        try:
            alpha, params = nbcore.supervised_fit(cfg.model, prep.X, prep.y_obs, prep.n_classes, lam)
            proba = nbcore.predict_proba(cfg.model, alpha, params, prep.X)
            mask = prep.score_mask
            acc = float(np.mean(np.asarray(proba).argmax(axis=1)[mask] == prep.y_eval[mask]))
        except ValueError:
            acc = None
    state.put(state.BASELINE, {"key": key, "acc": acc})
    return acc


def status_line(run) -> tuple[str, str]:
    """(kind, text) for the status line: kind in running|converged|max|ready|paused."""
    t = run.current.iteration
    reason = getattr(run, "stop_reason", None)
    if run.converged:
        why = {"tol": "objective changed less than the tolerance",
               "theta": "parameters changed less than the tolerance"}.get(reason, reason or "")
        return "converged", f"Converged at t = {t}" + (f" ({why})" if why else "")
    if run.done:
        return "max", f"Stopped at the maximum number of iterations (t = {t})"
    if state.get(state.PLAYING):
        return "running", f"Running … t = {t}"
    if t == 0:
        return "ready", "Ready: t = 0 (initial parameters). Press Step or Play."
    return "paused", f"Paused at t = {t}"


def aligned(mat: np.ndarray, run, prep: Prepared, t: int) -> np.ndarray:
    """Columns of a (V,K) parameter matrix reordered so column k is label k."""
    if (prep.y_obs >= 0).any():
        return mat
    mask = prep.y_eval >= 0
    if not mask.any():
        return mat
    pred = np.asarray(run.predict_proba(t=t)).argmax(axis=1)
    mapping = np.asarray(nbcore.align_clusters(prep.y_eval[mask], pred[mask], prep.n_classes))
    out = np.empty_like(mat)
    out[:, mapping] = mat
    return out


def install_run(cfg: DataConfig, lam: float, prep: Prepared, run, notice: tuple[str, str] | None = None) -> None:
    """Public: make `run` (built elsewhere, e.g. by another page) the session's lesson run."""
    _install(cfg, lam, prep, run)
    if notice is not None:
        state.put(state.NOTICE, notice)
