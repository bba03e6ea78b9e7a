// The maths beside the pictures (the app's maths panel, dashboard/lesson/panels/maths.py, in the browser):
// one document's E-step (eq. 21: log α_k + log p(x | k) → joint → posterior; eq. 22 for a labelled
// document) and the M-step that made θ_t (eq. 23: α from the summed responsibilities; eq. 24 for one
// parameter row, with λ), filled in with the run's numbers at iteration t. The M-step numbers are
// computed here from the responsibilities and the data, and checked against the engine's θ_t.
//
// The document: the hidden one EM is least sure about under θ⁽⁰⁾ (as the app), until one is picked
// in the documents table ("nblab-doc" event) or typed in the box. The row: the one that separates
// the classes most at t, until one is picked; a row picked before stays pickable when the picker
// offers a short list (as the app's controls.maths_controls).
import { h, table, section, fmt, gfmt, math, maxRow, matCols, csrOf, denseOf, categoriesOf, listen, classroom, trueLabels, modelName, docRow, termLabel } from "./common.js";
import { paramTable, topSeparating } from "./params.js";
import { PICK_EVENT } from "./documents.js";

/** up to this many parameter rows the row picker lists them all (maths.FULL_FEATURE_LIST) */
//: the panel's name where the page speaks of it (a note when it cannot start)
export const TITLE = "The maths of one document";

export const FULL_FEATURE_LIST = 300;
/** beyond: the top separating rows at t, then the document's features (maths.N_TOP_CHOICES) */
export const N_TOP_CHOICES = 15;

/** Each model's term of eq. 11 and its M-step (eq. 24 and its relatives), as the app writes them. */
export const TERM = {
  bernoulli: "x_{ij} log β_{jk} + (1 − x_{ij}) log(1 − β_{jk})",
  multinomial: "x_{ij} log β_{jk}",
  categorical: "log θ_j[x_{ij}, k]",
  gaussian: "log N(x_{ij}; μ_{jk}, σ^2_{jk})",
};
export const ESTIMATE = {
  bernoulli: "β_{j,k}^{t+1} = (λ + Σ_i X_{i,j} r_{ik}) / (2λ + Σ_i r_{ik})   (24)",
  multinomial: "β_{j,k} = (λ + Σ_i X_{i,j} r_{ik}) / (Vλ + Σ_{j′} Σ_i X_{i,j′} r_{ik})   (24)",
  categorical: "θ_j[d, k] = (λ + Σ_i [x_{ij} = d] r_{ik}) / (D_j λ + Σ_i r_{ik})   (24)",
};

// ---- pure parts ------------------------------------------------------------------------------------

/** The document's text as the app's maths panel shows it (derive.one_line of the text with its line
 * breaks as " / "): "\n" → " / ", each run of control characters (and U+2028/2029) → one space, cut to
 * `limit` code points with "…". */
export function oneLine(text, limit = 300) {
  const s = String(text).replace(/\n/g, " / ").replace(/[\x00-\x1f\x7f\u2028\u2029]+/g, " ");
  const cp = Array.from(s);
  return cp.length > limit ? cp.slice(0, Math.max(0, limit - 1)).join("") + "…" : s;
}

/** The rows the picker offers (controls.maths_controls): `choices`, with the row picked before put
 * first when it is not among them, and the default row likewise. */
export function pickerOptions(choices, picked, def) {
  const out = Array.from(choices);
  if (picked !== null && picked !== undefined && !out.includes(picked)) out.unshift(picked);
  if (!out.includes(def)) out.unshift(def);
  return out;
}

/** The hidden document EM is least sure about under θ⁽⁰⁾ (np.argmin: the first), else 0. */
export function defaultDoc(post0, yObs, K) {
  let best = -1, bv = Infinity;
  for (let i = 0; i < yObs.length; i++) {
    if (yObs[i] >= 0) continue;
    const m = maxRow(post0, i, K);
    if (m < bv || best < 0) { bv = m; best = i; }
  }
  return best < 0 ? 0 : best;
}

/** The rows the picker offers for a long vocabulary (maths.feature_choices): the top separating rows,
 * then the document's features, most frequent first (ties in vocabulary order). */
export function featureChoices(top, docRow) {
  const out = Array.from(top, Number), seen = new Set(out);
  const nz = [];
  for (let j = 0; j < docRow.length; j++) if (docRow[j] !== 0) nz.push(j);
  nz.sort((a, b) => (docRow[b] - docRow[a]) || (a - b));
  for (const j of nz) if (!seen.has(j)) { out.push(j); seen.add(j); }
  return out;
}

