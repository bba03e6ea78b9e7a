// node --test tests/lab/js/panels.test.mjs — the pure parts of the lab's lower panels (nblab/js/panels/):
// number formatting as Python prints numbers, the documents table's order over every hidden document,
// flips and the confusion matrix, the top separating rows, the parameter tables, the histogram's bins,
// the M-step row of eq. 23/24, the typed message's log-odds split. The Python oracle for the same
// functions on real data is tests/lab/test_panels_oracle.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as C from "../../../nblab/js/panels/common.js";
import * as P from "../../../nblab/js/panels/params.js";
import * as D from "../../../nblab/js/panels/documents.js";
import * as R from "../../../nblab/js/panels/responsibilities.js";
import * as M from "../../../nblab/js/panels/maths.js";
import * as A from "../../../nblab/js/align.js";
import * as G from "../../../nblab/js/panels/message.js";

// ---- formatting -------------------------------------------------------------------------------------

test("pyFixed rounds an exact tie half to even, as Python's format does", () => {
  assert.equal(C.pyFixed(0.125, 2), "0.12");     // Python: '0.12' (toFixed says 0.13)
  assert.equal(C.pyFixed(0.375, 2), "0.38");
  assert.equal(C.pyFixed(2.5, 0), "2");
  assert.equal(C.pyFixed(3.5, 0), "4");
  assert.equal(C.pyFixed(-0.125, 2), "-0.12");
  assert.equal(C.pyFixed(0.1 + 0.2, 3), "0.300");
  assert.equal(C.pyFixed(1.0005, 3), "1.000");     // 1.0005 is below the tie in binary: Python '1.000'
  assert.equal(C.pyFixed(-0.0001, 3), "-0.000");
  assert.equal(C.pyFixed(97.04999, 1), "97.0");
});

test("fmt: fixed decimals, ×10 powers when tiny or huge, a real minus, ±∞", () => {
  assert.equal(C.fmt(0.5, 3), "0.500");
  assert.equal(C.fmt(-12.3456, 2), "−12.35");
  assert.equal(C.fmt(1.5e-7, 3), "1.50×10⁻⁷");
  assert.equal(C.fmt(-2.5e7, 2), "−2.50×10⁷");
  assert.equal(C.fmt(-Infinity, 3), "−∞");
  assert.equal(C.fmt(Infinity, 3), "∞");
  assert.equal(C.fmt(0, 3), "0.000");
  assert.equal(C.fmt(null), "—");
});

test("pct, int, signed and g as Python's .1%, ',', '+.3f' and 'g'", () => {
  assert.equal(C.pct(0.97), "97.0%");
  assert.equal(C.pct(0.12345, 1), "12.3%");
  assert.equal(C.pct(NaN), "—");
  assert.equal(C.int(5574), "5,574");
  assert.equal(C.int(1234567), "1,234,567");
  assert.equal(C.signed(0.1234), "+0.123");
  assert.equal(C.signed(-1.5), "−1.500");
  assert.equal(C.signed(-Infinity), "−∞");
  assert.equal(C.signed(Infinity), "+∞");
  assert.equal(C.gfmt(1), "1");
  assert.equal(C.gfmt(0.001), "0.001");
  assert.equal(C.gfmt(0.1), "0.1");
  assert.equal(C.gfmt(10), "10");
  assert.equal(C.gfmt(1e-5), "1e-05");
  assert.equal(C.gfmt(0), "0");
  assert.equal(C.pyExp(1.5e-7, 2), "1.50e-07");
});

