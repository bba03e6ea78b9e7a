// The kernels the event models share (models.js): nbcore's sparse products (X @ M, X.T @ W, log_dot),
// the block-wise squared distance and small array helpers. Sums follow numpy's order (equations.js);
// sparse products run row by row, entry by entry, the order scipy's csr/csc kernels use, so a sparse X
// gives nbcore's numbers bit for bit up to the logarithms and exponentials.

import { pairwiseSum, columnSum } from "./equations.js";

/** nbcore's row blocks (log(1 − β), squared distances) */
export const ROW_BLOCK = 4096;

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
export function logDot(X, logP, K, out) {
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
export function blockSquaredDistance(u, v, K, total = 0.0) {
  const R = u.length / K;
  const d = new Float64Array(Math.min(R, ROW_BLOCK) * K);
  for (let r0 = 0; r0 < R; r0 += ROW_BLOCK) {
    const len = (Math.min(R, r0 + ROW_BLOCK) - r0) * K, o = r0 * K;
    for (let p = 0; p < len; p++) { const x = u[o + p] - v[o + p]; d[p] = x * x; }
    total += pairwiseSum(d, 0, len);
  }
  return total;
}

/** log of every entry. */
export function logOf(a) {
  const out = new Float64Array(a.length);
  for (let p = 0; p < a.length; p++) out[p] = Math.log(a[p]);
  return out;
}

/** [min, max] of an array. */
export function minMax(a) {
  let lo = Infinity, hi = -Infinity;
  for (let p = 0; p < a.length; p++) { const x = a[p]; if (x < lo) lo = x; if (x > hi) hi = x; }
  return [lo, hi];
}

/** raw / raw.sum(axis=0) for an (R, K) array. */
export function normalizeColumns(raw, K) {
  const R = raw.length / K;
  const s = columnSum(raw, R, K);
  for (let p = 0; p < raw.length; p++) raw[p] /= s[p % K];
  return raw;
}
