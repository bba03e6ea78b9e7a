// The multinomial event model p(x | y = k): word counts (nbcore/models' multinomial model).
// Data and parameters as models.js describes them.

import { pairwiseSum, columnSum } from "./equations.js";
import { csrMatmul, csrTMatmul, logDot, blockSquaredDistance, logOf, minMax, normalizeColumns } from "./model_kernels.js";

export class MultinomialModel {
  constructor() {
    this.name = "multinomial";
    this.title = "multinomial";
    // how the lab's data holds the matrix this model is made for (nblab/data.py matrix_format)
    this.matrixFormat = "csr";
    // what one feature is (nbcore: input_kind)
    this.inputKind = "counts";
    this.paramNames = ["beta"];
    this.scoresAbsentFeatures = false;
  }

  /** β as the (V × K) table, its colour scale up to the largest share (nbcore: MultinomialModel.param_table). */
  paramTable(params, featureNames, categories, K) {
    const b = Float64Array.from(params.beta);
    let mx = -Infinity;
    for (const v of b) if (v > mx) mx = v;
    return { mat: b, R: featureNames.length, K, rows: featureNames.slice(), label: "β = p(word | class) (share of word tokens)",
      short: "β", logScale: true, zmin: 0, zmax: b.length ? mx : 1 };
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