test("plotText escapes plotly's markup characters and puts a name on one line", () => {
  assert.equal(C.plotText("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
  assert.equal(C.plotText("a & b $5 100%"), "a &amp; b &#36;5 100&#37;");
  assert.equal(C.plotText("two\nlines"), "two lines");
  assert.equal(C.plotText("x".repeat(100)).length, 80);
});

test("lexsort: the last key is the primary one, ties in index order; argsort stable with NaN last", () => {
  assert.deepEqual(C.lexsort([[0, 1, 2, 3], [0.5, 0.2, 0.2, 0.9], [0, 0, 1, 1]]), [1, 0, 2, 3]);
  assert.deepEqual(C.stableArgsort([3, NaN, 1, 1]), [2, 3, 0, 1]);
});

test("argmaxRow is numpy's argmax: the first of equal maxima", () => {
  assert.equal(C.argmaxRow(Float64Array.from([0.5, 0.5]), 0, 2), 0);
  assert.equal(C.argmaxRow(Float64Array.from([0.2, 0.3, 0.5, 0.1, 0.9, 0.9]), 1, 3), 1);
});

// ---- parameters ------------------------------------------------------------------------------------

test("topSeparating: the spread of log β, largest first, ties in row order; means by their spread", () => {
  const mat = Float64Array.from([0.5, 0.5, 0.9, 0.1, 0.1, 0.9, 0.2, 0.4]); // 4 rows × 2
  assert.deepEqual(Array.from(P.topSeparating(mat, 4, 2, 3, true)), [1, 2, 3]);
  const means = Float64Array.from([0, 10, 3, 3, -5, 1]);
  assert.deepEqual(Array.from(P.topSeparating(means, 3, 2, 3, false)), [0, 2, 1]);
  // β = 0 is clipped at 1e-12, not −∞
  const zero = Float64Array.from([0, 0.5, 0.4, 0.6]);
  assert.deepEqual(Array.from(P.topSeparating(zero, 2, 2, 2, true)), [0, 1]);
});

test("paramTable as nbcore's param_table: labels, symbols, colour range", () => {
  const feats = ["a", "b"];
  const b = P.paramTable({ beta: Float64Array.from([0.1, 0.2, 0.3, 0.4]) }, "bernoulli", feats, null, 2);
  assert.equal(b.short, "β");
  assert.equal(b.label, "β = p(word present | class)");
  assert.equal(b.zmax, 1);
  const m = P.paramTable({ beta: Float64Array.from([0.1, 0.2, 0.3, 0.4]) }, "multinomial", feats, null, 2);
  assert.equal(m.zmax, 0.4);
  const c = P.paramTable({ theta: [Float64Array.from([0.2, 0.7, 0.8, 0.3]), Float64Array.from([0.1, 0.1, 0.5, 0.5, 0.4, 0.4])] },
    "categorical", ["Outlook", "Wind"], [["sunny", "rain"], ["weak", "strong", "calm"]], 2);
  assert.deepEqual(c.rows, ["Outlook = sunny", "Outlook = rain", "Wind = weak", "Wind = strong", "Wind = calm"]);
  assert.equal(c.R, 5);
  assert.equal(c.mat[2 * 2 + 1], 0.1);
  const g = P.paramTable({ mean: Float64Array.from([1, 2, 3, 4]), var: Float64Array.from([1, 1, 1, 1]) }, "gaussian", feats, null, 2);
  assert.equal(g.short, "μ");
  assert.equal(g.logScale, false);
  assert.equal(g.zmin, null);
});

test("viewOptions: images first for image data; θ tables for the categorical model", () => {
  assert.deepEqual(P.viewOptions([8, 8], "bernoulli"), ["Images", "Top features", "Heatmap"]);
  assert.deepEqual(P.viewOptions(null, "categorical"), ["Tables", "Top features", "Heatmap"]);
  assert.deepEqual(P.viewOptions(null, "multinomial"), ["Top features", "Heatmap"]);
});

test("alignClusters finds the relabelling that agrees most (nbcore.align_clusters)", () => {
  assert.deepEqual(A.alignClusters([0, 0, 1, 1, 1], [1, 1, 0, 0, 1], 2), [1, 0]);
  const y = [0, 1, 2, 0, 1, 2, 2], pred = [2, 0, 1, 2, 0, 1, 1];
  assert.deepEqual(A.alignClusters(y, pred, 3), [1, 2, 0]);
  // the Hungarian method (K > 8) agrees with the exhaustive one
  const K = 9, yy = [], pp = [];
  for (let i = 0; i < 90; i++) { yy.push(i % K); pp.push((i * 7 + (i % 5 === 0 ? 1 : 0)) % K); }
  const map = A.alignClusters(yy, pp, K);
  assert.equal(new Set(map).size, K);
});

test("truthOf: only the generating model's β, nested or flat", () => {
  assert.equal(P.truthOf({ model: "multinomial", beta: [[0.1, 0.2]] }, "bernoulli", 1, 2), null);
  assert.deepEqual(Array.from(P.truthOf({ model: "bernoulli", beta: [[0.1, 0.2], [0.3, 0.4]] }, "bernoulli", 2, 2)), [0.1, 0.2, 0.3, 0.4]);
  assert.equal(P.truthOf(null, "bernoulli", 2, 2), null);
});

test("barsSpec: the top rows reversed (the strongest at the top), escaped names, previous ticks", () => {
  const tab = P.paramTable({ beta: Float64Array.from([0.5, 0.5, 0.9, 0.1, 0.1, 0.9]) }, "bernoulli", ["<b>x</b>", "y", "z"], null, 2);
  const s = P.barsSpec(tab, tab, ["ham", "spam"], 12, 15);
  assert.equal(s.data.length, 4);
  assert.deepEqual(s.layout.yaxis.ticktext, ["&lt;b&gt;x&lt;/b&gt;", "z", "y"]);
  assert.equal(s.layout.title.text, "Features that separate the classes most (top 3)");
});

// ---- documents ----------------------------------------------------------------------------------------

test("rowsAt: the class EM gives, its confidence and the true class's responsibility", () => {
  const post = Float64Array.from([0.9, 0.1, 0.4, 0.6, 0.5, 0.5]);
  const r = D.rowsAt(post, [0, 1, 2], Int32Array.from([0, 0, 1]), 2);
  assert.deepEqual(Array.from(r.pred), [0, 1, 0]);
  assert.deepEqual(Array.from(r.conf), [0.9, 0.6, 0.5]);
  assert.deepEqual(Array.from(r.rTrue), [0.9, 0.4, 0.5]);
});

test("confusionMatrix: rows are the true class", () => {
  assert.deepEqual(D.confusionMatrix([0, 0, 1, 1, 1], [0, 1, 1, 1, 0], 2), [[1, 1], [1, 2]]);
  assert.equal(D.countFlips([0, 1, 1], [1, 1, 0]), 2);
});

test("sortDocuments orders as the app's documents_frame", () => {
  const items = [
    { doc: 5, conf: 0.9, flipped: false, correct: true },
    { doc: 2, conf: 0.6, flipped: true, correct: false },
    { doc: 9, conf: 0.6, flipped: false, correct: false },
    { doc: 1, conf: 0.7, flipped: true, correct: true },
  ];
  const docs = (s) => D.sortDocuments(items, s).map((r) => r.doc);
  assert.deepEqual(docs("least sure first"), [2, 9, 1, 5]);
  assert.deepEqual(docs("most sure first"), [5, 1, 2, 9]);
  assert.deepEqual(docs("flipped first"), [2, 1, 9, 5]);
  assert.deepEqual(docs("wrong first"), [2, 9, 1, 5]);
  assert.deepEqual(docs("document order"), [1, 2, 5, 9]);
});

test("documentText: the full text; else every word present of word data; else nothing", () => {
  const names = Array.from({ length: 50 }, (_, j) => `w${j}`);
  const X = { csr: { indptr: Int32Array.from([0, 45, 46]), indices: Int32Array.from([...Array(45).keys(), 3]), data: new Float64Array(46).fill(1) }, n: 2, v: 50 };
  const prep = { featureNames: names, X };
  assert.equal(D.documentText(prep, 0, "binary"), "{" + names.slice(0, 45).join(", ") + "}");   // no cap at 40
  assert.equal(D.documentText(prep, 1, "counts"), "{w3}");
  assert.equal(D.documentText(prep, 1, "continuous"), "");
  const long = "a\nb " + "é".repeat(600);
  assert.equal(D.documentText({ texts: ["<b>hi</b>", long] }, 1, "binary"), long);                  // not cut
  assert.equal(D.documentText({ texts: ["<b>hi</b>"] }, 0, "binary"), "<b>hi</b>");
});

test("sortOrder: documents_frame's lexsort keys, over every row", () => {
  const rows = [4, 7, 9, 12, 20];
  const conf = [0.6, 0.9, 0.6, 0.55, 0.9];
  const flipped = [0, 1, 1, 0, 0];
  const correct = [1, 0, 1, 0, 1];
  const docs = (s) => D.sortOrder(rows, conf, flipped, correct, s).map((j) => rows[j]);
  assert.deepEqual(docs("least sure first"), [12, 4, 9, 7, 20]);
  assert.deepEqual(docs("most sure first"), [7, 20, 4, 9, 12]);
  assert.deepEqual(docs("flipped first"), [9, 7, 12, 4, 20]);
  assert.deepEqual(docs("wrong first"), [12, 7, 4, 9, 20]);
  assert.deepEqual(docs("document order"), [4, 7, 9, 12, 20]);
  // every order the table offers is one sortOrder gives a permutation for, and has its help text
  for (const s of D.SORTS) {
    assert.deepEqual([...docs(s)].sort((a, b) => a - b), rows, s);
    assert.ok(D.SORT_HELP[s], s);
  }
});

test("presenceLogOdds: Bernoulli's words present / absent log-odds class 1 : class 0", () => {
  const beta = Float64Array.from([0.2, 0.6, 0.5, 0.1, 0.9, 0.3]);   // 3 words × 2 classes
  const X = { csr: { indptr: Int32Array.from([0, 2, 2]), indices: Int32Array.from([0, 2]), data: Float64Array.from([1, 1]) }, n: 2, v: 3 };
  const s = D.presenceLogOdds(X, beta, 2, [0, 1]);
  const lo = (a, b) => Math.log(b) - Math.log(a), lo1 = (a, b) => Math.log1p(-b) - Math.log1p(-a);
  assert.ok(Math.abs(s.present[0] - (lo(0.2, 0.6) + lo(0.9, 0.3))) < 1e-12);
  assert.ok(Math.abs(s.absent[0] - lo1(0.5, 0.1)) < 1e-12);
  assert.equal(s.present[1], 0);
  assert.ok(Math.abs(s.absent[1] - (lo1(0.2, 0.6) + lo1(0.5, 0.1) + lo1(0.9, 0.3))) < 1e-12);
  assert.ok(D.hasSplit("bernoulli", 2) && !D.hasSplit("bernoulli", 3) && !D.hasSplit("multinomial", 2));
  assert.deepEqual(D.columns(true, ["ham", "spam"]).slice(3, 7), ["EM says", "words present spam:ham", "words absent spam:ham", "r(true class)"]);
  assert.equal(D.logOddsText(-0.25), "-0.2");
  assert.equal(D.logOddsText(-Infinity), "-∞");
  assert.equal(D.logOddsText(NaN), "");
});

test("documentsView: the first rows of the order over every hidden row, confusion, flips at t, accuracy", () => {
  // 4 scored rows (of 5), 2 classes, 3 iterations
  const posts = [
    Float64Array.from([0.6, 0.4, 0.7, 0.3, 1, 0, 0.45, 0.55, 0.2, 0.8]),
    Float64Array.from([0.4, 0.6, 0.8, 0.2, 1, 0, 0.6, 0.4, 0.1, 0.9]),
    Float64Array.from([0.3, 0.7, 0.9, 0.1, 1, 0, 0.51, 0.49, 0.05, 0.95]),
  ];
  const prep = { K: 2, y: Int32Array.from([1, 0, 0, 0, 1]), scoreMask: Uint8Array.from([1, 1, 0, 1, 1]) };
  const run = { history: [{}, {}, {}], posterior: (t) => posts[t] };
  const cache = new D.DocumentsCache();
  cache.reset(prep);
  const v = D.documentsView(cache, run, 2, 2, posts[2], "least sure first", 3);
  // conf at t=2: row0 .7, row1 .9, row3 .51, row4 .95: least sure first, the first 3 of all 4
  assert.deepEqual(v.items.map((r) => r.doc), [3, 0, 1]);
  assert.deepEqual(v.confusion, [[2, 0], [0, 2]]);
  assert.equal(v.nFlip, 0);
  assert.equal(v.right, 1);
  assert.deepEqual(D.documentsView(cache, run, 2, 2, posts[2], "most sure first", 2).items.map((r) => r.doc), [4, 1]);
  const v1 = D.documentsView(cache, run, 1, 2, posts[1], "flipped first", 200);
  assert.equal(v1.nFlip, 2);
  assert.deepEqual(v1.items.filter((r) => r.flipped).map((r) => r.doc), [0, 3]);   // equal confidence: row order
  // flips are against t − 1 only: row 0 flipped at t = 1 (0 → 1), not at t = 2
  const v2 = D.documentsView(cache, run, 2, 2, posts[2], "flipped first", 1);
  assert.deepEqual(v2.items.map((r) => [r.doc, r.flipped]), [[3, false]]);
});

// ---- responsibilities -------------------------------------------------------------------------------------

test("histogram: numpy's 20 bins on [0, 1], the last one closed", () => {
  const { counts, centers } = R.histogram([0, 0.05, 0.0499999, 0.5, 1, 0.95, 0.9999]);
  assert.equal(counts.length, 20);
  assert.equal(counts[0], 2);
  assert.equal(counts[1], 1);
  assert.equal(counts[10], 1);
  assert.equal(counts[18], 1);   // 0.95 is below the edge 19 × 0.05 in floating point (as numpy)
  assert.equal(counts[19], 2);
  assert.ok(Math.abs(centers[0] - 0.025) < 1e-12);
});

test("unsure count (no class above 0.8) and the most uncertain rows by entropy", () => {
  const resp = Float64Array.from([0.5, 0.5, 0.9, 0.1, 0.7, 0.3, 1, 0]);
  assert.equal(R.unsureCount(resp, [0, 1, 2, 3], 2), 2);
  assert.deepEqual(R.mostUncertain(resp, [0, 1, 2, 3], 2, 3), [0, 2, 1]);
  assert.deepEqual(R.hiddenRows([-1, 0, -1]), [0, 2]);
});

test("perClass sums each class's components", () => {
  const r = R.perClass(Float64Array.from([0.1, 0.2, 0.3, 0.4]), 1, 2);
  assert.deepEqual(Array.from(r), [0.30000000000000004, 0.7]);
});

test("currentResponsibilities: the pending E-step between the halves, else the one that made θ_t", () => {
  const resp = Float64Array.from([1, 0]);
  const run = { responsibilities: (t) => (t ? Float64Array.from([0.2, 0.8]) : null), pending: null };
  assert.equal(R.currentResponsibilities({ run, t: 0, latest: 0 }), null);
  const got = R.currentResponsibilities({ run, t: 3, latest: 3, half: "e", pending: { t: 3, resp } });
  assert.equal(got.resp, resp);
  assert.ok(got.pending);
  const made = R.currentResponsibilities({ run, t: 2, latest: 3 });
  assert.deepEqual(Array.from(made.resp), [0.2, 0.8]);
  assert.match(made.which, /θ1, which produced θ2/);
});

// ---- maths ------------------------------------------------------------------------------------------------

test("oneLine: the maths panel's text as derive.one_line of the text with ' / ' for line breaks", () => {
  assert.equal(M.oneLine("a\nb\r\nc\t\td"), "a / b\r / c d".replace("\r", " "));
  assert.equal(M.oneLine("x".repeat(300)), "x".repeat(300));
  const long = M.oneLine("😀".repeat(301));
  assert.equal(Array.from(long).length, 300);
  assert.ok(long.endsWith("…"));
});

test("pickerOptions: a row picked before stays pickable, the default always is", () => {
  assert.deepEqual(M.pickerOptions([4, 2, 5], 9, 4), [9, 4, 2, 5]);
  assert.deepEqual(M.pickerOptions([4, 2, 5], 2, 4), [4, 2, 5]);
  assert.deepEqual(M.pickerOptions([2, 5], null, 4), [4, 2, 5]);
});

test("defaultDoc: the hidden document least sure under θ⁽⁰⁾", () => {
  assert.equal(M.defaultDoc(Float64Array.from([0.5, 0.5, 0.6, 0.4, 0.55, 0.45]), [0, -1, -1], 2), 2);
  assert.equal(M.defaultDoc(Float64Array.from([0.5, 0.5]), [0], 2), 0);
});

test("featureChoices: the top rows, then the document's features most frequent first", () => {
  assert.deepEqual(M.featureChoices([4, 2], Float64Array.from([1, 0, 3, 0, 1, 2])), [4, 2, 5, 0]);
});

test("mStepNumbers: eq. 23 and eq. 24 for one row (Bernoulli, multinomial, categorical)", () => {
  const X = { csr: { indptr: Int32Array.from([0, 2, 3, 4]), indices: Int32Array.from([0, 1, 1, 0]), data: Float64Array.from([1, 2, 1, 3]) }, n: 3, v: 2 };
  const w = Float64Array.from([1, 0, 0.25, 0.75, 0.5, 0.5]);
  const b = M.mStepNumbers({ model: "bernoulli", X, w, N: 3, K: 2, lam: 1, row: 0 });
  assert.deepEqual(b.cw, [1.75, 1.25]);
  assert.deepEqual(b.alpha, [1.75 / 3, 1.25 / 3]);
  assert.deepEqual(b.counts, [1 + 1.5, 1.5]);
  assert.deepEqual(b.totals, [1.75, 1.25]);
  assert.equal(b.den, 2);
  assert.deepEqual(b.values, [(1 + 2.5) / (2 + 1.75), (1 + 1.5) / (2 + 1.25)]);
  const m = M.mStepNumbers({ model: "multinomial", X, w, N: 3, K: 2, lam: 0.5, row: 1 });
  // row sums 3, 1, 3 → totals Σ_i rowsum_i w_ik
  assert.deepEqual(m.totals, [3 + 0.25 + 1.5, 0.75 + 1.5]);
  assert.deepEqual(m.counts, [2 + 0.25, 0.75]);
  assert.equal(m.den, 2);
  const Xc = { data: Float64Array.from([0, 1, 1, 2, 0, 0]), n: 3, v: 2 };
  const theta = [new Float64Array(4), new Float64Array(6)];
  const c = M.mStepNumbers({ model: "categorical", X: Xc, w, N: 3, K: 2, lam: 1, row: 2, theta });  // feature 1, value 0
  assert.equal(c.den, 3);
  assert.deepEqual(c.counts, [0.5, 0.5]);     // only row 2 has value 0 for feature 1
  // the engine's categorical matrix: one-hot CSR columns (feature j's value d at offsets[j] + d)
  const oneHot = { format: "csr", n: 3, v: 5, indptr: Int32Array.from([0, 2, 4, 6]), indices: Int32Array.from([0, 3, 1, 4, 0, 2]),
    data: new Float64Array(6).fill(1), codes: Int32Array.from([0, 1, 1, 2, 0, 0]), nFeatures: 2 };
  const c1 = M.mStepNumbers({ model: "categorical", X: oneHot, w, N: 3, K: 2, lam: 1, row: 2, theta });
  assert.deepEqual([c1.counts, c1.totals, c1.den], [c.counts, c.totals, c.den]);
  const g = M.mStepNumbers({ model: "gaussian", X: Xc, w, N: 3, K: 2, lam: 1, row: 0 });
  assert.equal(g.values, null);
  assert.deepEqual(M.categoricalRow(theta, 2, 4), { j: 1, d: 2, D: 3 });
});

test("mStepWeights: an unlabelled row's responsibilities times its weight", () => {
  assert.deepEqual(Array.from(M.mStepWeights(Float64Array.from([1, 0, 0.5, 0.5]), [0, -1], 2, 0.5)), [1, 0, 0.25, 0.25]);
});

test("eStepNumbers: log p(x | k) is the sum of the terms when the engine gives terms only", () => {
  const e = M.eStepNumbers({ prior: [-0.1, -2], terms: Float64Array.from([-1, -2, -0.5, -0.25]), joint: [0, 0], post: [0.5, 0.5] }, 2);
  assert.deepEqual(e.like, [-1.5, -2.25]);
});

// ---- message ------------------------------------------------------------------------------------------------

test("termLabel shows a space at a term's edge as ␣", () => {
  assert.equal(C.termLabel(" en"), "␣en");
  assert.equal(C.termLabel("en "), "en␣");
  assert.equal(C.termLabel("  "), "␣␣");
  assert.equal(C.termLabel("free"), "free");
});

test("compareClasses: class 1 against class 0 with two classes, else the top two", () => {
  assert.deepEqual(G.compareClasses([0.9, 0.1]), [1, 0]);
  assert.deepEqual(G.compareClasses([0.2, 0.5, 0.3]), [1, 2]);
});

test("logOddsSplit: prior, words present, words absent and the total (−∞ − −∞ counts 0)", () => {
  const ex = { prior: [Math.log(0.5), Math.log(0.25)], terms: Float64Array.from([-1, -2, -0.5, -0.1, -Infinity, -Infinity]) };
  const s = G.logOddsSplit(ex, Float64Array.from([1, 0, 1]), 2, 1, 0);
  assert.ok(Math.abs(s.prior - Math.log(0.5)) < 1e-15);
  assert.equal(s.present, -1);
  assert.ok(Math.abs(s.absent - 0.4) < 1e-15);
  assert.ok(Math.abs(s.total - (Math.log(0.5) - 0.6)) < 1e-12);
  assert.deepEqual(G.pushingWords(s.lo, Float64Array.from([1, 0, 1])), [0, 2]);
  assert.deepEqual(Array.from(G.forModel(Float64Array.from([2, 0, 1]), "bernoulli")), [1, 0, 1]);
});
