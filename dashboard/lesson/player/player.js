// The lesson's client-side player (a Streamlit components-v2 module; dashboard/player/__init__.py mounts it).
//
// Three mounts share this module (Streamlit caches a component's module by its text):
//   role "main":   Play/Pause, the iteration slider, and the time-series charts (α, accuracy, likelihood);
//   role "params": the parameter chart (top features / heatmap / images) and the truth scatter;
//   role "lower":  a marker at the top of the panels below the charts (drawn when they are in view).
// The server sends each iteration's frame once (payload.py: a template spec per chart + compact patches);
// dragging the slider or playing redraws here, with no server round trip per frame:
//   - the parameter charts: Plotly.react with the frame's arrays (only the charts that change);
//   - the time-series charts: the whole history is drawn once, the iteration marker is a plain div moved
//     over the plot (no plotly call), and a curtain hides iterations not shown yet while playing.
// What the player shows is reported back (setStateValue "view") when the user stops, so the maths panel
// and the metrics follow; while playing, it asks the server for more iterations ahead (trigger "need").

const CONFIG = { displayModeBar: false, responsive: true };
const Q_MAX = 65534, Q_MISSING = 65535;

// ---- shared state of this page's player (both mounts) ------------------------------------------
const P = {
  sid: null, run: null,            // session id, run token (a new run resets the player)
  n: 0, done: false, t: 0, revealed: 0, playing: false, fps: 5,
  acc: [], accDelta: [], words: [], seq: -1, pendingNeed: 0, lastAdvance: 0,
  playId: Math.floor(Math.random() * 1e6),  // one per Play press: a late "need" of a paused play is ignored
  main: null, params: null,        // the two mounts' views
  lower: null, firstPaint: false,  // the marker of the panels below the charts; the charts drawn once
  stats: { draws: 0, distinct: 0, lastDrawn: -1, reacts: 0, backDraws: 0, swaps: 0, steps: 0, lams: 0, fast: 0, log: [] },
  plotlySource: null,              // where plotly.js came from: "bundle", "chunk" or "page" (read by tests)
};
if (typeof window !== "undefined") window.__nbemPlayer = P;   // read by the benchmark and the browser tests

// The reader asked for less motion (prefers-reduced-motion): plotly draws every change at once (no
// transition), and Play steps from one iteration to the next with nothing in between.
const REDUCED = typeof window !== "undefined" && window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
P.reducedMotion = !!(REDUCED && REDUCED.matches);
if (REDUCED && REDUCED.addEventListener) REDUCED.addEventListener("change", () => { P.reducedMotion = REDUCED.matches; });

let plotlyPromise = null;
let PL = null;   // the plotly.js this player draws with (kept: a later st.plotly_chart replaces window.Plotly)
function streamlitBase() {
  const s = [...document.querySelectorAll("script[src]")].map((e) => e.src).find((u) => u.includes("/static/js/"));
  return s ? s.slice(0, s.indexOf("/static/js/") + 1) : new URL("./", document.baseURI).href;
}
function plotlyFromScript(url) {     // the app's plotly.js build: a classic script that sets window.Plotly
  return new Promise((resolve, reject) => {
    const el = document.createElement("script");
    el.src = url;
    el.async = true;
    el.onload = () => (window.Plotly ? resolve(window.Plotly) : reject(new Error("no window.Plotly")));
    el.onerror = () => { el.remove(); reject(new Error("could not load " + url)); };
    document.head.appendChild(el);
  });
}
function plotlyFromChunk(path) {     // Streamlit's own plotly.js chunk (a module that sets window.Plotly)
  return import(new URL(path, streamlitBase()).href).then(() => {
    if (!window.Plotly) throw new Error("plotly.js did not define window.Plotly");
    return window.Plotly;
  });
}
function plotlyFromGzip(url) {     // the app's plotly.js build, gzipped on disk: unpacked here, run as a script
  if (typeof DecompressionStream === "undefined") return Promise.reject(new Error("no DecompressionStream"));
  return fetch(url).then((r) => {
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).blob();
  }).then((js) => {
    const src = URL.createObjectURL(new Blob([js], { type: "text/javascript" }));
    return plotlyFromScript(src).finally(() => URL.revokeObjectURL(src));
  });
}
function loadPlotly(src) {
  if (PL) return Promise.resolve(PL);
  if (!plotlyPromise) {
    // loaded once per page. A plotly.js already on the page (Streamlit's, from an st.plotly_chart
    // seen before) is used as it is; otherwise the app's own build with scatter, bar and heatmap only
    // (1.2 MB, evaluated ~7x faster than the 4.7 MB chunk; fetched gzipped), falling back to
    // Streamlit's chunk when the app's static route is off or the browser cannot unpack it.
    const base = streamlitBase();
    const from = window.Plotly ? Promise.resolve([window.Plotly, "page"])
      : src.bundle ? plotlyFromGzip(new URL(src.bundle, base).href).then((pl) => [pl, "bundle"])
        .catch(() => plotlyFromChunk(src.chunk).then((pl) => [pl, "chunk"]))
      : plotlyFromChunk(src.chunk).then((pl) => [pl, "chunk"]);
    plotlyPromise = from.then(([pl, where]) => { PL = pl; P.plotlySource = where; return pl; });
    plotlyPromise.catch(() => { plotlyPromise = null; });
  }
  return plotlyPromise;
}

