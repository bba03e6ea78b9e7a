// The warnings next to the charts when EM's result should not be trusted as it looks (no DOM):
//   * EM emptied a class: its α collapsed, or no hidden document keeps it;
//   * EM moved a class prior far from its share of the labelled documents;
//   * mid-run, EM more than BELOW_BY under the best supervised baseline.
// Each warning is a list of [text, style] parts (style null or "strong"): the page sets each part's
// textContent, so a class name from the data is never markup.

import { percent, best } from "./lab.js";

//: a class counts as emptied at t when its α_t is below EMPTIED_SHARE of its α at t = 0 or below
//: EMPTIED_FLOOR / K, when the hidden documents' mean responsibility for it is below EMPTIED_SHARE of that start
//: (α also holds the labelled documents, so it cannot fall below their share), or when no hidden document has it
//: as its most probable class
export const EMPTIED_SHARE = 0.01;
export const EMPTIED_FLOOR = 0.005;
//: mid-run, EM this far below the best supervised baseline is worth a warning
export const BELOW_BY = 0.02;
//: α further than this (and than three standard errors of the labelled share) from that share has drifted
export const DRIFT_FLOOR = 0.10;

/**
 * {class k: the first iteration (t ≥ 1) of the stretch, up to the last row, in which k has been emptied}, for
 * the classes emptied at the last row. alphas, hiddenMeans: (T) arrays of K numbers; hiddenCounts: (T) arrays
 * of K counts of hidden documents whose most probable class is k. t = 0 is the start EM was given: a class
 * already empty there counts from t = 1.
 */
export function emptiedClasses(alphas, hiddenMeans, hiddenCounts) {
  const T = alphas.length;
  if (T < 2) return new Map();
  const K = alphas[0].length, start = alphas[0];
  const empty = (t, k) => alphas[t][k] < EMPTIED_SHARE * start[k] || alphas[t][k] < EMPTIED_FLOOR / K
    || hiddenMeans[t][k] < EMPTIED_SHARE * start[k] || hiddenCounts[t][k] === 0;
  const out = new Map();
  for (let k = 0; k < K; k++) {
    if (!empty(T - 1, k)) continue;
    let t = T - 1;
    while (t > 1 && empty(t - 1, k)) t--;
    out.set(k, t);
  }
  return out;
}

/** Classes whose α EM moved far from their share of the labelled rows: [{ k, alpha, share, allowed }]. */
export function alphaDrift(alpha, yObs, K, floor = DRIFT_FLOOR) {
  const counts = new Float64Array(K);
  let n = 0;
  for (const v of yObs) if (v >= 0) { counts[v]++; n++; }
  if (n < 2) return [];
  const out = [];
  for (let k = 0; k < K; k++) {
    const share = counts[k] / n;
    const allowed = Math.max(floor, 3 * Math.sqrt(share * (1 - share) / n));
    if (Math.abs(alpha[k] - share) > allowed) out.push({ k, alpha: alpha[k], share, allowed });
  }
  return out;
}

const pct2 = (v) => `${(v * 100).toFixed(2)}%`;

/** Per iteration 0 … t: α, the hidden documents' mean posterior and their argmax counts (the lab's posteriors). */
function emptiedRows(lab, t) {
  const prep = lab.prep, K = prep.K, N = prep.yObs.length;
  const cache = lab._emptied && lab._emptied.serial === lab.serial ? lab._emptied : (lab._emptied = { serial: lab.serial, rows: [] });
  const rows = cache.rows;
  for (let s = 0; s <= t; s++) {
    const alpha = lab.run.history[s].alpha;
    if (s < rows.length && rows[s].alpha === alpha) continue;
    rows.length = s;
    const P = lab.posterior(s), mean = new Float64Array(K), count = new Int32Array(K);
    let m = 0;
    for (let i = 0; i < N; i++) {
      if (prep.yObs[i] >= 0) continue;
      m++;
      let top = 0;
      for (let k = 0; k < K; k++) { mean[k] += P[i * K + k]; if (P[i * K + k] > P[i * K + top]) top = k; }
      count[top]++;
    }
    for (let k = 0; k < K; k++) mean[k] /= Math.max(m, 1);
    rows.push({ alpha, mean, count });
  }
  return rows.slice(0, t + 1);
}

