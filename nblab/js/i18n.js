// @ts-check
// The lab page in the class's language: the lookup of nblab/i18n.py's catalogues, compiled into catalogue.js
// (`python -m nblab.i18n compile`). No DOM: the page (boot.js) chooses the language once, the page's modules
// call t() and tn(); node's test runner imports this file directly.
//
//   t(msgid, params)                 the text in the page's language, its {named} placeholders filled
//   tn(singular, plural, n, params)  the form for n under the language's plural rule ({n} is n unless given)
//   number(v, digits), numberG(v), percent(acc, digits): numbers in the language's spelling
//
// The msgids are the English texts: a string the language's catalogue lacks reads in English, never as a key.
// Numbers keep the rounding the page always used (toFixed) and take the locale's symbols from Babel's CLDR data
// (decimal comma, thousands separator, the percent sign's spacing), so English reads exactly as before and the
// other languages as nblab.i18n writes them.

import { LANGS, NAMES, PLURALS, NUMBERS, MESSAGES } from "./catalogue.js";

export { LANGS, NAMES };
export const DEFAULT_LANG = "en";

let current = DEFAULT_LANG;

const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** Our language for a tag or a list of tags ("de-AT", ["fr-CA", "en"]): the first one we speak, else English. */
export function pick(wanted) {
  const tags = typeof wanted === "string" ? [wanted] : Array.from(wanted || []);
  for (const tag of tags) {
    const base = String(tag).trim().replace(/_/g, "-").split("-")[0].toLowerCase();
    if (LANGS.includes(base)) return base;
  }
  return DEFAULT_LANG;
}

//: where a page of its own keeps the tab's choice of language for the session (sessionStorage)
export const SESSION_KEY = "nblab-lang";

/**
 * The language a page of its own starts in when its link says none: the one this tab's session chose (the
 * picker, a link), else the browser's first one we speak (navigator.languages), else English. A stored value
 * that is not one of ours is passed over.
 */
export function startLang(stored, browser) {
  const tags = Array.from(browser || []);
  return pick(stored && LANGS.includes(String(stored)) ? [String(stored), ...tags] : tags);
}

/** Make `lang` the page's language (one we do not speak: English). Returns the language set. */
export function setLang(lang) {
  current = LANGS.includes(lang) ? lang : DEFAULT_LANG;
  return current;
}
/** The page's language. */
export function lang() { return current; }

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Named placeholders filled in one pass ({name} → params.name); a placeholder without a value stays. */
export function fill(text, params) {
  if (!params) return text;
  return text.replace(PLACEHOLDER, (m, name) => (own(params, name) ? String(params[name]) : m));
}

function messages(lang) { return own(MESSAGES, lang) ? MESSAGES[lang] : {}; }

/** `msgid` in `lang`, placeholders filled (English when the catalogue lacks it). */
export function translate(lang, msgid, params) {
  const m = messages(lang);
  const text = own(m, msgid) && typeof m[msgid] === "string" ? m[msgid] : msgid;
  return fill(/** @type {string} */ (text), params);
}

/** The index of n's form in `lang` (Babel's Plural-Forms). */
export function pluralIndex(lang, n) {
  return (own(PLURALS, lang) ? PLURALS[lang] : PLURALS.en)(n);
}

/** The form of n in `lang`, placeholders filled ({n} is n unless params give it); English's when untranslated. */
export function translatePlural(lang, singular, plural, n, params) {
  const m = messages(lang);
  const forms = own(m, singular) ? m[singular] : null;
  let text;
  if (Array.isArray(forms)) text = forms[pluralIndex(lang, n)] ?? forms[forms.length - 1];
  else text = PLURALS.en(n) === 0 ? singular : plural;
  return fill(text, Object.assign({ n }, params || {}));
}

/** `msgid` in the page's language. */
export function t(msgid, params) { return translate(current, msgid, params); }
/** The form of n in the page's language. */
export function tn(singular, plural, n, params) { return translatePlural(current, singular, plural, n, params); }

// ---- numbers -------------------------------------------------------------------------------------------------

function symbols(lang) { return own(NUMBERS, lang) ? NUMBERS[lang] : NUMBERS.en; }

/** A plain spelling ("-1,234.5": comma groups, dot decimal, hyphen minus) in `lang`'s symbols. */
export function localise(plain, lang = current) {
  const s = symbols(lang);
  const map = { ",": s.group, ".": s.decimal, "-": s.minus };
  return String(plain).replace(/[,.-]/g, (c) => map[c]);
}

// "1234567.5" → "1,234,567.5" (groups of three, as Python's "{:,}")
function grouped(fixed) {
  const [int, frac] = fixed.split(".");
  const g = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return frac === undefined ? g : `${g}.${frac}`;
}
const negative = (v) => v < 0 || Object.is(v, -0);

/**
 * v with `digits` decimals in `lang`'s spelling ("1,234.5", "1.234,5", "1 234,5"): nblab.i18n.number. Rounded
 * as the page always rounded its log-likelihood (toLocaleString: the shortest decimal of v, half away from 0).
 */
export function number(v, digits = 0, lang = current) {
  const en = Math.abs(v).toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return localise((negative(v) ? "-" : "") + en, lang);
}

/** v in its shortest spelling for the lesson's settings (0.5, 1, 40; Python's "{:g}" from 1e-4 to 1e6). */
export function numberG(v, lang = current) {
  return localise(String(parseFloat(Number(v).toPrecision(6))), lang);
}

/** A share as `lang` writes a percentage ("85.3%", "85,3 %"), the rounding of lab.js's percent. */
export function percent(acc, digits = 1, lang = current) {
  const s = symbols(lang);
  const x = acc * 100;
  return s.percentPrefix + localise((negative(x) ? "-" : "") + grouped(Math.abs(x).toFixed(digits)), lang) + s.percentSuffix;
}
