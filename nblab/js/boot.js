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
// fails), and with cfg.follow the page follows the teacher's state (follow.js; page_follow.js).
//
// This module starts the page; the rest is in the page_*.js modules: page_skeleton.js (the page's parts),
// page_actions.js (what the student does, the keys, the link, the host's api), page_draw.js and
// page_numbers.js (the drawing), page_panels.js (the panels below), page_follow.js (following the teacher) and
// page_lang.js (the language picker, the page drawn again in another language).

import * as State from "./state.js";
import * as I18n from "./i18n.js";
import { Lab } from "./lab.js";
import { mountCharts } from "./charts.js";
import { el, cleanData } from "./dom.js";
import { fromGzipBase64 } from "./plotly_loader.js";
import { BUSY_TRIES, busyDelay } from "./busy.js";
import { wireEvents } from "./page_actions.js";
import { render, drawCharts, drawLinkNotice, drawAbout } from "./page_draw.js";
import { mountPanels } from "./page_panels.js";
import { mountFollow } from "./page_follow.js";
import { restoreLink } from "./page_catchup.js";
import { buildPage, markLang, setPageLang, storedLang, storeLang } from "./page_lang.js";

export { PANEL_SLOTS } from "./page_skeleton.js";

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

const mark = (G, k) => { G.marks[k] = performance.now() - G.t0; };

/**
 * The page's state G (window.__nblab): the data, the settings (the link's, read through the schema), the
 * timings, and G.page, what the page's modules share (the root, the host, whether the fragment is the lab's,
 * the frame request pending, whether the page is replaying the teacher's moves).
 */
function pageState(root, opts) {
  const read = (id) => JSON.parse(document.getElementById(id).textContent);
  const t0 = performance.now();
  const data = cleanData(opts.data || read("nblab-data"));   // its strings without bidi controls (dom.js)
  const cfg = cleanData(opts.cfg || read("nblab-config"));
  const useHash = opts.hash !== false;
  // the language without a link's: on a page of its own, the one this tab's session chose, else the browser's
  // when it is one of ours, else English; in a host (the app's lesson, the notebook widget) the host's
  // (opts.lang), English until the host has a choice
  const nav = typeof navigator !== "undefined" ? (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]) : [];
  const table = State.schema(Object.assign({}, cfg, { lang: opts.lang ? I18n.pick(opts.lang) : useHash ? I18n.startLang(storedLang(), nav) : I18n.DEFAULT_LANG }));
  const parsed = State.parseFragment(useHash ? location.hash : "", table);
  // a language the link chose is the reader's choice for the session too
  if (useHash && parsed.given.includes("lang")) storeLang(parsed.settings.lang);
  // a host that owns the settings (the app's sidebar) passes them as they are
  if (opts.settings) parsed.settings = Object.assign({}, parsed.settings, opts.settings);
  // every text the page writes from here on is in this language; screen readers are told it
  I18n.setLang(parsed.settings.lang);
  const reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  const G = { data, cfg, table, settings: parsed.settings, urlNotices: parsed.notices.slice(), playing: false, dragging: false,
    converging: false, lastStep: 0, frames: 0, panelsAt: 0, chartsAt: 0, panelQueue: [], panelTimer: null, idleWaiters: [], drawnKey: null, Plotly: null, panels: [], t0, firstChart: null,
    reducedMotion: () => !!(reduced && reduced.matches) };
  window.__nblab = G;
  G.marks = { start: t0 };
  G.stats = { draw: 0, panels: {} };
  G.page = { root, host: opts.host || {}, useHash, name: "", rafPending: false, rafForce: false, applying: false,
    engine: opts.engine || null, setLang: (l, chosen) => setPageLang(G, l, chosen) };
  markLang(G, I18n.lang());
  return G;
}

/**
 * Build the lab in `root` and start it. A page (nblab/page.py) passes nothing: the data, the settings and
 * plotly.js are read from its script blocks and the settings follow the URL's fragment. A host that holds
 * the page (the notebook widget) passes `opts`: { data, cfg, plotly (base64 gzip), hash: false (the
 * fragment is not the lab's), settings (the host's settings, over the defaults), engine (the run's engine:
 * served.js's servedEngine when a server computes the iterations), plotlyLoading (a promise of plotly.js),
 * lang (the page's language, one of i18n.js's LANGS: English when not given),
 * host: { keysOn (the element whose keys drive the lab), onView(v) (told
 * { t, latest, playing, settings } when the page settles) } }. Returns the page's state; `G.api` is what
 * a host drives (step, halves, play, pause, reset, converge, go to t).
 */
