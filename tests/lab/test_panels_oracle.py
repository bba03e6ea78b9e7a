"""The lab panels' pure functions (nblab/js/panels/*.js, run in node) against the app's Python on real data.

Python is the oracle: ``dashboard.lesson.export.documents_data`` (which hidden documents the table holds,
their text, the confusion matrix with rows = true class, the flips and the share right at every
iteration), ``dashboard.charts.lesson.top_separating`` (the β chart's rows), ``nbcore.explain`` (the E-step
of one document and the typed message's log-odds split, as the inspector computes it),
``model.estimate_parts`` with ``nbcore.class_prior`` (the M-step of eq. 23/24 for one parameter row) and
Python's number formatting. The runs are nbcore's, on the shipped data sets, prepared as the lesson
prepares them (``nblab.prepare``).
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
    featureNames: d.featureNames, X: d.X ? X(d.X) : null };
  const run = { history: posts.map(() => ({})), posterior: (t) => posts[t] };
  const cache = new D.DocumentsCache();
  cache.reset(prep);
  const latest = posts.length - 1;
  const v = D.documentsView(cache, run, d.tShown, latest, posts[d.tShown], "document order", d.maxDocs);
  const o = out.docs = {};
  o.docs = v.items.map((r) => r.doc);
  o.text = o.docs.map((i) => cache.text(i, d.kind));
  o.confusion = [], o.nFlip = [], o.right = [];
  for (let t = 0; t <= latest; t++) {
    const w = D.documentsView(cache, run, t, latest, posts[t], "least sure first", d.maxDocs);
    o.confusion.push(w.confusion); o.nFlip.push(w.nFlip); o.right.push(w.right);
  }
  o.sorted = {};
  for (const s of D.SORTS) o.sorted[s] = D.documentsView(cache, run, d.tShown, latest, posts[d.tShown], s, d.maxDocs).items.map((r) => r.doc);
}
if (job.top) out.top = job.top.map((q) => Array.from(P.topSeparating(F(q.mat), q.R, q.K, q.n, q.log)));
if (job.tables) out.tables = job.tables.map((q) => {
  const params = q.params.theta ? { theta: q.params.theta.map(F) } : Object.fromEntries(Object.entries(q.params).map(([k, a]) => [k, F(a)]));
  const t = P.paramTable(params, q.model, q.features, q.categories, q.K);
  return { rows: t.rows, mat: Array.from(t.mat), short: t.short, label: t.label, logScale: t.logScale, zmin: t.zmin, zmax: t.zmax };
});
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


@pytest.mark.parametrize("dataset,model,hidden,max_docs", [
    ("synthetic_spam", "bernoulli", 90, 200),   # word data without text: "{w1, w2, …}"
    ("sms_spam", "multinomial", 95, 200),       # raw text, cut at 400 characters, 5,000 hidden documents
    ("synthetic_spam", "bernoulli", 95, 25),    # fewer rows than the flippers: the flip count decides
])
def test_documents_table_picks_the_apps_documents(tmp_path, dataset, model, hidden, max_docs):
    from dashboard.lesson import export

    run, prep = lesson_run(dataset, model, hidden=hidden, iters=5)
    probas = probas_of(run)
    t_shown = len(probas) - 1
    want = export.documents_data(run, prep, probas, t_shown, max_docs=max_docs)
    kind = getattr(prep.ds, "kind", "")
    texts = getattr(prep.ds, "texts", None)
    job = {"docs": {
        "K": prep.n_classes, "posts": [p.ravel().tolist() for p in probas], "y": np.asarray(prep.y_eval).tolist(),
        "scoreMask": np.asarray(prep.score_mask).astype(int).tolist(), "tShown": t_shown, "maxDocs": max_docs,
        "kind": kind, "featureNames": [str(f) for f in prep.feature_names],
        "texts": None if texts is None else [str(s) for s in texts],
        "X": None if texts is not None else matrix_json(prep.X)}}
    got = run_node(tmp_path, job)["docs"]
    assert got["docs"] == want["docs"]
    assert got["text"] == want["text"]
    assert got["confusion"] == want["confusion"]
    assert got["nFlip"] == want["nFlip"]
    assert got["right"] == pytest.approx(want["right"], abs=0, rel=1e-12)
    # the table's orders, on the documents it holds: documents.documents_frame on the same rows
    from dashboard.lesson.panels.documents import documents_frame
    P = probas[t_shown]
    prev = probas[t_shown - 1]
    rows = np.asarray(want["docs"])
    names = [str(c) for c in prep.class_names]
    for sort, order in got["sorted"].items():
        frame = documents_frame(P, prev, prep.y_eval, rows, [""] * len(P), names, sort)
        assert order == frame["doc"].tolist(), sort


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
def test_m_step_row_matches_estimate_parts(tmp_path, dataset, model):
    """Eq. 23 (α from the M-step's weights) and eq. 24 for a parameter row: the model's estimate_parts on
    the run's weights, and the engine's θ_t, as export.maths_data computes them."""
    run, prep = lesson_run(dataset, model, hidden=80, iters=3)
    m = run.model
    t = len(run.history) - 1
    w = np.asarray(run.m_step_weights(t), dtype=float)
    counts, totals, lam_den = (np.asarray(a, dtype=float) for a in m.estimate_parts(m.statistics(run.Xp, w)))
    lam = float(run.history[t].smoothing)
    tab = m.param_table(run.history[t].params, prep.feature_names, getattr(prep.ds, "categories", None))
    rows = sorted({0, counts.shape[0] - 1, counts.shape[0] // 2})
    theta = None
    if model == "categorical":
        theta = [np.asarray(th, dtype=float).ravel().tolist() for th in run.history[t].params["theta"]]
    Xn = matrix_json(prep.X)   # the lab's prep.X: the model's matrix (categorical: the codes)
    jobs = [{"model": model, "X": Xn, "w": w.ravel().tolist(), "N": w.shape[0], "K": w.shape[1], "lam": lam, "row": r,
             "theta": theta} for r in rows]
    got = run_node(tmp_path, {"mstep": jobs})["mstep"]
    alpha = np.asarray(nbcore.class_prior(w))
    for r, g in zip(rows, got):
        assert np.allclose(g["alpha"], alpha, rtol=1e-12, atol=0)
        assert np.allclose(g["alpha"], run.history[t].alpha, rtol=1e-9, atol=0)
        assert np.allclose(g["cw"], w.sum(axis=0), rtol=1e-12)
        assert np.allclose(g["counts"], counts[r], rtol=1e-12, atol=1e-12)
        assert np.allclose(g["totals"], totals[r], rtol=1e-12)
        assert g["den"] == lam_den[r]
        values = (lam + counts[r]) / (lam_den[r] * lam + totals[r])
        assert np.allclose(g["values"], values, rtol=1e-12)
        assert np.allclose(g["values"], tab.mat[r], rtol=1e-9)   # the engine's θ_t


def test_e_step_and_message_split_match_nbcore_explain(tmp_path):
    """One document's E-step (eq. 21) from the terms, and the inspector's log-odds split of a typed message."""
    jobs, want = [], []
    for dataset, model in (("sms_spam", "bernoulli"), ("sms_spam", "multinomial"), ("udhr_langid", "multinomial")):
        run, prep = lesson_run(dataset, model, hidden=90, iters=2)
        snap = run.history[-1]
        texts = ["WINNER!! Claim your free prize now, call 0800 <b>", "ok see you at lunch", "la casa de mi madre es grande"]
        for text in texts:
            x = np.asarray(prep.ds.transform(text).toarray()).ravel()
            x = np.asarray(run.model.adapt(x[None, :], prep.ds.kind)[0], dtype=float) if model == "bernoulli" else x
            ex = nbcore.explain(model, snap.alpha, snap.params, x)
            K = prep.n_classes
            jobs.append({"prior": np.asarray(ex.log_prior).tolist(), "terms": np.asarray(ex.contributions).ravel().tolist(),
                         "joint": np.asarray(ex.log_joint).tolist(), "post": np.asarray(ex.posterior).tolist(),
                         "x": x.tolist(), "K": K})
            post = np.asarray(ex.posterior)
            order = np.argsort(-post, kind="stable")
            a, b = (1, 0) if K == 2 else (int(order[0]), int(order[1]))
            lo = ex.log_odds(a, b)
            present = np.asarray(ex.present)
            want.append({"like": np.asarray(ex.contributions).sum(axis=0), "a": a, "b": b,
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

