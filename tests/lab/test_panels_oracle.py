"""The lab panels' pure functions (nblab/js/panels/*.js, run in node) against the app's Python on real data.

Python is the oracle, and it is the app's own code: the documents panel's ``documents_frame`` (which
hidden documents the table draws in each of the five orders, the true class, EM's class, the
responsibilities, the flips since t − 1, Bernoulli's words present / absent log-odds), ``confusion_frame``
(rows = true class) and ``document_texts`` (dashboard/lesson/panels/documents.py); the maths panel's
``e_step_numbers`` (on ``nbcore.explain``), ``m_step_numbers`` (eq. 23/24 for one parameter row),
``feature_choices`` and its default document (dashboard/lesson/panels/maths.py);
``dashboard.charts.lesson.top_separating`` (the β chart's rows), ``nbcore.explain`` (the typed message's
log-odds split, as the inspector computes it) and Python's number formatting. The runs are nbcore's, on
the shipped data sets, prepared as the lesson prepares them (``nblab.prepare``).
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import nbcore
from nblab.config import DataConfig
from nblab.prepare import prepare

ROOT = Path(__file__).resolve().parents[2]
PANELS = ROOT / "nblab" / "js" / "panels"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

# the harness: runs the panels' pure functions on the JSON it is given, prints the answers as JSON
HARNESS = r"""
import { readFileSync } from "node:fs";
const base = process.argv[2];
const C = await import(base + "/common.js");
const P = await import(base + "/params.js");
const D = await import(base + "/documents.js");
const M = await import(base + "/maths.js");
const G = await import(base + "/message.js");
const R = await import(base + "/responsibilities.js");
const job = JSON.parse(readFileSync(process.argv[3], "utf8"));
const F = (a) => Float64Array.from(a);
const X = (m) => m.csr ? { csr: { indptr: Int32Array.from(m.csr.indptr), indices: Int32Array.from(m.csr.indices),
  data: F(m.csr.data) }, n: m.n, v: m.v } : { data: F(m.data), n: m.n, v: m.v };
const out = {};
if (job.docs) {
  const d = job.docs, K = d.K;
  const posts = d.posts.map(F);
  const prep = { K, y: Int32Array.from(d.y), scoreMask: Uint8Array.from(d.scoreMask), texts: d.texts,
    featureNames: d.featureNames, X: d.X ? X(d.X) : null, data: d.raw ? { matrix: X(d.raw) } : null };
  const run = { history: posts.map(() => ({})), posterior: (t) => posts[t] };
  const cache = new D.DocumentsCache();
  cache.reset(prep);
  const latest = posts.length - 1;
  const o = out.docs = { at: [] };
  for (const t of d.ts) {
    const at = { sorts: {} };
    for (const s of D.SORTS) {
      const v = D.documentsView(cache, run, t, latest, posts[t], s, d.maxDocs);
      const docs = v.items.map((r) => r.doc);
      const got = { doc: docs, text: docs.map((i) => cache.text(i, d.kind)),
        true: v.items.map((r) => (r.true >= 0 ? d.names[r.true] : "?")), says: v.items.map((r) => d.names[r.pred]),
        r: v.items.map((r) => r.r), conf: v.items.map((r) => r.conf), flipped: v.items.map((r) => D.flipText(d.names, r)),
        correct: v.items.map((r) => r.correct) };
      if (d.betas) Object.assign(got, D.presenceLogOdds(prep.X, F(d.betas[t]), K, docs));
      at.sorts[s] = got;
      at.confusion = v.confusion; at.nFlip = v.nFlip; at.right = v.right; at.nHidden = v.nHidden;
    }
    o.at.push(at);
  }
}
if (job.top) out.top = job.top.map((q) => Array.from(P.topSeparating(F(q.mat), q.R, q.K, q.n, q.log)));
if (job.tables) out.tables = job.tables.map((q) => {
  const params = q.params.theta ? { theta: q.params.theta.map(F) } : Object.fromEntries(Object.entries(q.params).map(([k, a]) => [k, F(a)]));
  const t = P.paramTable(params, q.model, q.features, q.categories, q.K);
  return { rows: t.rows, mat: Array.from(t.mat), short: t.short, label: t.label, logScale: t.logScale, zmin: t.zmin, zmax: t.zmax };
});
if (job.oneLine) out.oneLine = job.oneLine.map(([s, n]) => M.oneLine(s, n));
if (job.defaultDoc) out.defaultDoc = job.defaultDoc.map((q) => M.defaultDoc(F(q.post0), q.yObs, q.K));
if (job.choices) out.choices = job.choices.map((q) => M.featureChoices(q.top, F(q.x)));
if (job.mstep) out.mstep = job.mstep.map((q) => M.mStepNumbers({ model: q.model, X: X(q.X), w: F(q.w), N: q.N, K: q.K, lam: q.lam,
  row: q.row, theta: q.theta ? q.theta.map(F) : undefined }));
