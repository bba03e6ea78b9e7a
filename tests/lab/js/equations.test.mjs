// The equations on the notes' toy spam table (datasets/toy_spam.csv), worked by hand:
//
//   Cruise Lottery Win | spam        ham  (rows 4-6): each word in 1 of 3 e-mails
//     1      1     1   |  1          spam (rows 1-3): each word in 2 of 3 e-mails
//     1      0     1   |  1
//     0      1     0   |  1
//     0      0     1   |  0
//     1      0     0   |  0
//     0      1     0   |  0
import test from "node:test";
import assert from "node:assert/strict";
import {
  classPrior, decreases, logJoint, mStep, normalizeLog, observedLogLikelihood, oneHotLabels, pairwiseSum,
  predictProba, responsibilities, squaredChange, supervisedFit,
} from "../../../nblab/js/equations.js";
import { getModel } from "../../../nblab/js/models.js";

const ROWS = [[1, 1, 1], [1, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]];
const Y = Int32Array.from([1, 1, 1, 0, 0, 0]);
const K = 2;

function csr(rows) {
  const indptr = [0], indices = [], data = [];
  for (const r of rows) { r.forEach((x, j) => { if (x) { indices.push(j); data.push(x); } }); indptr.push(indices.length); }
  return { format: "csr", n: rows.length, v: rows[0].length, indptr: Int32Array.from(indptr),
    indices: Int32Array.from(indices), data: Float64Array.from(data) };
}
const X = csr(ROWS);
const close = (a, b, tol = 1e-15) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} vs ${b}`);
const allClose = (a, b, tol) => { assert.equal(a.length, b.length); a.forEach((v, i) => close(v, b[i], tol)); };

test("eq. 12: α = share of each class", () => {
  allClose(classPrior(oneHotLabels(Y, K), K), [0.5, 0.5]);
  allClose(classPrior(Float64Array.from([1, 0, 1, 0, 0, 1, 0.25, 0.75]), K), [2.25 / 4, 1.75 / 4]);
});

test("eq. 13: β = share of the class's e-mails with the word (λ = 0)", () => {
  const { alpha, params } = supervisedFit(getModel("bernoulli"), X, Y, K, 0);
  allClose(alpha, [0.5, 0.5]);
  allClose(params.beta, [1 / 3, 2 / 3, 1 / 3, 2 / 3, 1 / 3, 2 / 3]); // (V, K): [ham, spam] per word
});

test("eq. 14: λ = 1 adds one e-mail with every word and one with none", () => {
  const { params } = supervisedFit(getModel("bernoulli"), X, Y, K, 1);
  allClose(params.beta, [2 / 5, 3 / 5, 2 / 5, 3 / 5, 2 / 5, 3 / 5]);
});

test("eq. 8-11: the query Cruise + Lottery (no Win) is spam with p = 0.6 under λ = 1", () => {
  // p(x, ham) = ½ · 2/5 · 2/5 · 3/5, p(x, spam) = ½ · 3/5 · 3/5 · 2/5 → 18 / (18 + 12)
  const { alpha, params } = supervisedFit(getModel("bernoulli"), X, Y, K, 1);
  const post = predictProba(getModel("bernoulli"), alpha, params, csr([[1, 1, 0]]));
  allClose(post, [0.4, 0.6], 1e-14);
  const ll = getModel("bernoulli").logLikelihood(csr([[1, 1, 0]]), params);
  allClose(ll, [Math.log(2 / 5 * 2 / 5 * 3 / 5), Math.log(3 / 5 * 3 / 5 * 2 / 5)], 1e-14);
});

test("eq. 10-11 and 15-17: the uniform start gives ½ to every class and L = N log(1/8)", () => {
  const m = getModel("bernoulli");
  const params = m.uniformParams(X, K);
  const joint = logJoint(m.logLikelihood(X, params), Float64Array.from([0.5, 0.5]));
  allClose(joint, new Array(12).fill(Math.log(1 / 16)), 1e-15);
  const hidden = Int32Array.from([-1, -1, -1, -1, -1, -1]);
  const r = responsibilities(joint, hidden, K);
  allClose(r.resp, new Array(12).fill(0.5));
  allClose(r.logMarginal, new Array(6).fill(Math.log(1 / 8)), 1e-15);
  close(observedLogLikelihood(joint, r.logMarginal, hidden, K), 6 * Math.log(1 / 8), 1e-15);
  // labelled rows count log p(x_i, y_i) (eq. 7), hidden rows log Σ_k p(x_i, k); w scales the hidden
  const some = Int32Array.from([1, -1, -1, 0, -1, -1]);
  const r2 = responsibilities(joint, some, K);
  allClose(r2.resp.slice(0, 2), [0, 1]);
  allClose(r2.resp.slice(6, 8), [1, 0]);
  close(observedLogLikelihood(joint, r2.logMarginal, some, K, 0.5), 2 * Math.log(1 / 16) + 0.5 * 4 * Math.log(1 / 8), 1e-15);
});

test("eq. 23-24 from the uniform start: the symmetric point stays (β = word share over all e-mails)", () => {
  const resp = new Float64Array(12).fill(0.5);
  const { alpha, params } = mStep(getModel("bernoulli"), X, resp, 0, K);
  allClose(alpha, [0.5, 0.5]);
  allClose(params.beta, new Array(6).fill(0.5));
  const m1 = mStep(getModel("bernoulli"), X, resp, 1, K);
  allClose(m1.params.beta, new Array(6).fill((1 + 1.5) / (2 + 3)));
});

test("normalizeLog: stable for huge negative logs, uniform and −inf for an impossible row", () => {
  const out = normalizeLog(Float64Array.from([-1000, -1001, -Infinity, -Infinity]), 2);
  allClose(out.posterior, [1 / (1 + Math.exp(-1)), Math.exp(-1) / (1 + Math.exp(-1)), 0.5, 0.5], 1e-15);
  close(out.logMarginal[0], -1000 + Math.log(1 + Math.exp(-1)), 1e-15);
  assert.equal(out.logMarginal[1], -Infinity);
  assert.equal(out.impossible, 1);
  assert.equal(out.firstImpossible, 1);
});

test("multinomial: β = (λ + count) / (λV + tokens)", () => {
  const { params } = supervisedFit(getModel("multinomial"), X, Y, K, 1);
  allClose(params.beta, new Array(6).fill(1 / 3)); // ham: (1 + 1) / (3 + 3), spam: (1 + 2) / (3 + 6)
  const p0 = supervisedFit(getModel("multinomial"), X, Y, K, 0).params.beta;
  allClose(p0, new Array(6).fill(1 / 3));
});

test("squaredChange: Σ (Δα)² + Σ (Δβ)², both_values counts β and 1 − β", () => {
  const m = getModel("bernoulli");
  const a = { beta: Float64Array.from([0.5, 0.5, 0.5, 0.5, 0.5, 0.5]) };
  const b = { beta: Float64Array.from([0.4, 0.6, 0.5, 0.5, 0.5, 0.7]) };
  const da = Float64Array.from([0.5, 0.5]), db = Float64Array.from([0.25, 0.75]);
  close(squaredChange(m, db, b, da, a), 2 * 0.0625 + 0.01 + 0.01 + 0.04, 1e-14);
  close(squaredChange(m, db, b, da, a, "both_values"), 2 * 0.0625 + 2 * 0.06, 1e-14);
  assert.throws(() => squaredChange(m, db, b, da, a, "max"));
});

test("pairwiseSum is numpy's summation order", () => {
  // 1e16 + 1 + 1 + ... loses every one left to right; numpy's 8 partial sums keep 14 of them
  const a = new Float64Array(16).fill(1);
  a[0] = 1e16;
  assert.equal(pairwiseSum(a, 0, 16), 1e16 + 14); // numpy: np.array([1e16] + [1.0] * 15).sum() - 1e16 == 14.0
  assert.equal(pairwiseSum(Float64Array.from([1, 2, 3]), 0, 3), 6);
});

test("decreases: only steps at the same λ, beyond rounding", () => {
  assert.deepEqual(decreases([-10, -9, -9.5, -9.6, -9.0], [1, 1, 1, 0.1, 0.1]), [2]);
});
