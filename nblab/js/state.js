// The lab's settings and the URL fragment that holds them: one table of keys (the app's keys, so a link
// says the same thing to the app and to the lab), a parser that refuses hostile values with a notice
// naming the key and the value used instead, and the writer of the canonical fragment.
//
// Pure functions, no DOM: the page (boot.js) reads location.hash through parseFragment and writes
// toFragment's text back with history.replaceState; node's test runner imports this file directly.
//
// Rules (as dashboard/ui/urlguard.py, except that a value out of range is refused, not clamped):
//   * a number is plain ASCII digits (optional sign, one dot, optional exponent); "1_0", "٥٠", "nan",
//     "Infinity", "0x10" are not numbers; a value beyond the float range, or one that would be read as 0,
//     is refused rather than rounded;
//   * out of range, wrong type, not an option, too long: refused, the default is used, and a notice says so;
//   * a number between the grid's points (λ, tolerance) or a fraction for a whole-number key snaps to the
//     nearest allowed value, with a notice;
//   * a key given twice: the last one counts, with a notice; a key the lab does not know: ignored, with a notice.
// A notice holds the key and the value as given (cut to 40 characters, on one line): the page puts them on
// screen as text, never as HTML.

import { DEFAULT_SPEED, SPEEDS } from "./vocabulary.js";
import { LANGS, DEFAULT_LANG } from "./i18n.js";

export const MAX_SHOWN = 40;          // characters of a user's value echoed in a notice
export const MAX_VALUE = 200;         // a longer value is refused outright (no setting's value is that long)
export const MAX_PAIRS = 40;          // key=value pairs read from one fragment
export const MAX_FRAGMENT = 4000;     // characters of the fragment read

//: the order of the keys in a written fragment
export const ORDER = ["dataset", "model", "hidden", "lam", "init", "seed", "max_iter", "tol", "t", "speed", "classroom", "lang"];
//: the app's keys the lab has no control for: ignored with a softer notice
const APP_ONLY = ["uw", "lesson", "doc", "word", "param_view", "data", "stop", "theta_tol", "theta_norm", "page"];

// Play speeds (iterations per second) and the default one: nblab/defaults.py's, generated into vocabulary.js
export { SPEEDS, DEFAULT_SPEED };

const NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

// ---- formatting (the URL's spelling of a value, as the app writes it) ----------------------------------

/** λ as the app writes it: Python's "{:g}" (0.001, 1, 10, 0.0003 → 0.0003, 1e-05). */
export function fmtG(v) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  const exp = Math.floor(Math.log10(a));
  if (exp < -4 || exp >= 6) {
    let [m, e] = v.toExponential(5).split("e");
    m = m.replace(/\.?0+$/, "");
    const n = parseInt(e, 10);
    return `${m}e${n < 0 ? "-" : "+"}${String(Math.abs(n)).padStart(2, "0")}`;
  }
  return String(parseFloat(v.toPrecision(6)));
}
export const fmtLam = (v) => fmtG(v);
/** A tolerance as the app writes it: Python's "{:.0e}" (1e-06). */
export function fmtTol(v) {
  if (v === null || v === undefined) return "none";   // no tolerance rule: EM runs to its budget
  const [m, e] = v.toExponential(0).split("e");
  const n = parseInt(e, 10);
  return `${m}e${n < 0 ? "-" : "+"}${String(Math.abs(n)).padStart(2, "0")}`;
}

/** A user's value for a notice: control characters and line breaks as spaces, cut to MAX_SHOWN characters. */
export function shown(value, limit = MAX_SHOWN) {
  const s = String(value).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");
  const chars = Array.from(s);
  return chars.length > limit ? chars.slice(0, limit - 1).join("") + "…" : chars.join("");
}

// ---- the table ---------------------------------------------------------------------------------------------

