// The lab's controller: settings → the run, Step / E-step / M-step / convergence / Reset, the iteration on
// screen, the numbers the page shows (accuracy on the hidden labels, the baselines, the status line) and
// the "view" every panel draws. No DOM here (boot.js wires it to the page; node's tests drive it as is).
//
// What a settings change does is the app's rule (nblab/lesson_run.py, LessonRun.sync):
//   * the data, the event model, the start or the seed changed: a new run from t = 0 (rebuilt);
//   * λ, the iteration budget or the tolerance changed mid-run: EM continues from the current parameters
//     (run.withSmoothing / the engine's settings copy, history kept), the next steps use the new values;
//   * before any step, a λ change rebuilds (the first parameters depend on λ).
// Either way `notice` says which happened, in words.

import * as EM from "./em.js";
import { decodeLabData } from "./data.js";
import { supervisedFit, predictProba } from "./equations.js";
import { getModel } from "./models.js";
import { changes, fmtLam, fmtTol } from "./state.js";
import * as Base from "./baselines.js";
import { alignClusters } from "./align.js";
import { t, localise, percent as pct } from "./i18n.js";

//: the app's names of the settings, for the notices ("labels hidden 90% → 95%")
const LABELS = { dataset: "data set", model: "event model", hidden: "labels hidden", init: "initialisation", seed: "seed",
  max_iter: "max iterations", tol: "tolerance", lam: "λ" };
const SHOWN = { hidden: (v) => `${v}%`, tol: fmtTol, lam: fmtLam };
const say = (k, v) => (SHOWN[k] ? SHOWN[k](v) : String(v));

/** Describe what changed, as the app does ("labels hidden 90% → 95%, seed 0 → 3"). */
export function describeChange(old, now, keys) {
  return keys.map((k) => `${LABELS[k] || k} ${say(k, old[k])} → ${say(k, now[k])}`).join(", ");
}

// ---- scoring ------------------------------------------------------------------------------------------------

/** argmax of each row of an (N, K) flat array (the first of equal values, as numpy). */
export function argmaxRows(P, N, K) {
  const out = new Int32Array(N);
  for (let i = 0; i < N; i++) {
    let best = 0, bv = P[i * K];
    for (let k = 1; k < K; k++) { const v = P[i * K + k]; if (v > bv) { bv = v; best = k; } }
    out[i] = best;
  }
  return out;
}

/** The one-to-one naming of clusters that agrees most with the true labels on `rows` (align.js, as
 * nbcore.align_clusters): mapping[cluster] = label. */
export function matchClusters(yTrue, pred, rows, K) {
  const yt = rows.map((i) => yTrue[i]), pr = rows.map((i) => pred[i]);
  return alignClusters(yt, pr, K);
}

/** Accuracy on the hidden rows whose label is known (nbcore.hidden_accuracy); `align`: EM saw no label,
 * its clusters are named by the best matching first. NaN when no row is scored. */
export function hiddenAccuracy(pred, y, rows, K, align) {
  if (!rows.length) return NaN;
  const map = align ? matchClusters(y, pred, rows, K) : null;
  let right = 0;
  for (const i of rows) right += (map ? map[pred[i]] : pred[i]) === y[i] ? 1 : 0;
  return right / rows.length;
}

/** "97.0%": Python's f"{acc:.1%}" (the page's one rounding of an accuracy); null for none. */
export function percent(acc) {
  if (acc === null || acc === undefined || !isFinite(acc)) return null;
  return `${(acc * 100).toFixed(1)}%`;
}
/** "+9.3 pts vs supervised" (numbers.delta_text); `what` names the baseline ("best supervised"). */
export function deltaText(acc, base, what = "supervised") {
  const d = (acc - base) * 100;
  if (Math.abs(d) < 0.05) return `±0.0 pts vs ${what}`;
  return `${d >= 0 ? "+" : "-"}${Math.abs(d).toFixed(1)} pts vs ${what}`;
}

// ---- the baselines a run is compared with (nblab/numbers.py) ----------------------------------------------

/** EM's gain over the best supervised baseline below this (1 point) is called small (numbers.SMALL_GAIN). */
export const SMALL_GAIN = 0.01;

