// The lab's time-series charts, as the app's lesson view draws them (dashboard/charts/lesson.py):
//   * "alpha": the class priors α per class against the iteration, λ changes marked;
//   * "acc":   accuracy on the hidden labels against the three supervised baselines, each named with its
//              accuracy: supervised NB at each λ segment's λ (a step, labelled, at a λ change mid-run),
//              supervised NB at the λ leave-one-out picks on the labelled rows, and the majority class;
//   * "ll":    the MAP objective (climbs within each λ: broken at a λ change; flagged if it goes down) over
//              the log-likelihood.
// Each chart is a named figure (role="figure", aria-label, a summary sentence with its numbers under it,
// its data as a table behind "Data as a table"); plotly's SVG is hidden from screen readers.
//
// The spec builders are pure (node's tests call them). The figures redraw with Plotly.react only when the
// run changes (a step, a λ change, a new run); the iteration on screen is a dotted line moved over the
// plot (a div, no plotly call), so dragging the slider or replaying the run costs no redraw.

import { el } from "./dom.js";

export const CLASS_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
  "#D55E00", "#F0E442", "#000000", "#882255", "#004400"];
export const WARN = "#D55E00";        // the supervised line, the "went down" markers
export const WARN_TEXT = "#B34700";   // WARN as text on white (5.5:1)
export const GREY = "#767676";        // 4.5:1 on white
const MINUS = "\u2212";
export const classColor = (k) => CLASS_COLORS[k % CLASS_COLORS.length];
export const fontSize = (classroom) => (classroom ? 22 : 15);

// ---- helpers as dashboard/charts/theme.py --------------------------------------------------------------

/** Text from the data as chart text (dashboard.ui.derive.plot_text): one line, cut, plotly's markup
 * characters as character references (shown as the characters themselves, never as markup). */
export function plotText(text, limit = 60) {
  let s = String(text).replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ");
  const cp = Array.from(s);
  if (cp.length > limit) s = cp.slice(0, limit - 1).join("") + "…";
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\$/g, "&#36;").replace(/%/g, "&#37;");
}

/** Rows a horizontal legend of `names` takes in a chart `width` px wide (theme.legend_rows). */
export function legendRows(names, fs, width) {
  const room = Math.max(120, width - 60);
  let rows = names.length ? 1 : 0, used = 0;
  for (const n of names) {
    const w = 45 + 0.55 * fs * String(n).length;
    if (used && used + w > room) { rows++; used = 0; }
    used += w;
  }
  return rows;
}

/**
 * Title in a band at the top, the legend in a band under it (theme.figure_spec).
 * `fixed`: { l, b } margins the chart's tick labels and axis titles are known to fit in (their widths are
 * known: α's "0.15", the accuracy's "100%", whole iterations): those axes are laid out once, without
 * plotly's automargin, which measures the labels and lays the chart out a second time (half of a
 * redraw). Axes not covered (the objective's y axes, whose labels depend on the numbers) keep automargin.
 */
export function figureLayout(layout, title, fs, height, rows = 1, fixed = null) {
  const titleBand = Math.trunc((fs + 4) * 1.6) + 8;
  const legendBand = rows ? Math.trunc(fs * 1.7) * rows + 6 : 0;
  const total = height + Math.max(0, fs - 15) * 12 + Math.trunc(fs * 1.7) * Math.max(0, rows - 1);
  const margin = { l: 10, r: 10, t: titleBand + legendBand, b: 10 };
  if (fixed) {
    if (fixed.l) margin.l = fixed.l;
    if (fixed.b) margin.b = fixed.b;
  }
  const out = Object.assign({}, layout, {
    title: { text: `<b>${title}</b>`, font: { size: fs + 4 }, x: 0, xanchor: "left", y: 1.0, yref: "container", yanchor: "top", pad: { t: 8 } },
    font: { size: fs },
    height: total,
    margin,
    legend: { orientation: "h", yref: "container", yanchor: "top", y: Math.min(1, Math.max(0, 1 - titleBand / total)),
      xanchor: "left", x: 0.0, font: { size: fs } },
  });
  for (const k of Object.keys(out)) {
    if (!/^[xy]axis\d*$/.test(k)) continue;
    const ax = Object.assign({}, out[k]);
    ax.tickfont = Object.assign({ size: fs - 1 }, ax.tickfont || {});
    // the axis title at the chart's font size (a template may set a smaller one)
    if (ax.title) ax.title = Object.assign({}, ax.title, { font: Object.assign({ size: fs }, ax.title.font || {}) });
    ax.automargin = !(fixed && ((k[0] === "x" && fixed.b) || (k[0] === "y" && fixed.l)));
    out[k] = ax;
  }
  return out;
}

