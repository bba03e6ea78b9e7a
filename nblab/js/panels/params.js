// The parameters at the iteration shown (dashboard/lesson/panels/parameters.py, specs.param_spec):
// the features that separate the classes most as grouped bars with the previous iteration as a tick
// (β of the Bernoulli and multinomial models, the categorical θ rows, the Gaussian means), every
// feature as a heatmap, image data drawn as one picture per class, the categorical θ as one table
// per feature; and, when the data carries the parameters that generated it, the estimate against
// that truth. Every chart has its numbers in a table beside it.
import {
  h, table, section, fmt, pyFixed, classColor, fontSize, figureLayout, drawChart, plotText, stableArgsort,
  argmaxRow, GREY, classroom, termLabel, categoriesOf, imageShapeOf, trueLabels, modelName,
} from "./common.js";
import { alignClusters } from "../align.js";
import { getModel } from "../models.js";

//: the panel's name where the page speaks of it (a note when it cannot start)
export const TITLE = "The parameters";

export const IMAGES = "Images";
export const TOP = "Top features";
export const HEATMAP = "Heatmap";
export const TABLES = "Tables";

// ---- pure parts ------------------------------------------------------------------------------------

/** A snapshot's parameters as one (R × K) table, as nbcore's EventModel.param_table: the model's own
 * paramTable hook (nblab/js/model_*.js), {mat (R*K), R, K, rows (labels), label, short, logScale, zmin, zmax}. */
export function paramTable(params, model, featureNames, categories, K) {
  return getModel(model).paramTable(params, featureNames, categories, K);
}

/** dashboard.charts.lesson.top_separating: the rows whose values differ most between classes
 * (the spread of log values, clipped at 1e-12, for probabilities; of the values themselves for
 * means), largest first, ties in row order. */
export function topSeparating(mat, R, K, n = 15, logScale = true) {
  const spread = new Float64Array(R);
  for (let r = 0; r < R; r++) {
    let lo = Infinity, hi = -Infinity, nan = false;
    for (let k = 0; k < K; k++) {
      let v = mat[r * K + k];
      if (Number.isNaN(v)) { nan = true; continue; }
      if (logScale) v = Math.log(Math.max(v, 1e-12));
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    spread[r] = nan ? NaN : -(hi - lo);
  }
  return stableArgsort(spread).slice(0, Math.min(n, R));
}

/** The views this data offers, the first the default (specs.param_view_options; the categorical
 * model's θ also as tables, one per feature). */
export function viewOptions(imageShape, model) {
  return (imageShape ? [IMAGES] : []).concat(getModel(model).inputKind === "categories" ? [TABLES] : [], [TOP, HEATMAP]);
}

/** The generating parameters when the run uses the generating model (specs.truth_of), as a flat
 * (V*K) array, else null. */
export function truthOf(truth, model, V, K) {
  if (!truth || !truth.beta || truth.model !== model) return null;
  const flat = Array.isArray(truth.beta[0]) ? truth.beta.flat() : Array.from(truth.beta);
  return flat.length === V * K ? Float64Array.from(flat) : null;
}

/** Columns of a (R*K) matrix reordered so column k is label k (specs.aligned): only when EM saw no
 * label at all and some true label is known. */
export function alignedColumns(mat, R, K, yObs, yTrue, posterior) {
  if (yObs.some((y) => y >= 0)) return mat;
  const yt = [], pr = [];
  for (let i = 0; i < yTrue.length; i++) if (yTrue[i] >= 0) { yt.push(yTrue[i]); pr.push(argmaxRow(posterior, i, K)); }
  if (!yt.length) return mat;
  const mapping = alignClusters(yt, pr, K);
  const out = new Float64Array(R * K);
  for (let r = 0; r < R; r++) for (let k = 0; k < K; k++) out[r * K + mapping[k]] = mat[r * K + k];
  return out;
}

export function rmse(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] - b[i]) ** 2;
  return Math.sqrt(s / a.length);
}

