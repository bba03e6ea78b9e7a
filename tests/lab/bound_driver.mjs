// Runs the lab's JavaScript engine on the runs tests/lab/test_bound_parity.py asks for and writes, as one JSON
// document on stdout, bound.js's climb at the iterations asked, beside the snapshots' objectives.
//
//   node tests/lab/bound_driver.mjs CONFIG.json
//
// CONFIG: { runs: [ { data: "lab_data.json", model, hiddenPct, seed, init, lam, uw, steps, ts: [t, ...],
//                     lamAfter: null | λ (the run continued at this λ after its steps, before the climbs) } ] }
// Output: [ { climbs: [ [t, objectiveBefore, boundBefore, boundAfter, objectiveAfter] | {t, error} ],
//             objectives: [snapshot t's objective for t = 0 … steps], lams: [their λ], lam: the run's λ } ]; a number that is not finite is
//             written as the string "inf", "-inf" or "nan".

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const js = path.join(here, "..", "..", "nblab", "js");
const { prepare, startRun } = await import(path.join(js, "em.js"));
const { climb } = await import(path.join(js, "bound.js"));

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const datas = new Map();
const num = (v) => (Number.isFinite(v) ? v : Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf");

const out = [];
for (const spec of config.runs) {
  if (!datas.has(spec.data)) datas.set(spec.data, JSON.parse(readFileSync(spec.data, "utf8")));
  const prep = prepare(datas.get(spec.data), { model: spec.model, hiddenPct: spec.hiddenPct, seed: spec.seed });
  let run = startRun(prep, { lam: spec.lam, init: spec.init, seed: spec.seed, maxIter: 100, tol: null,
    unlabeledWeight: spec.uw, keepResp: 2 });
  for (let i = 0; i < spec.steps; i++) run.step();
  if (spec.lamAfter !== null && spec.lamAfter !== undefined) run = run.withSmoothing(spec.lamAfter);
  const climbs = spec.ts.map((t) => {
    try {
      const c = climb(run, t);
      return [c.t, c.objectiveBefore, c.boundBefore, c.boundAfter, c.objectiveAfter].map(num);
    } catch (e) {
      return { t, error: e.message };
    }
  });
  out.push({ climbs, objectives: run.history.map((s) => num(s.objective)), lams: run.history.map((s) => s.lam), lam: run.lam });
}
process.stdout.write(JSON.stringify(out));
