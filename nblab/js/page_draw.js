// Drawing the lab page: one draw per animation frame (render), the charts when the run changed (else only
// the iteration line moves), the numbers, the notices, the panels below at most every PANEL_MS while the
// run moves, and the link once the page settles.

import * as State from "./state.js";
import { el } from "./dom.js";
import { drawNumbers } from "./page_numbers.js";
import { drawPanels } from "./page_panels.js";
import { warningsAt } from "./warnings.js";
import { WORDS } from "./vocabulary.js";
import { t } from "./i18n.js";

//: while Play runs or the slider is dragged, the panels below are redrawn at most this often (a panel's
//: redraw takes tens of ms: more often and the frames in between would be dropped)
const PANEL_MS = 400;
//: while Play or Run to convergence compute new iterations, the charts are redrawn at most this often
const CHART_MS = 100;

/** The charts of the run (a promise; resolved at once before plotly.js is there). */
export function drawCharts(G, force) {
  if (!G.charts || !G.Plotly) return Promise.resolve();
  return G.charts.update(G.lab, force);
}

/** Draw in the next animation frame (once per frame; `force` redraws everything). */
export function render(G, force) {
  const pg = G.page;
  pg.rafForce = pg.rafForce || !!force;
  if (pg.rafPending) return;
  pg.rafPending = true;
  requestAnimationFrame(() => { pg.rafPending = false; const f = pg.rafForce; pg.rafForce = false; draw(G, f); });
}

function draw(G, force) {
  const now0 = performance.now();
  const lab = G.lab, t = lab.t, moving = G.playing || G.dragging || G.converging || !!G.job;
  G.frames++;
  G.controls.sync(lab, G.dragging);
  // the teacher paused the class (page_questions.js): what sync enabled waits again
  if (G.paused && G.holdControls) G.holdControls();
  // the run's charts: redrawn when the run changed, else only the iteration line moves
  const key = `${lab.serial}|${lab.latest}|${lab.baselines.supervised}|${lab.run.history[lab.latest].lam}|${G.settings.classroom}`;
  let charts = null;
  // Play and Run to convergence add iterations faster than three charts can be laid out: the charts
  // follow at most every CHART_MS then (the status, the numbers and the slider at every step)
  // a long computation (page_catchup.js) redraws them once at its end: meanwhile they would cost it more than its EM
  const chartsDue = !G.job && (force || !moving || performance.now() - G.chartsAt >= CHART_MS);
  if (G.Plotly && (key !== G.drawnKey || force) && chartsDue) {
    G.chartsAt = performance.now();
    G.drawnKey = key;
    charts = G.drawing = drawCharts(G, false);   // a promise: the benchmark and the tests wait for the charts
  } else if (G.charts) G.charts.mark(t);
  drawNumbers(G, lab, t);
  drawNotices(G, lab);
  if (!moving) drawWarnings(G, lab, t);     // EM emptied a class, a prior drifted, EM under the baseline
  const now = performance.now();
  // the panels below wait for a long computation's end (page_catchup.js): drawn meanwhile, they would take
  // more of the page's time than the computation itself
  if ((!moving || force || now - G.panelsAt >= PANEL_MS) && !G.job) {
    G.panelsAt = now;
    // the charts first: the panels below follow once they are drawn, in a task of their own
    if (charts) charts.then(() => setTimeout(() => drawPanels(G), 0));
    else drawPanels(G);
  }
  if (!moving) writeLink(G);
  G.stats.draw += performance.now() - now0;
}

function drawNotices(G, lab) {
  const n = lab.notice;
  const text = n ? n.text : "";
  if (G.changeBox.textContent !== text) G.changeBox.textContent = text;
  G.changeBox.dataset.kind = n ? n.kind : "";
  G.changeBox.classList.toggle("lab-empty", !n);
  G.lamZero.hidden = G.settings.lam !== 0;
  const lamText = t(lab.scoreRows.length > 0 ? WORDS.lam_zero : WORDS.lam_zero_unscored);
  if (!G.lamZero.hidden && G.lamZero.textContent !== lamText) G.lamZero.textContent = lamText;
  G.errorBox.hidden = !lab.error;
  if (lab.error && G.errorBox.textContent !== lab.error) G.errorBox.textContent = lab.error;
}

