// node --test tests/lab/js/catchup.test.mjs — a long computation a slice at a time (nblab/js/lab.js's
// restoreTo and computeTo with a budget, its progressOf, which page_catchup.js shows): sliced, it ends on exactly the run
// computed in one go, stops between slices with a whole run, and says how far it is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Lab, progressOf } from "../../../nblab/js/lab.js";

// nblab.data.lab_data("toy_spam"), as the page gets it
const TOY = {"format": "nblab-data/1", "name": "toy_spam", "description": "Six e-mails, three words (Cruise, Lottery, Win): the hand-worked spam example", "card": null, "kind": "binary", "models": ["bernoulli", "multinomial"], "modelInputs": {"bernoulli": "as_is", "multinomial": "as_is"}, "modelOptions": {"bernoulli": {}, "multinomial": {}}, "classNames": ["ham", "spam"], "featureNames": ["Cruise", "Lottery", "Win"], "n": 6, "v": 3, "k": 2, "y": {"dtype": "i8", "b64": "AQEBAAAA"}, "yTrue": {"dtype": "i8", "b64": "AQEBAAAA"}, "matrix": {"format": "csr", "n": 6, "v": 3, "indptr": {"dtype": "u32", "b64": "AAAAAAMAAAAFAAAABgAAAAcAAAAIAAAACQAAAA=="}, "indices": {"dtype": "u16", "b64": "AAABAAIAAAACAAEAAgAAAAEA"}, "data": null}, "text": null, "imageShape": null, "truth": null, "texts": null};
const SETTINGS = { dataset: "toy_spam", model: "bernoulli", hidden: 50, lam: 1, init: "random", seed: 2, max_iter: 100, tol: 1e-12, t: 0 };
const fresh = () => new Lab(JSON.parse(JSON.stringify(TOY)), SETTINGS);
const trace = (lab) => lab.run.history.map((s) => [s.logLikelihood, s.objective]);

test("restoreTo with a budget: one iteration a call at budget 0, and the same run and notice as in one go", () => {
  const whole = fresh();
  assert.equal(whole.restoreTo(40), true);
  const sliced = fresh();
  let calls = 1;
  while (!sliced.restoreTo(40, 0)) {
    calls++;
    assert.ok(sliced.latest < Math.min(40, whole.latest), "a call that says 'more to do' has more to do");
    assert.equal(sliced.run.history.length, sliced.latest + 1);   // the run so far is whole
    assert.ok(calls < 1000);
  }
  assert.equal(calls, whole.latest);           // budget 0: one iteration each call
  assert.ok(whole.latest >= 5, "the toy run takes some iterations");
  assert.deepEqual(trace(sliced), trace(whole));
  assert.equal(sliced.t, whole.t);
  assert.deepEqual(sliced.notice, whole.notice);
  assert.match(sliced.notice.text, /Recomputed to iteration/);
  // a generous budget: done in one call
  const quick = fresh();
  assert.equal(quick.restoreTo(40, 60_000), true);
  assert.deepEqual(trace(quick), trace(whole));
});

test("computeTo with a budget goes on from where it stopped, and ends on the run computed in one go", () => {
  const whole = fresh();
  assert.equal(whole.computeTo(12), true);
  const sliced = fresh();
  let calls = 1;
  while (!sliced.computeTo(12, 0)) calls++;
  assert.equal(calls, 12);
  assert.equal(sliced.latest, 12);
  assert.equal(sliced.t, 12);
  assert.deepEqual(trace(sliced), trace(whole));
  assert.equal(sliced.computeTo(12, 0), true);   // there already: nothing to do
  assert.equal(sliced.latest, 12);
});

test("progressOf: iterations done of those the job computes, in words", () => {
  const job = { target: 1000, start: 0, label: "as the link says" };
  assert.deepEqual({ ...progressOf(job, 37), text: undefined }, { done: 37, total: 1000, text: undefined });
  assert.equal(progressOf(job, 37).text, "Computing iteration 37 of 1000, as the link says … the page works meanwhile.");
  assert.equal(progressOf({ target: 10, start: 4, label: "x" }, 7).done, 3);
  assert.equal(progressOf({ target: 10, start: 4, label: "x" }, 99).done, 6);
  assert.equal(progressOf({ target: 4, start: 4, label: "x" }, 4).total, 1);
});