/** A number as Python's f"{v:g}" for the λ values the lesson uses (0.01, 0.3, 1, 10, 1e-05). */
export function fmtG(v) {
  return fmtLam(v);
}

/** [first t, last t, λ] of each stretch of iterations made at one λ (numbers.segments; lams[t]: the λ of
 * snapshot t). A λ change mid-run starts a new segment. */
export function segments(lams) {
  const out = [];
  for (let t = 0; t < lams.length; t++) {
    const last = out[out.length - 1];
    if (last && last[2] === lams[t]) last[1] = t;
    else out.push([t, t, Number(lams[t])]);
  }
  return out;
}

/** The segment [a, b, λ, accuracy] of iteration t (numbers.Reference.segment_of). */
export function segmentOf(ref, t) {
  if (!ref || !ref.segments.length) return null;
  for (const seg of ref.segments) if (seg[0] <= t && t <= seg[1]) return seg;
  return ref.segments[ref.segments.length - 1];
}

const finite = (v) => v !== null && v !== undefined && Number.isFinite(v);

/** [name, accuracy] of every baseline next to iteration t (numbers.Reference.candidates). */
export function candidates(ref, t) {
  if (!ref) return [];
  const seg = segmentOf(ref, t);
  const out = [[`majority class (${ref.majorityName})`, ref.majority]];
  if (seg) out.push([`supervised NB at λ = ${fmtG(seg[2])}`, seg[3]]);
  if (ref.cvLambda !== null && ref.cvLambda !== undefined) {
    out.push([`supervised NB at λ = ${fmtG(ref.cvLambda)}, chosen by ${ref.cvMethod} on the `
      + `${ref.nLabelled.toLocaleString("en")} labelled`, ref.cv]);
  }
  return out.filter(([, a]) => finite(a));
}

/** [name, accuracy] of the best supervised baseline next to iteration t (the first of equal ones, as max()). */
export function best(ref, t) {
  let top = null;
  for (const c of candidates(ref, t)) if (!top || c[1] > top[1]) top = c;
  return top;
}

/** EM against the best supervised baseline in words (numbers.gain_sentence), as [text, style] parts
 * (style: null, "strong" or "em"; the page sets each part's textContent), saying plainly when the gain
 * is small. null without a best baseline or an accuracy. */
export function gainParts(acc, top) {
  if (!top || !finite(acc)) return null;
  const [name, b] = top, d = acc - b, v = d * 100;
  const parts = [[`EM against the best supervised baseline, ${name} (${percent(b)}): `, null],
    [`${v >= 0 ? "+" : "-"}${Math.abs(v).toFixed(1)} pts`, "strong"], [".", null]];
  if (d <= -0.0005) parts.push([" EM is ", null], ["below", "em"], [" it: the labelled documents alone do better.", null]);
  else if (d < SMALL_GAIN) {
    parts.push([" That is a ", null], ["small", "strong"], [" gain: the labelled documents alone, with a well-chosen λ, do almost "
      + "as well — here the unlabelled documents add little.", null]);
  } else parts.push([" That gain is what the unlabelled documents add.", null]);
  return parts;
}

/** gainParts as one plain sentence. */
export function gainSentence(acc, top) {
  const p = gainParts(acc, top);
  return p ? p.map((x) => x[0]).join("") : null;
}

/** The lesson split's matrix as baselines.js reads it ({ csr, n, v } or { dense, n, v }; a CSR without
 * values is all ones); null for a matrix it does not read (the categorical one-hot codes). */
export function baselineMatrix(X) {
  if (X && X.format === "dense" && X.values) return { dense: X.values, n: X.n, v: X.v };
  if (!X || X.format !== "csr" || !X.indptr) return null;
  const data = X.data || new Float64Array(X.indices.length).fill(1);
  return { csr: { indptr: X.indptr, indices: X.indices, data }, n: X.n, v: X.v };
}

// ---- the controller ---------------------------------------------------------------------------------------

// why a run stopped, in the page's language where it is shown (i18n.js's t)
const STOP_WHY = { tol: () => t("objective changed less than the tolerance"),
  theta: () => t("parameters changed less than the tolerance") };

