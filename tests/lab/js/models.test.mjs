// The event models' hooks: random starts in range, λ = 0's impossible documents, feature terms
// that add up to the log-likelihood, and the M-step's ratio (estimateParts) equal to paramsFrom.
import test from "node:test";
import assert from "node:assert/strict";
import { getModel, bernoulliLogLikelihood } from "../../../nblab/js/models.js";
import { defaultRng } from "../../../nblab/js/random.js";
import { columnSum } from "../../../nblab/js/equations.js";

function csr(rows) {
  const indptr = [0], indices = [], data = [];
  for (const r of rows) { r.forEach((x, j) => { if (x) { indices.push(j); data.push(x); } }); indptr.push(indices.length); }
  return { format: "csr", n: rows.length, v: rows[0].length, indptr: Int32Array.from(indptr),
    indices: Int32Array.from(indices), data: Float64Array.from(data) };
}

test("random starts: β in [0.01, 0.99), columns of multinomial β and categorical θ sum to 1", () => {
  const X = csr([[1, 0, 2, 0], [0, 1, 0, 3]]);
  for (let seed = 0; seed < 200; seed++) {
    const b = getModel("bernoulli").randomParams(X, 3, defaultRng(seed)).beta;
    assert.ok(b.every((v) => v >= 0.01 && v < 0.99));
    const m = getModel("multinomial").randomParams(X, 3, defaultRng(seed)).beta;
    columnSum(m, 4, 3).forEach((s) => assert.ok(Math.abs(s - 1) < 1e-15));
    const Xc = { format: "csr", n: 2, v: 5, nCategories: [3, 2], indptr: Int32Array.from([0, 2, 4]),
      indices: Int32Array.from([0, 3, 2, 4]), data: new Float64Array(4).fill(1) };
    const th = getModel("categorical").randomParams(Xc, 2, defaultRng(seed)).theta;
    th.forEach((t, j) => columnSum(t, [3, 2][j], 2).forEach((s) => assert.ok(Math.abs(s - 1) < 1e-15)));
  }
});

test("Gaussian random start: K distinct rows of X as the means, the overall variance", () => {
  const n = 50, v = 3, values = new Float64Array(n * v);
  for (let p = 0; p < values.length; p++) values[p] = Math.sin(p) * 10;
  const X = { format: "dense", n, v, values };
  const g = getModel("gaussian", { var_floor: 0.5 });
  for (let seed = 0; seed < 100; seed++) {
    const { mean, var: vr } = g.randomParams(X, 4, defaultRng(seed));
    const rows = new Set();
    for (let k = 0; k < 4; k++) {
      const col = [0, 1, 2].map((j) => mean[j * 4 + k]);
      let found = -1;
      for (let i = 0; i < n; i++) if (col.every((x, j) => x === values[i * v + j])) found = i;
      assert.ok(found >= 0, "a mean is a row of X");
      rows.add(found);
    }
    assert.equal(rows.size, 4, "distinct rows");
    assert.ok(vr.every((s) => s >= 0.5));
  }
});

test("λ = 0: β = 0 for a present word, or β = 1 for an absent one, makes the document impossible", () => {
  const X = csr([[1, 0], [0, 1], [1, 1]]);
  const beta = Float64Array.from([0, 0.5, 0.5, 1]); // word 0: p = 0 under class 0; word 1: always under class 1
  const ll = bernoulliLogLikelihood(X, beta, 2);
  assert.equal(ll[0], -Infinity); // row 0 has word 0 (β = 0 under class 0)
  assert.equal(ll[1], -Infinity); // row 0 lacks word 1 (β = 1 under class 1)
  assert.equal(ll[2], Math.log(1) + Math.log(0.5));
  assert.equal(ll[3], Math.log(0.5) + Math.log(1));
  assert.equal(ll[4], -Infinity);
  assert.equal(ll[5], Math.log(0.5) + Math.log(1));
  const m = getModel("multinomial");
  const lm = m.logLikelihood(X, { beta: Float64Array.from([0, 0.5, 1, 0.5]) });
  assert.deepEqual(Array.from(lm), [-Infinity, Math.log(0.5), 0, Math.log(0.5), -Infinity, Math.log(0.5) * 2]);
});

test("feature terms sum to the log-likelihood; estimateParts gives paramsFrom's ratio", () => {
  const rows = [[1, 0, 1, 1], [0, 1, 0, 0], [1, 1, 1, 0]];
  const X = csr(rows);
  const W = Float64Array.from([0.9, 0.1, 0.2, 0.8, 0.5, 0.5]);
  for (const name of ["bernoulli", "multinomial"]) {
    const m = getModel(name);
    const p = m.paramsFrom(m.statistics(X, W, 2), 0.7);
    const ll = m.logLikelihood(X, p);
    rows.forEach((x, i) => {
      const terms = m.featureTerms(p, Float64Array.from(x), 2);
      const s = columnSum(terms, 4, 2);
      for (let k = 0; k < 2; k++) assert.ok(Math.abs(s[k] - ll[i * 2 + k]) < 1e-13, `${name} row ${i}`);
    });
    const { counts, totals, lamDen } = m.estimateParts(m.statistics(X, W, 2));
    p.beta.forEach((b, q) => assert.ok(Math.abs(b - (0.7 + counts[q]) / (lamDen[q >> 1] * 0.7 + totals[q])) < 1e-15));
  }
});
