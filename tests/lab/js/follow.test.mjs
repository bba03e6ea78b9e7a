// node --test tests/lab/js/follow.test.mjs — following the teacher (nblab/js/follow.js): a teacher's state
// from the network checked defensively, what the page must do with it, the follow / explore / ended states.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as F from "../../../nblab/js/follow.js";
import * as S from "../../../nblab/js/state.js";

// nblab/defaults.py's values (as state.test.mjs)
const CFG = {
  defaults: { dataset: "toy_spam", hidden: 90, lam: 1.0, init: "labeled", seed: 0, max_iter: 100, tol: 1e-6, classroom: false, speed: "normal" },
  lambdas: [0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0],
  tols: [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8],
  inits: ["uniform", "random", "labeled"],
  seedMax: 9999, maxIterMax: 1000, datasets: ["toy_spam"], models: ["bernoulli", "multinomial"],
};
const T = S.schema(CFG);
const good = (over = {}) => Object.assign({ class: "abcdefghijklmnop", v: 3, data: "toy_spam",
  settings: { dataset: "toy_spam", model: "bernoulli", hidden: 50, lam: 0.01, init: "labeled", seed: 0, max_iter: 100, tol: 1e-6 },
  t: 4, half: null, open: true }, over);
const current = (over = {}) => Object.assign({ settings: S.defaults(T), t: 0, latest: 0, half: null, dataKey: "toy_spam" }, over);

// ---- validation ------------------------------------------------------------------------------------------------

test("a well-formed state is read as given", () => {
  const { state, problems } = F.validateState(good(), T);
  assert.deepEqual(problems, []);
  assert.equal(state.v, 3);
  assert.equal(state.t, 4);
  assert.equal(state.half, null);
  assert.equal(state.data, "toy_spam");
  assert.equal(state.open, true);
  assert.deepEqual(state.settings, { model: "bernoulli", hidden: 50, lam: 0.01, init: "labeled", seed: 0, max_iter: 100, tol: 1e-6 });
  assert.equal(F.validateState(good({ half: "e" }), T).state.half, "e");
});

test("not an object, or a wrong version or iteration: the whole state is refused", () => {
  for (const raw of [null, 5, "x", [], [good()], true]) assert.equal(F.validateState(raw, T).state, null, JSON.stringify(raw));
  for (const v of [undefined, "3", -1, 1.5, 1e300, Infinity, NaN, null, [3], { v: 3 }, 2 ** 60])
    assert.equal(F.validateState(good({ v }), T).state, null, `v=${String(v)}`);
  for (const t of [undefined, "4", -1, 2.5, 1001, 1e308, Infinity, NaN, null, true, [4], { t: 4 }])
    assert.equal(F.validateState(good({ t }), T).state, null, `t=${String(t)}`);
  assert.equal(F.validateState(good({ settings: [1, 2] }), T).state, null);
  assert.equal(F.validateState(good({ settings: "lam=1" }), T).state, null);
  const r = F.validateState(good({ t: "4" }), T);
  assert.match(r.problems[0], /iteration/);
});

test("settings of the wrong type or out of range are left out, with a problem naming them", () => {
  const { state, problems } = F.validateState(good({ settings: {
    model: "<img src=x onerror=alert(1)>", hidden: 1e9, lam: "0.01", init: { a: 1 }, seed: [1], max_iter: -5, tol: Infinity } }), T);
  assert.ok(state);
  // lam as the text "0.01" is still λ = 0.01 (a link's value is text too)
  assert.deepEqual(state.settings, { lam: 0.01 });
  for (const k of ["model", "hidden", "init", "seed", "max_iter", "tol"]) assert.ok(problems.some((p) => p.includes(`settings.${k}`)), k);
  // a λ between the grid's points snaps to the nearest, as a link's does
  assert.equal(F.validateState(good({ settings: { lam: 0.011 } }), T).state.settings.lam, 0.01);
  // a long string is not even parsed
  assert.deepEqual(F.validateState(good({ settings: { model: "b".repeat(100000) } }), T).state.settings, {});
});