/** How far a long computation (page_catchup.js's job: { target, start, label }) is: { done, total, text } (iterations since it started, of those it computes). */
export function progressOf(job, latest) {
  const total = Math.max(1, job.target - job.start);
  const done = Math.max(0, Math.min(total, latest - job.start));
  return { done, total, text: `Computing iteration ${latest} of ${job.target}, ${job.label} … the page works meanwhile.` };
}

export class Lab {
  /** labData: the page's data (nblab.data.lab_data); settings: state.js's settings (every key). */
  constructor(labData, settings, engine = EM) {
    this.data = decodeLabData(labData);   // once: every rebuild prepares from the decoded arrays
    this.engine = engine;
    this.settings = Object.assign({}, settings);
    this.serial = 0;
    this.notice = null;          // { kind: "rebuilt" | "continued", text } or null
    this.error = null;           // why the last change failed (the run is unchanged)
    this.playing = false;
    this._post = new Map();      // "serial:t:λs" → posterior (a few kept)
    this.build(this.settings);
    this.notice = null;
    if (this.initNote) this.notice = { kind: "rebuilt", text: this.initNote };
  }

  // ---- building ----------------------------------------------------------------------------------------

  /** The run's options from settings (the engine's names). */
  runOptions(s, init) {
    return { model: s.model, lam: s.lam, init, seed: s.seed, maxIter: s.max_iter, tol: s.tol, unlabeledWeight: 1 };
  }

  build(s) {
    const E = this.engine;
    const prep = E.prepare(this.data, { model: s.model, hiddenPct: s.hidden, seed: s.seed });
    const yObs = prep.yObs;
    const N = yObs.length;
    let visible = 0;
    for (let i = 0; i < N; i++) if (yObs[i] >= 0) visible++;
    // "from the labelled documents" needs one label: with none, EM starts at random (as the app)
    let init = s.init === "labeled" && visible === 0 ? "random" : s.init;
    const run = E.startRun(prep, this.runOptions(s, init));
    if (run.init) init = run.init;
    this.prep = prep;
    this.run = run;
    this.effectiveInit = init;
    this.initNote = init !== s.init
      ? "No label is visible, so EM starts from a random initialisation (“from the labelled documents” needs at least one label)."
      : null;
    this.settings = Object.assign({}, s);
    this.serial++;
    this.t = 0;
    this.half = null;
    this.acc = [];
    this._post.clear();
    // the rows scored: hidden from EM, true label known
    const y = prep.yEval || prep.y, rows = [];
    for (let i = 0; i < N; i++) if (yObs[i] < 0 && y[i] >= 0) rows.push(i);
    this.scoreRows = rows;
    this.yEval = y;
    this.visible = visible;
    // started "from the labelled documents", θ⁽⁰⁾ is the supervised fit at λ (the same M-step on the same
    // rows): its accuracy at t = 0 is the supervised baseline, from the E-step the start already made
    const sup = init === "labeled" && this.visible && rows.length ? this.accuracy(0) : this.supervisedAccuracy(s.lam);
    this._atLam = new Map([[s.lam, sup]]);     // supervised NB's accuracy at each λ a segment used
    this.fixed = this.splitBaselines(s);
    this.baselines = { supervised: sup, majority: this.fixed.majority, lam: s.lam };
    this._ref = null;
  }

  /** The baselines that depend on the labelled rows alone (the split: data, model, hidden share, seed), not
   * on λ: the majority class and supervised NB at the λ leave-one-out picks on the labelled rows
   * (baselines.js; Bernoulli and multinomial). Computed once per split: a λ change or a Reset reuses them. */
  splitBaselines(s) {
    const key = [this.data.name, s.dataset, s.model, s.hidden, s.seed].join("|");
    if (this._split && this._split.key === key && this._split.data === this.data) return this._split.value;
    const prep = this.prep, K = prep.K, none = { majority: null, majorityName: "", cvLambda: null, cv: null,
      cvMethod: null, nLabelled: this.visible };
    let value = none;
    if (this.visible && this.scoreRows.length) {
      const k = Base.majorityClass(prep.yObs, K);
      value = Object.assign({}, none, { majority: Base.majorityAccuracy(prep.yObs, this.yEval, K),
        majorityName: k === null ? "" : String(prep.classNames[k]) });
      const X = Base.MODELS.includes(s.model) ? baselineMatrix(prep.X) : null;
      if (X && this.visible >= 2) {
        try {
          const res = Base.looScores(s.model, X, prep.yObs, K, Base.LAMBDA_GRID);
          value.cvLambda = res.best;
          value.cvMethod = res.method;
          value.cv = Base.supervisedAccuracy(s.model, X, prep.yObs, this.yEval, K, res.best);
        } catch (e) {
          value.cvLambda = value.cv = value.cvMethod = null;
        }
      }
    }
    this._split = { key, data: this.data, value };
    return value;
  }

