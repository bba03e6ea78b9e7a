// @ts-check
// The lesson's client-side player (a Streamlit components-v2 module; dashboard/lesson/player/__init__.py
// mounts it, joining this file and the modules it imports into one module text at start-up).
//
// Three mounts share this module (Streamlit caches a component's module by its text):
//   role "main":   Play/Pause, the iteration slider, and the time-series charts (α, accuracy, likelihood);
//   role "params": the parameter chart (top features / heatmap / images) and the truth scatter;
//   role "lower":  a marker at the top of the panels below the charts (drawn when they are in view).
// The server sends each iteration's frame once (payload.py: a template spec per chart + compact patches);
// dragging the slider or playing redraws here, with no server round trip per frame:
//   - the parameter charts: Plotly.react with the frame's arrays (only the charts that change);
//   - the time-series charts: the whole history is drawn once, the iteration marker is a plain div moved
//     over the plot (no plotly call), and a curtain hides iterations not shown yet while playing.
// What the player shows is reported back (setStateValue "view") when the user stops, so the maths panel
// and the metrics follow; while playing, it asks the server for more iterations ahead (trigger "need").
//
// The modules, one concern each:
//   js/decode.js    the frames (payload.py's encoding), decoded; no page;
//   js/playback.js  which iteration is shown: Play / Pause / drag as a state machine; no page;
//   js/draw.js      the charts with plotly.js (every read of plotly's internals);
//   js/bridge.js    Streamlit's page (every Streamlit class, test id and attribute);
//   nblab/js/plotly_loader.js  plotly.js, loaded once per page (shared with the lab page and lean charts).
// This module wires them to the component's mounts and the user's input.
//
// Test hook: `window.nbemPlayerSnapshot()` returns a read-only copy of the player's state (snapshot()
// below): the browser tests and the benchmarks read the player through it, never its variables.

import { frameLogs, mergeLog, specAt } from "./js/decode.js";
import * as Playback from "./js/playback.js";
import { react, plainText, describe, placeMarkers, backDraw, swapIn, fastImages, fastBars, chartBox } from "./js/draw.js";
import * as Bridge from "./js/bridge.js";
import { loadPlotly } from "../../../nblab/js/plotly_loader.js";

/**
 * The player of this page (all mounts): the playback, the drawing context and what the server sent.
 * @typedef {import("./js/draw.js").DrawCtx & {
 *   sid: string | null, acc: Array<string | null>, accDelta: Array<string | null>, words: string[],
 *   status: any, stop: any, next: any, lam: any, dom: Bridge.Dom,
 *   main: any, params: any, lower: any, firstPaint: boolean, paintedFor: string | null,
 *   plotlySource: string | null}} Player
 */

/** @type {Player} */
const P = {
  pb: Playback.create(),
  sid: null, acc: [], accDelta: [], words: [],
  status: null, stop: null, next: null, lam: null, dom: Bridge.DEFAULT_DOM,
  main: null, params: null,        // the two mounts' views
  lower: null, firstPaint: false, paintedFor: null,  // the marker of the panels below the charts; the charts drawn once
  stats: { draws: 0, distinct: 0, lastDrawn: -1, reacts: 0, backDraws: 0, swaps: 0, steps: 0, lams: 0, fast: 0, ticks: 0, log: [] },
  Plotly: null,                    // kept: a later st.plotly_chart replaces window.Plotly
  plotlySource: null,              // where plotly.js came from: "bundle", "chunk" or "page"
  tpl: null, classroom: false, reducedMotion: false,
};
const LOGS = frameLogs();

// The reader asked for less motion (prefers-reduced-motion): plotly draws every change at once (no
// transition), and Play steps from one iteration to the next with nothing in between.
const REDUCED = typeof window !== "undefined" && window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
P.reducedMotion = !!(REDUCED && REDUCED.matches);
if (REDUCED && REDUCED.addEventListener) REDUCED.addEventListener("change", () => { P.reducedMotion = REDUCED.matches; });

/**
 * A read-only copy of the player's state, for tests and benchmarks: the playback (t, n, revealed, done,
 * playing), the counters (stats), where plotly.js came from, the first paint, the accuracy strings, the
 * iteration sent ahead (next: from, series' names and versions), and the charts of each mount (boxes:
 * name, ver, the plotly div shown `gd`, the one drawn ahead `back` and its `backTag`; the params log's
 * frame count). Null before the player has mounted.
 * @returns {object | null}
 */
