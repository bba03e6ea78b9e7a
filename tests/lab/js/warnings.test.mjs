// warnings.js: EM emptied a class, a class prior drifted from the labelled share — numbers worked by hand
// from the definitions (dashboard's lesson states the same rules).
import { test } from "node:test";
import assert from "node:assert/strict";
import { emptiedClasses, alphaDrift, EMPTIED_SHARE, EMPTIED_FLOOR } from "../../../nblab/js/warnings.js";

test("a class whose α falls under 1 % of its start is emptied from the first iteration of that stretch", () => {
  // K = 2, start α = (0.8, 0.2): class 1 is emptied when α1 < 0.002 (1 % of 0.2) or < 0.0025 (0.005 / 2)
  const alphas = [[0.8, 0.2], [0.9, 0.1], [0.998, 0.002], [0.999, 0.001]];
  const means = [[0.8, 0.2], [0.9, 0.1], [0.99, 0.01], [0.99, 0.01]];
  const counts = [[50, 10], [55, 5], [60, 0], [60, 0]];
  assert.deepEqual([...emptiedClasses(alphas, means, counts)], [[1, 2]]);
  assert.equal(EMPTIED_SHARE, 0.01);
  assert.equal(EMPTIED_FLOOR, 0.005);
});

test("a class no hidden document keeps is emptied even if its α holds; one back since t = 1 counts from 1", () => {
  const alphas = [[0.5, 0.5], [0.6, 0.4], [0.6, 0.4]];
  const means = [[0.5, 0.5], [0.6, 0.4], [0.6, 0.4]];
  const counts = [[0, 10], [0, 10], [0, 10]];   // no hidden document has class 0 as its most probable, from the start
  assert.deepEqual([...emptiedClasses(alphas, means, counts)], [[0, 1]]);
  // a class that came back at the last row is not emptied
  assert.deepEqual([...emptiedClasses(alphas, means, [[0, 10], [0, 10], [1, 9]])], []);
  assert.deepEqual([...emptiedClasses([[0.5, 0.5]], [[0.5, 0.5]], [[1, 1]])], []);   // t = 0 only
});

test("α drifts when it is further from the labelled share than 0.10 and than three standard errors", () => {
  // 100 labelled rows, 20 of class 1: share 0.2, standard error sqrt(0.2·0.8/100) = 0.04, 3 SE = 0.12 > 0.10
  const y = new Int32Array(1000).fill(-1);
  for (let i = 0; i < 100; i++) y[i] = i < 20 ? 1 : 0;
  assert.deepEqual(alphaDrift([0.7, 0.3], y, 2), []);                      // 0.1 away: within 0.12
  assert.deepEqual(alphaDrift([0.9, 0.1], y, 2), []);                      // 0.10 off: within 0.12 too
  assert.deepEqual(alphaDrift([0.67, 0.33], y, 2).map((x) => x.k), [0, 1]); // 0.13 off: both classes
  const [a0] = alphaDrift([0.67, 0.33], y, 2);
  assert.ok(Math.abs(a0.share - 0.8) < 1e-15 && Math.abs(a0.allowed - 0.12) < 1e-12);
  assert.deepEqual(alphaDrift([0.5, 0.5], new Int32Array([0, -1, -1]), 2), []);   // one label: nothing to judge
});
