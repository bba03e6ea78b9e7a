// The hidden documents EM is labelling, and the confusion matrix on them: the app's documents panel
// (dashboard/lesson/panels/documents.py) in the browser, with its rules. The table is about the hidden
// documents whose true label is known (prep.scoreMask); ALL of them are put in the chosen order (one of
// the app's five, with documents_frame's lexsort tie-breaks) and the first 200 of that order are drawn.
// Columns as the app's: doc, the document's full text (document_texts), the true class, EM's class at
// t, for the Bernoulli model with two classes the log-odds class 1 : class 0 from the words present and
// from the words absent, the responsibility of the true class, the confidence (largest
// responsibility), the flip since t − 1 and whether EM is right. A click on a row (or Enter on its
// button) puts that document in the maths panel: the panel dispatches a bubbling "nblab-doc" event
// {detail: {doc}}.
import { h, table, section, pyFixed, int, pct, argmaxRow, lexsort, eachNonzero, emit, listen, classroom, trueLabels, modelName, csrOf, denseOf, matCols } from "./common.js";
import { getModel } from "../models.js";

/** the table draws the first this many rows of the order (documents._SHOW) */
//: the panel's name where the page speaks of it (a note when it cannot start)
export const TITLE = "The hidden documents";

export const MAX_DOCS = 200;
/** the table's orders, as the app lists them; the first is the default (documents.SORTS) */
export const SORTS = ["least sure first", "most sure first", "flipped first", "wrong first", "document order"];
export const SORT_HELP = {
  "least sure first": "EM is least sure about these (confidence = the largest responsibility)",
  "most sure first": "the documents EM is most sure about",
  "flipped first": "documents whose predicted class changed at this iteration",
  "wrong first": "documents EM currently gets wrong, least sure first",
  "document order": "as in the file",
};
export const PICK_EVENT = "nblab-doc";

// ---- pure parts ------------------------------------------------------------------------------------

/** The rows the table is about (prep.score_mask): hidden, with a known true label. */
export function scoreRows(scoreMask) {
  const out = [];
  for (let i = 0; i < scoreMask.length; i++) if (scoreMask[i]) out.push(i);
  return out;
}

/** One iteration's numbers for the rows: the class EM gives each (numpy argmax), its confidence
 * (largest responsibility) and the responsibility of its true class (NaN when unknown). */
export function rowsAt(post, rows, yt, K) {
  const R = rows.length, pred = new Int32Array(R), conf = new Float64Array(R), rTrue = new Float64Array(R);
  for (let j = 0; j < R; j++) {
    const i = rows[j];
    const k = argmaxRow(post, i, K);
    pred[j] = k;
    conf[j] = post[i * K + k];
    rTrue[j] = yt[j] >= 0 ? post[i * K + yt[j]] : NaN;
  }
  return { pred, conf, rTrue };
}

/** (K × K) counts: rows = true class, columns = the class EM gives (documents.confusion_frame). */
export function confusionMatrix(yt, pred, K) {
  const m = Array.from({ length: K }, () => new Array(K).fill(0));
  for (let j = 0; j < yt.length; j++) if (yt[j] >= 0) m[yt[j]][pred[j]] += 1;
  return m;
}

/** How many rows changed class between two iterations. */
export function countFlips(prev, pred) {
  let n = 0;
  for (let j = 0; j < pred.length; j++) if (prev[j] !== pred[j]) n++;
  return n;
}

/** documents_frame's order of the rows (positions into `rows`): `conf` the confidence at t, `flipped`
 * whether the class changed since t − 1, `correct` whether EM is right (false for an unknown label).
 *   least sure first  np.lexsort((rows, conf))
 *   most sure first   np.lexsort((rows, −conf))
 *   flipped first     np.lexsort((rows, conf, ~flipped))
 *   wrong first       np.lexsort((rows, conf, correct))
 *   document order    np.argsort(rows, kind="stable") */
export function sortOrder(rows, conf, flipped, correct, sort) {
  const neg = (a) => Array.from(a, (v) => -v);
  const b = (a, on) => Array.from(a, (v) => (!!v === on ? 1 : 0));
  if (sort === "most sure first") return lexsort([rows, neg(conf)]);
  if (sort === "flipped first") return lexsort([rows, conf, b(flipped, false)]);
  if (sort === "wrong first") return lexsort([rows, conf, b(correct, true)]);
  if (sort === "document order") return lexsort([rows]);
  return lexsort([rows, conf]);
}

