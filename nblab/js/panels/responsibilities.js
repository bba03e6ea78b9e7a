// Every document's responsibility (dashboard/lesson/panels/responsibilities.py and the offline
// file's "Between the half-steps"): after an E-step that the M-step has not used yet, the pending
// responsibilities under θ_t; otherwise the ones that produced θ_t. Small data (≤ 60 documents):
// every document in a table; else the histogram of the hidden documents' responsibilities (bins of
// 0.05, dashboard.charts.lesson.responsibility_histogram), how many are unsure (no class above
// 0.8) and the 12 most uncertain.
import { h, table, section, fmt, pyFixed, int, classColor, fontSize, figureLayout, drawChart, plotText, stableArgsort, codePoints, classroom, categoriesOf, csrOf, denseOf, eachNonzero, matCols, trueLabels } from "./common.js";

//: the panel's name where the page speaks of it (a note when it cannot start)
export const TITLE = "The responsibilities";

export const SMALL = 60;
export const UNSURE = 0.8;

// ---- pure parts ------------------------------------------------------------------------------------

/** (N, C) responsibilities → (N, K) per class (C = K·m components per class are summed). */
export function perClass(resp, N, K) {
  const C = resp.length / N;
  if (C === K) return resp;
  const m = C / K, out = new Float64Array(N * K);
  for (let i = 0; i < N; i++) for (let c = 0; c < C; c++) out[i * K + Math.floor(c / m)] += resp[i * C + c];
  return out;
}

/** numpy.histogram(values, bins=20, range=(0, 1)) counts (np.linspace edges, the last bin closed). */
export function histogram(values, bins = 20) {
  const edges = Array.from({ length: bins + 1 }, (_, i) => i * (1 / bins));
  edges[bins] = 1;
  const counts = new Array(bins).fill(0);
  for (const v of values) {
    if (!(v >= 0 && v <= 1)) continue;
    let i = Math.trunc(v * bins);
    if (i === bins) i -= 1;
    if (v < edges[i]) i -= 1;
    else if (i !== bins - 1 && v >= edges[i + 1]) i += 1;
    counts[i] += 1;
  }
  return { counts, centers: edges.slice(0, bins).map((e, i) => (e + edges[i + 1]) / 2) };
}

/** The hidden rows (yObs < 0). */
export function hiddenRows(yObs) {
  const out = [];
  for (let i = 0; i < yObs.length; i++) if (yObs[i] < 0) out.push(i);
  return out;
}

/** How many of the rows have no class above 0.8. */
export function unsureCount(resp, rows, K) {
  let n = 0;
  for (const i of rows) {
    let m = -Infinity;
    for (let k = 0; k < K; k++) m = Math.max(m, resp[i * K + k]);
    if (m < UNSURE) n++;
  }
  return n;
}

/** The `n` most uncertain rows: largest entropy of r_i first, ties in row order. */
export function mostUncertain(resp, rows, K, n = 12) {
  const key = rows.map((i) => {
    let e = 0;
    for (let k = 0; k < K; k++) { const r = resp[i * K + k]; if (r > 0) e -= r * Math.log(r); }
    return -e;
  });
  return stableArgsort(key).slice(0, n).map((j) => rows[j]);
}

/** The histogram spec: one set of bars per class, only the second with two classes (the first
 * is its mirror image). */
export function histogramSpec(resp, rows, K, classNames, fs) {
  const data = [];
  for (let k = 0; k < K; k++) {
    if (K === 2 && k === 0) continue;
    const { counts, centers } = histogram(rows.map((i) => resp[i * K + k]));
    data.push({ type: "bar", x: centers, y: counts, width: 0.05 * 0.9, name: `r(· = ${plotText(classNames[k])})`,
      marker: { color: classColor(k) }, opacity: 0.75 });
  }
  const layout = { barmode: "overlay", xaxis: { title: { text: "responsibility r_ik" }, range: [0, 1] },
    yaxis: { title: { text: "documents" } } };
  return { data, layout: figureLayout(layout, "Responsibilities of the hidden documents", fs, 320) };
}

/** Which responsibilities the panel shows: {resp (N*C), which, pending} or null before any E-step. */
export function currentResponsibilities(view) {
  const { run, t } = view;
  const pending = view.pending || (run && run.pending);
  if (pending && pending.resp && (view.half === "e" || t === view.latest) && pending.t === t) {
    return { resp: pending.resp, pending: true,
      which: `the E-step at θ${t} (the M-step has not used them yet)` };
  }
  if (t === 0) return null;
  const r = run.responsibilities(t);
  return r ? { resp: r, pending: false, which: `the E-step at θ${t - 1}, which produced θ${t}` } : null;
}

// ---- the panel ---------------------------------------------------------------------------------------

export function mount(el, ctx) {
  const { heading, body } = section(el, "Every document's responsibility", "nbl-resp");
  const caption = h("p", { class: "nbl-caption", "aria-live": "polite" });
  const summary = h("p", { class: "nbl-resp-summary" });
  const chart = h("div", { class: "nbl-chart", role: "img", "aria-label": "Histogram: the responsibilities p(class | document) of the hidden documents" });
  const numbers = h("details", { class: "nbl-numbers" });
  const listTitle = h("h3");
  const list = h("div", { class: "nbl-scroll", tabindex: "0", role: "region", "aria-label": "The documents EM is least sure about" });
  const chartCol = h("div", { class: "nbl-resp-chart" }, summary, chart, numbers);
  body.append(caption, h("div", { class: "nbl-resp-row" }, chartCol, h("div", { class: "nbl-resp-list" }, listTitle, list)));
  const st = { el, ctx, heading, caption, summary, chart, numbers, listTitle, list, chartCol, key: null };
  return { update: (view) => drawResponsibilities(st, view) };
}

