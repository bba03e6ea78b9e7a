"""A lesson run as one self-contained HTML file that works offline (no Streamlit here).

:func:`export_lesson` writes the run as it is — every iteration computed so far (or, with
``converge=True``, up to convergence) — into one ``.html`` file: the browser player
(``player/player.js``, unchanged) with the chart specs of :mod:`dashboard.lesson.specs` (the
builder the app draws with), our plotly.js build inlined (gzip + base64, unpacked by the browser),
and the panels a teacher needs without the server: the documents table of the hidden documents,
the maths of one document, what the E-step shows between the two half-steps, the settings, the
data card's source and licence, and a link back to the live lesson. ``offline.js`` stands in for
Streamlit's components-v2 API (``data``, ``setStateValue``, ``setTriggerValue``); Step, the E/M
half-steps and Play move through the precomputed frames.

:func:`lesson_data` returns the same content as a JSON-able dict: the notebook widget
(``dashboard.lesson.widget``) sends it to the same ``offline.js``.

Everything that comes from the data (texts, class and feature names) travels as JSON inside a
``<script type="application/json">`` block with ``<``, ``>`` and ``&`` escaped, and the page puts it
on screen with ``textContent`` only: user data is never HTML. Names inside the charts are escaped by
the chart builders (``derive.plot_text``).
"""
from __future__ import annotations

import base64
import datetime as _dt
import html
import importlib.util
import json
import re
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlencode

import numpy as np

import nbcore
from dashboard.charts import lesson as lesson_charts
from dashboard.charts import theme
from dashboard.lesson import specs
from nblab import numbers
from nblab.prepare import Prepared

HERE = Path(__file__).resolve().parent
PLAYER_DIR = HERE / "player"
OFFLINE_JS = PLAYER_DIR / "offline.js"
OFFLINE_CSS = PLAYER_DIR / "offline.css"
PLOTLY_GZ = HERE.parent / "static" / "plotly-nbem.min.js.gz"
PLOTLY_LICENSE = HERE.parent / "static" / "plotly-LICENSE.txt"

#: where "Open the live lesson" points when the caller does not say (the app's default address)
DEFAULT_APP_URL = "http://localhost:8501/"
#: the documents table holds at most this many hidden documents (the app's table draws 200)
MAX_DOCS = 200
#: a document's text is cut to this many characters in the table
TEXT_CHARS = 400
#: Play speeds, iterations per second (as the app's player)
FPS = {"slow": 1, "normal": 5, "fast": 20, "fastest": 40}
#: the data sets whose name a link can carry (an upload or a shared file is not on another server)
_NOT_LINKABLE = ("upload", "shared")


# ---- pieces shared with the app's player -------------------------------------------------------------

def _payload_module():
    """``dashboard.lesson.player.payload`` (ChartLog), without importing Streamlit: the player package's
    ``__init__`` mounts the Streamlit component, so unless the app has imported it already, the pure
    module is loaded from its file (a notebook, or an installed wheel without the dashboard extra, never
    pays for importing Streamlit). The app's later import finds it under its own name."""
    name = "dashboard.lesson.player.payload"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, PLAYER_DIR / "payload.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def chart_template() -> dict:
    """The plotly template the player draws with, in the app, the offline file and the notebook: the
    app's theme with Streamlit's light theme (``player/streamlit_theme.json``: fonts, greys, automargin,
    left-aligned titles) merged in, as Streamlit's frontend does for st.plotly_chart, and then the
    app's readable text colours (``theme.TEXT_LAYOUT``, as the server's charts get them)."""
    streamlit_theme = json.loads((PLAYER_DIR / "streamlit_theme.json").read_text(encoding="utf-8"))
    tpl = dict(theme.TEMPLATE)
    # the app's text colours last: Streamlit's grey (#808495) is 3.7:1 on white, theme.TEXT_LAYOUT's ≥ 4.5:1
    tpl["layout"] = _merge(_merge(tpl.get("layout", {}), streamlit_theme), theme.TEXT_LAYOUT)
    return tpl


def _strip_template(spec: dict) -> dict:
    """The template is sent once per file, not once per chart (as the app's player)."""
    if "template" not in spec.get("layout", {}):
        return spec
    layout = dict(spec["layout"])
    del layout["template"]
    return {"data": spec["data"], "layout": layout}