/**
 * The lab's keys, each with its kind, range or options and default.
 * cfg: { defaults, lambdas, tols, inits, seedMax, maxIterMax, datasets: [names], models: [names], lang }
 * (the page passes nblab/defaults.py's values and the data set's own names; lang, the language the page
 * starts in without a link's: the browser's when it is one of ours, boot.js chooses it).
 */
export function schema(cfg) {
  const d = cfg.defaults || {};
  const models = cfg.models && cfg.models.length ? cfg.models : ["bernoulli"];
  const datasets = cfg.datasets && cfg.datasets.length ? cfg.datasets : [String(d.dataset || "data")];
  const pick = (opts, v) => (opts.includes(v) ? v : opts[0]);
  return {
    dataset: { kind: "choice", options: datasets, default: pick(datasets, d.dataset), what: "data set",
      label: "Data set" },
    model: { kind: "choice", options: models, default: pick(models, d.model), what: "event model", label: "Event model" },
    hidden: { kind: "int", lo: 0, hi: 100, default: num(d.hidden, 90), label: "Labels hidden (%)" },
    lam: { kind: "grid", options: cfg.lambdas, default: num(d.lam, 1), fmt: fmtLam, label: "Smoothing λ" },
    init: { kind: "choice", options: cfg.inits, default: pick(cfg.inits, d.init), what: "initialisation",
      label: "Initialisation" },
    seed: { kind: "int", lo: 0, hi: cfg.seedMax, default: num(d.seed, 0), label: "Seed" },
    max_iter: { kind: "int", lo: 1, hi: cfg.maxIterMax, default: num(d.max_iter, 100), label: "Max iterations" },
    tol: { kind: "grid", options: cfg.tols, default: d.tol === null && cfg.tols.includes(null) ? null : num(d.tol, 1e-6),
      fmt: fmtTol, label: "Tolerance" },
    t: { kind: "int", lo: 0, hi: cfg.maxIterMax, default: num(d.t, 0), label: "Show iteration" },
    speed: { kind: "choice", options: Object.keys(SPEEDS), default: pick(Object.keys(SPEEDS), d.speed || DEFAULT_SPEED),
      what: "Play speed", label: "Play speed" },
    classroom: { kind: "flag", default: !!d.classroom, label: "Classroom mode" },
    // the page's language: one of the catalogue's (a link in another is refused, the default used)
    lang: { kind: "choice", options: LANGS.slice(), default: pick(LANGS, cfg.lang || DEFAULT_LANG), what: "language",
      label: "Language" },
  };
}
function num(v, fallback) { return typeof v === "number" && isFinite(v) ? v : fallback; }

/** Every key's default: the settings of a page opened without a fragment. */
export function defaults(table) {
  const out = {};
  for (const k of ORDER) if (table[k]) out[k] = table[k].default;
  return out;
}

/** A value's spelling in the fragment. */
export function spell(key, v, table) {
  const spec = table[key];
  if (!spec) return String(v);
  if (spec.kind === "grid") return spec.fmt(v);
  if (spec.kind === "flag") return v ? "true" : "false";
  return String(v);
}

// ---- reading a number as a URL spells it --------------------------------------------------------------------

/** [number, null] or [null, why] for a URL value (spaces and tabs around it are dropped). */
export function urlNumber(s) {
  const t = String(s).replace(/^[ \t]+|[ \t]+$/g, "");
  if (!NUMBER.test(t)) return [null, "is not a number (plain digits, e.g. 0.5 or 1e-3)"];
  const v = Number(t);
  if (!isFinite(v)) return [null, "is too large to be held as a number"];
  if (v === 0 && /[1-9]/.test(t.split(/[eE]/)[0])) return [null, "is too close to 0 to be held as a number (it would be read as 0)"];
  return [v, null];
}

// ---- one key ------------------------------------------------------------------------------------------------

/**
 * Decide one key's value from the values the fragment gives it (raws: strings, in order; the last counts).
 * Returns { value, why: null | string, refused }. `why` is the notice's text after "key=value "
 * (it names the value used); null means the value was taken as given.
 */