export function snapshot() {
  if (!P.main && !P.params && !P.lower) return null;
  /** @param {any} b */
  const box = (b) => Object.freeze({ name: b.name, ver: b.ver, gd: b.gd, back: b.back || null, backTag: b.backTag || null });
  /** @param {any} v */
  const mount = (v) => (v ? Object.freeze({ boxes: Object.freeze(v.boxes.map(box)),
    log: v.log ? Object.freeze({ frames: Object.freeze({ length: v.log.frames.length }) }) : null }) : null);
  const pb = P.pb;
  return Object.freeze({
    t: pb.t, n: pb.n, revealed: pb.revealed, done: pb.done, playing: pb.playing,
    acc: Object.freeze(P.acc.slice()), reducedMotion: P.reducedMotion, plotlySource: P.plotlySource,
    firstPaint: P.firstPaint, stats: Object.freeze(Object.assign({}, P.stats, { log: P.stats.log.slice() })),
    next: P.next ? Object.freeze({ from: P.next.from,
      series: Object.freeze(P.next.series.map((/** @type {any} */ s) => Object.freeze({ name: s.name, ver: s.ver }))) }) : null,
    main: mount(P.main), params: mount(P.params),
    // the panels below the charts: in view, the state they show (drawn), the one last asked for, the charts'
    lower: P.lower ? Object.freeze({ visible: !!P.lower.visible, drawn: P.lower.drawn, asked: P.lower.asked,
      want: P.main ? P.main.lowerKey || null : null }) : null,
  });
}
if (typeof window !== "undefined") {
  Object.defineProperty(window, "nbemPlayerSnapshot", { value: snapshot, configurable: true, writable: false });
}

/**
 * plotly.js for the player (once per page, shared with the lean charts).
 * @param {import("../../../nblab/js/plotly_loader.js").PlotlySources} src
 */
function plotly(src) {
  if (P.Plotly) return Promise.resolve(P.Plotly);
  return loadPlotly(src, Bridge.streamlitBase()).then(({ Plotly, source }) => {
    P.Plotly = Plotly; P.plotlySource = source; return Plotly;
  });
}

// ---- words for screen readers: the iteration in a sentence -------------------------------------------------
function summaryText() {
  const pb = P.pb, w = P.words[pb.t];
  return `Iteration ${pb.t} of ${Math.max(0, pb.n - 1)}` + (w ? `: ${w}` : "");
}

// ---- Step, answered here ------------------------------------------------------------------------------
// The server sends the next iteration's charts ahead of time ("next": the run stepped once more, which
// the Step then adopts instead of computing it again). Pressing Step (the button, → or Page Down) shows
// them at once; the server's rerun that follows brings the same charts with the same versions (no
// redraw) and the metrics, the maths panel and the documents of that iteration.
/** @param {string} why */
function stepNow(why) {
  const nx = P.next, m = P.main;
  if (!m || !Playback.canStepAhead(P.pb, nx) || !P.Plotly) return false;
  const btn = Bridge.stepButton(P.dom);
  if (!btn || btn.disabled) return false;
  P.next = null;
  note("step here " + why);
  // after the click's own handlers (Streamlit sends the Step to the server first), before the next paint
  setTimeout(() => showNext(nx), 0);
  return true;
}
/** @param {any} nx */
function showNext(nx) {
  const m = P.main;
  if (!m || P.pb.run !== nx.run || P.pb.n !== nx.from) return;
  Playback.stepAhead(P.pb, nx);
  P.acc = nx.acc; P.accDelta = nx.accDelta || []; P.words = nx.words || P.words;
  P.status = nx.status || P.status; P.stop = nx.stop || P.stop;
  nx.series.forEach((/** @type {any} */ s, /** @type {number} */ i) => {
    const box = m.boxes[i];
    if (!box || box.name !== s.name || box.ver === s.ver) return;
    box.ver = s.ver;
    if (!swapIn(P, box, s.ver)) react(P, box.gd, s.spec).then(() => placeMarkers(P, box));
  });
  P.stats.steps++;
  drawNow();   // now, not at the next animation frame: the parameter charts swap in with the others
}
let prerenderPending = false;
function schedulePrerender() {
  if (prerenderPending || !P.next) return;
  prerenderPending = true;
  const go = () => { prerenderPending = false; if (prerenderOne()) schedulePrerender(); };
  // not every browser has requestIdleCallback (Safari has none), whatever the DOM types declare
  if (/** @type {Partial<Window>} */ (window).requestIdleCallback) requestIdleCallback(go, { timeout: 1000 }); else setTimeout(go, 60);
}
function prerenderOne() {   // one chart per idle period (a Plotly.react is 10-60 ms): true if one was drawn
  const nx = P.next;
  if (!Playback.canStepAhead(P.pb, nx) || P.pb.dragging || !P.Plotly) return false;
  if (P.main) {
    for (let i = 0; i < nx.series.length; i++) {
      const s = nx.series[i], box = P.main.boxes[i];
      if (box && box.name === s.name && box.ver !== s.ver && backDraw(P, box, s.spec, s.ver)) return true;
    }
  }
  if (P.params && P.params.log && P.params.log.frames.length > nx.from) {
    for (const box of P.params.boxes) {
      const spec = specAt(P.params.log, box.name, nx.from);
      if (spec && spec !== box.shown && backDraw(P, box, spec, spec)) return true;
    }
  }
  return false;
}