if (job.explain) out.explain = job.explain.map((q) => {
  const ex = { prior: q.prior, terms: F(q.terms), joint: q.joint, post: q.post };
  const e = M.eStepNumbers({ prior: q.prior, terms: F(q.terms), joint: q.joint, post: q.post }, q.K);
  const [a, b] = G.compareClasses(q.post);
  const s = G.logOddsSplit(ex, F(q.x), q.K, a, b);
  return { like: e.like, a, b, prior: s.prior, present: s.present, absent: s.absent, total: s.total,
    words: G.pushingWords(s.lo, F(q.x)).slice(0, 10) };
});
if (job.sorts) out.sorts = { names: D.SORTS, help: D.SORT_HELP };
if (job.hist) out.hist = job.hist.map((v) => R.histogram(v).counts);
if (job.fmt) out.fmt = job.fmt.map(([v, d]) => [C.pyFixed(v, d), C.pct(v, d), C.signed(v, d)]);
if (job.ints) out.ints = job.ints.map((n) => C.int(n));
if (job.g) out.g = job.g.map((v) => C.gfmt(v));
if (job.uncertain) out.uncertain = job.uncertain.map((q) => ({ order: R.mostUncertain(F(q.resp), q.rows, q.K, 12),
  unsure: R.unsureCount(F(q.resp), q.rows, q.K) }));
