// The supervised baselines of a lesson split, for the lab page: the same numbers as nbcore/baselines.py
// (checked against it to 1e-9 by tests/lab/test_baselines_parity.py). No DOM.
//
// X is the model's matrix as in docs/lab.md: { csr: { indptr, indices, data }, n, v } or a dense flat
// C-order array { dense: Float64Array (n*v), n, v }. yObs: class codes, -1 where hidden. yEval: the
// labels to score with (-1 = none). Results are flat C-order Float64Arrays: an (N, K) array a has a[i*K+k].
//
// * majorityClass / majorityAccuracy: the labelled rows' most frequent class (ties: the lowest code);
// * looLogJoint: leave-one-out log p(x_i, k) of every labelled row, exactly: the row's own counts are
//   subtracted from the full fit's sufficient statistics (Bernoulli and multinomial);
// * looScores / chooseSmoothing: held-out accuracy and log score per λ, and the λ chosen (highest
//   accuracy, then log score, then the larger λ);
// * supervisedAccuracy, baselines: scored on the hidden rows. No hidden label is ever read to choose.

import { getModel } from "./models.js";

export const LAMBDA_GRID = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0];
export const MODELS = ["bernoulli", "multinomial"];

function checkModel(model) {
  if (!MODELS.includes(model)) throw new Error(`baselines.js knows the Bernoulli and multinomial models; got ${model}.`);
}

// Row i's non-zero entries as [cols, vals] (a dense row lists its non-zeros too).
function rowOf(X, i) {
  if (X.csr) {
    const { indptr, indices, data } = X.csr;
    return [indices.subarray ? indices.subarray(indptr[i], indptr[i + 1]) : indices.slice(indptr[i], indptr[i + 1]),
            data.subarray ? data.subarray(indptr[i], indptr[i + 1]) : data.slice(indptr[i], indptr[i + 1])];
  }
  const cols = [], vals = [];
  for (let j = 0; j < X.v; j++) {
    const x = X.dense[i * X.v + j];
    if (x !== 0) { cols.push(j); vals.push(x); }
  }
  return [cols, vals];
}

export function majorityClass(yObs, K) {
  const counts = new Float64Array(K);
  let any = false;
  for (const y of yObs) if (y >= 0) { counts[y] += 1; any = true; }
  if (!any) return null;
  let best = 0;
  for (let k = 1; k < K; k++) if (counts[k] > counts[best]) best = k;
  return best;
}

function scored(yObs, yEval) {
  const rows = [];
  for (let i = 0; i < yObs.length; i++) if (yObs[i] < 0 && yEval[i] >= 0) rows.push(i);
  return rows;
}

export function majorityAccuracy(yObs, yEval, K) {
  const k = majorityClass(yObs, K);
  const rows = scored(yObs, yEval);
  if (k === null || !rows.length) return null;
  let right = 0;
  for (const i of rows) if (yEval[i] === k) right++;
  return right / rows.length;
}

// Sufficient statistics of the labelled rows: counts (V*K) Σ_i x_ij 1(y_i = k), n (K) rows per class.
function statistics(X, yObs, K) {
  const V = X.v, counts = new Float64Array(V * K), n = new Float64Array(K), rows = [];
  for (let i = 0; i < yObs.length; i++) {
    const y = yObs[i];
    if (y < 0) continue;
    rows.push(i);
    n[y] += 1;
    const [cols, vals] = rowOf(X, i);
    for (let p = 0; p < cols.length; p++) counts[cols[p] * K + y] += vals[p];
  }
  return { counts, n, rows };
}

export function looLogJoint(model, X, yObs, K, lam) {
  checkModel(model);
  if (!(lam > 0)) throw new Error(`Cross-validation needs a single λ > 0; got ${lam}.`);
  const stats = statistics(X, yObs, K);
  if (stats.rows.length < 2) throw new Error("Cross-validation needs at least two labelled rows.");
  return getModel(model).scoresAbsentFeatures ? looBernoulli(stats, X, yObs, K, lam) : looMultinomial(stats, X, yObs, K, lam);
}