// ---- decoding (mirror of payload.py) --------------------------------------------------------------
function u16(b64) {
  const bin = atob(b64), n = bin.length >> 1, out = new Uint16Array(n);
  for (let i = 0; i < n; i++) out[i] = bin.charCodeAt(2 * i) | (bin.charCodeAt(2 * i + 1) << 8);
  return out;
}
function decode(v, strs) {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    if ("q" in v) {
      const codes = u16(v.q), step = (v.hi - v.lo) / Q_MAX, flat = new Array(v.n);
      for (let i = 0; i < v.n; i++) flat[i] = codes[i] === Q_MISSING ? null : v.lo + codes[i] * step;
      if (!v.shape) return flat;
      const [r, c] = v.shape, out = new Array(r);
      for (let i = 0; i < r; i++) out[i] = flat.slice(i * c, (i + 1) * c);
      return out;
    }
    if ("s" in v) return v.s.map((i) => strs[i]);
  }
  return v;
}

// ---- the params log (frames kept per run token) -------------------------------------------------
const LOGS = new Map();   // token -> {templates, frames, strs}
function mergeLog(d) {
  let log = LOGS.get(d.token);
  if (!log) {
    if (d.base !== 0) return null;          // frames are missing: ask for all of them
    for (const k of LOGS.keys()) LOGS.delete(k);
    log = { templates: {}, frames: [], strs: [] };
    LOGS.set(d.token, log);
  }
  if (d.base > log.frames.length || d.sbase > log.strs.length) return null;  // a delta was lost
  if (d.templates) log.templates = d.templates;
  log.strs.length = d.sbase; log.strs.push(...d.strs);
  log.frames.length = d.base; log.frames.push(...d.frames);
  if (log.frames.length > d.n) log.frames.length = d.n;   // the run was rewound
  return log;
}
function specAt(log, name, t) {
  const f = log.frames[Math.min(t, log.frames.length - 1)];
  const p = f && f[name];
  if (!p) return null;
  if (!p._spec) {
    const tpl = log.templates[name][p.tpl];
    const data = tpl.data.map((tr) => Object.assign({}, tr));
    for (const [i, k, v] of p.d || []) data[i][k] = decode(v, log.strs);
    p._spec = { data, layout: Object.assign({}, tpl.layout, p.l || {}),
      tpl: p.tpl, lkey: p.l ? JSON.stringify(p.l) : "", zOnly: (p.d || []).every((e) => e[1] === "z") };
  }
  return p._spec;
}

// ---- drawing ------------------------------------------------------------------------------------------
function react(div, spec) {
  // shallow copies: plotly writes into the objects it is given (uid, autorange results)
  P.stats.reacts++;
  const layout = structuredClone(spec.layout);
  if (!layout.template && P.tpl) layout.template = P.tpl;   // sent once, not once per chart
  // plotly's default "hide past div" measures every tick label once per label (bBox: a forced layout
  // each; half of a scrub frame of the top-features chart in a profile). Automargin already makes
  // room for the labels, so none can overflow: "allow" draws the same picture without measuring.
  for (const k of Object.keys(layout)) {
    const ax = layout[k];
    if (/^[xy]axis\d*$/.test(k) && ax && typeof ax === "object" && ax.ticklabeloverflow === undefined) ax.ticklabeloverflow = "allow";
  }
  if (P.reducedMotion) layout.transition = { duration: 0 };
  // classroom mode on a short screen (a 1280x720 projector): a time-series chart is at most 45 % of the
  // window high, so that the Step / Play controls above them and the first row of charts share one screen
  const owner = div.__nbpBox;
  if (P.classroom && owner && !owner.params && layout.height) layout.height = Math.min(layout.height, Math.max(280, Math.round(window.innerHeight * 0.45)));
  const title = layout.title;                                 // bold titles, as st.plotly_chart draws them
  if (title && typeof title.text === "string" && !title.text.startsWith("<b>")) title.text = `<b>${title.text}</b>`;
  const box = div.__nbpBox;
  if (box) box.title = plainText(title && typeof title === "object" ? title.text : title);
  return PL.react(div, spec.data.map((t) => Object.assign({}, t)), layout, CONFIG).then((gd) => { if (box) describe(box); return gd; });
}

// ---- words for screen readers: each chart's name, the iteration in a sentence, the data as a table ----
function plainText(html) {
  return String(html || "").replace(/<br\s*\/?>/gi, " ").replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim();
}
function summaryText() {
  const w = P.words[P.t];
  return `Iteration ${P.t} of ${Math.max(0, P.n - 1)}` + (w ? `: ${w}` : "");
}
function describe(box) {   // the chart's accessible name, and its table when the reader has opened it
  const name = (box.title || box.name) + (box.params ? ` at iteration ${P.t}` : "");
  if (box.wrap.getAttribute("aria-label") !== name) box.wrap.setAttribute("aria-label", name);
  if (box.details && box.details.open) fillTable(box);
}
function cell(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : (Math.abs(v) >= 1000 ? v.toFixed(0) : v.toPrecision(4));
  return plainText(v);
}
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
function fillTable(box) {   // what the chart draws, as tables: one per group of traces on the same x
  const gd = box.gd, data = gd && gd.data, fl = gd && gd._fullLayout;
  if (!data || !box.tables) return;
  const out = [];
  const last = box.params ? Infinity : P.revealed;   // the time series: iterations shown so far
  const line = data.filter((tr) => tr.type !== "heatmap" && Array.isArray(tr.x) && Array.isArray(tr.y));
  if (line.length) {
    const horiz = line.every((tr) => tr.orientation === "h");
    const keyOf = (tr) => (horiz ? tr.y : tr.x), valOf = (tr) => (horiz ? tr.x : tr.y);
    const ax = fl && (horiz ? fl.yaxis : fl.xaxis);
    const label = (k) => {
      if (ax && Array.isArray(ax.tickvals) && Array.isArray(ax.ticktext)) { const i = ax.tickvals.indexOf(k); if (i >= 0) return ax.ticktext[i]; }
      return k;
    };
    const keys = [];
    for (const tr of line) for (const k of keyOf(tr)) if (!keys.includes(k) && keys.length < TABLE_ROWS) keys.push(k);
    const rows = keys.filter((k) => typeof k !== "number" || k <= last + 0.5).map((k) => [label(k)].concat(line.map((tr) => {
      const i = keyOf(tr).indexOf(k); return i >= 0 ? valOf(tr)[i] : null;
    })));
    const axTitle = ax && ax.title && ax.title.text ? plainText(ax.title.text) : (horiz ? "" : "iteration");
    out.push(tableOf(box.title || box.name, [axTitle || ""].concat(line.map((tr, i) => plainText(tr.name) || `series ${i + 1}`)), rows));
  }
  for (const tr of data.filter((d) => d.type === "heatmap" && Array.isArray(d.z) && Array.isArray(d.z[0]))) {
    const z = tr.z, cols = (tr.x || z[0].map((_, j) => j)).slice(0, 40);
    const rows = z.slice(0, 60).map((r, i) => [tr.y ? tr.y[i] : i].concat(r.slice(0, 40)));
    out.push(tableOf(plainText(tr.name) || box.title || box.name, [""].concat(cols.map(cell)), rows));
  }
  box.tables.replaceChildren(...out);
}