process.stdout.write(JSON.stringify(out));
"""


def run_node(tmp_path: Path, job: dict) -> dict:
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS, encoding="utf-8")
    inp = tmp_path / "job.json"
    inp.write_text(json.dumps(job, allow_nan=True).replace("NaN", "null"), encoding="utf-8")
    got = subprocess.run([NODE, str(harness), PANELS.as_uri(), str(inp)], capture_output=True, text=True, timeout=240)
    assert got.returncode == 0, got.stderr[-3000:]
    return json.loads(got.stdout)


def matrix_json(X) -> dict:
    if sp.issparse(X):
        X = X.tocsr()
        return {"csr": {"indptr": X.indptr.tolist(), "indices": X.indices.tolist(), "data": X.data.astype(float).tolist()},
                "n": X.shape[0], "v": X.shape[1]}
    X = np.asarray(X, dtype=float)
    return {"data": X.ravel().tolist(), "n": X.shape[0], "v": X.shape[1]}


def lesson_run(dataset: str, model: str, hidden: int = 90, iters: int = 6, seed: int = 0, init: str = "labeled", lam: float = 1.0):
    cfg = DataConfig(dataset=dataset, model=model, hidden_pct=hidden, init=init, seed=seed, unlabeled_weight=1.0,
                     max_iter=100, tol=1e-12)
    prep = prepare(cfg)
    if init == "labeled" and not (prep.y_obs >= 0).any():
        init = "random"
    em = nbcore.EM(model=model, n_classes=prep.n_classes, smoothing=lam, init=init, random_state=seed, max_iter=100,
                   tol=1e-12, model_options=nbcore.get_model(model).suggested_options(prep.X))
    run = em.start(prep.X, prep.y_obs)
    for _ in range(iters):
        if run.done:
            break
        run.step()
    return run, prep


def probas_of(run) -> list[np.ndarray]:
    return [np.asarray(run.predict_proba(t=t)) for t in range(len(run.history))]


def u16(b64: str, shape) -> np.ndarray:
    import base64
    return np.frombuffer(base64.b64decode(b64), dtype="<u2").reshape(shape)


@pytest.mark.parametrize("dataset,model,hidden,lam,max_docs", [
    ("synthetic_spam", "bernoulli", 90, 1.0, 200),   # word data without text: "{every word present}"
    ("sms_spam", "bernoulli", 99, 0.01, 200),        # the default lesson: full texts, words present / absent
    ("sms_spam", "multinomial", 95, 1.0, 200),       # raw text, 5,000 hidden documents, no split
    ("digits", "bernoulli", 90, 1.0, 200),           # ten classes: no split; pixels "{…}" (no text)
    ("synthetic_spam", "bernoulli", 95, 1.0, 25),    # a shorter table: the first rows of the same order
])
def test_documents_table_is_the_apps_documents_frame(tmp_path, dataset, model, hidden, lam, max_docs):
    from dashboard.lesson.panels.documents import confusion_frame, document_texts, documents_frame

    run, prep = lesson_run(dataset, model, hidden=hidden, iters=5, lam=lam)
    probas = probas_of(run)
    N = prep.X.shape[0]
    texts = document_texts(prep.ds, N)
    names = [str(c) for c in prep.class_names]
    m = nbcore.get_model(model)
    split_on = len(names) == 2 and m.scores_absent_features
    kind = getattr(prep.ds, "kind", "")
    ds_texts = getattr(prep.ds, "texts", None)
    ts = sorted({0, 1, len(probas) - 1})
    job = {"docs": {
        "K": prep.n_classes, "posts": [p.ravel().tolist() for p in probas], "y": np.asarray(prep.y_eval).tolist(),
        "scoreMask": np.asarray(prep.score_mask).astype(int).tolist(), "ts": ts, "maxDocs": max_docs,
        "kind": kind, "names": names, "featureNames": [str(f) for f in prep.feature_names],
        "texts": None if ds_texts is None else [str(t) for t in ds_texts],
        "X": matrix_json(prep.X), "raw": None if ds_texts is not None else matrix_json(prep.ds.X),
        "betas": [np.asarray(h.params["beta"], dtype=float).ravel().tolist() for h in run.history] if split_on else None}}
    got = run_node(tmp_path, job)["docs"]["at"]
    rows = np.flatnonzero(prep.score_mask)
    for t, g in zip(ts, got):
        P, prev = probas[t], (probas[t - 1] if t > 0 else None)
        pred = P[rows].argmax(axis=1)
        conf = confusion_frame(prep.y_eval[rows], pred, names)
        assert g["confusion"] == conf.to_numpy().tolist()
        assert g["nHidden"] == len(rows)
        assert g["right"] == float(np.mean(pred == prep.y_eval[rows]))
        assert g["nFlip"] == (int((prev[rows].argmax(axis=1) != pred).sum()) if prev is not None else 0)
        split = m.log_likelihood_by_presence(prep.X, run.history[t].params) if split_on else None
        for sort, gs in g["sorts"].items():
            frame = documents_frame(P, prev, prep.y_eval, rows, texts, names, sort, split, limit=max_docs)
            where = (t, sort)
            assert gs["doc"] == frame["doc"].tolist(), where
            assert gs["text"] == frame["text"].tolist(), where
            assert gs["true"] == frame["true"].tolist(), where
            assert gs["says"] == frame["EM says"].tolist(), where
            assert gs["r"] == frame["r(true class)"].tolist(), where          # the same float64s, exactly
            assert gs["conf"] == frame["confidence"].tolist(), where
            assert gs["flipped"] == frame["flipped"].tolist(), where
            assert gs["correct"] == frame["correct"].tolist(), where
            if split_on:
                for which in ("present", "absent"):
                    want = frame[f"words {which} {names[1]}:{names[0]}"].to_numpy()
                    assert np.allclose(gs[which], want, rtol=1e-10, atol=1e-9), (where, which)
            else:
                assert "present" not in gs and not [c for c in frame.columns if c.startswith("words ")]


def test_documents_table_offers_the_apps_orders_with_the_apps_help(tmp_path):
    """The lab's table and the app's offer the same orders, in the same order (the first is the default),
    each with the same help text."""
    from dashboard.lesson.panels import documents

    got = run_node(tmp_path, {"sorts": True})["sorts"]
    assert got["names"] == list(documents.SORTS)
    assert got["help"] == documents.SORTS


def test_maths_panel_default_document_text_and_feature_choices(tmp_path):
    """The maths panel's default document (the hidden one least sure under θ⁽⁰⁾), the document's text
    (derive.one_line with " / " for line breaks, 300 characters) and the long vocabulary's row picker
    (maths.feature_choices), as the app's maths_panel computes them."""
    from dashboard.charts.lesson import top_separating
    from dashboard.lesson.panels.maths import N_TOP_CHOICES, feature_choices
    from dashboard.ui.derive import one_line

    jobs = {"defaultDoc": [], "choices": [], "oneLine": []}
    want = {"defaultDoc": [], "choices": [], "oneLine": []}
    for dataset, model, hidden, lam in (("sms_spam", "bernoulli", 99, 0.01), ("udhr_langid", "multinomial", 90, 1.0),
                                        ("synthetic_spam", "bernoulli", 90, 1.0)):
        run, prep = lesson_run(dataset, model, hidden=hidden, iters=3, lam=lam)
        p0 = np.asarray(run.predict_proba(t=0))
        unl = np.flatnonzero(prep.y_obs < 0)
        jobs["defaultDoc"].append({"post0": p0.ravel().tolist(), "yObs": np.asarray(prep.y_obs).tolist(), "K": p0.shape[1]})
        want["defaultDoc"].append(int(unl[np.argmin(p0[unl].max(axis=1))]))
        tab = run.model.param_table(run.history[-1].params, prep.feature_names, getattr(prep.ds, "categories", None))
        top = top_separating(tab.mat, N_TOP_CHOICES, tab.log_scale)
        for i in (int(unl[0]), int(unl[-1])):
            x = np.asarray(prep.X[i].toarray() if sp.issparse(prep.X) else prep.X[i], dtype=float).ravel()
            jobs["choices"].append({"top": [int(j) for j in top], "x": x.tolist()})
            want["choices"].append(feature_choices(top, x))
        texts = getattr(prep.ds, "texts", None)
        if texts is not None:
            for i in list(unl[:40]) + [int(np.argmax([len(str(s)) for s in texts]))]:
                jobs["oneLine"].append([str(texts[i]), 300])
                want["oneLine"].append(one_line(str(texts[i]).replace(chr(10), " / "), 300))
    odd = "a\\nb\\r\\nc\\t\\x0b\\u2028d" + "é" * 400
    jobs["oneLine"].append([odd, 300])
    want["oneLine"].append(one_line(odd.replace(chr(10), " / "), 300))
    got = run_node(tmp_path, jobs)
    assert got["defaultDoc"] == want["defaultDoc"]
    assert got["choices"] == want["choices"]
    assert got["oneLine"] == want["oneLine"]


