// Milliseconds per EM iteration of the lab's JavaScript engine (nblab/js/em.js) under Node.
//
// Run from the checkout (the lab data comes from nblab.data):
//   python3 -m nblab.data sms_spam > /tmp/sms_spam.json
//   node benchmarks/bench_lab_engine.mjs /tmp/sms_spam.json [model] [iterations]
// and, for nbcore's step on the same run (λ = 1, 90 % hidden, seed 0, from the labelled rows):
//   python3 benchmarks/bench_lab_engine.py sms_spam
//
// It starts the lesson's default run, warms the JIT up with 20 steps, then times `iterations`
// steps (default 200) from a run rewound to t = 0, and prints ms per iteration (median of 5 rounds),
// wall clock and CPU time (the CPU time is the fairer number on a busy machine).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const { prepare, startRun } = await import(path.join(here, "..", "nblab", "js", "em.js"));

const [file, modelArg, itersArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: node benchmarks/bench_lab_engine.mjs LAB_DATA.json [model] [iterations]");
  process.exit(2);
}
const data = JSON.parse(readFileSync(file, "utf8"));
const model = modelArg || data.models[0];
const iters = Number(itersArg || 200);

let t0 = performance.now();
const prep = prepare(data, { model, hiddenPct: 90, seed: 0 });
const prepMs = performance.now() - t0;
t0 = performance.now();
const run0 = startRun(prep, { lam: 1.0, init: "labeled", seed: 0, maxIter: iters + 20, tol: null });
const startMs = performance.now() - t0;
for (let i = 0; i < 20; i++) run0.step(); // JIT warm-up
const rounds = [], cpu = [];
for (let r = 0; r < 5; r++) {
  const run = run0.rewound(0);
  const c0 = process.cpuUsage();
  t0 = performance.now();
  for (let i = 0; i < iters; i++) run.step();
  rounds.push((performance.now() - t0) / iters);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000 / iters);
}
rounds.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
console.log(`${data.name} ${model}: N=${prep.N} V=${prep.V} K=${prep.K}; prepare ${prepMs.toFixed(1)} ms, start ${startMs.toFixed(1)} ms`);
console.log(`ms/iteration ${rounds[2].toFixed(3)} (median of 5 rounds of ${iters}; min ${rounds[0].toFixed(3)}); `
  + `CPU ms/iteration ${cpu[2].toFixed(3)} (min ${cpu[0].toFixed(3)})`);