/** The items ({doc, conf, flipped, correct}) in the app's order (documents.documents_frame). */
export function sortDocuments(items, sort) {
  const order = sortOrder(items.map((r) => r.doc), items.map((r) => r.conf), items.map((r) => r.flipped),
    items.map((r) => r.correct), sort);
  return order.map((j) => items[j]);
}

/** A row's text (documents.document_texts): the raw text; for word data without text, "{w1, w2, …}"
 * of every word present (x > 0, in vocabulary order); else "". `X`: the data's matrix. */
export function documentText(prep, i, kind, X = prep.X) {
  if (prep.texts && i < prep.texts.length) return String(prep.texts[i]);
  if (!["binary", "counts"].includes(kind) || !X) return "";
  const words = [];
  eachNonzero(X, i, (j, v) => { if (v > 0) words.push(String(prep.featureNames[j])); });
  return "{" + words.join(", ") + "}";
}

/** What kind of features the data has ("binary", "counts", "categories", "continuous"). */
export function dataKind(prep, data, model) {
  const k = prep.kind || (prep.data && prep.data.kind) || (data && data.kind);
  if (k) return k;
  return { bernoulli: "binary", multinomial: "counts", categorical: "categories", gaussian: "continuous" }[model] || "";
}

/** Whether the table has the words present / words absent columns: a model whose absent features
 * score (nbcore: scores_absent_features, the Bernoulli model) and two classes. */
export const hasSplit = (model, K) => getModel(model).scoresAbsentFeatures && K === 2;

/** The Bernoulli log p(x_i | k) split (nbcore.models.bernoulli.present_absent_split) for the rows
 * `docs` of the model's 0/1 matrix X under β (V*K): present[k] = Σ_{j: x_ij = 1} x_ij log β_jk,
 * absent[k] = Σ_j log(1 − β_jk) − Σ_{j: x_ij = 1} x_ij log(1 − β_jk). Returns, per row, the log-odds
 * class 1 : class 0 of each: {present: [..], absent: [..]} (documents_frame's two columns). */
export function presenceLogOdds(X, beta, K, docs, colLog1m = null) {
  const V = beta.length / K;
  const logB = new Float64Array(V * K), log1m = new Float64Array(V * K);
  for (let p = 0; p < V * K; p++) { logB[p] = Math.log(beta[p]); log1m[p] = Math.log1p(-beta[p]); }
  const all = colLog1m || new Float64Array(K);
  if (!colLog1m) for (let j = 0; j < V; j++) for (let k = 0; k < K; k++) all[k] += log1m[j * K + k];
  const present = [], absent = [];
  for (const i of docs) {
    const pr = new Float64Array(K), ab = new Float64Array(K);
    eachNonzero(X, i, (j, v) => { for (let k = 0; k < K; k++) { pr[k] += v * logB[j * K + k]; ab[k] += v * log1m[j * K + k]; } });
    present.push(pr[1] - pr[0]);
    absent.push((all[1] - ab[1]) - (all[0] - ab[0]));
  }
  return { present, absent };
}

// ---- the run's per-iteration numbers (cached per snapshot: a snapshot never changes) ------------------

export class DocumentsCache {
  constructor() { this.prep = null; this.bySnap = new WeakMap(); this.texts = new Map(); }
  reset(prep) {
    this.prep = prep;
    this.bySnap = new WeakMap();
    this.texts = new Map();
    this.rows = scoreRows(prep.scoreMask);
    this.yt = Int32Array.from(this.rows, (i) => trueLabels(prep)[i]);
  }
  at(run, t, post) {
    const snap = run.history[t];
    let got = this.bySnap.get(snap);
    if (!got) {
      got = rowsAt(post || run.posterior(t), this.rows, this.yt, this.prep.K);
      got.orders = new Map();
      this.bySnap.set(snap, got);
    }
    return got;
  }
  text(i, kind) {
    if (!this.texts.has(i)) {
      const raw = this.prep.data && this.prep.data.matrix ? this.prep.data.matrix : this.prep.X;
      this.texts.set(i, documentText(this.prep, i, kind, raw));
    }
    return this.texts.get(i);
  }
}