  /** Supervised NB's accuracy at λ (kept per λ for this run's split). */
  atLambda(lam) {
    if (!this._atLam.has(lam)) this._atLam.set(lam, this.supervisedAccuracy(lam));
    return this._atLam.get(lam);
  }

  /** The run's baselines (numbers.Reference): the split's, and one segment per stretch of iterations made at
   * one λ with supervised NB's accuracy at that λ. null without a visible label or a scored row. */
  reference() {
    if (!this.visible || !this.scoreRows.length) return null;
    const h = this.run.history;
    const lams = new Array(h.length);
    for (let t = 0; t < h.length; t++) lams[t] = h[t].lam;
    const key = `${this.serial}|${lams.join(",")}`;
    if (this._ref && this._ref.key === key) return this._ref.value;
    const segs = segments(lams).map(([a, b, lam]) => [a, b, lam, this.atLambda(lam)]);
    const value = Object.assign({}, this.fixed, { segments: segs });
    this._ref = { key, value };
    return value;
  }

  /** Supervised Naive Bayes on the visible labels at λ (the labelled M-step), scored on the hidden rows. */
  supervisedAccuracy(lam) {
    const prep = this.prep, run = this.run;
    if (!this.visible || !this.scoreRows.length) return null;
    try {
      // the run's own event model and matrix (its options, e.g. the Gaussian variance floor, included)
      const model = run.model && typeof run.model === "object" ? run.model
        : getModel(this.settings.model, (run.settings && run.settings.modelOptions) || prep.modelOptions || {});
      const Xp = run.Xp || prep.X;
      const fit = supervisedFit(model, Xp, prep.yObs, prep.K, lam);
      const P = predictProba(model, fit.alpha, fit.params, Xp);
      return hiddenAccuracy(argmaxRows(P, prep.yObs.length, prep.K), this.yEval, this.scoreRows, prep.K, false);
    } catch (e) {
      return null;
    }
  }

  /** Every hidden row given the most frequent visible label. */
  majorityAccuracy() {
    const prep = this.prep;
    if (!this.visible || !this.scoreRows.length) return null;
    const counts = new Float64Array(prep.K);
    for (const v of prep.yObs) if (v >= 0) counts[v]++;
    let best = 0;
    for (let k = 1; k < prep.K; k++) if (counts[k] > counts[best]) best = k;
    let right = 0;
    for (const i of this.scoreRows) right += this.yEval[i] === best ? 1 : 0;
    return right / this.scoreRows.length;
  }

  // ---- what is on screen ----------------------------------------------------------------------------------

  get latest() { return this.run.history.length - 1; }
  get done() { return !!this.run.done; }

  /** p(y | x_i, θ_t) for every row (N*K), a few kept (the accuracy series and the panels ask for the same t). */
  posterior(t) {
    const h = this.run.history;
    let lams = "";
    for (let k = 1; k <= t; k++) lams += h[k].lam + ",";
    const key = `${this.serial}:${t}:${lams}`;
    let P = this._post.get(key);
    if (!P) {
      P = this.run.posterior(t);
      this._post.set(key, P);
      if (this._post.size > 4) this._post.delete(this._post.keys().next().value);
    }
    return P;
  }

  /** Accuracy on the hidden labels at iteration t (computed once per iteration of this run). */
  accuracy(t) {
    if (!this.scoreRows.length) return NaN;
    while (this.acc.length <= t) {
      const k = this.acc.length;
      const P = this.posterior(k);
      this.acc.push(hiddenAccuracy(argmaxRows(P, this.prep.yObs.length, this.prep.K), this.yEval, this.scoreRows,
        this.prep.K, this.visible === 0));
    }
    return this.acc[t];
  }

