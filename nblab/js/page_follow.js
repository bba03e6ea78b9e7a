// Following the teacher on the page (the class link: cfg.follow = { state, intervalMs }): the bar that says
// so, the polls of the teacher's state, and the teacher's moves replayed here. The decisions are follow.js's
// (pure); this module is the DOM and the timers around them.

import * as State from "./state.js";
import * as Follow from "./follow.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { change, pause } from "./page_actions.js";
import { render } from "./page_draw.js";
import { runJob } from "./page_catchup.js";
import { mountQuestions } from "./page_questions.js";

/** Start following the teacher: the bar on top of the page, then a poll of the state every interval. */
export function mountFollow(G) {
  const cfg = G.cfg, root = G.page.root;
  const F = new Follow.Follower(Follow.interval(cfg.follow));
  let stateUrl;
  try { stateUrl = new URL(String(cfg.follow.state), document.baseURI).href; } catch (e) { return; }
  const S = { G, F, stateUrl, dataUrl: cfg.dataUrl, dataKey: Follow.dataKeyOf(cfg.dataUrl), timer: null, inflight: false, stopped: false, note: null, missing: null };
  S.text = el("p", { class: "lab-follow-text", role: "status", "aria-live": "polite", "aria-atomic": "true", tabindex: "-1" });
  S.back = el("button", { type: "button", class: "lab-btn lab-follow-back", text: t("Back to the teacher"), hidden: true,
    onclick: () => rejoin(S) });
  S.bar = el("section", { class: "lab-follow", "aria-label": t("The teacher's lesson"), "data-mode": "following" }, S.text, S.back);
  root.prepend(S.bar);
  G.followBar = S.bar;
  S.questions = mountQuestions(G, stateUrl, S.bar);
  // Pause: a student exploring on their own is brought back to the teacher's view, which then waits
  G.onPaused = (on) => { if (on && !F.following && F.teacher && !F.ended) rejoin(S); };
  // the bar in the page's language again (page_lang.js, after the reader chose another)
  G.redrawFollow = () => {
    S.back.textContent = t("Back to the teacher");
    S.bar.setAttribute("aria-label", t("The teacher's lesson"));
    drawBar(S);
  };
  G.onStudent = () => { if (F.leave()) drawBar(S); };
  G.stopFollowing = () => { S.stopped = true; clearTimeout(S.timer); S.timer = null; document.removeEventListener("visibilitychange", onVisible); };
  const onVisible = () => {
    if (S.stopped) return;
    if (document.visibilityState === "hidden") { clearTimeout(S.timer); S.timer = null; return; }
    if (!S.inflight) { clearTimeout(S.timer); S.timer = null; poll(S); }
  };
  document.addEventListener("visibilitychange", onVisible);
  expose(S);
  drawBar(S);
  poll(S);
}

/** What the tests read of the follower (G.follow). */
function expose(S) {
  const F = S.F;
  S.G.follow = { following: F.following, teacher: F.teacher, polls: F.polls, applied: F.applied,
    mode: F.bar().mode, ended: F.ended, error: F.error, away: !!(F.teacher && F.teacher.away), etag: F.etag,
    note: S.note };
}

function schedule(S, ms) {
  clearTimeout(S.timer);
  S.timer = null;
  if (S.stopped || ms === null || ms === undefined) return;
  if (document.visibilityState === "hidden") return;       // polled again when the tab is visible
  S.timer = setTimeout(() => poll(S), ms);
}

/** The teacher's state as follow.js reads it: { status, body } (status 0: no answer; invalid: not JSON). */
async function fetchState(S) {
  try {
    // "no-cache": the browser revalidates; the page also sends the ETag of the last state that validated
    // (the follower keeps no other: a 304 to an answer it refused would look like a good state)
    const headers = { Accept: "application/json" };
    if (S.F.etag) headers["If-None-Match"] = S.F.etag;
    const r = await fetch(S.stateUrl, { cache: "no-cache", credentials: "same-origin", headers });
    if (r.status !== 200) return { status: r.status };
    const etag = r.headers.get("ETag");
    try { return { status: 200, etag, body: JSON.parse(await r.text()) }; } catch (e) { return { status: 200, invalid: true }; }
  } catch (e) {
    return { status: 0 };
  }
}

async function poll(S) {
  S.timer = null;
  if (S.inflight || S.stopped) return;
  S.inflight = true;
  const res = await fetchState(S);
  S.inflight = false;
  if (S.stopped) return;
  const out = S.F.onPoll(res, S.G.table);
  if (out.apply) applyTeacher(S, out.apply);
  else if (S.missing && S.F.following && S.F.teacher && S.F.teacher.v !== S.F.applied) applyTeacher(S, S.F.teacher);
  if (out.delay === null) S.stopped = true;
  drawBar(S);
  const T = S.F.teacher;
  if (T) S.questions.update(S.F.ended ? Object.assign({}, T, { paused: false }) : T);
  schedule(S, out.delay);
}

