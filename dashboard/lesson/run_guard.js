// @ts-check
// The lesson's run buttons (Step, E-step, M-step, Reset, Run to convergence) and their clicker keys
// (→ and Page Down, E, M, Home): one press, one action, in the order pressed.
//
// Streamlit merges the presses of one button that reach the server before the script thread has picked up
// the previous request into one rerun (ScriptRequests coalesces trigger values): a second Step sent then is
// lost, and presses of two buttons sent then run their callbacks in one rerun in no set order (Page Down
// then E could run E-step first). The browser learns that the server has started a run only when the run
// says so (the app root's data-test-script-state), a round trip after the click; on a busy machine that is
// longer than a quick second click. So the page keeps its own note, "sent", from the moment a press goes to
// Streamlit until the run state changes (the server acted on it) or HOLD_MS passes:
//   - while sent, the Step button takes no clicks and looks it (html[data-nbem-sent]: the lesson's CSS greys
//     it, as while a run is going on), so a refused click is visibly refused;
//   - a key, or a click on another run button, that comes while a press is sent, while a run is going on,
//     or while earlier presses wait, waits in a short queue and is replayed (as a click on its button) once
//     the app is idle and nothing is sent: each counts, in order, on the page the previous one produced.
//     A button that is disabled by then (E-step after the run converged) ignores it, as it would have.
//
// The decisions are pure functions of a small state (`createGate`, `press`, `acted`, `nextPress`,
// `expire`; no page) and tested with node --test; `install` wires them to the page once per window.
// The component (dashboard/lesson/run_guard.py) mounts it in the sidebar, hidden, on every lesson page.

/** How long a press counts as sent when the server never reports a run (ms). */
export const HOLD_MS = 3000;
/** Presses that wait at most; more are dropped (a button held down, a stuck clicker). */
export const QUEUE_MAX = 8;

/**
 * @typedef {{ sent: boolean, sentAt: number, queue: string[] }} Gate
 * `queue` holds the names (Streamlit keys) of the buttons whose presses wait.
 */

/** @returns {Gate} */
export function createGate() {
  return { sent: false, sentAt: 0, queue: [] };
}

/**
 * A press of the button `name` (a key, or a click on a run button other than a refused Step).
 * "pass": let it go to Streamlit now (the gate notes it as sent); "wait": it is queued (stop the event);
 * "drop": the queue is full (stop the event).
 * @param {Gate} g
 * @param {string} name
 * @param {boolean} busy whether a script run is going on
 * @param {number} now ms
 * @returns {"pass" | "wait" | "drop"}
 */
export function press(g, name, busy, now) {
  if (!g.sent && !busy && g.queue.length === 0) {
    sent(g, now);
    return "pass";
  }
  if (g.queue.length >= QUEUE_MAX) return "drop";
  g.queue.push(name);
  return "wait";
}

/**
 * A press that went to Streamlit (one that passed, or a replay).
 * @param {Gate} g
 * @param {number} now
 */
export function sent(g, now) {
  g.sent = true;
  g.sentAt = now;
}

/**
 * The run state changed: the server has acted on what was sent.
 * @param {Gate} g
 */
export function acted(g) {
  g.sent = false;
}

/**
 * Whether the note "sent" has outlived HOLD_MS (then it is cleared: the server never reported a run).
 * @param {Gate} g
 * @param {number} now
 */
export function expire(g, now) {
  if (g.sent && now - g.sentAt >= HOLD_MS) {
    g.sent = false;
    return true;
  }
  return false;
}

/**
 * The press to replay now (taken off the queue), or null: only when nothing is sent and no run is going on.
 * @param {Gate} g
 * @param {boolean} busy
 * @returns {string | null}
 */
export function nextPress(g, busy) {
  if (g.sent || busy || g.queue.length === 0) return null;
  return /** @type {string} */ (g.queue.shift());
}

/**
 * The button a key presses (keys: from KeyboardEvent.key, letters lower-case), or null.
 * @param {Record<string, string>} keys
 * @param {KeyboardEvent} e
 */
export function keyButton(keys, e) {
  if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || e.repeat) return null;
  const k = e.key && e.key.length === 1 ? e.key.toLowerCase() : e.key;
  return Object.prototype.hasOwnProperty.call(keys, k) ? keys[k] : null;
}