/** The E-step numbers of one document from the engine's explain: log α_k, log p(x | k) (the sum of
 * the terms), the joint and the posterior (maths.e_step_numbers). */
export function eStepNumbers(ex, K) {
  let like = ex.like;
  if (!like && ex.terms) {
    like = new Float64Array(K);
    for (let j = 0; j < ex.terms.length / K; j++) for (let k = 0; k < K; k++) like[k] += ex.terms[j * K + k];
  }
  return { prior: Array.from(ex.prior ?? ex.logPrior), like: Array.from(like), joint: Array.from(ex.joint ?? ex.logJoint),
    post: Array.from(ex.post ?? ex.posterior) };
}

/** Weights of the M-step that produced θ_t (run.m_step_weights): the responsibilities, an
 * unlabelled row's times its weight. */
export function mStepWeights(resp, yObs, K, unlabeledWeight = 1) {
  if (unlabeledWeight === 1) return resp;
  const w = Float64Array.from(resp);
  for (let i = 0; i < yObs.length; i++) if (yObs[i] < 0) for (let k = 0; k < K; k++) w[i * K + k] *= unlabeledWeight;
  return w;
}

/** Where parameter row r lives in a categorical θ: {j, d, D}. */
export function categoricalRow(theta, K, r) {
  let at = 0;
  for (let j = 0; j < theta.length; j++) {
    const D = theta[j].length / K;
    if (r < at + D) return { j, d: r - at, D };
    at += D;
  }
  return null;
}

/** The M-step of eq. 23 and, where the estimate is a smoothed ratio (EventModel.estimate_parts),
 * eq. 24 for parameter row `row`: {cw, total, alpha, counts, totals, den, values} (K each; the last
 * four null for the Gaussian model). X: the model's matrix; w: (N*K) weights; nCats: D_j per feature
 * (categorical). */
export function mStepNumbers({ model, X, w, N, K, lam, row, theta }) {
  const cw = new Float64Array(K);
  for (let i = 0; i < N; i++) for (let k = 0; k < K; k++) cw[k] += w[i * K + k];
  let total = 0;
  for (const v of cw) total += v;
  const alpha = Array.from(cw, (v) => v / total);
  const out = { cw: Array.from(cw), total, alpha, lam, counts: null, totals: null, den: null, values: null };
  if (!["bernoulli", "multinomial", "categorical"].includes(model) || row === null || row === undefined) return out;
  const counts = new Float64Array(K);
  let totals = cw, den;
  if (model === "categorical" && !csrOf(X)) {
    const at = categoricalRow(theta, K, row);
    const V = X.nFeatures ?? matCols(X), D = denseOf(X);
    for (let i = 0; i < N; i++) if (D[i * V + at.j] === at.d) for (let k = 0; k < K; k++) counts[k] += w[i * K + k];
    den = at.D;
  } else {
    const V = matCols(X);
    const tot = model === "multinomial" ? new Float64Array(K) : null;
    const add = (i, j, v) => {
      if (j === row) for (let k = 0; k < K; k++) counts[k] += v * w[i * K + k];
      if (tot) for (let k = 0; k < K; k++) tot[k] += v * w[i * K + k];
    };
    const c = csrOf(X);
    if (c) {
      const { indptr, indices, data } = c;
      for (let i = 0; i < N; i++) for (let p = indptr[i]; p < indptr[i + 1]; p++) add(i, indices[p], data ? data[p] : 1);
    } else {
      const D = denseOf(X);
      for (let i = 0; i < N; i++) for (let j = 0; j < V; j++) { const v = D[i * V + j]; if (v !== 0) add(i, j, v); }
    }
    if (tot) totals = tot;
    // the categorical model's one-hot columns: row r is feature j's value d, its λ counts D_j times
    den = model === "multinomial" ? V : model === "categorical" ? categoricalRow(theta, K, row).D : 2;
  }
  out.counts = Array.from(counts);
  out.totals = Array.from(totals);
  out.den = den;
  out.values = out.counts.map((c, k) => (lam + c) / (den * lam + out.totals[k]));
  return out;
}

export function allClose(a, b, atol = 1e-6) {
  for (let k = 0; k < a.length; k++) if (!(Math.abs(a[k] - b[k]) <= atol + 1e-5 * Math.abs(b[k]))) return false;
  return true;
}

// ---- the panel ---------------------------------------------------------------------------------------

