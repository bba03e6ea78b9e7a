// A message a student types → its posterior under θ_t (dashboard/views/inspector.py, with the
// lesson's run as the parameters): the data set's own text pipeline turns the text into features
// (the engine's text.js, passed in as ctx.vectorize or found on ctx.data), run.explain(x, t) gives
// eq. 21's numbers, and the words that pushed the message towards each class are listed with their
// log-odds (eq. 11's terms, one class against the other).
import { h, table, section, pyFixed, signed, classroom, modelName, termLabel } from "./common.js";
import { vectorizer as textVectorizer } from "../text.js";
import { getModel } from "../models.js";

/** The two classes compared: with two classes always class 1 against class 0 (spam against ham),
 * else the two most probable for this message. */
//: the panel's name where the page speaks of it (a note when it cannot start)
export const TITLE = "Type a message";

export function compareClasses(post) {
  if (post.length === 2) return [1, 0];
  const order = Array.from(post.keys()).sort((a, b) => (post[b] - post[a]) || (a - b));
  return [order[0], order[1]];
}

/** The inspector's split of log p(a | x) − log p(b | x): the prior's part, the features present and
 * absent, the total, and every feature's log-odds (NaN from −∞ − (−∞) counts 0, as Explanation.log_odds). */
export function logOddsSplit(ex, x, K, a, b) {
  const V = x.length;
  const lo = new Float64Array(V);
  let present = 0, absent = 0, all = 0;
  for (let j = 0; j < V; j++) {
    let v = ex.terms[j * K + a] - ex.terms[j * K + b];
    if (Number.isNaN(v)) v = 0;
    lo[j] = v;
    all += v;
    if (x[j] > 0) present += v; else absent += v;
  }
  const prior = ex.prior[a] - ex.prior[b];
  return { prior, present, absent, total: prior + all, lo };
}

/** The features of the message, the strongest push first (|log-odds|, ties in vocabulary order). */
export function pushingWords(lo, x) {
  const out = [];
  for (let j = 0; j < x.length; j++) if (x[j] > 0) out.push(j);
  out.sort((p, q) => (Math.abs(lo[q]) - Math.abs(lo[p])) || (p - q));
  return out;
}

/** The features the model scores: Bernoulli asks whether a word occurs (x > 0 → 1), the multinomial
 * model how often. */
export function forModel(x, model) {
  if (getModel(model).inputKind !== "binary") return Float64Array.from(x);
  return Float64Array.from(x, (v) => (v > 0 ? 1 : 0));
}

// ---- the panel ---------------------------------------------------------------------------------------

/** The panel's parts: the box and its help, what was scored, the posterior, the log-odds parts, the words. */
function buildMessage(el) {
  const { heading, body } = section(el, "Type a message: which class does EM give it?", "nbl-message");
  const id = "nbl-msg-" + Math.random().toString(36).slice(2, 8);
  const box = h("textarea", { id, class: "nbl-msg-input", rows: "3", placeholder: "e.g. win a free cruise now", spellcheck: "false" });
  const help = h("p", { class: "nbl-caption", id: id + "-help",
    text: "Words outside the data set's vocabulary are ignored. The message is scored with the run's α and β at the iteration shown." });
  box.setAttribute("aria-describedby", help.id);
  const scored = h("p", { class: "nbl-caption" });
  const result = h("div", { class: "nbl-msg-result", "aria-live": "polite" });
  const parts = h("div", { class: "nbl-msg-parts" });
  const words = h("div", { class: "nbl-scroll nbl-msg-words", tabindex: "0", role: "region", "aria-label": "The words that pushed the message each way" });
  const note = h("p", { class: "nbl-caption" });
  const unavailable = h("p", { class: "nbl-caption", hidden: true });
  body.append(unavailable, h("label", { for: id, text: "Type a message" }), box, help, scored, result,
    h("div", { class: "nbl-msg-row" }, parts, words), note);
  return { heading, box, help, scored, result, parts, words, note, unavailable };
}

/** The data set's own text pipeline (text.js: its CountVectorizer's tokens, n-grams, vocabulary). */
function vectorizer(st, view) {
  const ctx = st.ctx;
  if (ctx && typeof ctx.vectorize === "function") return (text) => ctx.vectorize(text, view.prep);
  const d = (view.prep && view.prep.data && view.prep.data.text ? view.prep.data : null) || (ctx && ctx.data);
  if (!d || !d.text || !d.featureNames) return null;
  if (st.vecFor !== d) {
    st.vecFor = d;
    try { const v = textVectorizer(d); st.vec = (text) => v.transform(text); } catch (e) { st.vec = null; }
  }
  return st.vec;
}

