// @ts-check
// plotly.js loaded while a chart page waits for its first script run.
//
// A chart page's charts are drawn by components (dashboard/pagekit/lean_chart.js, the lesson player) that mount
// only once Streamlit has drawn the elements above them: ~1 s after the page's first element on a fresh tab.
// Only then did they fetch and evaluate plotly.js (~0.25 s of main thread) and draw their first chart
// (plotly's one-time set-up, ~0.1 s more). Until the first script run's elements arrive the page's main thread
// is mostly idle, so dashboard/serve/early.py puts this module in a chart page's HTML: it loads plotly.js
// through the same loader (nblab/js/plotly_loader.js: once per page, the components then find it loaded)
// when the main thread is idle, and draws one tiny chart off screen to do plotly's set-up there.
//
// The script element carries where plotly.js comes from: data-nbem-plotly='{"bundle": …, "chunk": …}'.
// Each stage leaves a performance mark (nbem-early-start, -idle, -loaded, -warm): what the browser tests and
// a profile of a page's first open read.

import { loadPlotly } from "../../nblab/js/plotly_loader.js";
import { streamlitBase } from "../lesson/player/js/bridge.js";

export const ATTR = "data-nbem-plotly";

/**
 * Where plotly.js comes from, read from the script element that loaded this module; null when there is none
 * or its value is not a JSON object.
 * @param {Document} doc
 * @returns {import("../../nblab/js/plotly_loader.js").PlotlySources | null}
 */
export function sourcesFrom(doc) {
  const el = doc.querySelector(`script[${ATTR}]`);
  if (!el) return null;
  try {
    const v = JSON.parse(el.getAttribute(ATTR) || "");
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch (e) {
    return null;
  }
}

/**
 * Draws a one-point chart in a hidden box and removes it: plotly's first drawing on a page sets up what
 * every later one reuses (its style sheet, font measurement).
 * @param {any} Plotly
 * @param {Document} doc
 * @returns {Promise<void>}
 */
export function warmUp(Plotly, doc) {
  const box = doc.createElement("div");
  box.setAttribute("aria-hidden", "true");
  box.style.cssText = "position:absolute;left:-10000px;top:0;width:320px;height:200px;visibility:hidden";
  doc.body.appendChild(box);
  return Promise.resolve(Plotly.newPlot(box, [{ type: "scatter", x: [0], y: [0] }],
    { width: 320, height: 200, title: { text: " " } }, { staticPlot: true }))
    .finally(() => { try { Plotly.purge(box); } catch (e) { /* nothing to undo */ } box.remove(); });
}

/**
 * Loads plotly.js when the main thread is next idle (at the latest after `timeout` ms), then warms it up.
 * A failure is left to the charts: they load plotly.js themselves and say so when they cannot.
 * @param {import("../../nblab/js/plotly_loader.js").PlotlySources} sources
 * @param {string} base Streamlit's root URL
 * @param {number} [timeout]
 * @returns {Promise<void>}
 */
export function preload(sources, base, timeout = 1500) {
  const w = /** @type {any} */ (window);
  const idle = (/** @type {() => void} */ f) => (typeof w.requestIdleCallback === "function"
    ? w.requestIdleCallback(f, { timeout }) : setTimeout(f, 50));
  const mark = (/** @type {string} */ m) => { try { performance.mark("nbem-early-" + m); } catch (e) { /* old browser */ } };
  mark("start");
  return new Promise((resolve) => idle(() => resolve(undefined)))
    .then(() => { mark("idle"); return loadPlotly(sources, base); })
    .then(({ Plotly }) => { mark("loaded"); return new Promise((resolve) => idle(() => resolve(warmUp(Plotly, document)))); })
    .then(() => mark("warm"))
    .catch((e) => { console.warn("plotly.js could not be loaded early:", e); });
}

if (typeof document !== "undefined") {
  const sources = sourcesFrom(document);
  if (sources) preload(sources, streamlitBase());
}