  /** Score the latest iteration right after it is made: its posterior is then the E-step's own product
   * (cheap); an older iteration's is a whole E-step again. */
  scored() {
    if (this.scoreRows.length && this.acc.length === this.latest) this.accuracy(this.latest);
  }

  /** Accuracy at every iteration so far. */
  accuracySeries() {
    if (this.scoreRows.length) this.accuracy(this.latest);
    return this.scoreRows.length ? this.acc.slice(0, this.latest + 1) : [];
  }

  /** (kind, text) of the status line (nblab/lesson_run.status_line). */
  status() {
    const run = this.run, at = this.latest;
    if (run.converged) {
      const why = Object.prototype.hasOwnProperty.call(STOP_WHY, run.stopReason) ? STOP_WHY[run.stopReason]() : "";
      return ["converged", why ? t("Converged at t = {t} ({why})", { t: at, why }) : t("Converged at t = {t}", { t: at })];
    }
    if (run.done) return ["max", t("Stopped at the maximum number of iterations (t = {t})", { t: at })];
    if (this.playing) return ["running", t("Running … t = {t}", { t: this.t })];
    // TRANSLATORS: Step and Play are the names of the page's buttons: write them as the buttons read
    if (at === 0) return ["ready", t("Ready: t = 0 (initial parameters). Press Step or Play.")];
    return ["paused", t("Paused at t = {t}", { t: at })];
  }

  /** Iteration t in words, after "Iteration t of n: " (export.iteration_words): α and the accuracy. */
  words(it) {
    const names = this.prep.classNames, a = this.run.history[it].alpha;
    // the class names are the data's: never translated
    let text = "α " + names.map((n, k) => `${n} ${localise(Number(a[k]).toFixed(2))}`).join(", ");
    const acc = this.scoreRows.length ? this.accuracy(it) : NaN;
    const shown = percent(acc) === null ? null : pct(acc);
    // the best supervised baseline of the iteration's λ segment (numbers.iteration_words with Scored)
    const top = best(this.reference(), it);
    const base = top ? top[1] : this.baselines.supervised;
    if (shown !== null) {
      text += "; " + t("accuracy {acc}", { acc: shown });
      if (base !== null && base !== undefined) {
        const d = (acc - base) * 100, p = { d: localise(Math.abs(d).toFixed(1)) };
        text += ", " + (Math.abs(d) < 0.05 ? (top ? t("the same as the best supervised") : t("the same as supervised"))
          : d > 0 ? (top ? t("{d} points above the best supervised", p) : t("{d} points above supervised", p))
            : (top ? t("{d} points below the best supervised", p) : t("{d} points below supervised", p)));
      }
    }
    return text;
  }

  /** The status sentence (the polite live region): "Iteration 5 of 15: α …; accuracy …". */
  sentence(it = this.t) {
    let s = t("Iteration {t} of {latest}: {words}", { t: it, latest: this.latest, words: this.words(it) });
    // TRANSLATORS: θ{t} is the parameters of iteration t; M-step is the name of the page's button
    if (this.half === "e" && it === this.latest) s += ". " + t("E-step done: the responsibilities are updated under θ{t}; press M-step", { t: it });
    return s;
  }

  /** What every panel draws (docs/lab.md, "The view"). `posterior` is computed when a panel reads it. */
  view(t = this.t) {
    const lab = this, run = this.run;
    t = Math.max(0, Math.min(t, this.latest));
    return {
      t, latest: this.latest, half: t === this.latest ? this.half : null, run, prep: this.prep,
      snap: run.history[t],
      get posterior() { return lab.posterior(t); },
      pending: run.pending || null,
      acc: this.accuracySeries(),
      baselines: { supervised: this.baselines.supervised, majority: this.baselines.majority, lam: this.baselines.lam },
      reference: this.reference(),
      classroom: !!this.settings.classroom, settings: Object.assign({}, this.settings), serial: this.serial,
      status: this.status(), notice: this.notice, playing: this.playing,
    };
  }

  // ---- moving ----------------------------------------------------------------------------------------------

  /** Show iteration t (the slider); nothing is computed. */
  show(t) {
    this.t = Math.max(0, Math.min(t | 0, this.latest));
    if (this.t !== this.latest) this.half = null;
    return this.t;
  }

