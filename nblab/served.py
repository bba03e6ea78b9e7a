"""The lesson program fed by nbcore: what the server sends the browser's lab, and how it answers the lab's asks.

In the app the lesson is drawn by the lab's own JavaScript (``nblab/js``), but every iteration it shows is
computed here by nbcore, one at a time. The browser's lab holds a served run (``nblab/js/served.js``): it
asks for iterations (Step, M-step, Play, Run to convergence: "iterations up to t = n") and the server
answers with one record per iteration — θ_t bit for bit (float64, base64) and the run's own numbers (the
log-likelihood, the objective, ‖Δθ‖², λ and the stop rule's verdict). The browser derives what it shows
from θ_t (posteriors, a document's terms) with the functions CI checks against nbcore to 1e-9.

The ask (the element's state, written by the browser)::

    {"serial": n, "have": t, "target": t, "resets": n, "t": t}

* ``serial``: the run the browser holds (:attr:`LessonRun.serial`); an ask about another run is ignored;
* ``have``: the latest iteration it holds; the answer carries the records after it;
* ``target``: the latest iteration it wants (each Step press at the end of the run adds one, so none is
  lost however fast the presses come); the server computes up to it within :data:`BUDGET_S` per answer,
  and the browser asks again for the rest;
* ``resets``: how many times Reset was pressed (each one a new run from t = 0);
* ``t``: the iteration on screen (the share link, the class and the URL follow it).

No Streamlit here: ``dashboard/lesson/program.py`` mounts the element and passes the ask in.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from nblab.data import encode_array

FORMAT = "nblab-served/1"
#: server time one answer may spend computing iterations (seconds); the browser asks again for the rest
BUDGET_S = 0.25


def _flat(value) -> np.ndarray:
    """A parameter as one float64 array in C order (a list of arrays, as the categorical model's θ_j,
    stacked one after the other)."""
    if isinstance(value, (list, tuple)):
        return np.concatenate([np.asarray(v, dtype=np.float64).ravel() for v in value]) if value else np.zeros(0)
    return np.asarray(value, dtype=np.float64).ravel()


def snapshot_record(snap, stop: str | None = None) -> dict:
    """One iteration for the browser: ``t``, ``alpha`` (K), ``params`` (each of the model's parameters flat),
    ``numbers`` ([log-likelihood, objective, ‖Δθ‖² (NaN at t = 0), λ], float64 so that −∞ travels as it is)
    and ``stop`` (the stop rule's verdict after this iteration, or None)."""
    delta = np.nan if snap.delta is None else float(snap.delta)
    lam = np.asarray(snap.smoothing, dtype=np.float64)
    if lam.ndim:  # one pseudo-count per feature: the lesson's λ is one number
        raise ValueError("The lesson draws runs whose λ is one number.")
    numbers = np.array([snap.log_likelihood, snap.objective, delta, float(lam)], dtype=np.float64)
    return {"t": int(snap.iteration), "alpha": encode_array(np.asarray(snap.alpha, dtype=np.float64)),
            "params": {name: encode_array(_flat(v)) for name, v in snap.params.items()},
            "numbers": encode_array(numbers), "stop": stop}


def records(run, after: int, upto: int | None = None) -> list[dict]:
    """The records of iterations ``after + 1 … upto`` (default: the latest); the latest one carries the run's
    stop verdict (the earlier ones were followed by another iteration, so none stopped the run)."""
    latest = len(run.history) - 1
    upto = latest if upto is None else min(int(upto), latest)
    return [snapshot_record(run.history[t], run.stop_reason if t == latest else None)
            for t in range(max(0, int(after) + 1), upto + 1)]


def first_record(run) -> dict:
    """θ_0's record with the run's stop rules (its maximum number of iterations and tolerance) and the weight
    of its hidden rows (the browser's E-step weights and its climb use it)."""
    rec = snapshot_record(run.history[0], run.stop_reason if len(run.history) == 1 else None)
    rec["maxIter"] = int(run.settings.max_iter)
    rec["tol"] = None if run.settings.tol is None else float(run.settings.tol)
    rec["unlabeledWeight"] = float(run.unlabeled_weight)
    return rec


@dataclass
class Ask:
    """The browser's ask, read defensively (it comes from the page: anything else is ignored)."""
    serial: int = -1
    have: int = -1
    target: int = 0
    resets: int = 0
    t: int | None = None

    @classmethod
    def read(cls, value) -> "Ask":
        if not isinstance(value, dict):
            return cls()

        def whole(key, default):
            v = value.get(key, default)
            return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) else default

        t = whole("t", None)
        return cls(serial=whole("serial", -1), have=whole("have", -1), target=max(0, whole("target", 0)),
                   resets=max(0, whole("resets", 0)), t=None if t is None or t < 0 else t)


def advance(lr, ask: Ask, budget_s: float = BUDGET_S, clock=time.perf_counter) -> bool:
    """Compute the lesson's iterations up to the ask's target, one at a time, for at most ``budget_s``
    (the first iteration always). Returns True when the target is reached or the run is done."""
    run = lr.run
    if run is None or ask.serial != lr.serial:
        return True
    start = clock()
    while lr.latest < ask.target and not lr.run.done:
        before = lr.latest
        lr.step()
        if lr.error or lr.latest == before:
            return True
        if clock() - start > budget_s:
            break
    return lr.latest >= ask.target or lr.run.done


def answer(lr, ask: Ask) -> dict:
    """What the element is sent for the lesson ``lr`` and the browser's ``ask``: the run's serial, θ_0's
    record when the browser holds another run (``first``), the records the browser lacks, and where the run
    stands."""
    run = lr.run
    same = ask.serial == lr.serial
    out = {"format": FORMAT, "serial": int(lr.serial), "records": records(run, ask.have if same else 0),
           "latest": int(lr.latest), "done": bool(run.done), "error": lr.error}
    if not same:
        out["first"] = first_record(run)
    return out