/**
 * Ticks for values spanning [lo, hi]: about `n` at a 1-2-2.5-5 step, labelled with an SI suffix (k, M, G) and
 * as many decimals as the step needs, with a real minus sign. Returns { tickvals, ticktext, chars } (chars:
 * the longest label), so the axis's margin is known without plotly measuring it.
 */
export function niceTicks(lo, hi, n = 4) {
  if (!isFinite(lo) || !isFinite(hi)) return null;
  let span = hi - lo;
  if (!(span > 0)) span = Math.max(Math.abs(hi) * 1e-6, 1e-9);
  lo -= span * 0.08; hi += span * 0.08;            // the room plotly's autorange leaves around the markers
  const raw = (hi - lo) / n, e = Math.floor(Math.log10(raw)), base = Math.pow(10, e);
  const step = [1, 2, 2.5, 5, 10].map((m) => m * base).find((v) => v >= raw * 0.999) || 10 * base;
  const big = Math.max(Math.abs(lo), Math.abs(hi));
  const [unit, suffix] = big >= 1e9 ? [1e9, "G"] : big >= 1e6 ? [1e6, "M"] : big >= 1e4 ? [1e3, "k"] : [1, ""];
  const decimals = Math.max(0, -Math.floor(Math.log10(step / unit) + 1e-9)) + (step / unit / Math.pow(10, Math.floor(Math.log10(step / unit) + 1e-9)) === 2.5 ? 1 : 0);
  const tickvals = [], ticktext = [];
  for (let k = Math.ceil(lo / step); k * step <= hi + step * 1e-9; k++) {
    const v = k * step;
    tickvals.push(v);
    ticktext.push(((v / unit).toFixed(decimals) + suffix).replace("-", "\u2212").replace(/^\u22120(\.0*)?([kMG]?)$/, "0$1$2"));
  }
  return { tickvals, ticktext, chars: Math.max(...ticktext.map((t) => t.length)), range: [lo, hi] };
}

/** Margins that hold a y axis's tick labels of `chars` characters and its title, and x ticks with a title
 * of `xLines` lines (px, for font size fs). */
export function fixedMargins(fs, chars, yTitle, xLines) {
  const tick = fs - 1;
  return { l: Math.ceil(chars * tick * 0.62 + (yTitle ? fs * 1.5 : 0) + 14),
    b: Math.ceil(tick * 1.6 + xLines * fs * 1.3 + 8) };
}

/** More classes than this: the α chart's legend is the page's own (HTML), not plotly's. */
export const htmlLegend = (K) => K > 4;

/** Whole-number iteration ticks (theme.int_ticks). */
export function intTicks(T) {
  return { tick0: 0, dtick: Math.max(1, Math.ceil(Math.max(T - 1, 1) / 8)), range: [-0.3, Math.max(T - 1, 1) + 0.3] };
}
const vline = (x, line, xref = "x", yref = "y domain") => ({ type: "line", x0: x, x1: x, xref, y0: 0, y1: 1, yref, line });
const floats = (a) => Array.from(a, (v) => (v === null || !isFinite(v) ? null : v));

/** Iterations t at which values[t] fell below values[t − 1] beyond rounding, at the same λ
 * (nbcore.em.decreases with the charts' tolerance, 1e-9 relative). */
export function decreases(values, lams, rtol = 1e-9) {
  const out = [];
  for (let t = 1; t < values.length; t++) {
    if (lams && lams[t] !== lams[t - 1]) continue;
    if (values[t] < values[t - 1] - rtol * Math.max(1, Math.abs(values[t - 1]))) out.push(t);
  }
  return out;
}

/** (t, λ) of every iteration whose step used another λ than the one before. */
export function lamChanges(lams) {
  const out = [];
  for (let t = 1; t < lams.length; t++) if (lams[t] !== lams[t - 1]) out.push([t, lams[t]]);
  return out;
}

const fmtG = (v) => String(parseFloat(Number(v).toPrecision(6)));

// ---- the series of a run ------------------------------------------------------------------------------------

/** What the charts draw, from the lab (lab.js): one array per series, every iteration so far. */
export function seriesOf(lab) {
  const h = lab.run.history, K = lab.prep.K;
  const T = h.length;
  const alpha = Array.from({ length: K }, () => new Array(T));
  const ll = new Array(T), obj = new Array(T), lams = new Array(T);
  for (let t = 0; t < T; t++) {
    const s = h[t];
    for (let k = 0; k < K; k++) alpha[k][t] = s.alpha[k];
    ll[t] = s.logLikelihood; obj[t] = s.objective;
    lams[t] = s.lam;
  }
  return { T, K, names: lab.prep.classNames, alpha, ll, obj, lams, acc: lab.accuracySeries(),
    supervised: lab.baselines.supervised, majority: lab.baselines.majority, nHidden: lab.scoreRows.length,
    ref: typeof lab.reference === "function" ? lab.reference() : null };
}

