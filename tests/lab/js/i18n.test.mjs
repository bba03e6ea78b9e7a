// node --test tests/lab/js/i18n.test.mjs — the lab page's lookup (nblab/js/i18n.js) over the compiled catalogue
// (nblab/js/catalogue.js), and the language key of the lab's fragment (state.js). tests/lab/test_i18n_parity.py
// checks every msgid against nblab.i18n; these check the rules themselves.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as I from "../../../nblab/js/i18n.js";
import * as S from "../../../nblab/js/state.js";

test("a text in each language, English where the catalogue lacks it, never a key", () => {
  assert.equal(I.translate("de", "Settings"), "Einstellungen");
  assert.equal(I.translate("es", "Settings"), "Ajustes");
  assert.equal(I.translate("fr", "Settings"), "Réglages");
  assert.equal(I.translate("en", "Settings"), "Settings");
  assert.equal(I.translate("de", "No such text {x}", { x: 3 }), "No such text 3");
  assert.equal(I.translate("xx", "Settings"), "Settings");
  // the object's own names are not messages
  for (const k of ["constructor", "__proto__", "toString", "hasOwnProperty"]) assert.equal(I.translate("fr", k), k);
});

test("named placeholders: filled once, an unknown one stays, a value is text", () => {
  assert.equal(I.fill("{a} and {b}", { a: "{b}", b: "x" }), "{b} and x");
  assert.equal(I.fill("{a} {missing}", { a: 1 }), "1 {missing}");
  assert.equal(I.translate("es", "Accuracy (t={t})", { t: 12 }), "Exactitud (t=12)");
  assert.equal(I.translate("fr", "Status: {status}", { status: "<b>x</b>" }), "État\u00a0: <b>x</b>");
});

test("plurals follow each language's rule: French 0 is singular, Spanish 0 plural, a million is French 'many'", () => {
  const one = "max {n} iteration", many = "max {n} iterations";
  assert.deepEqual([0, 1, 2].map((n) => I.translatePlural("en", one, many, n)), ["max 0 iterations", "max 1 iteration", "max 2 iterations"]);
  assert.deepEqual([0, 1, 2].map((n) => I.translatePlural("de", one, many, n)), ["max. 0 Iterationen", "max. 1 Iteration", "max. 2 Iterationen"]);
  assert.deepEqual([0, 1, 2].map((n) => I.translatePlural("fr", one, many, n)), ["max. 0 itération", "max. 1 itération", "max. 2 itérations"]);
  assert.deepEqual([0, 1, 2].map((n) => I.translatePlural("es", one, many, n)), ["máx. 0 iteraciones", "máx. 1 iteración", "máx. 2 iteraciones"]);
  assert.equal(I.translatePlural("fr", one, many, 1000000), "max. 1000000 d’itérations");
  assert.equal(I.translatePlural("fr", one, many, 5, { n: "cinq" }), "max. cinq itérations");
  // a plural the catalogue lacks: English's forms
  assert.equal(I.translatePlural("de", "{n} new thing", "{n} new things", 1), "1 new thing");
  assert.equal(I.translatePlural("de", "{n} new thing", "{n} new things", 0), "0 new things");
  assert.deepEqual([0, 1, 2, 1000000, 2000000, 1000001].map((n) => I.pluralIndex("es", n)), [2, 0, 2, 1, 1, 2]);
  assert.deepEqual([0, 1, 2, 1000000].map((n) => I.pluralIndex("de", n)), [1, 0, 1, 1]);
});

test("numbers in each locale: decimal comma, thousands separator, the percent sign's spacing", () => {
  assert.deepEqual(I.LANGS.map((l) => I.number(-1234567.891, 1, l)), ["-1,234,567.9", "-1.234.567,9", "-1.234.567,9", "-1\u202f234\u202f567,9"]);
  assert.deepEqual(I.LANGS.map((l) => I.percent(0.853, 1, l)), ["85.3%", "85,3\u00a0%", "85,3\u00a0%", "85,3\u00a0%"]);
  assert.deepEqual(I.LANGS.map((l) => I.numberG(0.5, l)), ["0.5", "0,5", "0,5", "0,5"]);
  assert.equal(I.number(-0.01, 1, "en"), "-0.0");
  assert.equal(I.percent(1, 0, "de"), "100\u00a0%");
});

