// The hidden documents EM is labelling, and the confusion matrix on them (dashboard/lesson/panels/
// documents.py; which documents, as the offline file's table, dashboard/lesson/export.documents_data):
// the table holds at most 200 hidden documents whose true label is known — those whose predicted
// class flipped most often during the run, then the ones EM is least sure about at the iteration
// shown — ordered as the app orders its table. A click on a row (or Enter on its button) puts that
// document in the maths panel: the panel dispatches a bubbling "nblab-doc" event {detail: {doc}}.
import { h, table, section, pyFixed, int, pct, codePoints, argmaxRow, lexsort, eachNonzero, emit, listen, classroom, trueLabels, modelName } from "./common.js";

/** the table holds at most this many hidden documents (export.MAX_DOCS) */
export const MAX_DOCS = 200;
/** a document's text is cut to this many characters (export.TEXT_CHARS) */
export const TEXT_CHARS = 400;
/** a document without text shows its first 40 words (export.document_texts) */
export const MAX_WORDS = 40;
/** the table's orders, as the offline file lists them; the first is the default */
export const SORTS = ["least sure first", "flipped first", "wrong first", "most sure first", "document order"];
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
 * (largest responsibility) and the responsibility of its true class. */
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

/** How often each row's predicted class changed from one iteration to the next. */
export function flipCounts(predsByT) {
  const R = predsByT.length ? predsByT[0].length : 0, out = new Int32Array(R);
  for (let t = 1; t < predsByT.length; t++) {
    const a = predsByT[t - 1], b = predsByT[t];
    for (let j = 0; j < R; j++) if (a[j] !== b[j]) out[j]++;
  }
  return out;
}

/** export.documents_data's choice: np.lexsort((rows, conf_shown, −flips))[:max_docs], sorted —
 * positions into `rows`, ascending. */
export function pickDocuments(flips, confShown, rows, maxDocs = MAX_DOCS) {
  const negFlips = Array.from(flips, (f) => -f);
  const order = lexsort([rows, confShown, negFlips]);
  return order.slice(0, Math.max(1, maxDocs | 0)).sort((a, b) => a - b);
}

/** (K × K) counts: rows = true class, columns = the class EM gives (export: nbcore.confusion(...).T). */
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

/** The items ({doc, conf, flipped, correct}) in the app's order (documents.documents_frame). */
export function sortDocuments(items, sort) {
  const col = (f) => items.map(f);
  const doc = col((r) => r.doc), conf = col((r) => r.conf);
  let order;
  if (sort === "most sure first") order = lexsort([doc, col((r) => -r.conf)]);
  else if (sort === "flipped first") order = lexsort([doc, conf, col((r) => (r.flipped ? 0 : 1))]);
  else if (sort === "wrong first") order = lexsort([doc, conf, col((r) => (r.correct ? 1 : 0))]);
  else if (sort === "document order") order = lexsort([doc]);
  else order = lexsort([doc, conf]);
  return order.map((j) => items[j]);
}

/** Python's str.splitlines() joined by " / ", cut to `n` code points with "…" (export._cut). */
export function cutText(text, n = TEXT_CHARS) {
  const parts = String(text).split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  const s = parts.join(" / ");
  const cp = codePoints(s);
  return cp.length <= n ? s : cp.slice(0, n - 1).join("") + "…";
}

/** A row's text (export.document_texts): the raw text; for word data without text, "{w1, w2, …}"
 * of its first 40 words present; else "". */
export function documentText(prep, i, kind) {
  if (prep.texts && i < prep.texts.length) return String(prep.texts[i]);
  if (!["binary", "counts"].includes(kind) || !prep.X) return "";
  const words = [];
  eachNonzero(prep.X, i, (j, v) => { if (v > 0 && words.length < MAX_WORDS) words.push(String(prep.featureNames[j])); });
  return "{" + words.join(", ") + "}";
}

/** What kind of features the data has ("binary", "counts", "categories", "continuous"). */
export function dataKind(prep, data, model) {
  const k = prep.kind || (data && data.kind);
  if (k) return k;
  return { bernoulli: "binary", multinomial: "counts", categorical: "categories", gaussian: "continuous" }[model] || "";
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
      this.bySnap.set(snap, got);
    }
    return got;
  }
  text(i, kind) {
    if (!this.texts.has(i)) this.texts.set(i, cutText(documentText(this.prep, i, kind)));
    return this.texts.get(i);
  }
}

/** Everything the panel draws at iteration t: the chosen documents in `sort` order, the confusion
 * matrix over every hidden document, the accuracy and the flips. */
