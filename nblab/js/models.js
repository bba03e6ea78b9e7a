// The event models p(x | y = k): Bernoulli, multinomial, categorical, Gaussian, with the hooks of
// nbcore/models (logLikelihood, statistics, paramsFrom, logPrior, uniformParams, randomParams,
// featureTerms, estimateParts, squaredDistance, logParams / logLikelihoodFrom).
//
// Data the models compute with ("Xp", made by em.js prepare):
//   csr    { format: "csr", n, v, indptr: Int32Array (n+1), indices: Int32Array (nnz), data: Float64Array (nnz) }
//          words (Bernoulli: 0/1, multinomial: counts); categorical data as its one-hot matrix
//          { ..., v: Σ_j D_j, nFeatures: V, nCategories: [D_j], offsets: [0, D_0, D_0 + D_1, …], codes }
//   dense  { format: "dense", n, v, values: Float64Array (n*v) }   (Gaussian)
// Parameters (read-only by convention; a snapshot shares them):
//   bernoulli, multinomial  { beta: Float64Array (V*K) }           β[j*K + k]
//   categorical             { theta: [Float64Array (D_j*K)], stacked: Float64Array (ΣD_j*K) }  (theta[j] views stacked)
//   gaussian                { mean: Float64Array (V*K), var: Float64Array (V*K) }
//
// Sums follow numpy's order (see equations.js). Sparse products run row by row, entry by entry,
// the order scipy's csr/csc kernels use, so a sparse X gives nbcore's numbers bit for bit up to
// the logarithms and exponentials (V8's and numpy's can differ in the last bit).

import { pairwiseSum, columnSum } from "./equations.js";

const LOG_2PI = 1.8378770664093453; // float(np.log(2π))
const TWO_PI = 6.283185307179586;
const ROW_BLOCK = 4096; // nbcore's row blocks (log(1 − β), squared distances)

// ---------------------------------------------------------------------------------------------
// sparse products
// ---------------------------------------------------------------------------------------------
/** out (N*K) = X @ M for X CSR (N, V) and M (V*K): each entry summed along the row, in order. */
export function csrMatmul(X, M, K, out) {
  const { n, indptr, indices, data } = X;
  out = out || new Float64Array(n * K);
  if (K === 2) {
    for (let i = 0; i < n; i++) {
      let s0 = 0.0, s1 = 0.0;
      for (let p = indptr[i], e = indptr[i + 1]; p < e; p++) {
        const j = indices[p] * 2, x = data[p];
        s0 += x * M[j];
        s1 += x * M[j + 1];
      }
      out[2 * i] = s0;
      out[2 * i + 1] = s1;
    }
    return out;
  }
  if (K === 10) { // digits, udhr_langid: one pass over the row, ten scalar accumulators
    for (let i = 0; i < n; i++) {
      let s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0, s8 = 0.0, s9 = 0.0;
      for (let p = indptr[i], e = indptr[i + 1]; p < e; p++) {
        const j = indices[p] * 10, x = data[p];
        s0 += x * M[j]; s1 += x * M[j + 1]; s2 += x * M[j + 2]; s3 += x * M[j + 3]; s4 += x * M[j + 4];
        s5 += x * M[j + 5]; s6 += x * M[j + 6]; s7 += x * M[j + 7]; s8 += x * M[j + 8]; s9 += x * M[j + 9];
      }
      const o = i * 10;
      out[o] = s0; out[o + 1] = s1; out[o + 2] = s2; out[o + 3] = s3; out[o + 4] = s4;
      out[o + 5] = s5; out[o + 6] = s6; out[o + 7] = s7; out[o + 8] = s8; out[o + 9] = s9;
    }
    return out;
  }
  // other K: the classes four (then two, then one) at a time, each with scalar accumulators; every
  // entry is still summed along its row in order
  for (let i = 0; i < n; i++) {
    const b = indptr[i], e = indptr[i + 1], o = i * K;
    let k = 0;
    for (; k + 4 <= K; k += 4) {
      let s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      for (let p = b; p < e; p++) {
        const j = indices[p] * K + k, x = data[p];
        s0 += x * M[j]; s1 += x * M[j + 1]; s2 += x * M[j + 2]; s3 += x * M[j + 3];
      }
      out[o + k] = s0; out[o + k + 1] = s1; out[o + k + 2] = s2; out[o + k + 3] = s3;
    }
    for (; k + 2 <= K; k += 2) {
      let s0 = 0.0, s1 = 0.0;
      for (let p = b; p < e; p++) { const j = indices[p] * K + k, x = data[p]; s0 += x * M[j]; s1 += x * M[j + 1]; }
      out[o + k] = s0; out[o + k + 1] = s1;
    }
    for (; k < K; k++) {
      let s0 = 0.0;
      for (let p = b; p < e; p++) s0 += data[p] * M[indices[p] * K + k];
      out[o + k] = s0;
    }
  }
  return out;
}