# ---- a run without the app's data settings (a notebook) ---------------------------------------------

def prepared_from_run(run, *, y_true=None, class_names=None, feature_names=None, texts=None,
                      image_shape=None, name: str = "your data") -> Prepared:
    """A :class:`Prepared` for a plain ``nbcore`` run (``EM(...).start(X, y)``): the labels EM saw are
    the run's, ``y_true`` (optional, −1 = unknown) scores the hidden ones."""
    y_obs = np.asarray(run.y)
    K = int(run.n_classes)
    y_eval = np.full(len(y_obs), -1) if y_true is None else np.asarray(y_true)
    if y_true is None:
        y_eval = np.where(y_obs >= 0, y_obs, -1)
    X = run.Xp
    V = X.shape[1]
    ds = SimpleNamespace(name=name, texts=None if texts is None else list(texts), image_shape=image_shape,
                         categories=None, truth=None, card=None, kind="", X=X,
                         feature_names=list(feature_names) if feature_names is not None else None)
    return Prepared(ds, X, y_obs, (y_obs < 0) & (y_eval >= 0), y_eval, K,
                    list(class_names) if class_names is not None else [str(k) for k in range(K)],
                    list(feature_names) if feature_names is not None else [f"x{j}" for j in range(V)])


def prepared_from_dataset(run, ds) -> Prepared:
    """A :class:`Prepared` for a plain run on an ``nbcore`` data set: its names, texts, data card and true
    labels (``y_true`` when the set has one, else ``y``) score the rows the run did not see."""
    y_true = getattr(ds, "y_true", None)
    y_eval = np.asarray(y_true if y_true is not None else ds.y)
    y_obs = np.asarray(run.y)
    try:
        X = ds.for_model(run.settings.model)
    except Exception:  # the data set cannot give this model's matrix: the run's own
        X = run.Xp
    K = int(run.n_classes)
    names = list(getattr(ds, "class_names", None) or [str(k) for k in range(K)])
    feats = list(getattr(ds, "feature_names", None) or [f"x{j}" for j in range(X.shape[1])])
    return Prepared(ds, X, y_obs, (y_obs < 0) & (y_eval >= 0), y_eval, K, names, feats)


def _unpack(run, prep):
    """(EMRun, Prepared, DataConfig or None, λ or None, iteration shown or None) from a LessonRun, an
    (EMRun, Prepared) pair, or a plain EMRun."""
    if hasattr(run, "run") and hasattr(run, "prep") and hasattr(run, "cfg"):   # a LessonRun
        lr = run
        return lr.run, prep or lr.prep, lr.cfg, lr.smoothing, lr.t
    if prep is None:
        prep = prepared_from_run(run)
    elif not isinstance(prep, Prepared):   # an nbcore data set
        prep = prepared_from_dataset(run, prep)
    return run, prep, None, None, None


# ---- the numbers ------------------------------------------------------------------------------------

def accuracy_series(run, prep) -> list[float]:
    """Accuracy on the hidden labels at every iteration (``numbers.score``, as the metrics row)."""
    return [numbers.score(np.asarray(run.predict_proba(t=t)).argmax(axis=1), prep) for t in range(len(run.history))]


def baseline_accuracy(run, prep, smoothing: float) -> float | None:
    """Supervised-only Naive Bayes on the visible labels, scored on the hidden ones (None when there
    is nothing to fit or to score)."""
    if not (prep.y_obs >= 0).any() or not prep.score_mask.any():
        return None
    opts = dict(run.settings.model_options)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alpha, params = nbcore.supervised_fit(run.settings.model, prep.X, prep.y_obs, prep.n_classes,
                                                  smoothing, **opts)
            proba = nbcore.predict_proba(run.settings.model, alpha, params, prep.X, **opts)
    except ValueError:
        return None
    return numbers.score(np.asarray(proba).argmax(axis=1), prep)


def document_texts(prep) -> list[str]:
    """Each row's text; for word data without text, the words present; else empty."""
    n = prep.X.shape[0]
    texts = getattr(prep.ds, "texts", None)
    if texts is not None:
        return [str(t) for t in texts]
    if getattr(prep.ds, "kind", "") not in ("binary", "counts"):
        return [""] * n
    X = prep.X
    out = []
    for i in range(n):
        r = X[i]
        r = np.asarray(r.toarray() if hasattr(r, "toarray") else r).ravel()
        out.append("{" + ", ".join(str(prep.feature_names[j]) for j in np.flatnonzero(r > 0)[:40]) + "}")
    return out