/**
 * Whether a key pressed in `el` is the element's own (typing, a slider, a menu), not a shortcut.
 * @param {any} el
 */
export function ownKey(el) {
  if (!el || !el.tagName) return false;
  const tag = el.tagName.toUpperCase();
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable) return true;
  const role = el.getAttribute ? el.getAttribute("role") : null;
  return role === "slider" || role === "textbox" || role === "combobox" || role === "spinbutton"
    || role === "listbox" || role === "option" || role === "menuitem";
}

// ---- the page -------------------------------------------------------------------------------------------

/**
 * @typedef {{ keys: Record<string, string>, buttons: string[], step: string }} Config
 * keys: key → button name; buttons: the run buttons (Streamlit keys); step: the Step button's key.
 */

/** @param {string} name */
const keyed = (name) => ".st-key-" + CSS.escape(name);

/**
 * Wire the gate to the page (once per window; a later call only updates the configuration).
 * @param {Window & typeof globalThis} win
 * @param {Config} cfg
 */
export function install(win, cfg) {
  const w = /** @type {any} */ (win);
  if (w.__nbemRunGuard) { w.__nbemRunGuard.cfg = cfg; return w.__nbemRunGuard; }
  const doc = win.document;
  const self = { cfg, gate: createGate(), replaying: false, timer: /** @type {any} */ (null), observed: false };
  w.__nbemRunGuard = self;

  const app = () => doc.querySelector('[data-testid="stApp"]');
  const busy = () => {
    const a = app();
    const s = a ? a.getAttribute("data-test-script-state") : null;
    return !!s && s !== "notRunning";
  };
  /** @param {string} name */
  const button = (name) => /** @type {HTMLButtonElement | null} */ (doc.querySelector(keyed(name) + " button"));
  const mark = () => {
    doc.documentElement.toggleAttribute("data-nbem-sent", self.gate.sent);
    clearTimeout(self.timer);
    if (self.gate.sent) self.timer = setTimeout(() => { if (expire(self.gate, performance.now())) { mark(); pump(); } }, HOLD_MS + 10);
  };
  const watch = () => {
    if (self.observed) return;
    const a = app();
    if (!a || typeof MutationObserver === "undefined") return;
    self.observed = true;
    new MutationObserver(() => { acted(self.gate); mark(); pump(); })
      .observe(a, { attributes: true, attributeFilter: ["data-test-script-state"] });
  };
  const pump = () => {
    for (;;) {
      const name = nextPress(self.gate, busy());
      if (name === null) return;
      const b = button(name);
      if (!b || b.disabled) continue;          // what the page became does not take it: as if pressed now
      self.replaying = true;
      try { b.click(); } finally { self.replaying = false; }
      sent(self.gate, performance.now());
      mark();
      return;
    }
  };
  /** @param {Event} e */
  const stop = (e) => { e.preventDefault(); e.stopImmediatePropagation(); };

  win.addEventListener("keydown", (e) => {
    watch();
    const name = keyButton(self.cfg.keys, e);
    if (name === null || ownKey(e.target)) return;
    const b = button(name);
    if (!b || b.disabled) return;              // Streamlit ignores it: nothing is sent
    const verdict = press(self.gate, name, busy(), performance.now());
    if (verdict === "pass") mark(); else stop(e);
  }, true);

  win.addEventListener("click", (e) => {
    watch();
    if (self.replaying) return;
    const el = /** @type {any} */ (e.target);
    const b = el && el.closest ? el.closest("button") : null;
    if (!b || b.disabled) return;
    const name = self.cfg.buttons.find((n) => b.closest(keyed(n)));
    if (!name) return;
    const verdict = press(self.gate, name, busy(), performance.now());
    if (verdict === "pass") mark(); else stop(e);
  }, true);

  watch();
  return self;
}

/**
 * The components-v2 mount (dashboard/lesson/run_guard.py): data is the configuration as JSON text.
 * @param {{ data: any }} component
 */
export default function mount(component) {
  const cfg = typeof component.data === "string" ? JSON.parse(component.data) : component.data;
  if (cfg && cfg.keys && cfg.buttons) install(window, cfg);
}