test("unknown keys and prototype keys are ignored; half, data and open are checked", () => {
  const raw = JSON.parse('{"v":1,"t":2,"__proto__":{"following":false},"constructor":1,"settings":{"__proto__":{"lam":3},"evil":"<script>","lam":0.1},"extra":[1,2]}');
  const { state } = F.validateState(raw, T);
  assert.deepEqual(Object.keys(state).sort(), ["away", "data", "half", "open", "paused", "question", "settings", "t", "v"]);
  assert.deepEqual(state.settings, { lam: 0.1 });
  assert.equal(Object.getPrototypeOf(state.settings), Object.prototype);
  assert.equal(F.validateState(good({ half: "m" }), T).state.half, null);
  assert.equal(F.validateState(good({ half: 1 }), T).state.half, null);
  assert.equal(F.validateState(good({ data: "../../etc/passwd" }), T).state.data, null);
  assert.equal(F.validateState(good({ data: "<b>x</b>" }), T).state.data, null);
  assert.equal(F.validateState(good({ data: 7 }), T).state.data, null);
  assert.equal(F.validateState(good({ data: "AbC_12-x" }), T).state.data, "AbC_12-x");
  assert.equal(F.validateState(good({ open: false }), T).state.open, false);
  assert.equal(F.validateState(good({ open: "false" }), T).state.open, true);
  // the teacher's dataset setting is not applied (the page's data is the state's data key)
  assert.equal("dataset" in F.validateState(good(), T).state.settings, false);
});

test("interval and data key helpers", () => {
  assert.equal(F.interval({ intervalMs: 2000 }), 2000);
  assert.equal(F.interval({ intervalMs: 1 }), F.MIN_INTERVAL);
  assert.equal(F.interval({ intervalMs: 1e12 }), F.MAX_DELAY);
  assert.equal(F.interval({ intervalMs: "5" }), F.DEFAULT_INTERVAL);
  assert.equal(F.interval(null), F.DEFAULT_INTERVAL);
  assert.equal(F.dataKeyOf("data/sms_spam.json"), "sms_spam");
  assert.equal(F.dataKeyOf("/class/data/AbC-12_x.json?x=1"), "AbC-12_x");
  assert.equal(F.dataKeyOf("data/a%3Cb.json"), null);
  assert.equal(F.dataKeyOf("data/x"), null);
  assert.equal(F.dataKeyOf(null), null);
  assert.equal(F.nextDelay(0, 2000), 2000);
  assert.equal(F.nextDelay(1, 2000), 4000);
  assert.equal(F.nextDelay(2, 2000), 8000);
  assert.equal(F.nextDelay(5, 2000), F.MAX_DELAY);
  assert.equal(F.nextDelay(1000, 2000), F.MAX_DELAY);
});

// ---- the plan ---------------------------------------------------------------------------------------------------

test("plan: settings that differ, split as a link's change; t and half as given", () => {
  const st = F.validateState(good(), T).state;
  const p = F.plan(current(), st);
  assert.equal(p.action, "apply");
  assert.deepEqual(p.patch, { hidden: 50, lam: 0.01 });
  assert.deepEqual(p.rebuild, ["hidden"]);
  assert.deepEqual(p.cont, ["lam"]);
  assert.equal(p.t, 4);
  assert.equal(p.half, null);
  assert.equal(p.same, false);
  // the page already there: nothing to do
  const s2 = Object.assign({}, S.defaults(T), st.settings);
  const p2 = F.plan(current({ settings: s2, t: 4, latest: 9 }), st);
  assert.deepEqual(p2.patch, {});
  assert.equal(p2.same, true);
  // only λ: a continue
  const p3 = F.plan(current({ settings: Object.assign({}, s2, { lam: 1 }), t: 4, latest: 4 }), st);
  assert.deepEqual(p3.patch, { lam: 0.01 });
  assert.deepEqual(p3.rebuild, []);
  assert.deepEqual(p3.cont, ["lam"]);
  // the E-step half: not the same until the page has it pending at t
  const se = F.validateState(good({ half: "e" }), T).state;
  assert.equal(F.plan(current({ settings: s2, t: 4, latest: 4 }), se).same, false);
  assert.equal(F.plan(current({ settings: s2, t: 4, latest: 4, half: "e" }), se).same, true);
  // a pending E-step on the page is not "at t" when the page shows an earlier iteration
  assert.equal(F.plan(current({ settings: s2, t: 4, latest: 6, half: "e" }), st).same, true);
});

test("plan: another data set means reload; an unknown data key never does", () => {
  const st = F.validateState(good({ data: "sms_spam" }), T).state;
  assert.deepEqual(F.plan(current(), st), { action: "reload", data: "sms_spam" });
  assert.equal(F.plan(current({ dataKey: null }), st).action, "apply");
  assert.equal(F.plan(current(), F.validateState(good({ data: null }), T).state).action, "apply");
});

// ---- the follower ------------------------------------------------------------------------------------------------

