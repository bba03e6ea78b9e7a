// The lab page: reads the data and the page's settings (nblab/page.py), the link's settings (the URL
// fragment, state.js), builds the page, runs EM in the browser (lab.js, em.js) and keeps the screen, the
// panels and the link in step with it.
//
//   settings (URL fragment ⇄ controls) → Lab (the run) → view → charts, metrics, status, panels
//
// Everything from the data (class, feature and data-set names, texts) goes on screen with textContent;
// the notices about a link's values too. The one-file page fetches nothing: plotly.js is inlined gzip + base64
// and unpacked here with DecompressionStream. A served page (nblab/site.py's shell, the class link) has no
// inline data: boot() fetches cfg.dataUrl first ("Loading the data…", a message and "Try again" if that
// fails), and with cfg.follow the page follows the teacher's state (follow.js; mountFollow below).

import * as State from "./state.js";
import { Lab, percent, deltaText, best as bestOf, candidates, segmentOf, gainParts } from "./lab.js";
import { mountCharts } from "./charts.js";
import { mountControls } from "./controls.js";
import { PANELS } from "./panels/registry.js";
import { el } from "./dom.js";
import * as Follow from "./follow.js";
import { fromGzipBase64 } from "./plotly_loader.js";

//: the panels below the charts, in the lesson's order: a container each (empty until its module exists)
export const PANEL_SLOTS = ["params", "responsibilities", "documents", "maths", "message"];
const PANEL_TITLES = { params: "The parameters", responsibilities: "The responsibilities", documents: "The hidden documents",
  maths: "The maths of one document", message: "Type a message" };
//: while Play runs or the slider is dragged, the panels below are redrawn at most this often (a panel's
//: redraw takes tens of ms: more often and the frames in between would be dropped)
const PANEL_MS = 400;
//: while Play or Run to convergence compute new iterations, the charts are redrawn at most this often
const CHART_MS = 100;

const fmtNum = (v, d) => (v === null || v === undefined || !isFinite(v) ? "—"
  : Number(v).toLocaleString("en", { minimumFractionDigits: d, maximumFractionDigits: d }).replace("-", "\u2212"));

// ---- plotly.js from the page (gzip + base64) -----------------------------------------------------------------

async function loadPlotly(b64) {
  if (window.Plotly) return window.Plotly;
  if (!b64) throw new Error("plotly.js did not load");
  // unpacked and run since the page's bytes were parsed (page.py)
  if (window.__nblabPlotly) {
    const P = await window.__nblabPlotly;
    if (P) return P;
  }
  return fromGzipBase64(b64);
}

// ---- the page ----------------------------------------------------------------------------------------------------

function metric(label) {
  const lab = el("div", { class: "lab-metric-label", text: label });
  const value = el("div", { class: "lab-metric-value" });
  const delta = el("div", { class: "lab-metric-delta" });
  return { box: el("div", { class: "lab-metric" }, lab, value, delta), lab, value, delta };
}

/**
 * Build the lab in `root` and start it. A page (nblab/page.py) passes nothing: the data, the settings and
 * plotly.js are read from its script blocks and the settings follow the URL's fragment. A host that holds
 * the page (the notebook widget) passes `opts`: { data, cfg, plotly (base64 gzip), hash: false (the
 * fragment is not the lab's), host: { keysOn (the element whose keys drive the lab), onView(v) (told
 * { t, latest, playing, settings } when the page settles) } }. Returns the page's state; `G.api` is what
 * a host drives (step, halves, play, pause, reset, converge, go to t).
 */
