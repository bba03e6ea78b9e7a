"""The session's EM run: its data, and build / continue / reset / step / status.

All computation is nbcore's; this module only calls it and keeps everything per
session in st.session_state (state.py).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

import nbcore
from dashboard import datasets, limits, state
from dashboard.controls import DataConfig, Settings


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


def prepare(cfg: DataConfig) -> Prepared:
    ds = datasets.get_dataset(cfg.dataset, cfg.text)
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
    (dashboard.limits); a run that cannot keep even a few is refused (ValueError saying what
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


def build_run(cfg: DataConfig, smoothing: float):
    prep = prepare(cfg)
    options = model_options(cfg, prep)
    max_iter = min(cfg.max_iter, iteration_cap(cfg, prep, options))
    em = nbcore.EM(model=cfg.model, n_classes=prep.n_classes, smoothing=smoothing, init=effective_init(cfg, prep),
                   unlabeled_weight=cfg.unlabeled_weight, max_iter=max_iter, tol=cfg.tol,
                   random_state=cfg.seed, keep_resp=KEEP_RESP, model_options=options)
    run = em.start(prep.X, prep.y_obs)
    return prep, run


def install(cfg: DataConfig, smoothing: float, prep: Prepared, run, notice: tuple[str, str] | None = None) -> None:
    """Make `run` the session's lesson run (also used by pages that build a run, e.g. restarts).

    ``notice`` (kind, text), when given, replaces the notice shown above the run."""
    state.put(state.RUN, run)
    state.put(state.RUN_KEY, cfg)
    state.put(state.RUN_LAM, smoothing)
    state.put(state.PREP, prep)
    state.put(state.RUN_SERIAL, state.get(state.RUN_SERIAL) + 1)
    state.put(state.VIEW_T, None)
    state.put(state.PLAYING, False)
    state.put(state.ERROR, None)
    if notice is not None:
        state.put(state.NOTICE, notice)


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
    cfg, smoothing = settings.data, settings.smoothing
    run, old_cfg, old_smoothing = state.get(state.RUN), state.get(state.RUN_KEY), state.get(state.RUN_LAM)
    if run is not None and old_cfg == cfg and old_smoothing == smoothing:
        state.put(state.ERROR, None)
        return
    if run is not None and run.current.iteration > 0 and _only_continuable_changed(old_cfg, cfg):
        t = run.current.iteration
        changes = {}
        if smoothing != old_smoothing:
            changes["smoothing"] = smoothing
        if cfg.max_iter != old_cfg.max_iter:
            changes["max_iter"] = cfg.max_iter
        if cfg.tol != old_cfg.tol:
            changes["tol"] = cfg.tol
        try:
            if "max_iter" in changes:
                prep = state.get(state.PREP)
                changes["max_iter"] = min(cfg.max_iter, iteration_cap(cfg, prep, model_options(cfg, prep)))
            state.put(state.RUN, run.with_settings(**changes))
        except ValueError as e:
            state.put(state.ERROR, str(e))
            return
        state.put(state.RUN_LAM, smoothing)
        state.put(state.RUN_KEY, cfg)
        what = [f"λ changed {old_smoothing:g} → {smoothing:g}"] if smoothing != old_smoothing else []
        what += [describe_change(old_cfg, cfg)] if old_cfg != cfg else []
        state.put(state.NOTICE, ("continued",
                                 f"{'; '.join(what)}: EM **continues** from iteration {t} with the current "
                                 f"parameters (history kept; the next steps use λ = {smoothing:g})."))
        return
    try:
        with st.spinner("Preparing the data and the first parameters …"):
            prep, new_run = build_run(cfg, smoothing)
    except ValueError as e:
        msg = str(e)
        if "init=" in msg:
            msg += " (Sidebar → Advanced → Initialisation.)"
        state.put(state.ERROR, msg)
        return
    install(cfg, smoothing, prep, new_run)
    if run is None:
        state.put(state.NOTICE, None)
        restore_iterations(new_run)
    elif old_cfg == cfg:
        state.put(state.NOTICE, ("rebuilt", f"λ changed {old_smoothing:g} → {smoothing:g} before any step: "
                                            f"**new run** from iteration 0 with λ = {smoothing:g}."))
    else:
        state.put(state.NOTICE, ("rebuilt", f"Data settings changed ({describe_change(old_cfg, cfg)}): "
                                            f"**new run** from iteration 0."))
    if effective_init(cfg, prep) != cfg.init:
        kind, text = state.get(state.NOTICE) or ("rebuilt", "")
        state.put(state.NOTICE, (kind, (text + " " if text else "") +
                                 "No label is visible, so EM starts from a **random** initialisation "
                                 "(“from the labelled documents” needs at least one label)."))


#: URL key holding how far the session's run has been computed, so a reloaded page, a new session
#: after a server restart, or a student opening the teacher's link comes back at that iteration.
K_ITERATION = "t"


def restore_iterations(run) -> None:
    """A session's first run: step it to the iteration the URL names (``t=``), with a notice.

    EM is deterministic given the data, the settings and the seed, so the same link recomputes
    the same numbers (steps taken at another λ earlier in the run are recomputed at the current
    one). Bounded by the run's max iterations, which the memory budget already bounds."""
    from dashboard import urlguard

    asked = int(urlguard.value_of(K_ITERATION, urlguard.Number(0, 1000, 0, None, True), 0) or 0)
    want = min(asked, run.settings.max_iter)
    if want <= 0:
        return
    try:
        with st.spinner(f"Recomputing the run to iteration {want} …"):
            while run.current.iteration < want and not run.done:
                run.step()
    except ValueError as e:
        state.put(state.ERROR, str(e))
    t = run.current.iteration
    text = f"Recomputed to iteration {t}, as the link says (the same settings give the same numbers)."
    if t < asked:
        text += (f" EM stopped at t = {t} ({'converged' if run.converged else 'its maximum number of iterations'})"
                 f" before {asked}.")
    state.put(state.NOTICE, ("continued", text))