test("following: a new version is applied once; 304 and the same version change nothing", () => {
  const f = new F.Follower(2000);
  assert.equal(f.following, true);
  assert.match(f.bar().text, /^Following the teacher — waiting/);
  let r = f.onPoll({ status: 200, body: good() }, T);
  assert.equal(r.apply.v, 3);
  assert.equal(r.delay, 2000);
  f.done(r.apply);
  assert.equal(f.applied, 3);
  assert.equal(f.bar().text, "Following the teacher — iteration 4");
  assert.equal(f.bar().mode, "following");
  r = f.onPoll({ status: 200, body: good() }, T);
  assert.equal(r.apply, null);
  r = f.onPoll({ status: 304 }, T);
  assert.equal(r.apply, null);
  assert.equal(r.delay, 2000);
  r = f.onPoll({ status: 200, body: good({ v: 4, t: 5, half: "e" }) }, T);
  assert.equal(r.apply.t, 5);
  f.done(r.apply);
  assert.equal(f.bar().text, "Following the teacher — iteration 5 (E-step done)");
  // an older answer arriving late is not applied
  r = f.onPoll({ status: 200, body: good({ v: 2, t: 1 }) }, T);
  assert.equal(r.apply, null);
  assert.equal(f.teacher.v, 4);
  assert.equal(f.polls, 5);
});

test("leave and rejoin: while exploring, states are kept but not applied; rejoin returns the latest", () => {
  const f = new F.Follower(2000);
  f.done(f.onPoll({ status: 200, body: good() }, T).apply);
  assert.equal(f.leave(), true);
  assert.equal(f.leave(), false);
  assert.equal(f.following, false);
  const r = f.onPoll({ status: 200, body: good({ v: 7, t: 9 }) }, T);
  assert.equal(r.apply, null);
  assert.equal(r.delay, 2000);
  const bar = f.bar();
  assert.equal(bar.mode, "exploring");
  assert.equal(bar.text, "Exploring on your own — the teacher is at iteration 9");
  assert.equal(bar.button, true);
  const back = f.rejoin();
  assert.equal(back.v, 7);
  assert.equal(back.t, 9);
  assert.equal(f.following, true);
  f.done(back);
  assert.equal(f.onPoll({ status: 200, body: good({ v: 7, t: 9 }) }, T).apply, null);
  // rejoining re-applies even a version applied before (the student moved the page meanwhile)
  f.leave();
  assert.equal(f.rejoin().v, 7);
});

test("exploring before any state: no button (there is no teacher state to go back to)", () => {
  const f = new F.Follower();
  f.leave();
  assert.deepEqual(f.bar(), { mode: "exploring", button: false, text: "Exploring on your own" });
  assert.equal(f.rejoin(), null);
  assert.equal(f.following, true);
});

test("404 / 410 or open: false end the class: polling stops, no rejoin", () => {
  for (const res of [{ status: 404 }, { status: 410 }, { status: 200, body: good({ open: false }) }]) {
    const f = new F.Follower();
    f.done(f.onPoll({ status: 200, body: good() }, T).apply);
    const r = f.onPoll(res, T);
    assert.equal(r.apply, null);
    assert.equal(r.delay, null);
    assert.equal(f.ended, true);
    assert.equal(f.bar().mode, "ended");
    assert.match(f.bar().text, /^The class has ended/);
    assert.equal(f.bar().button, false);
    assert.equal(f.rejoin(), null);
  }
});

