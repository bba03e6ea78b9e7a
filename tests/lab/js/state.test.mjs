// node --test tests/lab/js/state.test.mjs — the lab's URL fragment (nblab/js/state.js): the app's keys,
// hostile values refused with a notice naming the key and the value used, the canonical fragment back.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as S from "../../../nblab/js/state.js";

// nblab/defaults.py's values (the page passes them in; a Python test checks the page does)
const CFG = {
  defaults: { dataset: "sms_spam", hidden: 90, lam: 1.0, init: "labeled", seed: 0, max_iter: 100, tol: 1e-6, classroom: false, speed: "normal" },
  lambdas: [0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0],
  tols: [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8],
  inits: ["uniform", "random", "labeled"],
  seedMax: 9999, maxIterMax: 1000, datasets: ["sms_spam"], models: ["bernoulli", "multinomial"],
};
const T = S.schema(CFG);
const parse = (h) => S.parseFragment(h, T);
const noticeFor = (r, key) => r.notices.find((n) => n.key === key);

test("no fragment: the defaults, no notice", () => {
  const r = parse("");
  assert.deepEqual(r.notices, []);
  assert.equal(r.settings.dataset, "sms_spam");
  assert.equal(r.settings.model, "bernoulli");
  assert.equal(r.settings.hidden, 90);
  assert.equal(r.settings.lam, 1);
  assert.equal(r.settings.tol, 1e-6);
  assert.equal(r.settings.t, 0);
  assert.equal(r.settings.classroom, false);
});

test("the app's spelling of every key is read as given", () => {
  const r = parse("#dataset=sms_spam&model=multinomial&hidden=95&lam=0.1&init=uniform&seed=7&max_iter=50&tol=1e-04&t=5&classroom=true&speed=fast");
  assert.deepEqual(r.notices, []);
  assert.deepEqual(r.settings, { dataset: "sms_spam", model: "multinomial", hidden: 95, lam: 0.1, init: "uniform", seed: 7,
    max_iter: 50, tol: 1e-4, t: 5, speed: "fast", classroom: true, lang: "en" });
  assert.deepEqual(r.given.sort(), ["classroom", "dataset", "hidden", "init", "lam", "max_iter", "model", "seed", "speed", "t", "tol"]);
});

test("round trip: toFragment then parseFragment gives the same settings", () => {
  const s = { dataset: "sms_spam", model: "multinomial", hidden: 97, lam: 0.003, init: "random", seed: 9999, max_iter: 1000,
    tol: 1e-8, t: 12, speed: "slowest" === "x" ? "slow" : "slow", classroom: true, lang: "en" };
  const frag = S.toFragment(s, T);
  assert.equal(frag, "dataset=sms_spam&model=multinomial&hidden=97&lam=0.003&init=random&seed=9999&max_iter=1000&tol=1e-08&t=12&speed=slow&classroom=true");
  const r = parse("#" + frag);
  assert.deepEqual(r.notices, []);
  assert.deepEqual(r.settings, s);
  for (const lam of CFG.lambdas) assert.equal(parse("lam=" + S.fmtLam(lam)).settings.lam, lam);
  for (const tol of CFG.tols) assert.equal(parse("tol=" + S.fmtTol(tol)).settings.tol, tol);
});

test("Python's spelling of λ and the tolerance", () => {
  assert.deepEqual(CFG.lambdas.map(S.fmtLam), ["0", "0.001", "0.003", "0.01", "0.03", "0.1", "0.3", "1", "3", "10"]);
  assert.deepEqual(CFG.tols.map(S.fmtTol), ["1e-02", "1e-03", "1e-04", "1e-05", "1e-06", "1e-07", "1e-08"]);
  assert.equal(S.fmtG(1e-5), "1e-05");
  assert.equal(S.fmtG(123456789), "1.23457e+08");
});

test("out of range: refused, the default used, the key named", () => {
  for (const [frag, key, used] of [["hidden=150", "hidden", "90"], ["hidden=-1", "hidden", "90"], ["lam=100", "lam", "1"],
    ["lam=-0.1", "lam", "1"], ["seed=10000", "seed", "0"], ["max_iter=0", "max_iter", "100"], ["max_iter=1e9", "max_iter", "100"],
    ["tol=1", "tol", "1e-06"], ["t=5000", "t", "0"]]) {
    const r = parse(frag);
    const n = noticeFor(r, key);
    assert.ok(n, frag);
    assert.match(n.text, /outside/);
    assert.ok(n.text.endsWith("used " + used), `${frag}: ${n.text}`);
    assert.equal(S.spell(key, r.settings[key], T), used);
  }
});

