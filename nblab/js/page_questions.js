// The teacher's question and Pause on the class page (the DOM around questions.js). The teacher's state carries
// the current question's id and phase ({ id, phase }) and `paused`; page_follow.js hands every state it reads to
// `update`. The question itself comes from the question routes (docs/class_link.md, "The class answers"): the
// browser's answer (GET mine, with its token in a header), the answer it sends (POST answer), and the class's
// answers once the teacher revealed the right one (GET tally). Every text of the data is set as text, in a
// <bdi>: nothing from the network is markup.

import * as Q from "./questions.js";
import { el } from "./dom.js";
import { t, tn } from "./i18n.js";

/** The question panel under the follow bar, hidden until the teacher asks. Returns { update(state) }. */
export function mountQuestions(G, stateUrl, bar) {
  const P = { G, stateUrl, id: null, phase: null, q: null, desc: null, mine: null, tally: null, busy: false, paused: false, token: null };
  P.title = el("h2", { class: "lab-q-title", text: t("The teacher's question") });
  P.prompt = el("p", { class: "lab-q-prompt", dir: "auto" });
  P.subject = el("p", { class: "lab-q-subject", dir: "auto", hidden: true });
  P.choices = el("div", { class: "lab-q-choices", role: "group", "aria-label": t("Your answer") });
  P.status = el("p", { class: "lab-q-status", role: "status", "aria-live": "polite" });
  P.result = el("div", { class: "lab-q-result", hidden: true });
  P.box = el("section", { class: "lab-question", "aria-label": t("The teacher's question"), hidden: true },
    P.title, P.prompt, P.subject, P.choices, P.status, P.result);
  bar.after(P.box);
  P.pauseNote = el("p", { class: "lab-paused-note", role: "status", hidden: true,
    text: t("The teacher paused the class: the controls wait for the teacher.") });
  bar.append(P.pauseNote);
  G.questions = P;
  // the page drawn again in another language (page_lang.js): the panel back under the bar, in that language
  G.redrawQuestions = () => relabel(P);
  // every frame drawn while paused (the class follows the teacher's Steps meanwhile) holds the controls again
  G.holdControls = () => hold(G.page.root);
  expose(P);
  return { update: (st) => update(P, st) };
}

function relabel(P) {
  P.title.textContent = t("The teacher's question");
  P.box.setAttribute("aria-label", t("The teacher's question"));
  P.choices.setAttribute("aria-label", t("Your answer"));
  P.pauseNote.textContent = t("The teacher paused the class: the controls wait for the teacher.");
  if (P.G.followBar) P.G.followBar.after(P.box);
  if (P.q) {
    const desc = Q.describe(P.q, P.G.data);
    if (desc) { P.desc = desc; if (P.phase) draw(P); }
  }
  // the controls drawn again wait too while the class is paused
  if (P.paused) hold(P.G.page.root);
}

// every control of the lab but the follow bar's, the question's and the language picker's (a student reads in
// a language of their own, paused or not)
function hold(root) {
  for (const c of root.querySelectorAll("button, input, select, textarea")) {
    if (c.closest(".lab-follow") || c.closest(".lab-question") || c.closest(".lab-lang") || c.disabled) continue;
    c.disabled = true;
    c.dataset.pausedOff = "true";
  }
}

function expose(P) {
  P.G.question = { id: P.id, phase: P.phase, mine: P.mine, right: P.tally ? P.tally.right : null,
    n: P.tally ? P.tally.n : null, paused: P.paused, busy: P.busy };
}

function token(P) {
  if (!P.token) {
    let storage = null;
    try { storage = window.localStorage; } catch (e) { storage = null; }
    P.token = Q.tokenFrom(storage || { getItem: () => null, setItem: () => {} }, (b) => crypto.getRandomValues(b));
  }
  return P.token;
}

async function getJson(url, headers) {
  try {
    const r = await fetch(url, { cache: "no-store", credentials: "same-origin", headers: Object.assign({ Accept: "application/json" }, headers || {}) });
    let body = null;
    try { body = JSON.parse(await r.text()); } catch (e) { body = null; }
    return { status: r.status, body };
  } catch (e) {
    return { status: 0, body: null };
  }
}

const errorOf = (res) => (res.body && typeof res.body.error === "string" ? res.body.error.slice(0, 300)
  : res.status === 0 ? t("The server cannot be reached.") : `HTTP ${res.status}`);

async function update(P, st) {
  paused(P, !!(st && st.paused));
  const q = st && st.question;
  if (!q) {
    if (P.id !== null) { P.id = P.phase = P.q = P.desc = P.mine = P.tally = null; P.box.hidden = true; expose(P); }
    return;
  }
  if (q.id === P.id && q.phase === P.phase) return;
  if (P.busy) return;   // the next state (2 s) asks again
  P.busy = true;
  expose(P);
  try {
    if (q.id !== P.id || !P.q) {
      const res = await getJson(Q.routes(P.stateUrl, q.id).mine, { "X-NBLab-Token": token(P) });
      if (res.status !== 200 || !res.body || !res.body.question) { P.status.textContent = errorOf(res); P.box.hidden = false; return; }
      const desc = Q.describe(res.body.question, P.G.data);
      if (!desc) { P.status.textContent = t("This page cannot show the teacher's question."); P.box.hidden = false; return; }
      P.id = q.id; P.q = res.body.question; P.desc = desc; P.mine = res.body.answer === undefined ? null : res.body.answer;
      P.tally = null;
      P.phase = null;
    }
    if (q.phase === "revealed" && !P.tally) {
      const res = await getJson(Q.routes(P.stateUrl, q.id).tally);
      if (res.status === 200 && res.body) P.tally = res.body;
      else { P.status.textContent = errorOf(res); return; }
    }
    P.phase = q.phase;
    draw(P);
  } finally {
    P.busy = false;
    expose(P);
  }
}