/**
 * X's transpose as CSR (V rows), built once per matrix and kept on it: row j lists the entries of
 * column j in ascending row order.
 */
export function transposeOf(X) {
  if (X._t) return X._t;
  const { n, v, indptr, indices, data } = X;
  const tptr = new Int32Array(v + 1);
  for (let p = 0; p < indices.length; p++) tptr[indices[p] + 1]++;
  for (let j = 0; j < v; j++) tptr[j + 1] += tptr[j];
  const next = tptr.slice(0, v), tind = new Int32Array(indices.length), tdata = new Float64Array(indices.length);
  for (let i = 0; i < n; i++) {
    for (let p = indptr[i], e = indptr[i + 1]; p < e; p++) {
      const q = next[indices[p]]++;
      tind[q] = i;
      tdata[q] = data[p];
    }
  }
  Object.defineProperty(X, "_t", { value: { format: "csr", n: v, v: n, indptr: tptr, indices: tind, data: tdata } });
  return X._t;
}

/**
 * out (V*K) = X.T @ W for X CSR (N, V) and W (N*K). Each entry adds its column's rows in ascending
 * order, as scipy's csc kernel does for X.T, but gathered along the transpose's rows (scalar
 * accumulators instead of scattered writes).
 */
export function csrTMatmul(X, W, K, out) {
  return csrMatmul(transposeOf(X), W, K, out || new Float64Array(X.v * K));
}

/** X @ log_p where 0·log 0 counts as 0 and x > 0 times log 0 makes the row −inf (nbcore's log_dot). */
function logDot(X, logP, K, out) {
  let finite = true;
  for (let p = 0; p < logP.length; p++) if (!Number.isFinite(logP[p])) { finite = false; break; }
  if (finite) return csrMatmul(X, logP, K, out);
  const safe = new Float64Array(logP.length), bad = new Float64Array(logP.length);
  for (let p = 0; p < logP.length; p++) {
    if (Number.isFinite(logP[p])) safe[p] = logP[p]; else bad[p] = 1.0;
  }
  out = csrMatmul(X, safe, K, out);
  const hits = csrMatmul(X, bad, K);
  for (let p = 0; p < out.length; p++) if (hits[p] > 0) out[p] = -Infinity;
  return out;
}

/** Σ (u − v)² over arrays of R rows of K, in blocks of 4096 rows (nbcore's squared_distance). */
function blockSquaredDistance(u, v, K, total = 0.0) {
  const R = u.length / K;
  const d = new Float64Array(Math.min(R, ROW_BLOCK) * K);
  for (let r0 = 0; r0 < R; r0 += ROW_BLOCK) {
    const len = (Math.min(R, r0 + ROW_BLOCK) - r0) * K, o = r0 * K;
    for (let p = 0; p < len; p++) { const x = u[o + p] - v[o + p]; d[p] = x * x; }
    total += pairwiseSum(d, 0, len);
  }
  return total;
}

function logOf(a) {
  const out = new Float64Array(a.length);
  for (let p = 0; p < a.length; p++) out[p] = Math.log(a[p]);
  return out;
}

function minMax(a) {
  let lo = Infinity, hi = -Infinity;
  for (let p = 0; p < a.length; p++) { const x = a[p]; if (x < lo) lo = x; if (x > hi) hi = x; }
  return [lo, hi];
}

/** raw / raw.sum(axis=0) for an (R, K) array. */
function normalizeColumns(raw, K) {
  const R = raw.length / K;
  const s = columnSum(raw, R, K);
  for (let p = 0; p < raw.length; p++) raw[p] /= s[p % K];
  return raw;
}

