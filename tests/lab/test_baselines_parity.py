"""The lab's baselines (nblab/js/baselines.js) give nbcore.baselines' numbers on real data sets, to 1e-9.

For sms_spam (presence → Bernoulli; counts → multinomial), udhr_langid (character n-gram counts, ten
languages) and synthetic_spam, with the lesson's own split (nblab.prepare: the model's matrix,
nbcore.hide_labels, seed 0) at 90 % and 99 % hidden, one ``node`` process computes, from the same arrays:
the leave-one-out log p(x_i, k) of every labelled row at three λ, the held-out accuracy and log score for
every λ of the grid and the λ chosen, the majority class, and supervised NB's accuracy on the hidden rows at
the run's λ and at the chosen λ. nbcore computes the same here.
"""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

import nbcore
from kit import ROOT
from nbcore import baselines as B
from nblab.outcome import CV_LAMBDAS, config
from nblab.prepare import prepare

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")
RTOL = 1e-9
LAMS = (0.01, 0.3, 1.0)

DRIVER = """
import * as B from %s;
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = [];
for (const c of cases) {
  const X = { csr: { indptr: Int32Array.from(c.indptr), indices: Int32Array.from(c.indices),
                     data: Float64Array.from(c.data) }, n: c.n, v: c.v };
  const yObs = Int32Array.from(c.yObs), yEval = Int32Array.from(c.yEval);
  const loo = c.lams.map((lam) => Array.from(B.looLogJoint(c.model, X, yObs, c.K, lam)));
  const scores = B.looScores(c.model, X, yObs, c.K, c.grid);
  const base = B.baselines(c.model, X, yObs, yEval, c.K, [c.lam], c.grid);
  out.push({ loo, accuracy: scores.accuracy, logScore: scores.logScore, best: scores.best,
             majority: base.majority, majorityClass: base.majorityClass, atLambda: base.atLambda[c.lam],
             cvLambda: base.cvLambda, cv: base.cv, nLabelled: base.nLabelled });
}
// ±Infinity and NaN as strings (JSON has none; float() reads them back)
process.stdout.write(JSON.stringify(out, (k, v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v)));
"""

CASES = [("sms_spam", "bernoulli", 90), ("sms_spam", "bernoulli", 99), ("sms_spam", "multinomial", 99),
         ("udhr_langid", "multinomial", 99), ("synthetic_spam", "bernoulli", 90)]


def _case(dataset, model, hidden):
    prep = prepare(config(dataset, model, hidden))
    X = sp.csr_matrix(prep.X, dtype=np.float64)
    X.sort_indices()
    return prep, X, {"model": model, "n": X.shape[0], "v": X.shape[1], "K": prep.n_classes,
                     "indptr": X.indptr.tolist(), "indices": X.indices.tolist(), "data": X.data.tolist(),
                     "yObs": np.asarray(prep.y_obs).tolist(), "yEval": np.asarray(prep.y_eval).tolist(),
                     "lams": list(LAMS), "grid": list(CV_LAMBDAS), "lam": 1.0}


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("baselines")
    built = [_case(*c) for c in CASES]
    (tmp / "cases.json").write_text(json.dumps([b[2] for b in built]))
    driver = tmp / "driver.mjs"
    driver.write_text(DRIVER % json.dumps((ROOT / "nblab" / "js" / "baselines.js").as_uri()))
    done = subprocess.run([NODE, str(driver), str(tmp / "cases.json")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return built, json.loads(done.stdout)


def close(js, py):
    js = np.array([float(v) for v in np.ravel(np.asarray(js, dtype=object))])
    py = np.asarray(py, dtype=float).ravel()
    assert js.shape == py.shape
    same_inf = np.isinf(py) & (js == py)
    ok = same_inf | (np.abs(js - py) <= RTOL * np.maximum(1.0, np.abs(py)))
    assert ok.all(), (js[~ok][:5], py[~ok][:5])


@pytest.mark.parametrize("i", range(len(CASES)), ids=["-".join(map(str, c)) for c in CASES])
def test_baselines_js_equals_nbcore(both, i):
    built, js = both
    prep, X, c = built[i]
    out = js[i]
    model = c["model"]
    for lam, got in zip(LAMS, out["loo"]):
        close(got, B.loo_log_joint(model, X, prep.y_obs, prep.n_classes, lam).ravel())
    res = B.loo_scores(model, X, prep.y_obs, prep.n_classes, CV_LAMBDAS)
    close(out["accuracy"], res.accuracy)
    close(out["logScore"], res.log_score)
    assert out["best"] == res.best
    b = B.baselines(model, X, prep.y_obs, prep.y_eval, prep.n_classes, (1.0,), CV_LAMBDAS)
    assert out["majorityClass"] == b.majority_class and out["nLabelled"] == b.n_labelled
    close([out["majority"], out["atLambda"], out["cv"]], [b.majority, b.at_lambda[1.0], b.cv])
    assert out["cvLambda"] == b.cv_lambda
    # and they are the lesson's own numbers (nbcore.hidden_accuracy on the same split)
    alpha, params = nbcore.supervised_fit(model, X, prep.y_obs, prep.n_classes, 1.0)
    pred = np.asarray(nbcore.predict_proba(model, alpha, params, X)).argmax(axis=1)
    assert out["atLambda"] == pytest.approx(nbcore.hidden_accuracy(pred, prep.y_eval, prep.y_obs < 0), abs=1e-12)