// Leave-one-out log p(x_i, k) under the Bernoulli model (N*K).
function looBernoulli({ counts, n, rows }, X, yObs, K, lam) {
  const N = rows.length, V = X.v;
  const out = new Float64Array(N * K);
  const logAlpha = Array.from(n, (c) => Math.log(c / (N - 1)));
  // full fit: log β − log(1 − β) per word and class, Σ_j log(1 − β) per class
  const w = new Float64Array(V * K), base = new Float64Array(K);
  // own class without the row: log(λ + c − 1) for its words, log(λ + n − 1 − c) for the others
  const wOwn = new Float64Array(V * K), baseOwn = new Float64Array(K);
  for (let j = 0; j < V; j++) {
    for (let k = 0; k < K; k++) {
      const c = counts[j * K + k], beta = (c + lam) / (2 * lam + n[k]);
      const l1m = Math.log1p(-beta);
      w[j * K + k] = Math.log(beta) - l1m;
      base[k] += l1m;
      const absent = lam + n[k] - 1 - c, present = lam + c - 1;
      const la = Math.log(absent > 0 ? absent : 1), lp = Math.log(present > 0 ? present : 1);
      wOwn[j * K + k] = lp - la;
      baseOwn[k] += la;
    }
  }
  for (let r = 0; r < N; r++) {
    const i = rows[r], y = yObs[i];
    const [cols, vals] = rowOf(X, i);
    for (let k = 0; k < K; k++) {
      const own = k === y;
      let s = 0;
      for (let p = 0; p < cols.length; p++) s += vals[p] * (own ? wOwn : w)[cols[p] * K + k];
      out[r * K + k] = own
        ? s + baseOwn[k] - V * Math.log(2 * lam + n[k] - 1) + Math.log((n[k] - 1) / (N - 1))
        : s + base[k] + logAlpha[k];
    }
  }
  return out;
}

// Leave-one-out log p(x_i, k) under the multinomial model (N*K).
function looMultinomial({ counts, n, rows }, X, yObs, K, lam) {
  const N = rows.length, V = X.v;
  const out = new Float64Array(N * K);
  const logAlpha = Array.from(n, (c) => Math.log(c / (N - 1)));
  const total = new Float64Array(K);
  for (let j = 0; j < V; j++) for (let k = 0; k < K; k++) total[k] += counts[j * K + k];
  const logBeta = new Float64Array(V * K);
  for (let j = 0; j < V; j++) for (let k = 0; k < K; k++)
    logBeta[j * K + k] = Math.log((counts[j * K + k] + lam) / (V * lam + total[k]));
  for (let r = 0; r < N; r++) {
    const i = rows[r], y = yObs[i];
    const [cols, vals] = rowOf(X, i);
    let len = 0;
    for (let p = 0; p < cols.length; p++) len += vals[p];
    for (let k = 0; k < K; k++) {
      let s = 0;
      if (k === y) {
        for (let p = 0; p < cols.length; p++) s += vals[p] * Math.log(lam + counts[cols[p] * K + k] - vals[p]);
        s -= len * Math.log(V * lam + total[k] - len);
        out[r * K + k] = s + Math.log((n[k] - 1) / (N - 1));
      } else {
        for (let p = 0; p < cols.length; p++) s += vals[p] * logBeta[cols[p] * K + k];
        out[r * K + k] = s + logAlpha[k];
      }
    }
  }
  return out;
}

function argmax(a, off, K) {
  let best = 0;
  for (let k = 1; k < K; k++) if (a[off + k] > a[off + best]) best = k;
  return best;
}

