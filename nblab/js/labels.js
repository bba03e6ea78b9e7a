// Hiding labels for the semi-supervised lesson: hideLabels(y, fraction, seed) = nbcore.hide_labels,
// the same rows for the same seed (numpy's default_rng and permutation, ported in random.js).

import { defaultRng } from "./random.js";

/** Python's round() of a float to an integer: halves go to the even neighbour. */
export function roundHalfEven(x) {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Hide a fraction of the known labels, stratified by class (nbcore.hide_labels).
 *
 * Per class, about `fraction` of its labelled rows are hidden (largest-remainder rounding so the
 * total is round(fraction · n_labelled)), but at least one labelled row per class is kept unless
 * fraction = 1. Rows already −1 stay −1 and are not marked hidden.
 *
 * @param {ArrayLike<number>} y (N) class codes, −1 = unlabelled
 * @param {number} fraction in [0, 1] (the lesson's hidden % / 100)
 * @param {number} seed non-negative integer (np.random.default_rng(seed))
 * @returns {{yObs: Int32Array, hidden: Uint8Array}} yObs (N) with −1 where hidden; hidden (N) 1 = label hidden
 */
export function hideLabels(y, fraction, seed) {
  fraction = Number(fraction);
  if (!(fraction >= 0 && fraction <= 1)) {
    throw new RangeError(`fraction must be between 0 and 1 (e.g. 0.8 hides 80% of the labels); got ${fraction}.`);
  }
  const n = y.length;
  const rng = defaultRng(seed);
  const classes = Array.from(new Set(Array.from(y).filter((c) => c >= 0))).sort((a, b) => a - b);
  const members = classes.map((k) => {
    const m = [];
    for (let i = 0; i < n; i++) if (y[i] === k) m.push(i);
    return m;
  });
  const sizes = members.map((m) => m.length);
  const exact = sizes.map((s) => fraction * s);
  const counts = exact.map((e) => Math.floor(e));
  const total = sizes.reduce((a, b) => a + b, 0);
  const extra = roundHalfEven(fraction * total) - counts.reduce((a, b) => a + b, 0);
  if (extra > 0) {
    // np.argsort(-(exact - counts), kind="stable"): largest remainder first, ties in class order
    const neg = exact.map((e, c) => -(e - counts[c]));
    const order = neg.map((_, c) => c).sort((a, b) => (neg[a] < neg[b] ? -1 : neg[a] > neg[b] ? 1 : a - b));
    for (let r = 0; r < extra && r < order.length; r++) counts[order[r]] += 1;
  }
  for (let c = 0; c < counts.length; c++) {
    counts[c] = fraction < 1.0 ? Math.min(counts[c], Math.max(sizes[c] - 1, 0)) : sizes[c];
  }
  const hidden = new Uint8Array(n);
  for (let c = 0; c < members.length; c++) {
    if (counts[c]) {
      const perm = rng.permutation(members[c]);
      for (let r = 0; r < counts[c]; r++) hidden[perm[r]] = 1;
    }
  }
  const yObs = Int32Array.from(y);
  for (let i = 0; i < n; i++) if (hidden[i]) yObs[i] = -1;
  return { yObs, hidden };
}
