// Label switching (nbcore/align.py): the one-to-one naming of EM's clusters that agrees most with the true
// labels, for runs where EM saw no label. No DOM; the controller (accuracy) and the parameters panel (the
// columns of β in label order) both use it, so they name the clusters alike.

/** scipy's linear_sum_assignment(confusion, maximize=True) as nbcore.align_clusters:
 * mapping[cluster] = label. Exhaustive for K ≤ 8 (first best permutation in lexicographic
 * order), else the Hungarian method. */
export function alignClusters(yTrue, pred, K) {
  const table = Array.from({ length: K }, () => new Array(K).fill(0));   // rows: cluster, columns: label
  for (let i = 0; i < yTrue.length; i++) table[pred[i]][yTrue[i]] += 1;
  if (K <= 8) {
    let best = -1, bestPerm = null;
    const perm = [], used = new Array(K).fill(false);
    (function rec(c, score) {
      if (c === K) { if (score > best) { best = score; bestPerm = perm.slice(); } return; }
      for (let l = 0; l < K; l++) {
        if (used[l]) continue;
        used[l] = true; perm.push(l);
        rec(c + 1, score + table[c][l]);
        used[l] = false; perm.pop();
      }
    })(0, 0);
    return bestPerm;
  }
  return hungarianMax(table);
}

function hungarianMax(a) {
  // the O(K³) Hungarian method on costs −a (rows: clusters)
  const n = a.length, INF = Infinity;
  const u = new Array(n + 1).fill(0), v = new Array(n + 1).fill(0), p = new Array(n + 1).fill(0), way = new Array(n + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Array(n + 1).fill(INF), used = new Array(n + 1).fill(false);
    do {
      used[j0] = true;
      const i0 = p[j0];
      let delta = INF, j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const cur = -a[i0 - 1][j - 1] - u[i0] - v[j];
        if (cur < minv[j]) { minv[j] = cur; way[j] = j0; }
        if (minv[j] < delta) { delta = minv[j]; j1 = j; }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) { u[p[j]] += delta; v[j] -= delta; } else minv[j] -= delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do { const j1 = way[j0]; p[j0] = p[j1]; j0 = j1; } while (j0);
  }
  const mapping = new Array(n);
  for (let j = 1; j <= n; j++) mapping[p[j] - 1] = j - 1;
  return mapping;
}
