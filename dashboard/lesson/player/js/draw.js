// @ts-check
// Drawing: the player's charts with plotly.js. Everything that knows plotly's internals is here, and kept
// to a few reads of what plotly has drawn: the axes' pixel mapping (_fullLayout, _plots, l2p, c2p) to place
// the iteration marker and the cheap frames, the computed traces (_fullData) and colour scales, and
// whether a chart has been drawn at all (_fullLayout). Each chart is a "box" (chartBox): a figure with the
// plotly div, an overlay for the marker and the curtain, and its data as a table for screen readers.
//
// The functions take the player's drawing context (DrawCtx): plotly.js, the template sent once, the
// reader's motion preference, classroom mode, counters, and the playback (which iteration is shown).

import { curtained } from "./playback.js";

/**
 * @typedef {Object} Stats  counters read by the benchmark and the browser tests
 * @property {number} draws
 * @property {number} distinct
 * @property {number} lastDrawn
 * @property {number} reacts
 * @property {number} backDraws
 * @property {number} swaps
 * @property {number} steps
 * @property {number} lams
 * @property {number} fast
 * @property {number} ticks          Play's ticks so far (a stopped Play makes no more)
 * @property {number} [painted]
 * @property {string[]} log
 */

/**
 * @typedef {Object} DrawCtx
 * @property {any} Plotly              plotly.js (null until it has loaded)
 * @property {object | null} tpl       the plotly template, sent once for every chart
 * @property {boolean} reducedMotion   the reader asked for less motion: no transitions
 * @property {boolean} classroom       classroom mode (time-series charts at most 45 % of the window high)
 * @property {Stats} stats
 * @property {import("./playback.js").Playback} pb
 */

/**
 * A chart on the page.
 * @typedef {Object} Box
 * @property {string} name
 * @property {HTMLElement} wrap      the figure (role, accessible name)
 * @property {any} gd                the plotly div shown
 * @property {any} [back]            the hidden plotly div the next iteration is drawn into ahead
 * @property {any} [backTag]         what the back div holds (a version or a spec)
 * @property {HTMLElement} overlay   the marker and the curtain
 * @property {Array<[HTMLElement, HTMLElement]>} marks
 * @property {any} shown             the spec shown (the params charts)
 * @property {string | null} ver     the version shown (the time-series charts)
 * @property {boolean} [stale]       a cheap frame is shown: the exact draw follows when the user stops
 * @property {boolean} [params]      a parameter chart (not a time series)
 * @property {HTMLDetailsElement} details
 * @property {HTMLElement} tables
 * @property {string | null} title
 * @property {() => void} [hook]
 */

/**
 * A plotly trace or axis, as given to plotly.js or as it computed it (_fullData, _fullLayout): plotly.js
 * comes without types, so what is read of it is checked where it is read.
 * @typedef {any} Plotted
 */

/**
 * A colour-scale stop: its position (0 … 1) and its colour as [r, g, b].
 * @typedef {[number, number[]]} Stop
 */

const CONFIG = { displayModeBar: false, responsive: true };

/**
 * Draw `spec` into the plotly div `div` (Plotly.react), with the template, the motion preference, classroom
 * heights and bold titles; the chart's accessible name follows its title.
 * @param {DrawCtx} C
 * @param {any} div
 * @param {{data: any[], layout: any}} spec
 * @returns {Promise<any>}
 */
export function react(C, div, spec) {
  // shallow copies: plotly writes into the objects it is given (uid, autorange results)
  C.stats.reacts++;
  const layout = structuredClone(spec.layout);
  if (!layout.template && C.tpl) layout.template = C.tpl;   // sent once, not once per chart
  // plotly's default "hide past div" measures every tick label once per label (bBox: a forced layout
  // each; half of a scrub frame of the top-features chart in a profile). Automargin already makes
  // room for the labels, so none can overflow: "allow" draws the same picture without measuring.
  for (const k of Object.keys(layout)) {
    const ax = layout[k];
    if (/^[xy]axis\d*$/.test(k) && ax && typeof ax === "object" && ax.ticklabeloverflow === undefined) ax.ticklabeloverflow = "allow";
  }
  if (C.reducedMotion) layout.transition = { duration: 0 };
  // classroom mode on a short screen (a 1280x720 projector): a time-series chart is at most 45 % of the
  // window high, so that the Step / Play controls above them and the first row of charts share one screen
  const owner = div.__nbpBox;
  if (C.classroom && owner && !owner.params && layout.height) layout.height = Math.min(layout.height, Math.max(280, Math.round(window.innerHeight * 0.45)));
  const title = layout.title;                                 // bold titles, as st.plotly_chart draws them
  if (title && typeof title.text === "string" && !title.text.startsWith("<b>")) title.text = `<b>${title.text}</b>`;
  const box = div.__nbpBox;
  if (box) box.title = plainText(title && typeof title === "object" ? title.text : title);
  return C.Plotly.react(div, spec.data.map((t) => Object.assign({}, t)), layout, CONFIG).then((/** @type {any} */ gd) => { if (box) describe(C, box); return gd; });
}