/** Everything the panel draws at iteration t: the first `maxDocs` of every hidden document in `sort`
 * order, the confusion matrix over every hidden document, the accuracy and the flips since t − 1. */
export function documentsView(cache, run, t, latest, post, sort, maxDocs = MAX_DOCS) {
  const rows = cache.rows, yt = cache.yt, K = cache.prep.K, R = rows.length;
  const cur = cache.at(run, t, post), prev = t > 0 ? cache.at(run, t - 1) : null;
  const flipped = new Uint8Array(R), correct = new Uint8Array(R);
  for (let j = 0; j < R; j++) {
    flipped[j] = prev && prev.pred[j] !== cur.pred[j] ? 1 : 0;
    correct[j] = yt[j] >= 0 && cur.pred[j] === yt[j] ? 1 : 0;
  }
  // the order depends on (θ_t, θ_{t−1}, sort) only: kept with θ_t's numbers (one per sort)
  const key = `${sort}|${prev ? "p" : "-"}`;
  let order = cur.orders && cur.orders.get(key);
  if (!order) {
    order = sortOrder(rows, cur.conf, flipped, correct, sort);
    if (cur.orders) cur.orders.set(key, order);
  }
  const items = order.slice(0, Math.max(0, maxDocs | 0)).map((j) => {
    const pred = cur.pred[j], was = prev ? prev.pred[j] : pred;
    return { j, doc: rows[j], true: yt[j], pred, prev: was, flipped: !!flipped[j], conf: cur.conf[j], r: cur.rTrue[j],
      correct: !!correct[j] };
  });
  let right = 0;
  for (let j = 0; j < R; j++) if (cur.pred[j] === yt[j]) right++;
  return { items, nHidden: R, confusion: confusionMatrix(yt, cur.pred, K),
    nFlip: prev ? countFlips(prev.pred, cur.pred) : 0, right: R ? right / R : NaN };
}

// ---- the panel ---------------------------------------------------------------------------------------

// the column headers that sort the table (a second click on "confidence" turns its order round)
const HEAD_SORTS = { doc: ["document order"], confidence: ["least sure first", "most sure first"],
  "flipped at t": ["flipped first"], correct: ["wrong first"] };
const COLS = ["doc", "text", "true", "EM says", "r(true class)", "confidence", "flipped at t", "correct"];

/** The table's columns in the app's order: with the split, the words present / absent columns right
 * after "EM says" (the Bernoulli lesson reads them next to the message). */
export function columns(split, names) {
  if (!split) return COLS.slice();
  const pair = `${names[1]}:${names[0]}`;
  return [...COLS.slice(0, 4), `words present ${pair}`, `words absent ${pair}`, ...COLS.slice(4)];
}

/** The "flipped at t" cell (documents_frame's "flipped"): "class at t − 1 → class at t", or "". */
export const flipText = (names, r) => (r.flipped ? `${names[r.prev]} → ${names[r.pred]}` : "");

/** A log-odds as the app's column shows it (format "%.1f"); ±∞ as such, NaN (−∞ − −∞) blank. */
export function logOddsText(v) {
  if (Number.isNaN(v)) return "";
  if (!Number.isFinite(v)) return v > 0 ? "∞" : "-∞";
  return pyFixed(v, 1);
}

/** The panel's parts: the heading, the order picker, the confusion table's box, the table's box, the notes. */
function buildDocuments(el) {
  const { heading, body } = section(el, "The hidden documents", "nbl-docs");
  const sortEl = h("select", { class: "nbl-sort", id: uid("nbl-sort") },
    SORTS.map((s) => h("option", { value: s, text: s, title: SORT_HELP[s] })));
  const sortHelp = h("p", { class: "nbl-caption" });
  const confBox = h("div", { class: "nbl-confusion" });
  const tableBox = h("div", { class: "nbl-scroll nbl-doc-scroll", tabindex: "0", role: "region", "aria-label": "The hidden documents" });
  const note = h("p", { class: "nbl-caption" });
  const splitNote = h("p", { class: "nbl-caption", hidden: true });
  const empty = h("p", { class: "nbl-caption", hidden: true });
  body.append(empty,
    h("div", { class: "nbl-docs-top" },
      h("div", null, h("label", { for: sortEl.id, text: "Order " }), sortEl, sortHelp),
      confBox),
    tableBox, note, splitNote);
  return { heading, sortEl, sortHelp, confBox, tableBox, note, splitNote, empty };
}