// ---- λ, answered here --------------------------------------------------------------------------------
// A λ change mid-run continues the run with its history: the only chart it changes is the accuracy
// chart's supervised baseline. The server sends that chart for the λ one notch either side ("lam", with the
// slider's label); when the sidebar's λ slider settles on one of them (key released, or pointer released),
// it is drawn here at once; the server's rerun brings the same chart (same version) and redraws nothing.
/** @param {Event} e */
function lamSettled(e) {
  if (!P.lam || !P.main || P.pb.playing) return;
  const el = P.lam.label ? Bridge.sidebarSlider(P.lam.label) : null;
  if (!el || !Bridge.withinSlider(el, e.target)) return;
  requestAnimationFrame(() => {   // the slider has its new value by the next frame
    const lam = P.lam, label = Bridge.sliderText(el);
    if (!lam || label === null || label === lam.now || !P.main) return;
    const alt = lam.alt[label];
    lam.now = label;
    // what was computed and drawn ahead for the old λ no longer holds (the next step uses the new λ)
    P.next = null;
    for (const box of P.main.boxes.concat(P.params ? P.params.boxes : [])) box.backTag = null;
    if (!alt) return;                 // further than one notch: the server's rerun redraws
    const box = P.main.boxes.find((/** @type {any} */ b) => b.name === "acc");
    if (!box || box.ver === alt.ver) return;
    note("λ here " + label);
    box.ver = alt.ver;
    P.stats.lams++;
    react(P, box.gd, alt.spec).then(() => placeMarkers(P, box));
  });
}

/** @param {any} el */
function isTyping(el) {
  const tag = el && el.tagName ? el.tagName.toUpperCase() : "";
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || !!(el && el.isContentEditable);
}

// ---- drawing the iteration shown ---------------------------------------------------------------------------
let rafPending = false;
function requestDraw() {
  if (rafPending) return;
  rafPending = true;
  requestAnimationFrame(() => { rafPending = false; drawNow(); });
}
function drawNow() {
  const t = P.pb.t, fast = P.pb.playing || P.pb.dragging;   // stopped: every chart exact (Plotly.react)
  if (P.main) {
    for (const box of P.main.boxes) placeMarkers(P, box);
    updateBar();
  }
  if (P.params && P.params.log && P.Plotly) {
    for (const box of P.params.boxes) {
      const spec = specAt(P.params.log, box.name, t);
      if (!spec || (box.shown === spec && !(box.stale && !fast))) continue;
      if (swapIn(P, box, spec)) { box.shown = spec; box.stale = false; continue; }   // drawn ahead (Step)
      if (fast && (fastImages(box, spec) || fastBars(box, spec))) { box.shown = spec; box.stale = true; P.stats.fast++; continue; }
      box.shown = spec; box.stale = false;
      react(P, box.gd, spec);
    }
  }
  P.stats.draws++;
  if (t !== P.stats.lastDrawn) { P.stats.distinct++; P.stats.lastDrawn = t; }
}

/** @param {number} t */
function setT(t) {
  if (Playback.setT(P.pb, t)) requestDraw();
}

