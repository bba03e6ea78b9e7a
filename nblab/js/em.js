// The EM run in the browser, nbcore's EMRun in JavaScript (no DOM): snapshots of every iteration,
// Step, the E-step / M-step halves, λ changed mid-run, both stop rules, rewind.
//
//   const prep = prepare(labData, { model, hiddenPct, seed });
//   const run = startRun(prep, { lam, init, seed, maxIter, tol });
//   run.step(); run.history[1].alpha; run.posterior(1);
//
// Arrays are flat Float64Arrays in numpy's C order: an (N, K) array a has a[i * K + k].
// The numbers are nbcore's (checked in CI to 1e-9 relative on every shipped data set): same
// equations, same order of summation; see docs/lab.md.

import {
  classPrior, columnSum, logJoint, mStep as mStepEq, normalizeLog, observedLogLikelihood,
  oneHotLabels, responsibilities as responsibilitiesEq, sameSmoothing, squaredChange, decreases,
} from "./equations.js";
import { getModel } from "./models.js";
import { hideLabels } from "./labels.js";
import { defaultRng } from "./random.js";
import { decodeLabData, denseRow } from "./data.js";

export const INITS = ["uniform", "random", "labeled"];
export const THETA_NORMS = ["parameters", "both_values"];

// ---------------------------------------------------------------------------------------------
// the model's matrix (ds.for_model(model))
// ---------------------------------------------------------------------------------------------
/** CSR X > 0 as 0/1 (nbcore's binarize: values ≤ 0 dropped). */
function binarizeCsr(m) {
  let nnz = 0;
  for (let p = 0; p < m.data.length; p++) if (m.data[p] > 0) nnz++;
  const indptr = new Int32Array(m.n + 1), indices = new Int32Array(nnz), data = new Float64Array(nnz).fill(1.0);
  let q = 0;
  for (let i = 0; i < m.n; i++) {
    for (let p = m.indptr[i]; p < m.indptr[i + 1]; p++) if (m.data[p] > 0) indices[q++] = m.indices[p];
    indptr[i + 1] = q;
  }
  return { format: "csr", n: m.n, v: m.v, indptr, indices, data };
}

/** A dense (N, V) matrix's entries x > 0 as a 0/1 CSR matrix. */
function binarizeDense(m) {
  const { n, v, values } = m;
  const idx = [];
  const indptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < v; j++) if (values[i * v + j] > 0) idx.push(j);
    indptr[i + 1] = idx.length;
  }
  return { format: "csr", n, v, indptr, indices: Int32Array.from(idx), data: new Float64Array(idx.length).fill(1.0) };
}

/** Categorical codes (N, V) as the one-hot CSR matrix the categorical model computes with. */
function oneHot(m) {
  const { n, v, codes, nCategories } = m;
  const offsets = [0];
  for (const d of nCategories) offsets.push(offsets[offsets.length - 1] + d);
  const indptr = new Int32Array(n + 1), indices = new Int32Array(n * v);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < v; j++) indices[i * v + j] = offsets[j] + codes[i * v + j];
    indptr[i + 1] = (i + 1) * v;
  }
  return { format: "csr", n, v: offsets[v], indptr, indices, data: new Float64Array(n * v).fill(1.0),
    nFeatures: v, nCategories: nCategories.slice(), offsets, codes };
}

/**
 * The event model's input built from the data set's matrix, as ds.for_model(model) then the
 * model's prepare: "binarize" (Bernoulli on counts or continuous data: x > 0), "as_is" otherwise.
 * @param {object} matrix a decoded matrix (data.js)
 * @param {string} model
 * @param {string} recipe labData.modelInputs[model]
 */
export function modelMatrix(matrix, model, recipe = "as_is") {
  const { matrixFormat, title } = getModel(model);
  if (matrixFormat === "codes") {
    if (matrix.format !== "codes") throw new Error(`The ${title} model needs category codes.`);
    return oneHot(matrix);
  }
  if (recipe === "binarize") return matrix.format === "dense" ? binarizeDense(matrix) : binarizeCsr(matrix);
  if (recipe !== "as_is") throw new Error(`Unknown model input ${recipe}`);
  if (matrix.format !== matrixFormat) {
    throw new Error(`The ${title} model needs ${matrixFormat === "dense" ? "a dense" : "a sparse (CSR)"} matrix.`);
  }
  return matrix;
}

