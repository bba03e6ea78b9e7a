// The numbers at the iteration on screen (the metrics row, the status line, the caption and the sentence
// that says the state): written as text, and only when they change where a screen reader would hear it.

import * as State from "./state.js";
import { WORDS } from "./vocabulary.js";
import { t, tn, number, localise, percent as pct } from "./i18n.js";
import { deltaText, best as bestOf, candidates, segmentOf, gainParts } from "./lab.js";
import { el } from "./dom.js";

const fmtNum = (v, d) => (v === null || v === undefined || !isFinite(v) ? "—" : number(Number(v), d).replace("-", "\u2212"));
// an accuracy in the page's language (lab.js's percent's rounding), null when there is none
const percent = (acc) => (acc === null || acc === undefined || !isFinite(acc) ? null : pct(acc));
// λ as the URL spells it (0.01, 1e-05), with the language's decimal sign
const lamText = (v) => localise(State.fmtLam(v));

/** The metrics, the status, the caption and the sentence of iteration t. */
export function drawNumbers(G, lab, it) {
  const { mIt } = G.metrics;
  mIt.value.textContent = String(it);
  mIt.delta.textContent = t("of {n}", { n: lab.latest }) + (lab.half === "e" && it === lab.latest ? " · " + t("E-step done") : "");
  drawBaselines(G, lab, it);
  drawObjective(G, lab, lab.run.history[it]);
  drawStatus(G, lab, it);
}

// the baselines of iteration t's λ segment (numbers.Reference): "Supervised only" is NB at the λ that
// made iteration t, the accuracy is compared with the best of the three
function drawBaselines(G, lab, it) {
  const { mAcc, mSup, mBest } = G.metrics;
  const scored = lab.scoreRows.length > 0;
  const ref = lab.reference(), top = bestOf(ref, it), seg = segmentOf(ref, it);
  const a = scored ? lab.accuracy(it) : NaN;
  const [base, what] = top ? [top[1], "best supervised"] : [lab.baselines.supervised, "supervised"];
  mAcc.lab.textContent = t("Accuracy (t={t})", { t: it });
  mAcc.value.textContent = percent(a) || "—";
  const d = !scored ? t(WORDS.no_score)
    : base !== null && base !== undefined && isFinite(a) ? deltaText(a, base, what) : "";
  mAcc.delta.textContent = d;
  mAcc.delta.className = "lab-metric-delta" + (d.startsWith("+") ? " lab-up" : d.startsWith("-") ? " lab-down" : "");
  const sup = seg ? seg[3] : lab.baselines.supervised;
  mSup.value.textContent = sup === null || sup === undefined ? "—" : percent(sup);
  mSup.delta.textContent = !scored ? t(WORDS.no_score) : sup === null || sup === undefined ? t(WORDS.no_visible)
    : t("NB on the visible labels, λ = {lam}", { lam: lamText(seg ? seg[2] : lab.baselines.lam) });
  mBest.value.textContent = top ? percent(top[1]) : "—";
  mBest.delta.textContent = !scored ? t(WORDS.no_score) : !top ? t(WORDS.no_visible) : top[0].startsWith("majority") ? t("majority class")
    : top[0].includes("leave-one-out") ? t("NB at λ = {lam} (leave-one-out)", { lam: lamText(ref.cvLambda) })
    : t("NB at λ = {lam}", { lam: lamText(seg[2]) });
  const help = ref ? t("The best of: {list}. None of them reads a hidden label (λ is chosen on the labelled documents alone).",
    { list: candidates(ref, it).map(([n, v]) => `${n}: ${percent(v)}`).join("; ") }) : "";
  if (mBest.box.title !== help) mBest.box.title = help;
  const accHelp = scored ? "" : t(WORDS.no_score_help);
  if (mAcc.box.title !== accHelp) mAcc.box.title = accHelp;
  drawGain(G, it > 0 && top && !G.playing && !G.converging ? gainParts(a, top) : null);
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
  mObj.delta.textContent = down === null ? t("never went down") : t("⚠ went DOWN at t = {t}", { t: down });
  mObj.delta.className = "lab-metric-delta" + (down === null ? "" : " lab-down");
}

/** The status line, the caption of the settings and the sentence of the state. */
function drawStatus(G, lab, it) {
  const [kind, status] = G.converging ? ["running", t("Running to convergence … t = {t}", { t: lab.latest })]
    : G.job ? ["running", t("Computing to iteration {target} … t = {t}", { target: G.job.target, t: lab.latest })] : lab.status();
  G.statusLine.textContent = t("Status: {status}", { status });
  G.statusLine.dataset.kind = kind;
  const s = G.settings;
  // the data set's name, the model's and the start's keys are the data's and the URL's: not translated
  G.caption.textContent = [G.data.name || s.dataset, s.model, t("{hidden} labels hidden", { hidden: pct(s.hidden / 100, 0) }),
    `λ = ${lamText(s.lam)}`,
    t("init {init}", { init: lab.effectiveInit }) + (lab.effectiveInit !== s.init ? " " + t("(no label visible)") : ""),
    t("seed {seed}", { seed: s.seed }), tn("max {n} iteration", "max {n} iterations", s.max_iter),
    t("tol {tol}", { tol: localise(State.fmtTol(s.tol)) })].join(" · ");
  // the state in a sentence: announced when it settles (not five times a second while playing)
  const live = G.playing || G.converging || G.job ? "off" : "polite";
  if (G.sentence.getAttribute("aria-live") !== live) G.sentence.setAttribute("aria-live", live);
  const sentence = lab.sentence(it);
  if (G.sentence.textContent !== sentence) G.sentence.textContent = sentence;
}
