// What the student does on the lab page: the controls, the buttons, the slider, the keys and the link
// (act, change), Play and Run to convergence, and what a host drives (G.api).

import * as State from "./state.js";
import * as I18n from "./i18n.js";
import { t } from "./i18n.js";
import { mountControls } from "./controls.js";
import { render, drawCharts, drawLinkNotice, setClassroom } from "./page_draw.js";
import { idle } from "./page_panels.js";
import { restoreLink, stopJob, cancelJob } from "./page_catchup.js";

//: actions that only change how the page looks (not the run on screen): they never leave the teacher
const VIEW_ONLY = ["keys", "classroom", "speed"];
//: a presentation clicker's → / Page Down step, P plays
const KEYS = { ArrowRight: "step", PageDown: "step", ArrowLeft: "back", PageUp: "back", Home: "reset", End: "end",
  p: "play", P: "play", e: "e", E: "e", m: "m", M: "m", c: "classroom", C: "classroom", "?": "keys" };

// the student's own actions (controls, buttons, the slider, keys, the link) leave the teacher's lesson;
// the page's own moves while it follows the teacher (G.page.applying) do not
function student(G, what) {
  if (!G.page.applying && G.onStudent) G.onStudent(what);
}

/** The settings column and the bar of buttons, wired to change() and act(). */
export function mountPageControls(G, side, bar) {
  G.controls = mountControls(side, bar, { table: G.table, initLabels: G.cfg.initLabels,
    onSettings: (key, value) => { if (!VIEW_ONLY.includes(key)) student(G, key); change(G, { [key]: value }, "control"); },
    onAction: (name, arg) => { if (!VIEW_ONLY.includes(name)) student(G, name); act(G, name, arg); },
    onNotice: (n) => { G.urlNotices.push(n); drawLinkNotice(G); } });
  G.controls.setSettings(G.settings);
}

// ---- actions ----------------------------------------------------------------------------------------------
/** One action of the buttons, the slider or the keys ("step", "play", "show" t, …). */
export function act(G, name, arg) {
  const lab = G.lab;
  // an action on the run while a long computation goes on: it stops there first (the run so far is kept)
  if (G.job && !VIEW_ONLY.includes(name)) stopJob(G);
  // a served page (page_served.js): a press that needs the server's next iteration waits for it, in order
  if (G.served && G.served.intercept(name, arg)) return;
  if (name === "show") { if (G.playing) pause(G); lab.show(arg); return render(G); }
  if (name === "drag") { G.dragging = !!arg; if (!arg) render(G, true); return; }
  if (name === "keys") { G.controls.keys.open = !G.controls.keys.open; return; }
  if (name === "classroom") return change(G, { classroom: !G.settings.classroom }, "control");
  if (name === "play") return G.playing ? pause(G) : play(G);
  if (name === "converge") return converge(G);
  stopMoving(G);
  if (name === "step") lab.step();
  else if (name === "back") lab.back();
  else if (name === "end") lab.show(lab.latest);
  else if (name === "e") lab.eStep();
  else if (name === "m") lab.mStep();
  else if (name === "reset") { lab.reset(); G.settings.t = 0; }
  render(G, true);
}

function stopMoving(G) {
  if (G.playing) pause(G);
  G.converging = false;
}

function play(G) {
  const lab = G.lab;
  G.converging = false;
  if (lab.t >= lab.latest && lab.done) lab.show(0);      // at the end of a finished run: play it again
  if (lab.half === "e") lab.mStep();
  G.playing = lab.playing = true;
  G.lastStep = 0;
  if (G.served) G.served.playing();
  render(G, true);
  requestAnimationFrame((now) => tick(G, now));
}

export function pause(G) {
  G.playing = G.lab.playing = false;
  render(G, true);
}

function tick(G, now) {
  if (!G.playing) return;
  const lab = G.lab;
  const interval = 1000 / (G.fpsOverride || State.SPEEDS[G.settings.speed] || State.SPEEDS[State.DEFAULT_SPEED]);
  if (now - G.lastStep >= interval - 4) {
    G.lastStep = G.lastStep && now - G.lastStep < 2 * interval ? G.lastStep + interval : now;
    if (lab.t < lab.latest) lab.show(lab.t + 1);
    else if (!lab.done) {
      const got = lab.compute();
      if (got === null) G.lastStep = 0;   // a served run: the next iteration is on its way; shown when it comes
      else if (!got) { pause(G); return; }
    } else { pause(G); return; }
    if (G.served) G.served.playing();
    render(G);
  }
  requestAnimationFrame((t) => tick(G, t));
}

