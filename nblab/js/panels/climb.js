// Why EM climbs (dashboard/lesson/panels/climb.py): at the iteration shown, the objective L(θ_t), the lower
// bound the E-step makes touch it, the bound's rise in the M-step and the gap (a KL divergence) that keeps
// L above the bound at θ_{t+1} — the reason EM never goes down. The numbers are bound.js's (nbcore.bound.climb).
//
// A disclosure, closed at first: its numbers are computed only while it is open and the run is not playing
// (each takes two passes over the data and an M-step).
import { h, classroom, pyExp, pyFixed } from "./common.js";
import { climb } from "../bound.js";

export const TITLE = "Why EM climbs: the lower bound at this iteration";

const MINUS = "\u2212";
//: |a change| below this share of |L| is shown as ≈ 0: a sum of N float64 terms of size |L| is exact to
//: a few times 1e-16 · log₂ N of |L|
export const ROUNDING = 1e-13;

const SUB = { "0": "₀", "1": "₁", "2": "₂", "3": "₃", "4": "₄", "5": "₅", "6": "₆", "7": "₇", "8": "₈", "9": "₉" };
/** θ with the iteration as a subscript: "θ₁₂". */
export const theta = (t) => "θ" + String(t).split("").map((c) => SUB[c] ?? c).join("");
/** q with the iteration as a subscript. */
const qOf = (t) => "q" + String(t).split("").map((c) => SUB[c] ?? c).join("");

/** Python's f"{v:,.{d}f}" with a real minus sign ("−374,697.3012"); −∞, ∞ and "not a number" in words. */
export function grouped(v, d = 4) {
  v = Number(v);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "not a number" : v > 0 ? "∞" : MINUS + "∞";
  const s = pyFixed(Math.abs(v), d);
  const [whole, frac] = s.split(".");
  const body = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (frac !== undefined ? "." + frac : "");
  return (v < 0 || Object.is(v, -0) ? MINUS : "") + body;
}

/** A change, signed: "+12.3456", "+3.553×10⁻⁵", "≈ 0" within rounding of numbers of size `scale`, "+∞". */
export function change(v, scale = 1) {
  v = Number(v);
  if (Number.isNaN(v)) return "not a number";
  if (!Number.isFinite(v)) return v > 0 ? "+∞" : MINUS + "∞";
  if (Math.abs(v) <= ROUNDING * Math.max(Math.abs(scale), 1)) return "≈ 0";
  const sign = v < 0 ? MINUS : "+";
  if (Math.abs(v) >= 1e-3) return sign + grouped(Math.abs(v));
  const [m, e] = pyExp(Math.abs(v), 3).split("e");
  const SUP = { "-": "⁻", "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹" };
  return `${sign}${m}×10${String(Number(e)).split("").map((c) => SUP[c]).join("")}`;
}

/** The size of the numbers the changes are differences of (for "≈ 0"). */
function scaleOf(c) {
  const vals = [c.objectiveBefore, c.boundBefore, c.boundAfter, c.objectiveAfter].filter(Number.isFinite);
  return vals.length ? Math.max(...vals.map(Math.abs)) : 1;
}

/**
 * The table's rows for climb `c` (bound.js): [[name, what it is, value], …].
 */
export function climbRows(c) {
  const a = theta(c.t), b = theta(c.t + 1), q = qOf(c.t), s = scaleOf(c);
  return [
    [`L(${a})`, `the objective at ${a}: the log-likelihood plus the log prior of λ (what EM maximises)`, grouped(c.objectiveBefore)],
    [`bound at ${a}`, `after the E-step: with ${q} = p(y | x, ${a}) the lower bound touches L at ${a}`, grouped(c.boundBefore)],
    [`bound at ${b}`, `after the M-step: ${b} is the highest point of the bound (eq. 23–24)`, grouped(c.boundAfter)],
    [`L(${b})`, `the objective at ${b}`, grouped(c.objectiveAfter)],
    ["M-step's gain", `bound at ${b} − bound at ${a}: never negative, the M-step climbs the bound`, change(c.mStepGain, s)],
    [`gap at ${b}`, `L(${b}) − bound at ${b} = Σᵢ KL(${q},ᵢ ‖ p(y | xᵢ, ${b})): never negative, L stays above its bound`,
      change(c.gapAfter, s)],
    [`L(${b}) − L(${a})`, "how far EM climbed: the gain plus the gap", change(c.total, s)],
  ];
}

