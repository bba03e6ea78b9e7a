// Small helpers the lab's lower panels share: a DOM builder that puts text on screen with
// textContent only (documents, class and feature names come from the data and are never HTML),
// a table builder with header cells scoped for screen readers, number formatting as the app
// prints numbers (Python's format spec, ties rounded half to even), the class colours, and the
// chart layout of dashboard/charts/theme.figure_spec.
//
// Nothing here touches the DOM when the module is imported: node's test runner imports it.

import { el } from "../dom.js";

/** Okabe & Ito's colour-blind-safe palette, extended as dashboard/charts/theme.CLASS_COLORS. */
export const CLASS_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
  "#D55E00", "#F0E442", "#000000", "#882255", "#004400"];
export const classColor = (k) => CLASS_COLORS[k % CLASS_COLORS.length];
export const GREY = "#767676";

/** The charts' font size: the lesson's 15 px, 22 px in classroom mode (as the offline export). */
export const fontSize = (classroom) => (classroom ? 22 : 15);

// ---- numbers ----------------------------------------------------------------------------------------

const MINUS = "\u2212";

/** Python's f"{v:.{d}f}": toFixed, but an exact tie is rounded half to even (0.125 → "0.12"),
 * as Python rounds the exact binary value. The sign is left as "-". */
export function pyFixed(v, d) {
  v = Number(v);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
  let s = v.toFixed(d);
  // a tie has the exact expansion  …digit 5 0 0 0…  after d decimals (toFixed gives exact digits)
  const exact = Math.abs(v).toFixed(Math.min(100, d + 40));
  const dot = exact.indexOf(".");
  const tail = exact.slice(dot + 1 + d);
  if (/^50*$/.test(tail)) {
    // toFixed rounded the tie up (away from zero); Python keeps the even last digit
    const kept = exact.slice(0, dot + 1 + d).replace(/\.$/, "");
    const last = Number(kept[kept.length - 1]);
    if (last % 2 === 0) s = (v < 0 ? "-" : "") + kept;
  }
  if (Object.is(v, -0)) s = "-" + s;   // Python keeps the sign of −0.0 ("-0.000"), as of a small negative
  return s;
}

/** A number as the maths panel prints it (dashboard/lesson/panels/maths._n, in text): fixed
 * decimals, "1.23×10⁻⁷" when tiny or huge, −∞ / ∞, a real minus sign. */
export function fmt(v, d = 3) {
  if (v === null || v === undefined) return "—";
  v = Number(v);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "NaN" : v < 0 ? MINUS + "∞" : "∞";
  if (v !== 0 && (Math.abs(v) < 10 ** -d || Math.abs(v) >= 1e6)) {
    const [m, e] = pyExp(v, 2).split("e");
    return m.replace("-", MINUS) + "×10" + superscript(String(Number(e)));
  }
  return pyFixed(v, d).replace("-", MINUS);
}

/** Python's f"{v:.{d}e}" ("1.23e-07"). */
export function pyExp(v, d = 2) {
  const s = Number(v).toExponential(d); // "1.23e-7"
  const [m, e] = s.split("e");
  const n = Number(e);
  return `${m}e${n < 0 ? "-" : "+"}${String(Math.abs(n)).padStart(2, "0")}`;
}

const SUP = { "-": "⁻", "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹" };
export const superscript = (s) => String(s).split("").map((c) => SUP[c] ?? c).join("");

/** The inspector's signed log-odds: "+0.123", "−1.500", "+∞", "−∞". */
export function signed(v, d = 3) {
  v = Number(v);
  if (v === Infinity) return "+∞";
  if (v === -Infinity) return MINUS + "∞";
  if (Number.isNaN(v)) return "NaN";
  const s = pyFixed(v, d);
  return s.startsWith("-") ? MINUS + s.slice(1) : "+" + s;
}

/** Python's f"{v:.{d}%}" ("97.0%"). */
export const pct = (v, d = 1) => (v === null || v === undefined || !Number.isFinite(Number(v)) ? "—"
  : pyFixed(100 * Number(v), d) + "%");

/** Python's f"{n:,}" ("5,574"). */
export const int = (n) => Number(n).toLocaleString("en-US", { maximumFractionDigits: 0 });

/** Python's f"{v:g}" for the λ values the lesson offers (0.001 → "0.001", 1 → "1", 1e-05 → "1e-05"). */
export function gfmt(v) {
  v = Number(v);
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return "0";
  const e = Math.floor(Math.log10(Math.abs(v)));
  if (e < -4 || e >= 6) return pyExp(v, 5).replace(/\.?0+e/, "e");
  return String(Number(v.toPrecision(6)));
}

/** Python's len() and slicing count code points, not UTF-16 units. */
export const codePoints = (s) => Array.from(String(s));