// ---- chart specs (dashboard/charts/lesson.py) --------------------------------------------------------

export function barsSpec(tab, prev, classNames, nTop, fs) {
  const { mat, K, rows } = tab;
  const idx = topSeparating(mat, tab.R, K, nTop, tab.logScale).reverse();
  const n = idx.length, width = 0.8 / K;
  const ypos = idx.map((_, i) => i);
  const names = idx.map((j) => plotText(termLabel(rows[j])));
  const data = [];
  for (let k = 0; k < K; k++) {
    const off = (k - (K - 1) / 2) * width;
    data.push({ type: "bar", y: ypos.map((y) => y + off), x: idx.map((j) => mat[j * K + k]), orientation: "h",
      width: width * 0.95, name: plotText(classNames[k]), marker: { color: classColor(k) }, customdata: names,
      hovertemplate: "%{customdata}: %{x:.3f}<extra>" + plotText(classNames[k]) + "</extra>" });
    if (prev) {
      data.push({ type: "scatter", y: ypos.map((y) => y + off), x: idx.map((j) => prev.mat[j * K + k]), mode: "markers",
        showlegend: k === 0, name: "previous iteration", legendgroup: "prev",
        marker: { symbol: "line-ns", size: Math.max(10, Math.trunc(26 * width * 2)), line: { width: 3, color: "rgba(40,40,40,0.45)" } },
        hovertemplate: "previous: %{x:.3f}<extra></extra>" });
    }
  }
  const layout = { bargap: 0.1,
    yaxis: { tickmode: "array", tickvals: ypos, ticktext: names, tickfont: { size: fs }, range: [-0.6, n - 0.4] },
    xaxis: { title: { text: tab.label }, rangemode: "tozero" } };
  const height = Math.min(Math.max(340, 90 + (26 + 8 * K) * n), 950);
  return { data, layout: figureLayout(layout, `Features that separate the classes most (top ${n})`, fs, height,
    legendRowsFor(classNames, !!prev)), idx: idx.slice().reverse() };
}

function legendRowsFor(classNames, prev) {
  const chars = classNames.reduce((s, c) => s + String(c).length + 6, 0) + (prev ? 22 : 0);
  return Math.max(1, Math.ceil(chars / 45));
}

export function heatmapSpec(tab, classNames, fs, maxRows = 400) {
  const order = topSeparating(tab.mat, tab.R, tab.K, Math.min(maxRows, tab.R), tab.zmin === 0);
  const trace = { type: "heatmap", z: order.map((j) => Array.from(tab.mat.subarray(j * tab.K, (j + 1) * tab.K))),
    x: classNames.map((c) => plotText(c)), y: order.map((j) => plotText(termLabel(tab.rows[j]))), colorscale: "Viridis",
    colorbar: { title: { text: tab.short } }, hovertemplate: "%{y} | %{x}: %{z:.3f}<extra></extra>" };
  if (tab.zmin !== null) trace.zmin = tab.zmin;
  if (tab.zmax !== null) trace.zmax = tab.zmax;
  const height = Math.min(1400, Math.max(360, 120 + 16 * order.length));
  const title = "All features" + (order.length < tab.R ? ` (top ${order.length} of ${tab.R})` : "");
  return { data: [trace], layout: figureLayout({ yaxis: { autorange: "reversed", tickfont: { size: Math.max(10, fs - 4) } } },
    title + ", sorted by separation", fs, height), order };
}

