// Why EM climbs, nbcore/bound.py in JavaScript (no DOM): the lower bound the E-step makes tight and the
// M-step raises, at one iteration of a Run (em.js or served.js).
//
// For any distribution q_i over the classes of each document (Jensen's inequality),
//
//   log p(x_i) = log Σ_k q_ik p(x_i, k | θ) / q_ik  ≥  Σ_k q_ik [log p(x_i, k | θ) − log q_ik],
//
// so the free energy F(q, θ) = Σ_i w_i Σ_k q_ik [log p(x_i, k | θ) − log q_ik] is a lower bound on the
// log-likelihood L(θ) (eq. 15-17), with the gap L(θ) − F(q, θ) = Σ_i w_i KL(q_i ‖ p(· | x_i, θ)) ≥ 0.
// The E-step (q_i = p(· | x_i, θ_t), eq. 21-22) makes every KL term 0; the M-step (eq. 23-24) maximises
// F(q_t, θ) + log p(θ), so the bound rises; L rises at least as much, because the gap at θ_{t+1} is ≥ 0:
//
//   L(θ_{t+1}) − L(θ_t) = [B(θ_{t+1}) − B(θ_t)] (the M-step's gain, ≥ 0) + the gap at θ_{t+1} (≥ 0).
//
// Labelled rows have q one-hot on their class (eq. 22): they add log p(x_i, y_i) to both sides. Hidden
// rows count w times (unlabeledWeight). Every number includes the log prior of λ: it is about the
// objective EM maximises (a snapshot's `objective`).
//
// Sums run in nbcore's order (numpy's pairwise sum over rows, each row's sum over the classes), so the
// numbers are nbcore.bound.climb's (checked in CI to 1e-9 relative on every shipped data set).

import { logJoint, mStep, pairwiseSum, responsibilities } from "./equations.js";

//: q below this times log p = −inf counts 0 (nbcore.bound.Q_FLOOR): with λ = 0 the M-step's β rounds to
//: exactly 0 or 1 when a document's weight is below ~1e-16 of its class total, although mathematically
//: β stays inside (0, 1) and the term q · log p is about q log q → 0
export const Q_FLOOR = 1e-12;

/** Σ_i w_i t_i over rows (w null: all 1), as numpy's (w * terms).sum(). */
function weightedSum(terms, w) {
  if (w) for (let i = 0; i < terms.length; i++) terms[i] *= w[i];
  return pairwiseSum(terms, 0, terms.length);
}

/**
 * Q(θ) = Σ_i w_i Σ_k q_ik log p(x_i, k | θ): terms with q_ik = 0 count 0, and so do those with
 * log p = −inf when q_ik < Q_FLOOR (the rounding of λ = 0 estimates); others with log p = −inf are −inf.
 * @param {Float64Array} joint (N*K) log p(x_i, k | θ)
 * @param {Float64Array} q (N*K)
 * @param {Float64Array|null} w (N) row weights, or null for 1
 * @param {number} K
 */
export function expectedCompleteLogLikelihood(joint, q, w, K) {
  const N = q.length / K, terms = new Float64Array(N), row = new Float64Array(K);
  for (let i = 0; i < N; i++) {
    const o = i * K;
    for (let k = 0; k < K; k++) {
      const qk = q[o + k], j = joint[o + k];
      row[k] = qk > 0 && !(qk < Q_FLOOR && j === -Infinity) ? qk * j : 0.0;
    }
    terms[i] = pairwiseSum(row, 0, K);
  }
  return weightedSum(terms, w);
}

/** H(q) = −Σ_i w_i Σ_k q_ik log q_ik (0 log 0 = 0). */
export function entropy(q, w, K) {
  const N = q.length / K, terms = new Float64Array(N), row = new Float64Array(K);
  for (let i = 0; i < N; i++) {
    const o = i * K;
    for (let k = 0; k < K; k++) { const qk = q[o + k]; row[k] = qk > 0 ? qk * Math.log(qk) : 0.0; }
    terms[i] = -pairwiseSum(row, 0, K);
  }
  return weightedSum(terms, w);
}