function drawMessage(st, view) {
  const { prep, run, t } = view;
  const model = modelName(view);
  const vec = vectorizer(st, view);
  const textData = !!prep.texts && ["binary", "counts"].includes(getModel(model).inputKind);   // a message's words
  const usable = !!vec && textData;
  const { box, scored, result, parts, words, note } = st;
  st.unavailable.hidden = usable;
  for (const n of [box, st.help, scored, result, parts, words, note, box.previousSibling]) n.hidden = !usable;
  if (!usable) {
    st.unavailable.textContent = textData ? "This page cannot turn text into this data set's features."
      : "This data set has no text: pick a text data set (SMS spam, e-mail, languages) to type a message.";
    return;
  }
  st.heading.textContent = `Type a message: which class does EM give it at t = ${t}?`;
  const text = box.value;
  result.textContent = ""; parts.textContent = ""; words.textContent = ""; note.textContent = "";
  if (!text.trim()) { scored.textContent = "Type a message above to see its posterior."; return; }
  const names = prep.classNames, feats = prep.featureNames;
  const x = forModel(vec(text), model);
  const present = [];
  for (let j = 0; j < x.length; j++) if (x[j] > 0) present.push(j);
  scored.textContent = "Scoring the typed text: " + (present.length
    ? present.map((j) => `${termLabel(feats[j])}×${x[j]}`).join(", ") : "no known word");
  const ex = run.explain(x, t);
  const post = Array.from(ex.post ?? ex.posterior);
  result.append(h("p", { class: "nbl-msg-post" }, ...names.map((c, k) =>
    h("span", { class: "nbl-metric", "data-post": k },
      h("span", { class: "nbl-metric-label", text: `p(${c} | x)` }),
      h("span", { class: "nbl-metric-value", text: pyFixed4(post[k]) })))));
  drawLogOdds(st, { prep, t, model, x, ex, post });
}

/** The log-odds of the two classes compared, in parts and word by word, and the model's note. */
function drawLogOdds(st, { prep, t, model, x, ex, post }) {
  const names = prep.classNames, K = prep.K, feats = prep.featureNames;
  const { parts, words, note } = st;
  const [a, b] = compareClasses(post);
  const s = logOddsSplit({ terms: ex.terms, prior: Array.from(ex.prior ?? ex.logPrior) }, x, K, a, b);
  parts.append(table({
    caption: `log p(${names[a]} | x) − log p(${names[b]} | x) at t = ${t}`,
    head: ["part", "value"],
    rows: [["prior log α", num(signed(s.prior))], ["words present", num(signed(s.present))],
      ["words absent", num(signed(s.absent))], [{ text: "total", class: "nbl-strong" }, { text: signed(s.total), class: "nbl-num nbl-strong" }]],
  }));
  const order = pushingWords(s.lo, x).slice(0, 25);
  if (order.length) {
    words.append(table({
      caption: `The message's words, the strongest first (log-odds ${names[a]} : ${names[b]})`,
      head: ["word", "x", "log-odds", "pushes towards"],
      rows: order.map((j) => [termLabel(feats[j]), num(String(x[j])), num(signed(s.lo[j])),
        s.lo[j] > 0 ? names[a] : s.lo[j] < 0 ? names[b] : "neither"]),
    }));
  }
  note.textContent = getModel(model).scoresAbsentFeatures
    ? `Bernoulli NB counts absent words too: each vocabulary word not in the message adds (1 − x) log(1 − β). Here they add ${signed(s.absent)} to the log-odds.`
    : "Multinomial NB ignores absent words: a word that does not occur contributes x log β = 0.";
  if (!Array.from(s.lo).every(Number.isFinite)) note.textContent += " λ = 0 makes some words impossible for a class: one such word vetoes it.";
}

export function mount(el, ctx) {
  const st = buildMessage(el);
  Object.assign(st, { ctx, last: null, timer: null, vecFor: null, vec: null });
  st.box.addEventListener("input", () => {
    clearTimeout(st.timer);
    st.timer = setTimeout(() => st.last && drawMessage(st, st.last), 120);
  });
  return {
    update(view) {
      if (!view || !view.run || !view.prep) return;
      st.last = view;
      classroom(el, view.classroom);
      drawMessage(st, view);
    },
    /** type `text` into the box and score it (a test, or a link carrying a message) */
    setText(text) { st.box.value = String(text); if (st.last) drawMessage(st, st.last); },
  };
}

function pyFixed4(v) { return pyFixed(v, 4); }
const num = (text) => ({ text, class: "nbl-num" });
