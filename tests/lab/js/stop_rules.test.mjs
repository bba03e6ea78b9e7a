// The stop rules' panel: Python's number formats, and each step's numbers from their definitions.
import { test } from "node:test";
import assert from "node:assert/strict";
import { gfmt, stepNumbers } from "../../../nblab/js/panels/stop_rules.js";
import { getModel } from "../../../nblab/js/models.js";

test("gfmt is Python's :.4g", () => {
  // the values as Python prints them: f"{v:.4g}"
  const cases = [[0.0001234, "0.0001234"], [1.2345e-5, "1.234e-05"], [42, "42"], [12346, "1.235e+04"], [0.5, "0.5"],
    [1, "1"], [0, "0"], [9.9996, "10"], [-0.00314159, "-0.003142"], [0.12345, "0.1235"], [2.5, "2.5"], [0.001, "0.001"]];
  for (const [v, want] of cases) assert.equal(gfmt(v), want, String(v));
});

test("a step's numbers: the objective's relative change and ‖Δθ‖² counted both ways", () => {
  const model = getModel("bernoulli", {});
  // K = 2, V = 1: α (0.5, 0.5) → (0.6, 0.4), β (0.2, 0.7) → (0.3, 0.5)
  const a = { alpha: new Float64Array([0.5, 0.5]), params: { beta: new Float64Array([0.2, 0.7]) }, objective: -100 };
  const b = { alpha: new Float64Array([0.6, 0.4]), params: { beta: new Float64Array([0.3, 0.5]) }, objective: -90 };
  const n = stepNumbers(model, a, b);
  assert.equal(n.rel, 0.1);
  // each parameter once: 0.1² + 0.1² (α) + 0.1² + 0.2² (β) = 0.07
  assert.ok(Math.abs(n.parameters - 0.07) < 1e-15, String(n.parameters));
  // the course session's sum: α once, each binary β twice (θ_{k,i,1} = β and θ_{k,i,0} = 1 − β): 0.02 + 2·0.05
  assert.ok(Math.abs(n.bothValues - 0.12) < 1e-15, String(n.bothValues));
  assert.ok(Number.isNaN(stepNumbers(model, Object.assign({}, a, { objective: -Infinity }), b).rel));
});