/**
 * The data of one lesson run, as dashboard/lesson/prepare.prepare: the model's matrix, the labels
 * EM sees (hidden with nbcore.hide_labels' rows) and the rows scored for accuracy.
 *
 * @param {object} labData lab_data's JSON (decoded or not)
 * @param {{model?: string, hiddenPct?: number, seed?: number}} opts hiddenPct 0..100
 * @returns {object} prep: { data, model, X, N, V, K, y, yEval, yObs, hidden, scoreMask, classNames,
 *   featureNames, texts, modelOptions, hiddenPct, seed, row(i) }
 */
export function prepare(labData, { model, hiddenPct = 90, seed = 0 } = {}) {
  const data = decodeLabData(labData);
  model = model || data.models[0];
  if (!data.models.includes(model)) {
    throw new Error(`The ${data.name} data can't be used with the ${model} model (it allows: ${data.models.join(", ")}).`);
  }
  const X = modelMatrix(data.matrix, model, (data.modelInputs || {})[model] || "as_is");
  const y = data.y;
  const { yObs, hidden } = hideLabels(y, hiddenPct / 100.0, seed);
  const yEval = data.yTrue || y;
  const N = y.length;
  const scoreMask = new Uint8Array(N);
  for (let i = 0; i < N; i++) scoreMask[i] = yObs[i] < 0 && yEval[i] >= 0 ? 1 : 0;
  const K = data.classNames.length;
  const binarize = ((data.modelInputs || {})[model] || "as_is") === "binarize";
  return {
    data, model, X, N, V: data.matrix.v, K, y, yEval, yObs, hidden, scoreMask,
    classNames: data.classNames, featureNames: data.featureNames, texts: data.texts || null,
    modelOptions: { ...((data.modelOptions || {})[model] || {}) }, hiddenPct, seed,
    /** Row i as the model reads it (V): the document explain(x, t) takes. */
    row(i) {
      const x = denseRow(data.matrix, i);
      if (binarize) for (let j = 0; j < x.length; j++) x[j] = x[j] > 0 ? 1.0 : 0.0;
      return x;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// the run
// ---------------------------------------------------------------------------------------------
const CONTINUABLE = ["lam", "maxIter", "tol", "thetaTol", "keepResp", "thetaNorm"];

function checkLam(lam) {
  if (typeof lam !== "number" || !(lam >= 0) || !Number.isFinite(lam)) {
    throw new Error(`The smoothing λ must be a number ≥ 0; got ${lam}.`);
  }
  return lam;
}

/**
 * Start EM on prepared data: snapshot 0 holds the initial parameters (nbcore EM(...).start).
 *
 * @param {object} prep from prepare()
 * @param {object} opts
 * @param {string} [opts.model=prep.model]
 * @param {number} [opts.lam=1] λ ≥ 0
 * @param {"uniform"|"random"|"labeled"} [opts.init="labeled"] "labeled" with no visible label
 *   starts at "random" (the lesson's effective_init); run.init says which was used
 * @param {number} [opts.seed=prep.seed] the random start's seed (np.random.default_rng(seed))
 * @param {number} [opts.maxIter=100]
 * @param {number|null} [opts.tol=1e-6] stop when |Δ objective| ≤ tol·|objective| at the same λ
 * @param {number|null} [opts.thetaTol=null] stop when ‖θ_t − θ_{t−1}‖² < thetaTol
 * @param {"parameters"|"both_values"} [opts.thetaNorm="parameters"]
 * @param {number} [opts.unlabeledWeight=1] w in [0, 1]
 * @param {object} [opts.modelOptions=prep.modelOptions] e.g. { var_floor } (the model's suggested options)
 * @param {number|null} [opts.keepResp=2] responsibilities kept on the latest snapshots only (null: all)
 * @param {{alpha: Float64Array, params: object}} [opts.initialParams] start from these instead
 * @returns {Run}
 */
export function startRun(prep, opts = {}) {
  return new Run(prep, opts);
}

export class Run {
  constructor(prep, opts, from = null) {
    if (from) {
      this._copyFrom(from, opts);
      return;
    }
    const model = opts.model || prep.model;
    if (model !== prep.model) throw new Error(`This data was prepared for the ${prep.model} model, not ${model}.`);
    const s = {
      lam: checkLam(opts.lam ?? 1.0),
      init: opts.init || "labeled",
      seed: opts.seed ?? prep.seed ?? 0,
      maxIter: opts.maxIter ?? 100,
      tol: opts.tol === undefined ? 1e-6 : opts.tol,
      thetaTol: opts.thetaTol ?? null,
      thetaNorm: opts.thetaNorm || "parameters",
      unlabeledWeight: opts.unlabeledWeight ?? 1.0,
      modelOptions: opts.modelOptions || prep.modelOptions || {},
      keepResp: opts.keepResp === undefined ? 2 : opts.keepResp,
    };
    if (!INITS.includes(s.init)) throw new Error(`init must be one of ${INITS.join(", ")}; got ${s.init}.`);
    if (!THETA_NORMS.includes(s.thetaNorm)) throw new Error(`theta_norm must be one of ${THETA_NORMS.join(", ")}.`);
    if (!(s.unlabeledWeight >= 0 && s.unlabeledWeight <= 1)) throw new Error("unlabeledWeight must be in [0, 1].");
    if (!(Number.isInteger(s.maxIter) && s.maxIter >= 0)) throw new Error(`maxIter must be a whole number ≥ 0, got ${s.maxIter}.`);
    this.prep = prep;
    this.settings = s;
    this.lam = s.lam;
    this.model = getModel(model, s.modelOptions);
    this.Xp = prep.X;
    this.K = prep.K;
    this.N = prep.N;
    this.y = prep.yObs;
    let nLab = 0;
    for (let i = 0; i < this.N; i++) if (this.y[i] >= 0) nLab++;
    this.init = s.init === "labeled" && nLab === 0 ? "random" : s.init; // the lesson's effective_init
    if (nLab === 0 && s.unlabeledWeight === 0) {
      throw new Error("Every label is hidden and unlabeledWeight is 0, so there is nothing to learn from.");
    }
    this._rowWeight = null;
    if (s.unlabeledWeight !== 1.0) {
      this._rowWeight = new Float64Array(this.N);
      for (let i = 0; i < this.N; i++) this._rowWeight[i] = this.y[i] < 0 ? s.unlabeledWeight : 1.0;
    }
    this._joint = new Float64Array(this.N * this.K);
    this._logMarginal = new Float64Array(this.N);
    this._scratch = new Float64Array(this.N);
    this._posteriors = new Map();
    this.pending = null;
    this.stopReason = null;
    const { alpha, params } = opts.initialParams || this._initialParameters(this.init, s.seed);
    const prior = this._evaluate(params, alpha);
    const ll = this._observedLogLikelihood();
    this.history = [{ t: 0, alpha, params, resp: null, logLikelihood: ll, objective: ll + prior, delta: null,
      lam: this.lam, impossible: this._impossible }];
  }

  _copyFrom(from, changes) {
    this.prep = from.prep;
    this.settings = { ...from.settings, ...changes };
    this.lam = this.settings.lam;
    this.model = from.model;
    this.Xp = from.Xp;
    this.K = from.K;
    this.N = from.N;
    this.y = from.y;
    this.init = from.init;
    this._rowWeight = from._rowWeight;
    this._joint = from._joint.slice(); // the E-step's product at θ_t: this run's own copy
    this._logMarginal = from._logMarginal.slice();
    this._scratch = new Float64Array(this.N);
    this._resp = from._resp; // never written after it is made
    this._impossible = from._impossible;
    this._posteriors = new Map();
    this.pending = from.pending; // the E-step at θ_t does not depend on these settings
    this.history = from.history.slice();
    this.stopReason = null;
  }

  _initialParameters(init, seed) {
    const K = this.K;
    if (init === "uniform") {
      return { alpha: new Float64Array(K).fill(1.0 / K), params: this.model.uniformParams(this.Xp, K) };
    }
    if (init === "random") {
      const rng = defaultRng(seed);
      const raw = rng.uniform(0.01, 0.99, K); // the notebook's initialize
      const alpha = classPrior(raw, K); // raw / raw.sum(), raw read as one (1, K) row of weights
      return { alpha, params: this.model.randomParams(this.Xp, K, rng) };
    }
    // "labeled": an M-step on the labelled rows only
    return mStepEq(this.model, this.Xp, oneHotLabels(this.y, K), this.lam, K);
  }

  /** log p(x_i, k) under θ into this._joint, the E-step's responsibilities; returns log p(θ). */
  _evaluate(params, alpha) {
    const { lp, prior } = this.model.logParams(params, this.lam, this.K);
    this.model.logLikelihoodFrom(this.Xp, lp, this.K, this._joint);
    logJoint(this._joint, alpha);
    const r = responsibilitiesEq(this._joint, this.y, this.K, new Float64Array(this.N * this.K), this._logMarginal);
    this._resp = r.resp;
    this._impossible = r.impossible;
    this._posteriors = new Map();
    return prior;
  }

  _observedLogLikelihood() {
    return observedLogLikelihood(this._joint, this._logMarginal, this.y, this.K, this.settings.unlabeledWeight, this._scratch);
  }

  /** The latest snapshot. */
  get current() { return this.history[this.history.length - 1]; }
  /** The latest iteration t. */
  get iteration() { return this.current.t; }
  /** Stopped by a convergence rule ("tol" or "theta"). */
  get converged() { return this.stopReason === "tol" || this.stopReason === "theta"; }
  /** Stopped, or maxIter reached. */
  get done() { return this.stopReason !== null || this.iteration >= this.settings.maxIter; }

  /**
   * First half of an iteration: the responsibilities under θ_t (eq. 21-22). θ does not change.
   * @returns {{t: number, resp: Float64Array, logLikelihood: number, objective: number}} (resp N*K)
   */
  eStep() {
    if (this.pending === null) {
      const snap = this.current;
      this.pending = { t: snap.t, resp: this._resp, logLikelihood: snap.logLikelihood, objective: snap.objective };
    }
    return this.pending;
  }

  /** Second half: θ_{t+1} from the pending E-step's responsibilities (eq. 23-24). Returns the new snapshot. */
  mStep() {
    if (this.pending === null) throw new Error("The M-step needs responsibilities: do the E-step first (or Step for both).");
    const previous = this.current;
    const resp = this.pending.resp;
    const K = this.K;
    let weights = resp;
    if (this._rowWeight) {
      weights = new Float64Array(resp.length);
      for (let i = 0; i < this.N; i++) for (let k = 0; k < K; k++) weights[i * K + k] = resp[i * K + k] * this._rowWeight[i];
    }
    const { alpha, params } = mStepEq(this.model, this.Xp, weights, this.lam, K);
    const delta = squaredChange(this.model, alpha, params, previous.alpha, previous.params, this.settings.thetaNorm);
    const prior = this._evaluate(params, alpha);
    const ll = this._observedLogLikelihood();
    const snap = { t: previous.t + 1, alpha, params, resp, logLikelihood: ll, objective: ll + prior, delta,
      lam: this.lam, impossible: this._impossible };
    this.pending = null;
    this.history.push(snap);
    this._forgetOldResp();
    this._updateStopReason(previous, snap);
    return snap;
  }

  /** One E-step + M-step; after a lone eStep() it finishes that iteration. Returns the new snapshot. */
  step() {
    this.eStep();
    return this.mStep();
  }

  /** Step until done (or maxSteps more steps); returns the latest snapshot. */
  runToConvergence(maxSteps = Infinity) {
    let steps = 0;
    while (!this.done && steps < maxSteps) { this.step(); steps++; }
    return this.current;
  }

  _forgetOldResp() {
    const keep = this.settings.keepResp;
    if (keep === null || keep === undefined) return;
    const old = this.history.length - 1 - Math.max(keep | 0, 0);
    if (old >= 1 && this.history[old].resp !== null) this.history[old] = { ...this.history[old], resp: null };
  }

  _updateStopReason(previous, snap) {
    const s = this.settings;
    this.stopReason = null;
    if (s.thetaTol !== null && s.thetaTol !== undefined && snap.delta < s.thetaTol) {
      this.stopReason = "theta";
    } else if (s.tol !== null && s.tol !== undefined && sameSmoothing(previous.lam, snap.lam)
        && Number.isFinite(snap.objective) && Number.isFinite(previous.objective)
        && Math.abs(snap.objective - previous.objective) <= s.tol * Math.abs(previous.objective)) {
      this.stopReason = "tol";
    } else if (snap.t >= s.maxIter) {
      this.stopReason = "max_iter";
    }
  }

  /**
   * A new run that continues from θ_t with some settings changed (nbcore's with_settings): lam,
   * maxIter, tol, thetaTol, keepResp, thetaNorm. The history is kept; this run is untouched.
   */
  withSettings(changes) {
    const unknown = Object.keys(changes).filter((k) => !CONTINUABLE.includes(k));
    if (unknown.length) throw new Error(`Cannot change ${unknown.join(", ")} in the middle of a run; start a new run instead.`);
    if ("lam" in changes) checkLam(changes.lam);
    if ("thetaNorm" in changes && !THETA_NORMS.includes(changes.thetaNorm)) throw new Error("Unknown thetaNorm.");
    return new this.constructor(null, changes, this);
  }

  /** A new run that continues from θ_t with a new λ (the next M-step and the objective use it). */
  withSmoothing(lam) {
    return this.withSettings({ lam });
  }

  /** A run whose latest iteration is t: the later snapshots dropped, EM goes on from θ_t. */
  rewound(t) {
    if (!Number.isInteger(t) || t < 0 || t >= this.history.length) {
      throw new Error(`Can only rewind to an iteration from 0 to ${this.history.length - 1}, got ${t}.`);
    }
    const run = new Run(null, {}, this);
    if (t === this.history.length - 1) {
      run.stopReason = this.stopReason;
      return run;
    }
    run.history = run.history.slice(0, t + 1);
    run.pending = null;
    const snap = run.current;
    run._evaluate(snap.params, snap.alpha); // the E-step at θ_t: what the next step starts from
    if (t > 0) run._updateStopReason(run.history[t - 1], snap);
    return run;
  }

  /**
   * The responsibilities that produced θ_t (N*K), recomputed exactly when no longer stored; null at t = 0.
   */
  responsibilities(t) {
    if (t === 0) return null;
    const snap = this.history[t];
    if (snap.resp) return snap.resp;
    const before = this.history[t - 1];
    const { lp } = this.model.logParams(before.params, this.lam, this.K);
    const joint = this.model.logLikelihoodFrom(this.Xp, lp, this.K, new Float64Array(this.N * this.K));
    logJoint(joint, before.alpha);
    return responsibilitiesEq(joint, this.y, this.K).resp;
  }

  /** The M-step's weights for θ_t: responsibilities × each row's weight (w for hidden rows). */
  mStepWeights(t) {
    const resp = this.responsibilities(t);
    if (!resp || !this._rowWeight) return resp;
    const out = new Float64Array(resp.length);
    for (let i = 0; i < this.N; i++) for (let k = 0; k < this.K; k++) out[i * this.K + k] = resp[i * this.K + k] * this._rowWeight[i];
    return out;
  }

  /**
   * p(y = k | x_i) under θ_t for every row (N*K), labelled rows included (predictions, accuracy,
   * the documents table). t defaults to the latest iteration.
   */
  posterior(t = this.iteration) {
    const cached = this._posteriors.get(t);
    if (cached) return cached;
    let post;
    if (t === this.iteration) {
      post = normalizeLog(this._joint, this.K).posterior;
    } else {
      const snap = this.history[t];
      const ll = this.model.logLikelihood(this.Xp, snap.params, new Float64Array(this.N * this.K));
      post = normalizeLog(logJoint(ll, snap.alpha), this.K).posterior;
    }
    if (this._posteriors.size >= 4) this._posteriors.delete(this._posteriors.keys().next().value);
    this._posteriors.set(t, post);
    return post;
  }

  /** argmax_k of posterior(t) (N), ties to the first class. */
  predict(t = this.iteration) {
    const post = this.posterior(t), K = this.K, out = new Int32Array(this.N);
    for (let i = 0; i < this.N; i++) {
      let best = 0;
      for (let k = 1; k < K; k++) if (post[i * K + k] > post[i * K + best]) best = k;
      out[i] = best;
    }
    return out;
  }

  /**
   * One document x (V: the model's input, e.g. prep.row(i); codes for categorical) under θ_t
   * (nbcore.explain): prior = log α (K), terms (V*K) each feature's term of log p(x | k),
   * like = Σ_j terms (K), joint = prior + like (K), post = p(y = k | x) (K), present (V) x_j > 0.
   */
  explain(x, t = this.iteration) {
    const snap = this.history[t];
    const K = this.K, V = x.length;
    const terms = this.model.featureTerms(snap.params, x, K);
    const prior = new Float64Array(K);
    for (let k = 0; k < K; k++) prior[k] = Math.log(snap.alpha[k]);
    const like = columnSum(terms, V, K);
    const joint = new Float64Array(K);
    for (let k = 0; k < K; k++) joint[k] = prior[k] + like[k];
    const post = normalizeLog(joint, K).posterior;
    const present = new Uint8Array(V);
    for (let j = 0; j < V; j++) present[j] = x[j] > 0 ? 1 : 0;
    return { prior, like, joint, post, terms, present };
  }

  /** The M-step's statistics for θ_t (the maths panel): the model's estimateParts of them, or null. */
  estimateParts(t = this.iteration) {
    const w = this.mStepWeights(t);
    if (!w) return null;
    return this.model.estimateParts(this.model.statistics(this.Xp, w, this.K));
  }

  /** Iterations whose objective fell below the one before at the same λ (EM guarantees none). */
  objectiveDecreases(rtol = 1e-10) {
    return decreases(this.history.map((s) => s.objective), this.history.map((s) => s.lam), rtol);
  }
}