export function looScores(model, X, yObs, K, lambdas = LAMBDA_GRID) {
  const ys = [];
  for (const y of yObs) if (y >= 0) ys.push(y);
  const accuracy = [], logScore = [];
  for (const lam of lambdas) {
    const j = looLogJoint(model, X, yObs, K, lam);
    let right = 0, score = 0;
    for (let r = 0; r < ys.length; r++) {
      const off = r * K, top = j[off + argmax(j, off, K)];
      if (argmax(j, off, K) === ys[r]) right++;
      // p(y_i | x_i) as nbcore.equations.normalize_log computes it
      const t = Number.isFinite(top) ? top : 0;
      let sum = 0;
      for (let k = 0; k < K; k++) sum += Number.isFinite(top) ? Math.exp(j[off + k] - t) : 1;
      const p = (Number.isFinite(top) ? Math.exp(j[off + ys[r]] - t) : 1) / sum;
      score += Math.log(p);
    }
    accuracy.push(right / ys.length);
    logScore.push(score / ys.length);
  }
  let best = 0;
  for (let i = 1; i < lambdas.length; i++) {
    const a = [accuracy[i], logScore[i], lambdas[i]], b = [accuracy[best], logScore[best], lambdas[best]];
    if (a[0] > b[0] || (a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && a[2] > b[2])))) best = i;
  }
  return { lambdas: Array.from(lambdas), accuracy, logScore, nLabelled: ys.length, method: "leave-one-out",
           best: lambdas[best] };
}

export function chooseSmoothing(model, X, yObs, K, lambdas = LAMBDA_GRID) {
  return looScores(model, X, yObs, K, lambdas).best;
}

// Supervised NB fitted to the labelled rows, scored on the hidden rows whose truth is known.
export function supervisedAccuracy(model, X, yObs, yEval, K, lam) {
  checkModel(model);
  const rows = scored(yObs, yEval);
  const { counts, n, rows: lab } = statistics(X, yObs, K);
  if (!lab.length || !rows.length) return null;
  const presence = getModel(model).scoresAbsentFeatures;   // Bernoulli: every word, present or absent
  const V = X.v, N = lab.length;
  const logAlpha = Array.from(n, (c) => Math.log(c / N));
  const logB = new Float64Array(V * K), log1m = new Float64Array(V * K), base = new Float64Array(K);
  const total = new Float64Array(K);
  for (let j = 0; j < V; j++) for (let k = 0; k < K; k++) total[k] += counts[j * K + k];
  for (let j = 0; j < V; j++) for (let k = 0; k < K; k++) {
    const c = counts[j * K + k];
    if (presence) {
      const d = 2 * lam + n[k];
      const beta = d > 0 ? Math.min((lam + c) / d, 1) : 0.5;
      logB[j * K + k] = Math.log(beta);
      log1m[j * K + k] = Math.log1p(-beta);
      base[k] += log1m[j * K + k];
    } else {
      const d = lam * V + total[k];
      logB[j * K + k] = d > 0 ? Math.log((lam + c) / d) : Math.log(1 / V);
    }
  }
  const careful = presence && !base.every(Number.isFinite);   // λ = 0: some β is 1
  let right = 0;
  const joint = new Float64Array(K);
  for (const i of rows) {
    const [cols, vals] = rowOf(X, i);
    for (let k = 0; k < K; k++) {
      let s = 0;
      if (presence && careful) {   // every word, present or absent (no ∞ − ∞)
        const present = new Set(cols);
        for (let j = 0; j < V; j++) s += present.has(j) ? logB[j * K + k] : log1m[j * K + k];
      } else if (presence) {
        for (let p = 0; p < cols.length; p++) s += vals[p] * (logB[cols[p] * K + k] - log1m[cols[p] * K + k]);
        s += base[k];
      } else {
        for (let p = 0; p < cols.length; p++) s += vals[p] * logB[cols[p] * K + k];
      }
      joint[k] = s + logAlpha[k];
    }
    if (argmax(joint, 0, K) === yEval[i]) right++;
  }
  return right / rows.length;
}

export function baselines(model, X, yObs, yEval, K, smoothings = [1.0], lambdas = LAMBDA_GRID) {
  const atLambda = {};
  for (const s of smoothings) atLambda[s] = supervisedAccuracy(model, X, yObs, yEval, K, s);
  let nLab = 0;
  for (const y of yObs) if (y >= 0) nLab++;
  let cvLambda = null, cv = null, method = null;
  if (nLab >= 2) {
    const res = looScores(model, X, yObs, K, lambdas);
    cvLambda = res.best;
    method = res.method;
    cv = supervisedAccuracy(model, X, yObs, yEval, K, cvLambda);
  }
  return { majority: majorityAccuracy(yObs, yEval, K), majorityClass: majorityClass(yObs, K), atLambda,
           cvLambda, cv, cvMethod: method, nLabelled: nLab };
}