export function decide(key, raws, spec) {
  const raw = raws[raws.length - 1];
  const dup = raws.length > 1 ? `(given ${raws.length} times: the last one counts) ` : "";
  const fmt = (v) => spell(key, v, { [key]: spec });
  const refuse = (why) => ({ value: spec.default, why: `${dup}${why}; used ${fmt(spec.default)}`, refused: true });
  if (Array.from(raw).length > MAX_VALUE) return refuse(`is ${Array.from(raw).length.toLocaleString("en")} characters long, far more than any value of this setting`);
  if (spec.kind === "int") {
    const [v, bad] = urlNumber(raw);
    if (bad) return refuse(bad);
    if (v < spec.lo || v > spec.hi) return refuse(`is outside ${spec.lo}–${spec.hi}`);
    const r = Math.round(v);
    if (r !== v) return { value: r, why: `${dup}is not a whole number; used ${r}`, refused: false };
    return { value: r, why: dup ? dup.trim() : null, refused: false };
  }
  if (spec.kind === "grid") {
    for (const o of spec.options) if (raw === spec.fmt(o) || raw === String(o)) return { value: o, why: dup ? dup.trim() : null, refused: false };
    const [v, bad] = urlNumber(raw);
    if (bad) return refuse(bad);
    const opts = spec.options.filter((o) => o !== null).sort((a, b) => a - b);
    if (v < opts[0] || v > opts[opts.length - 1]) return refuse(`is outside ${spec.fmt(opts[0])}–${spec.fmt(opts[opts.length - 1])}`);
    let best = opts[0], bd = Infinity;
    for (const o of opts) { const d = gridDist(v, o); if (d < bd) { bd = d; best = o; } }
    if (Math.abs(best - v) <= 1e-9 * Math.max(Math.abs(v), 1e-15)) return { value: best, why: dup ? dup.trim() : null, refused: false };
    return { value: best, why: `${dup}is not one of ${opts.map(spec.fmt).join(", ")}; used the nearest, ${spec.fmt(best)}`, refused: false };
  }
  if (spec.kind === "choice") {
    for (const o of spec.options) if (raw === String(o)) return { value: o, why: dup ? dup.trim() : null, refused: false };
    const low = raw.trim().toLowerCase();
    for (const o of spec.options) if (low === String(o).toLowerCase()) return { value: o, why: dup ? dup.trim() : null, refused: false };
    const listed = spec.options.slice(0, 8).map((o) => shown(o, 30)).join(", ") + (spec.options.length > 8 ? ", …" : "");
    return refuse(`is not a ${spec.what} of this page (${listed})`);
  }
  if (spec.kind === "flag") {
    const low = raw.trim().toLowerCase();
    if (["true", "1", "yes", "on"].includes(low)) return { value: true, why: dup ? dup.trim() : null, refused: false };
    if (["false", "0", "no", "off"].includes(low)) return { value: false, why: dup ? dup.trim() : null, refused: false };
    return refuse("is not true or false");
  }
  return refuse("cannot be read");
}

// nearest on a log scale between positive values (λ, tolerance); 0 only for values ≤ 0
function gridDist(v, o) {
  if (v > 0 && o > 0) return Math.abs(Math.log(v) - Math.log(o));
  if (o === 0) return v <= 0 ? Math.abs(v) : Infinity;
  return Math.abs(v - o);
}

// ---- the whole fragment ---------------------------------------------------------------------------------------

function decodePart(s) {
  try { return [decodeURIComponent(s.replace(/\+/g, " ")), null]; } catch (e) { return [s, "is not valid URL text"]; }
}

/**
 * Read a fragment ("#dataset=sms_spam&lam=0.1", with or without the "#").
 * Returns { settings (every key: the link's value or the default), given: [keys the link set and that were
 * taken], notices: [{ key, value (as given, shortened), text }] }.
 */