/**
 * @param {any} html a plotly text (tags, <br>)
 * @returns {string} its words
 */
export function plainText(html) {
  return String(html || "").replace(/<br\s*\/?>/gi, " ").replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim();
}

/**
 * @param {DrawCtx} C
 * @param {Box} box
 */
export function describe(C, box) {   // the chart's accessible name, and its table when the reader has opened it
  const name = (box.title || box.name) + (box.params ? ` at iteration ${C.pb.t}` : "");
  if (box.wrap.getAttribute("aria-label") !== name) box.wrap.setAttribute("aria-label", name);
  if (box.details && box.details.open) fillTable(C, box);
}
/**
 * @param {unknown} v a table cell's value
 * @returns {string} its text
 */
function cell(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : (Math.abs(v) >= 1000 ? v.toFixed(0) : v.toPrecision(4));
  return plainText(v);
}
/**
 * @param {string} caption
 * @param {string[]} head the column headings
 * @param {unknown[][]} rows each row's cells, its heading first
 * @returns {HTMLTableElement}
 */
function tableOf(caption, head, rows) {
  const t = document.createElement("table");
  const c = document.createElement("caption"); c.textContent = caption; t.appendChild(c);
  const hr = document.createElement("tr");
  for (const h of head) { const th = document.createElement("th"); th.scope = "col"; th.textContent = h; hr.appendChild(th); }
  const thead = document.createElement("thead"); thead.appendChild(hr); t.appendChild(thead);
  const tb = document.createElement("tbody");
  for (const r of rows) {
    const tr = document.createElement("tr");
    r.forEach((v, i) => { const e = document.createElement(i ? "td" : "th"); if (!i) e.scope = "row"; e.textContent = cell(v); tr.appendChild(e); });
    tb.appendChild(tr);
  }
  t.appendChild(tb);
  return t;
}
const TABLE_ROWS = 300;
/**
 * @param {DrawCtx} C
 * @param {Box} box
 */
function fillTable(C, box) {   // what the chart draws, as tables: one per group of traces on the same x
  const gd = box.gd, data = /** @type {Plotted[] | undefined} */ (gd && gd.data), fl = gd && gd._fullLayout;
  if (!data || !box.tables) return;
  const out = [];
  const last = box.params ? Infinity : C.pb.revealed;   // the time series: iterations shown so far
  const line = data.filter((tr) => tr.type !== "heatmap" && Array.isArray(tr.x) && Array.isArray(tr.y));
  if (line.length) {
    const horiz = line.every((tr) => tr.orientation === "h");
    const keyOf = (/** @type {Plotted} */ tr) => (horiz ? tr.y : tr.x), valOf = (/** @type {Plotted} */ tr) => (horiz ? tr.x : tr.y);
    const ax = fl && (horiz ? fl.yaxis : fl.xaxis);
    const label = (/** @type {number | string} */ k) => {
      if (ax && Array.isArray(ax.tickvals) && Array.isArray(ax.ticktext)) { const i = ax.tickvals.indexOf(k); if (i >= 0) return ax.ticktext[i]; }
      return k;
    };
    /** @type {Array<number | string>} */
    const keys = [];
    for (const tr of line) for (const k of keyOf(tr)) if (!keys.includes(k) && keys.length < TABLE_ROWS) keys.push(k);
    const rows = keys.filter((k) => typeof k !== "number" || k <= last + 0.5).map((k) => [label(k)].concat(line.map((tr) => {
      const i = keyOf(tr).indexOf(k); return i >= 0 ? valOf(tr)[i] : null;
    })));
    const axTitle = ax && ax.title && ax.title.text ? plainText(ax.title.text) : (horiz ? "" : "iteration");
    out.push(tableOf(box.title || box.name, [axTitle || ""].concat(line.map((tr, i) => plainText(tr.name) || `series ${i + 1}`)), rows));
  }
  for (const tr of data.filter((d) => d.type === "heatmap" && Array.isArray(d.z) && Array.isArray(d.z[0]))) {
    const z = /** @type {unknown[][]} */ (tr.z), cols = (tr.x || z[0].map((_, j) => j)).slice(0, 40);
    const rows = z.slice(0, 60).map((r, i) => [tr.y ? tr.y[i] : i].concat(r.slice(0, 40)));
    out.push(tableOf(plainText(tr.name) || box.title || box.name, [""].concat(cols.map(cell)), rows));
  }
  box.tables.replaceChildren(...out);
}

