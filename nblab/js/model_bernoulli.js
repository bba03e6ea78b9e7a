// The Bernoulli event model p(x | y = k): words present or absent (nbcore/models' Bernoulli model).
// Data and parameters as models.js describes them.

import { pairwiseSum, columnSum } from "./equations.js";
import { csrMatmul, csrTMatmul, logDot, blockSquaredDistance, logOf, minMax, ROW_BLOCK } from "./model_kernels.js";

/** log p(x_i | k) = Σ_j x_ij log β_jk + (1 − x_ij) log(1 − β_jk) (eq. 5, 11), nbcore's bernoulli_log_likelihood. */
export function bernoulliLogLikelihood(X, beta, K, out) {
  const VK = beta.length, V = VK / K;
  const logB = new Float64Array(VK), log1m = new Float64Array(VK);
  let finite = true;
  for (let p = 0; p < VK; p++) {
    logB[p] = Math.log(beta[p]);
    log1m[p] = Math.log(1.0 - beta[p]);
    if (!Number.isFinite(logB[p]) || !Number.isFinite(log1m[p])) finite = false;
  }
  if (finite) {
    const w = new Float64Array(VK);
    for (let p = 0; p < VK; p++) w[p] = logB[p] - log1m[p];
    out = csrMatmul(X, w, K, out);
    const c = columnSum(log1m, V, K);
    for (let p = 0; p < out.length; p++) out[p] += c[p % K];
    return out;
  }
  // λ = 0 can give β ∈ {0, 1}: the infinities on purpose
  const present = logDot(X, logB, K);
  const finite1m = new Float64Array(VK), always = new Float64Array(VK);
  const nAlways = new Float64Array(K);
  for (let p = 0; p < VK; p++) {
    if (beta[p] === 1.0) { always[p] = 1.0; nAlways[p % K] += 1; } else finite1m[p] = log1m[p];
  }
  const colsum = columnSum(finite1m, V, K);
  const absent = csrMatmul(X, finite1m, K);
  for (let p = 0; p < absent.length; p++) absent[p] = colsum[p % K] - absent[p];
  let anyAlways = false;
  for (let k = 0; k < K; k++) if (nAlways[k] > 0) anyAlways = true;
  if (anyAlways) {
    const seen = csrMatmul(X, always, K);
    for (let p = 0; p < absent.length; p++) if (seen[p] < nAlways[p % K]) absent[p] = -Infinity;
  }
  out = out || new Float64Array(present.length);
  for (let p = 0; p < present.length; p++) out[p] = present[p] + absent[p];
  return out;
}

export class BernoulliModel {
  constructor() {
    this.name = "bernoulli";
    this.title = "Bernoulli";
    // how the lab's data holds the matrix this model is made for (nblab/data.py matrix_format)
    this.matrixFormat = "csr";
    // what one feature is (nbcore: input_kind)
    this.inputKind = "binary";
    this.paramNames = ["beta"];
    this.scoresAbsentFeatures = true;
  }

  /** β as the (V × K) table (nbcore: BernoulliModel.param_table). */
  paramTable(params, featureNames, categories, K) {
    return { mat: Float64Array.from(params.beta), R: featureNames.length, K, rows: featureNames.slice(),
      label: "β = p(word present | class)", short: "β", logScale: true, zmin: 0, zmax: 1 };
  }

  logLikelihood(Xp, params, out) {
    return bernoulliLogLikelihood(Xp, params.beta, params.beta.length / Xp.v, out);
  }

  /**
   * θ in the form the E-step multiplies with, once per θ: { weight: log β − log(1 − β) (V*K),
   * constant: Σ_j log(1 − β_jk) (K) }, and the log prior; { beta } on the careful path (β ∈ {0, 1}).
   */
  logParams(params, lam, K) {
    const beta = params.beta;
    const [lo, hi] = minMax(beta);
    if (!(lo > 0 && hi < 1)) return { lp: { beta }, prior: this.logPrior(params, lam) };
    const VK = beta.length, V = VK / K;
    const weight = new Float64Array(VK);
    for (let p = 0; p < VK; p++) weight[p] = Math.log(beta[p]);
    const prior0 = lam ? pairwiseSum(weight, 0, VK) : 0.0;
    const constant = new Float64Array(K);
    const block = new Float64Array(Math.min(V, ROW_BLOCK) * K);
    const bsum = new Float64Array(K);
    for (let r0 = 0; r0 < V; r0 += ROW_BLOCK) {
      const rows = Math.min(V, r0 + ROW_BLOCK) - r0, o = r0 * K, len = rows * K;
      for (let p = 0; p < len; p++) block[p] = Math.log1p(-beta[o + p]);
      columnSum(block, rows, K, bsum);
      for (let k = 0; k < K; k++) constant[k] += bsum[k];
      for (let p = 0; p < len; p++) weight[o + p] -= block[p];
    }
    const prior = lam ? lam * (prior0 + pairwiseSum(constant, 0, K)) : 0.0;
    return { lp: { weight, constant }, prior };
  }