function converge(G) {
  const lab = G.lab;
  if (lab.done) return;
  if (G.playing) pause(G);
  G.converging = true;
  const chunk = () => {
    if (!G.converging) return render(G, true);
    const finished = lab.converge(40);
    G.sentence.setAttribute("aria-busy", finished ? "false" : "true");
    if (finished) { G.converging = false; render(G, true); return; }
    G.statusLine.textContent = t("Running to convergence … t = {t}", { t: lab.latest });
    render(G);
    setTimeout(chunk, 0);
  };
  chunk();
}

// ---- settings -----------------------------------------------------------------------------------------------
/** New settings from the controls ("control"), the link ("link") or the teacher ("teacher"). */
export function change(G, patch, from) {
  const lab = G.lab;
  // the iteration on screen is the page's (the slider, a step), not the one last written to the link
  G.settings.t = lab.settings.t = lab.t;
  // the page's language is the reader's own: a teacher's move never changes it
  const next = Object.assign({}, G.settings, patch, from === "teacher" ? { lang: G.settings.lang } : {});
  const c = State.changes(G.settings, next);
  if (!c.rebuild.length && !c.cont.length && !c.page.length) return;
  if (c.rebuild.length || c.cont.length) {
    stopMoving(G);
    if (from === "teacher") cancelJob(G);   // the teacher's next move replaces what the page was computing
    else stopJob(G);
  }
  const what = lab.apply(next);
  G.settings = Object.assign({}, lab.settings, { speed: next.speed, classroom: next.classroom, lang: next.lang });
  if (from === "link" && what === "rebuilt" && next.t > 0) restoreLink(G, next.t);
  if (c.page.includes("classroom")) {
    setClassroom(G, !!G.settings.classroom);
    G.charts && drawCharts(G, true);
  }
  G.controls.setSettings(G.settings);
  render(G, true);
}

// ---- the page's events --------------------------------------------------------------------------------------
/** The action of a key press, or null when the key is not the lab's (typing in a field, a modifier, …). */
function keyAction(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const t = e.target, tag = t && t.tagName ? t.tagName.toUpperCase() : "";
  if (tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return null;
  if (tag === "INPUT" && t.type !== "range" && t.type !== "checkbox" && t.type !== "radio") return null;
  if (tag === "INPUT" && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"].includes(e.key)) return null;
  if (tag === "BUTTON" && (e.key === " " || e.key === "Enter")) return null;
  const what = KEYS[e.key];
  if (!what || e.repeat && what === "play") return null;
  return what;
}

/**
 * The keys (on the host's element or the document), the link's fragment and the window's size drive the page;
 * G.change, G.act, G.render and G.idle are what the tests and the benchmark drive, G.api what a host drives.
 */
export function wireEvents(G) {
  const { host, useHash } = G.page;
  const onKey = (e) => {
    const what = keyAction(e);
    if (!what) return;
    if (G.paused && !VIEW_ONLY.includes(what)) { e.preventDefault(); return; }   // the teacher paused the class
    e.preventDefault();
    if (!VIEW_ONLY.includes(what)) student(G, what);
    act(G, what);
  };
  const keysOn = host.keysOn || document;
  keysOn.addEventListener("keydown", onKey);
  const onHash = () => {
    const p = State.parseFragment(location.hash, G.table);
    // another language: every text of the page is drawn again in it, the run kept (page_lang.js)
    if (p.settings.lang !== I18n.lang()) G.page.setLang(p.settings.lang, p.given.includes("lang"));
    G.urlNotices = p.notices.slice();
    drawLinkNotice(G);
    student(G, "link");
    change(G, p.settings, "link");
  };
  if (useHash) window.addEventListener("hashchange", onHash);
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (G.Plotly) drawCharts(G, true); }, 150);
  });
  Object.assign(G, { change: (patch, from) => change(G, patch, from), act: (name, arg) => act(G, name, arg),
    render: (force) => render(G, force), idle: () => idle(G) });
  G.api = hostApi(G, () => {
    keysOn.removeEventListener("keydown", onKey);
    if (useHash) window.removeEventListener("hashchange", onHash);
  });
}

// what a host drives (the notebook widget): the same actions as the controls
function hostApi(G, unwire) {
  return {
    t: () => G.lab.t,
    go: (t) => act(G, "show", t),
    step: (n = 1) => { for (let i = 0; i < Math.max(1, n | 0); i++) act(G, "step"); },
    eStep: () => act(G, "e"), mStep: () => act(G, "m"),
    play: () => { if (!G.playing) act(G, "play"); },
    pause: () => { if (G.playing) act(G, "play"); },
    reset: () => act(G, "reset"), converge: () => act(G, "converge"),
    destroy: () => { if (G.playing) pause(G); if (G.stopFollowing) G.stopFollowing(); unwire(); },
  };
}