test("failures: plain words and a backoff up to 30 s, reset by the next good answer", () => {
  const f = new F.Follower(2000);
  f.done(f.onPoll({ status: 200, body: good() }, T).apply);
  const delays = [];
  for (let i = 0; i < 6; i++) delays.push(f.onPoll({ status: i % 2 ? 500 : 0 }, T).delay);
  assert.deepEqual(delays, [4000, 8000, 16000, 30000, 30000, 30000]);
  assert.equal(f.bar().text, "Can't reach the teacher's lesson — retrying (last seen at iteration 4).");
  assert.equal(f.following, true);
  assert.equal(f.ended, false);
  // an answer that is not JSON, or not a state, is a failure too (said differently)
  assert.equal(f.onPoll({ status: 200, invalid: true }, T).delay, 30000);
  assert.match(f.bar().text, /cannot read/);
  assert.equal(f.onPoll({ status: 200, body: { v: "<b>" } }, T).apply, null);
  // exploring: the trouble is said after the teacher's iteration
  f.leave();
  assert.match(f.bar().text, /^Exploring on your own — the teacher is at iteration 4\. The teacher's lesson sent/);
  const r = f.onPoll({ status: 200, body: good({ v: 9, t: 6 }) }, T);
  assert.equal(r.delay, 2000);
  assert.equal(f.failures, 0);
  assert.equal(f.bar().text, "Exploring on your own — the teacher is at iteration 6");
});

test("strings with HTML from the network never reach the bar's text", () => {
  const f = new F.Follower();
  f.onPoll({ status: 200, body: good({ class: "<img src=x onerror=alert(1)>", data: "<script>", settings: { model: "<b>" } }) }, T);
  assert.equal(f.bar().text, "Following the teacher — iteration 4");
  assert.equal(f.teacher.data, null);
});

// ---- the teacher's λ history (a student who joins after a λ change mid-run replays it) ----------------------

test("a λ history is kept when valid, and refused with a reason when not", () => {
  const table = T;
  const ok = F.validateState({ v: 3, t: 7, settings: {}, lams: [[0, 1], [5, 0.3]] }, table);
  assert.deepEqual(ok.state.lams, [[0, 1], [5, 0.3]]);
  assert.deepEqual(ok.problems, []);
  for (const bad of [[], [[1, 1]], [[0, 1], [0, 0.3]], [[0, 1], [3, -1]], [[0, "1"]], [[0, 1, 2]], "[[0,1]]",
    [[0, 1], [2, 0.3], [1, 1]], [[0, 1e400]], Array.from({ length: 65 }, (_, i) => [i, 1])]) {
    const r = F.validateState({ v: 3, t: 7, settings: {}, lams: bad }, table);
    assert.ok(r.state, "the rest of the state is still used");
    assert.equal(r.state.lams, undefined, JSON.stringify(bad));
    assert.ok(r.problems.some((p) => p.startsWith("lams:")), JSON.stringify(bad));
  }
});

test("lamAt reads the λ of each iteration off the change points", () => {
  const lams = [[0, 1], [5, 0.3], [9, 0.01]];
  assert.deepEqual([0, 4, 5, 8, 9, 30].map((i) => F.lamAt(lams, i)), [1, 1, 0.3, 0.3, 0.01, 0.01]);
  assert.equal(F.lamAt([[0, 0.1]], 100), 0.1);
});

test("firstMismatch finds where this page's run parted from the teacher's, up to the teacher's t", () => {
  const lams = [[0, 1], [6, 0.3]];    // λ 1 → 0.3 at t = 5: θ_6 is the first computed with 0.3
  const page = (hist) => (i) => hist[i];
  // a late joiner: the page ran everything at today's λ
  assert.equal(F.firstMismatch(page([0.3, 0.3, 0.3]), 2, lams, 7), 0);
  // the page followed along: the same history
  assert.equal(F.firstMismatch(page([1, 1, 1, 1, 1, 1, 0.3, 0.3]), 7, lams, 7), -1);
  // the page is behind the teacher but agrees so far
  assert.equal(F.firstMismatch(page([1, 1, 1]), 2, lams, 7), -1);
  // a student who explored and changed λ at 3
  assert.equal(F.firstMismatch(page([1, 1, 1, 1, 0.1, 0.1]), 5, lams, 7), 4);
  // only up to the teacher's t: what the page computed beyond it does not count
  assert.equal(F.firstMismatch(page([1, 1, 1, 1, 1, 1, 0.1]), 6, lams, 5), -1);
});

// ---- a state is trusted only once it validated ------------------------------------------------------------------

test("the ETag is kept only for a body that validated: a 304 to a refused answer is not good news", () => {
  const f = new F.Follower(2000);
  let out = f.onPoll({ status: 200, etag: '"3"', body: good({ v: 3, t: 4 }) }, T);
  assert.equal(out.apply.t, 4);
  f.done(out.apply);
  assert.equal(f.etag, '"3"');
  // the next answer cannot be read (a state the page refuses): its ETag is not kept, the error stays said
  out = f.onPoll({ status: 200, etag: '"900"', body: good({ v: 900, t: -1 }) }, T);
  assert.equal(out.apply, null);
  assert.equal(f.error, "bad");
  assert.equal(f.etag, null);
  // a 304 (to a revalidation the page did not ask for) clears nothing: the bar never claims a state it refused
  out = f.onPoll({ status: 304 }, T);
  assert.equal(f.error, "bad");
  assert.ok(out.delay > 2000);
  assert.match(f.bar().text, /cannot read/);
  assert.doesNotMatch(f.bar().text, /900/);
  assert.equal(f.teacher.v, 3);
  // a body that is not JSON drops the ETag as well; a good one brings it back
  f.onPoll({ status: 200, etag: '"3"', body: good({ v: 3, t: 4 }) }, T);
  assert.equal(f.etag, '"3"');
  f.onPoll({ status: 200, etag: '"4"', invalid: true }, T);
  assert.equal(f.etag, null);
  f.onPoll({ status: 200, etag: '"5"', body: good({ v: 5, t: 6 }) }, T);
  assert.equal(f.etag, '"5"');
  assert.equal(f.error, null);
  out = f.onPoll({ status: 304 }, T);
  assert.equal(f.error, null);
  assert.equal(out.delay, 2000);
  // an ETag that is not a short quoted string is never sent back
  for (const tag of [null, "3", '"a b"', '"' + "x".repeat(200) + '"', 'W/"ok"x']) {
    f.onPoll({ status: 200, etag: tag, body: good({ v: 6 }) }, T);
    assert.equal(f.etag, null, String(tag));
  }
});

test("a state the server cannot read (its 500) is not applied and is polled again with a backoff", () => {
  const f = new F.Follower(2000);
  f.done(f.onPoll({ status: 200, etag: '"1"', body: good({ v: 1 }) }, T).apply);
  const out = f.onPoll({ status: 500 }, T);
  assert.equal(out.apply, null);
  assert.ok(f.error);
  assert.ok(out.delay > 2000 && out.delay !== null);
  assert.match(f.bar().text, /retrying \(last seen at iteration 4\)/);
});

test("a teacher whose page is gone: the bar says so, the lab keeps working, and it follows when the teacher is back", () => {
  const f = new F.Follower(2000);
  let out = f.onPoll({ status: 200, etag: '"7"', body: good({ v: 7, t: 4 }) }, T);
  f.done(out.apply);
  assert.equal(F.validateState(good({ away: true }), T).state.away, true);
  assert.equal(F.validateState(good(), T).state.away, false);
  assert.equal(F.validateState(good({ away: "yes" }), T).state.away, false);
  out = f.onPoll({ status: 200, etag: '"7a"', body: good({ v: 7, t: 4, away: true }) }, T);
  assert.equal(out.apply, null);            // nothing to redo: the same version
  assert.equal(out.delay, 2000);            // still polled as often: the teacher may be back at any time
  const b = f.bar();
  assert.equal(b.mode, "following");
  assert.match(b.text, /not been heard from/);
  assert.match(b.text, /keeps working/);
  assert.match(b.text, /iteration 4/);
  f.leave();
  assert.match(f.bar().text, /Exploring on your own — the teacher is at iteration 4\. .*not been heard from/);
  f.rejoin();
  out = f.onPoll({ status: 200, etag: '"8"', body: good({ v: 8, t: 5 }) }, T);
  assert.equal(out.apply.t, 5);
  assert.doesNotMatch(f.bar().text, /heard/);
});

test("dataUrlFor puts another data key in the page's data URL, and refuses what is not a key", () => {
  assert.equal(F.dataUrlFor("data/sms_spam.json", "toy_spam"), "data/toy_spam.json");
  assert.equal(F.dataUrlFor("/class/data/a-b_c.json?x=1", "Zz_9"), "/class/data/Zz_9.json");
  for (const k of ["../x", "a/b", "", "x".repeat(101), null, 5]) assert.equal(F.dataUrlFor("data/a.json", k), null, String(k));
  assert.equal(F.dataUrlFor("data/", "a"), null);
});

// ---- the teacher's question and Pause ------------------------------------------------------------------------

test("a state's question and Pause are read when well formed, ignored (with a problem) when not", () => {
  const ok = F.validateState(good({ question: { id: "q2-a1", phase: "open" }, paused: true }), T);
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.state.question, { id: "q2-a1", phase: "open" });
  assert.equal(ok.state.paused, true);
  const none = F.validateState(good(), T).state;
  assert.equal(none.question, null);
  assert.equal(none.paused, false);
  for (const question of ["q2-a1", { id: "q2-a1" }, { id: "<b>", phase: "open" }, { id: "q2-a1", phase: "gone" }, [1]]) {
    const r = F.validateState(good({ question }), T);
    assert.equal(r.state.question, null, JSON.stringify(question));
    assert.ok(r.problems.includes("question is not a question's id and phase: ignored"));
  }
  const p = F.validateState(good({ paused: "yes" }), T);
  assert.equal(p.state.paused, false);
  assert.ok(p.problems.includes("paused is not true or false: read as false"));
});
