// A run whose iterations are computed by nbcore on a server (the Streamlit lesson view), drawn by the lab's
// own program. No DOM here.
//
// The server sends one record per iteration (nblab/served.py: snapshot_record): θ_t (α and the model's
// parameters, float64, bit for bit), the log-likelihood, the objective, ‖Δθ‖², λ and the stop rule's
// verdict. A ServedRun is em.js's Run with the M-step replaced: instead of computing θ_{t+1} it adopts the
// next record the server delivered (`deliver`). What the page derives from θ_t for display (posteriors, the
// responsibilities of an E-step, a document's terms) is computed here by em.js's functions, which CI checks
// against nbcore to 1e-9; the numbers of the run itself (log-likelihood, objective, Δθ, when it stops) are
// the server's.
//
//   const engine = servedEngine(first);              // first: the record of θ_0, with the run's stop rules
//   const lab = new Lab(labData, settings, engine);  // lab.js: the same controller as everywhere else
//   lab.run.deliver(records);                        // what the server sent
//   lab.run.ready                                    // whether the next M-step can be taken now

import { prepare, Run } from "./em.js";
import { decodeArray } from "./data.js";
import { getModel } from "./models.js";

/** A record's numbers: [logLikelihood, objective, delta (NaN: none), λ] (all float64: −∞ and NaN travel). */
function numbersOf(rec) {
  const v = decodeArray(rec.numbers);
  if (v.length !== 4) throw new Error("A served iteration needs four numbers.");
  return { logLikelihood: v[0], objective: v[1], delta: Number.isNaN(v[2]) ? null : v[2], lam: v[3] };
}

/** The model's parameters from a record's flat arrays (the model's paramsFromFlat hook, else one array per
 * name in the model's paramNames). */
export function paramsOf(model, rec, Xp, K) {
  const flat = {};
  for (const name of model.paramNames) {
    if (!rec.params || !rec.params[name]) throw new Error(`The served iteration has no ${name}.`);
    flat[name] = decodeArray(rec.params[name]);
  }
  return typeof model.paramsFromFlat === "function" ? model.paramsFromFlat(flat, Xp, K) : flat;
}

/** One record → { t, alpha, params, logLikelihood, objective, delta, lam, stop }. */
export function decodeRecord(model, rec, Xp, K) {
  const alpha = decodeArray(rec.alpha);
  if (alpha.length !== K) throw new Error(`A served iteration has ${alpha.length} class weights, not ${K}.`);
  return Object.assign({ t: rec.t | 0, alpha, params: paramsOf(model, rec, Xp, K), stop: rec.stop || null }, numbersOf(rec));
}

export class ServedRun extends Run {
  constructor(prep, opts, from = null) {
    super(prep, opts, from);
    this.inbox = from ? from.inbox.slice() : [];
  }

  /** Records the server sent, in order; any already in the history or the inbox is skipped. */
  deliver(records) {
    for (const rec of records) {
      const last = this.inbox.length ? this.inbox[this.inbox.length - 1].t : this.iteration;
      if ((rec.t | 0) === last + 1) this.inbox.push(decodeRecord(this.model, rec, this.Xp, this.K));
    }
    return this.inbox.length;
  }

  /** Whether θ_{t+1} is here (an M-step can be taken now). */
  get ready() { return this.inbox.length > 0; }

  /** The latest iteration the server has sent. */
  get served() { return this.inbox.length ? this.inbox[this.inbox.length - 1].t : this.iteration; }

  /** The M-step: θ_{t+1} is the server's (`deliver`); null while it has not come. */
  mStep() {
    if (this.pending === null) throw new Error("The M-step needs responsibilities: do the E-step first (or Step for both).");
    if (!this.inbox.length) return null;
    const got = this.inbox.shift();
    const previous = this.current;
    const resp = this.pending.resp;
    // the E-step product under θ_{t+1} (the posteriors on screen, the next E-step), at the record's λ
    this.lam = got.lam;
    this._evaluate(got.params, got.alpha);
    const snap = { t: previous.t + 1, alpha: got.alpha, params: got.params, resp, logLikelihood: got.logLikelihood,
      objective: got.objective, delta: got.delta, lam: got.lam, impossible: this._impossible };
    this.pending = null;
    this.history.push(snap);
    this._forgetOldResp();
    this.stopReason = got.stop;
    return snap;
  }

  /** One iteration; null while the server's θ_{t+1} has not come. */
  step() {
    if (!this.inbox.length) return null;
    this.eStep();
    return this.mStep();
  }

  /** Adopt every record delivered: the server's latest iteration becomes the run's. */
  adoptAll() {
    while (this.inbox.length) this.step();
  }

  /** The server rewinds a served run (it recomputes nothing here). */
  rewound() {
    throw new Error("A served run is rewound by its server.");
  }
}

/**
 * The engine lab.js builds a served run with: em.js's prepare, and a start whose θ_0 is the server's `first`
 * record ({ t: 0, alpha, params, numbers, stop, maxIter, tol, unlabeledWeight }).
 */
export function servedEngine(first) {
  return {
    prepare,
    startRun(prep, opts) {
      const model = getModel(opts.model || prep.model, opts.modelOptions || prep.modelOptions || {});
      const rec0 = decodeRecord(model, first, prep.X, prep.K);
      const run = new ServedRun(prep, Object.assign({}, opts, {
        initialParams: { alpha: rec0.alpha, params: rec0.params },
        maxIter: first.maxIter ?? opts.maxIter, tol: first.tol === undefined ? opts.tol : first.tol,
        // the hidden rows' weight is the server's too (the M-step weights and the climb on screen use it)
        unlabeledWeight: first.unlabeledWeight ?? opts.unlabeledWeight }));
      // θ_0's numbers are the server's too
      run.history[0] = Object.assign({}, run.history[0], { logLikelihood: rec0.logLikelihood, objective: rec0.objective, lam: rec0.lam });
      run.stopReason = rec0.stop;
      return run;
    },
  };
}