// ---- the bar: Play/Pause, slider, read-out ----------------------------------------------------------
function updateBar() {
  const m = P.main, pb = P.pb;
  if (!m) return;
  const { play, slider, label } = m;
  const wantMax = String(Math.max(1, pb.n - 1));
  if (slider.max !== wantMax) slider.max = wantMax;
  if (document.activeElement !== slider || pb.playing) slider.value = String(pb.t);
  slider.disabled = pb.n <= 1;
  const playing = pb.playing;
  if (m.shownPlaying !== playing) {
    m.shownPlaying = playing;
    play.innerHTML = playing
      ? '<span aria-hidden="true" class="nbp-icon">❚❚</span> Pause'
      : '<span aria-hidden="true" class="nbp-icon">▶</span> Play';
  }
  play.disabled = !Playback.canPlay(pb);
  const a = P.acc[pb.t];
  // fixed width (CSS): a label that grew would shrink the slider under a dragging mouse
  label.textContent = `Iteration ${pb.t} of ${pb.n - 1}` +
    (a === null || a === undefined ? "" : ` · accuracy ${a}`);
  slider.setAttribute("aria-valuetext", `Iteration ${pb.t} of ${Math.max(0, pb.n - 1)}`);
  // the state in a sentence: announced when it settles (not five times a second while playing)
  const live = playing ? "off" : "polite";
  if (m.summary.getAttribute("aria-live") !== live) m.summary.setAttribute("aria-live", live);
  setText(m.summary, summaryText());
  for (const box of m.boxes.concat(P.params ? P.params.boxes : [])) describe(P, box);
  syncMetrics();
}

// ---- what the server drew about the iteration shown -----------------------------------------------------
// The metrics row above the charts (st.metric, drawn by the server) names the iteration shown and
// its accuracy. While the browser plays or drags there is no server rerun, so the player writes the
// iteration it shows into them, with the server's own strings (P.acc, P.accDelta): one source.
/**
 * @param {Element | null} el
 * @param {string} text
 */
function setText(el, text) { if (el && el.textContent !== text) el.textContent = text; }
/** @param {string} tpl */
function fill(tpl) { return String(tpl).split("{t}").join(String(P.pb.t)).split("{n}").join(String(Math.max(0, P.pb.n - 1))); }
// The status line of the iteration shown, from the server's templates (dashboard/lesson/status.py: text()
// says the same): while playing, Replaying through the iterations shown before this Play (a finished run
// only) and Running beyond them; the run's own status at its latest iteration, "Paused at" / "Showing" an
// earlier one.
function statusText() {
  const s = P.status;
  if (!s) return null;
  if (P.pb.playing) return fill(s.replay && P.pb.t <= P.pb.seenBefore ? s.replay : s.running);
  return fill(P.pb.t >= s.latest ? s.at : s.back);
}
// "**Status:** …" is one paragraph: its text after the bold label is rewritten in place (the same text
// node, so the server's next render of it updates what is on screen)
function syncStatus() {
  const text = statusText();
  const p = text === null ? null : Bridge.markdownParagraph(Bridge.container(P.dom.status));
  const node = p && p.lastChild;
  if (node && node.nodeType === 3 && node.nodeValue !== " " + text) node.nodeValue = " " + text;
}
// the stop rules' numbers of the step t-1 -> t (dashboard/lesson/panels/stop_rules.py draws them when the
// panels below the charts are drawn; in between, the iteration shown moves here)
function syncStopRules() {
  const s = P.stop, box = s && Bridge.container(P.dom.stop);
  if (!box) return;
  const ms = Bridge.metricsIn(box);
  if (ms.length < 3) return;
  setText(ms[0].label, fill(s.label));
  [s.rel, s.parameters, s.both_values].forEach((a, i) => {
    setText(ms[i].value, (a && a[P.pb.t]) || "—");
  });
}
// "Showing iteration t of n" under the buttons: there while an earlier iteration than the latest is shown
// (the server always draws the caption while the player is on: empty at the latest, which the player hides)
function syncShowing() {
  const s = P.status, box = s && s.showing && Bridge.container(P.dom.showing);
  const p = Bridge.captionText(box || null);
  if (!box || !p) return;
  const back = Playback.showingEarlier(P.pb);
  // while the pointer holds the slider the caption neither appears nor goes (a line more or less above the
  // player would move the slider under the mouse): it follows when the slider is released
  if (P.pb.dragging && box.classList.contains("nbp-hidden") === back) return;
  box.classList.toggle("nbp-hidden", !back);
  if (back) setText(p, fill(s.showing));
}
function syncMetrics() {
  if (!P.main) return;
  syncStatus();
  syncStopRules();
  syncShowing();
  const it = Bridge.metricByLabel(P.dom.iteration);
  if (it) setText(it.value, String(P.pb.t));
  const ac = Bridge.metricByLabel(P.dom.accuracy);
  if (ac) {
    setText(ac.label, `${P.dom.accuracy}${P.pb.t})`);
    const a = P.acc[P.pb.t];
    setText(ac.value, a === null || a === undefined ? "—" : a);
    const d = P.accDelta[P.pb.t];
    if (d) setText(ac.delta, d);
    const box = ac.delta && ac.delta.closest('[data-testid="stMetricDelta"]');
    if (box && d) box.classList.toggle("nbp-delta-plain", !Bridge.deltaArrowAgrees(box, d));
  }
  watchSynced([Bridge.container(P.dom.status), Bridge.container(P.dom.stop), Bridge.container(P.dom.showing),
    it && it.el, ac && ac.el]);
}
// A server rerun redraws these with the iteration of the report it answers, which can be behind the one
// shown by the time it arrives (a drag goes on, Play moves on): they are written again in the next frame,
// with the slider and the charts (before the page is painted), so the page never shows two iterations.
// (Only what the server draws is watched: the writes change nothing the second time, and the observer
// settles at once.)
/** @type {MutationObserver | null} */
let syncObs = null;
/** @type {Element[]} */
let synced = [];
/** @param {Array<Element | null>} els */
function watchSynced(els) {
  if (typeof MutationObserver === "undefined") return;
  const found = /** @type {Element[]} */ (els.filter(Boolean));
  if (found.length === synced.length && found.every((e, i) => e === synced[i])) return;
  if (!syncObs) syncObs = new MutationObserver(() => requestDraw());
  syncObs.disconnect();
  synced = found;
  for (const e of found) syncObs.observe(e, { subtree: true, childList: true, characterData: true, attributeFilter: ["class"] });
}