export function imagesSpec(tab, shape, classNames, fs) {
  const K = tab.K, cols = Math.min(K, 5), rowsN = Math.ceil(K / cols);
  const hs = 0.02, vs = 0.08, w = (1 - hs * (cols - 1)) / cols, hh = (1 - vs * (rowsN - 1)) / rowsN;
  const data = [], layout = {}, annotations = [];
  const [H, W] = shape;
  for (let k = 0; k < K; k++) {
    const r = Math.floor(k / cols), c = k % cols, n = k === 0 ? "" : String(k + 1);
    const x0 = c * (w + hs), y1 = 1 - r * (hh + vs);
    const z = [];
    for (let a = 0; a < H; a++) { const row = []; for (let b = 0; b < W; b++) row.push(tab.mat[(a * W + b) * K + k]); z.push(row); }
    const trace = { type: "heatmap", z, colorscale: "Greys", showscale: k === 0, colorbar: { title: { text: tab.short } },
      hovertemplate: "row %{y}, col %{x}: %{z:.2f}<extra></extra>", xaxis: "x" + n, yaxis: "y" + n };
    if (tab.zmin !== null) trace.zmin = tab.zmin;
    if (tab.zmax !== null) trace.zmax = tab.zmax;
    data.push(trace);
    layout["xaxis" + n] = { anchor: "y" + n, domain: [x0, Math.min(1, x0 + w)], showticklabels: false };
    layout["yaxis" + n] = { anchor: "x" + n, domain: [Math.max(0, y1 - hh), y1], showticklabels: false, autorange: "reversed", scaleanchor: "x" + n };
    annotations.push({ text: `class ${plotText(classNames[k])}`, x: x0 + w / 2, y: y1, xref: "paper", yref: "paper",
      xanchor: "center", yanchor: "bottom", showarrow: false, font: { size: fs } });
  }
  layout.annotations = annotations;
  return { data, layout: figureLayout(layout, `${tab.short} of each class as an ${H}×${W} image`, fs, 260 * rowsN + 60) };
}

export function truthSpec(trueMat, estMat, K, classNames, fs) {
  const data = [];
  let lo = 0, hi = -Infinity;
  for (const v of trueMat) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  for (const v of estMat) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  hi *= 1.08;
  const R = trueMat.length / K;
  for (let k = 0; k < K; k++) {
    const x = [], y = [];
    for (let r = 0; r < R; r++) { x.push(trueMat[r * K + k]); y.push(estMat[r * K + k]); }
    data.push({ type: "scatter", x, y, mode: "markers", name: plotText(classNames[k]),
      marker: { color: classColor(k), size: 9, opacity: 0.8 } });
  }
  data.push({ type: "scatter", x: [lo, hi], y: [lo, hi], mode: "lines", name: "perfect", line: { color: GREY, dash: "dot" } });
  const e = rmse(trueMat, estMat);
  const layout = { xaxis: { title: { text: "true β" }, range: [lo, hi] },
    yaxis: { title: { text: "estimated β" }, range: [lo, hi], scaleanchor: "x" } };
  return { data, layout: figureLayout(layout, `Estimate vs truth (RMSE ${pyFixed(e, 3)})`, fs, 420), rmse: e };
}

// ---- the panel ---------------------------------------------------------------------------------------

/** The panel's parts: the view picker, the caption, the chart, the tables, the numbers, the truth box. */
function buildParams(el) {
  const { body } = section(el, "The parameters θ at this iteration", "nbl-params");
  const picker = h("div", { class: "nbl-segmented", role: "group", "aria-label": "Parameters view" });
  const caption = h("p", { class: "nbl-caption" });
  const chart = h("div", { class: "nbl-chart", role: "img" });
  const tables = h("div", { class: "nbl-param-tables" });
  const numbers = h("details", { class: "nbl-numbers" });
  const truthBox = h("div", { class: "nbl-truth", hidden: true });
  const truthChart = h("div", { class: "nbl-chart", role: "img" });
  const truthCaption = h("p", { class: "nbl-caption" });
  const truthNumbers = h("details", { class: "nbl-numbers" });
  truthBox.append(h("h3", { text: "Estimate against the truth" }), truthCaption, truthChart, truthNumbers);
  const main = h("div", { class: "nbl-params-main" }, picker, caption, chart, tables, numbers);
  body.append(h("div", { class: "nbl-params-row" }, main, truthBox));
  return { picker, caption, chart, tables, numbers, truthBox, truthChart, truthCaption, truthNumbers };
}

