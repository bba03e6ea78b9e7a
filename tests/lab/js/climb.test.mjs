// node --test tests/lab/js/climb.test.mjs — Why EM climbs (nblab/js/bound.js and panels/climb.js): the free
// energy and one iteration's climb against plain loops over the notes' equations, the panel's number formats
// (Python's f"{v:,.4f}") and what its sentences say. tests/lab/test_bound_parity.py checks bound.js against
// nbcore.bound on every shipped data set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { climb, freeEnergy, Q_FLOOR } from "../../../nblab/js/bound.js";
import { change, climbRows, climbSentences, grouped, theta } from "../../../nblab/js/panels/climb.js";
import { getModel } from "../../../nblab/js/models.js";

const close = (a, b, tol = 1e-13) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

test("the free energy by hand: below log p(x), touching it at the posterior; q = 0 counts nothing", () => {
  // one document, p(x, k=0) = 0.3, p(x, k=1) = 0.1: log p(x) = log 0.4
  const joint = Float64Array.from([Math.log(0.3), Math.log(0.1)]);
  const byHand = 0.5 * (Math.log(0.3) - Math.log(0.5)) + 0.5 * (Math.log(0.1) - Math.log(0.5));
  close(freeEnergy(joint, Float64Array.from([0.5, 0.5]), null, 2), byHand);
  assert.ok(byHand < Math.log(0.4));
  close(freeEnergy(joint, Float64Array.from([0.75, 0.25]), null, 2), Math.log(0.4));
  const impossible = Float64Array.from([Math.log(0.3), -Infinity]);
  close(freeEnergy(impossible, Float64Array.from([1, 0]), null, 2), Math.log(0.3));
  // below Q_FLOOR against log 0: the rounding of a λ = 0 estimate, counted 0; above it the bound is −∞
  close(freeEnergy(impossible, Float64Array.from([1 - Q_FLOOR / 10, Q_FLOOR / 10]), null, 2), Math.log(0.3), 1e-10);
  assert.equal(freeEnergy(impossible, Float64Array.from([0.999, 0.001]), null, 2), -Infinity);
});

// Three documents, two words (x = [1 1], [1 0], [0 0]), Bernoulli, K = 2: the second document labelled class 0.
const X = [[1, 1], [1, 0], [0, 0]];
const Y = [-1, 0, -1];
const ALPHA = [0.5, 0.5];
const BETA = [[0.7, 0.4], [0.6, 0.2]];   // β[j][k]

function fakeRun(lam, uw) {
  const Xp = { format: "csr", n: 3, v: 2, indptr: Int32Array.from([0, 2, 3, 3]), indices: Int32Array.from([0, 1, 0]),
    data: Float64Array.from([1, 1, 1]) };
  return { K: 2, N: 3, y: Int32Array.from(Y), Xp, lam, model: getModel("bernoulli"), settings: { unlabeledWeight: uw },
    history: [{ alpha: Float64Array.from(ALPHA), params: { beta: Float64Array.from(BETA.flat()) } }] };
}

/** The notes' equations as plain loops: p(x_i, k), L (eq. 15-17 + the Beta prior of λ), the E-step (eq. 21-22),
 * the M-step (eq. 23-24 with hidden rows weighted w), the bound and the KL. */
function byHand(lam, w) {
  const joint = (alpha, beta) => X.map((x) => alpha.map((a, k) => a * x.reduce((p, v, j) => p * (v ? beta[j][k] : 1 - beta[j][k]), 1)));
  const prior = (beta) => lam * beta.flat().reduce((s, b) => s + Math.log(b) + Math.log(1 - b), 0);
  const weight = (i) => (Y[i] < 0 ? w : 1);
  const L = (alpha, beta) => joint(alpha, beta).reduce((s, p, i) => s + weight(i) * Math.log(Y[i] >= 0 ? p[Y[i]] : p[0] + p[1]), 0) + prior(beta);
  const p0 = joint(ALPHA, BETA);
  const q = p0.map((p, i) => (Y[i] >= 0 ? [Y[i] === 0 ? 1 : 0, Y[i] === 1 ? 1 : 0] : [p[0] / (p[0] + p[1]), p[1] / (p[0] + p[1])]));
  const r = q.map((row, i) => row.map((v) => v * weight(i)));
  const nk = [0, 1].map((k) => r.reduce((s, row) => s + row[k], 0));
  const alpha1 = nk.map((n) => n / (nk[0] + nk[1]));
  const beta1 = [0, 1].map((j) => [0, 1].map((k) => (lam + r.reduce((s, row, i) => s + X[i][j] * row[k], 0)) / (2 * lam + nk[k])));
  const bound = (alpha, beta) => joint(alpha, beta).reduce((s, p, i) => s + weight(i)
    * q[i].reduce((t, qk, k) => t + (qk > 0 ? qk * (Math.log(p[k]) - Math.log(qk)) : 0), 0), 0) + prior(beta);
  const p1 = joint(alpha1, beta1);
  const kl = p1.reduce((s, p, i) => s + (Y[i] >= 0 ? 0 : weight(i)
    * q[i].reduce((t, qk, k) => t + qk * Math.log(qk / (p[k] / (p[0] + p[1]))), 0)), 0);
  return { L0: L(ALPHA, BETA), B0: bound(ALPHA, BETA), B1: bound(alpha1, beta1), L1: L(alpha1, beta1), kl };
}