function drawWarnings(G, lab, t) {
  const key = `${lab.serial}|${t}|${lab.latest}|${lab.run.history[t].lam}`;
  if (G.warnBox.__key === key) return;
  G.warnBox.__key = key;
  const list = warningsAt(lab, t);
  G.warnBox.replaceChildren(...list.map((parts) => el("p", { class: "lab-warning" },
    ...parts.map(([text, style]) => (style ? el(style, { text }) : document.createTextNode(text))))));
  G.warnBox.hidden = !list.length;
}

/** The note on the link's settings that could not be used as given (hidden when there is none). */
export function drawLinkNotice(G) {
  const box = G.linkBox, items = G.urlNotices;
  box.textContent = "";
  box.hidden = !items.length;
  if (!items.length) return;
  const lead = items.length === 1 ? "A setting could not be used as given" : `${items.length} settings could not be used as given`;
  box.append(el("h2", { id: "lab-link-h", class: "lab-notice-h", text: lead + ":" }));
  const ul = el("ul");
  for (const n of items) {
    ul.append(n.key === "link" && !n.value ? el("li", { text: n.text })
      : el("li", null, el("code", { text: `${n.key}=${n.value}` }), " " + n.text));
  }
  box.append(ul, el("button", { type: "button", class: "lab-btn lab-small", text: "OK, hide this note",
    onclick: () => { G.urlNotices = []; drawLinkNotice(G); } }));
}

/** The line under the title and "About this page and its data". */
export function drawAbout(G) {
  const d = G.data, lab = G.lab;
  const N = lab.prep.yObs.length, K = lab.prep.K;
  const V = lab.prep.featureNames ? lab.prep.featureNames.length : null;
  G.sub.textContent = `${d.name || G.page.name}: ${N.toLocaleString("en")} documents, ${K} classes`
    + (V ? `, ${V.toLocaleString("en")} features` : "") + ". EM runs in this page: nothing is sent anywhere.";
  const box = G.about;
  for (const c of [...box.children].slice(1)) c.remove();
  if (d.description) box.append(el("p", { text: String(d.description) }));
  const card = d.card && typeof d.card === "object" ? d.card : { card: typeof d.card === "string" ? d.card : null };
  if (card.source) box.append(el("p", null, el("b", { text: "Source: " }), String(card.source)));
  if (card.licence) box.append(el("p", null, el("b", { text: "Licence: " }), String(card.licence)));
  if (card.card) box.append(el("details", null, el("summary", { text: "The whole data card" }), el("pre", { class: "lab-card", text: String(card.card) })));
  box.append(el("p", { class: "lab-caption", text: "Charts drawn with plotly.js (MIT licence). Made with the Naive Bayes + EM Lab (nbcore, MIT). "
    + "Every setting is in this page's address: copy it to share what you see." }));
}

// the link follows the page (written when the page settles, never while playing)
function writeLink(G) {
  const { host, useHash } = G.page;
  const s = Object.assign({}, G.settings, { t: G.lab.t });
  G.settings.t = G.lab.t;
  // the host is told the lesson's settings; the language is the page's reader's, not the lesson's (a notebook
  // saving the lab as a file, nblab.page's settings, never fixes the language of those who open it)
  const { lang, ...lesson } = s;
  if (host.onView) host.onView({ t: G.lab.t, latest: G.lab.latest, playing: !!G.playing, settings: lesson });
  if (!useHash) return;
  const frag = State.toFragment(s, G.table);
  if (location.hash.slice(1) === frag) return;
  try { history.replaceState(null, "", "#" + frag); } catch (e) { /* a sandboxed frame: the page still works */ }
}

// classroom mode: the page's bigger type; the panels read data-classroom (nblab/panels.css)
export function setClassroom(G, on) {
  G.page.root.classList.toggle("lab-classroom", on);
  G.page.root.setAttribute("data-classroom", String(on));
}
