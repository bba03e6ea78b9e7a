// The equations of EM for Naive Bayes, one function per equation of the notes, named as in
// nbcore/equations.py (camelCase). Arrays are flat Float64Arrays in numpy's C order: an (N, K)
// array a has a[i * K + k].
//
// Sums are taken in numpy's order so that the numbers are nbcore's bit for bit wherever the
// inputs are: a full reduction (a.sum() of a contiguous array, a row's sum) is numpy's pairwise
// summation (pairwiseSum), a column sum (a.sum(axis=0), column_sum) adds the rows one after another.
//
//   logJoint              log α_k + log p(x_i | k)                               eq. (10-11)
//   normalizeLog          p(y = k | x_i) and log p(x_i), stably                  eq. (8-9)
//   responsibilities      r_ik (eq. 18/21) for hidden rows, one-hot for labelled (eq. 22)
//   observedLogLikelihood Σ_lab log p(x_i, y_i) + w Σ_hidden log Σ_k p(x_i, k)   eq. (15-17)
//   classPrior            α_k = Σ_i r_ik / N                                     eq. (12/19/23)
//   mStep                 α and the event model's parameters                    eq. (13/14/20/24)
//   supervisedFit         Naive Bayes on the labelled rows                       eq. (12-14)
//   predictProba          p(y = k | x_i) under (α, θ)                            eq. (8)
//   squaredChange         ‖θ_t − θ_{t−1}‖² (the stop rule on the parameters)