def test_top_separating_rows_match_the_apps_chart(tmp_path):
    from dashboard.charts.lesson import top_separating

    cases = []
    for dataset, model in (("synthetic_spam", "bernoulli"), ("sms_spam", "multinomial"), ("digits", "bernoulli")):
        run, prep = lesson_run(dataset, model, iters=3)
        for t in (0, len(run.history) - 1):
            beta = np.asarray(run.history[t].params["beta"], dtype=float)
            for n in (12, 15, 400):
                cases.append({"mat": beta.ravel().tolist(), "R": beta.shape[0], "K": beta.shape[1], "n": n, "log": True,
                              "want": top_separating(beta, n, True).tolist()})
    rng = np.random.default_rng(3)
    means = rng.normal(size=(40, 3))
    cases.append({"mat": means.ravel().tolist(), "R": 40, "K": 3, "n": 15, "log": False,
                  "want": top_separating(means, 15, False).tolist()})
    got = run_node(tmp_path, {"top": [{k: v for k, v in c.items() if k != "want"} for c in cases]})["top"]
    for c, g in zip(cases, got):
        if g != c["want"]:
            # a tie broken by the last bit of a logarithm: the spreads must then be equal to rounding
            m = np.log(np.clip(np.asarray(c["mat"]).reshape(c["R"], c["K"]), 1e-12, None)) if c["log"] else \
                np.asarray(c["mat"]).reshape(c["R"], c["K"])
            spread = m.max(axis=1) - m.min(axis=1)
            assert np.allclose(spread[g], spread[c["want"]], rtol=1e-12, atol=1e-12)
        else:
            assert g == c["want"]