def remember_iteration(run) -> None:
    """Keep ``t=<latest computed iteration>`` in the URL (nothing when it is already there)."""
    if run is None:
        return
    t = str(run.current.iteration)
    try:
        if st.query_params.get(K_ITERATION) != t:
            if t == "0":
                st.query_params.pop(K_ITERATION, None)
            else:
                st.query_params[K_ITERATION] = t
    except Exception:  # noqa: BLE001 - the URL is a convenience; never break the page over it
        pass


def reset() -> None:
    cfg, smoothing = state.get(state.RUN_KEY), state.get(state.RUN_LAM)
    if cfg is None:
        return
    try:
        prep, run = build_run(cfg, smoothing)
    except ValueError as e:
        state.put(state.ERROR, str(e))
        return
    install(cfg, smoothing, prep, run)
    state.put(state.NOTICE, ("rebuilt", "Reset: **new run** from iteration 0 with the same settings."))


def step(n: int = 1, ahead=None) -> None:
    """n EM iterations of the session's run. ``ahead``, when given, is that run already stepped once
    (a copy the page computed in advance so the browser could show it at once: dashboard/player);
    it is adopted as the first of the n steps instead of computing that iteration again."""
    run = state.get(state.RUN)
    before = None if run is None else run.current.iteration
    try:
        for _ in range(n):
            if run is None or run.done:
                break
            if ahead is not None and len(ahead.history) == len(run.history) + 1:
                run = ahead
                state.put(state.RUN, run)
                ahead = None
                continue
            run.step()
    except ValueError as e:  # the engine explains; never a traceback
        state.put(state.ERROR, str(e))
        state.put(state.PLAYING, False)
    state.put(state.VIEW_T, None)
    if run is not None and run.current.iteration != before:
        state.put(state.NOTICE, None)  # "new run from iteration 0" / "continues from t" are news only until the next step


def status_line(run) -> tuple[str, str]:
    """(kind, text) for the status line: kind in running|converged|max|ready|paused."""
    t = run.current.iteration
    reason = getattr(run, "stop_reason", None)
    if run.converged:
        why = {"tol": "objective changed less than the tolerance",
               "theta": "parameters changed less than the tolerance"}.get(reason, reason or "")
        return "converged", f"Converged at t = {t}" + (f" ({why})" if why else "")
    if run.done:
        cfg = state.get(state.RUN_KEY)
        if cfg is not None and run.settings.max_iter < cfg.max_iter:
            return "max", (f"Stopped at t = {t}: the most iterations this server keeps for a run this large "
                           f"({limits.run_budget_bytes() // limits.MB} MB per lesson); Max iterations is {cfg.max_iter}")
        return "max", f"Stopped at the maximum number of iterations (t = {t})"
    if state.get(state.PLAYING):
        return "running", f"Running … t = {t}"
    if t == 0:
        return "ready", "Ready: t = 0 (initial parameters). Press Step or Play."
    return "paused", f"Paused at t = {t}"


