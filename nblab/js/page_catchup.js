// Long computations on the page: a link's t= (up to 1,000 iterations of a large upload) and the teacher's
// iteration on a class page. They run a slice at a time (SLICE_MS of EM, at least one iteration), yielding to
// the browser between slices, so the page is drawn and usable at once: a progress bar says how far it is, Stop
// ends it where it is, and any action of the student's own stops it first (the run so far is kept whole). A
// short computation (done within FIRST_MS) finishes at once, with no progress shown, as before.
//
//   runJob(G, { target, label, step(budgetMs) -> done, onDone(stopped) })     G.job while one runs

import { el } from "./dom.js";
import { render } from "./page_draw.js";
import { progressOf } from "./lab.js";

//: ms of EM between two yields to the browser (an iteration of a large upload can take longer: then one a slice)
export const SLICE_MS = 40;
//: ms the first slice may take before the page is drawn with a progress bar
export const FIRST_MS = 120;
//: ms between two redraws of the page while a job goes on
export const REDRAW_MS = 1000;

/**
 * Run `step` until it says it is done, a slice at a time. Returns true when it finished in the first slice
 * (`onDone(false)` was called already), else false (G.job holds it until it ends: onDone(false) when done,
 * onDone(true) when stopped). A job already running is replaced (its onDone is not called).
 */
export function runJob(G, job) {
  G.job = null;
  let done;
  try { done = job.step(FIRST_MS); } catch (e) { console.error(e); done = true; }
  if (done) { hide(G); job.onDone(false); return true; }
  const me = Object.assign({ start: G.lab.latest, slices: 1 }, job);
  G.job = me;
  G.ready = false;
  show(G, me);
  render(G);
  const chunk = () => {
    if (G.job !== me) return;
    me.slices++;
    let fin;
    try { fin = me.step(SLICE_MS); } catch (e) { console.error(e); fin = true; }
    if (G.job !== me) return;
    if (fin) { end(G, me, false); return; }
    show(G, me);
    // the progress moves every slice; the page's numbers and charts at most every REDRAW_MS (drawing them
    // costs more than an iteration of a small set: redrawn each slice, the whole way would take several times longer)
    const at = performance.now();
    if (at - (me.drawnAt || 0) >= REDRAW_MS) { me.drawnAt = at; render(G); }
    setTimeout(chunk, 0);
  };
  setTimeout(chunk, 0);
  return false;
}

/** Drop the running job without a word (the teacher's next move replaces it). */
export function cancelJob(G) {
  if (!G.job) return;
  G.job = null;
  hide(G);
  if (G.chartsReady) G.ready = true;
}

/** Stop the running job where it is (the Stop button, or an action of the student's own first). */
export function stopJob(G) {
  const job = G.job;
  if (job) end(G, job, true);
}

function end(G, job, stopped) {
  if (G.job === job) G.job = null;
  hide(G);
  try { job.onDone(stopped); } catch (e) { console.error(e); }
  if (G.chartsReady) G.ready = true;
  render(G, true);
}

function box(G) {
  if (G.progressBox) return G.progressBox;
  const text = el("span", { class: "lab-progress-text" });
  const bar = el("progress", { class: "lab-progress-bar", max: "1", value: "0", "aria-label": "Iterations computed" });
  const stop = el("button", { type: "button", class: "lab-btn lab-progress-stop", text: "Stop",
    onclick: () => { if (G.onStudent && !G.page.applying) G.onStudent("stop"); stopJob(G); } });
  const b = el("div", { class: "lab-notice lab-progress", role: "status", "aria-live": "polite", hidden: true }, text, bar, stop);
  G.progressBox = b;
  G.progressParts = { text, bar, stop };
  const root = G.page.root, follow = root.querySelector(".lab-follow");
  if (follow) follow.after(b);
  else root.prepend(b);
  return b;
}

function show(G, job) {
  const b = box(G), p = progressOf(job, G.lab.latest), parts = G.progressParts;
  if (parts.text.textContent !== p.text) parts.text.textContent = p.text;
  parts.bar.max = p.total;
  parts.bar.value = p.done;
  b.hidden = false;
  b.setAttribute("aria-busy", "true");
}

function hide(G) {
  if (!G.progressBox) return;
  G.progressBox.hidden = true;
  G.progressBox.removeAttribute("aria-busy");
}

/** The link's iteration (t=) on a new run, computed a slice at a time (Lab.restoreTo's notice when done). */
export function restoreLink(G, asked) {
  const lab = G.lab;
  const target = Math.min(asked | 0, lab.settings.max_iter);
  return runJob(G, { target, label: "as the link says",
    step: (ms) => lab.restoreTo(asked, ms),
    onDone: (stopped) => {
      if (stopped) {
        lab.t = lab.latest;
        lab.notice = { kind: "continued", text: `Stopped at iteration ${lab.latest}: the link asks for ${asked}. `
          + "Step or Run to convergence goes on from here." };
      }
      G.settings.t = lab.t;
    } });
}
