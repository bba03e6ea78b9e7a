// node --test tests/lab/js/questions.test.mjs — the teacher's questions on the class page (nblab/js/questions.js):
// ids read as nblab/questions.py writes them, options named from the page's own data, the browser's token.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as Q from "../../../nblab/js/questions.js";

const DATA = { classNames: ["ham", "spam"], featureNames: ["win", "free", "\u202Eevil", "<b>x</b>", "hello"],
  texts: ["  Win   a FREE\ncruise ", "hi mum"] };

test("ids say what they ask, as nblab/questions.py writes them", () => {
  assert.deepEqual(Q.parseQid("q1-a0"), { n: 1, kind: "alpha", k: 0 });
  assert.deepEqual(Q.parseQid("q12-b"), { n: 12, kind: "beta" });
  assert.deepEqual(Q.parseQid("q3-d145"), { n: 3, kind: "doc", doc: 145 });
  assert.deepEqual(Q.parseQid("q4-acc"), { n: 4, kind: "acc" });
  for (const bad of ["", "q-a0", "q1-x", "q1-a0 ", "r1-b", null, 7, "q1-acc2", "q1-a0\n"]) assert.equal(Q.parseQid(bad), null, String(bad));
});

test("a state's question is kept only with a known id and phase", () => {
  assert.deepEqual(Q.validQuestion({ id: "q1-b", phase: "revealed" }), { id: "q1-b", phase: "revealed" });
  for (const bad of [null, "q1-b", { id: "q1-b" }, { id: "x", phase: "open" }, { id: "q1-b", phase: "OPEN" }]) {
    assert.equal(Q.validQuestion(bad), null, JSON.stringify(bad));
  }
});

test("options are named from the page's data, as plain strings", () => {
  const a = Q.describe({ question: "q1-a1", kind: "choice", options: ["up", "down"] }, DATA);
  assert.equal(a.prompt, "At the next Step, does α of class spam go up or down?");
  assert.deepEqual(a.choices, [{ id: "up", label: "Up" }, { id: "down", label: "Down" }]);
  const b = Q.describe({ question: "q2-b", kind: "choice", options: ["f3", "f0", "f2", "f4"] }, DATA);
  assert.deepEqual(b.choices.map((c) => c.label), ["<b>x</b>", "win", "\u202Eevil", "hello"]);
  const d = Q.describe({ question: "q3-d0", kind: "choice", options: ["c0", "c1"] }, DATA);
  assert.equal(d.subject, "#0 Win a FREE cruise");
  assert.deepEqual(d.choices.map((c) => c.label), ["ham", "spam"]);
  const n = Q.describe({ question: "q4-acc", kind: "number", lo: 0, hi: 100 }, DATA);
  assert.equal(n.choices, null);
  assert.deepEqual([n.lo, n.hi], [0, 100]);
  // an option the data do not name reads as its id; a question of the wrong shape is not shown
  assert.equal(Q.describe({ question: "q5-b", kind: "choice", options: ["f99", "f0"] }, DATA).choices[0].label, "f99");
  assert.equal(Q.describe({ question: "q5-b", kind: "choice", options: ["<i>", "f0"] }, DATA), null);
  assert.equal(Q.describe({ question: "q5-acc", kind: "choice", options: ["a", "b"] }, DATA), null);
  assert.equal(Q.describe({ question: "nope", kind: "choice", options: ["a", "b"] }, DATA), null);
  assert.equal(Q.describe(null, DATA), null);
});

test("a typed number is taken only when finite and in range", () => {
  assert.equal(Q.numberAnswer("87.5", 0, 100), 87.5);
  assert.equal(Q.numberAnswer(" 87,5 ", 0, 100), 87.5);
  assert.equal(Q.numberAnswer("100", 0, 100), 100);
  for (const bad of ["", "abc", "101", "-1", "1e400", "NaN", "Infinity", "0x10", null]) assert.equal(Q.numberAnswer(bad, 0, 100), null, String(bad));
});

test("the browser's token: 256 random bits, made once and kept", () => {
  const store = new Map();
  const storage = { getItem: (k) => (store.has(k) ? store.get(k) : null), setItem: (k, v) => store.set(k, v) };
  let calls = 0;
  const rand = (b) => { calls++; for (let i = 0; i < b.length; i++) b[i] = (i * 37 + 11) & 255; };
  const tok = Q.tokenFrom(storage, rand);
  assert.match(tok, Q.TOKEN_RE);
  assert.equal(tok.length, 43);   // 32 bytes in base64url
  assert.equal(Q.tokenFrom(storage, rand), tok);
  assert.equal(calls, 1);
  store.set(Q.TOKEN_KEY, "short");   // a token of the wrong shape is made again
  assert.notEqual(Q.tokenFrom(storage, rand), "short");
  const broken = { getItem: () => { throw new Error("no"); }, setItem: () => { throw new Error("no"); } };
  assert.match(Q.tokenFrom(broken, rand), Q.TOKEN_RE);
  const a = Q.makeToken((b) => globalThis.crypto.getRandomValues(b)), b = Q.makeToken((x) => globalThis.crypto.getRandomValues(x));
  assert.notEqual(a, b);
});

test("the routes sit next to the state; the body has exactly token and answer", () => {
  assert.deepEqual(Q.routes("http://h/class/AbC/state.json", "q1-b"), { question: "http://h/class/AbC/q/q1-b",
    answer: "http://h/class/AbC/q/q1-b/answer", mine: "http://h/class/AbC/q/q1-b/mine", tally: "http://h/class/AbC/q/q1-b/tally" });
  assert.deepEqual(JSON.parse(Q.answerBody("t".repeat(43), "up")), { token: "t".repeat(43), answer: "up" });
});

test("the revealed tally as rows: every option, its count, the right one marked", () => {
  const desc = Q.describe({ question: "q1-a0", kind: "choice", options: ["up", "down"] }, DATA);
  assert.deepEqual(Q.tallyRows({ right: "down", counts: { up: 2, down: 1 } }, desc),
    [{ id: "up", label: "Up", count: 2, right: false }, { id: "down", label: "Down", count: 1, right: true }]);
  assert.deepEqual(Q.tallyRows({ right: "up", counts: { up: -3 } }, desc).map((r) => r.count), [0, 0]);
  assert.equal(Q.tallyRows(null, desc), null);
});
