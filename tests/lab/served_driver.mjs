// Drives the lab's controller (lab.js) over a served run (served.js) with the records nbcore made, the way the
// app's lesson view does, and prints what the page would show as JSON. tests/lab/test_served.py compares it
// with nbcore.
//
//   node tests/lab/served_driver.mjs CONFIG.json
//
// CONFIG: { data: "lab_data.json", settings: {...}, first: record, steps: [[records...], ...], lam: [t, λ] | null }
// Each entry of `steps` is delivered, then Step is pressed as many times as it has records; with `lam`, the
// settings change to λ after the first entry (EM continues from the current parameters).

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const js = path.join(here, "..", "..", "nblab", "js");
const { Lab } = await import(path.join(js, "lab.js"));
const { servedEngine } = await import(path.join(js, "served.js"));

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const data = JSON.parse(readFileSync(config.data, "utf8"));
const lab = new Lab(data, config.settings, servedEngine(config.first));
const out = { waited: [], alpha: [], ll: [], objective: [], acc: [], post: [], status: [] };
const record = () => {
  const t = lab.latest, snap = lab.run.history[t];
  out.alpha.push(Array.from(snap.alpha));
  out.ll.push(snap.logLikelihood);
  out.objective.push(snap.objective);
  out.acc.push(lab.accuracy(t));
  out.post.push(Array.from(lab.posterior(t).slice(0, 6 * lab.prep.K)));
  out.status.push(lab.status()[1]);
};
record();
config.steps.forEach((batch, i) => {
  // a press before the server answered: nothing moves, nothing is lost
  out.waited.push(lab.compute() === true ? "moved" : lab.latest);
  lab.run.deliver(batch);
  for (let k = 0; k < batch.length; k++) { lab.compute(); record(); }
  if (i === 0 && config.lam) lab.apply(Object.assign({}, lab.settings, { lam: config.lam }));
});
out.latest = lab.latest;
out.done = lab.done;
process.stdout.write(JSON.stringify(out, (k, v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v)));