/** The order picker, a click on a row (picks its document), a document picked elsewhere. */
function wireDocuments(st) {
  const { el, ctx, tableBox } = st;
  st.sortEl.addEventListener("change", () => setSort(st, st.sortEl.value));
  tableBox.addEventListener("click", (e) => {
    const tr = e.target.closest && e.target.closest("tr[data-doc]");
    if (tr) pick(st, Number(tr.dataset.doc));
  });
  // the maths panel's document may be chosen elsewhere too (its own box)
  listen(ctx, el, PICK_EVENT, (detail) => {
    if (!detail || detail.from === "documents") return;
    st.picked = detail.doc;
    for (const tr of tableBox.querySelectorAll("tr[data-doc]")) tr.classList.toggle("nbl-picked", Number(tr.dataset.doc) === st.picked);
  });
}

function setSort(st, s) {
  st.sort = s;
  st.sortEl.value = s;
  if (st.last) drawDocuments(st, st.last);
}

function pick(st, doc) {
  st.picked = doc;
  for (const tr of st.tableBox.querySelectorAll("tr[data-doc]")) {
    const on = Number(tr.dataset.doc) === doc;
    tr.classList.toggle("nbl-picked", on);
    const b = tr.querySelector("button");
    if (b) b.setAttribute("aria-pressed", String(on));
  }
  emit(st.ctx, st.el, PICK_EVENT, { doc, from: "documents" });
}

function drawDocuments(st, view) {
  const { prep, run, t } = view;
  const model = modelName(view);
  const names = prep.classNames, K = prep.K;
  const anyLabel = Array.prototype.some.call(prep.yObs, (y) => y >= 0);
  const anyScore = Array.prototype.some.call(prep.scoreMask, (m) => !!m);
  if (!anyScore || !anyLabel) {
    // clustering (no label visible): cluster k is not label k, so there is no "right" (as the app)
    st.heading.textContent = "The hidden documents";
    st.empty.hidden = false;
    st.empty.textContent = !anyScore ? "No hidden document has a known label: there is nothing to score."
      : "EM sees no label here: its clusters carry no class names, so the table would compare unrelated numbers.";
    for (const n of [st.confBox, st.tableBox, st.note, st.splitNote, st.sortEl.parentNode]) n.hidden = true;
    return;
  }
  st.empty.hidden = true;
  for (const n of [st.confBox, st.tableBox, st.note, st.sortEl.parentNode]) n.hidden = false;
  const cache = st.cache, sort = st.sort;
  if (cache.prep !== prep) cache.reset(prep);
  const kind = dataKind(prep, st.data, model);
  const v = documentsView(cache, run, t, view.latest ?? run.history.length - 1, view.posterior, sort);
  const split = hasSplit(model, K) && prep.X && run.history[t] && run.history[t].params.beta
    ? presenceLogOdds(prep.X, run.history[t].params.beta, K, v.items.map((r) => r.doc)) : null;
  st.heading.textContent = `The ${int(v.nHidden)} hidden documents at t = ${t}: ${pct(v.right, 1)} right` +
    (t > 0 ? `, ${int(v.nFlip)} flipped at this iteration` : "");
  st.sortHelp.textContent = SORT_HELP[sort];
  st.confBox.textContent = "";
  st.confBox.append(table({
    caption: "Confusion on the hidden labels (rows: true class; columns: the class EM gives it now)",
    head: ["", ...names.map((n) => "EM: " + n)],
    rows: v.confusion.map((row, k) => ["true " + names[k], ...row.map((c) => ({ text: int(c), class: "nbl-num" }))]),
    className: "nbl-table nbl-confusion-table",
  }));
  const tb = docTable(st, v, { t, names, split, kind });
  const scrollTop = st.tableBox.scrollTop;
  st.tableBox.textContent = "";
  st.tableBox.append(tb);
  st.tableBox.scrollTop = scrollTop;
  st.note.textContent = `Showing ${int(v.items.length)} of ${int(v.nHidden)} (${sort}). Click a row to put that document ` +
    "in the maths panel below.";
  drawSplitNote(st.splitNote, split, names);
}