export function start(root, opts = {}) {
  const read = (id) => JSON.parse(document.getElementById(id).textContent);
  const t0 = performance.now();
  const data = opts.data || read("nblab-data");
  const cfg = opts.cfg || read("nblab-config");
  const host = opts.host || {};
  const useHash = opts.hash !== false;
  const table = State.schema(cfg);
  const parsed = State.parseFragment(useHash ? location.hash : "", table);
  const reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  const G = { data, cfg, table, settings: parsed.settings, urlNotices: parsed.notices.slice(), playing: false, dragging: false,
    converging: false, lastStep: 0, frames: 0, panelsAt: 0, chartsAt: 0, panelQueue: [], panelTimer: null, idleWaiters: [], drawnKey: null, Plotly: null, panels: [], t0, firstChart: null,
    reducedMotion: () => !!(reduced && reduced.matches) };
  window.__nblab = G;
  G.marks = { start: t0 };
  G.stats = { draw: 0, panels: {} };
  const mark = (k) => { G.marks[k] = performance.now() - t0; };
  let rafPending = false, rafForce = false;   // one draw per animation frame (render())
  // the student's own actions (controls, buttons, the slider, keys, the link) leave the teacher's lesson;
  // the page's own moves while it follows the teacher do not
  let applying = false;
  const student = (what) => { if (!applying && G.onStudent) G.onStudent(what); };
  //: actions that only change how the page looks (not the run on screen): they never leave the teacher
  const VIEW_ONLY = ["keys", "classroom", "speed"];

  // ---- the skeleton ----
  root.textContent = "";
  const name = String(data.name || data.dataset || cfg.datasets[0] || "");
  const head = el("header", { class: "lab-head" }, el("h1", { text: cfg.title }), G.sub = el("p", { class: "lab-sub" }));
  G.linkBox = el("section", { class: "lab-notice lab-link-notice", "aria-labelledby": "lab-link-h", hidden: true });
  G.changeBox = el("div", { class: "lab-notice lab-change", role: "status", "aria-live": "polite" });
  G.lamZero = el("p", { class: "lab-notice lab-warn", hidden: true,
    text: "λ = 0 (no smoothing): a document with a word never seen in a class gets probability 0 under that class, and if that "
      + "happens for every class the engine can only give it a uniform posterior. Watch what happens to the accuracy, then try λ > 0." });
  G.errorBox = el("div", { class: "lab-notice lab-error", role: "alert", hidden: true });
  const bar = el("div", { class: "lab-bar" });
  G.sentence = el("p", { class: "lab-sentence", role: "status", "aria-live": "polite", "aria-atomic": "true", id: "lab-sentence" });
  const mIt = metric("Iteration"), mAcc = metric("Accuracy"), mSup = metric("Supervised only"), mBest = metric("Best supervised"),
    mLL = metric("Log-likelihood"), mObj = metric("MAP objective");
  // on a projector (classroom mode) these two stay on their charts: the row keeps to one line (the app's
  // four: iteration, accuracy, supervised only, best supervised)
  mLL.box.classList.add("lab-metric-extra");
  mObj.box.classList.add("lab-metric-extra");
  G.metrics = { mIt, mAcc, mSup, mBest, mLL, mObj };
  G.statusLine = el("p", { class: "lab-status" });
  G.caption = el("p", { class: "lab-caption" });
  // EM against the best supervised baseline in words (numbers.gain_sentence), plainly when the gain is small
  G.gain = el("p", { class: "lab-gain", hidden: true });
  const metricsRow = el("section", { class: "lab-metrics", "aria-label": "The numbers at this iteration" },
    el("div", { class: "lab-metric-grid" }, mIt.box, mAcc.box, mSup.box, mBest.box, mLL.box, mObj.box), G.statusLine, G.caption, G.gain);
  const grid = el("div", { class: "lab-charts" });
  G.error = el("div", { class: "lab-error", role: "alert", hidden: true });
  const side = el("aside", { class: "lab-side", "aria-label": "Settings" }, el("h2", { class: "lab-h2", text: "Settings" }));
  const lower = el("div", { class: "lab-lower" });
  G.slots = {};
  for (const p of PANEL_SLOTS) {
    // no name of its own: a panel names itself with its heading (two landmarks of one name would clash)
    G.slots[p] = el("section", { id: `lab-panel-${p}`, class: "lab-panel", "data-panel": p, hidden: true });
    lower.append(G.slots[p]);
  }
  const about = el("details", { class: "lab-about" }, el("summary", { text: "About this page and its data" }));
  G.about = about;
  const top = el("section", { class: "lab-top", "aria-label": "The run" }, bar, G.sentence, metricsRow);
  const content = el("div", { class: "lab-content" }, grid);
  // the panels below take the page's whole width, under the settings and the charts
  const main = el("main", { class: "lab-main" }, top, el("div", { class: "lab-body" }, side, content), lower, about);
  root.append(head, G.linkBox, G.changeBox, G.lamZero, G.errorBox, main);

  // ---- the controls ----
  G.controls = mountControls(side, bar, { table, initLabels: cfg.initLabels,
    onSettings: (key, value) => { if (!VIEW_ONLY.includes(key)) student(key); change({ [key]: value }, "control"); },
    onAction: (name, arg) => { if (!VIEW_ONLY.includes(name)) student(name); act(name, arg); },
    onNotice: (n) => { G.urlNotices.push(n); drawLinkNotice(); } });
  G.controls.setSettings(G.settings);
  setClassroom(!!G.settings.classroom);

  // ---- the run (plotly.js unpacks meanwhile: its gzip stream runs off the main thread) ----
  // the one-file page inlines plotly.js; a served page loads it with a script of its own (window.Plotly)
  const plotlyEl = document.getElementById("nblab-plotly");
  const plotlyLoading = loadPlotly(opts.plotly || (plotlyEl ? plotlyEl.textContent.trim() : ""));
  plotlyLoading.catch(() => {});
  mark("skeleton");
  try {
    G.lab = new Lab(data, G.settings);
    mark("lab");
  } catch (e) {
    G.errorBox.hidden = false;
    G.errorBox.textContent = `Can't start a run with these settings: ${e && e.message ? e.message : e}`;
    console.error(e);
    return G;
  }
  if (G.settings.t > 0) G.lab.restoreTo(G.settings.t);
  G.settings.t = G.lab.t;
  G.chartCtx = { Plotly: null, template: cfg.template && (cfg.template.layout || cfg.template.data) ? cfg.template : null,
    reducedMotion: G.reducedMotion, classroom: () => !!G.settings.classroom };
  G.charts = mountCharts(grid, G.chartCtx);
  drawAbout();
  drawLinkNotice();
  render();

  mark("drawn");
  G.plotlyReady = plotlyLoading.then((P) => {
    mark("plotly");
    G.Plotly = P;
    G.chartCtx.Plotly = P;
    mountPanels();
    mark("panels");
    // G.firstChart: ms from navigation start to the first chart drawn
    return drawCharts(true).then(() => { G.firstChart = G.charts.first; G.ready = true; });
  }).catch((e) => {
    G.error.hidden = false;
    G.error.textContent = "The charts could not load here: " + (e && e.message ? e.message : e) + ". The numbers above still follow the run.";
    grid.before(G.error);
    G.ready = true;
    console.error(e);
  });

  // ---- the keys: a presentation clicker's → / Page Down step, P plays ----
  const onKey = (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target, tag = t && t.tagName ? t.tagName.toUpperCase() : "";
    if (tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return;
    if (tag === "INPUT" && t.type !== "range" && t.type !== "checkbox" && t.type !== "radio") return;
    if (tag === "INPUT" && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"].includes(e.key)) return;
    if (tag === "BUTTON" && (e.key === " " || e.key === "Enter")) return;
    const keys = { ArrowRight: "step", PageDown: "step", ArrowLeft: "back", PageUp: "back", Home: "reset", End: "end",
      p: "play", P: "play", e: "e", E: "e", m: "m", M: "m", c: "classroom", C: "classroom", "?": "keys" };
    const what = keys[e.key];
    if (!what || e.repeat && what === "play") return;
    e.preventDefault();
    if (!VIEW_ONLY.includes(what)) student(what);
    act(what);
  };
  const keysOn = host.keysOn || document;
  keysOn.addEventListener("keydown", onKey);
  const onHash = () => {
    const p = State.parseFragment(location.hash, table);
    G.urlNotices = p.notices.slice();
    drawLinkNotice();
    student("link");
    change(p.settings, "link");
  };
  if (useHash) window.addEventListener("hashchange", onHash);
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (G.Plotly) drawCharts(true); }, 150);
  });
  // what the tests and the benchmark drive (as the controls do); idle(): the panels below are drawn
  const idle = () => new Promise((resolve) => {
    if (!G.panelQueue.length && !G.panelTimer) resolve(); else G.idleWaiters.push(resolve);
  });
  Object.assign(G, { change, act, render, idle });
  // what a host drives (the notebook widget): the same actions as the controls
  G.api = {
    t: () => G.lab.t,
    go: (t) => act("show", t),
    step: (n = 1) => { for (let i = 0; i < Math.max(1, n | 0); i++) act("step"); },
    eStep: () => act("e"), mStep: () => act("m"),
    play: () => { if (!G.playing) act("play"); },
    pause: () => { if (G.playing) act("play"); },
    reset: () => act("reset"), converge: () => act("converge"),
    destroy: () => { if (G.playing) pause(); if (G.stopFollowing) G.stopFollowing(); keysOn.removeEventListener("keydown", onKey); if (useHash) window.removeEventListener("hashchange", onHash); },
  };
  if (cfg.follow && typeof cfg.follow === "object" && opts.follow !== false && typeof fetch === "function") mountFollow();
  return G;

  // ---- actions ----------------------------------------------------------------------------------------------
  function act(name, arg) {
    const lab = G.lab;
    if (name === "show") { if (G.playing) pause(); lab.show(arg); return render(); }
    if (name === "drag") { G.dragging = !!arg; if (!arg) render(true); return; }
    if (name === "keys") { G.controls.keys.open = !G.controls.keys.open; return; }
    if (name === "classroom") return change({ classroom: !G.settings.classroom }, "control");
    if (name === "play") return G.playing ? pause() : play();
    if (name === "converge") return converge();
    stopMoving();
    if (name === "step") lab.step();
    else if (name === "back") lab.back();
    else if (name === "end") lab.show(lab.latest);
    else if (name === "e") lab.eStep();
    else if (name === "m") lab.mStep();
    else if (name === "reset") { lab.reset(); G.settings.t = 0; }
    render(true);
  }

  function stopMoving() {
    if (G.playing) pause();
    G.converging = false;
  }

  function play() {
    const lab = G.lab;
    G.converging = false;
    if (lab.t >= lab.latest && lab.done) lab.show(0);      // at the end of a finished run: play it again
    if (lab.half === "e") lab.mStep();
    G.playing = lab.playing = true;
    G.lastStep = 0;
    render(true);
    requestAnimationFrame(tick);
  }
  function pause() {
    G.playing = G.lab.playing = false;
    render(true);
  }
  function tick(now) {
    if (!G.playing) return;
    const lab = G.lab;
    const interval = 1000 / (G.fpsOverride || State.SPEEDS[G.settings.speed] || 5);
    if (now - G.lastStep >= interval - 4) {
      G.lastStep = G.lastStep && now - G.lastStep < 2 * interval ? G.lastStep + interval : now;
      if (lab.t < lab.latest) lab.show(lab.t + 1);
      else if (!lab.done) { if (!lab.compute()) { pause(); return; } }
      else { pause(); return; }
      render();
    }
    requestAnimationFrame(tick);
  }

  function converge() {
    const lab = G.lab;
    if (lab.done) return;
    if (G.playing) pause();
    G.converging = true;
    const chunk = () => {
      if (!G.converging) return render(true);
      const finished = lab.converge(40);
      G.sentence.setAttribute("aria-busy", finished ? "false" : "true");
      if (finished) { G.converging = false; render(true); return; }
      G.statusLine.textContent = `Running to convergence … t = ${lab.latest}`;
      render();
      setTimeout(chunk, 0);
    };
    chunk();
  }

  // ---- settings -----------------------------------------------------------------------------------------------
  function change(patch, from) {
    const lab = G.lab;
    // the iteration on screen is the page's (the slider, a step), not the one last written to the link
    G.settings.t = lab.settings.t = lab.t;
    const next = Object.assign({}, G.settings, patch);
    const c = State.changes(G.settings, next);
    if (!c.rebuild.length && !c.cont.length && !c.page.length) return;
    if (c.rebuild.length || c.cont.length) stopMoving();
    const what = lab.apply(next);
    G.settings = Object.assign({}, lab.settings, { speed: next.speed, classroom: next.classroom });
    if (from === "link" && what === "rebuilt" && next.t > 0) lab.restoreTo(next.t);
    if (c.page.includes("classroom")) {
      setClassroom(!!G.settings.classroom);
      G.charts && drawCharts(true);
    }
    G.controls.setSettings(G.settings);
    render(true);
  }

  // classroom mode: the page's bigger type; the panels read data-classroom (nblab/panels.css)
  function setClassroom(on) {
    root.classList.toggle("lab-classroom", on);
    root.setAttribute("data-classroom", String(on));
  }

  // ---- drawing ------------------------------------------------------------------------------------------------------
  function drawCharts(force) {
    if (!G.charts || !G.Plotly) return Promise.resolve();
    return G.charts.update(G.lab, force);
  }

  function render(force) {
    rafForce = rafForce || !!force;
    if (rafPending) return;
    rafPending = true;
    requestAnimationFrame(() => { rafPending = false; const f = rafForce; rafForce = false; draw(f); });
  }

  function draw(force) {
    const now0 = performance.now();
    const lab = G.lab, t = lab.t, moving = G.playing || G.dragging || G.converging;
    G.frames++;
    G.controls.sync(lab, G.dragging);
    // the run's charts: redrawn when the run changed, else only the iteration line moves
    const key = `${lab.serial}|${lab.latest}|${lab.baselines.supervised}|${lab.run.history[lab.latest].lam}|${G.settings.classroom}`;
    let charts = null;
    // Play and Run to convergence add iterations faster than three charts can be laid out: the charts
    // follow at most every CHART_MS then (the status, the numbers and the slider at every step)
    const chartsDue = force || !moving || performance.now() - G.chartsAt >= CHART_MS;
    if (G.Plotly && (key !== G.drawnKey || force) && chartsDue) {
      G.chartsAt = performance.now();
      G.drawnKey = key;
      charts = G.drawing = drawCharts(false);   // a promise: the benchmark and the tests wait for the charts
    } else if (G.charts) G.charts.mark(t);
    drawNumbers(lab, t);
    drawNotices(lab);
    const now = performance.now();
    if (!moving || force || now - G.panelsAt >= PANEL_MS) {
      G.panelsAt = now;
      // the charts first: the panels below follow once they are drawn, in a task of their own
      if (charts) charts.then(() => setTimeout(drawPanels, 0));
      else drawPanels();
    }
    if (!moving) writeLink();
    G.stats.draw += performance.now() - now0;
  }

  function drawNumbers(lab, t) {
    const { mIt, mAcc, mSup, mBest, mLL, mObj } = G.metrics;
    const snap = lab.run.history[t];
    mIt.value.textContent = String(t);
    mIt.delta.textContent = `of ${lab.latest}` + (lab.half === "e" && t === lab.latest ? " · E-step done" : "");
    const scored = lab.scoreRows.length > 0;
    // the baselines of iteration t's λ segment (numbers.Reference): "Supervised only" is NB at the λ that
    // made iteration t, the accuracy is compared with the best of the three
    const ref = lab.reference(), top = bestOf(ref, t), seg = segmentOf(ref, t);
    const a = scored ? lab.accuracy(t) : NaN;
    const [base, what] = top ? [top[1], "best supervised"] : [lab.baselines.supervised, "supervised"];
    mAcc.lab.textContent = `Accuracy (t=${t})`;
    mAcc.value.textContent = percent(a) || "—";
    const d = base !== null && base !== undefined && isFinite(a) ? deltaText(a, base, what) : "";
    mAcc.delta.textContent = d;
    mAcc.delta.className = "lab-metric-delta" + (d.startsWith("+") ? " lab-up" : d.startsWith("-") ? " lab-down" : "");
    const sup = seg ? seg[3] : lab.baselines.supervised;
    mSup.value.textContent = sup === null || sup === undefined ? "—" : percent(sup);
    mSup.delta.textContent = `NB on the visible labels, λ = ${State.fmtLam(seg ? seg[2] : lab.baselines.lam)}`;
    mBest.value.textContent = top ? percent(top[1]) : "—";
    mBest.delta.textContent = !top ? "no visible label" : top[0].startsWith("majority") ? "majority class"
      : top[0].includes("leave-one-out") ? `NB at λ = ${State.fmtLam(ref.cvLambda)} (leave-one-out)` : `NB at λ = ${State.fmtLam(seg[2])}`;
    const help = ref ? "The best of: " + candidates(ref, t).map(([n, v]) => `${n}: ${percent(v)}`).join("; ")
      + ". None of them reads a hidden label (λ is chosen on the labelled documents alone)." : "";
    if (mBest.box.title !== help) mBest.box.title = help;
    const parts = t > 0 && top && !G.playing && !G.converging ? gainParts(a, top) : null;
    G.gain.hidden = !parts;
    const gainKey = parts ? parts.map((p) => p.join("\u0000")).join("\u0001") : "";
    if (G.gain.__key !== gainKey) {
      G.gain.__key = gainKey;
      // the baseline's name holds a class name from the data: every part goes in as text
      G.gain.replaceChildren(...(parts || []).map(([text, style]) => (style ? el(style, { text }) : document.createTextNode(text))));
    }
    mLL.value.textContent = fmtNum(snap.logLikelihood, 1);
    mObj.value.textContent = fmtNum(snap.objective, 1);
    const obj = lab.run.history.map((s) => s.objective);
    let down = null;
    for (let k = 1; k <= lab.latest; k++) {
      if (lab.run.history[k].lam === lab.run.history[k - 1].lam && obj[k] < obj[k - 1] - 1e-9 * Math.max(1, Math.abs(obj[k - 1]))) { down = k; break; }
    }
    mObj.delta.textContent = down === null ? "never went down" : `⚠ went DOWN at t = ${down}`;
    mObj.delta.className = "lab-metric-delta" + (down === null ? "" : " lab-down");
    const [kind, status] = G.converging ? ["running", `Running to convergence … t = ${lab.latest}`] : lab.status();
    G.statusLine.textContent = `Status: ${status}`;
    G.statusLine.dataset.kind = kind;
    const s = G.settings;
    G.caption.textContent = `${G.data.name || s.dataset} · ${s.model} · ${s.hidden}% labels hidden · λ = ${State.fmtLam(s.lam)} · init ${lab.effectiveInit}`
      + (lab.effectiveInit !== s.init ? " (no label visible)" : "") + ` · seed ${s.seed} · max ${s.max_iter} iterations · tol ${State.fmtTol(s.tol)}`;
    // the state in a sentence: announced when it settles (not five times a second while playing)
    const live = G.playing || G.converging ? "off" : "polite";
    if (G.sentence.getAttribute("aria-live") !== live) G.sentence.setAttribute("aria-live", live);
    const sentence = lab.sentence(t);
    if (G.sentence.textContent !== sentence) G.sentence.textContent = sentence;
  }

  function drawNotices(lab) {
    const n = lab.notice;
    const text = n ? n.text : "";
    if (G.changeBox.textContent !== text) G.changeBox.textContent = text;
    G.changeBox.dataset.kind = n ? n.kind : "";
    G.changeBox.classList.toggle("lab-empty", !n);
    G.lamZero.hidden = G.settings.lam !== 0;
    G.errorBox.hidden = !lab.error;
    if (lab.error && G.errorBox.textContent !== lab.error) G.errorBox.textContent = lab.error;
  }

  function drawLinkNotice() {
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
      onclick: () => { G.urlNotices = []; drawLinkNotice(); } }));
  }

  function drawAbout() {
    const d = G.data, lab = G.lab;
    const N = lab.prep.yObs.length, K = lab.prep.K;
    const V = lab.prep.featureNames ? lab.prep.featureNames.length : null;
    G.sub.textContent = `${d.name || name}: ${N.toLocaleString("en")} documents, ${K} classes`
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
  function writeLink() {
    const s = Object.assign({}, G.settings, { t: G.lab.t });
    G.settings.t = G.lab.t;
    if (host.onView) host.onView({ t: G.lab.t, latest: G.lab.latest, playing: !!G.playing, settings: Object.assign({}, s) });
    if (!useHash) return;
    const frag = State.toFragment(s, table);
    if (location.hash.slice(1) === frag) return;
    try { history.replaceState(null, "", "#" + frag); } catch (e) { /* a sandboxed frame: the page still works */ }
  }

  // ---- following the teacher (the class link: cfg.follow = { state, intervalMs }) --------------------------------
  function mountFollow() {
    const F = new Follow.Follower(Follow.interval(cfg.follow));
    let stateUrl;
    try { stateUrl = new URL(String(cfg.follow.state), document.baseURI).href; } catch (e) { return; }
    const dataKey = Follow.dataKeyOf(cfg.dataUrl);
    const text = el("p", { class: "lab-follow-text", role: "status", "aria-live": "polite", "aria-atomic": "true", tabindex: "-1" });
    const back = el("button", { type: "button", class: "lab-btn lab-follow-back", text: "Back to the teacher", hidden: true,
      onclick: () => rejoin() });
    const bar = el("section", { class: "lab-follow", "aria-label": "The teacher's lesson", "data-mode": "following" }, text, back);
    root.prepend(bar);
    G.followBar = bar;
    let timer = null, inflight = false, stopped = false, note = null, etag = null;
    const expose = () => {
      G.follow = { following: F.following, teacher: F.teacher, polls: F.polls, applied: F.applied,
        mode: F.bar().mode, ended: F.ended, error: F.error };
    };
    G.onStudent = () => { if (F.leave()) drawBar(); };
    G.stopFollowing = () => { stopped = true; clearTimeout(timer); timer = null; document.removeEventListener("visibilitychange", onVisible); };
    const onVisible = () => {
      if (stopped) return;
      if (document.visibilityState === "hidden") { clearTimeout(timer); timer = null; return; }
      if (!inflight) { clearTimeout(timer); timer = null; poll(); }
    };
    document.addEventListener("visibilitychange", onVisible);
    expose();
    drawBar();
    poll();

    function schedule(ms) {
      clearTimeout(timer);
      timer = null;
      if (stopped || ms === null || ms === undefined) return;
      if (document.visibilityState === "hidden") return;       // polled again when the tab is visible
      timer = setTimeout(poll, ms);
    }

    async function poll() {
      timer = null;
      if (inflight || stopped) return;
      inflight = true;
      let res;
      try {
        // "no-cache": the browser revalidates; the page also sends the state's last ETag itself (a browser that
        // did not keep the answer in its cache still gets a 304, with no body, when nothing changed)
        const headers = { Accept: "application/json" };
        if (etag) headers["If-None-Match"] = etag;
        const r = await fetch(stateUrl, { cache: "no-cache", credentials: "same-origin", headers });
        if (r.status === 200) {
          const tag = r.headers.get("ETag");
          etag = tag && tag.length <= 100 && /^(W\/)?"[\x21\x23-\x7e]*"$/.test(tag) ? tag : null;
          try { res = { status: 200, body: JSON.parse(await r.text()) }; } catch (e) { res = { status: 200, invalid: true }; }
        } else res = { status: r.status };
      } catch (e) {
        res = { status: 0 };
      }
      inflight = false;
      if (stopped) return;
      const out = F.onPoll(res, table);
      if (out.apply) applyTeacher(out.apply);
      if (out.delay === null) stopped = true;
      drawBar();
      schedule(out.delay);
    }

    function rejoin() {
      const st = F.rejoin();
      if (st) applyTeacher(st, true);
      drawBar();
      text.focus();      // the button is gone: the focus goes to what the bar says
    }

    function applyTeacher(st) {
      const lab = G.lab;
      const p = Follow.plan({ settings: G.settings, t: lab.t, latest: lab.latest, half: lab.half, dataKey }, st);
      if (p.action === "reload") { reloadFor(st); return; }
      note = null;
      // the teacher's λ history and this page's disagree (a student who joins after a λ change mid-run, or
      // comes back from exploring): replay the teacher's run, λ change by λ change, before showing t
      const lams = st.lams;
      if (lams && p.rebuild.length === 0
          && Follow.firstMismatch((i) => lab.run.history[i].lam, lab.latest, lams, st.t) >= 0) {
        applying = true;
        try {
          replay(st, p);
          goTo(p.t, p.half);
        } catch (e) {
          console.error(e);
        } finally {
          applying = false;
        }
        F.done(st);
        return;
      }
      if (!p.same) {
        applying = true;
        try {
          if (Object.keys(p.patch).length) change(p.patch, "teacher");
          if (lams && Follow.firstMismatch((i) => G.lab.run.history[i].lam, G.lab.latest, lams, st.t) >= 0) replay(st, p);
          // what the change did ("new run", "continues") stays said while the page computes up to t
          const said = G.lab.notice;
          goTo(p.t, p.half);
          if (said && !G.lab.notice) G.lab.notice = said;
        } catch (e) {
          console.error(e);
        } finally {
          applying = false;
        }
      }
      F.done(st);
    }

    // The teacher's run rebuilt here from its λ history: from the first iteration whose λ differs (a new run at
    // the first λ when it is θ_0), forward to t with each λ from where the teacher set it, then the λ the
    // teacher's next steps use. Each λ change is the lab's own "continue with λ" (withSmoothing), as on the
    // teacher's page, so the numbers are the teacher's.
    function replay(st, p) {
      const lab = G.lab, lams = st.lams;
      const m = Follow.firstMismatch((i) => lab.run.history[i].lam, lab.latest, lams, st.t);
      const setLam = (lam) => {
        if (lab.settings.lam === lam && lab.run.history[lab.latest].lam === lam) return;
        lab.continueWith(Object.assign({}, lab.settings, { lam }), ["lam"]);
      };
      if (m === 0) {
        lab.build(Object.assign({}, lab.settings, { lam: lams[0][1] }));
      } else if (m > 0) {
        rewindTo(m - 1);
        lab.half = null;
      }
      while (lab.latest < st.t && !lab.run.done) {
        const want = Follow.lamAt(lams, lab.latest + 1);
        if (lab.settings.lam !== want) setLam(want);
        if (!lab.compute()) break;
      }
      const next = Object.prototype.hasOwnProperty.call(st.settings, "lam") ? st.settings.lam : Follow.lamAt(lams, st.t);
      if (lab.settings.lam !== next) lab.continueWith(Object.assign({}, lab.settings, { lam: next }), ["lam"]);
      G.settings = Object.assign({}, G.settings, { lam: lab.settings.lam });
      lab.notice = { kind: "continued", text: lams.length > 1
        ? `Recomputed the teacher's run to iteration ${lab.latest}, with each λ from where the teacher set it `
          + `(${lams.map(([t, l]) => `λ = ${State.fmtLam(l)} from t = ${t}`).join(", ")}).`
        : `Recomputed the teacher's run to iteration ${lab.latest} with λ = ${State.fmtLam(lams[0][1])}.` };
    }

    // iteration t of the teacher's run (computed up to t if needed), then the E-step half if the teacher did it
    function goTo(t, half) {
      if (G.playing) pause();
      G.converging = false;
      const lab = G.lab;
      if (lab.latest < t) {
        if (lab.half === "e") lab.mStep();
        while (lab.latest < t && !lab.done) if (!lab.compute()) break;
      }
      const at = Math.min(t, lab.latest);
      if (half === "e" && at === t && !(lab.latest === t && lab.half === "e")) {
        if (lab.latest > t) rewindTo(t);
        lab.eStep();
      } else if (half !== "e" && lab.latest === at && lab.half === "e") {
        // the teacher's page has no pending E-step at its latest iteration: neither does this one
        lab.run.pending = null;
        lab.half = null;
      }
      lab.show(at);
      G.settings.t = lab.t;
      render(true);
    }

    // a run whose latest iteration is t (the teacher went back and did an E-step there)
    function rewindTo(t) {
      const lab = G.lab;
      lab.run = lab.run.rewound(t);
      lab.half = null;
      lab.t = t;
      if (lab.acc.length > t + 1) lab.acc.length = t + 1;
      lab._ref = null;
    }

    // the teacher moved to another data set: the server serves the page for it (once; a page that still
    // holds other data after that says so instead of reloading again)
    function reloadFor(st) {
      const key = "nblab-follow-reload", mark = `${stateUrl}|${st.data}`;
      let again = true;
      try {
        const last = JSON.parse(sessionStorage.getItem(key) || "null");
        again = !(last && last.mark === mark && Date.now() - last.at < 60000);
        if (again) sessionStorage.setItem(key, JSON.stringify({ mark, at: Date.now() }));
      } catch (e) {
        again = false;
      }
      if (again && F.following) { stopped = true; location.reload(); return; }
      note = F.following ? "The teacher moved to another data set: reload this page to follow." : null;
      F.done(st);
    }

    function drawBar() {
      const b = F.bar();
      const words = note && b.mode === "following" ? note : b.text;
      if (text.textContent !== words) text.textContent = words;
      bar.dataset.mode = b.mode;
      bar.dataset.trouble = F.error ? "true" : "false";
      back.hidden = !b.button;
      expose();
    }
  }

  // ---- the panels below the charts ----------------------------------------------------------------------------
  function mountPanels() {
    const bus = new Map();
    const ctx = { Plotly: G.Plotly, template: cfg.template, data,
      on: (ev, fn) => { if (!bus.has(ev)) bus.set(ev, []); bus.get(ev).push(fn); },
      emit: (ev, payload) => { for (const fn of bus.get(ev) || []) try { fn(payload); } catch (e) { console.error(e); } },
      refresh: () => render(true) };
    const seen = typeof IntersectionObserver !== "undefined" ? new IntersectionObserver((entries) => {
      for (const e of entries) {
        const p = G.panels.find((q) => q.el === e.target);
        if (!p) continue;
        p.visible = e.isIntersecting;
        if (p.visible && p.stale && !G.panelQueue.includes(p)) { G.panelQueue.push(p); pumpPanels(); }
      }
    }, { rootMargin: "300px 0px 300px 0px" }) : null;
    for (const [pname, mod] of PANELS) {
      const slot = G.slots[pname] || (G.slots[pname] = el("section", { id: `lab-panel-${pname}`, class: "lab-panel", "data-panel": pname }));
      if (!slot.parentNode) G.slots.params.parentNode.append(slot);
      slot.hidden = false;
      try {
        const inst = mod.mount(slot, ctx);
        const p = { name: pname, el: slot, inst, visible: !seen, stale: true, key: null };
        G.panels.push(p);
        if (seen) seen.observe(slot);
      } catch (e) {
        console.error(`panel ${pname}:`, e);
        slot.textContent = "";
        slot.append(el("p", { class: "lab-caption", text: `The ${PANEL_TITLES[pname] || pname} panel could not start here.` }));
      }
    }
  }

  // The panels are redrawn one per task (each can take tens of ms): a frame, a key press or a control
  // change waiting behind them waits for one panel at most, not for all of them.
  function drawPanels() {
    const key = `${G.lab.serial}|${G.lab.latest}|${G.lab.t}|${G.lab.half}|${G.settings.classroom}|${G.lab.run.history[G.lab.latest].lam}`;
    for (const p of G.panels) {
      if (p.key === key && !p.stale) continue;
      p.key = key;
      p.stale = true;
      if (p.visible && !G.panelQueue.includes(p)) G.panelQueue.push(p);
    }
    pumpPanels();
  }

  function pumpPanels() {
    if (G.panelTimer || !G.panelQueue.length) return;
    G.panelTimer = setTimeout(() => {
      G.panelTimer = null;
      const p = G.panelQueue.shift();
      if (p && p.stale && p.visible) updatePanel(p);
      if (G.panelQueue.length) pumpPanels();
      else for (const fn of G.idleWaiters.splice(0)) fn();
    }, 0);
  }

  function updatePanel(p) {
    p.stale = false;
    const t0 = performance.now();
    try {
      p.inst.update(G.lab.view());
      G.stats.panels[p.name] = (G.stats.panels[p.name] || 0) + performance.now() - t0;
    } catch (e) {
      console.error(`panel ${p.name}:`, e);
    }
  }
}