def _b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def _unit16(v: np.ndarray) -> np.ndarray:
    """Values in [0, 1] as uint16 (65535 = 1; NaN → 65535 flagged by the caller's own mask)."""
    return np.rint(np.clip(np.nan_to_num(v, nan=0.0), 0.0, 1.0) * 65535).astype("<u2")


def documents_data(run, prep, probas: list, t_shown: int, max_docs: int = MAX_DOCS) -> dict | None:
    """The hidden documents the table shows at every iteration (None when no hidden label is known, or
    without any visible label: the clusters then carry no class names, as in the app).

    The table holds at most ``max_docs`` documents: those whose predicted class flipped most often
    during the run, then the ones EM is least sure about at the iteration shown. Per iteration and
    document: the class EM gives it (uint8), its confidence and the responsibility of its true class
    (uint16, 1 = 65535); per iteration, the flips and the confusion matrix over *every* hidden document."""
    mask = np.asarray(prep.score_mask, dtype=bool)
    if not mask.any() or not (np.asarray(prep.y_obs) >= 0).any():
        return None
    rows = np.flatnonzero(mask)
    K = prep.n_classes
    yt = np.asarray(prep.y_eval)[rows].astype(np.int64)
    preds = np.stack([p[rows].argmax(axis=1) for p in probas])           # (T, R)
    flips_per_doc = (np.diff(preds, axis=0) != 0).sum(axis=0) if len(probas) > 1 else np.zeros(len(rows), int)
    conf_shown = probas[t_shown][rows].max(axis=1)
    order = np.lexsort((rows, conf_shown, -flips_per_doc))
    keep = np.sort(order[:max(1, int(max_docs))])
    texts = document_texts(prep)
    sel = rows[keep]
    P = np.stack([p[sel] for p in probas])                               # (T, D, K)
    pred = P.argmax(axis=2)
    conf = P.max(axis=2)
    r_true = np.take_along_axis(P, np.broadcast_to(yt[keep][None, :, None], (P.shape[0], len(sel), 1)), axis=2)[..., 0]
    confusion, n_flip = [], []
    for t in range(len(probas)):
        confusion.append(np.asarray(nbcore.confusion(yt, preds[t], K)).T.astype(int).tolist())   # rows: true class
        n_flip.append(0 if t == 0 else int((preds[t] != preds[t - 1]).sum()))
    return {
        "nHidden": int(len(rows)), "docs": sel.tolist(), "true": yt[keep].tolist(),
        "text": [_cut(texts[i]) for i in sel],
        "pred": _b64(pred.astype(np.uint8)), "conf": _b64(_unit16(conf)), "rTrue": _b64(_unit16(r_true)),
        "confusion": confusion, "nFlip": n_flip, "right": [float(np.mean(preds[t] == yt)) for t in range(len(probas))],
    }


def _cut(text: str) -> str:
    s = " / ".join(str(text).splitlines())
    return s if len(s) <= TEXT_CHARS else s[: TEXT_CHARS - 1] + "…"


def _least_sure_doc(run, prep) -> int:
    """The maths panel's default document, as in the app: the hidden one EM is least sure about under θ⁽⁰⁾."""
    unl = np.flatnonzero(prep.y_obs < 0)
    if not len(unl):
        return 0
    p = np.asarray(run.predict_proba(t=0))
    return int(unl[np.argmin(p[unl].max(axis=1))])


def _row(X, i: int) -> np.ndarray:
    r = X[i]
    return np.asarray(r.toarray() if hasattr(r, "toarray") else r, dtype=float).ravel()