// ---- talking to the server, and Play --------------------------------------------------------------------------
function report() {
  if (!P.main || !P.main.api) return;
  P.main.api.setStateValue("view", Playback.view(P.pb));
}
/** @type {ReturnType<typeof setTimeout> | undefined} */
let reportTimer;
/** @param {number} ms */
function reportSoon(ms) {
  clearTimeout(reportTimer);
  reportTimer = setTimeout(report, ms);
}

/** @param {number} now */
function tick(now) {
  P.stats.ticks++;  // read by the tests: a stopped Play calls no more ticks
  const what = Playback.tick(P.pb, now, !!P.main);
  if (what === "stopped") return;
  if (what === "gone") { note("player gone"); return; }
  if (what === "end") { endOfPlay("end"); return; }
  if (what === "moved") requestDraw();
  if (P.main && P.main.api) {
    const ask = Playback.need(P.pb, performance.now());
    if (ask) P.main.api.setTriggerValue("need", ask);
  }
  requestAnimationFrame(tick);
}

/** @param {string} what */
function note(what) {
  const log = P.stats.log;
  log.push(`${Math.round(performance.now())} ${what} t=${P.pb.t} n=${P.pb.n}`);
  if (log.length > 60) log.splice(0, log.length - 60);
}

function play() {
  if (P.pb.playing) return;
  note("play");
  Playback.play(P.pb);
  report();
  requestDraw();
  requestAnimationFrame(tick);
}
/** @param {string} [why] */
function pause(why) {
  if (!P.pb.playing) return;
  note("pause " + (why || ""));
  Playback.pause(P.pb);
  endOfPlay(why);
}
/** @param {string} [why] what ended the play (the pause itself is done) */
function endOfPlay(why) {
  if (why === "end") note("pause end");
  clearTimeout(reportTimer);
  report();
  requestDraw();
}