/** The panel's parts: the heading, the document and row pickers, the text, the two columns. */
function buildMaths(el) {
  const { heading, body } = section(el, "The maths of this iteration (eq. 21–24 of the notes)", "nbl-maths");
  const docInput = h("input", { type: "number", min: "0", step: "1", class: "nbl-docnum", id: uid("nbl-doc") });
  const rowSelect = h("select", { class: "nbl-rowpick", id: uid("nbl-row") });
  const rowHelp = h("p", { class: "nbl-caption" });
  const controls = h("div", { class: "nbl-maths-controls" },
    h("div", null, h("label", { for: docInput.id, text: "Document i " }), docInput),
    h("div", null, h("label", { for: rowSelect.id, text: "Parameter row j " }), rowSelect, rowHelp));
  const docText = h("p", { class: "nbl-doctext" });
  const howMade = h("p", { class: "nbl-caption" });
  const colE = h("div", { class: "nbl-maths-e" }), colM = h("div", { class: "nbl-maths-m" });
  const live = h("p", { class: "nbl-sr", "aria-live": "polite" });
  body.append(controls, docText, howMade, h("div", { class: "nbl-cols" }, colE, colM), live);
  return { heading, docInput, rowSelect, rowHelp, docText, howMade, colE, colM, live };
}

/** A pick in the documents table, a number typed in the box, a row picked. */
function wireMaths(s) {
  listen(s.ctx, s.el, PICK_EVENT, (detail) => {
    if (!detail || !Number.isInteger(detail.doc)) return;
    setDoc(s, detail.doc, true);
  });
  s.docInput.addEventListener("change", () => {
    const v = Number(s.docInput.value);
    if (Number.isInteger(v)) setDoc(s, v, false);
  });
  s.rowSelect.addEventListener("change", () => { s.row = Number(s.rowSelect.value); if (s.last) drawMaths(s, s.last); });
}

function setDoc(s, i, announce) {
  if (!s.last) { s.doc = i; return; }
  const N = s.last.prep.yObs.length;
  s.doc = Math.max(0, Math.min(N - 1, i | 0));
  drawMaths(s, s.last);
  if (announce) s.live.textContent = `The maths panel now shows document ${s.doc}.`;
}

/** What one drawing needs: the run at t, the document i, whether the page is between the half-steps. */
function mathsFrame(s, view) {
  const { prep, run } = view;
  const hist = run.history;
  const t = Math.max(0, Math.min(view.t, hist.length - 1));
  const model = modelName(view);
  const K = prep.K, N = prep.yObs.length, names = prep.classNames;
  const cats = categoriesOf(prep, s.ctx && s.ctx.data);
  // the default document, once per run start (θ⁽⁰⁾): it stays put while the run goes on
  if (s.defaultFor !== hist[0]) {
    s.defaultFor = hist[0];
    s.defaultDocIdx = defaultDoc(run.posterior(0), prep.yObs, K);
  }
  const i = s.doc === null ? s.defaultDocIdx : Math.min(s.doc, N - 1);
  const pending = view.pending || run.pending;
  const half = pending && view.half === "e" && pending.t === t;
  const src = half ? t : Math.max(0, t - 1);
  return { view, prep, run, hist, t, model, K, N, names, cats, i, pending, half, src };
}

function drawMaths(s, view) {
  const f = mathsFrame(s, view);
  s.docInput.max = String(f.N - 1);
  s.docInput.value = String(f.i);
  s.heading.textContent = `The maths of this iteration (eq. 21–24 of the notes): document ${f.i}`;
  drawRowPicker(s, f);
  drawDocText(s, f);
  drawEStep(s, f);
  drawMStep(s, f);
}

/** The parameter rows the M-step can show; sets f.tab, f.hasRatio, f.x (the document's row) and f.j. */
function drawRowPicker(s, f) {
  const { t, i, K, model, prep } = f;
  const tab = paramTable(f.hist[t].params, model, prep.featureNames, f.cats, K);
  const hasRatio = ["bernoulli", "multinomial", "categorical"].includes(model);
  const top = topSeparating(tab.mat, tab.R, K, N_TOP_CHOICES, tab.logScale);
  const x = docRow(prep, i);
  let choices;
  if (tab.R > FULL_FEATURE_LIST && tab.R === x.length) {
    choices = pickerOptions(featureChoices(top, x), s.row !== null && s.row < tab.R ? s.row : null, top[0]);
    s.rowHelp.textContent = `The ${top.length} features that separate the classes most at t = ${t}, then the features document ${i} contains (most frequent first).`;
  } else {
    choices = Array.from({ length: tab.R }, (_, r) => r);
    s.rowHelp.textContent = "";
  }
  const key = choices.join(",");
  if (key !== s.rowsKey) {
    s.rowsKey = key;
    s.rowSelect.textContent = "";
    for (const r of choices) s.rowSelect.append(h("option", { value: String(r), text: termLabel(String(tab.rows[r])) }));
  }
  const j = s.row !== null && choices.includes(s.row) ? s.row : top[0];
  s.rowSelect.value = String(j);
  s.rowSelect.parentNode.hidden = !hasRatio;
  Object.assign(f, { tab, hasRatio, x, j });
}