def maths_data(run, prep, doc: int, t_shown: int, model_name: str) -> dict:
    """The maths panel of one document at every iteration: the E-step that made θ_t (eq. 21; at t = 0
    the one under θ⁽⁰⁾) and the M-step (eq. 23; eq. 24 for one parameter row, the top separating one at
    the iteration shown), with the engine's numbers (``nbcore.explain``, the model's statistics and
    ``run.m_step_weights``: the functions the app's maths panel calls)."""
    model = run.model
    hist = run.history
    N, K = prep.X.shape[0], prep.n_classes
    doc = int(max(0, min(int(doc), N - 1)))
    x = _row(run.Xp, doc)
    labelled = int(prep.y_obs[doc]) >= 0
    view = specs.param_view(run, model_name, prep, t_shown)
    row = int(lesson_charts.top_separating(view.mat, 1, view.log_scale)[0])
    texts = getattr(prep.ds, "texts", None)
    e_steps, m_steps = [], []
    parts_ok = model.estimate_parts(model.statistics(run.Xp[:1], np.ones((1, K)) / K)) is not None
    for t in range(len(hist)):
        src = hist[max(0, t - 1)]
        if not labelled:
            ex = nbcore.explain(model, src.alpha, src.params, x)
            e_steps.append({"prior": np.asarray(ex.log_prior).tolist(),
                            "like": np.asarray(ex.contributions).sum(axis=0).tolist(),
                            "joint": np.asarray(ex.log_joint).tolist(), "post": np.asarray(ex.posterior).tolist()})
        if t == 0:
            m_steps.append(None)
            continue
        w = np.asarray(run.m_step_weights(t), dtype=float)
        cw = w.sum(axis=0)
        m = {"cw": cw.tolist(), "total": float(cw.sum()), "alpha": np.asarray(nbcore.class_prior(w)).tolist(),
             "engineAlpha": np.asarray(hist[t].alpha).tolist(), "lam": float(hist[t].smoothing)}
        if parts_ok:
            counts, totals, lam_den = (np.asarray(a, dtype=float) for a in model.estimate_parts(model.statistics(run.Xp, w)))
            lam = float(hist[t].smoothing)
            with np.errstate(invalid="ignore", divide="ignore"):
                vals = (lam + counts[row]) / (lam_den[row] * lam + totals[row])
            m.update(counts=counts[row].tolist(), totals=totals[row].tolist(), den=float(lam_den[row]),
                     values=vals.tolist(), engine=specs.param_view(run, model_name, prep, t).mat[row].tolist())
        m_steps.append(m)
    return {
        "doc": doc, "labelled": labelled, "label": int(prep.y_obs[doc]), "true": int(prep.y_eval[doc]),
        "text": None if texts is None else _cut(texts[doc]),
        "rowLabel": str(view.rows[row]), "symbol": view.short, "model": model.name,
        "e": e_steps, "m": m_steps,
    }


def resp_log(run, prep, probas: list, font_size: int):
    """What the E-step shows between the two half-steps at every iteration t: the histogram of the hidden
    documents' responsibilities under θ_t (``lesson_charts.responsibility_histogram``, the app's chart),
    as compact frames (``payload.ChartLog``). None without hidden documents."""
    hidden = np.asarray(prep.y_obs) < 0
    if not hidden.any():
        return None
    names = [str(c) for c in prep.class_names]
    payload = _payload_module()
    log = payload.ChartLog("resp", {"resp": lambda t: _strip_template(
        lesson_charts.responsibility_histogram(probas[t][hidden], names, font_size))})
    log.extend(len(probas))
    return {"n": len(log.frames), **log.payload(0, 0, -1), "unsure": [int(np.sum(p[hidden].max(axis=1) < 0.8))
                                                                      for p in probas]}


# ---- settings, data card, link back ---------------------------------------------------------------------

def card_parts(card: str | None) -> dict:
    """The data card's **Source:** and **Licence:** paragraphs (plain text), and the whole card."""
    out = {"source": None, "licence": None, "card": card or None}
    if not card:
        return out
    for para in re.split(r"\n\s*\n", card):
        m = re.match(r"\s*\*\*(Source|Licen[cs]e)[^*]*\*\*:?\s*(.*)", para, flags=re.S)
        if m:
            key = "source" if m.group(1) == "Source" else "licence"
            if out[key] is None:
                out[key] = " ".join(m.group(2).split())
    return out


