// Decode the lab's data (nblab/data.py lab_data): base64 little-endian typed arrays → typed arrays.
//
// An encoded array is { dtype: "u8"|"u16"|"u32"|"i8"|"i16"|"i32"|"f32"|"f64", b64: "..." }.
// decodeLabData(json) returns the same object with every encoded array replaced by its typed array
// (y, yTrue: Int32Array; the matrix's parts as typed arrays; data: Float64Array), see docs/lab.md.

const TYPES = {
  u8: Uint8Array, u16: Uint16Array, u32: Uint32Array,
  i8: Int8Array, i16: Int16Array, i32: Int32Array,
  f32: Float32Array, f64: Float64Array,
};

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** base64 → bytes (atob exists in browsers and in Node ≥ 16). */
export function base64Bytes(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Whether `a` is an encoded array ({dtype, b64}). */
export function isEncoded(a) {
  return a !== null && typeof a === "object" && typeof a.b64 === "string" && typeof a.dtype === "string";
}

/**
 * One encoded array → a typed array of its dtype.
 * @param {{dtype: string, b64: string}} enc
 * @returns {TypedArray}
 */
export function decodeArray(enc) {
  const Type = TYPES[enc.dtype];
  if (!Type) throw new Error(`Unknown array dtype ${enc.dtype}`);
  const bytes = base64Bytes(enc.b64);
  const size = Type.BYTES_PER_ELEMENT;
  if (bytes.length % size) throw new Error(`A ${enc.dtype} array cannot hold ${bytes.length} bytes`);
  if (LITTLE_ENDIAN || size === 1) return new Type(bytes.buffer, 0, bytes.length / size);
  const view = new DataView(bytes.buffer), out = new Type(bytes.length / size);
  const get = { u16: "getUint16", u32: "getUint32", i16: "getInt16", i32: "getInt32", f32: "getFloat32", f64: "getFloat64" }[enc.dtype];
  for (let i = 0; i < out.length; i++) out[i] = view[get](i * size, true);
  return out;
}

/** Labels as Int32Array (−1 = unlabelled). */
function labels(enc) {
  return enc == null ? null : Int32Array.from(isEncoded(enc) ? decodeArray(enc) : enc);
}

/**
 * The lab's data with its arrays decoded. Idempotent (a decoded object comes back as it is).
 *
 * Returns { ...json, y: Int32Array (N), yTrue: Int32Array (N) | null, matrix } where matrix is
 *   { format: "csr", n, v, indptr: Int32Array (n+1), indices: Int32Array (nnz), data: Float64Array (nnz) }
 *   { format: "dense", n, v, values: Float64Array (n*v) }
 *   { format: "codes", n, v, codes: Int32Array (n*v), nCategories: number[] (v), categories }
 */
export function decodeLabData(json) {
  if (json._decoded) return json;
  const m = json.matrix;
  let matrix;
  if (m.format === "csr") {
    const indices = Int32Array.from(decodeArray(m.indices));
    const data = m.data == null ? new Float64Array(indices.length).fill(1.0) : Float64Array.from(decodeArray(m.data));
    matrix = { format: "csr", n: m.n, v: m.v, indptr: Int32Array.from(decodeArray(m.indptr)), indices, data };
  } else if (m.format === "dense") {
    matrix = { format: "dense", n: m.n, v: m.v, values: Float64Array.from(decodeArray(m.values)) };
  } else if (m.format === "codes") {
    matrix = { format: "codes", n: m.n, v: m.v, codes: Int32Array.from(decodeArray(m.codes)),
      nCategories: m.nCategories.slice(), categories: m.categories || null };
  } else {
    throw new Error(`Unknown matrix format ${m.format}`);
  }
  const out = { ...json, matrix, y: labels(json.y), yTrue: labels(json.yTrue), _decoded: true };
  return out;
}

/**
 * Row i of the data set's matrix as a dense Float64Array (V) (codes for categorical data).
 * @param {object} matrix a decoded matrix
 * @param {number} i
 */
export function denseRow(matrix, i) {
  const out = new Float64Array(matrix.v);
  if (matrix.format === "csr") {
    for (let p = matrix.indptr[i]; p < matrix.indptr[i + 1]; p++) out[matrix.indices[p]] = matrix.data[p];
  } else if (matrix.format === "dense") {
    out.set(matrix.values.subarray(i * matrix.v, (i + 1) * matrix.v));
  } else {
    for (let j = 0; j < matrix.v; j++) out[j] = matrix.codes[i * matrix.v + j];
  }
  return out;
}