//: the baselines' look on the accuracy chart (dashboard/charts/lesson.py: Okabe–Ito colours, a dash each,
//: told apart without colour)
export const MAJORITY_LINE = { color: "#666666", dash: "dot", width: 2.5 };
export const AT_LAMBDA_LINE = { color: "#D55E00", dash: "dash", width: 3 };
export const CV_LINE = { color: "#009E73", dash: "dashdot", width: 3 };

/** The accuracy chart's baselines, as the app names them (dashboard/charts/lesson.accuracy_figure): the
 * "NB at λ" segments (one [x0, x1, λ, accuracy] each, finite ones), the leave-one-out and the majority
 * lines, each { name, value } or null. */
export function baselineLines(ref) {
  const ok = (v) => v !== null && v !== undefined && isFinite(v);
  if (!ref) return { segs: [], atName: null, cv: null, majority: null };
  const segs = ref.segments.filter((s) => ok(s[3]));
  const atName = !segs.length ? null : segs.length === 1 ? `NB at λ = ${fmtG(segs[0][2])}: ${pct(segs[0][3])}` : "NB at each segment's λ";
  return { segs, atName,
    cv: ok(ref.cv) ? { name: `NB at λ = ${fmtG(ref.cvLambda)} (leave-one-out): ${pct(ref.cv)}`, value: ref.cv, lam: ref.cvLambda } : null,
    majority: ok(ref.majority) ? { name: `majority class: ${pct(ref.majority)}`, value: ref.majority } : null };
}

// ---- the specs ---------------------------------------------------------------------------------------------------

export function alphaSpec(S, fs, width) {
  const x = Array.from({ length: S.T }, (_, t) => t);
  const names = S.names.map((n) => plotText(n));
  const data = names.map((name, k) => ({ type: "scatter", x, y: floats(S.alpha[k]), name, mode: "lines+markers",
    line: { color: classColor(k), width: 3 }, marker: { size: 6 }, hovertemplate: `${name}: %{y:.3f} at t = %{x}<extra></extra>` }));
  const shapes = [], annotations = [];
  for (const [t, lam] of lamChanges(S.lams)) {
    shapes.push(vline(t - 0.5, { color: "#555555", dash: "dash", width: 1.5 }));
    // inside the plot, at the top beside the dashed line (above it would meet the legend)
    annotations.push({ x: t - 0.5, y: 1.0, yref: "paper", text: `λ→${fmtG(lam)}`, showarrow: false, yanchor: "top",
      xanchor: "left", xshift: 2, bgcolor: "rgba(255,255,255,0.85)", font: { size: fs - 2, color: "#555555" } });
  }
  let top = 1.0;
  if (S.K > 3) {
    let m = 0;
    for (const a of S.alpha) for (const v of a) if (isFinite(v)) m = Math.max(m, v);
    top = Math.min(1, m * 1.25 + 0.02);
  }
  // many classes: their names go in a legend of the page's own under the chart (it wraps to the chart's
  // width); plotly's would stack them one per row in a narrow chart
  const own = htmlLegend(S.K);
  const layout = { shapes, annotations, showlegend: !own, xaxis: Object.assign({ title: { text: "iteration t" } }, intTicks(S.T)),
    yaxis: { title: { text: "α (class prior)" }, range: [0, top] } };
  const spec = { data, layout: figureLayout(layout, "Class priors α", fs, 330, own ? 0 : Math.max(1, legendRows(S.names.map(String), fs, width)),
    fixedMargins(fs, 4, true, 1)) };
  if (own) spec.legend = S.names.map((n, k) => [String(n), classColor(k)]);
  return spec;
}

/** The baselines' legend names on a projector: "NB, λ = 0.01", "best NB, λ = 0.003", "majority class". */
function compactNames(B) {
  const out = Object.assign({}, B);
  if (B.atName) out.atName = B.segs.length === 1 ? `NB, λ = ${fmtG(B.segs[0][2])}` : "NB, each segment's λ";
  if (B.cv) out.cv = Object.assign({}, B.cv, { name: `best NB, λ = ${fmtG(B.cv.lam)}` });
  if (B.majority) out.majority = Object.assign({}, B.majority, { name: "majority class" });
  return out;
}