function setPick(st, p) {
  st.pick = p;
  for (const b of st.picker.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.view === p));
  if (st.last) drawParams(st, st.last);
}

/** The picker's buttons: one per view the data and the model allow (rebuilt when they change). */
function drawPicker(st, opts) {
  if (opts.join("|") === st.options.join("|")) return;
  st.options = opts;
  st.picker.textContent = "";
  for (const o of opts) st.picker.append(h("button", { type: "button", class: "nbl-seg", "data-view": o, "aria-pressed": "false",
    onclick: () => setPick(st, o) }, o));
  if (!opts.includes(st.pick)) st.pick = opts[0];
  for (const b of st.picker.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.view === st.pick));
}

function drawParams(st, view) {
  const { prep, run, t } = view;
  const model = modelName(view);
  const K = prep.K, data = st.data;
  const cats = categoriesOf(prep, data);
  const shape = imageShapeOf(prep, data);
  drawPicker(st, viewOptions(shape, model));
  const snap = view.snap || run.history[t];
  const tab = paramTable(snap.params, model, prep.featureNames, cats, K);
  const prevSnap = t > 0 ? run.history[t - 1] : null;
  const prev = prevSnap ? paramTable(prevSnap.params, model, prep.featureNames, cats, K) : null;
  const fs = fontSize(view.classroom);
  const truth = truthOf(prep.truth || data.truth, model, prep.featureNames.length, K);
  const pick = st.pick;
  st.truthBox.hidden = !truth || !getModel(model).paramNames.includes("beta");   // the truth drawn is β
  st.chart.hidden = pick === TABLES;
  st.tables.hidden = pick !== TABLES;
  st.numbers.hidden = pick === TABLES;
  st.numbers.textContent = "";
  if (pick === TABLES) {
    st.caption.textContent = `θ_j[value, class] = p(value | class) at t = ${t}: one table per feature, each column sums to 1.`;
    drawTables(st.tables, snap.params.theta, prep.featureNames, cats, prep.classNames, prev && prevSnap.params.theta);
  } else {
    drawView(st, view, { tab, prev, shape, fs });
  }
  if (!st.truthBox.hidden) drawTruth(st, view, tab, truth, fs);
}

/** The chart of the picked view (images, heatmap or the top features' bars) and its numbers. */
function drawView(st, view, { tab, prev, shape, fs }) {
  const { prep, t } = view;
  const K = prep.K, names = prep.classNames;
  const { caption, chart, numbers, ctx } = st;
  if (st.pick === IMAGES) {
    const s = imagesSpec(tab, shape, names, fs);
    caption.textContent = `${tab.label} at t = ${t}, each class drawn as a ${shape[0]}×${shape[1]} image (dark = high).`;
    chart.setAttribute("aria-label", `Images: ${tab.short} of each class at iteration ${t}`);
    drawChart(ctx, chart, s.data, s.layout);
    numbers.append(h("summary", { text: "The numbers as a table (top separating features)" }),
      valuesTable(tab, prev, topSeparating(tab.mat, tab.R, K, 12, tab.logScale), names));
  } else if (st.pick === HEATMAP) {
    const s = heatmapSpec(tab, names, fs);
    caption.textContent = `${tab.label} at t = ${t}: every feature and class, the most separating first.`;
    chart.setAttribute("aria-label", `Heatmap: ${tab.short} of every feature and class at iteration ${t}`);
    drawChart(ctx, chart, s.data, s.layout);
    numbers.append(h("summary", { text: "The numbers as a table (top 40)" }), valuesTable(tab, prev, s.order.slice(0, 40), names));
  } else {
    const s = barsSpec(tab, prev, names, view.classroom ? 10 : 12, fs);
    const top = s.idx[0];
    caption.textContent = `${tab.label} at t = ${t}` + (prev ? "; the grey tick on each bar is t − 1." : ".");
    chart.setAttribute("aria-label", `Bar chart: the ${s.idx.length} features that separate the classes most at iteration ${t}` +
      (top === undefined ? "" : `; the first is “${tab.rows[top]}”`));
    drawChart(ctx, chart, s.data, s.layout);
    numbers.append(h("summary", { text: "The numbers as a table" }), valuesTable(tab, prev, s.idx, names));
  }
}

