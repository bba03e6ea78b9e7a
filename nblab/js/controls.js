// The lab's controls: the settings (event model, labels hidden, λ, Play speed; under "Advanced" the start,
// the seed, the iteration budget and the tolerance; classroom mode) and the run's buttons (Step, E-step,
// M-step, Play/Pause, Run to convergence, Reset) with the "Show iteration" slider.
//
// Every control is a native element with a visible label. A settings control reports a committed value
// (a slider when released or moved by a key, a number box on change) through onSettings(key, value); a
// number typed out of range is refused with a notice (state.js decides, as for a link). Buttons report
// through onAction(name). The page calls sync(lab) to show the run's state (what is enabled, the labels).

import { decide, fmtLam, fmtTol, SPEEDS } from "./state.js";
import { SPEED_NAMES } from "./vocabulary.js";
import { t, numberG } from "./i18n.js";
import { el } from "./dom.js";

export const SHORTCUTS = [
  ["→ or Page Down", "Step (the next iteration)"], ["← or Page Up", "Back one iteration"], ["P", "Play / Pause"],
  ["E", "E-step only"], ["M", "M-step only"], ["Home", "Reset (a new run from iteration 0)"], ["End", "The latest iteration"],
  ["C", "Classroom mode on / off"], ["?", "This list"],
];

let uid = 0;
const id = (s) => `lab-${s}-${++uid}`;

/**
 * Build the settings panel in `side` and the run bar in `bar`.
 * opts: { table (state.js schema), initLabels, onSettings(key, value), onAction(name), onNotice(notice) }
 */
export function mountControls(side, bar, opts) {
  const c = {};
  const send = (key, value) => opts.onSettings(key, value);
  const lams = opts.table.lam.options;
  side.append(settingsForm(c, opts, send));
  mountRunBar(c, bar, opts);
  return Object.assign(c, {
    /** Show the settings (after a link, a change, a refusal). */
    setSettings: (s) => setSettings(c, lams, s),
    /** Show the run's state: what can be pressed, Play or Pause, the slider's range and position. */
    sync: (lab, dragging) => sync(c, lab, dragging),
  });
}

/** The settings form: the event model, the sliders, the speed, "Advanced", classroom mode, the link's line. */
function settingsForm(c, opts, send) {
  const T = opts.table;
  const form = el("form", { class: "lab-settings", "aria-label": "Settings", onsubmit: (e) => e.preventDefault() });
  c.dataset = el("p", { class: "lab-dataset" });
  form.append(c.dataset);

  // event model: radio buttons (one per model the data allows)
  c.model = el("fieldset", { class: "lab-field lab-radios" }, el("legend", { text: "Event model" }));
  c.modelInputs = T.model.options.map((m) => {
    const input = el("input", { type: "radio", name: "lab-model", value: m, id: id("model") });
    input.addEventListener("change", () => { if (input.checked) send("model", m); });
    c.model.append(el("label", { for: input.id }, input, " " + m));
    return input;
  });
  if (T.model.options.length < 2) c.model.hidden = true;
  form.append(c.model);

  c.hidden = slider(form, send, "hidden", "Labels hidden", 0, 100, (i) => i, (v) => `${v}%`,
    "Share of the labelled documents whose label EM does not see; accuracy is measured on exactly these.");
  const lams = T.lam.options;
  c.lam = slider(form, send, "lam", "Smoothing λ", 0, lams.length - 1, (i) => lams[i], (v) => `λ = ${fmtLam(v)}`,
    "Pseudo-counts in eq. 24 (0 = no smoothing). Changing λ mid-run continues from the current parameters; every other setting starts a new run.");

  // the option's value is the URL's (#speed=fast in every language), its label the page's language
  c.speed = el("select", { id: id("speed") }, Object.entries(SPEEDS).map(([k, fps]) => el("option", { value: k,
    text: t("{name} ({rate} per second)", { name: t(SPEED_NAMES[k]), rate: numberG(fps) }) })));
  c.speed.addEventListener("change", () => send("speed", c.speed.value));
  form.append(el("div", { class: "lab-field" }, el("label", { for: c.speed.id, text: t("Play speed") }), c.speed));

  form.append(advanced(c, opts, send));

  c.classroom = el("input", { type: "checkbox", id: id("classroom") });
  c.classroom.addEventListener("change", () => send("classroom", c.classroom.checked));
  form.append(el("div", { class: "lab-field lab-check" }, c.classroom, el("label", { for: c.classroom.id, text: "Classroom mode (bigger type)" })));

  c.link = el("p", { class: "lab-help" });
  form.append(c.link);
  return form;
}

/** A range slider with a visible value, committed on release or a key. */
function slider(form, send, key, label, min, max, toValue, spell, help) {
  const input = el("input", { type: "range", min, max, step: 1, id: id(key), "aria-describedby": null });
  const out = el("output", { for: input.id, class: "lab-value", "aria-hidden": "true" });
  const hint = help ? el("p", { class: "lab-help", id: id(key + "-help"), text: help }) : null;
  if (hint) input.setAttribute("aria-describedby", hint.id);
  const show = () => {
    const v = toValue(+input.value);
    out.textContent = spell(v);
    input.setAttribute("aria-valuetext", spell(v));
  };
  input.addEventListener("input", show);
  input.addEventListener("change", () => { show(); send(key, toValue(+input.value)); });
  const field = el("div", { class: "lab-field" }, el("div", { class: "lab-row" }, el("label", { for: input.id, text: label }), out), input, hint);
  form.append(field);
  return { input, out, show, field };
}