export function accSpec(S, fs, width) {
  const T = S.acc.length;
  const x = Array.from({ length: T }, (_, t) => t);
  const data = [{ type: "scatter", x, y: floats(S.acc), mode: "lines+markers", name: "EM", line: { color: "#0072B2", width: 3 },
    hovertemplate: "EM: %{y:.1%} at t = %{x}<extra></extra>" }];
  const shapes = [], annotations = [];
  const legend = ["EM"];
  const levels = [];
  // on a projector the legend names the lines only, in words short enough for two to a row (their accuracies
  // are the metrics above the charts), and the axis titles keep to one line: the plot keeps its height
  const compact = fs >= fontSize(true);
  const B = compact ? compactNames(baselineLines(S.ref)) : baselineLines(S.ref);
  const right = Math.max(T - 1, 0) + 0.5;
  if (!S.ref && S.supervised !== null && S.supervised !== undefined && isFinite(S.supervised)) {
    // no reference (no visible label): the one supervised line, as the app without one
    const line = { color: WARN, dash: "dash", width: 3 };
    shapes.push({ type: "line", x0: 0, x1: 1, xref: "x domain", y0: S.supervised, y1: S.supervised, yref: "y", line });
    const name = `supervised only: ${pct(S.supervised)}`;
    data.push({ type: "scatter", x: [null], y: [null], mode: "lines", name, line });
    legend.push(name);
    levels.push(S.supervised);
  }
  if (B.segs.length) {
    // supervised NB at each segment's own λ: a step at every λ change mid-run
    const xs = [], ys = [];
    for (const [a, b, , v] of B.segs) { xs.push(a - 0.5, b + 0.5, null); ys.push(v, v, null); levels.push(v); }
    xs.pop(); ys.pop();
    data.push({ type: "scatter", x: xs, y: ys, mode: "lines", name: B.atName, line: AT_LAMBDA_LINE,
      hovertemplate: "supervised NB at this segment's λ: %{y:.1%}<extra></extra>" });
    legend.push(B.atName);
    if (B.segs.length > 1) {
      for (const [a, b, lam, v] of B.segs) {
        annotations.push({ x: (a + b) / 2, y: v, xref: "x", yref: "y", text: `λ=${fmtG(lam)}: ${pct(v)}`, showarrow: false,
          yanchor: "bottom", bgcolor: "rgba(255,255,255,0.85)", font: { size: fs - 3, color: AT_LAMBDA_LINE.color } });
      }
      for (const [a] of B.segs.slice(1)) shapes.push(vline(a - 0.5, { color: "#555555", dash: "dash", width: 1.5 }));
    }
  }
  for (const [b, line] of [[B.cv, CV_LINE], [B.majority, MAJORITY_LINE]]) {
    if (!b) continue;
    data.push({ type: "scatter", x: [-0.5, right], y: [b.value, b.value], mode: "lines", name: b.name, line,
      hovertemplate: `${b.name}<extra></extra>` });
    legend.push(b.name);
    levels.push(b.value);
  }
  // the axis starts a little under the lowest line: a 94.9 → 97.0 % story is not flattened into 50–100 %
  let lo = Infinity;
  for (const v of S.acc.concat(levels)) if (v !== null && v !== undefined && isFinite(v)) lo = Math.min(lo, v);
  lo = isFinite(lo) ? Math.max(0, lo - Math.max(0.02, (1 - lo) * 0.3)) : 0;
  const hidden = S.nHidden ? S.nHidden.toLocaleString("en") : "";
  const xtitle = !S.nHidden || compact ? "iteration t" : `iteration t<br>(${hidden} hidden documents)`;
  const xaxis = Object.assign({ title: { text: xtitle } }, intTicks(T));
  if (S.ref && T) xaxis.range = [-0.5, T - 0.5];
  const layout = { shapes, annotations, yaxis: { title: { text: "accuracy" }, tickformat: ".0%", range: [lo, 1.0] }, xaxis };
  const rows = Math.max(1, legendRows(legend, fs, width));
  const title = compact && S.nHidden ? `Accuracy on ${hidden} hidden labels` : "Accuracy on hidden labels";
  const fig = figureLayout(layout, title, fs, 330, compact ? Math.ceil(legend.length / 2) : rows,
    fixedMargins(fs, 4, true, S.nHidden && !compact ? 2 : 1));
  // two items to a row, from the chart's left edge (plotly would give each the widest one's width)
  if (compact) Object.assign(fig.legend, { xref: "container", x: 0, entrywidth: 0.5, entrywidthmode: "fraction", font: { size: fs - 2 } });
  return { data, layout: fig };
}

/** The objective's x and y with a gap (null) before every iteration whose step used a new λ: the MAP
 * objective includes log p(θ | λ), so a λ change changes the function EM climbs (each piece a climb). */
export function brokenAtLambda(values, lams) {
  const x = [], y = [];
  for (let t = 0; t < values.length; t++) {
    if (t > 0 && lams[t] !== lams[t - 1]) { x.push(null); y.push(null); }
    x.push(t);
    y.push(values[t] === null || !isFinite(values[t]) ? null : values[t]);
  }
  return { x, y };
}

