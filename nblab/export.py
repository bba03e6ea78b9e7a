"""A lesson as one self-contained HTML file: the lab page with its data inlined (no Streamlit here).

The file is the lab (:mod:`nblab.page`): EM runs in the browser, so a student alone with it can hide more
labels, change λ, the event model, the start, the seed and the iteration budget, and step, play and drag —
not only watch the iterations a teacher computed. What it opens at is the lesson it was made from: the
same data (a shipped set or a teacher's upload, inlined), the same settings (the app's URL keys) and the
iteration on screen. The browser's engine is checked against nbcore on every shipped data set
(``tests/lab/test_em_parity.py``), so the file shows the numbers the app shows.

:func:`lesson_settings` reads those settings off a lesson (a :class:`nblab.lesson_run.LessonRun`) or a
plain nbcore run; :func:`export_lesson` writes the file; :func:`export_bytes` returns its bytes (the
lesson view's download button).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

import nbcore
from nblab import page as page_mod
from nblab.data import lab_data, lab_data_from_arrays

#: the data sets a file names by their shipped name (an upload or a shared file travels as its data)
_NOT_SHIPPED = ("upload", "shared")


def _is_lesson(run) -> bool:
    return hasattr(run, "run") and hasattr(run, "prep") and hasattr(run, "cfg")


def _scalar(lam) -> float | None:
    """λ as one number, or None when it is one pseudo-count per feature (the lab's slider has one λ)."""
    if isinstance(lam, np.ndarray):
        return float(lam[0]) if lam.size and np.all(lam == lam[0]) else None
    return float(lam)


def _hidden_pct(y_true: np.ndarray, y_obs: np.ndarray, seed: int) -> int | None:
    """The labels-hidden percentage that gives exactly ``y_obs`` from ``y_true`` with ``seed``
    (nbcore.hide_labels, as the lesson hides them), or None when no percentage does."""
    n_known = int((y_true >= 0).sum())
    if n_known == 0:
        return None
    n_hidden = int(((y_obs < 0) & (y_true >= 0)).sum())
    guess = int(round(100 * n_hidden / n_known))
    for pct in sorted({guess, guess - 1, guess + 1}, key=lambda p: abs(p - guess)):
        if 0 <= pct <= 100:
            got, _ = nbcore.hide_labels(y_true, fraction=pct / 100, random_state=seed)
            if np.array_equal(np.asarray(got), y_obs):
                return pct
    return None


def lesson_settings(run, prep=None, *, t: int | None = None) -> dict:
    """The lab's settings (the app's URL keys) for a lesson run or a plain nbcore run.

    A :class:`~nblab.lesson_run.LessonRun` gives its data settings, the λ its next step uses and the
    iteration on screen; a plain run its own settings (``random_state`` as the seed when it is a whole
    number). ``t`` overrides the iteration.
    """
    if _is_lesson(run):
        cfg = run.cfg
        out = {"model": cfg.model, "hidden": int(cfg.hidden_pct), "lam": float(run.smoothing), "init": cfg.init,
               "seed": int(cfg.seed), "max_iter": int(cfg.max_iter), "tol": float(cfg.tol),
               "t": int(run.t if t is None else t)}
        return out
    s = run.settings
    seed = s.random_state if isinstance(s.random_state, (int, np.integer)) and not isinstance(s.random_state, bool) else 0
    out = {"model": str(getattr(s.model, "name", s.model)), "init": s.init, "seed": int(seed),
           "max_iter": int(s.max_iter), "t": int(run.iteration if t is None else t)}
    lam = _scalar(run.smoothing)
    if lam is not None:
        out["lam"] = lam
    # tol=None (no tolerance rule, EM runs to max_iter) is kept as the lab's "none", not left to its 1e-06
    out["tol"] = float(s.tol) if s.tol is not None else page_mod.NO_TOL
    return out


def _check_lab_settings(settings: dict) -> None:
    """Refuse, saying why and what to do, a run whose λ or tolerance the lab's controls cannot hold: the file
    would otherwise open at other settings and show other numbers than the run's."""
    from nblab import defaults as D

    lam = settings.get("lam")
    if lam is not None and float(lam) not in D.LAMBDAS:
        raise ValueError(f"This run's λ = {lam:g} is not one of the lab's λ values ({', '.join(f'{x:g}' for x in D.LAMBDAS)}): "
                         "a file at another λ would show other numbers. Run with one of them to export it "
                         "(run.with_settings(smoothing=...) continues a run at another λ).")
    tol = settings.get("tol")
    if tol is not None and tol != page_mod.NO_TOL and float(tol) not in D.TOLS:
        raise ValueError(f"This run's tolerance tol = {tol:g} is not one of the lab's ({', '.join(f'{x:.0e}' for x in D.TOLS)}, "
                         "or None): the file's EM would stop at another iteration. Run with one of them to export it.")


def _fit_budget(em_run, settings: dict, said: bool = True) -> None:
    """The lab page keeps every iteration it computes, in the browser: it gets the app's memory budget for one
    lesson (nblab.limits). A run whose data cannot keep even a few iterations within it is refused (the
    app refuses such a file too); one that keeps fewer iterations than its budget asks has its ``max_iter``
    capped there, with a warning saying so (``settings`` is changed in place). ``said`` False: a lesson of
    the app, whose run was capped the same way when it was built and whose page says so already."""
    from nblab import limits
    from nblab.prepare import KEEP_RESP

    X, K, snap = em_run.Xp, int(em_run.n_classes), em_run.current
    budget = limits.run_budget_bytes()
    msg = limits.too_big_message(X, snap, K, KEEP_RESP, budget)
    if msg:
        raise ValueError(f"This lesson is too big for the lab page, whose browser would keep every iteration: {msg}")
    fits = limits.iterations_that_fit(X, snap, K, KEEP_RESP, budget)
    if fits < int(settings.get("max_iter", 100)):
        if said:
            warnings.warn(f"The lab page keeps at most {fits:,} iterations of this data within one lesson's memory "
                          f"budget ({budget // limits.MB:,} MB): the file's max iterations is {fits:,}, not "
                          f"{int(settings['max_iter']):,}.", UserWarning, stacklevel=4)
        settings["max_iter"] = fits
        if int(settings.get("t", 0)) > fits:
            settings["t"] = fits


def _plain_run_data(run, ds) -> tuple[dict, dict]:
    """(lab data, settings) for a plain nbcore run on data set ``ds`` (or on its own arrays, ds None).

    When the run's hidden labels are what hiding some percentage of ``ds``'s labels with the run's seed
    gives, the file hides them the same way (and a student can move the slider); otherwise the labels the
    run saw are the file's labels as given (hidden 0 %), scored on the rows whose truth is known."""
    settings = lesson_settings(run)
    y_obs = np.asarray(run.y)
    if ds is not None:
        y_true = np.asarray(getattr(ds, "y_true", None) if getattr(ds, "y_true", None) is not None else ds.y)
        if int(ds.n_samples) == len(y_obs):
            pct = _hidden_pct(np.asarray(ds.y), y_obs, settings["seed"])
            if pct is not None:
                return lab_data(ds), {**settings, "hidden": pct}
        data = lab_data_from_arrays(ds.for_model(settings["model"]), y_obs, kind=ds.kind,
                                    class_names=list(ds.class_names), feature_names=list(ds.feature_names),
                                    name=ds.name, description=ds.description or "", y_true=y_true,
                                    texts=getattr(ds, "texts", None))
        return data, {**settings, "hidden": 0}
    data = lab_data_from_arrays(run.Xp, y_obs, class_names=[str(k) for k in range(run.n_classes)])
    return data, {**settings, "hidden": 0}


def lesson_page(run, prep=None, *, converge: bool = False, t: int | None = None, classroom: bool = False,
                title: str | None = None, template: dict | None = None) -> str:
    """The lab page of a lesson, as HTML text.

    Parameters
    ----------
    run : LessonRun, or an nbcore EMRun
    prep : the data set a plain run ran on (an ``nbcore.Dataset``), or a LessonRun's Prepared (ignored:
        the lesson's own is used); None for a plain run on arrays
    converge : open at the iteration where EM stops (a copy of the run is stepped; the run itself does not move)
    t : the iteration the page opens at (default: the one on screen, else the latest)
    classroom : open in classroom mode (bigger type)
    """
    if _is_lesson(run):
        ds = run.prep.ds
        data = lab_data(ds)
        settings = lesson_settings(run, t=t)
        if run.cfg.dataset not in _NOT_SHIPPED:
            data["name"] = run.cfg.dataset
        em_run = run.run
    else:
        ds = prep if prep is not None and hasattr(prep, "for_model") else getattr(prep, "ds", None)
        data, settings = _plain_run_data(run, ds)
        if t is not None:
            settings["t"] = int(t)
        em_run = run
        if _scalar(run.smoothing) is None:
            from nblab import defaults as D
            warnings.warn(f"This run has one λ per feature; the lab has one λ for all, so the file runs at λ = "
                          f"{D.DEFAULTS['lam']:g} (the lab's default) and its numbers differ from the run's.",
                          UserWarning, stacklevel=3)
    _check_lab_settings(settings)
    _fit_budget(em_run, settings, said=not _is_lesson(run))
    if converge:
        copy = em_run.with_settings()   # shares the snapshots: the caller's run does not move
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            copy.run_to_convergence()
        settings["t"] = copy.iteration
    if classroom:
        settings["classroom"] = True
    return page_mod.lab_html(data, settings=settings, title=title, template=template)


def export_lesson(run, prep=None, path=None, **options) -> Path:
    """Write the lesson as one self-contained HTML file (works from file:// with the network off).

    ``export_lesson(run, ds, "lesson.html")``, ``export_lesson(lesson_run, None, path)`` or
    ``export_lesson(run, "lesson.html")``; options as :func:`lesson_page` (``converge``, ``t``,
    ``classroom``, ``title``, ``template``). Returns the path written."""
    if path is None and isinstance(prep, (str, Path)):
        prep, path = None, prep
    if path is None:
        raise TypeError("export_lesson needs a path to write the .html file to")
    path = Path(path)
    path.write_text(lesson_page(run, prep, **options), encoding="utf-8")
    return path


def export_bytes(run, prep=None, **options) -> bytes:
    """The same file's bytes (the lesson view's download button)."""
    return lesson_page(run, prep, **options).encode("utf-8")