/** The table of the documents shown, one row each (the picked one marked). */
function docTable(st, v, { t, names, split, kind }) {
  const cols = columns(split, names);
  const tb = h("table", { class: "nbl-table nbl-doc-table" });
  tb.append(h("caption", { class: "nbl-sr", text: `Hidden documents at t = ${t}, ${st.sort}` }));
  tb.append(h("thead", null, h("tr", null, cols.map((c) => headCell(st, c, split ? names : null)))));
  const bodyEl = h("tbody");
  v.items.forEach((r, n) => {
    const on = r.doc === st.picked;
    const splitCells = split ? [split.present[n], split.absent[n]].map((lo) =>
      h("td", { class: "nbl-num nbl-split", text: logOddsText(lo) })) : [];
    bodyEl.append(h("tr", { "data-doc": r.doc, class: [r.flipped ? "nbl-flipped" : "", on ? "nbl-picked" : ""].join(" ").trim() || null },
      h("th", { scope: "row" }, h("button", { type: "button", class: "nbl-docbtn", "aria-pressed": String(on),
        "aria-label": `Document ${r.doc}: show it in the maths panel` }, String(r.doc))),
      h("td", { class: "nbl-text", text: st.cache.text(r.doc, kind) }),
      h("td", { text: r.true >= 0 ? names[r.true] : "?" }),
      h("td", { text: names[r.pred] }),
      splitCells,
      h("td", { class: "nbl-num" }, h("span", { class: "nbl-bar", style: `width:${(100 * r.r).toFixed(1)}%`, "aria-hidden": "true" }),
        h("span", { text: pyFixed(r.r, 3) })),
      h("td", { class: "nbl-num", text: pyFixed(r.conf, 3) }),
      h("td", { text: flipText(names, r) }),
      h("td", { class: r.correct ? "nbl-ok" : "nbl-bad", text: r.correct ? "✓" : "✗", title: r.correct ? "correct" : "wrong" },
        h("span", { class: "nbl-sr", text: r.correct ? " correct" : " wrong" }))));
  });
  tb.append(bodyEl);
  return tb;
}

function drawSplitNote(splitNote, split, names) {
  splitNote.hidden = !split;
  if (!split) return;
  const [c0, c1] = [names[0], names[1]];
  splitNote.textContent = `Bernoulli NB scores the words a message lacks too: “words absent ${c1}:${c0}” is ` +
    `Σ over every vocabulary word not in it of log(1 − β(${c1})) − log(1 − β(${c0})); ` +
    `“words present ${c1}:${c0}” the same over the words it has, with log β. A short message lacks ` +
    "thousands of words; when the absent column outweighs the present one, the absent words decide the class.";
}

function headCell(st, c, names) {
  const sorts = HEAD_SORTS[c], sort = st.sort;
  if (!sorts) {
    const which = c.startsWith("words present ") ? "present" : c.startsWith("words absent ") ? "absent" : null;
    return h("th", { scope: "col", text: c, title: which && names ? `Log-odds ${names[1]}:${names[0]} from the words ` +
      `${which} in the message (positive: towards the first class named).` : null });
  }
  const active = sorts.includes(sort);
  const dir = c === "confidence" ? (sort === "most sure first" ? "descending" : "ascending") : c === "doc" ? "ascending" : null;
  const th = h("th", { scope: "col", "aria-sort": active ? (dir || "other") : null });
  th.append(h("button", { type: "button", class: "nbl-sortbtn", title: `Order: ${active && sorts.length > 1 ? sorts[1 - sorts.indexOf(sort)] : sorts[0]}`,
    onclick: () => setSort(st, active && sorts.length > 1 ? sorts[1 - sorts.indexOf(sort)] : sorts[0]) },
  c, h("span", { "aria-hidden": "true", text: active ? (dir === "descending" ? " ▼" : " ▲") : " ↕" })));
  return th;
}

export function mount(el, ctx) {
  const st = buildDocuments(el);
  Object.assign(st, { el, ctx, data: (ctx && ctx.data) || {}, cache: new DocumentsCache(), sort: SORTS[0], last: null, picked: null });
  wireDocuments(st);
  return {
    update(view) {
      st.last = view;
      if (!view || !view.run || !view.prep) return;
      classroom(el, view.classroom);
      drawDocuments(st, view);
    },
    /** the table's order (one of SORTS) */
    sort: (s) => setSort(st, s),
  };
}

let uidN = 0;
function uid(p) { uidN += 1; return `${p}-${uidN}`; }