/** "Advanced": the start, the seed, the budget, the tolerance. */
function advanced(c, opts, send) {
  const T = opts.table;
  const adv = el("details", { class: "lab-advanced" }, el("summary", { text: "Advanced" }));
  c.advanced = adv;
  c.init = el("select", { id: id("init") }, T.init.options.map((k) => el("option", { value: k, text: (opts.initLabels || {})[k] || k })));
  c.init.addEventListener("change", () => send("init", c.init.value));
  adv.append(el("div", { class: "lab-field" }, el("label", { for: c.init.id, text: "Initialisation" }), c.init));
  c.seed = numberBox(adv, opts, send, "seed", "Seed", T.seed);
  c.maxIter = numberBox(adv, opts, send, "max_iter", "Max iterations", T.max_iter);
  c.tol = el("select", { id: id("tol") }, T.tol.options.map((v) => el("option", { value: fmtTol(v), text: fmtTol(v) })));
  c.tol.addEventListener("change", () => send("tol", T.tol.options.find((v) => fmtTol(v) === c.tol.value)));
  adv.append(el("div", { class: "lab-field" }, el("label", { for: c.tol.id, text: "Convergence tolerance" }), c.tol));
  return adv;
}

/** A number box: a value out of range is refused with a notice (state.js decides, as for a link). */
function numberBox(adv, opts, send, key, label, spec) {
  const input = el("input", { type: "number", id: id(key), min: spec.lo, max: spec.hi, step: 1, inputmode: "numeric" });
  input.addEventListener("change", () => {
    const d = decide(key, [input.value], spec);
    if (d.refused || d.why) opts.onNotice({ key, value: input.value, text: d.why });
    if (d.refused) { input.value = String(input.__last); return; }
    input.value = String(d.value);
    send(key, d.value);
  });
  adv.append(el("div", { class: "lab-field" }, el("label", { for: input.id, text: `${label} (${spec.lo}–${spec.hi})` }), input));
  return input;
}

/** The run bar: the buttons, the "Show iteration" slider, the shortcuts. */
function mountRunBar(c, bar, opts) {
  const button = (name, text, title, cls) => el("button", { type: "button", class: "lab-btn" + (cls ? " " + cls : ""), "data-act": name,
    title, onclick: () => opts.onAction(name) }, text);
  c.step = button("step", "Step ▶", "Step (→ or Page Down)", "lab-primary");
  c.e = button("e", "E-step", "E-step only (E)");
  c.m = button("m", "M-step", "M-step only (M)");
  c.play = button("play", "▶ Play", "Play / Pause (P)", "lab-play");
  c.converge = button("converge", "Run to convergence", "Step until EM stops");
  c.reset = button("reset", "Reset", "A new run from iteration 0 (Home)");
  const buttons = el("div", { class: "lab-buttons", role: "group", "aria-label": "Run" }, c.step, c.e, c.m, c.play, c.converge, c.reset);
  c.iter = el("input", { type: "range", min: 0, max: 1, step: 1, value: 0, id: id("iter"), class: "lab-iter" });
  c.iterLabel = el("label", { for: c.iter.id, class: "lab-iter-label", text: "Show iteration" });
  c.iterOut = el("output", { for: c.iter.id, class: "lab-iter-out", "aria-hidden": "true" });
  c.iter.addEventListener("input", () => opts.onAction("show", +c.iter.value));
  c.iter.addEventListener("pointerdown", () => opts.onAction("drag", true));
  const dragEnd = () => opts.onAction("drag", false);
  c.iter.addEventListener("pointerup", dragEnd);
  c.iter.addEventListener("pointercancel", dragEnd);
  c.iter.addEventListener("change", dragEnd);
  // keys on the slider move the slider only (not the page's shortcuts)
  c.iter.addEventListener("keydown", (e) => {
    if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"].includes(e.key)) e.stopPropagation();
  });
  const scrub = el("div", { class: "lab-scrub" }, c.iterLabel, c.iter, c.iterOut);
  c.keys = el("details", { class: "lab-keys" }, el("summary", { text: "Keyboard shortcuts" }),
    el("ul", null, SHORTCUTS.map(([k, v]) => el("li", null, el("kbd", { text: k }), " " + v))));
  bar.append(buttons, scrub, c.keys);
}

function setSettings(c, lams, s) {
  for (const input of c.modelInputs) input.checked = input.value === s.model;
  c.hidden.input.value = String(s.hidden); c.hidden.show();
  c.lam.input.value = String(Math.max(0, lams.indexOf(s.lam))); c.lam.show();
  c.speed.value = s.speed;
  c.init.value = s.init;
  c.seed.value = String(s.seed); c.seed.__last = s.seed;
  c.maxIter.value = String(s.max_iter); c.maxIter.__last = s.max_iter;
  c.tol.value = fmtTol(s.tol);
  c.classroom.checked = !!s.classroom;
}

function sync(c, lab, dragging) {
  const latest = lab.latest, t = lab.t, half = lab.half, done = lab.done, playing = lab.playing;
  c.step.disabled = playing || (t >= latest && done && half === null);
  c.e.disabled = playing || half !== null || done;
  c.m.disabled = playing || half === null;
  c.converge.disabled = playing || done;
  const label = playing ? "❚❚ Pause" : "▶ Play";
  if (c.play.textContent !== label) c.play.textContent = label;
  c.play.setAttribute("aria-pressed", String(playing));
  c.play.disabled = !playing && done && latest === 0;
  const max = String(Math.max(1, latest));
  if (c.iter.max !== max) c.iter.max = max;
  if (!dragging && c.iter.value !== String(t)) c.iter.value = String(t);
  c.iter.disabled = latest < 1;
  const words = `Iteration ${t} of ${latest}`;
  c.iter.setAttribute("aria-valuetext", words);
  if (c.iterOut.textContent !== words) c.iterOut.textContent = words;
}