function drawDocText(s, f) {
  const { prep, i, t, half } = f;
  const text = prep.texts && i < prep.texts.length ? oneLine(prep.texts[i], 300) : null;
  s.docText.textContent = text === null ? "" : `Document ${i}: “${text}”`;
  s.docText.hidden = text === null;
  s.howMade.textContent = half
    ? `Between the half-steps at t = ${t}: the E-step below used θ⁽${t}⁾; the M-step has not run yet.`
    : t === 0 ? "t = 0: these are the initial parameters. The E-step below uses θ⁽⁰⁾; press Step to see the M-step that makes θ⁽¹⁾."
      : `How iteration ${t} was made: E-step with θ⁽${t - 1}⁾, then M-step → θ⁽${t}⁾.`;
}

/** The E-step column (eq. 21, or eq. 22 for a labelled document). */
function drawEStep(s, f) {
  const { prep, run, i, K, names, model, src, half, pending, t } = f;
  const colE = s.colE;
  colE.textContent = "";
  colE.append(h("h3", null, "E-step for document ", h("i", { text: "i" }), ` = ${i}`));
  const yo = prep.yObs[i], yt = trueLabels(prep)[i];
  if (yo >= 0) {
    colE.append(math("p(y_i = y′ | X_i, α^t, β^t) = 1 if y′ = y_i, 0 otherwise   (22)"),
      h("p", null, `Document ${i} is labelled (${names[yo]}), so EM keeps its label (eq. 22): `,
        math(`r_{${i}}`), ` = one-hot(${names[yo]}).`));
    return;
  }
  const ex = eStepNumbers(run.explain(f.x, src), K);
  colE.append(h("p", null, math("p(y_i = y′ | X_i, α^t, β^t) ∝ p(X_i | y_i = y′, β^t) p(y_i = y′ | α^t)   (21)")),
    h("p", null, math(`log α_k + Σ_j [ ${TERM[model] || "log p(x_{ij} | y = k)"} ]`)));
  colE.append(table({
    caption: `Document ${i} under θ⁽${src}⁾`,
    head: ["class k", "log αₖ", "+ log p(x | k)", "= log joint", "p(k | x)"],
    rows: names.map((c, k) => [c, num(fmt(ex.prior[k], 3)), num(fmt(ex.like[k], 2)), num(fmt(ex.joint[k], 2)),
      num(fmt(ex.post[k], 3), { "data-post": k })]),
    className: "nbl-table nbl-estep",
  }));
  const eng = half ? pending.resp.subarray(i * K, (i + 1) * K) : t > 0 ? run.responsibilities(t).subarray(i * K, (i + 1) * K) : null;
  const truth = yt >= 0 ? ` (true label: ${names[yt]})` : "";
  if (eng) {
    colE.append(h("p", { class: "nbl-caption", text: (allClose(eng, ex.post)
      ? "✓ same as the engine's responsibilities r" : "engine's responsibilities r: " + Array.from(eng, (v) => fmt(v, 3)).join(", ")) + truth }));
  } else if (yt >= 0) {
    colE.append(h("p", { class: "nbl-caption", text: `True (hidden) label: ${names[yt]}` }));
  }
}