// ---- the page's start: data inline (the one-file page) or fetched (a served page: cfg.dataUrl) -------------------

const DATA_FORMAT = "nblab-data/1";

/**
 * Start the lab in `root` as the page says: with the `#nblab-data` block (the one-file page) or, when there is
 * none and the config has `dataUrl`, after fetching the data (relative to the page). Returns start()'s state,
 * or a promise of it when the data is fetched.
 */
export function boot(root) {
  if (document.getElementById("nblab-data")) return start(root);
  let cfg = null;
  try { cfg = JSON.parse(document.getElementById("nblab-config").textContent); } catch (e) { cfg = null; }
  if (!cfg || typeof cfg.dataUrl !== "string" || !cfg.dataUrl) return start(root);
  return loadAndStart(root, cfg);
}

/** Fetch the data of cfg.dataUrl ("Loading the data…" meanwhile) and start; a failure is said in the page
 * with a "Try again" button. */
export function loadAndStart(root, cfg) {
  root.textContent = "";
  root.setAttribute("aria-busy", "true");
  const title = () => el("h1", { class: "lab-load-title", text: String(cfg.title || "Naive Bayes + EM lab") });
  root.append(el("main", { class: "lab-main" }, title(), el("p", { class: "lab-loading", role: "status", "aria-live": "polite", text: "Loading the data…" })));
  return fetchData(cfg.dataUrl).then((data) => {
    root.removeAttribute("aria-busy");
    return start(root, { data, cfg });
  }, (e) => {
    const why = typeof e === "string" ? e : "Something went wrong while starting the lab. Try again in a moment.";
    if (typeof e !== "string") console.error(e);
    root.removeAttribute("aria-busy");
    root.textContent = "";
    const retry = el("button", { type: "button", class: "lab-btn lab-primary lab-retry", text: "Try again",
      onclick: () => loadAndStart(root, cfg) });
    root.append(el("main", { class: "lab-main" }, title(), el("div", { class: "lab-load-error", role: "alert" },
      el("p", { class: "lab-load-error-h", text: "The lab's data could not be loaded." }),
      el("p", { text: why }), retry)));
    window.__nblabLoad = { error: why };
    return null;
  });
}

async function fetchData(url) {
  let res;
  try {
    res = await fetch(new URL(String(url), document.baseURI).href, { credentials: "same-origin", headers: { Accept: "application/json" } });
  } catch (e) {
    throw "The network did not answer. Check the connection, then try again.";
  }
  if (!res.ok) {
    throw res.status === 404 || res.status === 410 ? `The server has no such data (it answered ${res.status}).`
      : `The server answered ${res.status} instead of the data. Try again in a moment.`;
  }
  let data;
  try { data = JSON.parse(await res.text()); } catch (e) {
    throw "What came back is not the lab's data (it is not valid JSON).";
  }
  if (!data || typeof data !== "object" || data.format !== DATA_FORMAT) throw "What came back is not the lab's data.";
  return data;
}

if (typeof document !== "undefined" && document.getElementById("nblab")) {
  const go = () => boot(document.getElementById("nblab"));
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", go);
  else go();
}