// ---------------------------------------------------------------------------------------------
// Bernoulli
// ---------------------------------------------------------------------------------------------
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

class BernoulliModel {
  constructor() {
    this.name = "bernoulli";
    this.paramNames = ["beta"];
    this.scoresAbsentFeatures = true;
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

// ---------------------------------------------------------------------------------------------
// multinomial
// ---------------------------------------------------------------------------------------------
class MultinomialModel {
  constructor() {
    this.name = "multinomial";
    this.paramNames = ["beta"];
    this.scoresAbsentFeatures = false;
  }

  logLikelihood(Xp, params, out) {
    const K = params.beta.length / Xp.v;
    return logDot(Xp, logOf(params.beta), K, out);
  }

  /** { logBeta } and λ Σ log β, once per θ; { beta } on the careful path (some β = 0). */
  logParams(params, lam) {
    const beta = params.beta;
    const [lo] = minMax(beta);
    if (!(lo > 0)) return { lp: { beta }, prior: this.logPrior(params, lam) };
    const logBeta = logOf(beta);
    const prior = lam ? lam * pairwiseSum(logBeta, 0, logBeta.length) : 0.0;
    return { lp: { logBeta }, prior };
  }

  logLikelihoodFrom(Xp, lp, K, out) {
    if (lp.beta) return logDot(Xp, logOf(lp.beta), K, out);
    return csrMatmul(Xp, lp.logBeta, K, out);
  }

  statistics(Xp, weights, K) {
    return { counts: csrTMatmul(Xp, weights, K), classWeight: columnSum(weights, Xp.n, K), K };
  }

  /** β_jk = (λ + Σ_i x_ij r_ik) / (λV + Σ_j' Σ_i x_ij' r_ik); a class without tokens and λ = 0 gets 1/V. */
  paramsFrom(stats, lam) {
    const { counts, K } = stats;
    const V = counts.length / K;
    const tot = columnSum(counts, V, K);
    const den = new Float64Array(K);
    let empty = false;
    for (let k = 0; k < K; k++) { den[k] = lam * V + tot[k]; if (den[k] <= 0) empty = true; }
    const beta = new Float64Array(counts.length);
    if (empty) {
      for (let p = 0; p < beta.length; p++) {
        const d = den[p % K];
        beta[p] = d <= 0 ? 1.0 / V : (lam + counts[p]) / d;
      }
    } else if (K === 2) {
      const d0 = den[0], d1 = den[1];
      for (let p = 0; p < beta.length; p += 2) {
        beta[p] = (counts[p] + lam) / d0;
        beta[p + 1] = (counts[p + 1] + lam) / d1;
      }
    } else {
      for (let p = 0; p < beta.length; p++) beta[p] = (counts[p] + lam) / den[p % K];
    }
    return { beta };
  }

  /** Dirichlet(λ + 1) prior on each column of β: λ Σ log β. */
  logPrior(params, lam) {
    if (lam === 0) return 0.0;
    const a = logOf(params.beta);
    return lam * pairwiseSum(a, 0, a.length);
  }

  uniformParams(Xp, K) {
    return { beta: new Float64Array(Xp.v * K).fill(1.0 / Xp.v) };
  }

  /** Normalised Uniform(0.01, 0.99) draws (bit for bit). */
  randomParams(Xp, K, rng) {
    return { beta: normalizeColumns(rng.uniform(0.01, 0.99, Xp.v * K), K) };
  }

  /** (V*K) x_j log β_jk: a word that does not occur contributes 0. */
  featureTerms(params, x, K) {
    const beta = params.beta, V = x.length, out = new Float64Array(V * K);
    for (let j = 0; j < V; j++) {
      if (x[j] > 0) for (let k = 0; k < K; k++) out[j * K + k] = x[j] * Math.log(beta[j * K + k]);
    }
    return out;
  }

  /** counts, totals = Σ_j' counts (per class), lamDen = V. */
  estimateParts(stats) {
    const { counts, K } = stats;
    const V = counts.length / K;
    const tot = columnSum(counts, V, K);
    const totals = new Float64Array(counts.length);
    for (let p = 0; p < totals.length; p++) totals[p] = tot[p % K];
    return { counts, totals, lamDen: new Float64Array(V).fill(V) };
  }

  squaredDistance(a, b, K) {
    return blockSquaredDistance(a.beta, b.beta, K);
  }

  squaredDistanceAllValues(a, b, K) {
    return this.squaredDistance(a, b, K);
  }
}

// ---------------------------------------------------------------------------------------------
// categorical (X is its one-hot matrix: Σ_j D_j columns, one entry per feature and row)
// ---------------------------------------------------------------------------------------------
function thetaFromStacked(stacked, nCategories, K) {
  const theta = [];
  let o = 0;
  for (const d of nCategories) { theta.push(stacked.subarray(o * K, (o + d) * K)); o += d; }
  return { theta, stacked };
}

class CategoricalModel {
  constructor() {
    this.name = "categorical";
    this.paramNames = ["theta"];
    this.scoresAbsentFeatures = false;
  }

  logLikelihood(Xp, params, out) {
    const K = params.stacked.length / Xp.v;
    return logDot(Xp, logOf(params.stacked), K, out);
  }

  logParams(params, lam) {
    return { lp: params, prior: this.logPrior(params, lam) };
  }

  logLikelihoodFrom(Xp, lp, K, out) {
    return logDot(Xp, logOf(lp.stacked), K, out);
  }

  statistics(Xp, weights, K) {
    return { counts: csrTMatmul(Xp, weights, K), classWeight: columnSum(weights, Xp.n, K),
      nCategories: Xp.nCategories, K };
  }

  /** θ_j[d, k] = (λ + Σ_i [x_ij = d] r_ik) / (λ D_j + Σ_i r_ik); a class with no weight and λ = 0 gets 1/D_j. */
  paramsFrom(stats, lam) {
    const { counts, classWeight, nCategories, K } = stats;
    const stacked = new Float64Array(counts.length);
    let o = 0;
    for (const d of nCategories) {
      for (let r = 0; r < d; r++) {
        for (let k = 0; k < K; k++) {
          const den = lam * d + classWeight[k];
          const p = (o + r) * K + k;
          stacked[p] = den <= 0 ? 1.0 / d : (lam + counts[p]) / den;
        }
      }
      o += d;
    }
    return thetaFromStacked(stacked, nCategories, K);
  }

  /** Dirichlet(λ + 1) prior on each θ_j[·, k]: λ Σ_j Σ log θ_j. */
  logPrior(params, lam) {
    if (lam === 0) return 0.0;
    let total = 0;
    for (const t of params.theta) {
      const a = logOf(t);
      total += pairwiseSum(a, 0, a.length);
    }
    return lam * total;
  }

  uniformParams(Xp, K) {
    const stacked = new Float64Array(Xp.v * K);
    let o = 0;
    for (const d of Xp.nCategories) { stacked.fill(1.0 / d, o * K, (o + d) * K); o += d; }
    return thetaFromStacked(stacked, Xp.nCategories, K);
  }

  /** Per feature: normalised Uniform(0.01, 0.99) draws of shape (D_j, K) (bit for bit). */
  randomParams(Xp, K, rng) {
    const stacked = new Float64Array(Xp.v * K);
    let o = 0;
    for (const d of Xp.nCategories) {
      stacked.set(normalizeColumns(rng.uniform(0.01, 0.99, d * K), K), o * K);
      o += d;
    }
    return thetaFromStacked(stacked, Xp.nCategories, K);
  }

  /** (V*K) log θ_j[x_j, k] for codes x (V). */
  featureTerms(params, x, K) {
    const V = x.length, out = new Float64Array(V * K);
    for (let j = 0; j < V; j++) {
      const t = params.theta[j], d = x[j] | 0;
      for (let k = 0; k < K; k++) out[j * K + k] = Math.log(t[d * K + k]);
    }
    return out;
  }

  /** counts (ΣD*K), totals = Σ_i r_ik, lamDen = D_j repeated over feature j's rows. */
  estimateParts(stats) {
    const { counts, classWeight, nCategories, K } = stats;
    const totals = new Float64Array(counts.length);
    for (let p = 0; p < totals.length; p++) totals[p] = classWeight[p % K];
    const lamDen = [];
    for (const d of nCategories) for (let r = 0; r < d; r++) lamDen.push(d);
    return { counts, totals, lamDen: Float64Array.from(lamDen) };
  }

  squaredDistance(a, b, K) {
    let total = 0.0;
    for (let j = 0; j < a.theta.length; j++) total = blockSquaredDistance(a.theta[j], b.theta[j], K, total);
    return total;
  }

  squaredDistanceAllValues(a, b, K) {
    return this.squaredDistance(a, b, K);
  }
}

// ---------------------------------------------------------------------------------------------
// Gaussian (dense X)
// ---------------------------------------------------------------------------------------------
/** Per-feature mean and Σ (x − mean)² over the rows (numpy's X.mean(axis=0) and the var's M2). */
function featureMoments(Xp) {
  const { n, v, values } = Xp;
  if (Xp._moments) return Xp._moments;
  const mean = new Float64Array(v), m2 = new Float64Array(v);
  if (n > 0) {
    columnSum(values, n, v, mean);
    for (let j = 0; j < v; j++) mean[j] /= n;
    const d = new Float64Array(n * v);
    for (let p = 0; p < d.length; p++) { const x = values[p] - mean[p % v]; d[p] = x * x; }
    columnSum(d, n, v, m2);
  }
  Xp._moments = { mean, m2 };
  return Xp._moments;
}

class GaussianModel {
  /** @param {{variance?: "mle"|"unbiased", var_smoothing?: number, var_floor?: number}} options */
  constructor(options = {}) {
    this.name = "gaussian";
    this.paramNames = ["mean", "var"];
    this.scoresAbsentFeatures = false;
    this.variance = options.variance || "mle";
    this.varSmoothing = options.var_smoothing ?? options.varSmoothing ?? 1e-9;
    this.varFloor = options.var_floor ?? options.varFloor ?? 0.0;
    if (this.variance !== "mle" && this.variance !== "unbiased") {
      throw new Error(`variance must be 'mle' or 'unbiased', got ${this.variance}.`);
    }
  }

  /** log p(x_i | k) = −½ Σ_j [log(2π σ²_jk) + (x_ij − μ_jk)² / σ²_jk], class by class. */
  logLikelihood(Xp, params, out) {
    const { n, v, values } = Xp;
    const { mean, var: vr } = params;
    const K = mean.length / v;
    out = out || new Float64Array(n * K);
    const buf = new Float64Array(v);
    for (let k = 0; k < K; k++) {
      for (let j = 0; j < v; j++) buf[j] = LOG_2PI + Math.log(vr[j * K + k]);
      const s = pairwiseSum(buf, 0, v);
      for (let i = 0; i < n; i++) {
        const o = i * v;
        for (let j = 0; j < v; j++) {
          const d = values[o + j] - mean[j * K + k];
          buf[j] = (d * d) / vr[j * K + k];
        }
        out[i * K + k] = -0.5 * (s + pairwiseSum(buf, 0, v));
      }
    }
    return out;
  }

  logParams(params) {
    return { lp: params, prior: 0.0 };
  }

  logLikelihoodFrom(Xp, lp, K, out) {
    return this.logLikelihood(Xp, lp, out);
  }

  logPrior() {
    return 0.0;
  }

  /** Weighted N_k, μ_jk, M2_jk per class, and the per-feature moments (for ε). */
  statistics(Xp, weights, K) {
    const { n, v, values } = Xp;
    const cw = columnSum(weights, n, K);
    const mean = new Float64Array(v * K), m2 = new Float64Array(v * K);
    for (let i = 0; i < n; i++) {
      const o = i * v, w = i * K;
      for (let j = 0; j < v; j++) {
        const x = values[o + j];
        for (let k = 0; k < K; k++) mean[j * K + k] += x * weights[w + k];
      }
    }
    for (let p = 0; p < mean.length; p++) { const c = cw[p % K]; mean[p] /= c > 0 ? c : 1.0; }
    for (let i = 0; i < n; i++) {
      const o = i * v, w = i * K;
      for (let j = 0; j < v; j++) {
        const x = values[o + j];
        for (let k = 0; k < K; k++) { const d = x - mean[j * K + k]; m2[j * K + k] += weights[w + k] * (d * d); }
      }
    }
    const fm = featureMoments(Xp);
    return { classWeight: cw, mean, m2, nRows: n, featureMean: fm.mean, featureM2: fm.m2, K };
  }

  _epsilonFrom(nRows, featureM2) {
    let maxVar = 0.0;
    if (nRows > 0 && featureM2.length) {
      maxVar = -Infinity;
      for (let j = 0; j < featureM2.length; j++) maxVar = Math.max(maxVar, featureM2[j] / nRows);
    }
    let eps = this.varSmoothing * maxVar;
    if (eps === 0 && this.varFloor === 0) eps = Math.max(this.varSmoothing, 1e-12);
    return eps;
  }

  /** μ = Σ r x / N_k; σ² = M2 / N_k (or / (N_k − 1)) + ε, at least var_floor. */
  paramsFrom(stats) {
    const { classWeight: n, m2, K } = stats;
    const eps = this._epsilonFrom(stats.nRows, stats.featureM2);
    const den = new Float64Array(K);
    for (let k = 0; k < K; k++) {
      const d = this.variance === "unbiased" ? n[k] - 1.0 : n[k];
      den[k] = d > 0 ? d : (n[k] > 0 ? n[k] : 1.0);
    }
    const vr = new Float64Array(m2.length);
    for (let p = 0; p < vr.length; p++) vr[p] = Math.max(m2[p] / den[p % K] + eps, this.varFloor);
    return { mean: stats.mean.slice(), var: vr };
  }

  /** Every class at the overall mean and variance (+ ε, at least var_floor). */
  uniformParams(Xp, K) {
    const { n, v } = Xp;
    const fm = featureMoments(Xp);
    const fvar = new Float64Array(v);
    for (let j = 0; j < v; j++) fvar[j] = fm.m2[j] / n;
    let eps = -Infinity;
    for (let j = 0; j < v; j++) eps = Math.max(eps, fvar[j]);
    eps = this.varSmoothing * eps;
    if (eps === 0 && this.varFloor === 0) eps = Math.max(this.varSmoothing, 1e-12);
    const mean = new Float64Array(v * K), vr = new Float64Array(v * K);
    for (let j = 0; j < v; j++) {
      const s = Math.max(fvar[j] + eps, this.varFloor);
      for (let k = 0; k < K; k++) { mean[j * K + k] = fm.mean[j]; vr[j * K + k] = s; }
    }
    return { mean, var: vr };
  }

  /** Means at K distinct random rows of X (rng.choice, bit for bit); the overall variance. */
  randomParams(Xp, K, rng) {
    const { n, v, values } = Xp;
    const rows = n < K ? rng.integers(n, K) : rng.choiceNoReplace(n, K);
    const u = this.uniformParams(Xp, K);
    const mean = new Float64Array(v * K);
    for (let k = 0; k < K; k++) for (let j = 0; j < v; j++) mean[j * K + k] = values[rows[k] * v + j];
    return { mean, var: u.var };
  }

  /** (V*K) log N(x_j; μ_jk, σ²_jk). */
  featureTerms(params, x, K) {
    const { mean, var: vr } = params;
    const V = x.length, out = new Float64Array(V * K);
    for (let j = 0; j < V; j++) {
      for (let k = 0; k < K; k++) {
        const p = j * K + k, d = x[j] - mean[p];
        out[p] = -0.5 * (Math.log(TWO_PI * vr[p]) + (d * d) / vr[p]);
      }
    }
    return out;
  }

  estimateParts() {
    return null;
  }

  squaredDistance(a, b, K) {
    return blockSquaredDistance(a.var, b.var, K, blockSquaredDistance(a.mean, b.mean, K));
  }

  squaredDistanceAllValues(a, b, K) {
    return this.squaredDistance(a, b, K);
  }
}

const MODELS = {
  bernoulli: BernoulliModel,
  multinomial: MultinomialModel,
  categorical: CategoricalModel,
  gaussian: GaussianModel,
};

/** The event model called `name`, with its options (e.g. { var_floor } for "gaussian"). */
export function getModel(name, options = {}) {
  const cls = MODELS[name];
  if (!cls) throw new Error(`Unknown event model ${name}; choose one of ${Object.keys(MODELS).join(", ")}.`);
  return new cls(options);
}

export const MODEL_NAMES = Object.keys(MODELS);
