// hideLabels hides the rows nbcore.hide_labels hides (numbers from nbcore in numpy_values.mjs).
import test from "node:test";
import assert from "node:assert/strict";
import { hideLabels, roundHalfEven } from "../../../nblab/js/labels.js";
import NP from "./numpy_values.mjs";

test("Python's round: halves to even", () => {
  assert.deepEqual([0.5, 1.5, 2.5, 3.5, -0.5, 2.4999, 2.5001].map(roundHalfEven), [0, 2, 2, 4, 0, 2, 3]);
});

test("hideLabels == nbcore.hide_labels on a small set with unlabelled rows", () => {
  const y = NP.hide.y;
  for (const c of NP.hide.cases) {
    if (c[2] === "sms") continue;
    const [frac, seed, want] = c;
    const { yObs, hidden } = hideLabels(y, frac, seed);
    const got = [];
    hidden.forEach((h, i) => { if (h) got.push(i); });
    assert.deepEqual(got, want, `fraction ${frac} seed ${seed}`);
    y.forEach((v, i) => assert.equal(yObs[i], hidden[i] ? -1 : v));
  }
});

test("rows already unlabelled stay −1 and are not hidden; one label per class kept below 100 %", () => {
  const y = NP.hide.y;
  const { yObs, hidden } = hideLabels(y, 0.99, 5);
  y.forEach((v, i) => { if (v < 0) { assert.equal(hidden[i], 0); assert.equal(yObs[i], -1); } });
  for (const k of [0, 1, 2]) assert.ok(Array.from(yObs).some((v) => v === k), `class ${k} keeps a label`);
  assert.throws(() => hideLabels(y, 1.5, 0), /between 0 and 1/);
});