def live_url(app_url: str | None, cfg, smoothing, t: int, classroom: bool) -> str | None:
    """The live lesson with the same settings, as the app reads them from its URL (dashboard/ui/controls.py
    keys; ``t`` recomputes the run to that iteration). None without the run's data settings."""
    if cfg is None:
        return None
    q = {}
    if cfg.dataset not in _NOT_LINKABLE:
        q["dataset"] = cfg.dataset
    q.update({"model": cfg.model, "hidden": int(cfg.hidden_pct), "lam": f"{float(smoothing):g}",
              "init": cfg.init, "seed": int(cfg.seed), "uw": f"{float(cfg.unlabeled_weight):g}",
              "max_iter": int(cfg.max_iter), "tol": f"{float(cfg.tol):.0e}", "t": int(t)})
    if classroom:
        q["classroom"] = "true"
    return (app_url or DEFAULT_APP_URL).split("?")[0].split("#")[0] + "?" + urlencode(q)


def settings_rows(run, prep, cfg, smoothing) -> list[list[str]]:
    """(name, value) of the run's settings, as the lesson's sidebar names them."""
    s = run.settings
    rows = [["Data set", str(getattr(prep.ds, "name", None) or (cfg.dataset if cfg else "—"))],
            ["Event model", str(s.model)],
            ["Documents", f"{prep.X.shape[0]:,}"],
            ["Labels hidden", f"{cfg.hidden_pct} %" if cfg else f"{int((prep.y_obs < 0).sum()):,} of {len(prep.y_obs):,}"],
            ["Smoothing λ (next step)", f"{float(smoothing if smoothing is not None else s.smoothing):g}"],
            ["Initialisation", str(cfg.init if cfg else s.init)],
            ["Seed", str(cfg.seed if cfg else s.random_state)],
            ["Unlabelled weight", f"{float(s.unlabeled_weight):g}"],
            ["Max iterations", str(cfg.max_iter if cfg else s.max_iter)],
            ["Tolerance", f"{float(cfg.tol if cfg else s.tol):.0e}"]]
    text = getattr(cfg, "text", None) if cfg is not None else None
    if text is not None and hasattr(text, "describe"):
        rows.append(["Text → features", str(text.describe())])
    return rows


def iteration_words(run, prep, acc, base) -> list[str]:
    """Each iteration's state in words, after "Iteration t of n: " (the player's status sentence, shown
    above the charts and announced to screen readers): the class priors and the accuracy against
    supervised-only ("α ham 0.87, spam 0.13; accuracy 97.0%, 9.3 points above supervised")."""
    names = [str(c) for c in prep.class_names]
    out = []
    for i, snap in enumerate(run.history):
        text = "α " + ", ".join(f"{n} {a:.2f}" for n, a in zip(names, np.asarray(snap.alpha, dtype=float)))
        a = acc[i] if i < len(acc) else None
        shown = numbers.percent(a)
        if shown is not None:
            text += f"; accuracy {shown}"
            if base is not None:
                d = (a - base) * 100
                text += (", the same as supervised" if abs(d) < 0.05
                         else f", {abs(d):.1f} points {'above' if d > 0 else 'below'} supervised")
        out.append(text)
    return out


def status_text(run) -> str:
    from nblab.lesson_run import status_line
    return status_line(run)[1]


# ---- the whole lesson -------------------------------------------------------------------------------------