/**
 * The warnings at iteration t of the lab's run, each a list of [text, style] parts. None at t = 0, without
 * labelled or without hidden documents.
 */
export function warningsAt(lab, t = lab.t) {
  const prep = lab.prep, K = prep.K, names = prep.classNames.map(String);
  let labelled = 0;
  for (const v of prep.yObs) if (v >= 0) labelled++;
  if (t < 1 || !labelled || labelled === prep.yObs.length) return [];
  const out = [];
  const absent = !!(lab.run.model && lab.run.model.scoresAbsentFeatures);
  // EM emptied a class
  const rows = emptiedRows(lab, t);
  const emptied = emptiedClasses(rows.map((r) => r.alpha), rows.map((r) => r.mean), rows.map((r) => r.count));
  if (emptied.size) {
    const parts = [];
    const a0 = rows[0].alpha, at = rows[t].alpha, hiddenN = rows[t].count.reduce((x, y) => x + y, 0);
    for (const [k, since] of [...emptied.entries()].sort((x, y) => x[1] - y[1])) {
      parts.push(["EM emptied the class ", null], [names[k], "strong"], [" at iteration ", null], [String(since), "strong"],
        [`: α(${names[k]}) is ${pct2(at[k])}${since === t ? "" : ` (t = ${t} now)`}, it started at ${pct2(a0[k])}, and `
          + `${rows[t].count[k].toLocaleString("en")} of the ${hiddenN.toLocaleString("en")} hidden documents have it as their `
          + "most probable class: only its labelled documents still hold it."
          + (rows[0].count[k] === 0 ? " The start (t = 0, the fit to the labelled documents) already gave it no hidden document." : "")
          + " ", null]);
    }
    if (absent) parts.push(["Bernoulli NB counts every word a document lacks (log(1 − β)), and a small class with few labels loses on thousands of them.", null]);
    out.push(parts);
  }
  // a class prior far from the labelled share (classes EM emptied are the warning above's)
  const a0 = lab.run.history[0].alpha, alpha = lab.run.history[t].alpha;
  const drifts = alphaDrift(alpha, prep.yObs, K).filter((d) => !(d.alpha < EMPTIED_SHARE * a0[d.k] || d.alpha < EMPTIED_FLOOR / K));
  if (drifts.length) {
    const parts = [["EM moved a class prior far from the labelled documents: ", null]];
    drifts.forEach((d, i) => {
      parts.push([`${i ? "; " : ""}α(${names[d.k]}) is `, null], [percent(d.alpha), "strong"], [` at t = ${t}, but `, null],
        [percent(d.share), "strong"], [` of the ${labelled.toLocaleString("en")} labelled documents are ${names[d.k]} (a random `
          + `sample of the data: sampling alone explains about ±${(d.allowed * 100).toFixed(0)}%)`, null]);
    });
    parts.push([". EM's clusters are drifting away from the classes, so its accuracy on the hidden labels may suffer.", null]);
    if (absent && prep.texts) {
      parts.push([" The Bernoulli model scores every word a document lacks; on short texts those absent words can decide the class. "
        + "Try the multinomial model (word counts) on the same data.", null]);
    }
    out.push(parts);
  }
  // EM under the best supervised baseline, mid-run (at the end of the run the gain sentence says it)
  const top = best(lab.reference(), t), acc = lab.accuracy(t);
  if (top && Number.isFinite(acc) && acc < top[1] - BELOW_BY && !(lab.done && t === lab.latest)) {
    out.push([[`At t = ${t} EM is `, null], [`${((top[1] - acc) * 100).toFixed(1)} pts below`, "strong"],
      [` the best supervised baseline, ${top[0]} (${percent(top[1])}): so far the unlabelled documents have cost accuracy, not added it.`, null]]);
  }
  return out;
}