test("English numbers are the page's own spelling (toLocaleString, lab.js's percent)", async () => {
  const { percent } = await import("../../../nblab/js/lab.js");
  for (const acc of [0, 0.853, 0.97049, 0.9995, 1, 1 / 3, 2 / 3, 0.8525]) assert.equal(I.percent(acc, 1, "en"), percent(acc));
  for (const v of [-1234.05, -98765.4321, 0.05, 12.25, -2.675])
    assert.equal(I.number(v, 1, "en"), v.toLocaleString("en", { minimumFractionDigits: 1, maximumFractionDigits: 1 }));
});

test("the page's language: the browser's when it is ours, else English", () => {
  assert.equal(I.pick(["de-AT", "en"]), "de");
  assert.equal(I.pick(["pt-BR", "fr-CA"]), "fr");
  assert.equal(I.pick("es_ES"), "es");
  assert.equal(I.pick(["pt-BR", "zh"]), "en");
  assert.equal(I.pick([]), "en");
  try {
    assert.equal(I.setLang("de"), "de");
    assert.equal(I.t("Iteration"), "Iteration");
    assert.equal(I.t("Settings"), "Einstellungen");
    assert.equal(I.setLang("xx"), "en");
    assert.equal(I.t("Settings"), "Settings");
  } finally { I.setLang("en"); }
});

const CFG = {
  defaults: { dataset: "sms_spam", hidden: 90, lam: 1.0, init: "labeled", seed: 0, max_iter: 100, tol: 1e-6, classroom: false, speed: "normal" },
  lambdas: [0.0, 0.01, 1.0], tols: [1e-6], inits: ["uniform", "random", "labeled"], seedMax: 9999, maxIterMax: 1000,
  datasets: ["sms_spam"], models: ["bernoulli"],
};

test("lang in the fragment: one of ours is taken, another refused with a notice, the default used", () => {
  const T = S.schema(Object.assign({}, CFG, { lang: "fr" }));
  assert.equal(S.parseFragment("", T).settings.lang, "fr");
  const de = S.parseFragment("#lang=de", T);
  assert.equal(de.settings.lang, "de");
  assert.deepEqual(de.notices, []);
  assert.deepEqual(de.given, ["lang"]);
  assert.equal(S.parseFragment("#lang=DE", T).settings.lang, "de");
  const bad = S.parseFragment("#lang=klingon", T);
  assert.equal(bad.settings.lang, "fr");
  assert.deepEqual(bad.notices.map(S.noticeText), ["lang=klingon is not a language of this page (en, es, de, fr); used fr"]);
  // a browser in a language we do not speak: English
  assert.equal(S.schema(Object.assign({}, CFG, { lang: "pt" })).lang.default, "en");
  assert.equal(S.schema(CFG).lang.default, "en");
});

test("the link says the language only when it is not the reader's default, and a change is the page's", () => {
  const T = S.schema(Object.assign({}, CFG, { lang: "de" }));
  const s = S.defaults(T);
  assert.ok(!S.toFragment(s, T).includes("lang="));
  assert.ok(S.toFragment(Object.assign({}, s, { lang: "es" }), T).endsWith("&lang=es"));
  const c = S.changes(s, Object.assign({}, s, { lang: "es" }));
  assert.deepEqual(c, { rebuild: [], cont: [], page: ["lang"] });
});

test("a page of its own starts in the session's language, else the browser's, else English", () => {
  assert.equal(I.SESSION_KEY, "nblab-lang");
  assert.equal(I.startLang("de", ["fr-FR", "en"]), "de");
  assert.equal(I.startLang(null, ["fr-FR", "en"]), "fr");
  assert.equal(I.startLang(undefined, []), "en");
  // a stored value that is not one of ours (another page's, a hand-edited one) is passed over
  assert.equal(I.startLang("klingon", ["es-MX"]), "es");
  assert.equal(I.startLang("de-AT", ["es-MX"]), "es");
  assert.equal(I.startLang("", ["pt-BR"]), "en");
  assert.equal(I.startLang("__proto__", null), "en");
});

test("the picker's label and each language's own name; a text no catalogue has reads in English, filled", () => {
  assert.deepEqual(I.LANGS.map((l) => I.translate(l, "Language")), ["Language", "Idioma", "Sprache", "Langue"]);
  assert.deepEqual(Object.values(I.NAMES), ["English", "Español", "Deutsch", "Français"]);
  for (const l of I.LANGS) {
    assert.equal(I.translate(l, "A text no catalogue has, t = {t}", { t: 4 }), "A text no catalogue has, t = 4");
    assert.equal(I.translatePlural(l, "{n} text no catalogue has", "{n} texts no catalogue has", 2), "2 texts no catalogue has");
  }
});