/** Shown in place of a space at the edge of a term (character n-grams " en" / "en "). */
export const SPACE = "␣";

// ---- pure parts ------------------------------------------------------------------------------------

/** A term as the inspector shows it (char n-grams " en" and "en " differ): leading and trailing spaces as ␣. */
export function termLabel(term) {
  const s = String(term);
  const core = s.replace(/^ +| +$/g, "");
  if (!core) return SPACE.repeat(s.length);
  const lead = s.length - s.replace(/^ +/, "").length, trail = s.length - s.replace(/ +$/, "").length;
  return SPACE.repeat(lead) + core + SPACE.repeat(trail);
}

// ---- arrays ------------------------------------------------------------------------------------------

/** numpy's argmax over each row of a flat (N, K) array: the first of equal maxima; NaN wins. */
export function argmaxRow(P, i, K) {
  let best = 0, bv = P[i * K];
  if (Number.isNaN(bv)) return 0;
  for (let k = 1; k < K; k++) {
    const v = P[i * K + k];
    if (Number.isNaN(v)) return k;
    if (v > bv) { bv = v; best = k; }
  }
  return best;
}

export function maxRow(P, i, K) {
  let m = -Infinity;
  for (let k = 0; k < K; k++) { const v = P[i * K + k]; if (v > m || Number.isNaN(v)) m = v; }
  return m;
}