/**
 * The iteration marker and the curtain over each subplot of a time-series chart, from plotly's axes.
 * @param {DrawCtx} C
 * @param {Box} box
 */
export function placeMarkers(C, box) {
  const gd = box.gd, fl = gd && gd._fullLayout;
  if (!fl || !fl._plots) return;
  const ids = Object.keys(fl._plots);
  while (box.marks.length < ids.length) {
    const line = document.createElement("div"), cur = document.createElement("div");
    line.className = "nbp-mark"; cur.className = "nbp-curtain";
    box.overlay.append(cur, line);
    box.marks.push([line, cur]);
  }
  ids.forEach((id, i) => {
    const { xaxis: xa, yaxis: ya } = fl._plots[id];
    const [line, cur] = box.marks[i];
    const x = xa._offset + xa.l2p(C.pb.t);
    const hideFrom = curtained(C.pb) ? xa._offset + xa.l2p(C.pb.revealed + 0.5) : Infinity;
    const right = xa._offset + xa._length;
    // written only when they move: a rerun that changed nothing shown changes nothing on the page
    setCss(line, `left:${x - 1}px;top:${ya._offset}px;height:${ya._length}px`);
    setCss(cur, hideFrom < right
      ? `left:${hideFrom}px;top:${ya._offset}px;height:${ya._length}px;width:${right - hideFrom}px`
      : "display:none");
  });
}

/**
 * @param {any} el
 * @param {string} css written only when it changed
 */
export function setCss(el, css) {
  if (el.__css !== css) { el.__css = css; el.style.cssText = css; }
}

// Double buffering: the next iteration's charts are drawn ahead, in idle time, into a hidden copy of
// each chart ("back", under the visible one); showing them is then a swap of the two, not a Plotly call.
/**
 * @param {DrawCtx} C
 * @param {Box} box
 * @param {{data: any[], layout: any}} spec
 * @param {any} tag what is drawn (a version or the spec)
 * @returns {boolean} whether it was drawn now
 */
export function backDraw(C, box, spec, tag) {
  if (box.backTag === tag) return false;
  if (!box.back) {
    box.back = document.createElement("div");
    box.back.className = "nbp-back";
    box.back.setAttribute("aria-hidden", "true");
    box.back.__nbpBox = box;
    box.wrap.insertBefore(box.back, box.overlay);
  }
  box.backTag = tag;
  C.stats.backDraws++;
  react(C, box.back, spec);
  return true;
}
/**
 * @param {DrawCtx} C
 * @param {Box} box
 * @param {any} tag
 * @returns {boolean} whether the chart drawn ahead with `tag` is now the one shown
 */
export function swapIn(C, box, tag) {
  const back = box.back;
  if (!back || tag === null || box.backTag !== tag || !back._fullLayout) return false;
  const front = box.gd;
  back.classList.remove("nbp-back");
  front.classList.add("nbp-back");
  box.gd = back; box.back = front; box.backTag = null;
  C.stats.swaps++;
  if (box.hook) box.hook();
  return true;
}

// ---- a cheap frame for image charts while the slider is dragged or Play runs ----------------------
// digits' β images are 10 heatmaps: a Plotly.react of them is a full replot (10 subplots' axes,
// margins, titles; ~70 % of a scrub frame in a profile). Between two frames of the same template
// only z changes, so each heatmap's <image> is repainted from z with the trace's own colour scale
// (the colours plotly draws), and the exact Plotly.react follows once the user stops (hover too).
/**
 * @param {unknown} c a colour as plotly writes it: rgb(…), rgba(…) or #rrggbb
 * @returns {number[] | null} [r, g, b], or null when it is none of those
 */
function rgbOf(c) {
  let m = /^rgba?\(([^)]+)\)$/.exec(String(c).trim());
  if (m) return m[1].split(",").slice(0, 3).map(Number);
  m = /^#([0-9a-f]{6})$/i.exec(String(c).trim());
  return m ? [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16)) : null;
}
/**
 * @param {Plotted} ft a heatmap as plotly computed it (_fullData)
 * @returns {((z: number) => number[]) | null} z to [r, g, b] as plotly paints it, or null when the scale is unreadable
 */
