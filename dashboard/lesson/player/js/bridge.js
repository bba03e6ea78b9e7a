// @ts-check
// The Streamlit bridge: every place the player reads or writes Streamlit's own page (its CSS classes, test
// ids and attributes) is here, and nowhere else. What names an element the server draws (a widget's key,
// a metric's label, the λ slider's label) comes from the component's data (`dom`, set by
// dashboard/lesson/player/__init__.py from the constants that draw them), so a rename on the server
// reaches the player with it.
//
// Streamlit renders an element drawn in `st.container(key=K)` or a widget with key K inside an element with
// the class `st-key-K`; st.metric as [data-testid=stMetric] with its label, value and delta in
// stMetricLabel / stMetricValue / stMetricDelta; the app's root carries data-test-script-state
// ("notRunning" when no script run is going on).

/**
 * The names of what the player finds on the page (the main mount's data.dom).
 * @typedef {Object} Dom
 * @property {string} step      the Step button's key
 * @property {string} status    the status line's container key (its text after the bold label is rewritten)
 * @property {string} stop      the stop rules' container key (three metrics)
 * @property {string} showing   the "Showing iteration t of n" caption's container key
 * @property {string} lower     the lower panels' fragment container key
 * @property {string} iteration the label of the metric "Iteration"
 * @property {string} accuracy  the label of the accuracy metric up to the iteration ("Accuracy (t=")
 */

/** @type {Dom} what the page draws when the data names nothing (the offline file, an old server) */
export const DEFAULT_DOM = { step: "step", status: "nbem_status", stop: "nbem_stop_rules", showing: "nbem_showing",
  lower: "nbem_lower", iteration: "Iteration", accuracy: "Accuracy (t=" };

/**
 * @param {string} key
 * @returns {string} the CSS selector of the element Streamlit draws for key `key`
 */
function keyed(key) {
  return ".st-key-" + CSS.escape(key);
}

/**
 * Streamlit's base URL (where its static/js/ lives: the app's root, also under a proxy's path prefix).
 * @returns {string}
 */
export function streamlitBase() {
  const s = [...document.querySelectorAll("script[src]")].map((e) => /** @type {HTMLScriptElement} */ (e).src)
    .find((u) => u.includes("/static/js/"));
  return s ? s.slice(0, s.indexOf("/static/js/") + 1) : new URL("./", document.baseURI).href;
}

/**
 * The Step button, or null.
 * @param {Dom} dom
 * @returns {HTMLButtonElement | null}
 */
export function stepButton(dom) {
  return document.querySelector(keyed(dom.step) + " button");
}

/**
 * Whether `target` (an event's) is the Step button or inside it.
 * @param {Dom} dom
 * @param {EventTarget | null} target
 */
export function isStepButton(dom, target) {
  const el = /** @type {Element | null} */ (target);
  return !!(el && el.closest && el.closest(keyed(dom.step) + " button"));
}

/**
 * The sidebar's slider labelled `label` (the λ slider), or null.
 * @param {string} label
 * @returns {HTMLInputElement | null}
 */
export function sidebarSlider(label) {
  return /** @type {HTMLInputElement | null} */ ([...document.querySelectorAll('[data-testid="stSidebar"] input[type=range]')]
    .find((e) => e.getAttribute("aria-label") === label) || null);
}

/**
 * Whether `target` is `slider` or inside the same Streamlit slider widget.
 * @param {HTMLInputElement} slider
 * @param {EventTarget | null} target
 */
export function withinSlider(slider, target) {
  const el = /** @type {Element | null} */ (target);
  if (!el) return false;
  return el === slider || !!(el.closest && el.closest('[data-testid="stSlider"]') === slider.closest('[data-testid="stSlider"]'));
}

/**
 * The value a slider shows (its text: Streamlit's slider formats it).
 * @param {HTMLInputElement} slider
 */
export function sliderText(slider) {
  return slider.getAttribute("aria-valuetext");
}

/** The app's root (null before Streamlit has drawn it). */
function appRoot() {
  return document.querySelector('[data-testid="stApp"]');
}