export function parseFragment(hash, table) {
  const settings = defaults(table);
  const notices = [];
  const given = [];
  let s = String(hash || "");
  if (s.startsWith("#")) s = s.slice(1);
  if (s.length > MAX_FRAGMENT) {
    notices.push({ key: "link", value: "", text: `The link's settings are ${s.length.toLocaleString("en")} characters long: only the first ${MAX_FRAGMENT.toLocaleString("en")} were read` });
    s = s.slice(0, MAX_FRAGMENT);
  }
  const raw = new Map();
  const unknown = new Map();
  const pairs = s.split("&").filter((p) => p.length);
  if (pairs.length > MAX_PAIRS) notices.push({ key: "link", value: "", text: `The link has ${pairs.length} settings: only the first ${MAX_PAIRS} were read` });
  for (const p of pairs.slice(0, MAX_PAIRS)) {
    const i = p.indexOf("=");
    const [k, kBad] = decodePart(i < 0 ? p : p.slice(0, i));
    const [v, vBad] = decodePart(i < 0 ? "" : p.slice(i + 1));
    const key = k.trim();
    if (!Object.prototype.hasOwnProperty.call(table, key)) {
      if (!unknown.has(key)) unknown.set(key, v);
      continue;
    }
    if (kBad || vBad) {
      notices.push({ key, value: shown(i < 0 ? "" : p.slice(i + 1)), text: `is not valid URL text; used ${spell(key, table[key].default, table)}` });
      raw.delete(key);
      continue;
    }
    if (!raw.has(key)) raw.set(key, []);
    raw.get(key).push(v);
  }
  for (const key of ORDER) {
    if (!raw.has(key) || !table[key]) continue;
    const d = decide(key, raw.get(key), table[key]);
    settings[key] = d.value;
    if (!d.refused) given.push(key);
    if (d.why) notices.push({ key, value: shown(raw.get(key)[raw.get(key).length - 1]), text: d.why });
  }
  for (const [key, v] of unknown) {
    const k = shown(key, 24);
    notices.push({ key: k, value: shown(v),
      text: APP_ONLY.includes(key) ? "is a setting of the app that this page does not have: ignored"
        : "is not a setting of this page: ignored" });
  }
  return { settings, given, notices };
}

/**
 * The canonical fragment for settings (every key; classroom only when on, speed only when not normal, the
 * language only when it is not the page's default: a shared link leaves each reader in their own).
 */
export function toFragment(settings, table) {
  const parts = [];
  for (const key of ORDER) {
    if (!table[key] || settings[key] === undefined || settings[key] === null) continue;
    if (key === "classroom" && !settings[key]) continue;
    if (key === "speed" && settings[key] === DEFAULT_SPEED) continue;
    if (key === "lang" && table.lang && settings[key] === table.lang.default) continue;
    parts.push(`${key}=${encodeURIComponent(spell(key, settings[key], table))}`);
  }
  return parts.join("&");
}

/** A notice as one line of plain text ("lam=abc is not a number …; used 1"). */
export function noticeText(n) {
  return n.key === "link" && !n.value ? n.text : `${n.key}=${n.value} ${n.text}`;
}

/**
 * What changed between two settings, split the way the run needs it: keys whose change needs a new run
 * from t = 0 (the data, the model, the start), keys that continue the run (λ, max iterations, tolerance),
 * and keys that change only the page (t, speed, classroom, lang).
 */
export const REBUILD_KEYS = ["dataset", "model", "hidden", "init", "seed"];
export const CONTINUE_KEYS = ["lam", "max_iter", "tol"];
export function changes(old, now) {
  const diff = (keys) => keys.filter((k) => old[k] !== now[k]);
  return { rebuild: diff(REBUILD_KEYS), cont: diff(CONTINUE_KEYS), page: diff(["t", "speed", "classroom", "lang"]) };
}