def lesson_data(run, prep=None, *, cfg=None, smoothing=None, acc=None, base=None, t: int | None = None,
                classroom: bool = False, pick: str | None = None, doc: int | None = None, speed: str = "normal",
                app_url: str | None = None, converge: bool = False, max_docs: int = MAX_DOCS,
                truth: bool = True, title: str | None = None, final: bool = True, token: str | None = None) -> dict:
    """Everything the offline page shows, as a JSON-able dict (see the module's docstring).

    ``run``: a ``LessonRun``, or an ``nbcore`` run with its ``prep`` (a plain run without one gets a
    minimal :func:`prepared_from_run`). ``acc``/``base``: the page's accuracy series and supervised-only
    accuracy when the caller already has them (else computed). ``t``: the iteration the file opens at
    (default: the one on screen, else the latest). ``converge``: step the run until EM stops first (a
    LessonRun's own run is stepped through :meth:`LessonRun.converge`, so the app's run moves with it).
    ``pick``: the parameter view (default: the data set's first). ``doc``: the maths panel's document
    (default: the hidden one EM is least sure about under θ⁽⁰⁾, as in the app). ``final``: the file holds
    the whole run (Play stops at its end); False for a view that asks for more (the notebook widget).
    ``token``: the player's run id (a widget keeps one across updates, so Play goes on)."""
    lesson_run = run if hasattr(run, "converge") and hasattr(run, "cfg") else None
    if converge:
        if lesson_run is not None:
            lesson_run.converge()
        elif not run.done:
            run.run_to_convergence()
    run, prep, cfg0, lam0, t0 = _unpack(run, prep)
    if run.pending is not None:   # an E-step pending: the export holds whole iterations
        run = run.with_settings()
        run._pending = None
    cfg = cfg or cfg0
    smoothing = float(smoothing if smoothing is not None else lam0 if lam0 is not None else run.smoothing)
    latest = len(run.history) - 1
    if converge:
        t0 = None
    t = latest if t is None and t0 is None else int(t if t is not None else t0)
    t = max(0, min(t, latest))
    fs = 22 if classroom else 15
    model = str(run.settings.model)

    probas = [np.asarray(run.predict_proba(t=k)) for k in range(latest + 1)]
    if acc is None or len(acc) < latest + 1:
        acc = [numbers.score(p.argmax(axis=1), prep) for p in probas]
    acc = list(acc[: latest + 1])
    if base is None:
        base = baseline_accuracy(run, prep, smoothing)

    # the time-series charts: specs.series_specs, without the iteration marker (the player draws it);
    # a version per chart that changes when the chart does (the player redraws only those)
    token = token or f"offline-{abs(hash((id(run), latest))) % 10 ** 8}"
    lam_key = abs(hash(tuple(float(s.smoothing) for s in run.history))) % 10 ** 8
    series = [{"name": n, "ver": f"{token}:{n}:{latest}:{lam_key}:{base}", "spec": _strip_template(s)}
              for n, s in specs.series_specs(run, prep, acc, base, fs)]
    main = {
        "role": "main", "sid": "offline", "run": token, "n": latest + 1,
        "done": True if final else bool(run.done), "seq": 0, "t": t,
        "revealed": latest, "fps": FPS.get(speed, FPS["normal"]), "lowerWaiting": False,
        "acc": [numbers.percent(a) for a in acc],
        "accDelta": [numbers.delta_text(a, base) if base is not None and np.isfinite(a) else None for a in acc],
        # each iteration in words: the player's status sentence ("Iteration 5 of 15: α …; accuracy …")
        "words": iteration_words(run, prep, acc, base),
        "series": series, "columns": 2 if classroom else len(series), "classroom": bool(classroom),
        "tpl": chart_template(), "plotly": {"bundle": None, "chunk": None},
    }

    # the parameter chart (and the truth scatter), one compact frame per iteration: payload.ChartLog
    options = specs.param_view_options(prep.ds)
    pick = pick if pick in options else options[0]
    truth_beta = None
    if truth:
        tr = specs.truth_of(prep, model, user_data=cfg is not None and cfg.dataset in _NOT_LINKABLE)
        truth_beta = None if tr is None else tr["beta"]
    builders = {"params": lambda k: _strip_template(specs.param_spec(run, prep, model, k, pick, fs, classroom))}
    if truth_beta is not None:
        builders["truth"] = lambda k: _strip_template(specs.truth_spec(run, prep, k, truth_beta, fs))
    payload = _payload_module()
    log = payload.ChartLog(("offline", pick), builders)
    log.extend(latest + 1)
    charts = list(builders)
    params = {"role": "params", "token": f"{token}-p", "n": len(log.frames), **log.payload(0, 0, -1),
              "charts": charts, "widths": [3, 2] if len(charts) == 2 else [1], "plotly": main["plotly"]}

    card = card_parts(getattr(prep.ds, "card", None))
    doc = _least_sure_doc(run, prep) if doc is None else int(doc)
    name = str(getattr(prep.ds, "name", None) or (cfg.dataset if cfg else "your data"))
    return {
        "version": 1, "title": title or f"Naive Bayes + EM: {name}",
        "exported": _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M"),
        "nbcore": nbcore.__version__,
        "classNames": [str(c) for c in prep.class_names], "classroom": bool(classroom),
        "status": status_text(run), "view": pick, "model": model,
        "lls": [float(s.log_likelihood) for s in run.history],
        "main": main, "params": params,
        "docs": documents_data(run, prep, probas, t, max_docs),
        "maths": maths_data(run, prep, doc, t, model),
        "resp": resp_log(run, prep, probas, fs),
        "settings": settings_rows(run, prep, cfg, smoothing),
        "card": card, "dataset": name,
        "description": str(getattr(prep.ds, "description", "") or ""),
        "link": live_url(app_url, cfg, smoothing, t, classroom),
    }