// ---- the panels below the charts: drawn when they are in view ------------------------------------------
// The documents, the maths, the stop rules' numbers and the exports are a fragment of their own on the
// server (role "lower": a marker mounted at their top says which state they show, data.drawn). They are
// built only when the reader can see them: when they are in view (or within 200 px of it) and show another
// state than the charts (the main mount's data.lower), the player asks for them (trigger "refresh": one
// rerun of their fragment). A Step, a drag or Play with them out of view costs the server nothing there.
// On a session's first render they wait until every chart is drawn (or 6 s), so the first second goes to
// the charts. The request waits until the app is idle (no script run going on: sent during a run, it would
// cut that run short).
const PAINT_WAIT_MS = 6000;
// Quiet time after the last run before the panels are asked for: a clicker's next key press (Step, E, M)
// comes within it and goes first, instead of meeting the panels' own rerun.
const LOWER_QUIET_MS = 900;
let idleWatched = false, idleSince = 0;
/** @type {ReturnType<typeof setTimeout> | null} */
let quietTimer = null;
function appIdle() {
  if (!idleWatched) {
    idleWatched = Bridge.watchScriptRuns((running) => {
      if (!running) idleSince = performance.now();
      lowerCheck();
    });
  }
  if (Bridge.scriptRunning()) return false;
  const wait = idleSince + LOWER_QUIET_MS - performance.now();
  if (wait > 0) {                    // asked again once the page has been quiet long enough
    if (!quietTimer) quietTimer = setTimeout(() => { quietTimer = null; lowerCheck(); }, wait + 10);
    return false;
  }
  return true;
}
function lowerCheck() {
  const v = P.lower, m = P.main;
  if (!v || !m || !m.lowerKey) return;
  const stale = v.drawn !== m.lowerKey;
  if (v.box) {
    v.box.classList.toggle("nbp-stale", stale && v.drawn !== null);
    if (stale) v.box.setAttribute("aria-busy", "true"); else v.box.removeAttribute("aria-busy");
  }
  if (!stale || !v.visible || !P.firstPaint || P.pb.playing || P.pb.dragging || v.asked === m.lowerKey) return;
  if (!appIdle()) return;             // asked again when the run ends (watchScriptRuns)
  v.asked = m.lowerKey;
  note("lower: refresh " + m.lowerKey);
  v.api.setTriggerValue("refresh", m.lowerKey);
}

/**
 * @param {Api} api
 * @param {any} d
 */
function mountLower(api, d) {
  const root = /** @type {any} */ (api.parentElement);
  let v = root.__nbp;
  if (!v) v = root.__nbp = { visible: typeof IntersectionObserver === "undefined", asked: null, box: null, obs: null };
  v.api = api;
  v.drawn = d.drawn === undefined ? null : d.drawn;
  P.lower = v;
  // the whole fragment is what must be in view
  const box = Bridge.lowerFragment(P.dom, root);
  if (typeof IntersectionObserver !== "undefined" && v.box !== box) {
    if (!v.obs) v.obs = new IntersectionObserver((entries) => {
      v.visible = entries.some((e) => e.isIntersecting);
      lowerCheck();
    }, { rootMargin: "200px 0px 200px 0px" });
    if (v.box) v.obs.unobserve(v.box);
    v.obs.observe(box);
  }
  v.box = box;
  lowerCheck();
}

/** @param {any} d */
function watchPaint(d) {
  if (P.paintedFor === d.sid) return;
  P.paintedFor = d.sid;
  const t0 = performance.now();
  /** @param {any} v */
  const drawn = (v) => v && v.boxes.length > 0 && v.boxes.every((/** @type {any} */ b) => b.gd._fullLayout);
  const check = () => {
    const done = drawn(P.main) && drawn(P.params);
    if (!done && performance.now() - t0 < PAINT_WAIT_MS) { requestAnimationFrame(check); return; }
    note(done ? "painted" : "painted: timeout");
    P.stats.painted = performance.now();
    // one more frame: what was just drawn reaches the screen before the panels below are asked for
    requestAnimationFrame(() => setTimeout(() => { P.firstPaint = true; lowerCheck(); }, 0));
  };
  requestAnimationFrame(check);
}

/**
 * @param {HTMLElement} root
 * @param {Api} api
 * @param {any} err
 */
function failed(root, api, err) {
  const msg = String(err && err.message ? err.message : err);
  const box = document.createElement("div");
  box.className = "nbp-error";
  box.textContent = "The interactive charts could not load here (" + msg + "); the page falls back to the server's charts.";
  root.appendChild(box);
  try { api.setTriggerValue("failed", msg); } catch (e) { /* nothing more to do */ }
}