export function llSpec(S, fs, width) {
  const x = Array.from({ length: S.T }, (_, t) => t);
  const changes = lamChanges(S.lams);
  const ob = brokenAtLambda(S.obj, S.lams);
  const data = [
    { type: "scatter", x: ob.x, y: ob.y, mode: "lines+markers", name: "objective", connectgaps: false, line: { color: "#0072B2", width: 3 },
      xaxis: "x", yaxis: "y", hovertemplate: "objective: %{y:.2f} at t = %{x}<extra></extra>" },
    { type: "scatter", x, y: floats(S.ll), mode: "lines+markers", name: "log-likelihood", line: { color: "#009E73", width: 3 },
      xaxis: "x2", yaxis: "y2", hovertemplate: "log-likelihood: %{y:.2f} at t = %{x}<extra></extra>" },
  ];
  const annotations = [
    // a narrow chart (a third of a laptop's page, a phone) gets the panel titles a size smaller
    { text: changes.length ? "MAP objective (climbs within each λ)" : "MAP objective (never goes down)", x: 0.5, y: 1.0, xref: "paper", yref: "paper", xanchor: "center", yanchor: "bottom",
      showarrow: false, font: { size: width < 380 ? fs - 2 : fs } },
    { text: "log-likelihood", x: 0.5, y: 0.44, xref: "paper", yref: "paper", xanchor: "center", yanchor: "bottom", showarrow: false,
      font: { size: width < 380 ? fs - 2 : fs } },
  ];
  const bad = decreases(S.obj, S.lams);
  if (bad.length) {
    data.push({ type: "scatter", x: bad, y: bad.map((t) => S.obj[t]), mode: "markers", name: "objective decreased!",
      marker: { symbol: "x", size: 16, color: WARN, line: { width: 2 } }, xaxis: "x", yaxis: "y" });
    annotations.push({ x: bad[0], y: S.obj[bad[0]], xref: "x", yref: "y", text: "⚠ objective went DOWN", showarrow: true,
      arrowcolor: WARN, font: { color: WARN_TEXT, size: fs } });
  }
  const dips = decreases(S.ll, S.lams);
  if (dips.length) {
    data.push({ type: "scatter", x: dips, y: dips.map((t) => S.ll[t]), mode: "markers", name: "log-lik dipped",
      marker: { symbol: "triangle-down", size: 13, color: WARN }, xaxis: "x2", yaxis: "y2" });
  }
  const shapes = [];
  for (const [t, lam] of changes) {
    for (const [xr, yr] of [["x", "y domain"], ["x2", "y2 domain"]]) shapes.push(vline(t - 0.5, { color: "#555555", dash: "dash", width: 1.5 }, xr, yr));
    annotations.push({ x: t - 0.5, y: 0.98, xref: "x", yref: "paper", text: `λ→${fmtG(lam)}`, showarrow: false, xanchor: "left",
      yanchor: "top", xshift: 2, font: { size: fs - 3, color: "#555555" } });
  }
  const ticks = intTicks(S.T);
  // the y ticks are the page's own (their labels' width is known: no automargin pass)
  const yTicks = (v) => {
    let lo = Infinity, hi = -Infinity;
    for (const x of v) if (x !== null && isFinite(x)) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
    const nt = niceTicks(lo, hi, 5);
    return nt ? { tickmode: "array", tickvals: nt.tickvals, ticktext: nt.ticktext, range: nt.range, _chars: nt.chars } : {};
  };
  const y1 = yTicks(S.obj), y2 = yTicks(S.ll);
  const chars = Math.max(y1._chars || 6, y2._chars || 6);
  delete y1._chars; delete y2._chars;
  const layout = { shapes, annotations, showlegend: !!(bad.length || dips.length),
    xaxis: Object.assign({ anchor: "y", domain: [0, 1], matches: "x2", showticklabels: false }, ticks),
    yaxis: Object.assign({ anchor: "x", domain: [0.56, 1.0] }, y1),
    xaxis2: Object.assign({ anchor: "y2", domain: [0, 1], title: { text: "iteration t" } }, ticks),
    yaxis2: Object.assign({ anchor: "x2", domain: [0, 0.44] }, y2) };
  const spec = { data, layout: figureLayout(layout, "Does EM climb?", fs, 430, 1, fixedMargins(fs, chars, false, 1)) };
  spec.bad = bad;
  spec.dips = dips;
  return spec;
}

// ---- words: each chart's summary sentence and its data table ------------------------------------------------