/** The M-step column (eq. 23, and eq. 24 for the chosen row), with numbers once θ_t was made by one. */
function drawMStep(s, f) {
  const { view, prep, run, hist, t, model, K, N, names, half, hasRatio, j } = f;
  const colM = s.colM;
  colM.textContent = "";
  colM.append(h("h3", { text: "M-step" }), h("p", null, math("α_{y′}^{t+1} = (1/N) Σ_{i=1}^N p(y_i = y′ | X_i, α^t, β^t)   (23)")));
  if (half || t === 0) {
    if (hasRatio) colM.append(h("p", null, math(ESTIMATE[model])));
    colM.append(h("p", { class: "nbl-caption", text: half ? "Press M-step (or Step) to fill these in with numbers."
      : "Press Step to fill these in with numbers." }));
    return;
  }
  const uw = unlabeledWeight(view, run);
  const w = typeof run.mStepWeights === "function" ? run.mStepWeights(t) : mStepWeights(run.responsibilities(t), prep.yObs, K, uw);
  const lam = Number(hist[t].lam ?? hist[t].smoothing);
  const m = mStepNumbers({ model, X: prep.X, w, N, K, lam, row: hasRatio ? j : null, theta: hist[t].params.theta });
  const denText = uw === 1 ? String(N) : fmt(m.total, 1);   // the app writes N as is (no separators)
  colM.append(table({
    caption: "Class priors",
    head: ["class k", "Σᵢ rᵢₖ", "÷", "αₖ"],
    rows: names.map((c, k) => [c, num(fmt(m.cw[k], 2)), num(denText), num(fmt(m.alpha[k], 3), { "data-alpha": k })]),
    className: "nbl-table nbl-alpha",
  }));
  if (uw !== 1) colM.append(h("p", { class: "nbl-caption", text: `Unlabelled documents count with weight ${gfmt(uw)} in these sums.` }));
  if (!allClose(m.alpha, hist[t].alpha)) colM.append(h("p", { class: "nbl-caption", text: "engine's α: " + Array.from(hist[t].alpha, (v) => fmt(v, 4)).join(", ") }));
  if (m.values) drawEstimate(colM, f, m, lam);
  else colM.append(h("p", { class: "nbl-caption", text: `The ${model} model's M-step uses the same weighted sums Σᵢ rᵢₖ·(…); its parameters are in the chart.` }));
  const next = view.settings && view.settings.lam;
  if (next !== undefined && next !== null && Number(next) !== lam) {
    colM.append(h("p", { class: "nbl-caption", text: `Note: the next steps use λ = ${gfmt(next)}.` }));
  }
}

/** Eq. 24 for row j: the smoothed ratio per class, checked against the engine's parameters. */
function drawEstimate(colM, f, m, lam) {
  const { tab, j, K, names, model } = f;
  const sym = tab.short, c = m.den, cText = Number.isInteger(c) ? String(c) : fmt(c, 2);
  colM.append(h("p", null, math(ESTIMATE[model])));
  colM.append(table({
    caption: `${sym} for “${termLabel(tab.rows[j])}”`,
    head: ["class k", model === "categorical" ? "λ + Σᵢ [xᵢⱼ = d] rᵢₖ" : "λ + Σᵢ xᵢⱼ rᵢₖ", `${cText}·λ + ${model === "multinomial" ? "Σⱼ′ Σᵢ xᵢⱼ′ rᵢₖ" : "Σᵢ rᵢₖ"}`, `${sym}`],
    rows: names.map((cn, k) => [cn, num(`${fmt(lam, 3)} + ${fmt(m.counts[k], 2)}`),
      num(`${cText}·${fmt(lam, 3)} + ${fmt(m.totals[k], 2)}`), num(fmt(m.values[k], 3), { "data-value": k })]),
    className: "nbl-table nbl-mstep",
  }));
  const engine = Array.from({ length: K }, (_, k) => tab.mat[j * K + k]);
  colM.append(h("p", { class: "nbl-caption", text: `λ = ${gfmt(lam)}. ` + (allClose(m.values, engine)
    ? `✓ same as the engine's ${sym}` : `engine's ${sym}: ` + engine.map((v) => fmt(v, 4)).join(", ")) }));
}

export function mount(el, ctx) {
  const s = buildMaths(el);
  Object.assign(s, { el, ctx, doc: null, row: null, last: null, defaultFor: null, defaultDocIdx: 0, rowsKey: "" });
  wireMaths(s);
  return {
    update(view) {
      if (!view || !view.run || !view.prep) return;
      if (s.last && s.last.prep !== view.prep) { s.doc = null; s.row = null; }
      s.last = view;
      classroom(el, view.classroom);
      drawMaths(s, view);
    },
    /** show document i (as a click in the documents table does) */
    show(i) { setDoc(s, i, true); },
  };
}

function unlabeledWeight(view, run) {
  const s = view.settings || {};
  const v = s.uw ?? s.unlabeledWeight ?? run.unlabeledWeight ?? (run.settings && run.settings.unlabeledWeight);
  return v === undefined || v === null ? 1 : Number(v);
}

const num = (text, attrs) => ({ text, class: "nbl-num", attrs });

let uidN = 0;
function uid(p) { uidN += 1; return `${p}-${uidN}`; }