  /** One EM iteration at the end of the run (E-step + M-step; or the M-step of a pending E-step).
   * Returns false when the run is done, null while a served run waits for its server. */
  compute() {
    if (this.half === "e") return this.mStep();
    if (this.run.done) return false;
    // null: a served run (served.js) has not received θ_{t+1} from its server yet; nothing moved
    if (this.guard(() => this.run.step()) === null) return null;
    this.scored();
    this.t = this.latest;
    this.notice = null;       // "new run" / "continues" are news only until the next step
    return true;
  }

  /** Step: the next iteration; after a drag back it shows the next one already computed (a clicker
   * walks through the run), at the end it computes one. */
  step() {
    if (this.half === "e") return this.mStep();
    if (this.t < this.latest) { this.t++; return true; }
    return this.compute();
  }

  back() { this.half = null; this.t = Math.max(0, this.t - 1); }

  /** The first half: the responsibilities under θ_t (eq. 21); θ does not change. */
  eStep() {
    if (this.half === "e") return false;
    this.t = this.latest;
    if (this.run.done) return false;
    const ok = this.guard(() => this.run.eStep());
    if (ok !== false) this.half = "e";
    return ok !== false;
  }

  /** The second half: θ_{t+1} from the pending responsibilities (eq. 23–24). */
  mStep() {
    if (this.half !== "e") return false;
    if (this.guard(() => this.run.mStep()) === null) return null;
    this.scored();
    this.half = null;
    this.t = this.latest;
    this.notice = null;
    return true;
  }

  /** Step until EM stops, `budgetMs` at a time: returns true when done (call again to go on). */
  converge(budgetMs = Infinity) {
    const t0 = now();
    if (this.half === "e") this.mStep();
    while (!this.run.done) {
      const got = this.guard(() => this.run.step());
      if (got === false) break;
      if (got === null) { this.t = this.latest; return false; }   // a served run: the rest is on its way
      this.scored();
      if (now() - t0 > budgetMs) { this.t = this.latest; return false; }
    }
    this.t = this.latest;
    this.notice = null;
    return true;
  }

  /** Compute up to iteration `t` (the end of the run at most), `budgetMs` at a time (at least one iteration
   * per call): true when there, false when there is more to do (the run so far is whole). */
  computeTo(t, budgetMs = Infinity) {
    const t0 = now();
    while (this.latest < t && !this.done) {
      if (!this.compute()) return true;
      if (this.latest < t && !this.done && now() - t0 >= budgetMs) return false;
    }
    return true;
  }

  /** Step a first run to the iteration a link names (t=), with a notice (LessonRun.restore_to); `budgetMs`
   * at a time (at least one iteration per call): returns true when done, false when there is more to do
   * (call again to go on; the run so far is whole: the page can show it, or stop there). */
  restoreTo(asked, budgetMs = Infinity) {
    const want = Math.min(asked | 0, this.settings.max_iter);
    const t0 = now();
    while (this.latest < want && !this.run.done) {
      const got = this.guard(() => this.run.step());
      if (got === false || got === null) break;
      this.scored();
      if (this.latest < want && !this.run.done && now() - t0 >= budgetMs) return false;
    }
    this.t = Math.min(asked, this.latest);
    if (want <= 0) return true;
    let text = `Recomputed to iteration ${this.latest}, as the link says (the same settings give the same numbers).`;
    if (this.latest < asked) text += ` EM stopped at t = ${this.latest} (${this.run.converged ? "converged" : "its maximum number of iterations"}) before ${asked}.`;
    if (this.initNote) text += " " + this.initNote;
    this.notice = { kind: "continued", text };
    return true;
  }

  reset() {
    this.playing = false;
    this.build(this.settings);
    this.notice = { kind: "rebuilt", text: "Reset: new run from iteration 0 with the same settings." + (this.initNote ? " " + this.initNote : "") };
  }

  guard(fn) {
    try {
      const r = fn();
      this.error = null;
      return r;
    } catch (e) {
      this.error = String(e && e.message ? e.message : e);
      this.playing = false;
      return false;
    }
  }

  // ---- settings ----------------------------------------------------------------------------------------------