/** F(q, θ) = Q(θ) + H(q) ≤ L(θ). */
export function freeEnergy(joint, q, w, K) {
  return expectedCompleteLogLikelihood(joint, q, w, K) + entropy(q, w, K);
}

/** w_i: 1 for a labelled row, unlabeledWeight for a hidden one (nbcore.bound._row_weight). */
function rowWeight(run) {
  const uw = run.settings.unlabeledWeight ?? 1.0, y = run.y, w = new Float64Array(y.length);
  for (let i = 0; i < y.length; i++) w[i] = y[i] < 0 ? uw : 1.0;
  return w;
}

/**
 * θ = (α, params) on the run's data at the run's λ, without touching the run: { objective: L(θ) + log p(θ),
 * joint (N*K), q: the E-step's responsibilities (N*K), prior: log p(θ) }.
 */
function evaluate(run, alpha, params, w) {
  const K = run.K, N = run.N, y = run.y;
  const { lp, prior } = run.model.logParams(params, run.lam, K);
  const joint = logJoint(run.model.logLikelihoodFrom(run.Xp, lp, K, new Float64Array(N * K)), alpha);
  const { resp, logMarginal } = responsibilities(joint, y, K, new Float64Array(N * K), new Float64Array(N));
  // per row: log p(x_i) for a hidden row, log p(x_i, y_i) for a labelled one; rows of weight 0 count 0
  const rows = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const v = y[i] >= 0 ? joint[i * K + y[i]] : logMarginal[i];
    rows[i] = w[i] > 0 ? w[i] * v : 0.0;
  }
  return { objective: pairwiseSum(rows, 0, N) + prior, joint, q: resp, prior };
}

/**
 * The numbers of the iteration t → t + 1 (nbcore.bound.climb), all including the log prior of λ:
 * q_t is the E-step at θ_t and θ_{t+1} the M-step from q_t, both at the run's current λ (so this works
 * between the half-steps too, and at the latest t, before θ_{t+1} exists).
 *
 * @param {object} run an em.js Run (or a served run)
 * @param {number} [t=run.iteration]
 * @returns {{t: number, lam: number, objectiveBefore: number, boundBefore: number, boundAfter: number,
 *   objectiveAfter: number, mStepGain: number, gapAfter: number, total: number}}
 *   objectiveBefore L(θ_t); boundBefore F(q_t, θ_t) + log p(θ_t) (= L(θ_t): the E-step makes it tight);
 *   boundAfter F(q_t, θ_{t+1}) + log p(θ_{t+1}) (what the M-step maximised); objectiveAfter L(θ_{t+1});
 *   mStepGain = boundAfter − boundBefore ≥ 0; gapAfter = objectiveAfter − boundAfter
 *   = Σ_i w_i KL(q_t,i ‖ p(· | x_i, θ_{t+1})) ≥ 0; total = objectiveAfter − objectiveBefore.
 */
export function climb(run, t = run.iteration) {
  if (!Number.isInteger(t) || t < 0 || t >= run.history.length) {
    throw new Error(`The climb needs an iteration from 0 to ${run.history.length - 1}; got ${t}.`);
  }
  const snap = run.history[t], K = run.K, w = rowWeight(run);
  const before = evaluate(run, snap.alpha, snap.params, w);
  const q = before.q;
  const boundBefore = freeEnergy(before.joint, q, w, K) + before.prior;
  let weights = q;
  if ((run.settings.unlabeledWeight ?? 1.0) !== 1.0) {
    weights = new Float64Array(q.length);
    for (let i = 0; i < run.N; i++) for (let k = 0; k < K; k++) weights[i * K + k] = q[i * K + k] * w[i];
  }
  const next = mStep(run.model, run.Xp, weights, run.lam, K);
  const after = evaluate(run, next.alpha, next.params, w);
  const boundAfter = freeEnergy(after.joint, q, w, K) + after.prior;
  return {
    t, lam: run.lam, objectiveBefore: before.objective, boundBefore, boundAfter, objectiveAfter: after.objective,
    mStepGain: boundAfter - boundBefore, gapAfter: after.objective - boundAfter,
    total: after.objective - before.objective,
  };
}