function rejoin(S) {
  const st = S.F.rejoin();
  if (st) applyTeacher(S, st, true);
  drawBar(S);
  S.text.focus();      // the button is gone: the focus goes to what the bar says
}

/** Run `fn` as the page's own move (not the student's: it does not leave the teacher). */
function asTeacher(G, fn) {
  G.page.applying = true;
  try {
    fn();
  } catch (e) {
    console.error(e);
  } finally {
    G.page.applying = false;
  }
}

const lamsDiffer = (lab, st) => Follow.firstMismatch((i) => lab.run.history[i].lam, lab.latest, st.lams, st.t) >= 0;

function applyTeacher(S, st) {
  const G = S.G, lab = G.lab;
  const p = Follow.plan({ settings: G.settings, t: lab.t, latest: lab.latest, half: lab.half, dataKey: S.dataKey }, st);
  if (p.action === "reload") { reloadFor(S, st); return; }
  S.note = null;
  // the teacher's λ history and this page's disagree (a student who joins after a λ change mid-run, or
  // comes back from exploring): replay the teacher's run, λ change by λ change, before showing t
  const lams = st.lams;
  if (lams && p.rebuild.length === 0 && lamsDiffer(lab, st)) {
    asTeacher(G, () => replay(G, st, () => goTo(G, p.t, p.half)));
    S.F.done(st);
    return;
  }
  if (!p.same) {
    asTeacher(G, () => {
      if (Object.keys(p.patch).length) change(G, p.patch, "teacher");
      // what the change did ("new run", "continues") stays said while the page computes up to t
      const then = () => {
        const said = G.lab.notice;
        goTo(G, p.t, p.half);
        if (said && !G.lab.notice) G.lab.notice = said;
      };
      if (lams && lamsDiffer(G.lab, st)) replay(G, st, then);
      else then();
    });
  }
  S.F.done(st);
}

// The teacher's run rebuilt here from its λ history: from the first iteration whose λ differs (a new run at
// the first λ when it is θ_0), forward to t with each λ from where the teacher set it, then the λ the
// teacher's next steps use. Each λ change is the lab's own "continue with λ" (withSmoothing), as on the
// teacher's page, so the numbers are the teacher's. The way to t goes a slice at a time (page_catchup.js);
// `then` runs once there (not when the student stops it).
function replay(G, st, then) {
  const lab = G.lab, lams = st.lams;
  const m = Follow.firstMismatch((i) => lab.run.history[i].lam, lab.latest, lams, st.t);
  const setLam = (lam) => {
    if (lab.settings.lam === lam && lab.run.history[lab.latest].lam === lam) return;
    lab.continueWith(Object.assign({}, lab.settings, { lam }), ["lam"]);
  };
  if (m === 0) {
    lab.build(Object.assign({}, lab.settings, { lam: lams[0][1] }));
  } else if (m > 0) {
    rewindTo(G, m - 1);
    lab.half = null;
  }
  const step = (budgetMs) => {
    const t0 = performance.now();
    while (lab.latest < st.t && !lab.run.done) {
      const want = Follow.lamAt(lams, lab.latest + 1);
      if (lab.settings.lam !== want) setLam(want);
      if (!lab.compute()) return true;
      if (performance.now() - t0 >= budgetMs) return lab.latest >= st.t || lab.run.done;
    }
    return true;
  };
  runJob(G, { target: st.t, label: "replaying the teacher's λ changes", step, onDone: (stopped) => {
    if (stopped) { lab.show(lab.latest); G.settings.t = lab.t; return; }
    const was = G.page.applying;
    G.page.applying = true;
    try { replayed(G, st); then(); } finally { G.page.applying = was; }
  } });
}

// the teacher's run replayed up to t: the λ the teacher's next steps use, and what the page did
function replayed(G, st) {
  const lab = G.lab, lams = st.lams;
  const next = Object.prototype.hasOwnProperty.call(st.settings, "lam") ? st.settings.lam : Follow.lamAt(lams, st.t);
  if (lab.settings.lam !== next) lab.continueWith(Object.assign({}, lab.settings, { lam: next }), ["lam"]);
  G.settings = Object.assign({}, G.settings, { lam: lab.settings.lam });
  lab.notice = { kind: "continued", text: lams.length > 1
    ? `Recomputed the teacher's run to iteration ${lab.latest}, with each λ from where the teacher set it `
      + `(${lams.map(([t, l]) => `λ = ${State.fmtLam(l)} from t = ${t}`).join(", ")}).`
    : `Recomputed the teacher's run to iteration ${lab.latest} with λ = ${State.fmtLam(lams[0][1])}.` };
}