  /**
   * Bring the run in line with new settings. Returns "rebuilt", "continued", "page" (only t, speed or
   * classroom changed) or "none"; `notice` says what happened.
   */
  apply(next) {
    const old = this.settings;
    const c = changes(old, next);
    if (!c.rebuild.length && !c.cont.length) {
      this.settings = Object.assign({}, next);
      if (c.page.includes("t")) this.show(next.t);
      return c.page.length ? "page" : "none";
    }
    if (!c.rebuild.length && this.latest > 0) return this.continueWith(next, c.cont);
    const keep = Object.assign({}, this);       // the run and everything derived from it, kept if the build fails
    try {
      this.build(next);
    } catch (e) {
      Object.assign(this, keep);
      this.error = `Can't start a run with these settings: ${e && e.message ? e.message : e} The previous run is still shown.`;
      return "none";
    }
    this.error = null;
    this.playing = false;
    let text;
    if (!c.rebuild.length && c.cont.length === 1 && c.cont[0] === "lam") {
      text = `λ changed ${fmtLam(old.lam)} → ${fmtLam(next.lam)} before any step: new run from iteration 0 with λ = ${fmtLam(next.lam)}.`;
    } else {
      text = `Data settings changed (${describeChange(old, next, c.rebuild.concat(c.cont))}): new run from iteration 0.`;
    }
    if (this.initNote) text += " " + this.initNote;
    this.notice = { kind: "rebuilt", text };
    return "rebuilt";
  }

  /** λ, the iteration budget or the tolerance changed mid-run: continue from θ_t with them, history kept. */
  continueWith(next, keys) {
    const old = this.settings, run = this.run, t = this.latest;
    let nextRun;
    try {
      nextRun = continued(this.engine, run, { lam: next.lam, maxIter: next.max_iter, tol: next.tol }, keys);
    } catch (e) {
      this.error = String(e && e.message ? e.message : e);
      return "none";
    }
    this.error = null;
    // the iterations so far are the same snapshots: their accuracy and posteriors still hold
    this.run = nextRun;
    this.settings = Object.assign({}, next);
    // an E-step done before the change stays done (the responsibilities under θ_t do not depend on λ):
    // the M-step that follows uses the new λ
    this.half = nextRun.pending ? "e" : null;
    this.t = this.latest;
    // supervised NB at the new λ (the next segment's); the split's baselines (majority, leave-one-out) are kept
    if (keys.includes("lam")) this.baselines = { supervised: this.atLambda(next.lam), majority: this.baselines.majority, lam: next.lam };
    const what = [];
    if (keys.includes("lam")) what.push(`λ changed ${fmtLam(old.lam)} → ${fmtLam(next.lam)}`);
    const rest = keys.filter((k) => k !== "lam");
    if (rest.length) what.push(describeChange(old, next, rest));
    this.notice = { kind: "continued", text: `${what.join("; ")}: EM continues from iteration ${t} with the current parameters `
      + `(history kept; the next steps use λ = ${fmtLam(next.lam)}).` };
    return "continued";
  }
}

/** A run that continues `run` with new settings (history kept): the engine's withSettings when it has one,
 * else withSmoothing for λ (and the budget and tolerance set on the copy). */
export function continued(engine, run, want, keys) {
  if (typeof run.withSettings === "function") {
    const opts = {};
    if (keys.includes("lam")) opts.lam = want.lam;
    if (keys.includes("max_iter")) opts.maxIter = want.maxIter;
    if (keys.includes("tol")) opts.tol = want.tol;
    return run.withSettings(opts);
  }
  const lam = keys.includes("lam") ? want.lam : currentLam(run);
  const next = run.withSmoothing(lam);
  if (keys.includes("max_iter") || keys.includes("tol")) {
    if (typeof next.setStopRules === "function") next.setStopRules({ maxIter: want.maxIter, tol: want.tol });
    else if (next.settings) Object.assign(next.settings, { maxIter: want.maxIter, tol: want.tol });
  }
  return next;
}

function currentLam(run) {
  if (run.settings && run.settings.lam !== undefined) return run.settings.lam;
  return run.lam;
}

function now() { return typeof performance !== "undefined" ? performance.now() : Date.now(); }