/** ±∞ as the signs they are (a log-likelihood at λ = 0 can be −∞), null for any other value. */
const infinite = (v) => (v === -Infinity ? MINUS + "∞" : v === Infinity ? "∞" : null);
const num = (v, d) => (v === null || v === undefined || Number.isNaN(v) ? "—"
  : infinite(v) || Number(v).toFixed(d).replace("-", MINUS));
const big = (v, d) => (v === null || v === undefined || Number.isNaN(v) ? "—"
  : infinite(v) || Number(v).toLocaleString("en", { minimumFractionDigits: d, maximumFractionDigits: d }).replace("-", MINUS));

/** Why the log-likelihood at t is −∞, in words ("" when it is not): some document has probability 0 under
 * every class — at λ = 0, a word (or a word's absence) that no class's labelled documents allow. */
export function minusInfinityWhy(S, t) {
  if (S.ll[t] !== -Infinity && S.obj[t] !== -Infinity) return "";
  return S.lams[t] === 0
    ? ` ${MINUS}∞ because at λ = 0 some document has a word (or lacks one) that no class allows, so its probability`
      + " is 0 under every class; any λ > 0 makes every document possible."
    : ` ${MINUS}∞ because some document has probability 0 under every class.`;
}
const pct = (v) => (v === null || v === undefined || !isFinite(v) ? "—" : `${(v * 100).toFixed(1)}%`);

/** The summary sentence of a chart at iteration t (its numbers, in words). */
export function summary(name, S, t) {
  if (name === "alpha") {
    const at = (k) => S.names.map((n, j) => `${n} ${num(S.alpha[j][k], 3)}`).join(", ");
    return `Class priors α at iteration t = ${t}: ${at(t)}` + (t > 0 ? `; at t = 0: ${at(0)}.` : ".");
  }
  if (name === "acc") {
    const parts = [];
    const B = baselineLines(S.ref);
    const seg = B.segs.find((g) => g[0] <= t && t <= g[1]) || B.segs[B.segs.length - 1];
    if (seg) parts.push(`supervised NB at λ = ${fmtG(seg[2])} ${pct(seg[3])}`);
    else if (!S.ref && S.supervised !== null && S.supervised !== undefined) parts.push(`supervised only ${pct(S.supervised)}`);
    if (B.cv) parts.push(`supervised NB at λ = ${fmtG(B.cv.lam)} (leave-one-out) ${pct(B.cv.value)}`);
    if (B.majority) parts.push(`majority class ${pct(B.majority.value)}`);
    return `Accuracy on the ${S.nHidden.toLocaleString("en")} hidden labels at iteration t = ${t}: ${pct(S.acc[t])}`
      + (parts.length ? ` (${parts.join(", ")})` : "") + (t > 0 ? `; ${pct(S.acc[0])} at t = 0.` : ".");
  }
  const bad = decreases(S.obj, S.lams);
  return `At iteration t = ${t} the MAP objective is ${big(S.obj[t], 2)} and the log-likelihood ${big(S.ll[t], 2)}; `
    + (bad.length ? `the objective went DOWN at t = ${bad.join(", ")} (flagged).` : "the objective never went down.")
    + minusInfinityWhy(S, t)
    + (lamChanges(S.lams).length ? ` λ changed at t = ${lamChanges(S.lams).map(([k, l]) => `${k} (λ = ${fmtG(l)})`).join(", ")}.` : "");
}

/** The chart's data as one table: caption, head, rows (every iteration; a long run keeps one row in k
 * and the last, as the app's tables). */
export function tableOf(name, S) {
  const T = name === "acc" ? S.acc.length : S.T;
  const keep = [];
  const step = Math.max(1, Math.ceil(T / 300));
  for (let t = 0; t < T; t += step) keep.push(t);
  if (T && keep[keep.length - 1] !== T - 1) keep.push(T - 1);
  if (name === "alpha") {
    return { caption: "Class priors α", head: ["iteration t"].concat(S.names.map(String)),
      rows: keep.map((t) => [String(t)].concat(S.alpha.map((a) => num(a[t], 4)))) };
  }
  if (name === "acc") {
    const has = (v) => v !== null && v !== undefined && isFinite(v);
    const cols = [["EM", (t) => pct(S.acc[t])]];
    const B = baselineLines(S.ref);
    if (B.segs.length) {
      cols.push(["supervised NB at this segment's λ", (t) => { const g = B.segs.find((s) => s[0] <= t && t <= s[1]); return g ? `${pct(g[3])} (λ = ${fmtG(g[2])})` : "—"; }]);
    } else if (!S.ref && has(S.supervised)) cols.push(["supervised only", () => pct(S.supervised)]);
    if (B.cv) cols.push([`supervised NB at λ = ${fmtG(B.cv.lam)} (leave-one-out)`, () => pct(B.cv.value)]);
    if (B.majority) cols.push(["majority class", () => pct(B.majority.value)]);
    return { caption: "Accuracy on hidden labels", head: ["iteration t"].concat(cols.map((c) => c[0])),
      rows: keep.map((t) => [String(t)].concat(cols.map((c) => c[1](t)))) };
  }
  return { caption: "Does EM climb?", head: ["iteration t", "MAP objective", "log-likelihood", "λ"],
    rows: keep.map((t) => [String(t), num(S.obj[t], 3), num(S.ll[t], 3), fmtG(S.lams[t])]) };
}

