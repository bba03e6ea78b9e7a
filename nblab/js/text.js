// A typed message → the data set's feature vector, as the data set's scikit-learn CountVectorizer
// (ds.transform) makes it: the same lower-casing, tokens, stop words, n-grams and vocabulary.
//
// labData.text (nblab/data.py) says how: { analyzer: "word" | "char_wb" | "char", tokenPattern,
// ngramRange: [lo, hi], lowercase, stopWords: [..] | null, binary }; the vocabulary is
// labData.featureNames (term j = feature j).
//
// Python's definitions are written out where JavaScript's differ: whitespace is str.isspace()
// (it includes \x1c-\x1f and \x85, not \ufeff), a word character is Python's \w (letters,
// numbers, "_": [\p{L}\p{N}_]). Characters new in a Unicode version Python does not know yet
// can still split differently (JavaScript's Unicode tables are newer).

/** str.isspace() characters (Python 3.11). */
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const SPLIT = new RegExp(`[${PY_SPACE}]+`, "u");
const WHITE_SPACES = new RegExp(`[${PY_SPACE}][${PY_SPACE}]+`, "gu"); // sklearn's \s\s+
const WORD_CHARS = "[\\p{L}\\p{N}_]";

/** The token patterns the lab knows, as JavaScript regular expressions (Python's \b\w…\b = runs of \w). */
const TOKEN_PATTERNS = {
  "(?u)\\b\\w+\\b": new RegExp(`${WORD_CHARS}+`, "gu"),
  "(?u)\\b\\w\\w+\\b": new RegExp(`${WORD_CHARS}{2,}`, "gu"),
};

/** Python's str.split(): runs of whitespace separate, no empty pieces. */
function pySplit(s) {
  return s.split(SPLIT).filter((w) => w.length > 0);
}

function wordNgrams(tokens, stop, lo, hi) {
  if (stop) tokens = tokens.filter((w) => !stop.has(w));
  if (hi === 1) return tokens;
  const original = tokens;
  let out;
  if (lo === 1) { out = original.slice(); lo += 1; } else out = [];
  const n0 = original.length;
  for (let n = lo; n <= Math.min(hi, n0); n++) {
    for (let i = 0; i + n <= n0; i++) out.push(original.slice(i, i + n).join(" "));
  }
  return out;
}

function charWbNgrams(doc, lo, hi) {
  const out = [];
  for (const word of pySplit(doc.replace(WHITE_SPACES, " "))) {
    const w = Array.from(` ${word} `); // code points, as Python indexes a str
    const len = w.length;
    for (let n = lo; n <= hi; n++) {
      let offset = 0;
      out.push(w.slice(offset, offset + n).join(""));
      while (offset + n < len) {
        offset += 1;
        out.push(w.slice(offset, offset + n).join(""));
      }
      if (offset === 0) break; // a word shorter than n counts once
    }
  }
  return out;
}

function charNgrams(doc, lo, hi) {
  const t = Array.from(doc.replace(WHITE_SPACES, " "));
  const out = [];
  if (lo === 1) { for (const c of t) out.push(c); lo += 1; }
  for (let n = lo; n <= Math.min(hi, t.length); n++) {
    for (let i = 0; i + n <= t.length; i++) out.push(t.slice(i, i + n).join(""));
  }
  return out;
}

/**
 * The analyzer of a data set's text settings: a document → its terms, as CountVectorizer's
 * build_analyzer() (duplicates kept, so counting them gives the counts).
 * @param {object} text labData.text
 * @returns {(doc: string) => string[]}
 */
export function buildAnalyzer(text) {
  if (!text) throw new Error("This data set has no text settings: it was not built from text.");
  const [lo, hi] = text.ngramRange;
  const lower = (s) => (text.lowercase ? s.toLowerCase() : s);
  if (text.analyzer === "char_wb") return (doc) => charWbNgrams(lower(String(doc ?? "")), lo, hi);
  if (text.analyzer === "char") return (doc) => charNgrams(lower(String(doc ?? "")), lo, hi);
  if (text.analyzer !== "word") throw new Error(`Unknown analyzer ${text.analyzer}`);
  const pattern = TOKEN_PATTERNS[text.tokenPattern];
  if (!pattern) throw new Error(`The lab does not know the token pattern ${text.tokenPattern}`);
  const stop = text.stopWords ? new Set(text.stopWords) : null;
  return (doc) => wordNgrams(lower(String(doc ?? "")).match(pattern) || [], stop, lo, hi);
}

/**
 * A vectorizer for a data set: a message → its feature vector over the data set's vocabulary.
 * @param {object} labData lab_data's JSON (text and featureNames are read)
 * @returns {{analyze: (doc: string) => string[], transform: (doc: string) => Float64Array,
 *            terms: (doc: string) => {index: Int32Array, value: Float64Array}}}
 *   transform(doc) is (V) like ds.transform([doc]).toarray()[0] (counts, or 1 for presence);
 *   terms(doc) the same sparse, indices ascending.
 */
export function vectorizer(labData) {
  const text = labData.text;
  const analyze = buildAnalyzer(text);
  const vocab = new Map();
  labData.featureNames.forEach((t, j) => vocab.set(t, j));
  const terms = (doc) => {
    const counts = new Map();
    for (const t of analyze(doc)) {
      const j = vocab.get(t);
      if (j !== undefined) counts.set(j, (counts.get(j) || 0) + 1);
    }
    const index = Int32Array.from([...counts.keys()].sort((a, b) => a - b));
    const value = Float64Array.from(index, (j) => (text.binary ? 1.0 : counts.get(j)));
    return { index, value };
  };
  const transform = (doc) => {
    const { index, value } = terms(doc);
    const x = new Float64Array(labData.featureNames.length);
    for (let p = 0; p < index.length; p++) x[index[p]] = value[p];
    return x;
  };
  return { analyze, transform, terms };
}