export function documentsView(cache, run, t, latest, post, sort, maxDocs = MAX_DOCS) {
  const rows = cache.rows, yt = cache.yt, K = cache.prep.K;
  const preds = [];
  for (let s = 0; s <= latest; s++) preds.push(cache.at(run, s, s === t ? post : null).pred);
  const cur = cache.at(run, t, post), prev = t > 0 ? cache.at(run, t - 1) : null;
  const keep = pickDocuments(flipCounts(preds), cur.conf, rows, maxDocs);
  const items = keep.map((j) => {
    const pred = cur.pred[j], was = prev ? prev.pred[j] : pred;
    return { j, doc: rows[j], true: yt[j], pred, prev: was, flipped: was !== pred, conf: cur.conf[j], r: cur.rTrue[j],
      correct: pred === yt[j] };
  });
  let right = 0;
  for (let j = 0; j < rows.length; j++) if (cur.pred[j] === yt[j]) right++;
  return { items: sortDocuments(items, sort), nHidden: rows.length, confusion: confusionMatrix(yt, cur.pred, K),
    nFlip: prev ? countFlips(prev.pred, cur.pred) : 0, right: rows.length ? right / rows.length : NaN };
}

// ---- the panel ---------------------------------------------------------------------------------------

// the column headers that sort the table (a second click on "confidence" turns its order round)
const HEAD_SORTS = { doc: ["document order"], confidence: ["least sure first", "most sure first"],
  "flipped at t": ["flipped first"], correct: ["wrong first"] };
const COLS = ["doc", "text", "true", "EM says", "r(true class)", "confidence", "flipped at t", "correct"];