def _json_for_script(obj) -> str:
    """JSON safe inside <script type="application/json">: no "</script>", no "<!--", no entities."""
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_json_default)
    return s.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _json_default(v):
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return None if not np.isfinite(v) else float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    raise TypeError(f"{type(v).__name__} is not JSON")


def _finite(obj):
    """NaN and ±∞ become null (JSON has no NaN; plotly draws null as a gap)."""
    if isinstance(obj, float):
        return obj if np.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    if isinstance(obj, np.floating):
        return float(obj) if np.isfinite(obj) else None
    if isinstance(obj, np.ndarray):
        return _finite(obj.tolist())
    return obj


def player_sources() -> dict:
    """The player's code and look: player.js (the app's, unchanged), player.css, offline.js and offline.css."""
    return {"player": (PLAYER_DIR / "player.js").read_text(encoding="utf-8"),
            "css": (PLAYER_DIR / "player.css").read_text(encoding="utf-8") + "\n"
                   + OFFLINE_CSS.read_text(encoding="utf-8"),
            "offline": OFFLINE_JS.read_text(encoding="utf-8")}


def plotly_b64() -> str:
    """Our plotly.js build, gzipped as shipped, in base64 (the page unpacks it with DecompressionStream)."""
    return base64.b64encode(PLOTLY_GZ.read_bytes()).decode("ascii")


def _script_text(js: str) -> str:
    """JavaScript safe inside an inline <script>: "</script" cannot end it early."""
    return re.sub(r"</(script)", r"<\\/\1", js, flags=re.I)


def export_html(data: dict) -> str:
    """The offline page for :func:`lesson_data`'s dict: one HTML document, nothing fetched."""
    src = player_sources()
    title = html.escape(str(data.get("title", "Naive Bayes + EM")))
    lic = html.escape(PLOTLY_LICENSE.read_text(encoding="utf-8").strip().splitlines()[0]) if PLOTLY_LICENSE.is_file() else "MIT"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        # nothing on this page may load from the network: only inline code, data: and blob: URLs
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "script-src 'unsafe-inline' 'unsafe-eval' blob:; style-src 'unsafe-inline'; img-src data: blob:; "
        "font-src data:; connect-src data: blob:\">\n"
        f"<title>{title}</title>\n<style>\n{src['css']}\n</style>\n</head>\n<body>\n"
        "<noscript>This lesson needs JavaScript.</noscript>\n"
        "<div id=\"nbem-lesson\"></div>\n"
        f"<script type=\"application/json\" id=\"nbem-data\">{_json_for_script(_finite(data))}</script>\n"
        f"<script type=\"application/json\" id=\"nbem-player-src\">{_json_for_script(src['player'])}</script>\n"
        f"<script type=\"text/plain\" id=\"nbem-plotly\" data-licence=\"plotly.js: {lic}\">{plotly_b64()}</script>\n"
        f"<script>\n{_script_text(src['offline'])}\n</script>\n"
        "<script>NBEMOffline.page(document.getElementById('nbem-lesson'));</script>\n"
        "</body>\n</html>\n")


def export_lesson(run, prep=None, path=None, **options) -> Path:
    """Write the lesson run as one self-contained HTML file (works from file:// with the network off).

    ``run``: a ``LessonRun``, or an ``nbcore`` run with the lesson's ``prep`` or the ``nbcore`` data set it
    ran on (its names, texts, data card and true labels), or alone;
    ``options``: see :func:`lesson_data` (``converge``, ``t``, ``classroom``, ``app_url``, ``pick``,
    ``doc``, ``max_docs``…). Returns the path written."""
    if path is None and isinstance(prep, (str, Path)):   # export_lesson(run, "lesson.html")
        prep, path = None, prep
    if path is None:
        raise TypeError("export_lesson needs a path to write the .html file to")
    path = Path(path)
    path.write_text(export_html(lesson_data(run, prep, **options)), encoding="utf-8")
    return path


def export_bytes(run, prep=None, **options) -> bytes:
    """The same file's bytes (the lesson view's download button)."""
    return export_html(lesson_data(run, prep, **options)).encode("utf-8")