function drawTruth(st, view, tab, tb, fs) {
  const { prep, run, t } = view;
  const K = prep.K;
  const post = view.posterior || run.posterior(t);
  const est = alignedColumns(tab.mat, tab.R, K, Array.from(prep.yObs), Array.from(trueLabels(prep)), post);
  const s = truthSpec(tb, est, K, prep.classNames, fs);
  st.truthCaption.textContent = `Each point is one word and class: the β that generated the data against EM's at t = ${t}. ` +
    `On the dotted line the estimate is exact (RMSE ${pyFixed(s.rmse, 3)}).`;
  st.truthChart.setAttribute("aria-label", `Scatter: estimated β against the true β at iteration ${t}, RMSE ${pyFixed(s.rmse, 3)}`);
  drawChart(st.ctx, st.truthChart, s.data, s.layout);
  st.truthNumbers.textContent = "";
  const rows = [];
  for (let r = 0; r < tab.R; r++) {
    rows.push([tab.rows[r], ...Array.from({ length: K }, (_, k) => `${pyFixed(tb[r * K + k], 3)} → ${pyFixed(est[r * K + k], 3)}`)]);
  }
  st.truthNumbers.append(h("summary", { text: "The numbers as a table (true → estimated)" }),
    table({ head: ["feature", ...prep.classNames.map((c) => `β(${c})`)], rows }));
}

export function mount(el, ctx) {
  const st = buildParams(el);
  Object.assign(st, { ctx, data: (ctx && ctx.data) || {}, pick: null, last: null, options: [] });
  return {
    update(view) {
      st.last = view;
      if (!view || !view.run || !view.prep) return;
      classroom(el, view.classroom);
      drawParams(st, view);
    },
  };
}

function valuesTable(tab, prev, idx, names) {
  const K = tab.K;
  const head = ["feature", ...names.map((c) => `${tab.short}(${c})`)];
  if (prev) head.push(...names.map((c) => `${tab.short}(${c}) at t − 1`));
  const rows = Array.from(idx, (j) => {
    const r = [termLabel(tab.rows[j])];
    for (let k = 0; k < K; k++) r.push({ text: fmt(tab.mat[j * K + k], 3), class: "nbl-num" });
    if (prev) for (let k = 0; k < K; k++) r.push({ text: fmt(prev.mat[j * K + k], 3), class: "nbl-num" });
    return r;
  });
  return table({ head, rows });
}

function drawTables(box, theta, featureNames, cats, names, prevTheta) {
  box.textContent = "";
  const K = names.length;
  theta.forEach((th, j) => {
    const D = th.length / K;
    const rows = [];
    for (let d = 0; d < D; d++) {
      const label = cats && cats[j] ? String(cats[j][d]) : String(d);
      const r = [label];
      for (let k = 0; k < K; k++) {
        const v = th[d * K + k];
        const was = prevTheta ? prevTheta[j][d * K + k] : null;
        r.push({ text: fmt(v, 3), class: "nbl-num",
          attrs: was === null ? null : { title: `t − 1: ${fmt(was, 3)}` } });
      }
      rows.push(r);
    }
    box.append(table({ caption: `θ for ${featureNames[j]}`, head: ["value", ...names.map((c) => `p(· | ${c})`)], rows,
      className: "nbl-table nbl-theta" }));
  });
}
