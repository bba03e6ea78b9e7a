// The numbers at the iteration on screen (the metrics row, the status line, the caption and the sentence
// that says the state): written as text, and only when they change where a screen reader would hear it.

import * as State from "./state.js";
import { WORDS } from "./vocabulary.js";
import { percent, deltaText, best as bestOf, candidates, segmentOf, gainParts } from "./lab.js";
import { el } from "./dom.js";

const fmtNum = (v, d) => (v === null || v === undefined || !isFinite(v) ? "—"
  : Number(v).toLocaleString("en", { minimumFractionDigits: d, maximumFractionDigits: d }).replace("-", "\u2212"));

/** The metrics, the status, the caption and the sentence of iteration t. */
export function drawNumbers(G, lab, t) {
  const { mIt } = G.metrics;
  mIt.value.textContent = String(t);
  mIt.delta.textContent = `of ${lab.latest}` + (lab.half === "e" && t === lab.latest ? " · E-step done" : "");
  drawBaselines(G, lab, t);
  drawObjective(G, lab, lab.run.history[t]);
  drawStatus(G, lab, t);
}

// the baselines of iteration t's λ segment (numbers.Reference): "Supervised only" is NB at the λ that
// made iteration t, the accuracy is compared with the best of the three
function drawBaselines(G, lab, t) {
  const { mAcc, mSup, mBest } = G.metrics;
  const scored = lab.scoreRows.length > 0;
  const ref = lab.reference(), top = bestOf(ref, t), seg = segmentOf(ref, t);
  const a = scored ? lab.accuracy(t) : NaN;
  const [base, what] = top ? [top[1], "best supervised"] : [lab.baselines.supervised, "supervised"];
  mAcc.lab.textContent = `Accuracy (t=${t})`;
  mAcc.value.textContent = percent(a) || "—";
  const d = !scored ? WORDS.no_score
    : base !== null && base !== undefined && isFinite(a) ? deltaText(a, base, what) : "";
  mAcc.delta.textContent = d;
  mAcc.delta.className = "lab-metric-delta" + (d.startsWith("+") ? " lab-up" : d.startsWith("-") ? " lab-down" : "");
  const sup = seg ? seg[3] : lab.baselines.supervised;
  mSup.value.textContent = sup === null || sup === undefined ? "—" : percent(sup);
  mSup.delta.textContent = !scored ? WORDS.no_score : sup === null || sup === undefined ? WORDS.no_visible
    : `NB on the visible labels, λ = ${State.fmtLam(seg ? seg[2] : lab.baselines.lam)}`;
  mBest.value.textContent = top ? percent(top[1]) : "—";
  mBest.delta.textContent = !scored ? WORDS.no_score : !top ? WORDS.no_visible : top[0].startsWith("majority") ? "majority class"
    : top[0].includes("leave-one-out") ? `NB at λ = ${State.fmtLam(ref.cvLambda)} (leave-one-out)` : `NB at λ = ${State.fmtLam(seg[2])}`;
  const help = ref ? "The best of: " + candidates(ref, t).map(([n, v]) => `${n}: ${percent(v)}`).join("; ")
    + ". None of them reads a hidden label (λ is chosen on the labelled documents alone)." : "";
  if (mBest.box.title !== help) mBest.box.title = help;
  const accHelp = scored ? "" : WORDS.no_score_help;
  if (mAcc.box.title !== accHelp) mAcc.box.title = accHelp;
  drawGain(G, t > 0 && top && !G.playing && !G.converging ? gainParts(a, top) : null);
}

/** EM against the best baseline in words (hidden while the run moves or at t = 0). */
function drawGain(G, parts) {
  G.gain.hidden = !parts;
  const gainKey = parts ? parts.map((p) => p.join("\u0000")).join("\u0001") : "";
  if (G.gain.__key !== gainKey) {
    G.gain.__key = gainKey;
    // the baseline's name holds a class name from the data: every part goes in as text
    G.gain.replaceChildren(...(parts || []).map(([text, style]) => (style ? el(style, { text }) : document.createTextNode(text))));
  }
}

/** The log-likelihood, the MAP objective and the first iteration (within one λ) where the objective went down. */
function drawObjective(G, lab, snap) {
  const { mLL, mObj } = G.metrics;
  mLL.value.textContent = fmtNum(snap.logLikelihood, 1);
  mObj.value.textContent = fmtNum(snap.objective, 1);
  const obj = lab.run.history.map((s) => s.objective);
  let down = null;
  for (let k = 1; k <= lab.latest; k++) {
    if (lab.run.history[k].lam === lab.run.history[k - 1].lam && obj[k] < obj[k - 1] - 1e-9 * Math.max(1, Math.abs(obj[k - 1]))) { down = k; break; }
  }
  mObj.delta.textContent = down === null ? "never went down" : `⚠ went DOWN at t = ${down}`;
  mObj.delta.className = "lab-metric-delta" + (down === null ? "" : " lab-down");
}

/** The status line, the caption of the settings and the sentence of the state. */
function drawStatus(G, lab, t) {
  const [kind, status] = G.converging ? ["running", `Running to convergence … t = ${lab.latest}`]
    : G.job ? ["running", `Computing to iteration ${G.job.target} … t = ${lab.latest}`] : lab.status();
  G.statusLine.textContent = `Status: ${status}`;
  G.statusLine.dataset.kind = kind;
  const s = G.settings;
  G.caption.textContent = `${G.data.name || s.dataset} · ${s.model} · ${s.hidden}% labels hidden · λ = ${State.fmtLam(s.lam)} · init ${lab.effectiveInit}`
    + (lab.effectiveInit !== s.init ? " (no label visible)" : "") + ` · seed ${s.seed} · max ${s.max_iter} iterations · tol ${State.fmtTol(s.tol)}`;
  // the state in a sentence: announced when it settles (not five times a second while playing)
  const live = G.playing || G.converging || G.job ? "off" : "polite";
  if (G.sentence.getAttribute("aria-live") !== live) G.sentence.setAttribute("aria-live", live);
  const sentence = lab.sentence(t);
  if (G.sentence.textContent !== sentence) G.sentence.textContent = sentence;
}
