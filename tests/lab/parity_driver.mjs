// Runs the lab's JavaScript engine on the runs a parity test asks for and writes every number it
// is asked about to stdout as float64 arrays, each preceded by its length (a float64 too), in the
// order of the operations. tests/lab/test_em_parity.py compares them with nbcore.
//
//   node tests/lab/parity_driver.mjs CONFIG.json
//
// CONFIG: { data: "lab_data.json", runs: [ { model, hiddenPct, seed, init, lam, maxIter, tol,
//           paramT: [t, ...] | null (null = every t), ops: [[op, ...args], ...] } ] }
// ops: ["step", n]            n steps; after each, the snapshot record
//      ["halves"]             eStep (t, logLikelihood, objective, resp), then mStep (snapshot record)
//      ["smooth", lam]        run = run.withSmoothing(lam)
//      ["rewind", t]          run = run.rewound(t)
//      ["posterior", t]       run.posterior(t)
//      ["resp", t]            run.responsibilities(t)
//      ["explain", row, t]    run.explain(prep.row(row), t): prior, like, joint, post, terms
// Each run starts with: the labels EM sees (yObs), the hidden mask, then snapshot 0's record.
// A snapshot record: [t, logLikelihood, objective, delta (NaN at t = 0), stop (0 none, 1 tol,
// 2 theta, 3 max_iter), λ], α, and at the t in paramT the parameters (flat, C order) and the
// responsibilities that made them (t ≥ 1).

import { readFileSync, writeSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const js = path.join(here, "..", "..", "nblab", "js");
const { prepare, startRun } = await import(path.join(js, "em.js"));

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const data = JSON.parse(readFileSync(config.data, "utf8"));
const STOP = { null: 0, tol: 1, theta: 2, max_iter: 3 };

let buf = new Float64Array(1 << 16);
let used = 0;
function flush() {
  const bytes = new Uint8Array(buf.buffer, 0, used * 8);
  let off = 0;
  while (off < bytes.length) {
    try {
      off += writeSync(1, bytes, off, bytes.length - off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
    }
  }
  used = 0;
}
function emit(arr) {
  const n = arr.length;
  if (used + n + 1 > buf.length) {
    flush();
    if (n + 1 > buf.length) buf = new Float64Array(2 * (n + 1));
  }
  buf[used++] = n;
  for (let i = 0; i < n; i++) buf[used++] = arr[i];
}

function paramsFlat(model, params) {
  if (model === "categorical") return params.stacked;
  if (model === "gaussian") {
    const out = new Float64Array(params.mean.length * 2);
    out.set(params.mean);
    out.set(params.var, params.mean.length);
    return out;
  }
  return params.beta;
}

for (const spec of config.runs) {
  const prep = prepare(data, { model: spec.model, hiddenPct: spec.hiddenPct, seed: spec.seed });
  let run = startRun(prep, { lam: spec.lam, init: spec.init, seed: spec.seed, maxIter: spec.maxIter,
    tol: spec.tol, keepResp: 2 });
  const wantParams = (t) => spec.paramT === null || spec.paramT.includes(t);
  const record = (snap) => {
    emit([snap.t, snap.logLikelihood, snap.objective, snap.delta === null ? NaN : snap.delta,
      STOP[run.stopReason], snap.lam]);
    emit(snap.alpha);
    if (wantParams(snap.t)) {
      emit(paramsFlat(spec.model, snap.params));
      if (snap.t >= 1) emit(run.responsibilities(snap.t));
    }
  };
  emit(prep.yObs);
  emit(prep.hidden);
  record(run.history[0]);
  for (const [op, a, b] of spec.ops) {
    if (op === "step") {
      for (let i = 0; i < a; i++) record(run.step());
    } else if (op === "halves") {
      const e = run.eStep();
      emit([e.t, e.logLikelihood, e.objective]);
      emit(e.resp);
      record(run.mStep());
    } else if (op === "smooth") {
      run = run.withSmoothing(a);
    } else if (op === "rewind") {
      run = run.rewound(a);
    } else if (op === "posterior") {
      emit(run.posterior(a));
    } else if (op === "resp") {
      emit(run.responsibilities(a));
    } else if (op === "explain") {
      const ex = run.explain(prep.row(a), b);
      emit(ex.prior); emit(ex.like); emit(ex.joint); emit(ex.post); emit(ex.terms);
    } else {
      throw new Error(`unknown op ${op}`);
    }
  }
}
flush();