def test_parameter_tables_match_nbcore_param_table(tmp_path):
    jobs, want = [], []
    for dataset, model in (("play_tennis", "categorical"), ("synthetic_spam", "bernoulli"), ("sms_spam", "multinomial")):
        run, prep = lesson_run(dataset, model, hidden=50, iters=2)
        params = run.history[-1].params
        cats = getattr(prep.ds, "categories", None)
        tab = run.model.param_table(params, prep.feature_names, cats)
        if model == "categorical":
            p = {"theta": [np.asarray(th, dtype=float).ravel().tolist() for th in params["theta"]]}
        else:
            p = {"beta": np.asarray(params["beta"], dtype=float).ravel().tolist()}
        jobs.append({"params": p, "model": model, "features": [str(f) for f in prep.feature_names],
                     "categories": None if cats is None else [[str(v) for v in c] for c in cats], "K": prep.n_classes})
        want.append(tab)
    got = run_node(tmp_path, {"tables": jobs})["tables"]
    for g, tab in zip(got, want):
        assert g["rows"] == [str(r) for r in tab.rows]
        assert np.array_equal(np.asarray(g["mat"]).reshape(tab.mat.shape), tab.mat)
        assert (g["short"], g["label"], g["logScale"]) == (tab.short, tab.label, tab.log_scale)
        assert g["zmin"] == tab.zmin and g["zmax"] == pytest.approx(tab.zmax)


@pytest.mark.parametrize("dataset,model", [("synthetic_spam", "bernoulli"), ("sms_spam", "multinomial"),
                                           ("play_tennis", "categorical")])