function draw(P) {
  const d = P.desc, open = P.phase === "open";
  P.box.hidden = false;
  P.box.dataset.phase = P.phase;
  P.prompt.textContent = d.prompt;
  P.subject.hidden = !d.subject;
  P.subject.replaceChildren(...(d.subject ? [el("bdi", { text: d.subject })] : []));
  if (d.choices) {
    P.choices.replaceChildren(...d.choices.map((c) => el("button", { type: "button", class: "lab-btn lab-q-option",
      "data-option": c.id, dir: "auto", "aria-pressed": P.mine === c.id ? "true" : "false", disabled: !open,
      onclick: () => send(P, c.id) }, el("bdi", { text: c.label }))));
  } else {
    const input = el("input", { type: "number", class: "lab-q-number", inputmode: "decimal", min: String(d.lo), max: String(d.hi),
      step: "any", "aria-label": t("Your answer (a number from {lo} to {hi})", { lo: d.lo, hi: d.hi }), disabled: !open,
      value: typeof P.mine === "number" ? String(P.mine) : null });
    const go = el("button", { type: "button", class: "lab-btn lab-q-send", text: t("Send"), disabled: !open, onclick: () => {
      const v = Q.numberAnswer(input.value, d.lo, d.hi);
      if (v === null) { P.status.textContent = t("Type a number from {lo} to {hi}.", { lo: d.lo, hi: d.hi }); return; }
      send(P, v);
    } });
    P.choices.replaceChildren(input, go);
  }
  const mine = P.mine === null ? null : d.choices ? (d.choices.find((c) => c.id === P.mine) || { label: String(P.mine) }).label : String(P.mine);
  P.status.textContent = P.phase === "closed" ? t("The question is closed.")
    : mine !== null ? t("Your answer: {answer}", { answer: mine }) : open ? t("Tap your answer.") : "";
  drawResult(P);
}

function drawResult(P) {
  const tally = P.tally, d = P.desc;
  if (!tally || P.phase !== "revealed") { P.result.hidden = true; P.result.replaceChildren(); return; }
  const kids = [];
  const n = typeof tally.n === "number" ? tally.n : 0;
  if (d.choices) {
    const right = (d.choices.find((c) => c.id === tally.right) || { label: String(tally.right) }).label;
    kids.push(el("p", { class: "lab-q-right" }, t("Right answer:"), " ", el("bdi", { text: right })));
    const rows = Q.tallyRows(tally, d) || [];
    kids.push(el("ul", { class: "lab-q-tally", "aria-label": tn("The class's answers ({n} answer)", "The class's answers ({n} answers)", n) },
      rows.map((r) => el("li", { "data-option": r.id, "data-right": r.right ? "true" : "false" },
        el("bdi", { text: r.label }), `: ${r.count}`, r.right ? " ✓" : ""))));
  } else {
    const right = typeof tally.right === "number" ? tally.right.toFixed(1) : "";
    kids.push(el("p", { class: "lab-q-right" }, t("Right answer:"), " ", el("bdi", { text: right })));
    if (Array.isArray(tally.quantiles) && typeof tally.mean === "number") {
      kids.push(el("p", { class: "lab-q-tally", text: tn("The class ({n} answer): median {median}, mean {mean}",
        "The class ({n} answers): median {median}, mean {mean}", n, { median: Number(tally.quantiles[2]).toFixed(1), mean: tally.mean.toFixed(1) }) }));
    }
  }
  P.result.replaceChildren(...kids);
  P.result.hidden = false;
}

async function send(P, answer) {
  if (P.phase !== "open") return;
  P.status.textContent = t("Sending…");
  let res;
  try {
    const r = await fetch(Q.routes(P.stateUrl, P.id).answer, { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" }, body: Q.answerBody(token(P), answer) });
    let body = null;
    try { body = JSON.parse(await r.text()); } catch (e) { body = null; }
    res = { status: r.status, body };
  } catch (e) {
    res = { status: 0, body: null };
  }
  if (res.status === 200 && res.body) {
    P.mine = res.body.answer;
    draw(P);
  } else {
    P.status.textContent = t("Your answer was not taken: {why}", { why: errorOf(res) });
  }
  expose(P);
}

// Pause: every control of the lab waits (the follow bar, the question and the language picker stay usable);
// Resume gives them back
function paused(P, on) {
  const G = P.G;
  if (on === P.paused && !on) return;
  const was = P.paused;
  P.paused = on;
  G.paused = on;
  P.pauseNote.hidden = !on;
  const root = G.page.root;
  if (on) {
    hold(root);
  } else {
    for (const c of root.querySelectorAll("[data-paused-off]")) { c.disabled = false; delete c.dataset.pausedOff; }
    // then each control as the run says (an M-step with no E-step before it stays off)
    if (G.controls && G.lab) G.controls.sync(G.lab, G.dragging);
  }
  if (G.onPaused && was !== on) G.onPaused(on);
  expose(P);
}