// ---- the figures on the page ------------------------------------------------------------------------------------

const CHARTS = [["alpha", "Class priors α"], ["acc", "Accuracy on the hidden labels"], ["ll", "Log-likelihood and MAP objective"]];
const CONFIG = { displayModeBar: false, responsive: true };

function tableEl(tab) {
  const t = el("table", { class: "lab-table" });
  t.append(el("caption", { text: tab.caption }));
  const hr = el("tr");
  for (const h of tab.head) hr.append(el("th", { scope: "col", text: h }));
  t.append(el("thead", null, hr));
  const tb = el("tbody");
  for (const r of tab.rows) {
    const tr = el("tr");
    r.forEach((v, i) => tr.append(el(i ? "td" : "th", i ? { text: v } : { scope: "row", text: v })));
    tb.append(tr);
  }
  t.append(tb);
  return t;
}

/**
 * The three figures in `grid`. ctx: { Plotly, template }. Returns { update(lab, force), mark(t), resize(),
 * boxes, draws }: update() redraws the charts whose data changed (Plotly.react), mark() moves the
 * iteration line and rewrites the summaries (no plotly call).
 */
export function mountCharts(grid, ctx) {
  const api = { boxes: null, S: null, t: 0, draws: 0, pending: null, fs: 15 };
  const boxes = CHARTS.map(([name, label]) => chartBox(grid, api, name, label));
  api.boxes = boxes;
  observeWidths(boxes);
  return Object.assign(api, {
    /** Redraw the charts whose data changed; `force` redraws all (classroom fonts, a resize). */
    update: (lab, force) => updateCharts(api, ctx, lab, force),
    /** Move the iteration line to t and say the chart's numbers at t. */
    mark: (t) => markCharts(api, t),
    resize: () => resizeCharts(api, ctx),
  });
}

/** One chart's figure: the plot, the iteration line's overlay, the legend, the summary, the data table. */
function chartBox(grid, api, name, label) {
  const wrap = el("div", { class: "lab-chart", role: "figure", "aria-label": label, "data-chart": name,
    "aria-describedby": `lab-sum-${name}` });
  const legend = el("ul", { class: "lab-legend", "aria-hidden": "true", hidden: true });
  const gd = el("div", { class: "lab-plot", "aria-hidden": "true" });
  const overlay = el("div", { class: "lab-overlay", "aria-hidden": "true" });
  const sum = el("p", { class: "lab-fig-summary", id: `lab-sum-${name}` });
  const details = el("details", { class: "lab-data" });
  const tables = el("div", { class: "lab-tables", tabindex: "0", role: "region", "aria-label": `Data of the chart: ${label}` });
  details.append(el("summary", { text: "Data as a table" }), tables);
  wrap.append(gd, overlay, legend, sum, details);
  grid.append(wrap);
  const box = { name, label, wrap, legend, gd, overlay, sum, details, tables, key: null, marks: [], spec: null };
  details.addEventListener("toggle", () => { if (details.open && api.S) fill(api, box); });
  return box;
}

/** Each chart's width, kept up to date without a layout read on every redraw. */
function observeWidths(boxes) {
  if (typeof ResizeObserver === "undefined") return;
  const ro = new ResizeObserver((entries) => {
    for (const e of entries) {
      const box = boxes.find((b) => b.wrap === e.target);
      if (box) box.width = Math.round(e.contentRect.width);
    }
  });
  for (const b of boxes) ro.observe(b.wrap);
}

function fill(api, box) {
  box.tables.replaceChildren(tableEl(tableOf(box.name, api.S)));
  box.filled = api.S;
}

function keyOf(name, S, fs, width) {
  // what each chart draws: a λ change before the next step redraws the accuracy chart only (its
  // supervised line); a step redraws all three
  const common = [name, fs, Math.round(width / 40), S.K];
  if (name === "acc") {
    const r = S.ref;
    const refKey = r ? [r.majority, r.cv, r.cvLambda, r.segments.map((g) => g.join(":")).join(",")].join("/") : "";
    return common.concat([S.acc.length, S.acc[S.acc.length - 1], S.supervised, S.majority, S.nHidden, refKey]).join("|");
  }
  return common.concat([S.T, S.lams.join(","), S.obj[S.T - 1], S.alpha.map((a) => a[S.T - 1]).join(",")]).join("|");
}