export function mount(el, ctx) {
  const data = (ctx && ctx.data) || {};
  const { heading, body } = section(el, "The hidden documents", "nbl-docs");
  const sortEl = h("select", { class: "nbl-sort", id: uid("nbl-sort") },
    SORTS.map((s) => h("option", { value: s, text: s, title: SORT_HELP[s] })));
  const sortHelp = h("p", { class: "nbl-caption" });
  const confBox = h("div", { class: "nbl-confusion" });
  const tableBox = h("div", { class: "nbl-scroll nbl-doc-scroll", tabindex: "0", role: "region", "aria-label": "The hidden documents" });
  const note = h("p", { class: "nbl-caption" });
  const empty = h("p", { class: "nbl-caption", hidden: true });
  body.append(empty,
    h("div", { class: "nbl-docs-top" },
      h("div", null, h("label", { for: sortEl.id, text: "Order " }), sortEl, sortHelp),
      confBox),
    tableBox, note);
  const cache = new DocumentsCache();
  let sort = SORTS[0], last = null, picked = null;
  sortEl.addEventListener("change", () => setSort(sortEl.value));
  function setSort(s) {
    sort = s;
    sortEl.value = s;
    if (last) draw(last);
  }
  function pick(doc) {
    picked = doc;
    for (const tr of tableBox.querySelectorAll("tr[data-doc]")) {
      const on = Number(tr.dataset.doc) === doc;
      tr.classList.toggle("nbl-picked", on);
      const b = tr.querySelector("button");
      if (b) b.setAttribute("aria-pressed", String(on));
    }
    emit(ctx, el, PICK_EVENT, { doc, from: "documents" });
  }
  tableBox.addEventListener("click", (e) => {
    const tr = e.target.closest && e.target.closest("tr[data-doc]");
    if (tr) pick(Number(tr.dataset.doc));
  });
  // the maths panel's document may be chosen elsewhere too (its own box)
  listen(ctx, el, PICK_EVENT, (detail) => {
    if (!detail || detail.from === "documents") return;
    picked = detail.doc;
    for (const tr of tableBox.querySelectorAll("tr[data-doc]")) tr.classList.toggle("nbl-picked", Number(tr.dataset.doc) === picked);
  });

  function draw(view) {
    const { prep, run, t } = view;
    const model = modelName(view);
    const names = prep.classNames, K = prep.K;
    const anyLabel = Array.prototype.some.call(prep.yObs, (y) => y >= 0);
    const anyScore = Array.prototype.some.call(prep.scoreMask, (m) => !!m);
    if (!anyScore || !anyLabel) {
      // clustering (no label visible): cluster k is not label k, so there is no "right" (as the app)
      heading.textContent = "The hidden documents";
      empty.hidden = false;
      empty.textContent = !anyScore ? "No hidden document has a known label: there is nothing to score."
        : "EM sees no label here: its clusters carry no class names, so the table would compare unrelated numbers.";
      for (const n of [confBox, tableBox, note, sortEl.parentNode]) n.hidden = true;
      return;
    }
    empty.hidden = true;
    for (const n of [confBox, tableBox, note, sortEl.parentNode]) n.hidden = false;
    if (cache.prep !== prep) cache.reset(prep);
    const kind = dataKind(prep, data, model);
    const v = documentsView(cache, run, t, view.latest ?? run.history.length - 1, view.posterior, sort);
    heading.textContent = `The ${int(v.nHidden)} hidden documents at t = ${t}: ${pct(v.right, 1)} right` +
      (t > 0 ? `, ${int(v.nFlip)} flipped at this iteration` : "");
    sortHelp.textContent = SORT_HELP[sort];
    confBox.textContent = "";
    confBox.append(table({
      caption: "Confusion on the hidden labels (rows: true class; columns: the class EM gives it now)",
      head: ["", ...names.map((n) => "EM: " + n)],
      rows: v.confusion.map((row, k) => ["true " + names[k], ...row.map((c) => ({ text: int(c), class: "nbl-num" }))]),
      className: "nbl-table nbl-confusion-table",
    }));
    const tb = h("table", { class: "nbl-table nbl-doc-table" });
    tb.append(h("caption", { class: "nbl-sr", text: `Hidden documents at t = ${t}, ${sort}` }));
    tb.append(h("thead", null, h("tr", null, COLS.map((c) => headCell(c)))));
    const bodyEl = h("tbody");
    for (const r of v.items) {
      const on = r.doc === picked;
      bodyEl.append(h("tr", { "data-doc": r.doc, class: [r.flipped ? "nbl-flipped" : "", on ? "nbl-picked" : ""].join(" ").trim() || null },
        h("th", { scope: "row" }, h("button", { type: "button", class: "nbl-docbtn", "aria-pressed": String(on),
          "aria-label": `Document ${r.doc}: show it in the maths panel` }, String(r.doc))),
        h("td", { class: "nbl-text", text: cache.text(r.doc, kind) }),
        h("td", { text: names[r.true] }),
        h("td", { text: names[r.pred] }),
        h("td", { class: "nbl-num" }, h("span", { class: "nbl-bar", style: `width:${(100 * r.r).toFixed(1)}%`, "aria-hidden": "true" }),
          h("span", { text: pyFixed(r.r, 3) })),
        h("td", { class: "nbl-num", text: pyFixed(r.conf, 3) }),
        h("td", { text: r.flipped ? `${names[r.prev]} → ${names[r.pred]}` : "" }),
        h("td", { class: r.correct ? "nbl-ok" : "nbl-bad", text: r.correct ? "✓" : "✗", title: r.correct ? "correct" : "wrong" },
          h("span", { class: "nbl-sr", text: r.correct ? " correct" : " wrong" }))));
    }
    tb.append(bodyEl);
    const scrollTop = tableBox.scrollTop;
    tableBox.textContent = "";
    tableBox.append(tb);
    tableBox.scrollTop = scrollTop;
    const R = v.items.length;
    note.textContent = (R < v.nHidden
      ? `Showing ${int(R)} of the ${int(v.nHidden)} hidden documents (those whose class flipped most often, then the least sure), ${sort}.`
      : `Every hidden document, ${sort}.`) + " Click a row to put that document in the maths panel.";
  }

  function headCell(c) {
    const sorts = HEAD_SORTS[c];
    if (!sorts) return h("th", { scope: "col", text: c });
    const active = sorts.includes(sort);
    const dir = c === "confidence" ? (sort === "most sure first" ? "descending" : "ascending") : c === "doc" ? "ascending" : null;
    const th = h("th", { scope: "col", "aria-sort": active ? (dir || "other") : null });
    th.append(h("button", { type: "button", class: "nbl-sortbtn", title: `Order: ${active && sorts.length > 1 ? sorts[1 - sorts.indexOf(sort)] : sorts[0]}`,
      onclick: () => setSort(active && sorts.length > 1 ? sorts[1 - sorts.indexOf(sort)] : sorts[0]) },
    c, h("span", { "aria-hidden": "true", text: active ? (dir === "descending" ? " ▼" : " ▲") : " ↕" })));
    return th;
  }

  return {
    update(view) {
      last = view;
      if (!view || !view.run || !view.prep) return;
      classroom(el, view.classroom);
      draw(view);
    },
    /** the table's order (one of SORTS) */
    sort: setSort,
  };
}

let uidN = 0;
function uid(p) { uidN += 1; return `${p}-${uidN}`; }