/**
 * Whether a script run is going on: null when that cannot be told (no app root yet).
 * @returns {boolean | null}
 */
export function scriptRunning() {
  const app = appRoot();
  if (!app) return null;
  const state = app.getAttribute("data-test-script-state");
  return !!state && state !== "notRunning";
}

/**
 * Calls `onChange(running)` whenever a script run starts or ends; true once it watches.
 * @param {(running: boolean) => void} onChange
 * @returns {boolean}
 */
export function watchScriptRuns(onChange) {
  const app = appRoot();
  if (!app || typeof MutationObserver === "undefined") return false;
  new MutationObserver(() => {
    const now = app.getAttribute("data-test-script-state");
    onChange(!!now && now !== "notRunning");
  }).observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
  return true;
}

/**
 * The lower panels' fragment around `el` (what must be in view for them to be drawn), else `el`.
 * @param {Dom} dom
 * @param {HTMLElement} el
 * @returns {HTMLElement}
 */
export function lowerFragment(dom, el) {
  return /** @type {HTMLElement} */ ((el.closest && el.closest(`[class*="st-key-${dom.lower}"]`)) || el);
}

/**
 * @typedef {{el: Element, label: Element | null, value: Element | null, delta: Element | null}} MetricParts
 */

/**
 * @param {Element} m an st.metric
 * @returns {MetricParts}
 */
function parts(m) {
  return { el: m, label: m.querySelector('[data-testid="stMetricLabel"] p'),
    value: m.querySelector('[data-testid="stMetricValue"] p'),
    delta: m.querySelector('[data-testid="stMetricDelta"] p') };
}

/**
 * Whether the arrow Streamlit drew in a metric's delta (its icon's data-testid, stMetricDeltaIcon-Up or -Down)
 * points the way of the sign of `text` ("+9.3 pts …" up, "-3.0 pts …" or "−3.0 …" down; no sign: no arrow).
 * The player rewrites a delta's text with another iteration's; where this is false the arrow and colour
 * Streamlit drew for the old text contradict the new one.
 * @param {Element} delta the metric's stMetricDelta element
 * @param {string} text
 * @returns {boolean}
 */
export function deltaArrowAgrees(delta, text) {
  const icon = delta.querySelector('[data-testid^="stMetricDeltaIcon-"]');
  const drawn = icon ? (icon.getAttribute("data-testid") || "").replace("stMetricDeltaIcon-", "") : "";
  const t = String(text).trim();
  const sign = /^\+/.test(t) ? "Up" : /^[-\u2212]/.test(t) ? "Down" : "";
  return drawn === sign;
}

/**
 * The st.metric whose label starts with `prefix`, as its parts, or null.
 * @param {string} prefix
 * @returns {MetricParts | null}
 */
export function metricByLabel(prefix) {
  const m = [...document.querySelectorAll('[data-testid="stMetric"]')].find((e) => {
    const p = e.querySelector('[data-testid="stMetricLabel"] p');
    return p && (p.textContent || "").trim().startsWith(prefix);
  });
  return m ? parts(m) : null;
}

/**
 * The container drawn for key `key`, or null.
 * @param {string} key
 * @returns {HTMLElement | null}
 */
export function container(key) {
  return document.querySelector(keyed(key));
}

/**
 * The metrics inside the container `box`, as their parts.
 * @param {Element} box
 * @returns {MetricParts[]}
 */
export function metricsIn(box) {
  return [...box.querySelectorAll('[data-testid="stMetric"]')].map(parts);
}

/**
 * The paragraph of a markdown text inside the container `box` (the status line), or null.
 * @param {Element | null} box
 * @returns {HTMLElement | null}
 */
export function markdownParagraph(box) {
  return box && box.querySelector('[data-testid="stMarkdownContainer"] p');
}

/**
 * The text element of a caption inside the container `box`, or null.
 * @param {Element | null} box
 * @returns {HTMLElement | null}
 */
export function captionText(box) {
  return box && box.querySelector("p");
}