export function start(root, opts = {}) {
  const G = pageState(root, opts);
  const { data, cfg } = G;
  G.page.name = String(data.name || data.dataset || cfg.datasets[0] || "");
  const grid = buildPage(G, root);

  // ---- the run (plotly.js unpacks meanwhile: its gzip stream runs off the main thread) ----
  // the one-file page inlines plotly.js; a served page loads it with a script of its own (window.Plotly)
  const plotlyEl = document.getElementById("nblab-plotly");
  const plotlyLoading = opts.plotlyLoading || loadPlotly(opts.plotly || (plotlyEl ? plotlyEl.textContent.trim() : ""));
  plotlyLoading.catch(() => {});
  mark(G, "skeleton");
  if (!startRun(G, grid)) return G;
  mark(G, "drawn");
  G.plotlyReady = whenPlotly(G, plotlyLoading, grid);
  wireEvents(G);
  if (cfg.follow && typeof cfg.follow === "object" && opts.follow !== false && typeof fetch === "function") mountFollow(G);
  return G;
}

/** The run (G.lab) at the link's iteration, its charts mounted and the page drawn; false (said) if it cannot start. */
function startRun(G, grid) {
  try {
    G.lab = G.page.engine ? new Lab(G.data, G.settings, G.page.engine) : new Lab(G.data, G.settings);
    mark(G, "lab");
  } catch (e) {
    G.errorBox.hidden = false;
    G.errorBox.textContent = `Can't start a run with these settings: ${e && e.message ? e.message : e}`;
    console.error(e);
    return false;
  }
  // the link's iteration: a long way there goes on a slice at a time, the page drawn meanwhile (page_catchup.js)
  if (G.settings.t > 0) restoreLink(G, G.settings.t);
  if (!G.job) G.settings.t = G.lab.t;
  const cfg = G.cfg;
  G.chartCtx = { Plotly: null, template: cfg.template && (cfg.template.layout || cfg.template.data) ? cfg.template : null,
    reducedMotion: G.reducedMotion, classroom: () => !!G.settings.classroom };
  G.charts = mountCharts(grid, G.chartCtx);
  drawAbout(G);
  drawLinkNotice(G);
  render(G);
  // ms from navigation start to the page's first frame with its controls live (the benchmark reads it)
  requestAnimationFrame(() => { if (!G.usableAt) G.usableAt = performance.now(); });
  return true;
}

/** Once plotly.js is there: the panels, then the charts (G.ready); a page without it says so above the charts. */
function whenPlotly(G, plotlyLoading, grid) {
  return plotlyLoading.then((P) => {
    mark(G, "plotly");
    G.Plotly = P;
    G.chartCtx.Plotly = P;
    mountPanels(G, () => render(G, true));
    mark(G, "panels");
    // G.firstChart: ms from navigation start to the first chart drawn
    // ready: the charts drawn and no computation going on (a link's t= may still be on its way)
    return drawCharts(G, true).then(() => { G.firstChart = G.charts.first; G.chartsReady = true; G.ready = !G.job; });
  }).catch((e) => {
    G.error.hidden = false;
    G.error.textContent = "The charts could not load here: " + (e && e.message ? e.message : e) + ". The numbers above still follow the run.";
    grid.before(G.error);
    G.chartsReady = true;
    G.ready = !G.job;
    console.error(e);
  });
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

/** Fetch the data of cfg.dataUrl ("Loading the data…" meanwhile) and start. A server busy with many
 * students (429, or 503 with Retry-After) is asked again by itself after the wait it gives, up to
 * BUSY_TRIES times, the page saying so; any other failure is said in the page with a "Try again" button. */
export function loadAndStart(root, cfg, tries = 0) {
  root.textContent = "";
  root.setAttribute("aria-busy", "true");
  const title = () => el("h1", { class: "lab-load-title", text: String(cfg.title || "Naive Bayes + EM lab") });
  const loading = el("p", { class: "lab-loading", role: "status", "aria-live": "polite", text: "Loading the data…" });
  root.append(el("main", { class: "lab-main" }, title(), loading));
  return fetchData(cfg.dataUrl).then((data) => {
    root.removeAttribute("aria-busy");
    return start(root, { data, cfg });
  }, (e) => {
    if (e && typeof e === "object" && typeof e.busy === "number" && tries < BUSY_TRIES) {
      const s = Math.ceil(e.busy / 1000);
      loading.textContent = `The server is busy with many students at once: trying again in ${s} s…`;
      window.__nblabLoad = { busy: tries + 1, waitMs: e.busy };
      return new Promise((resolve) => setTimeout(resolve, e.busy)).then(() => loadAndStart(root, cfg, tries + 1));
    }
    if (e && typeof e === "object" && typeof e.busy === "number") e = e.why;
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
    const busy = busyDelay(res.status, res.headers.get("Retry-After"), Math.random());
    if (busy !== null) {
      throw { busy, why: `The server is busy with many students at once (it answered ${res.status}). Try again in a moment.` };
    }
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