// "P" plays and pauses (the clicker shortcut of the server's Play button, which the player replaces)
let keysHooked = false;
function hookKeys() {
  if (keysHooked) return;
  keysHooked = true;
  // Step: the server's button (and its shortcuts → and Page Down, which Streamlit handles without a
  // click) still goes to the server; the charts of the next iteration are shown here first
  document.addEventListener("click", (e) => {
    if (Bridge.isStepButton(P.dom, e.target)) stepNow("click");
  }, true);
  document.addEventListener("keydown", (e) => {
    if ((e.key === "ArrowRight" || e.key === "PageDown") && !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey
        && !isTyping(e.target)) stepNow("key");
  }, true);
  document.addEventListener("keyup", lamSettled, true);
  document.addEventListener("pointerup", lamSettled, true);
  document.addEventListener("keydown", (e) => {
    P.pb.lastInputPlay = false;
    if (e.key !== "p" && e.key !== "P") return;
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || !P.main) return;
    const el = /** @type {any} */ (e.target);
    const tag = el && el.tagName ? el.tagName.toLowerCase() : "";
    if ((tag === "input" && el.type !== "range") || tag === "textarea" || tag === "select" || (el && el.isContentEditable)) return;
    e.preventDefault();
    P.pb.lastInputPlay = !P.pb.playing;
    if (P.pb.playing) pause("key"); else play();
  }, true);
  // the end of a drag (wherever the button is released): the charts drawn cheaply get their exact draw
  const dragEnd = () => { if (P.pb.dragging) { P.pb.dragging = false; requestDraw(); } };
  document.addEventListener("pointerup", dragEnd, true);
  document.addEventListener("pointercancel", dragEnd, true);
  // what the user did last: Play, or something else (Reset, a setting). A new run that arrives
  // after Play was the last input (Home then P, faster than the server answers) is played;
  // one that arrives after a later Reset or setting stops the play, as Reset promises.
  document.addEventListener("pointerdown", (e) => {
    P.pb.lastInputPlay = !!(P.main && P.main.play.contains(e.target));
  }, true);
}

/**
 * The main player's parts (once per element): the Play button, the slider, its label, the summary, the grid.
 * @param {any} root
 * @param {any} d
 */
function buildMain(root, d) {
  const el = document.createElement("div");
  el.className = "nbp-root" + (d.classroom ? " nbp-classroom" : "");
  el.innerHTML = '<div class="nbp-bar"><button type="button" class="nbp-play" data-testid="nbpPlay"></button>' +
    '<input type="range" class="nbp-slider" min="0" max="1" step="1" value="0" aria-label="Show iteration">' +
    '<span class="nbp-label" aria-hidden="true"></span></div>' +
    '<p class="nbp-summary" role="status" aria-live="polite" data-testid="nbpSummary"></p><div class="nbp-grid"></div>';
  root.appendChild(el);
  const m = root.__nbp = { el, play: el.querySelector(".nbp-play"), slider: el.querySelector(".nbp-slider"),
    label: el.querySelector(".nbp-label"), summary: el.querySelector(".nbp-summary"),
    grid: el.querySelector(".nbp-grid"), boxes: [], shownPlaying: null };
  wireMain(m);
  return m;
}

/**
 * Play/Pause, the slider (a drag stops Play; its keys move it only).
 * @param {any} m
 */
function wireMain(m) {
  m.play.addEventListener("click", () => (P.pb.playing ? pause("click") : play()));
  m.slider.addEventListener("input", () => {
    if (P.pb.playing) { note("drag stops play"); Playback.pause(P.pb); }
    setT(+m.slider.value);
  });
  m.slider.addEventListener("change", () => reportSoon(250));
  m.slider.addEventListener("pointerdown", () => { P.pb.dragging = true; });
  // keys on the slider move the slider only: Streamlit's button shortcuts (→ Step, Home Reset) must not see them
  m.slider.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"].includes(e.key)) {
      e.stopPropagation();
      if (P.pb.playing) pause("key");
    }
  });
}

/**
 * Run / frames bookkeeping: a new run stops Play (as Reset promises) unless Play was pressed after
 * what made it; the server moving the run shows the page's iteration.
 * @param {any} m
 * @param {any} d
 */
function adoptMain(m, d) {
  const wasPlaying = P.pb.playing;
  const { newRun, playOn } = Playback.adopt(P.pb, d);
  if (newRun && wasPlaying) note(playOn ? "new run: play on" : "new run: stop");
  if (playOn) reportSoon(0);
  P.sid = d.sid;
  if (d.tpl) P.tpl = d.tpl;
  P.acc = d.acc || []; P.accDelta = d.accDelta || []; P.words = d.words || [];
  P.status = d.status || null; P.stop = d.stop || null;
  P.next = d.next ? Object.assign({ run: d.run }, d.next) : null;
  P.lam = d.lam || null;
  m.lowerKey = d.lower || null;
  note(`data n=${d.n} seq=${d.seq}/${P.pb.seq} t=${d.t}`);
}

/**
 * One box per time-series chart, in the server's order; each chart drawn when its version changed.
 * @param {any} root
 * @param {Api} api
 * @param {any} m
 * @param {any} d
 */
