// The Gaussian event model p(x | y = k): dense X, a mean and a variance per feature and class
// (nbcore/models' Gaussian model).
// Data and parameters as models.js describes them.

import { pairwiseSum, columnSum } from "./equations.js";
import { blockSquaredDistance } from "./model_kernels.js";

const LOG_2PI = 1.8378770664093453; // float(np.log(2π))
const TWO_PI = 6.283185307179586;

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

export class GaussianModel {
  /** @param {{variance?: "mle"|"unbiased", var_smoothing?: number, var_floor?: number}} options */
  constructor(options = {}) {
    this.name = "gaussian";
    this.title = "Gaussian";
    // how the lab's data holds the matrix this model is made for (nblab/data.py matrix_format)
    this.matrixFormat = "dense";
    // what one feature is (nbcore: input_kind)
    this.inputKind = "continuous";
    this.paramNames = ["mean", "var"];
    this.scoresAbsentFeatures = false;
    this.variance = options.variance || "mle";
    this.varSmoothing = options.var_smoothing ?? options.varSmoothing ?? 1e-9;
    this.varFloor = options.var_floor ?? options.varFloor ?? 0.0;
    if (this.variance !== "mle" && this.variance !== "unbiased") {
      throw new Error(`variance must be 'mle' or 'unbiased', got ${this.variance}.`);
    }
  }

  /** The means as the (V × K) table (nbcore: GaussianModel.param_table). */
  paramTable(params, featureNames, categories, K) {
    return { mat: Float64Array.from(params.mean), R: featureNames.length, K, rows: featureNames.slice(),
      label: "mean μ of each feature", short: "μ", logScale: false, zmin: null, zmax: null };
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