function placeMarkers(box) {
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
    const x = xa._offset + xa.l2p(P.t);
    const hideFrom = P.playing || P.revealed < P.n - 1 ? xa._offset + xa.l2p(P.revealed + 0.5) : Infinity;
    const right = xa._offset + xa._length;
    // written only when they move: a rerun that changed nothing shown changes nothing on the page
    setCss(line, `left:${x - 1}px;top:${ya._offset}px;height:${ya._length}px`);
    setCss(cur, hideFrom < right
      ? `left:${hideFrom}px;top:${ya._offset}px;height:${ya._length}px;width:${right - hideFrom}px`
      : "display:none");
  });
}

function setCss(el, css) {
  if (el.__css !== css) { el.__css = css; el.style.cssText = css; }
}

// ---- Step, answered here ------------------------------------------------------------------------------
// The server sends the next iteration's charts ahead of time ("next": the run stepped once more, which
// the Step then adopts instead of computing it again). Pressing Step (the button, → or Page Down) shows
// them at once; the server's rerun that follows brings the same charts with the same versions (no
// redraw) and the metrics, the maths panel and the documents of that iteration.
function stepNow(why) {
  const nx = P.next, m = P.main;
  if (!nx || !m || nx.run !== P.run || nx.from !== P.n || P.playing || !PL) return false;
  const btn = document.querySelector(".st-key-step button");
  if (!btn || btn.disabled) return false;
  P.next = null;
  note("step here " + why);
  // after the click's own handlers (Streamlit sends the Step to the server first), before the next paint
  setTimeout(() => showNext(nx), 0);
  return true;
}
function showNext(nx) {
  const m = P.main;
  if (!m || P.run !== nx.run || P.n !== nx.from) return;
  P.n = nx.n; P.done = nx.done; P.acc = nx.acc; P.accDelta = nx.accDelta || []; P.words = nx.words || P.words;
  P.status = nx.status || P.status; P.stop = nx.stop || P.stop;
  P.t = P.n - 1; P.revealed = P.t;
  nx.series.forEach((s, i) => {
    const box = m.boxes[i];
    if (!box || box.name !== s.name || box.ver === s.ver) return;
    box.ver = s.ver;
    if (!swapIn(box, s.ver)) react(box.gd, s.spec).then(() => placeMarkers(box));
  });
  P.stats.steps++;
  drawNow();   // now, not at the next animation frame: the parameter charts swap in with the others
}
// Double buffering: the next iteration's charts are drawn ahead, in idle time, into a hidden copy of
// each chart ("back", under the visible one); showing them is then a swap of the two, not a Plotly call.
function backDraw(box, spec, tag) {
  if (box.backTag === tag) return false;
  if (!box.back) {
    box.back = document.createElement("div");
    box.back.className = "nbp-back";
    box.back.setAttribute("aria-hidden", "true");
    box.back.__nbpBox = box;
    box.wrap.insertBefore(box.back, box.overlay);
  }
  box.backTag = tag;
  P.stats.backDraws++;
  react(box.back, spec);
  return true;
}
function swapIn(box, tag) {
  const back = box.back;
  if (!back || tag === null || box.backTag !== tag || !back._fullLayout) return false;
  const front = box.gd;
  back.classList.remove("nbp-back");
  front.classList.add("nbp-back");
  box.gd = back; box.back = front; box.backTag = null;
  P.stats.swaps++;
  if (box.hook) box.hook();
  return true;
}
let prerenderPending = false;
function schedulePrerender() {
  if (prerenderPending || !P.next) return;
  prerenderPending = true;
  const go = () => { prerenderPending = false; if (prerenderOne()) schedulePrerender(); };
  if (window.requestIdleCallback) requestIdleCallback(go, { timeout: 1000 }); else setTimeout(go, 60);
}
function prerenderOne() {   // one chart per idle period (a Plotly.react is 10-60 ms): true if one was drawn
  const nx = P.next;
  if (!nx || nx.run !== P.run || nx.from !== P.n || P.playing || P.dragging || !PL) return false;
  if (P.main) {
    for (let i = 0; i < nx.series.length; i++) {
      const s = nx.series[i], box = P.main.boxes[i];
      if (box && box.name === s.name && box.ver !== s.ver && backDraw(box, s.spec, s.ver)) return true;
    }
  }
  if (P.params && P.params.log && P.params.log.frames.length > nx.from) {
    for (const box of P.params.boxes) {
      const spec = specAt(P.params.log, box.name, nx.from);
      if (spec && spec !== box.shown && backDraw(box, spec, spec)) return true;
    }
  }
  return false;
}