def test_m_step_row_matches_the_maths_panel(tmp_path, dataset, model):
    """Eq. 23 (α from the M-step's weights) and eq. 24 for a parameter row: the app's maths panel's
    m_step_numbers on the run's weights (run.m_step_weights), and the engine's θ_t."""
    from dashboard.lesson.panels.maths import m_step_numbers

    run, prep = lesson_run(dataset, model, hidden=80, iters=3)
    m = run.model
    t = len(run.history) - 1
    w = np.asarray(run.m_step_weights(t), dtype=float)
    lam = float(run.history[t].smoothing)
    app = m_step_numbers(m, run.Xp, w, lam)
    counts, totals, lam_den = app.counts, app.totals, app.lam_den
    tab = m.param_table(run.history[t].params, prep.feature_names, getattr(prep.ds, "categories", None))
    rows = sorted({0, counts.shape[0] - 1, counts.shape[0] // 2})
    theta = None
    if model == "categorical":
        theta = [np.asarray(th, dtype=float).ravel().tolist() for th in run.history[t].params["theta"]]
    Xn = matrix_json(prep.X)   # the lab's prep.X: the model's matrix (categorical: the codes)
    jobs = [{"model": model, "X": Xn, "w": w.ravel().tolist(), "N": w.shape[0], "K": w.shape[1], "lam": lam, "row": r,
             "theta": theta} for r in rows]
    got = run_node(tmp_path, {"mstep": jobs})["mstep"]
    for r, g in zip(rows, got):
        assert np.allclose(g["alpha"], app.alpha, rtol=1e-12, atol=0)
        assert np.allclose(g["alpha"], run.history[t].alpha, rtol=1e-9, atol=0)
        assert np.allclose(g["cw"], app.class_weight, rtol=1e-12)
        assert g["total"] == pytest.approx(app.total_weight, rel=1e-12)
        assert np.allclose(g["counts"], counts[r], rtol=1e-12, atol=1e-12)
        assert np.allclose(g["totals"], totals[r], rtol=1e-12)
        assert g["den"] == lam_den[r]
        assert np.allclose(g["values"], app.values[r], rtol=1e-12)
        assert np.allclose(g["values"], tab.mat[r], rtol=1e-9)   # the engine's θ_t


def test_e_step_and_message_split_match_nbcore_explain(tmp_path):
    """One document's E-step (eq. 21) from the terms, as the maths panel's e_step_numbers has it (for typed
    messages and for the data's own documents), and the inspector's log-odds split of a typed message."""
    from dashboard.lesson.panels.maths import e_step_numbers

    jobs, want = [], []
    for dataset, model in (("sms_spam", "bernoulli"), ("sms_spam", "multinomial"), ("udhr_langid", "multinomial")):
        run, prep = lesson_run(dataset, model, hidden=90, iters=2)
        snap = run.history[-1]
        texts = ["WINNER!! Claim your free prize now, call 0800 <b>", "ok see you at lunch", "la casa de mi madre es grande"]
        unl = np.flatnonzero(prep.y_obs < 0)
        rows = [np.asarray(prep.X[i].toarray(), dtype=float).ravel() for i in (unl[0], unl[len(unl) // 2])]
        for text in texts + rows:
            if isinstance(text, str):
                x = np.asarray(prep.ds.transform(text).toarray()).ravel()
                x = np.asarray(run.model.adapt(x[None, :], prep.ds.kind)[0], dtype=float) if model == "bernoulli" else x
            else:
                x = text
            ex = nbcore.explain(model, snap.alpha, snap.params, x)
            app = e_step_numbers(run.model, snap.alpha, snap.params, x)
            K = prep.n_classes
            jobs.append({"prior": np.asarray(ex.log_prior).tolist(), "terms": np.asarray(ex.contributions).ravel().tolist(),
                         "joint": np.asarray(ex.log_joint).tolist(), "post": np.asarray(ex.posterior).tolist(),
                         "x": x.tolist(), "K": K})
            post = np.asarray(ex.posterior)
            order = np.argsort(-post, kind="stable")
            a, b = (1, 0) if K == 2 else (int(order[0]), int(order[1]))
            lo = ex.log_odds(a, b)
            present = np.asarray(ex.present)
            want.append({"like": app.log_likelihood, "a": a, "b": b,
                         "prior": float(ex.log_prior[a] - ex.log_prior[b]),
                         "present": float(np.sum(np.where(present, lo, 0.0))),
                         "absent": float(np.sum(np.where(present, 0.0, lo))),
                         "total": float(ex.log_prior[a] - ex.log_prior[b]) + float(np.sum(lo)),
                         "words": np.flatnonzero(present)[np.argsort(-np.abs(lo[present]), kind="stable")][:10].tolist()})
    got = run_node(tmp_path, {"explain": jobs})["explain"]
    for g, w in zip(got, want):
        assert np.allclose(g["like"], w["like"], rtol=1e-12)
        assert (g["a"], g["b"]) == (w["a"], w["b"])
        for key in ("prior", "present", "absent", "total"):
            assert g[key] == pytest.approx(w[key], rel=1e-10, abs=1e-10), key
        assert g["words"] == w["words"]


def test_responsibility_histogram_and_uncertain_rows_match_the_app(tmp_path):
    from dashboard.charts.lesson import responsibility_histogram

    run, prep = lesson_run("sms_spam", "bernoulli", hidden=90, iters=3)
    resp = np.asarray(run.responsibilities(len(run.history) - 1))
    hidden = np.asarray(prep.y_obs) < 0
    rh = resp[hidden]
    spec = responsibility_histogram(rh, [str(c) for c in prep.class_names])
    entropy = -np.sum(np.where(rh > 0, rh * np.log(np.where(rh > 0, rh, 1.0)), 0.0), axis=1)
    order = np.flatnonzero(hidden)[np.argsort(-entropy, kind="stable")][:12]
    rows = np.flatnonzero(hidden).tolist()
    got = run_node(tmp_path, {"hist": [rh[:, 1].tolist()],
                              "uncertain": [{"resp": resp.ravel().tolist(), "rows": rows, "K": resp.shape[1]}]})
    assert got["hist"][0] == spec["data"][0]["y"]
    assert got["uncertain"][0]["order"] == order.tolist()
    assert got["uncertain"][0]["unsure"] == int(np.sum(rh.max(axis=1) < 0.8))


def test_numbers_are_formatted_as_python_formats_them(tmp_path):
    rng = np.random.default_rng(0)
    values = [k / 8 for k in range(-20, 21)] + [k / 1000 + 0.0005 for k in range(0, 50)] + \
        rng.normal(scale=3, size=200).tolist() + rng.uniform(0, 1, size=200).tolist() + [0.0, -0.0, 1e-9, 123456.789]
    cases = [[v, d] for v in values for d in (0, 1, 2, 3, 4)]
    ints = [0, 7, 999, 1000, 5574, 1234567]
    lams = [0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 1e-5, 2.5e-7, 123456.0, 1234567.0]
    got = run_node(tmp_path, {"fmt": cases, "ints": ints, "g": lams})
    for (v, d), (fixed, pct, sign) in zip(cases, got["fmt"]):
        assert fixed == f"{v:.{d}f}", (v, d)
        assert pct == f"{v:.{d}%}", (v, d)
        assert sign == f"{v:+.{d}f}".replace("-", "−"), (v, d)
    assert got["ints"] == [f"{n:,}" for n in ints]
    assert got["g"] == [f"{v:g}" for v in lams]