/** numpy's pairwise summation of a[start .. start + n) (what a.sum() does on a contiguous array). */
export function pairwiseSum(a, start, n) {
  if (n < 8) {
    let res = 0.0;
    for (let i = 0; i < n; i++) res += a[start + i];
    return res;
  }
  if (n <= 128) {
    let r0 = a[start], r1 = a[start + 1], r2 = a[start + 2], r3 = a[start + 3];
    let r4 = a[start + 4], r5 = a[start + 5], r6 = a[start + 6], r7 = a[start + 7];
    const end = n - (n % 8);
    let i = 8;
    for (; i < end; i += 8) {
      const p = start + i;
      r0 += a[p]; r1 += a[p + 1]; r2 += a[p + 2]; r3 += a[p + 3];
      r4 += a[p + 4]; r5 += a[p + 5]; r6 += a[p + 6]; r7 += a[p + 7];
    }
    let res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
    for (; i < n; i++) res += a[start + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
}

/** Σ of a whole array as numpy's a.sum(). */
export function sum(a) {
  return pairwiseSum(a, 0, a.length);
}

/** a.sum(axis=0) of an (R, K) array: each column summed row after row, as numpy does. Returns (K,). */
export function columnSum(a, R, K, out = new Float64Array(K)) {
  if (K === 1) { // an (R, 1) array is one contiguous run: numpy sums it pairwise
    out[0] = pairwiseSum(a, 0, R);
    return out;
  }
  for (let k = 0; k < K; k++) out[k] = R > 0 ? a[k] : 0.0;
  for (let i = 1; i < R; i++) {
    const o = i * K;
    for (let k = 0; k < K; k++) out[k] += a[o + k];
  }
  return out;
}

/** log(p) with log(0) = −inf (nbcore's safe_log). */
export const safeLog = Math.log;

/**
 * log p(x_i, y = k) = log α_k + log p(x_i | k)   (eq. 10-11), in place on ll.
 * @param {Float64Array} ll (N*K) log p(x_i | k); becomes the joint
 * @param {Float64Array} alpha (K)
 * @returns {Float64Array} ll
 */
export function logJoint(ll, alpha) {
  const K = alpha.length;
  const la = new Float64Array(K);
  for (let k = 0; k < K; k++) la[k] = Math.log(alpha[k]);
  const n = ll.length;
  if (K === 2) {
    const a0 = la[0], a1 = la[1];
    for (let p = 0; p < n; p += 2) { ll[p] += a0; ll[p + 1] += a1; }
  } else {
    for (let p = 0; p < n; p += K) for (let k = 0; k < K; k++) ll[p + k] += la[k];
  }
  return ll;
}

/**
 * Posterior p(y = k | x_i) and log p(x_i) from log p(x_i, k), stably (eq. 8-9): the shift by
 * the row's maximum; a row that is −inf for every class gets a uniform posterior and
 * log p(x_i) = −inf.
 * @param {Float64Array} joint (N*K)
 * @param {number} K
 * @param {Float64Array} [posterior] (N*K) output
 * @param {Float64Array} [logMarginal] (N) output
 * @returns {{posterior: Float64Array, logMarginal: Float64Array, impossible: number, firstImpossible: number}}
 */
export function normalizeLog(joint, K, posterior, logMarginal) {
  const N = joint.length / K;
  posterior = posterior || new Float64Array(N * K);
  logMarginal = logMarginal || new Float64Array(N);
  let impossible = 0, firstImpossible = -1;
  for (let i = 0; i < N; i++) {
    const o = i * K;
    let top = joint[o];
    for (let k = 1; k < K; k++) top = Math.max(top, joint[o + k]); // NaN propagates, as np.maximum
    let total;
    if (top === Infinity || top === -Infinity || top !== top) {
      // numpy: np.maximum propagates NaN; !isfinite(top) marks the row impossible either way
      impossible++;
      if (firstImpossible < 0) firstImpossible = i;
      for (let k = 0; k < K; k++) posterior[o + k] = 1.0;
      total = K < 8 ? K : rowSum(posterior, o, K);
      for (let k = 0; k < K; k++) posterior[o + k] /= total;
      logMarginal[i] = -Infinity; // 0 + log(0)
      continue;
    }
    for (let k = 0; k < K; k++) posterior[o + k] = Math.exp(joint[o + k] - top);
    total = rowSum(posterior, o, K);
    for (let k = 0; k < K; k++) posterior[o + k] /= total;
    logMarginal[i] = top + Math.log(total);
  }
  return { posterior, logMarginal, impossible, firstImpossible };
}

/** One row's sum as numpy's a.sum(axis=1) (left to right below 8 classes, pairwise from 8). */
function rowSum(a, o, K) {
  if (K < 8) {
    let s = a[o];
    for (let k = 1; k < K; k++) s += a[o + k];
    return s;
  }
  return pairwiseSum(a, o, K);
}

/**
 * E-step: r_ik = p(y_i = k | x_i, θ) for hidden rows (eq. 21), one-hot for labelled rows (eq. 22).
 * @param {Float64Array} joint (N*K)
 * @param {Int32Array} y (N) −1 = hidden
 * @param {number} K
 * @returns {{resp: Float64Array, logMarginal: Float64Array, impossible: number, firstImpossible: number}}
 */
export function responsibilities(joint, y, K, resp, logMarginal) {
  const out = normalizeLog(joint, K, resp, logMarginal);
  const r = out.posterior;
  for (let i = 0, n = y.length; i < n; i++) {
    const c = y[i];
    if (c >= 0) {
      const o = i * K;
      for (let k = 0; k < K; k++) r[o + k] = 0.0;
      r[o + c] = 1.0;
    }
  }
  return { resp: r, logMarginal: out.logMarginal, impossible: out.impossible, firstImpossible: out.firstImpossible };
}

/**
 * L(θ) = Σ_labelled log p(x_i, y_i) + w · Σ_hidden log Σ_k p(x_i, k)   (eq. 7 + eq. 15-17).
 * @param {Float64Array} joint (N*K)
 * @param {Float64Array} logMarginal (N)
 * @param {Int32Array} y (N)
 * @param {number} K
 * @param {number} [unlabeledWeight=1]
 * @param {Float64Array} [scratch] (N) work space
 */
export function observedLogLikelihood(joint, logMarginal, y, K, unlabeledWeight = 1.0, scratch) {
  const N = y.length;
  const buf = scratch || new Float64Array(N);
  let nLab = 0;
  for (let i = 0; i < N; i++) if (y[i] >= 0) buf[nLab++] = joint[i * K + y[i]];
  let total = 0.0;
  if (nLab > 0) total += pairwiseSum(buf, 0, nLab);
  if (unlabeledWeight > 0 && nLab < N) {
    let nHid = 0;
    for (let i = 0; i < N; i++) if (y[i] < 0) buf[nHid++] = logMarginal[i];
    total += unlabeledWeight * pairwiseSum(buf, 0, nHid);
  }
  return total;
}

/** α_k = Σ_i w_ik / Σ_i Σ_k w_ik   (eq. 12 with one-hot w; eq. 19/23 with responsibilities). */
export function classPrior(weights, K) {
  const N = weights.length / K;
  const cw = columnSum(weights, N, K);
  const total = pairwiseSum(cw, 0, K);
  for (let k = 0; k < K; k++) cw[k] /= total;
  return cw;
}

/**
 * M-step: (α, params) from weights (eq. 23-24; eq. 12-14 with hard weights).
 * @param {object} model an event model of models.js
 * @param {object} Xp the model's prepared data
 * @param {Float64Array} weights (N*K)
 * @param {number} lam λ ≥ 0
 * @param {number} K
 * @returns {{alpha: Float64Array, params: object}}
 */
export function mStep(model, Xp, weights, lam, K) {
  const alpha = classPrior(weights, K);
  const params = model.paramsFrom(model.statistics(Xp, weights, K), lam);
  return { alpha, params };
}

/** (N*K) indicator 1(y_i = k); hidden rows (−1) are all zero. */
export function oneHotLabels(y, K) {
  const out = new Float64Array(y.length * K);
  for (let i = 0; i < y.length; i++) if (y[i] >= 0) out[i * K + y[i]] = 1.0;
  return out;
}

/** Supervised Naive Bayes on the labelled rows of (Xp, y): eq. (12)-(14). Returns {alpha, params}. */
export function supervisedFit(model, Xp, y, K, lam = 1.0) {
  let any = false;
  for (let i = 0; i < y.length; i++) if (y[i] >= 0) { any = true; break; }
  if (!any) throw new Error("Every label is hidden: supervised Naive Bayes needs at least one labelled row.");
  return mStep(model, Xp, oneHotLabels(y, K), lam, K);
}

/** p(y = k | x_i) for every row of Xp under (α, params) (eq. 8): (N*K). */
export function predictProba(model, alpha, params, Xp) {
  const ll = model.logLikelihood(Xp, params);
  return normalizeLog(logJoint(ll, alpha), alpha.length).posterior;
}

/**
 * ‖θ_t − θ_{t−1}‖²: Σ_k (Δα_k)² plus the model's parameters ("parameters"), or with every value
 * of each feature counted ("both_values": a binary feature's β and 1 − β both change).
 */
export function squaredChange(model, alpha, params, prevAlpha, prevParams, norm = "parameters") {
  if (norm !== "parameters" && norm !== "both_values") {
    throw new Error(`theta_norm must be one of parameters, both_values; got ${norm}.`);
  }
  const K = alpha.length;
  const d = new Float64Array(K);
  for (let k = 0; k < K; k++) { const v = alpha[k] - prevAlpha[k]; d[k] = v * v; }
  const dAlpha = pairwiseSum(d, 0, K);
  const dParams = norm === "both_values" ? model.squaredDistanceAllValues(params, prevParams, K)
    : model.squaredDistance(params, prevParams, K);
  return dAlpha + dParams;
}

/** Whether two λ are the same pseudo-count (the lab's λ is one number). */
export function sameSmoothing(a, b) {
  return a === b;
}

/**
 * Iterations t at which values[t] fell below values[t − 1] beyond rounding (rtol relative),
 * comparing only steps taken at the same λ (smoothings[t]).
 */
export function decreases(values, smoothings = null, rtol = 1e-10) {
  const out = [];
  for (let t = 1; t < values.length; t++) {
    if ((smoothings === null || sameSmoothing(smoothings[t], smoothings[t - 1]))
        && values[t] < values[t - 1] - rtol * Math.max(1.0, Math.abs(values[t - 1]))) out.push(t);
  }
  return out;
}