// ---- λ, answered here --------------------------------------------------------------------------------
// A λ change mid-run continues the run with its history: the only chart it changes is the accuracy
// chart's supervised baseline. The server sends that chart for the λ one notch either side ("lam"); when
// the sidebar's λ slider settles on one of them (key released, or pointer released), it is drawn here at
// once; the server's rerun brings the same chart (same version) and redraws nothing.
function lamSlider() {
  const want = P.lam && P.lam.label;
  if (!want) return null;
  return [...document.querySelectorAll('[data-testid="stSidebar"] input[type=range]')].find((e) => e.getAttribute("aria-label") === want) || null;
}
function lamSettled(e) {
  if (!P.lam || !P.main || P.playing) return;
  const el = lamSlider();
  if (!el || !(e.target === el || (e.target.closest && e.target.closest('[data-testid="stSlider"]') === el.closest('[data-testid="stSlider"]')))) return;
  requestAnimationFrame(() => {   // the slider has its new value by the next frame
    const lam = P.lam, label = el.getAttribute("aria-valuetext");
    if (!lam || label === lam.now || !P.main) return;
    const alt = lam.alt[label];
    lam.now = label;
    // what was computed and drawn ahead for the old λ no longer holds (the next step uses the new λ)
    P.next = null;
    for (const box of P.main.boxes.concat(P.params ? P.params.boxes : [])) box.backTag = null;
    if (!alt) return;                 // further than one notch: the server's rerun redraws
    const box = P.main.boxes.find((b) => b.name === "acc");
    if (!box || box.ver === alt.ver) return;
    note("λ here " + label);
    box.ver = alt.ver;
    P.stats.lams++;
    react(box.gd, alt.spec).then(() => placeMarkers(box));
  });
}

function isTyping(el) {
  const tag = el && el.tagName ? el.tagName.toUpperCase() : "";
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || !!(el && el.isContentEditable);
}