function colourScale(ft) {
  // typed as stops with a colour: a stop whose colour did not parse (null) refuses the scale just below
  let sc = /** @type {Stop[]} */ ((/** @type {Array<[number | string, unknown]>} */ (ft.colorscale || [])).map(([v, c]) => [+v, rgbOf(c)]));
  if (sc.length < 2 || sc.some((e) => !e[1] || !isFinite(e[0]))) return null;
  if (ft.reversescale) sc = sc.map(([v, c]) => /** @type {Stop} */ ([1 - v, c])).reverse();
  const lo = ft.zmin, hi = ft.zmax;
  if (!isFinite(lo) || !isFinite(hi)) return null;
  return (z) => {
    let u = hi > lo ? (z - lo) / (hi - lo) : 0.5;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    let k = 1;
    while (k < sc.length - 1 && sc[k][0] < u) k++;
    const [v0, c0] = sc[k - 1], [v1, c1] = sc[k], f = v1 > v0 ? (u - v0) / (v1 - v0) : 0;
    return [0, 1, 2].map((j) => Math.round(c0[j] + f * (c1[j] - c0[j])));
  };
}
/** @type {HTMLCanvasElement | null} the canvas the images are painted on (one, reused) */
let scratch = null;
/**
 * The cheap frame of an image chart (heatmaps whose z alone changed): false when it does not apply.
 * @param {Box} box
 * @param {import("./decode.js").FrameSpec} spec
 */
export function fastImages(box, spec) {
  const prev = box.shown, gd = box.gd, fd = gd._fullData, fl = gd._fullLayout;
  if (!prev || !fd || !fl || spec.tpl !== prev.tpl || spec.lkey !== prev.lkey || !spec.zOnly || !prev.zOnly) return false;
  if (fd.length !== spec.data.length || !spec.data.every((t) => t.type === "heatmap")) return false;
  const jobs = [];
  for (const g of gd.querySelectorAll(".hm")) {
    const cd = g.__data__, ft = cd && cd[0] && cd[0].trace;
    const img = g.querySelector("image");
    const z = ft && spec.data[ft.index] && spec.data[ft.index].z;
    const xa = ft && fl[String(ft.xaxis).replace("x", "xaxis")], ya = ft && fl[String(ft.yaxis).replace("y", "yaxis")];
    if (!img || !Array.isArray(z) || !Array.isArray(z[0]) || ft.zsmooth || !xa || !ya || !xa.range || !ya.range) return false;
    const colour = colourScale(ft);
    if (!colour) return false;
    jobs.push({ img, z, colour, flipX: xa.range[0] > xa.range[1], flipY: !(ya.range[0] > ya.range[1]) });
  }
  if (jobs.length !== fd.length) return false;
  for (const { img, z, colour, flipX, flipY } of jobs) {
    const rows = z.length, cols = z[0].length;
    const cv = scratch || (scratch = document.createElement("canvas"));
    cv.width = cols; cv.height = rows;
    // a canvas made here has no other kind of context, so its 2d context is never null
    const ctx = /** @type {CanvasRenderingContext2D} */ (cv.getContext("2d")), im = ctx.createImageData(cols, rows);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const v = z[r][c], o = 4 * ((flipY ? rows - 1 - r : r) * cols + (flipX ? cols - 1 - c : c));
        if (v === null || v === undefined || !isFinite(v)) { im.data[o + 3] = 0; continue; }
        const [R, G, B] = colour(v);
        im.data[o] = R; im.data[o + 1] = G; im.data[o + 2] = B; im.data[o + 3] = 255;
      }
    }
    ctx.putImageData(im, 0, 0);
    img.setAttribute("preserveAspectRatio", "none");
    img.style.imageRendering = "pixelated";
    img.setAttribute("href", cv.toDataURL());
  }
  return true;
}

// ---- a cheap frame for the top-features bars while the slider is dragged or Play runs -----------------
// A Plotly.react of the 12-word bar chart is ~28 ms (axes, tick labels, margins). Between two frames of
// the same template only the bars' lengths, the previous-iteration marks and the words change: the bars'
// paths, the marks' positions and the tick labels are rewritten on the x axis as drawn (when every new
// value fits in it), and the exact Plotly.react follows once the user stops (box.stale).
/**
 * @param {Plotted} a a plotly layout
 * @param {Plotted} b another
 * @param {string} key
 * @param {string} sub
 * @returns {boolean}
 */
function sameBut(a, b, key, sub) {   // a and b equal except a[key][sub]
  const strip = (/** @type {Plotted} */ o) => { const c = Object.assign({}, o); c[key] = Object.assign({}, o[key]); delete c[key][sub]; return JSON.stringify(c); };
  return strip(a) === strip(b);
}
/**
 * The cheap frame of the top-features bars: false when it does not apply.
 * @param {Box} box
 * @param {import("./decode.js").FrameSpec} spec
 */
