// The teacher's questions on the class page: the pure part, no DOM (page_questions.js draws them; node's test
// runner imports this file directly, tests/lab/js/questions.test.mjs).
//
// A question's id names what it asks (nblab/questions.py, the same grammar): "q<N>-a<K>" α of class K at the
// next Step (up / down), "q<N>-b" which of four words' β moves most (options f<feature>), "q<N>-d<I>" which
// class document I ends in (options c<class>), "q<N>-acc" the accuracy at convergence (a number 0–100). The
// words, the classes and the document are the page's own data: nothing the network sends is shown as markup.

import { t } from "./i18n.js";

const QID = /^q(\d{1,6})-(?:a(\d{1,2})|(b)|d(\d{1,7})|(acc))$/;
const OPTION = /^[A-Za-z0-9_-]{1,32}$/;
export const PHASES = ["open", "closed", "revealed"];
//: the store's token: 22–64 characters of [A-Za-z0-9_-]; the page makes 32 random bytes (256 bits)
export const TOKEN_RE = /^[A-Za-z0-9_-]{22,64}$/;
export const TOKEN_KEY = "nblab-answer-token";

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** What an id says: { n, kind, k | doc }, or null. */
export function parseQid(qid) {
  const m = typeof qid === "string" ? QID.exec(qid) : null;
  if (!m) return null;
  const n = Number(m[1]);
  if (m[2] !== undefined) return { n, kind: "alpha", k: Number(m[2]) };
  if (m[3]) return { n, kind: "beta" };
  if (m[4] !== undefined) return { n, kind: "doc", doc: Number(m[4]) };
  return { n, kind: "acc" };
}

/** The question of a teacher's state ({ id, phase }), checked; null when there is none or it is not one. */
export function validQuestion(raw) {
  if (!isObj(raw)) return null;
  if (typeof raw.id !== "string" || !parseQid(raw.id) || !PHASES.includes(raw.phase)) return null;
  return { id: raw.id, phase: raw.phase };
}

/** A random token (32 bytes, base64url): `rand(bytes)` fills a Uint8Array (crypto.getRandomValues). */
export function makeToken(rand) {
  const b = new Uint8Array(32);
  rand(b);
  let s = "";
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The browser's token from `storage` (localStorage), made and kept there the first time. */
export function tokenFrom(storage, rand) {
  let tok = null;
  try { tok = storage.getItem(TOKEN_KEY); } catch (e) { tok = null; }
  if (typeof tok === "string" && TOKEN_RE.test(tok)) return tok;
  tok = makeToken(rand);
  try { storage.setItem(TOKEN_KEY, tok); } catch (e) { /* a private window: this page keeps it */ }
  return tok;
}

const name = (list, i, fallback) => (Array.isArray(list) && typeof list[i] === "string" ? list[i] : fallback);

/**
 * What the page shows of question `q` (the question route's answer: { question, kind, options | lo, hi }),
 * with the page's data: { prompt, subject (a document's text, or null), choices: [{ id, label }] | null,
 * lo, hi }. null when the question is not one this page can show.
 */
export function describe(q, data) {
  if (!isObj(q)) return null;
  const what = parseQid(q.question);
  if (!what) return null;
  const classes = (data && data.classNames) || [], words = (data && data.featureNames) || [];
  if (what.kind === "acc") {
    if (q.kind !== "number" || typeof q.lo !== "number" || typeof q.hi !== "number") return null;
    return { kind: what.kind, prompt: t("What will the accuracy on the hidden labels be at convergence (in %)?"),
      subject: null, choices: null, lo: q.lo, hi: q.hi };
  }
  if (q.kind !== "choice" || !Array.isArray(q.options) || !q.options.every((o) => typeof o === "string" && OPTION.test(o))) return null;
  let choices, prompt, subject = null;
  if (what.kind === "alpha") {
    prompt = t("At the next Step, does α of class {name} go up or down?", { name: name(classes, what.k, String(what.k)) });
    choices = q.options.map((o) => ({ id: o, label: o === "up" ? t("Up") : o === "down" ? t("Down") : o }));
  } else if (what.kind === "beta") {
    prompt = t("At the next Step, which word's β moves most?");
    choices = q.options.map((o) => ({ id: o, label: /^f\d+$/.test(o) ? name(words, Number(o.slice(1)), o) : o }));
  } else {
    prompt = t("At convergence, which class is this document in?");
    const texts = data && Array.isArray(data.texts) ? data.texts : null;
    const head = texts && typeof texts[what.doc] === "string" ? texts[what.doc].replace(/\s+/g, " ").trim().slice(0, 160) : "";
    subject = `#${what.doc}` + (head ? ` ${head}` : "");
    choices = q.options.map((o) => ({ id: o, label: /^c\d+$/.test(o) ? name(classes, Number(o.slice(1)), o) : o }));
  }
  return { kind: what.kind, prompt, subject, choices, lo: null, hi: null };
}

/** A typed number as the question takes it (a finite number in [lo, hi]), or null. */
export function numberAnswer(text, lo, hi) {
  const s = String(text == null ? "" : text).trim().replace(",", ".");
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s)) return null;
  const v = Number(s);
  return isFinite(v) && v >= lo && v <= hi ? v : null;
}

/** The JSON body of an answer (the route takes exactly these two keys). */
export function answerBody(token, answer) { return JSON.stringify({ token, answer }); }

/** The URLs of question `qid` next to the class's state URL ("…/<cid>/state.json"). */
export function routes(stateUrl, qid) {
  const base = String(stateUrl).replace(/state\.json(?:[?#].*)?$/, "") + "q/" + encodeURIComponent(qid);
  return { question: base, answer: base + "/answer", mine: base + "/mine", tally: base + "/tally" };
}

/**
 * The class's answers after the reveal (the public tally) as rows to show: [{ id, label, count, right }] for a
 * choice (`desc.choices` gives the labels), or null.
 */
export function tallyRows(tally, desc) {
  if (!isObj(tally) || !desc || !desc.choices || !isObj(tally.counts)) return null;
  return desc.choices.map((c) => ({ id: c.id, label: c.label, right: tally.right === c.id,
    count: typeof tally.counts[c.id] === "number" && tally.counts[c.id] >= 0 ? Math.floor(tally.counts[c.id]) : 0 }));
}
