// node --test tests/lab/js/baselines.test.mjs — the lab's supervised baselines (nblab/js/baselines.js):
// leave-one-out by subtracting a row's counts equals a refit without the row; the chosen λ never reads a
// hidden label; majority class and supervised accuracy on the hidden rows. (Against nbcore on real data:
// tests/lab/test_baselines_parity.py.)
import { test } from "node:test";
import assert from "node:assert/strict";
import * as B from "../../../nblab/js/baselines.js";

// a small seeded data set: 40 rows, 12 features, 3 classes
function data(model, seed = 1) {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const n = 40, v = 12, K = 3, dense = new Float64Array(n * v), y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = i < K ? i : Math.floor(rnd() * K);
    for (let j = 0; j < v; j++) {
      const p = 0.1 + 0.6 * (((j + y[i] * 4) % v) < 4 ? 1 : 0);
      if (rnd() < p) dense[i * v + j] = model === "multinomial" ? 1 + Math.floor(rnd() * 3) : 1;
    }
  }
  return { X: { dense, n, v }, y, K };
}

function toCsr(X) {
  const indptr = [0], indices = [], vals = [];
  for (let i = 0; i < X.n; i++) {
    for (let j = 0; j < X.v; j++) if (X.dense[i * X.v + j] !== 0) { indices.push(j); vals.push(X.dense[i * X.v + j]); }
    indptr.push(indices.length);
  }
  return { csr: { indptr: Int32Array.from(indptr), indices: Int32Array.from(indices), data: Float64Array.from(vals) },
           n: X.n, v: X.v };
}

// log p(x_i, k) under a fit to every labelled row but `skip` (plain formulas, eq. 12–14 / multinomial)
function refitJoint(model, X, yObs, K, lam, skip) {
  const V = X.v, counts = new Float64Array(V * K), n = new Float64Array(K);
  let N = 0;
  for (let i = 0; i < X.n; i++) {
    if (yObs[i] < 0 || i === skip) continue;
    N++; n[yObs[i]]++;
    for (let j = 0; j < V; j++) counts[j * K + yObs[i]] += X.dense[i * V + j];
  }
  const out = [];
  for (let k = 0; k < K; k++) {
    let s = Math.log(n[k] / N), tot = 0;
    for (let j = 0; j < V; j++) tot += counts[j * K + k];
    for (let j = 0; j < V; j++) {
      const x = X.dense[skip * V + j], c = counts[j * K + k];
      if (model === "bernoulli") {
        const b = (c + lam) / (2 * lam + n[k]);
        s += x ? Math.log(b) : Math.log(1 - b);
      } else {
        s += x * Math.log((c + lam) / (V * lam + tot));
      }
    }
    out.push(s);
  }
  return out;
}

for (const model of B.MODELS) {
  for (const lam of [0.01, 0.3, 1, 10]) {
    test(`${model}, λ = ${lam}: leave-one-out equals a refit without the row (dense and CSR)`, () => {
      const { X, y, K } = data(model);
      const yObs = Int32Array.from(y, (v, i) => (i < 30 ? v : -1));
      for (const M of [X, toCsr(X)]) {
        const got = B.looLogJoint(model, M, yObs, K, lam);
        let r = 0;
        for (let i = 0; i < X.n; i++) {
          if (yObs[i] < 0) continue;
          const want = refitJoint(model, X, yObs, K, lam, i);
          for (let k = 0; k < K; k++) {
            const g = got[r * K + k];
            assert.ok(Math.abs(g - want[k]) <= 1e-9 * Math.max(1, Math.abs(want[k])), `${model} row ${i} k ${k}: ${g} vs ${want[k]}`);
          }
          r++;
        }
      }
    });
  }
}

test("hidden labels cannot change the chosen λ (nor the held-out scores)", () => {
  const { X, y, K } = data("bernoulli", 7);
  const yObs = Int32Array.from(y, (v, i) => (i < 25 ? v : -1));
  const res = B.looScores("bernoulli", X, yObs, K);
  for (let s = 0; s < 3; s++) {
    const yEval = Int32Array.from(y, (v, i) => (i < 25 ? v : (v + s + i) % K));
    const b = B.baselines("bernoulli", X, yObs, yEval, K, [1]);
    assert.equal(b.cvLambda, res.best);
  }
  assert.deepEqual(B.looScores("bernoulli", X, yObs, K).accuracy, res.accuracy);
  assert.ok(B.LAMBDA_GRID.includes(res.best));
});

test("majority class and accuracies on the hidden rows", () => {
  const yObs = Int32Array.from([0, 0, 1, -1, -1, -1, -1, -1]);
  const yEval = Int32Array.from([0, 0, 1, 1, 1, 0, 1, 0]);
  assert.equal(B.majorityClass(yObs, 2), 0);
  assert.equal(B.majorityAccuracy(yObs, yEval, 2), 2 / 5);
  assert.equal(B.majorityClass(Int32Array.from([-1, -1]), 2), null);
  assert.equal(B.majorityAccuracy(Int32Array.from([-1, -1]), Int32Array.from([0, 1]), 2), null);
});

test("bad input is refused with a message", () => {
  const { X, y, K } = data("bernoulli");
  assert.throws(() => B.looLogJoint("bernoulli", X, y, K, 0), /λ > 0/);
  assert.throws(() => B.looLogJoint("gaussian", X, y, K, 1), /Bernoulli and multinomial/);
  const one = Int32Array.from(y, (v, i) => (i === 0 ? v : -1));
  assert.throws(() => B.looLogJoint("bernoulli", X, one, K, 1), /at least two labelled rows/);
});