  logLikelihoodFrom(Xp, lp, K, out) {
    if (lp.beta) return bernoulliLogLikelihood(Xp, lp.beta, K, out);
    out = csrMatmul(Xp, lp.weight, K, out);
    const c = lp.constant;
    if (K === 2) {
      const c0 = c[0], c1 = c[1];
      for (let p = 0; p < out.length; p += 2) { out[p] += c0; out[p + 1] += c1; }
    } else {
      for (let p = 0; p < out.length; p++) out[p] += c[p % K];
    }
    return out;
  }

  statistics(Xp, weights, K) {
    return { counts: csrTMatmul(Xp, weights, K), classWeight: columnSum(weights, Xp.n, K), K };
  }

  /** β_jk = (λ + Σ_i x_ij r_ik) / (2λ + Σ_i r_ik)  (eq. 14, 20, 24), at most 1. */
  paramsFrom(stats, lam) {
    const { counts, classWeight, K } = stats;
    const beta = new Float64Array(counts.length);
    const den = new Float64Array(K);
    let empty = false;
    for (let k = 0; k < K; k++) { den[k] = 2.0 * lam + classWeight[k]; if (den[k] <= 0) empty = true; }
    if (empty) {
      for (let p = 0; p < beta.length; p++) {
        const d = den[p % K];
        beta[p] = Math.min(d <= 0 ? 0.5 : (lam + counts[p]) / d, 1.0);
      }
    } else if (K === 2) {
      const d0 = den[0], d1 = den[1];
      for (let p = 0; p < beta.length; p += 2) {
        beta[p] = Math.min((counts[p] + lam) / d0, 1.0);
        beta[p + 1] = Math.min((counts[p + 1] + lam) / d1, 1.0);
      }
    } else {
      for (let p = 0; p < beta.length; p++) beta[p] = Math.min((counts[p] + lam) / den[p % K], 1.0);
    }
    return { beta };
  }

  /** Beta(λ + 1, λ + 1) prior on each β_jk: λ Σ [log β + log(1 − β)]. */
  logPrior(params, lam) {
    if (lam === 0) return 0.0;
    const beta = params.beta, n = beta.length;
    const a = logOf(beta), b = new Float64Array(n);
    for (let p = 0; p < n; p++) b[p] = Math.log(1.0 - beta[p]);
    return lam * (pairwiseSum(a, 0, n) + pairwiseSum(b, 0, n));
  }

  uniformParams(Xp, K) {
    return { beta: new Float64Array(Xp.v * K).fill(0.5) };
  }

  /** β ~ Uniform(0.01, 0.99), (V, K) in C order (nbcore's draw, bit for bit). */
  randomParams(Xp, K, rng) {
    return { beta: rng.uniform(0.01, 0.99, Xp.v * K) };
  }

  /** (V*K) x_j log β_jk + (1 − x_j) log(1 − β_jk): absent words count too (eq. 11). */
  featureTerms(params, x, K) {
    const beta = params.beta, V = x.length, out = new Float64Array(V * K);
    for (let j = 0; j < V; j++) {
      for (let k = 0; k < K; k++) {
        const b = beta[j * K + k];
        out[j * K + k] = x[j] > 0 ? Math.log(b) + 0.0 : 0.0 + Math.log(1.0 - b);
      }
    }
    return out;
  }

  /** counts (V*K), totals (V*K) = Σ_i r_ik, lamDen (V) = 2: β = (λ + counts) / (lamDen·λ + totals). */
  estimateParts(stats) {
    const { counts, classWeight, K } = stats;
    const totals = new Float64Array(counts.length);
    for (let p = 0; p < totals.length; p++) totals[p] = classWeight[p % K];
    return { counts, totals, lamDen: new Float64Array(counts.length / K).fill(2.0) };
  }

  /** Σ (Δβ)², in blocks of 4096 features as nbcore sums it. */
  squaredDistance(a, b, K) {
    return blockSquaredDistance(a.beta, b.beta, K);
  }

  /** β = p(x_j = 1) and 1 − β = p(x_j = 0) change by the same amount: twice ‖Δβ‖². */
  squaredDistanceAllValues(a, b, K) {
    return 2.0 * this.squaredDistance(a, b, K);
  }
}