function drawResponsibilities(st, view) {
  if (!view || !view.run || !view.prep) return;
  const { el, caption, summary, listTitle, list, numbers, chartCol } = st;
  classroom(el, view.classroom);
  const got = currentResponsibilities(view);
  const { prep } = view;
  const N = prep.yObs.length, K = prep.K, names = prep.classNames;
  const key = st.key;
  if (got && key && key.resp === got.resp && key.classroom === view.classroom && key.t === view.t) return;
  st.key = got ? { resp: got.resp, t: view.t, classroom: view.classroom } : null;
  el.classList.toggle("nbl-pending", !!(got && got.pending));
  st.heading.textContent = got && got.pending ? `Between the half-steps at t = ${view.t}: the responsibilities`
    : "Every document's responsibility";
  if (!got) {
    caption.textContent = "No E-step yet: press E-step (or Step) to compute p(class | document) for every document.";
    summary.textContent = ""; listTitle.textContent = ""; list.textContent = ""; numbers.textContent = "";
    chartCol.hidden = true;
    return;
  }
  const resp = perClass(got.resp, N, K);
  caption.textContent = `Responsibilities rᵢₖ = p(yᵢ = k | xᵢ) from ${got.which}. Labelled documents are one-hot ` +
    "(eq. 22): EM never changes a label it was given." + (got.pending ? " The parameters move at the M-step." : "");
  const texts = prep.texts || null;
  if (N <= SMALL) {
    chartCol.hidden = true; summary.textContent = "";
    listTitle.textContent = `All ${int(N)} documents`;
    list.textContent = "";
    list.append(respTable(prep, resp, Array.from({ length: N }, (_, i) => i), K, names, texts));
    return;
  }
  drawHistogram(st, view, resp);
}

/** Many documents: the histogram of the hidden ones' responsibilities and the most uncertain of them. */
function drawHistogram(st, view, resp) {
  const { summary, chart, numbers, listTitle, list, chartCol } = st;
  const { prep } = view;
  const K = prep.K, names = prep.classNames;
  const hidden = hiddenRows(prep.yObs);
  chartCol.hidden = false; chart.hidden = false; numbers.hidden = false;
  const unsure = unsureCount(resp, hidden, K);
  summary.textContent = `${int(unsure)} of the ${int(hidden.length)} hidden documents have no class above 0.8; ` +
    "the others lean clearly to one class.";
  const s = histogramSpec(resp, hidden, K, names, fontSize(view.classroom));
  chart.setAttribute("aria-label", "Histogram: the responsibilities p(class | document) of the hidden documents. " + summary.textContent);
  drawChart(st.ctx, chart, s.data, s.layout);
  numbers.textContent = "";
  const rows = s.data[0] ? s.data[0].x.map((c, b) => [`${fmt(c - 0.025, 2)}–${fmt(c + 0.025, 2)}`,
    ...s.data.map((tr) => ({ text: int(tr.y[b]), class: "nbl-num" }))]) : [];
  numbers.append(h("summary", { text: "The histogram as a table" }),
    table({ head: ["responsibility", ...s.data.map((tr, j) => `documents, r(${names[K === 2 ? 1 : j]})`)], rows }));
  const top = mostUncertain(resp, hidden, K, 12);
  listTitle.textContent = `The ${top.length} most uncertain of ${int(hidden.length)} hidden documents ` +
    `(${int(unsure)} have no class above 0.8)`;
  list.textContent = "";
  list.append(respTable(prep, resp, top, K, names, prep.texts || null));
}

function respTable(prep, resp, rows, K, names, texts) {
  const head = ["doc", "document", "label EM sees", "true label", ...names.map((c) => `r(${c})`)];
  const out = rows.map((i) => {
    const cells = [String(i), { text: summaryOf(prep, i, texts), class: "nbl-text" },
      prep.yObs[i] >= 0 ? names[prep.yObs[i]] : "hidden", trueLabels(prep)[i] >= 0 ? names[trueLabels(prep)[i]] : "—"];
    for (let k = 0; k < K; k++) {
      const r = resp[i * K + k];
      cells.push({ class: "nbl-num", kids: [h("span", { class: "nbl-bar", style: `width:${(100 * r).toFixed(1)}%`, "aria-hidden": "true" }),
        h("span", { text: pyFixed(r, 3) })] });
    }
    return cells;
  });
  return table({ head, rows: out });
}

/** The document in one line (responsibilities._doc_summary): its text cut at 80 characters, else
 * its first six features. */
export function summaryOf(prep, i, texts) {
  if (texts && i < texts.length) {
    const s = String(texts[i]).split(/\s+/).filter(Boolean).join(" ");
    const cp = codePoints(s);
    return cp.length <= 80 ? s : cp.slice(0, 79).join("") + "…";
  }
  const names = prep.featureNames, out = [];
  const X = prep.X;
  if (!X) return "";
  const cats = categoriesOf(prep, null);
  const V = matCols(X) ?? names.length;
  if (X.codes || (cats && !csrOf(X))) {   // categorical: every feature's value (the engine keeps the codes)
    const D = X.codes || denseOf(X);
    const V = X.nFeatures ?? matCols(X);
    for (let j = 0; j < Math.min(6, V); j++) out.push(`${names[j]}=${cats && cats[j] ? cats[j][D[i * V + j]] : D[i * V + j]}`);
    return out.join(", ");
  }
  let n = 0;
  eachNonzero(X, i, (j, v) => { n++; if (out.length < 6) out.push(v === 1 ? String(names[j]) : `${names[j]}=${v}`); });
  return (out.join(", ") + (n > 6 ? " …" : "")) || "(no feature)";
}

