// The categorical event model p(x | y = k): one category per feature; X is its one-hot matrix
// (Σ_j D_j columns, one entry per feature and row) (nbcore/models' categorical model).
// Data and parameters as models.js describes them.

import { pairwiseSum, columnSum } from "./equations.js";
import { csrTMatmul, logDot, blockSquaredDistance, logOf, normalizeColumns } from "./model_kernels.js";

function thetaFromStacked(stacked, nCategories, K) {
  const theta = [];
  let o = 0;
  for (const d of nCategories) { theta.push(stacked.subarray(o * K, (o + d) * K)); o += d; }
  return { theta, stacked };
}

export class CategoricalModel {
  constructor() {
    this.name = "categorical";
    this.title = "categorical";
    // how the lab's data holds the matrix this model is made for (nblab/data.py matrix_format)
    this.matrixFormat = "codes";
    // what one feature is (nbcore: input_kind)
    this.inputKind = "categories";
    this.paramNames = ["theta"];
    this.scoresAbsentFeatures = false;
  }

  /** The parameters from their flat arrays (a served run's record: θ_j stacked, C order). */
  paramsFromFlat(flat, Xp, K) {
    return thetaFromStacked(flat.theta, Xp.nCategories, K);
  }

  /** θ as one (ΣD_j × K) table, a row per feature value (nbcore: CategoricalModel.param_table). */
  paramTable(params, featureNames, categories, K) {
    const mats = [], rows = [];
    params.theta.forEach((th, j) => {
      const D = th.length / K;
      mats.push(th);
      for (let d = 0; d < D; d++) {
        const v = categories && j < categories.length && categories[j] ? categories[j][d] : d;
        rows.push(`${featureNames[j]} = ${v}`);
      }
    });
    const mat = new Float64Array(rows.length * K);
    let at = 0;
    for (const th of mats) { mat.set(th, at); at += th.length; }
    return { mat, R: rows.length, K, rows, label: "θ = p(value | class)", short: "θ", logScale: true, zmin: 0, zmax: 1 };
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