// ---- a cheap frame for image charts while the slider is dragged or Play runs ----------------------
// digits' β images are 10 heatmaps: a Plotly.react of them is a full replot (10 subplots' axes,
// margins, titles; ~70 % of a scrub frame in a profile). Between two frames of the same template
// only z changes, so each heatmap's <image> is repainted from z with the trace's own colour scale
// (the colours plotly draws), and the exact Plotly.react follows once the user stops (hover too).
function rgbOf(c) {
  let m = /^rgba?\(([^)]+)\)$/.exec(String(c).trim());
  if (m) return m[1].split(",").slice(0, 3).map(Number);
  m = /^#([0-9a-f]{6})$/i.exec(String(c).trim());
  return m ? [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16)) : null;
}
function colourScale(ft) {
  let sc = (ft.colorscale || []).map(([v, c]) => [+v, rgbOf(c)]);
  if (sc.length < 2 || sc.some((e) => !e[1] || !isFinite(e[0]))) return null;
  if (ft.reversescale) sc = sc.map(([v, c]) => [1 - v, c]).reverse();
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
function fastImages(box, spec) {
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
    const cv = fastImages.canvas || (fastImages.canvas = document.createElement("canvas"));
    cv.width = cols; cv.height = rows;
    const ctx = cv.getContext("2d"), im = ctx.createImageData(cols, rows);
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
function sameBut(a, b, key, sub) {   // a and b equal except a[key][sub]
  const strip = (o) => { const c = Object.assign({}, o); c[key] = Object.assign({}, o[key]); delete c[key][sub]; return JSON.stringify(c); };
  return strip(a) === strip(b);
}
function fastBars(box, spec) {
  const prev = box.shown, gd = box.gd, fd = gd._fullData, fl = gd._fullLayout;
  if (!prev || !fd || !fl || spec.tpl !== prev.tpl || fd.length !== spec.data.length) return false;
  if (!spec.data.every((t) => (t.type === "bar" && t.orientation === "h") || (t.type === "scatter" && t.mode === "markers"))) return false;
  if (!spec.layout.yaxis || !Array.isArray(spec.layout.yaxis.tickvals) || !sameBut(spec.layout, prev.layout, "yaxis", "ticktext")) return false;
  const xa = fl.xaxis, ya = fl.yaxis;
  if (!xa || !ya || !xa.range) return false;
  const lo = Math.min(xa.range[0], xa.range[1]), hi = Math.max(xa.range[0], xa.range[1]);
  const fits = (v) => typeof v === "number" && isFinite(v) && v >= lo && v <= hi;
  if (!spec.data.every((t) => Array.isArray(t.x) && t.x.every(fits))) return false;
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

let rafPending = false;
function requestDraw() {
  if (rafPending) return;
  rafPending = true;
  requestAnimationFrame(() => { rafPending = false; drawNow(); });
}
function drawNow() {
  const t = P.t, fast = P.playing || P.dragging;   // stopped: every chart exact (Plotly.react)
  if (P.main) {
    for (const box of P.main.boxes) placeMarkers(box);
    updateBar();
  }
  if (P.params && P.params.log && PL) {
    for (const box of P.params.boxes) {
      const spec = specAt(P.params.log, box.name, t);
      if (!spec || (box.shown === spec && !(box.stale && !fast))) continue;
      if (swapIn(box, spec)) { box.shown = spec; box.stale = false; continue; }   // drawn ahead (Step)
      if (fast && (fastImages(box, spec) || fastBars(box, spec))) { box.shown = spec; box.stale = true; P.stats.fast++; continue; }
      box.shown = spec; box.stale = false;
      react(box.gd, spec);
    }
  }
  P.stats.draws++;
  if (t !== P.stats.lastDrawn) { P.stats.distinct++; P.stats.lastDrawn = t; }
}

function setT(t) {
  t = Math.max(0, Math.min(P.n - 1, t | 0));
  if (t === P.t) return;
  P.t = t;
  if (P.playing) P.revealed = Math.max(P.revealed, t);
  requestDraw();
}

// ---- the bar: Play/Pause, slider, read-out ----------------------------------------------------------
function updateBar() {
  const m = P.main;
  if (!m) return;
  const { play, slider, label } = m;
  const wantMax = String(Math.max(1, P.n - 1));
  if (slider.max !== wantMax) slider.max = wantMax;
  if (document.activeElement !== slider || P.playing) slider.value = String(P.t);
  slider.disabled = P.n <= 1;
  const playing = P.playing;
  if (m.shownPlaying !== playing) {
    m.shownPlaying = playing;
    play.innerHTML = playing
      ? '<span aria-hidden="true" class="nbp-icon">❚❚</span> Pause'
      : '<span aria-hidden="true" class="nbp-icon">▶</span> Play';
  }
  play.disabled = !playing && P.n <= 1 && P.done;
  const a = P.acc[P.t];
  // fixed width (CSS): a label that grew would shrink the slider under a dragging mouse
  label.textContent = `Iteration ${P.t} of ${P.n - 1}` +
    (a === null || a === undefined ? "" : ` · accuracy ${a}`);
  slider.setAttribute("aria-valuetext", `Iteration ${P.t} of ${Math.max(0, P.n - 1)}`);
  // the state in a sentence: announced when it settles (not five times a second while playing)
  const live = playing ? "off" : "polite";
  if (m.summary.getAttribute("aria-live") !== live) m.summary.setAttribute("aria-live", live);
  setText(m.summary, summaryText());
  for (const box of m.boxes.concat(P.params ? P.params.boxes : [])) describe(box);
  syncMetrics();
}

// The metrics row above the charts (st.metric, drawn by the server) names the iteration shown and
// its accuracy. While the browser plays or drags there is no server rerun, so the player writes the
// iteration it shows into them, with the server's own strings (P.acc, P.accDelta): one source.
function metricParts(prefix) {
  const m = [...document.querySelectorAll('[data-testid="stMetric"]')].find((e) => {
    const p = e.querySelector('[data-testid="stMetricLabel"] p');
    return p && p.textContent.trim().startsWith(prefix);
  });
  if (!m) return null;
  return { el: m, label: m.querySelector('[data-testid="stMetricLabel"] p'),
           value: m.querySelector('[data-testid="stMetricValue"] p'),
           delta: m.querySelector('[data-testid="stMetricDelta"] p') };
}
function setText(el, text) { if (el && el.textContent !== text) el.textContent = text; }
function fill(tpl) { return String(tpl).split("{t}").join(String(P.t)).split("{n}").join(String(Math.max(0, P.n - 1))); }
// The status line of the iteration shown, from the server's templates (dashboard/lesson/status.py: text()
// says the same): Running / Replaying while playing, the run's own status at its latest iteration,
// "Paused at" / "Showing" an earlier one.
function statusText() {
  const s = P.status;
  if (!s) return null;
  return fill(P.playing ? s.running : P.t >= s.latest ? s.at : s.back);
}
// "**Status:** …" is one paragraph: its text after the bold label is rewritten in place (the same text
// node, so the server's next render of it updates what is on screen)
function syncStatus() {
  const text = statusText();
  const p = text === null ? null : document.querySelector('.st-key-nbem_status [data-testid="stMarkdownContainer"] p');
  const node = p && p.lastChild;
  if (node && node.nodeType === 3 && node.nodeValue !== " " + text) node.nodeValue = " " + text;
}
// the stop rules' numbers of the step t-1 -> t (dashboard/lesson/panels/stop_rules.py draws them when the
// panels below the charts are drawn; in between, the iteration shown moves here)
function syncStopRules() {
  const s = P.stop, box = s && document.querySelector(".st-key-nbem_stop_rules");
  if (!box) return;
  const ms = box.querySelectorAll('[data-testid="stMetric"]');
  if (ms.length < 3) return;
  setText(ms[0].querySelector('[data-testid="stMetricLabel"] p'), fill(s.label));
  [s.rel, s.parameters, s.both_values].forEach((a, i) => {
    setText(ms[i].querySelector('[data-testid="stMetricValue"] p'), (a && a[P.t]) || "—");
  });
}
// "Showing iteration t of n" under the buttons: there while an earlier iteration than the latest is shown
function syncShowing() {
  const s = P.status, box = s && s.showing && document.querySelector(".st-key-nbem_showing");
  const p = box && box.querySelector("p");
  if (!p) return;
  const back = P.t < P.n - 1;
  box.classList.toggle("nbp-hidden", !back);
  if (back) setText(p, fill(s.showing));
}
function syncMetrics() {
  if (!P.main) return;
  syncStatus();
  syncStopRules();
  syncShowing();
  const it = metricParts("Iteration");
  if (it) setText(it.value, String(P.t));
  const ac = metricParts("Accuracy (t=");
  if (ac) {
    setText(ac.label, `Accuracy (t=${P.t})`);
    const a = P.acc[P.t];
    setText(ac.value, a === null || a === undefined ? "—" : a);
    const d = P.accDelta[P.t];
    if (d) setText(ac.delta, d);
  }
  watchSynced([document.querySelector(".st-key-nbem_status"), document.querySelector(".st-key-nbem_stop_rules"),
    document.querySelector(".st-key-nbem_showing"),
    it && it.el, ac && ac.el]);
}
// A server rerun redraws these with the iteration of the report it answers, which can be behind the one
// shown by the time it arrives (a drag goes on, Play moves on): they are written again in the next frame,
// with the slider and the charts (before the page is painted), so the page never shows two iterations.
// (Only what the server draws is watched: the writes change nothing the second time, and the observer
// settles at once.)
let syncObs = null, synced = [];
function watchSynced(els) {
  if (typeof MutationObserver === "undefined") return;
  els = els.filter(Boolean);
  if (els.length === synced.length && els.every((e, i) => e === synced[i])) return;
  if (!syncObs) syncObs = new MutationObserver(() => requestDraw());
  syncObs.disconnect();
  synced = els;
  for (const e of els) syncObs.observe(e, { subtree: true, childList: true, characterData: true, attributeFilter: ["class"] });
}

function report() {
  if (!P.main || !P.main.api) return;
  P.main.api.setStateValue("view", { run: P.run, t: P.t, revealed: P.revealed, playing: P.playing, play: P.playId });
}
let reportTimer = null;
function reportSoon(ms) {
  clearTimeout(reportTimer);
  reportTimer = setTimeout(report, ms);
}

function need() {
  if (P.done || !P.main || !P.main.api) return;
  const now = performance.now();
  if (P.pendingNeed && now - P.pendingNeed < 3000) return;
  P.pendingNeed = now;
  const chunk = Math.max(5, Math.ceil(P.fps * 1.5));
  P.main.api.setTriggerValue("need", { run: P.run, upto: P.n - 1 + chunk, t: P.t, revealed: P.revealed, play: P.playId });
}

function tick(now) {
  if (!P.playing) return;
  if (!P.main) {                       // the bar was re-created (a rerun moved it): carry on unless it is gone
    if (!P.goneAt) P.goneAt = now;
    if (now - P.goneAt > 1500) { note("player gone"); P.playing = false; return; }
  } else P.goneAt = 0;
  const interval = 1000 / P.fps;
  if (now - P.lastAdvance >= interval - 4) {
    if (P.t < P.n - 1) {
      P.lastAdvance = P.lastAdvance && now - P.lastAdvance < 2 * interval ? P.lastAdvance + interval : now;
      setT(P.t + 1);
    } else if (P.done) {
      pause("end");
      return;
    }
  }
  if (!P.done && P.n - 1 - P.t < Math.max(3, P.fps)) need();
  requestAnimationFrame(tick);
}

function note(what) {
  const log = P.stats.log;
  log.push(`${Math.round(performance.now())} ${what} t=${P.t} n=${P.n}`);
  if (log.length > 60) log.splice(0, log.length - 60);
}

function play() {
  if (P.playing) return;
  note("play");
  P.playId++;
  if (P.t >= P.n - 1 && P.done) P.t = 0;   // at the end of a finished run: play it again from the start
  P.playing = true;
  P.revealed = Math.max(P.revealed, P.t);
  P.lastAdvance = 0;
  report();
  requestDraw();
  requestAnimationFrame(tick);
}
function pause(why) {
  if (!P.playing) return;
  note("pause " + (why || ""));
  P.playing = false;
  P.revealed = Math.max(P.revealed, P.t);
  clearTimeout(reportTimer);
  report();
  requestDraw();
}

// ---- mounts -------------------------------------------------------------------------------------------------
function chartBox(parent, name) {
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
  gd.__nbpBox = box;
  details.addEventListener("toggle", () => { if (details.open) fillTable(box); });
  return box;
}

// ---- the panels below the charts: drawn when they are in view ------------------------------------------
// The documents, the maths, the stop rules' numbers and the exports are a fragment of their own on the
// server (role "lower": a marker mounted at their top says which state they show, data.drawn). They are
// built only when the reader can see them: when they are in view (or within 200 px of it) and show another
// state than the charts (the main mount's data.lower), the player asks for them (trigger "refresh": one
// rerun of their fragment). A Step, a drag or Play with them out of view costs the server nothing there.
// On a session's first render they wait until every chart is drawn (or 6 s), so the first second goes to
// the charts. The request waits until the app is idle (Streamlit's script state on the app's root, the
// attribute the Step button's busy style reads too): sent during a run, it would cut that run short.
const PAINT_WAIT_MS = 6000;
// Quiet time after the last run before the panels are asked for: a clicker's next key press (Step, E, M)
// comes within it and goes first, instead of meeting the panels' own rerun.
const LOWER_QUIET_MS = 900;
let idleWatch = null, idleSince = 0, quietTimer = null;
function appIdle() {
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app && app.getAttribute("data-test-script-state");
  if (app && !idleWatch && typeof MutationObserver !== "undefined") {
    idleWatch = new MutationObserver(() => {
      const now = app.getAttribute("data-test-script-state");
      if (!now || now === "notRunning") idleSince = performance.now();
      lowerCheck();
    });
    idleWatch.observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
  }
  if (state && state !== "notRunning") return false;
  const wait = idleSince + LOWER_QUIET_MS - performance.now();
  if (wait > 0) {                    // asked again once the page has been quiet long enough
    if (!quietTimer) quietTimer = setTimeout(() => { quietTimer = null; lowerCheck(); }, wait + 10);
    return false;
  }
  return true;
}
function lowerCheck() {
  const v = P.lower, m = P.main;
  if (!v || !m || !m.lowerKey) return;
  const stale = v.drawn !== m.lowerKey;
  if (v.box) {
    v.box.classList.toggle("nbp-stale", stale && v.drawn !== null);
    if (stale) v.box.setAttribute("aria-busy", "true"); else v.box.removeAttribute("aria-busy");
  }
  if (!stale || !v.visible || !P.firstPaint || P.playing || P.dragging || v.asked === m.lowerKey) return;
  if (!appIdle()) return;             // asked again when the run ends (idleWatch)
  v.asked = m.lowerKey;
  note("lower: refresh " + m.lowerKey);
  v.api.setTriggerValue("refresh", m.lowerKey);
}

function mountLower(api, d) {
  const root = api.parentElement;
  let v = root.__nbp;
  if (!v) v = root.__nbp = { visible: typeof IntersectionObserver === "undefined", asked: null, box: null, obs: null };
  v.api = api;
  v.drawn = d.drawn === undefined ? null : d.drawn;
  P.lower = v;
  // the whole fragment (its container has the class st-key-nbem_lower) is what must be in view
  const box = (root.closest && root.closest('[class*="st-key-nbem_lower"]')) || root;
  if (typeof IntersectionObserver !== "undefined" && v.box !== box) {
    if (!v.obs) v.obs = new IntersectionObserver((entries) => {
      v.visible = entries.some((e) => e.isIntersecting);
      lowerCheck();
    }, { rootMargin: "200px 0px 200px 0px" });
    if (v.box) v.obs.unobserve(v.box);
    v.obs.observe(box);
  }
  v.box = box;
  lowerCheck();
}

function watchPaint(d) {
  if (P.paintedFor === d.sid) return;
  P.paintedFor = d.sid;
  const t0 = performance.now();
  const drawn = (v) => v && v.boxes.length > 0 && v.boxes.every((b) => b.gd._fullLayout);
  const check = () => {
    const done = drawn(P.main) && drawn(P.params);
    if (!done && performance.now() - t0 < PAINT_WAIT_MS) { requestAnimationFrame(check); return; }
    note(done ? "painted" : "painted: timeout");
    P.stats.painted = performance.now();
    // one more frame: what was just drawn reaches the screen before the panels below are asked for
    requestAnimationFrame(() => setTimeout(() => { P.firstPaint = true; lowerCheck(); }, 0));
  };
  requestAnimationFrame(check);
}

function failed(root, api, err) {
  const msg = String(err && err.message ? err.message : err);
  const note = document.createElement("div");
  note.className = "nbp-error";
  note.textContent = "The interactive charts could not load here (" + msg + "); the page falls back to the server's charts.";
  root.appendChild(note);
  try { api.setTriggerValue("failed", msg); } catch (e) { /* nothing more to do */ }
}

// "P" plays and pauses (the clicker shortcut of the server's Play button, which the player replaces)
let keysHooked = false;
function hookKeys() {
  if (keysHooked) return;
  keysHooked = true;
  // Step: the server's button (and its shortcuts → and Page Down, which Streamlit handles without a
  // click) still goes to the server; the charts of the next iteration are shown here first
  document.addEventListener("click", (e) => {
    if (e.target && e.target.closest && e.target.closest(".st-key-step button")) stepNow("click");
  }, true);
  document.addEventListener("keydown", (e) => {
    if ((e.key === "ArrowRight" || e.key === "PageDown") && !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey
        && !isTyping(e.target)) stepNow("key");
  }, true);
  document.addEventListener("keyup", lamSettled, true);
  document.addEventListener("pointerup", lamSettled, true);
  document.addEventListener("keydown", (e) => {
    P.lastInputPlay = false;
    if (e.key !== "p" && e.key !== "P") return;
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || !P.main) return;
    const el = e.target;
    const tag = el && el.tagName ? el.tagName.toLowerCase() : "";
    if ((tag === "input" && el.type !== "range") || tag === "textarea" || tag === "select" || (el && el.isContentEditable)) return;
    e.preventDefault();
    P.lastInputPlay = !P.playing;
    if (P.playing) pause("key"); else play();
  }, true);
  // the end of a drag (wherever the button is released): the charts drawn cheaply get their exact draw
  const dragEnd = () => { if (P.dragging) { P.dragging = false; requestDraw(); } };
  document.addEventListener("pointerup", dragEnd, true);
  document.addEventListener("pointercancel", dragEnd, true);
  // what the user did last: Play, or something else (Reset, a setting). A new run that arrives
  // after Play was the last input (Home then P, faster than the server answers) is played;
  // one that arrives after a later Reset or setting stops the play, as Reset promises.
  document.addEventListener("pointerdown", (e) => {
    P.lastInputPlay = !!(P.main && P.main.play.contains(e.target));
  }, true);
}

function mountMain(api, d) {
  hookKeys();
  const root = api.parentElement;
  let m = root.__nbp;
  if (!m) {
    const el = document.createElement("div");
    el.className = "nbp-root" + (d.classroom ? " nbp-classroom" : "");
    el.innerHTML = '<div class="nbp-bar"><button type="button" class="nbp-play" data-testid="nbpPlay"></button>' +
      '<input type="range" class="nbp-slider" min="0" max="1" step="1" value="0" aria-label="Show iteration">' +
      '<span class="nbp-label" aria-hidden="true"></span></div>' +
      '<p class="nbp-summary" role="status" aria-live="polite" data-testid="nbpSummary"></p><div class="nbp-grid"></div>';
    root.appendChild(el);
    m = root.__nbp = { el, play: el.querySelector(".nbp-play"), slider: el.querySelector(".nbp-slider"),
      label: el.querySelector(".nbp-label"), summary: el.querySelector(".nbp-summary"),
      grid: el.querySelector(".nbp-grid"), boxes: [], shownPlaying: null };
    m.play.addEventListener("click", () => (P.playing ? pause("click") : play()));
    m.slider.addEventListener("input", () => {
      if (P.playing) { note("drag stops play"); P.playing = false; P.revealed = Math.max(P.revealed, P.t); }
      setT(+m.slider.value);
    });
    m.slider.addEventListener("change", () => reportSoon(250));
    m.slider.addEventListener("pointerdown", () => { P.dragging = true; });
    // keys on the slider move the slider only: Streamlit's button shortcuts (→ Step, Home Reset) must not see them
    m.slider.addEventListener("keydown", (e) => {
      if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"].includes(e.key)) {
        e.stopPropagation();
        if (P.playing) pause("key");
      }
    });
  }
  m.api = api;
  P.main = m;
  watchPaint(d);
  m.el.classList.toggle("nbp-classroom", !!d.classroom);
  P.classroom = !!d.classroom;

  // run / frames bookkeeping
  const newRun = P.run !== d.run;
  if (newRun) {                       // a new run (Reset, other data): Play stops, as Reset promises …
    const playOn = P.playing && P.lastInputPlay;   // … unless Play was pressed after what made it
    if (P.playing) note(playOn ? "new run: play on" : "new run: stop");
    P.run = d.run; P.seq = -1; P.revealed = 0;
    if (playOn) { P.t = 0; P.playId++; P.lastAdvance = 0; P.pendingNeed = 0; reportSoon(0); }
    else P.playing = false;
  }
  P.sid = d.sid;
  if (d.tpl) P.tpl = d.tpl;
  if (d.n !== P.n || d.done !== P.done) P.pendingNeed = 0;   // the frames asked for have come
  P.n = d.n; P.done = d.done; P.fps = d.fps; P.acc = d.acc || []; P.accDelta = d.accDelta || []; P.words = d.words || [];
  P.status = d.status || null; P.stop = d.stop || null;
  P.next = d.next ? Object.assign({ run: d.run }, d.next) : null;
  P.lam = d.lam || null;
  m.lowerKey = d.lower || null;
  note(`data n=${d.n} seq=${d.seq}/${P.seq} t=${d.t}`);
  if (d.seq !== P.seq) {              // the server moved the run (Step, Reset, convergence, a new run)
    P.seq = d.seq;
    if (!P.playing) { P.t = Math.min(d.t, P.n - 1); P.revealed = Math.max(d.revealed, P.t); }
  }
  P.t = Math.min(P.t, P.n - 1);
  P.revealed = Math.min(Math.max(P.revealed, 0), P.n - 1);

  // one box per time-series chart, in the server's order
  const names = d.series.map((s) => s.name);
  if (m.boxes.map((b) => b.name).join() !== names.join()) {
    m.grid.innerHTML = "";
    m.boxes = names.map((n) => chartBox(m.grid, n));
  }
  m.grid.style.gridTemplateColumns = `repeat(${d.columns}, minmax(0, 1fr))`;
  loadPlotly(d.plotly).then(() => {
    d.series.forEach((s, i) => {
      const box = m.boxes[i];
      if (!box || box.ver === s.ver) return;
      box.ver = s.ver;
      box.hook = () => {   // markers follow the visible chart's axes (each buffer hooked once)
        if (!box.gd.__nbpHooked) { box.gd.__nbpHooked = true; box.gd.on("plotly_afterplot", () => placeMarkers(box)); }
      };
      react(box.gd, s.spec).then(() => { box.hook(); placeMarkers(box); });
    });
    requestDraw();
    schedulePrerender();
    if (P.playing) requestAnimationFrame(tick);
  }).catch((e) => failed(root, api, e));
  requestDraw();
  lowerCheck();
}

function mountParams(api, d) {
  const root = api.parentElement;
  let v = root.__nbp;
  if (!v) {
    const el = document.createElement("div");
    el.className = "nbp-root nbp-params";
    root.appendChild(el);
    v = root.__nbp = { el, boxes: [], log: null, layout: null };
  }
  v.api = api;
  P.params = v;
  const layout = d.charts.join() + "|" + d.widths.join();
  if (v.layout !== layout) {
    v.layout = layout;
    v.el.innerHTML = "";
    v.el.style.gridTemplateColumns = d.widths.map((w) => `minmax(0, ${w}fr)`).join(" ");
    v.boxes = d.charts.map((n) => chartBox(v.el, n));
    for (const b of v.boxes) b.params = true;
  }
  const log = mergeLog(d);
  if (!log) {                          // frames missing (a lost update): ask for all of them again
    api.setTriggerValue("resync", d.token);
    return;
  }
  v.log = log;
  loadPlotly(d.plotly).then(() => {
    // no forced redraw: a frame the browser already drew keeps its spec object (specAt caches it on
    // the frame), so a rerun that changed nothing here (λ, a table, a setting) costs no Plotly.react;
    // new or re-sent frames are new objects and are drawn
    requestDraw();
    schedulePrerender();
  }).catch((e) => failed(root, api, e));
}

export default function (component) {
  const { parentElement, setStateValue, setTriggerValue } = component;
  // the app sends its data as one JSON text (dashboard/lesson/player/__init__.py: _mount); the offline
  // file and the notebook widget pass the object itself
  const data = typeof component.data === "string" ? JSON.parse(component.data) : component.data;
  if (!data) return;
  const api = { parentElement, setStateValue, setTriggerValue };
  try {
    if (data.role === "preload") { note("preload"); loadPlotly(data.plotly).catch(() => {}); return; }
    if (data.role === "main") mountMain(api, data);
    else if (data.role === "lower") mountLower(api, data);
    else mountParams(api, data);
  } catch (e) {
    failed(parentElement, api, e);
  }
  return () => {
    const v = parentElement.__nbp;
    if (P.main === v) { note("unmount"); P.main = null; }
    if (P.params === v) P.params = null;
    if (P.lower === v) { if (v.obs) v.obs.disconnect(); v.obs = null; v.box = null; P.lower = null; }
  };
}

export { decode };   // tests/app/test_player_protocol.py runs it under node against payload.py's encoder