function drawMainCharts(root, api, m, d) {
  const names = d.series.map((/** @type {any} */ s) => s.name);
  if (m.boxes.map((/** @type {any} */ b) => b.name).join() !== names.join()) {
    m.grid.innerHTML = "";
    m.boxes = names.map((/** @type {string} */ n) => chartBox(P, m.grid, n));
  }
  m.grid.style.gridTemplateColumns = `repeat(${d.columns}, minmax(0, 1fr))`;
  plotly(d.plotly).then(() => {
    d.series.forEach((/** @type {any} */ s, /** @type {number} */ i) => {
      const box = m.boxes[i];
      if (!box || box.ver === s.ver) return;
      box.ver = s.ver;
      box.hook = () => {   // markers follow the visible chart's axes (each buffer hooked once)
        if (!box.gd.__nbpHooked) { box.gd.__nbpHooked = true; box.gd.on("plotly_afterplot", () => placeMarkers(P, box)); }
      };
      react(P, box.gd, s.spec).then(() => { box.hook(); placeMarkers(P, box); });
    });
    requestDraw();
    schedulePrerender();
    if (P.pb.playing) requestAnimationFrame(tick);
  }).catch((e) => failed(root, api, e));
}

/**
 * @param {Api} api
 * @param {any} d
 */
function mountMain(api, d) {
  hookKeys();
  const root = /** @type {any} */ (api.parentElement);
  const m = root.__nbp || buildMain(root, d);
  m.api = api;
  P.main = m;
  watchPaint(d);
  m.el.classList.toggle("nbp-classroom", !!d.classroom);
  P.classroom = !!d.classroom;
  P.dom = Object.assign({}, Bridge.DEFAULT_DOM, d.dom || {});
  adoptMain(m, d);
  drawMainCharts(root, api, m, d);
  requestDraw();
  lowerCheck();
}
/**
 * @param {Api} api
 * @param {any} d
 */
function mountParams(api, d) {
  const root = /** @type {any} */ (api.parentElement);
  let v = root.__nbp;
  if (!v) {
    const el = document.createElement("div");
    el.className = "nbp-root nbp-params";
    root.appendChild(el);
    v = root.__nbp = { el, boxes: [], log: null, layout: null };
  }
  v.api = api;
  P.params = v;
  const layout = d.charts.join() + "|" + d.widths.join();
  if (v.layout !== layout) {
    v.layout = layout;
    v.el.innerHTML = "";
    v.el.style.gridTemplateColumns = d.widths.map((/** @type {number} */ w) => `minmax(0, ${w}fr)`).join(" ");
    v.boxes = d.charts.map((/** @type {string} */ n) => chartBox(P, v.el, n));
    for (const b of v.boxes) b.params = true;
  }
  const log = mergeLog(LOGS, d);
  if (!log) {                          // frames missing (a lost update): ask for all of them again
    api.setTriggerValue("resync", d.token);
    return;
  }
  v.log = log;
  plotly(d.plotly).then(() => {
    // no forced redraw: a frame the browser already drew keeps its spec object (specAt caches it on
    // the frame), so a rerun that changed nothing here (λ, a table, a setting) costs no Plotly.react;
    // new or re-sent frames are new objects and are drawn
    requestDraw();
    schedulePrerender();
  }).catch((e) => failed(root, api, e));
}

/**
 * What a mount gets from Streamlit's components v2.
 * @typedef {{parentElement: HTMLElement, setStateValue: (k: string, v: any) => void,
 *            setTriggerValue: (k: string, v: any) => void}} Api
 */

/**
 * The component's entry: one call per mount and per update of its data.
 * @param {Api & {data: any}} component
 */
export default function mount(component) {
  const { parentElement, setStateValue, setTriggerValue } = component;
  // the app sends its data as one JSON text (dashboard/lesson/player/__init__.py: _mount); the offline
  // file and the notebook widget pass the object itself
  const data = typeof component.data === "string" ? JSON.parse(component.data) : component.data;
  if (!data) return;
  /** @type {Api} */
  const api = { parentElement, setStateValue, setTriggerValue };
  try {
    if (data.role === "preload") { note("preload"); plotly(data.plotly).catch(() => {}); return; }
    if (data.role === "main") mountMain(api, data);
    else if (data.role === "lower") mountLower(api, data);
    else mountParams(api, data);
  } catch (e) {
    failed(parentElement, api, e);
  }
  return () => {
    const v = /** @type {any} */ (parentElement).__nbp;
    if (P.main === v) { note("unmount"); P.main = null; }
    if (P.params === v) P.params = null;
    if (P.lower === v) { if (v.obs) v.obs.disconnect(); v.obs = null; v.box = null; P.lower = null; }
  };
}

export { decode } from "./js/decode.js";   // tests/app/test_player_protocol.py runs it under node against payload.py's encoder