for (const [lam, uw] of [[0, 1], [1, 1], [0.5, 0.5]]) {
  test(`one climb by hand (λ = ${lam}, hidden rows weighted ${uw}): tight after the E-step, the gap is the KL`, () => {
    const c = climb(fakeRun(lam, uw), 0);
    const want = byHand(lam, uw);
    close(c.objectiveBefore, want.L0);
    close(c.boundBefore, want.L0);     // the E-step makes the bound touch L
    close(want.B0, want.L0);
    close(c.boundAfter, want.B1);
    close(c.objectiveAfter, want.L1);
    close(c.gapAfter, want.kl, 1e-12);
    assert.ok(c.mStepGain > 0 && c.gapAfter > 0 && want.kl > 1e-4, "the example must climb in both parts");
    close(c.total, c.mStepGain + c.gapAfter, 1e-12);
  });
}

test("an iteration the run does not have is refused with the range", () => {
  assert.throws(() => climb(fakeRun(1, 1), 1), { message: "The climb needs an iteration from 0 to 0; got 1." });
  assert.throws(() => climb(fakeRun(1, 1), -1), /from 0 to 0; got -1/);
});

test("numbers in full, as Python's f\"{v:,.4f}\", with a real minus; changes signed, ≈ 0 within rounding", () => {
  // Python: f"{-374697.30123:,.4f}" == "-374,697.3012" (the app's metric cut it to "-374697.3…")
  assert.equal(grouped(-374697.30123), "−374,697.3012");
  assert.equal(grouped(1234567.5), "1,234,567.5000");
  assert.equal(grouped(0.5), "0.5000");
  assert.equal(grouped(-12.3), "−12.3000");
  assert.equal(grouped(999.99996), "1,000.0000");
  assert.equal(grouped(-Infinity), "−∞");
  assert.equal(grouped(NaN), "not a number");
  assert.equal(change(12.345678, 3e5), "+12.3457");
  assert.equal(change(4399.2433914, 3e5), "+4,399.2434");
  assert.equal(change(2e-8, 10), "+2.000×10⁻⁸");
  assert.equal(change(-3.55e-15, 13), "≈ 0");          // rounding of numbers of size 13
  assert.equal(change(5e-8, 3.7e5), "+5.000×10⁻⁸");     // above 1e-13 · 3.7e5 = 3.7e-8: a real, tiny gap
  assert.equal(change(3e-8, 3.7e5), "≈ 0");
  assert.equal(change(Infinity), "+∞");
  assert.equal(theta(12), "θ₁₂");
});

const C = { t: 3, lam: 0.01, objectiveBefore: -374697.30123, boundBefore: -374697.30123, boundAfter: -374600.1,
  objectiveAfter: -374599.6, mStepGain: 97.20123, gapAfter: 0.5, total: 97.70123 };

test("the panel's rows name each number at t and t + 1, in full", () => {
  const rows = climbRows(C);
  assert.deepEqual(rows.map((r) => r[0]), ["L(θ₃)", "bound at θ₃", "bound at θ₄", "L(θ₄)", "M-step's gain", "gap at θ₄",
    "L(θ₄) − L(θ₃)"]);
  assert.deepEqual(rows.map((r) => r[2]), ["−374,697.3012", "−374,697.3012", "−374,600.1000", "−374,599.6000", "+97.2012",
    "+0.5000", "+97.7012"]);
  assert.match(rows[5][1], /KL/);
});

test("the sentences say why L rose, and which M-step θ_{t+1} is", () => {
  const [why, which] = climbSentences(C, undefined);
  assert.match(why, /^EM never goes down\./);
  assert.ok(why.includes("raises the bound by +97.2012") && why.includes("(+0.5000)") && why.includes("went up by +97.7012"), why);
  assert.equal(which, "θ₄ here is the M-step from the E-step at θ₃, at the current λ = 0.01: the run has not taken it yet.");
  assert.equal(climbSentences(C, 0.01).length, 1);     // the run's own step at this λ: nothing to add
  assert.match(climbSentences(C, 1)[1], /current λ = 0\.01; the run took that step at λ = 1\.$/);
  const converged = Object.assign({}, C, { boundAfter: C.boundBefore, mStepGain: 0, gapAfter: 1e-15, objectiveAfter: C.boundBefore, total: 0 });
  assert.match(climbSentences(converged, 0.01)[1], /^≈ 0: zero up to the rounding/);
  const impossible = Object.assign({}, C, { objectiveBefore: -Infinity, boundBefore: -Infinity, mStepGain: Infinity, total: Infinity });
  assert.match(climbSentences(impossible, 0.01)[0], /^L\(θ₃\) is −∞: under θ₃ some document has probability 0 under every class/);
  const both = Object.assign({}, impossible, { objectiveAfter: -Infinity, boundAfter: -Infinity, mStepGain: NaN });
  assert.match(climbSentences(both, 0.01)[0], /not finite.*Try λ > 0\./);
});