const lamText = (v) => String(Number(v.toPrecision(6)));

/**
 * What the numbers mean, in words, for climb `c` of `run` (a list of sentences). `nextLam` is the λ of the
 * run's own step t → t + 1 (undefined when it has not been taken).
 */
export function climbSentences(c, nextLam) {
  const a = theta(c.t), b = theta(c.t + 1), s = scaleOf(c), out = [];
  const finite = [c.objectiveBefore, c.boundBefore, c.boundAfter, c.objectiveAfter].every(Number.isFinite);
  if (finite) {
    out.push(`EM never goes down. The E-step makes a lower bound touch the objective L at ${a}; the M-step moves to ${b}, `
      + `the top of that bound, which raises the bound by ${change(c.mStepGain, s)}. L rises by the gain plus the gap `
      + `(${change(c.gapAfter, s)}), a KL divergence, which is never negative: here L went up by ${change(c.total, s)}.`);
    if ([c.mStepGain, c.gapAfter].some((v) => Math.abs(v) <= ROUNDING * Math.max(s, 1))) {
      out.push("≈ 0: zero up to the rounding of numbers this size (EM has all but stopped moving).");
    }
  } else if (c.objectiveBefore === -Infinity && Number.isFinite(c.objectiveAfter)) {
    out.push(`L(${a}) is −∞: under ${a} some document has probability 0 under every class (with λ = 0, a word a class `
      + `has never shown makes it impossible there). The M-step still climbs: L(${b}) is finite, so EM rose by an `
      + `infinite amount, and from ${b} on the bound and its gap are ordinary numbers.`);
  } else {
    out.push(`Some of these numbers are not finite (L is −∞ where a document has probability 0 under every class, as λ = 0 `
      + `can make it), so the climb cannot be read off them here. Try λ > 0.`);
  }
  if (nextLam === undefined) {
    out.push(`${b} here is the M-step from the E-step at ${a}, at the current λ = ${lamText(c.lam)}: the run has not taken it yet.`);
  } else if (nextLam !== c.lam) {
    out.push(`${b} here is the M-step at the current λ = ${lamText(c.lam)}; the run took that step at λ = ${lamText(nextLam)}.`);
  }
  return out;
}

function rowsTable(rows, t) {
  const body = h("tbody", null, rows.map(([name, what, value]) => h("tr", null,
    h("th", { scope: "row" }, h("span", { class: "nbl-climb-name", text: name }), h("span", { class: "nbl-climb-what", text: what })),
    h("td", { class: "nbl-num", text: value }))));
  return h("table", { class: "nbl-table nbl-climb-table" },
    h("caption", { text: `The step from t = ${t} to t = ${t + 1}` }),
    h("thead", null, h("tr", null, h("th", { scope: "col", text: "number" }), h("th", { scope: "col", class: "nbl-num", text: "value" }))),
    body);
}

export function mount(el) {
  el.textContent = "";
  el.classList.add("nbl-panel", "nbl-climb");
  const box = h("details", { class: "nbl-climb-box" });
  const summary = h("summary", null, h("h2", { class: "nbl-panel-title", text: TITLE }));
  const body = h("div", { class: "nbl-panel-body" });
  box.append(summary, body);
  el.append(box);
  let last = null, done = null;

  function draw() {
    const view = last;
    if (!view || !box.open) return;
    body.textContent = "";
    if (view.playing) {
      body.append(h("p", { class: "nbl-caption", text: "Pause to see the numbers of the iteration shown." }));
      return;
    }
    const run = view.run, t = view.t;
    if (!done || done.run !== run || done.t !== t || done.lam !== run.lam || done.len !== run.history.length) {
      let c = null, error = null;
      try { c = climb(run, t); } catch (e) { error = e; }
      done = { run, t, lam: run.lam, len: run.history.length, c, error };
    }
    if (done.error) {
      body.append(h("p", { class: "nbl-caption", text: `Not available for this run: ${done.error.message}` }));
      return;
    }
    const c = done.c, next = run.history[t + 1];
    body.append(rowsTable(climbRows(c), t),
      ...climbSentences(c, next ? next.lam : undefined).map((s) => h("p", { class: "nbl-caption nbl-climb-says", text: s })));
  }

  box.addEventListener("toggle", draw);
  return {
    update(view) {
      last = view;
      classroom(el, view.classroom);
      draw();
    },
  };
}