// iteration t of the teacher's run (computed up to t if needed, a slice at a time when that is long: the page
// works meanwhile, page_catchup.js), then the E-step half if the teacher did it
function goTo(G, t, half) {
  if (G.playing) pause(G);
  G.converging = false;
  const lab = G.lab;
  if (lab.latest < t) {
    if (lab.half === "e") lab.mStep();
    const said = lab.notice;
    runJob(G, { target: t, label: "where the teacher is",
      step: (ms) => lab.computeTo(t, ms),
      onDone: (stopped) => {
        if (said && !lab.notice) lab.notice = said;
        if (stopped) { lab.show(lab.latest); G.settings.t = lab.t; return; }
        const was = G.page.applying;
        G.page.applying = true;   // the page's own move, not the student's
        try { arrive(G, t, half); } finally { G.page.applying = was; }
      } });
    return;
  }
  arrive(G, t, half);
}

// the teacher's iteration t, computed: show it (with the E-step half when the teacher did it)
function arrive(G, t, half) {
  const lab = G.lab;
  const at = Math.min(t, lab.latest);
  if (half === "e" && at === t && !(lab.latest === t && lab.half === "e")) {
    if (lab.latest > t) rewindTo(G, t);
    lab.eStep();
  } else if (half !== "e" && lab.latest === at && lab.half === "e") {
    // the teacher's page has no pending E-step at its latest iteration: neither does this one
    lab.run.pending = null;
    lab.half = null;
  }
  lab.show(at);
  G.settings.t = lab.t;
  render(G, true);
}

// a run whose latest iteration is t (the teacher went back and did an E-step there)
function rewindTo(G, t) {
  const lab = G.lab;
  lab.run = lab.run.rewound(t);
  lab.half = null;
  lab.t = t;
  if (lab.acc.length > t + 1) lab.acc.length = t + 1;
  lab._ref = null;
}

// the teacher moved to another data set: the server serves the page for it (once; a page that still
// holds other data after that says so instead of reloading again). The page reloads only once the server
// answers for that data: a data set it cannot serve (gone, unreadable, the store down) leaves this working
// lab as it is, said in the bar, and is asked about again on a later poll.
function reloadFor(S, st) {
  const key = "nblab-follow-reload", mark = `${S.stateUrl}|${st.data}`;
  if (!S.F.following) { S.note = null; S.F.done(st); return; }
  if (S.missing && S.missing.key === st.data && Date.now() - S.missing.at < MISSING_RECHECK_MS) return;
  if (S.checking) return;
  const url = Follow.dataUrlFor(S.dataUrl, st.data);
  if (!url) { S.note = MISSING_NOTE; S.missing = { key: st.data, at: Date.now() }; drawBar(S); return; }
  S.checking = true;
  let href;
  try { href = new URL(url, document.baseURI).href; } catch (e) { href = null; }
  const asked = href ? fetch(href, { method: "HEAD", credentials: "same-origin" }).then((r) => r.ok, () => false) : Promise.resolve(false);
  asked.then((ok) => {
    S.checking = false;
    if (S.stopped || !S.F.following || !S.F.teacher || S.F.teacher.data !== st.data) return;
    if (!ok) {
      S.missing = { key: st.data, at: Date.now() };
      S.note = MISSING_NOTE;
      drawBar(S);
      return;
    }
    S.missing = null;
    let again = true;
    try {
      const last = JSON.parse(sessionStorage.getItem(key) || "null");
      again = !(last && last.mark === mark && Date.now() - last.at < 60000);
      if (again) sessionStorage.setItem(key, JSON.stringify({ mark, at: Date.now() }));
    } catch (e) {
      again = false;
    }
    if (again) { S.stopped = true; location.reload(); return; }
    S.note = "The teacher moved to another data set: reload this page to follow.";
    S.F.done(st);
    drawBar(S);
  });
}

const MISSING_RECHECK_MS = 30000;
const MISSING_NOTE = "The teacher moved to a data set this server cannot give this page right now: the lab keeps "
  + "working here with the data it has (asked again in a while).";

function drawBar(S) {
  const F = S.F, b = F.bar();
  const words = S.note && b.mode === "following" ? S.note : b.text;
  if (S.text.textContent !== words) S.text.textContent = words;
  S.bar.dataset.mode = b.mode;
  S.bar.dataset.trouble = F.error || (F.teacher && F.teacher.away) || S.note ? "true" : "false";
  S.back.hidden = !b.button;
  expose(S);
}