test("wrong type, huge, script-like: refused with the default", () => {
  const bad = ["hidden=abc", "hidden=", "lam=NaN", "lam=Infinity", "lam=1e400", "lam=1e-400", "seed=0x10", "seed=1_0",
    "seed=%D9%A5%D9%A0", "hidden=%EF%BC%95%EF%BC%90", "max_iter=" + "9".repeat(500),
    "model=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E", "init=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "dataset=..%2F..%2Fetc%2Fpasswd",
    "classroom=maybe", "speed=warp", "tol=%E2%80%AE1e-3"];
  for (const frag of bad) {
    const r = parse(frag);
    const key = frag.split("=")[0];
    const n = noticeFor(r, key);
    assert.ok(n, frag);
    assert.equal(r.settings[key], T[key].default, frag);
    assert.ok(n.text.includes("used "), frag);
    assert.ok(n.value.length <= S.MAX_SHOWN, frag);
    assert.ok(!/[\u0000-\u001f]/.test(n.value), frag);
  }
  assert.match(noticeFor(parse("lam=1e400"), "lam").text, /too large/);
  assert.match(noticeFor(parse("lam=1e-400"), "lam").text, /too close to 0/);
  assert.match(noticeFor(parse("model=<b>x</b>"), "model").text, /not a event model of this page \(bernoulli, multinomial\); used bernoulli/);
  assert.equal(noticeFor(parse("model=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"), "model").value, "<img src=x onerror=alert(1)>");
});

test("between the grid's points: the nearest (log scale), with a notice", () => {
  let r = parse("lam=0.5");
  assert.equal(r.settings.lam, 0.3);
  assert.match(noticeFor(r, "lam").text, /used the nearest, 0.3$/);
  r = parse("lam=0.0005");
  assert.equal(r.settings.lam, 0.001);
  r = parse("lam=0");
  assert.equal(r.settings.lam, 0);
  assert.deepEqual(r.notices, []);
  r = parse("lam=1.0");
  assert.equal(r.settings.lam, 1);
  assert.deepEqual(r.notices, []);
  r = parse("tol=2e-6");
  assert.equal(r.settings.tol, 1e-6);
  assert.ok(noticeFor(r, "tol"));
  r = parse("tol=0.001");
  assert.equal(r.settings.tol, 1e-3);
  assert.deepEqual(r.notices, []);
});

test("a fraction for a whole number: the nearest whole number, with a notice", () => {
  const r = parse("hidden=97.6&seed=3.2");
  assert.equal(r.settings.hidden, 98);
  assert.equal(r.settings.seed, 3);
  assert.match(noticeFor(r, "hidden").text, /not a whole number; used 98/);
});

test("a key given twice: the last counts, with a notice; case and spaces of names forgiven", () => {
  const r = parse("hidden=10&hidden=20&model=Multinomial&init=%20random%20");
  assert.equal(r.settings.hidden, 20);
  assert.match(noticeFor(r, "hidden").text, /given 2 times/);
  assert.equal(r.settings.model, "multinomial");
  assert.equal(r.settings.init, "random");
});

test("unknown keys and the app's other keys: ignored with a notice", () => {
  const r = parse("uw=0.5&foo=%3Cb%3E&lam=0.1");
  assert.equal(r.settings.lam, 0.1);
  assert.match(noticeFor(r, "uw").text, /app that this page does not have/);
  assert.match(noticeFor(r, "foo").text, /not a setting of this page/);
  assert.equal(noticeFor(r, "foo").value, "<b>");
});

test("broken percent-encoding, very long fragments, many pairs", () => {
  let r = parse("lam=%E0%A4%A&hidden=50");
  assert.equal(r.settings.lam, 1);
  assert.match(noticeFor(r, "lam").text, /not valid URL text/);
  assert.equal(r.settings.hidden, 50);
  r = parse("x=" + "a".repeat(10000));
  assert.ok(r.notices.some((n) => n.key === "link"));
  r = parse(Array.from({ length: 100 }, (_, i) => `k${i}=1`).join("&"));
  assert.ok(r.notices.some((n) => n.key === "link" && /only the first 40/.test(n.text)));
});

test("a long value is cut in the notice", () => {
  const r = parse("dataset=" + "x".repeat(150));
  const n = noticeFor(r, "dataset");
  assert.equal(Array.from(n.value).length, S.MAX_SHOWN);
  assert.ok(n.value.endsWith("…"));
});

test("changes(): which keys rebuild, which continue", () => {
  const a = S.defaults(T);
  assert.deepEqual(S.changes(a, { ...a, lam: 0.1 }), { rebuild: [], cont: ["lam"], page: [] });
  assert.deepEqual(S.changes(a, { ...a, hidden: 50, tol: 1e-3, t: 4 }), { rebuild: ["hidden"], cont: ["tol"], page: ["t"] });
});

test("noticeText", () => {
  assert.equal(S.noticeText({ key: "lam", value: "abc", text: "is not a number; used 1" }), "lam=abc is not a number; used 1");
});