export function fastBars(box, spec) {
  const prev = box.shown, gd = box.gd, fd = gd._fullData, fl = gd._fullLayout;
  if (!prev || !fd || !fl || spec.tpl !== prev.tpl || fd.length !== spec.data.length) return false;
  if (!spec.data.every((t) => (t.type === "bar" && t.orientation === "h") || (t.type === "scatter" && t.mode === "markers"))) return false;
  if (!spec.layout.yaxis || !Array.isArray(spec.layout.yaxis.tickvals) || !sameBut(spec.layout, prev.layout, "yaxis", "ticktext")) return false;
  const xa = fl.xaxis, ya = fl.yaxis;
  if (!xa || !ya || !xa.range) return false;
  const lo = Math.min(xa.range[0], xa.range[1]), hi = Math.max(xa.range[0], xa.range[1]);
  const fits = (/** @type {unknown} */ v) => typeof v === "number" && isFinite(v) && v >= lo && v <= hi;
  if (!spec.data.every((t) => Array.isArray(t.x) && t.x.every(fits))) return false;
  /** @type {Array<[string, any[], number[]]>} each trace's type, its drawn points (plotly's SVG) and its new x */
  const jobs = [];
  for (const g of gd.querySelectorAll(".barlayer .trace, .scatterlayer .trace")) {
    const cd = g.__data__, ft = cd && cd[0] && cd[0].trace;
    const tr = ft && spec.data[ft.index];
    if (!tr) return false;
    const pts = [...g.querySelectorAll(".point")];
    if (pts.length !== tr.x.length) return false;
    jobs.push([tr.type, pts, tr.x]);
  }
  if (jobs.length !== spec.data.length) return false;
  const ticks = [...gd.querySelectorAll(".yaxislayer-above .ytick text")];
  const vals = spec.layout.yaxis.tickvals, names = spec.layout.yaxis.ticktext || [];
  for (const [type, pts, xs] of jobs) {
    pts.forEach((pt, i) => {
      const px = xa.c2p(xs[i]);
      if (type === "bar") {
        const path = pt.tagName === "path" ? pt : pt.querySelector("path");
        const d = path && path.getAttribute("d");
        if (d) path.setAttribute("d", d.replace(/H[-+\d.eE]+/, "H" + px));
      } else {
        const tf = pt.getAttribute("transform");
        if (tf) pt.setAttribute("transform", tf.replace(/translate\(\s*[-+\d.eE]+/, "translate(" + px));
      }
    });
  }
  for (const el of ticks) {
    const k = el.__data__ ? vals.indexOf(el.__data__.x) : -1;
    if (k >= 0 && names[k] !== undefined && el.textContent !== names[k]) el.textContent = names[k];
  }
  // the figure's own data follow what is drawn (the exact Plotly.react diffs against _fullData)
  spec.data.forEach((t, i) => { if (gd.data[i]) gd.data[i].x = t.x; });
  if (gd.layout.yaxis) gd.layout.yaxis.ticktext = names;
  return true;
}


/**
 * A chart's figure, appended to `parent`.
 * @param {DrawCtx} C
 * @param {HTMLElement} parent
 * @param {string} name
 * @returns {Box}
 */
export function chartBox(C, parent, name) {
  const wrap = document.createElement("div");
  wrap.className = "nbp-chart";
  wrap.dataset.chart = name;
  wrap.setAttribute("role", "figure");
  wrap.setAttribute("aria-label", name);
  const gd = document.createElement("div");
  gd.setAttribute("aria-hidden", "true");   // plotly's SVG: its words are in the name, the summary and the table
  const overlay = document.createElement("div");
  overlay.className = "nbp-overlay";
  const details = document.createElement("details");
  details.className = "nbp-data";
  details.innerHTML = "<summary>Data as a table</summary>";
  const tables = document.createElement("div");
  tables.className = "nbp-tables";
  tables.tabIndex = 0;   // it scrolls: the keyboard must reach it too
  tables.setAttribute("role", "region");
  tables.setAttribute("aria-label", "Data of the chart");
  details.appendChild(tables);
  wrap.append(gd, overlay, details);
  parent.appendChild(wrap);
  const box = { name, wrap, gd, overlay, marks: [], shown: null, ver: null, details, tables, title: null };
  /** @type {any} */ (gd).__nbpBox = box;
  details.addEventListener("toggle", () => { if (details.open) fillTable(C, box); });
  return box;
}