/** The element's top on the page as it is unscrolled (every scrolled ancestor's offset added back). */
function pageTop(node) {
  let top = node.getBoundingClientRect().top;
  for (let e = node.parentElement; e; e = e.parentElement) top += e.scrollTop || 0;
  return top;
}

function react(api, ctx, box, spec) {
  const layout = structuredClone(spec.layout);
  if (ctx.template) layout.template = ctx.template;
  if (ctx.reducedMotion && ctx.reducedMotion()) layout.transition = { duration: 0 };
  for (const k of Object.keys(layout)) if (/^[xy]axis\d*$/.test(k)) layout[k].ticklabeloverflow = "allow";
  // classroom mode (a projector, e.g. 1280×720): the row of charts gets the screen's height left under the
  // controls and the numbers (measured where the page is not scrolled), so all of it is on the first screen
  if (ctx.classroom && ctx.classroom() && typeof window !== "undefined" && layout.height) {
    const fit = Math.round(window.innerHeight - pageTop(box.gd) - 12);
    layout.height = Math.min(layout.height, Math.max(300, fit));
  }
  api.draws++;
  return ctx.Plotly.react(box.gd, spec.data, layout, CONFIG).then(() => placeMark(api, box));
}

function updateCharts(api, ctx, lab, force) {
  const S = seriesOf(lab);
  api.S = S;
  api.fs = fontSize(lab.settings.classroom);
  const jobs = [];
  for (const box of api.boxes) {
    const hide = box.name === "acc" && !S.nHidden;
    box.wrap.hidden = hide;
    if (hide) continue;
    const width = box.width || (box.width = box.wrap.clientWidth) || 400;
    const key = keyOf(box.name, S, api.fs, width);
    if (!force && key === box.key) continue;
    box.key = key;
    const spec = box.name === "alpha" ? alphaSpec(S, api.fs, width) : box.name === "acc" ? accSpec(S, api.fs, width) : llSpec(S, api.fs, width);
    box.spec = spec;
    drawLegend(box, spec.legend);
    if (ctx.Plotly) jobs.push(box);
  }
  markCharts(api, lab.t);
  // one chart after the other: the first is on screen before the next is laid out
  return jobs.reduce((p, box) => p.then(() => react(api, ctx, box, box.spec)).then(() => { if (!api.first) api.first = performance.now(); }),
    Promise.resolve());
}

function drawLegend(box, items) {
  box.legend.hidden = !items;
  const key = items ? items.map((i) => i.join("\u0000")).join("\u0001") : "";
  if (!items || box.legend.__key === key) return;
  box.legend.__key = key;
  box.legend.replaceChildren(...items.map(([name, colour]) => {
    const sw = el("span", { class: "lab-swatch" });
    sw.style.borderTopColor = colour;
    return el("li", null, sw, document.createTextNode(name));
  }));
}

function placeMark(api, box) {
  const fl = box.gd._fullLayout;
  if (!fl || !fl._plots) return;
  const ids = Object.keys(fl._plots);
  while (box.marks.length < ids.length) {
    const line = el("div", { class: "lab-mark" });
    box.overlay.append(line);
    box.marks.push(line);
  }
  ids.forEach((id, i) => {
    const { xaxis: xa, yaxis: ya } = fl._plots[id];
    const x = xa._offset + xa.l2p(api.t);
    // an iteration the chart does not hold yet (drawn at the next redraw): no line
    const css = api.t > xa.range[1] ? "display:none" : `left:${(x - 1).toFixed(1)}px;top:${ya._offset}px;height:${ya._length}px`;
    if (box.marks[i].__css !== css) { box.marks[i].__css = css; box.marks[i].style.cssText = css; }
  });
}

function markCharts(api, t) {
  api.t = t;
  if (!api.S) return;
  for (const box of api.boxes) {
    if (box.wrap.hidden) continue;
    placeMark(api, box);
    const s = summary(box.name, api.S, Math.min(t, (box.name === "acc" ? api.S.acc.length : api.S.T) - 1));
    if (box.sum.textContent !== s) box.sum.textContent = s;
    const label = `${box.label}, iteration ${t} of ${api.S.T - 1}`;
    if (box.wrap.getAttribute("aria-label") !== label) box.wrap.setAttribute("aria-label", label);
    if (box.details.open && box.filled !== api.S) fill(api, box);
  }
}

function resizeCharts(api, ctx) {
  if (!ctx.Plotly) return;
  for (const box of api.boxes) if (box.gd._fullLayout) { ctx.Plotly.Plots.resize(box.gd); placeMark(api, box); }
}