/** numpy's argsort(kind="stable") of a key array: ascending, ties keep their order, NaN last. */
export function stableArgsort(key) {
  const idx = Array.from({ length: key.length }, (_, i) => i);
  idx.sort((a, b) => {
    const x = key[a], y = key[b];
    const nx = Number.isNaN(x), ny = Number.isNaN(y);
    if (nx || ny) return nx === ny ? a - b : nx ? 1 : -1;
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  return idx;
}

/** numpy's lexsort(keys): the LAST key is the primary one (as np.lexsort). */
export function lexsort(keys) {
  const n = keys[0].length;
  const idx = Array.from({ length: n }, (_, i) => i);
  idx.sort((a, b) => {
    for (let j = keys.length - 1; j >= 0; j--) {
      const x = Number(keys[j][a]), y = Number(keys[j][b]);
      const nx = Number.isNaN(x), ny = Number.isNaN(y);
      if (nx || ny) { if (nx !== ny) return nx ? 1 : -1; continue; }
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return a - b;
  });
  return idx;
}

/** The sparse parts {indptr, indices, data} of a matrix, or null when it is dense. Accepts the shapes
 * the engine may hand over: docs/lab.md's `{csr: {indptr, indices, data}, n, v}` and data.js's
 * `{format: "csr", n, v, indptr, indices, data}`. */
export function csrOf(X) {
  if (!X) return null;
  if (X.csr) return X.csr;
  if (X.format === "csr" || (X.indptr && X.indices)) return { indptr: X.indptr, indices: X.indices, data: X.data };
  return null;
}

/** The flat (n*v) values of a dense matrix: `{format: "dense", values}`, `{format: "codes", codes}`
 * (categorical codes), `{data}` / `{dense}`, or a flat array itself. */
export function denseOf(X) {
  if (!X) return null;
  if (X.values) return X.values;
  if (X.codes) return X.codes;
  if (X.dense) return X.dense;
  if (X.data && !csrOf(X)) return X.data;
  return X;
}

export const matRows = (X) => (X.n ?? X.rows ?? X.shape?.[0]);
export const matCols = (X) => (X.v ?? X.cols ?? X.shape?.[1]);

/** One row of the model's matrix as a dense (V) Float64Array. */
export function denseRow(X, i) {
  const V = matCols(X);
  const out = new Float64Array(V);
  const c = csrOf(X);
  if (c) {
    for (let p = c.indptr[i]; p < c.indptr[i + 1]; p++) out[c.indices[p]] += c.data ? c.data[p] : 1;
    return out;
  }
  const D = denseOf(X);
  for (let j = 0; j < V; j++) out[j] = D[i * V + j];
  return out;
}

/** Calls fn(j, value) for every non-zero of row i (sparse or dense). */
export function eachNonzero(X, i, fn) {
  const c = csrOf(X);
  if (c) {
    for (let p = c.indptr[i]; p < c.indptr[i + 1]; p++) { const v = c.data ? c.data[p] : 1; if (v !== 0) fn(c.indices[p], v); }
    return;
  }
  const V = matCols(X), D = denseOf(X);
  for (let j = 0; j < V; j++) { const v = D[i * V + j]; if (v !== 0) fn(j, v); }
}

/** The category names of categorical data (one list per feature), wherever the page keeps them. */
export function categoriesOf(prep, data) {
  const fromData = (d) => d && (d.categories || (d.matrix && d.matrix.categories));
  return (prep && (prep.categories || (prep.X && prep.X.categories) || fromData(prep.data))) || fromData(data) || null;
}

/** The image shape [rows, cols] of image data (digits), or null. */
export function imageShapeOf(prep, data) {
  return (prep && (prep.imageShape || prep.image_shape)) || (data && (data.imageShape || data.image_shape)) || null;
}

// ---- the DOM (text only) ------------------------------------------------------------------------------

/** h("td", {class: "num", text: "0.123"}, kids…): the lab's one DOM helper (dom.js): text via
 * textContent and text nodes, "on…" functions as listeners. Never innerHTML. */
export const h = el;

export const sub = (s) => h("sub", null, String(s));
export const sup = (s) => h("sup", null, String(s));

/** A table: `head` the column names (th scope="col"); each row's first cell a th scope="row" unless
 * `rowHeads` is false. A cell is a string, a number (shown as is), an element, or
 * {text, class, attrs, kids}. */
export function table({ caption, head, rows, rowHeads = true, className = "nbl-table" }) {
  // a table scrolls sideways in a narrow box (a phone, classroom type): focusable, so a keyboard can scroll it
  const t = h("table", { class: className, tabindex: "0" });
  if (caption) t.append(h("caption", { text: caption }));
  if (head) t.append(h("thead", null, h("tr", null, head.map((c) => cell("th", c, { scope: "col" })))));
  const body = h("tbody");
  for (const r of rows) {
    body.append(h("tr", r.attrs || null, (r.cells || r).map((c, j) =>
      cell(j === 0 && rowHeads ? "th" : "td", c, j === 0 && rowHeads ? { scope: "row" } : null))));
  }
  t.append(body);
  return t;
}

function cell(tag, c, extra) {
  if (c instanceof Object && typeof c.nodeType === "number") return h(tag, extra, c);
  if (c !== null && typeof c === "object") {
    return h(tag, Object.assign({}, extra, c.attrs || {}, { class: c.class || null, text: c.text ?? null }),
      c.kids || []);
  }
  return h(tag, Object.assign({}, extra, { text: c === null || c === undefined ? "" : String(c) }));
}

/** A panel's box: a <section> with a heading (for the page's outline) and a body. */
export function section(el, title, className) {
  el.textContent = "";
  el.classList.add("nbl-panel");
  if (className) el.classList.add(className);
  const heading = h("h2", { class: "nbl-panel-title", text: title });
  const body = h("div", { class: "nbl-panel-body" });
  el.append(heading, body);
  return { heading, body };
}

/** The chart layout of dashboard/charts/theme.figure_spec: the title on a band of its own at the
 * top, the legend in a band under it, readable ticks; `height` grows with the font and legend rows. */
export function figureLayout(layout, title, fs, height, legendRows = 1) {
  const titleBand = Math.trunc((fs + 4) * 1.6) + 8;
  const legendBand = Math.trunc(fs * 1.7) * legendRows + 6;
  const total = height + Math.max(0, fs - 15) * 12 + Math.trunc(fs * 1.7) * Math.max(0, legendRows - 1);
  const out = Object.assign({}, layout, {
    title: { text: title, font: { size: fs + 4 }, y: 1.0, yref: "container", yanchor: "top", pad: { t: 8 } },
    font: { size: fs },
    height: total,
    margin: { l: 10, r: 10, t: titleBand + legendBand, b: 10 },
    legend: { orientation: "h", yref: "container", yanchor: "top", y: Math.min(1, Math.max(0, 1 - titleBand / total)),
      xanchor: "left", x: 0.0, font: { size: fs } },
  });
  for (const name of ["xaxis", "yaxis"]) {
    const axis = Object.assign({}, out[name] || {});
    axis.tickfont = Object.assign({ size: fs - 1 }, axis.tickfont || {});
    axis.automargin = axis.automargin ?? true;
    out[name] = axis;
  }
  return out;
}

/** A chart title too long for a narrow chart (a phone) on two or more lines: plotly does not wrap
 * titles, so "<br>" is put between words and the title band (and the figure) grow to hold them. */
export function fitTitle(layout, width) {
  const title = layout.title, fs = title && title.font && title.font.size;
  if (!width || !fs || typeof title.text !== "string") return layout;
  const perLine = Math.max(12, Math.floor((width - 20) / (0.52 * fs)));
  if (title.text.length <= perLine) return layout;
  const lines = [];
  let line = "";
  for (const w of title.text.split(" ")) {
    if (line && (line + " " + w).length > perLine) { lines.push(line); line = w; } else line = line ? line + " " + w : w;
  }
  if (line) lines.push(line);
  const extra = Math.round((lines.length - 1) * fs * 1.25);
  const height = layout.height + extra;
  const out = Object.assign({}, layout, { height, title: Object.assign({}, title, { text: lines.join("<br>"), yanchor: "top", y: 1 - Math.round(4 + fs * 0.35) / height }),
    margin: Object.assign({}, layout.margin, { t: layout.margin.t + extra }) });
  if (layout.legend && layout.legend.yref === "container") {
    const band = (1 - layout.legend.y) * layout.height + extra;
    out.legend = Object.assign({}, layout.legend, { y: Math.max(0, 1 - band / height) });
  }
  return out;
}

/** Plotly.react into `el` with the lesson's template (ctx.template: a template object or
 * {layout: …}); a chart that cannot be drawn (no Plotly) leaves its data table only. */
export function drawChart(ctx, el, data, layout) {
  const Plotly = ctx && ctx.Plotly;
  if (!Plotly) return false;
  const l = fitTitle(Object.assign({}, layout), el.clientWidth);
  if (ctx.template) l.template = ctx.template;
  Plotly.react(el, data, l, { displayModeBar: false, responsive: true });
  el.__nblLayout = layout;
  // a chart follows its box's width (a column appearing beside it, classroom mode, a phone turned),
  // not only the window's: plotly's "responsive" listens to the window alone
  if (!el.__nblResize && typeof ResizeObserver !== "undefined") {
    let w = el.clientWidth;
    el.__nblResize = new ResizeObserver(() => {
      if (el.clientWidth === w || !el.clientWidth) return;
      w = el.clientWidth;
      if (el._fullLayout && el.__nblLayout) Plotly.react(el, el.data, Object.assign(fitTitle(Object.assign({}, el.__nblLayout), w),
        ctx.template ? { template: ctx.template } : {}), { displayModeBar: false, responsive: true });
    });
    el.__nblResize.observe(el);
  }
  return true;
}

/** Text from the data as a chart label (dashboard.ui.derive.plot_text): on one line, at most `limit`
 * characters, and plotly's markup characters (& < > $ %) as character references, which plotly
 * shows as the characters themselves. */
export function plotText(text, limit = 80) {
  let s = String(text).replace(/[\x00-\x1f\x7f\u2028\u2029]+/g, " ");
  const cp = codePoints(s);
  if (limit !== null && cp.length > limit) s = cp.slice(0, Math.max(0, limit - 1)).join("") + "…";
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\$/g, "&#36;")
    .replace(/%/g, "&#37;");
}

/** A formula in plain text with _x / _{xy} subscripts and ^x / ^{xy} superscripts as <sub>/<sup>
 * elements (the notes' equations without a maths renderer): "α_k^{t+1}" → α, sub k, sup t+1. */
export function math(s, cls = "nbl-eq") {
  const el = h("span", { class: cls });
  let buf = "";
  const flush = () => { if (buf) { el.append(document.createTextNode(buf)); buf = ""; } };
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if ((c === "_" || c === "^") && i + 1 < s.length) {
      let arg;
      if (s[i + 1] === "{") {
        const end = s.indexOf("}", i + 2);
        arg = s.slice(i + 2, end < 0 ? s.length : end);
        i = end < 0 ? s.length : end;
      } else {
        arg = s[i + 1];
        i += 1;
      }
      flush();
      el.append(h(c === "_" ? "sub" : "sup", null, arg));
    } else buf += c;
  }
  flush();
  return el;
}

/** Tell the other panels (the page's event bus, ctx.emit/ctx.on, when it has one; else a bubbling DOM
 * event on `el` that a panel hears on its document). */
export function emit(ctx, el, name, detail) {
  if (ctx && typeof ctx.emit === "function") ctx.emit(name, detail);
  else el.dispatchEvent(new CustomEvent(name, { bubbles: true, detail }));
}

/** Hear what another panel says (see emit); `fn(detail, fromEl)`. */
export function listen(ctx, el, name, fn) {
  if (ctx && typeof ctx.on === "function") ctx.on(name, (detail) => fn(detail, null));
  else el.ownerDocument.addEventListener(name, (e) => fn(e.detail, e.target));
}

/** Classroom mode on a panel: its text at 18 px or more (panels.css). */
export function classroom(el, on) { el.classList.toggle("nbl-classroom", !!on); }

/** The labels the hidden documents are scored against: prep.yEval (the data's true labels, −1 unknown),
 * else prep.y. */
export const trueLabels = (prep) => prep.yEval || prep.y;

/** The event model's name: the prep's, the settings', or the run's model's. */
export function modelName(view) {
  const m = (view.prep && view.prep.model) || (view.settings && view.settings.model) || (view.run && view.run.model);
  return typeof m === "string" ? m : (m && m.name) || "";
}

/** Document i as the model reads it (the vector run.explain takes): prep.row(i) when the prep has it
 * (Bernoulli's binarized words; categorical codes), else row i of prep.X. */
export function docRow(prep, i) {
  return typeof prep.row === "function" ? prep.row(i) : denseRow(prep.X, i);
}
