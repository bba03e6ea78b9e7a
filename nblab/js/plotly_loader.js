// @ts-check
// plotly.js, loaded once per page: the one loader of the lab page (nblab/js/boot.js: plotly.js inlined in
// the page as gzip + base64), the app's lesson player (dashboard/lesson/player/) and its lean charts
// (dashboard/pagekit/lean_chart.js: both fetch the app's gzipped build, falling back to Streamlit's chunk).
//
// plotly.js is a classic script that sets window.Plotly. A gzipped build is unpacked here
// (DecompressionStream: Chrome 80+, Firefox 113+, Safari 16.4+) and run from a blob URL.

/**
 * Where the app's browser code loads plotly.js from (dashboard/lesson/player/__init__.py: plotly_sources):
 * `bundle` the app's own gzipped build (a URL relative to Streamlit's base, or null when it cannot be
 * served), `chunk` Streamlit's own plotly.js chunk (the fallback).
 * @typedef {{bundle?: string | null, chunk?: string | null}} PlotlySources
 */

/**
 * plotly.js and where it came from: "bundle" (the app's build), "chunk" (Streamlit's) or "page" (already there).
 * @typedef {{Plotly: any, source: string}} PlotlyLoaded
 */

/** @returns {any} the page's window, typed loosely (the globals read here are plotly.js's own) */
function win() {
  return /** @type {any} */ (window);
}

/**
 * Run `url` as a classic script, resolved with window.Plotly once it has run.
 * An AMD loader on the page (window.define) would take plotly.js's UMD wrapper: it is hidden meanwhile.
 * @param {string} url
 * @param {boolean} [module] load it as a module script (Streamlit's chunk is one)
 * @returns {Promise<any>}
 */
export function fromScriptUrl(url, module = false) {
  const w = win();
  const define = w.define;
  if (!module) w.define = undefined;
  return new Promise((resolve, reject) => {
    const el = document.createElement("script");
    if (module) el.type = "module";
    el.src = url;
    el.async = true;
    el.onload = () => (w.Plotly ? resolve(w.Plotly) : reject(new Error("plotly.js did not define window.Plotly")));
    el.onerror = () => { el.remove(); reject(new Error("could not load " + url)); };
    document.head.appendChild(el);
  }).finally(() => { if (!module && define !== undefined) w.define = define; });
}

/**
 * A gzip stream of plotly.js → plotly.js run as a script.
 * @param {ReadableStream<Uint8Array>} stream
 * @returns {Promise<any>}
 */
export function fromGzipStream(stream) {
  if (typeof DecompressionStream === "undefined") {
    return Promise.reject(new Error("this browser cannot unpack the charts' code (no DecompressionStream: "
      + "Chrome 80+, Firefox 113+, Safari 16.4+)"));
  }
  const gunzip = /** @type {TransformStream<Uint8Array, Uint8Array>} */ (/** @type {unknown} */ (new DecompressionStream("gzip")));
  return new Response(stream.pipeThrough(gunzip)).blob().then((js) => {
    const src = URL.createObjectURL(new Blob([js], { type: "text/javascript" }));
    return fromScriptUrl(src).finally(() => URL.revokeObjectURL(src));
  });
}

/**
 * plotly.js gzipped at `url` (the app's build, served as it is on disk).
 * @param {string} url
 * @returns {Promise<any>}
 */
export function fromGzipUrl(url) {
  if (typeof DecompressionStream === "undefined") return Promise.reject(new Error("no DecompressionStream"));
  return fetch(url).then((r) => {
    if (!r.ok || !r.body) throw new Error(`${url}: HTTP ${r.status}`);
    return fromGzipStream(r.body);
  });
}

/**
 * plotly.js gzipped and base64-encoded (the lab page carries it in a script block).
 * @param {string} b64
 * @returns {Promise<any>}
 */
export function fromGzipBase64(b64) {
  const bin = atob(b64), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return fromGzipStream(new Blob([bytes]).stream());
}

/**
 * plotly.js for the app's browser code, loaded once per page (the promise is kept on window, so every
 * component's copy of this module shares it): plotly.js already on the page is used as it is; otherwise
 * the app's build (`src.bundle`), falling back to Streamlit's chunk (`src.chunk`) when the build cannot be
 * fetched or unpacked. URLs are relative to `base` (Streamlit's root). A failed load is tried again next call.
 * @param {PlotlySources} src
 * @param {string} base
 * @returns {Promise<PlotlyLoaded>}
 */
export function loadPlotly(src, base) {
  const w = win();
  if (w.__nbemPlotly) return Promise.resolve(w.__nbemPlotly);
  if (!w.__nbemPlotlyLoading) {
    const chunk = () => (src.chunk ? fromScriptUrl(new URL(src.chunk, base).href, true)
      : Promise.reject(new Error("no plotly.js to load"))).then((pl) => ({ Plotly: pl, source: "chunk" }));
    /** @type {Promise<PlotlyLoaded>} */
    const from = w.Plotly ? Promise.resolve({ Plotly: w.Plotly, source: "page" })
      : src.bundle ? fromGzipUrl(new URL(src.bundle, base).href).then((pl) => ({ Plotly: pl, source: "bundle" }))
        .catch(chunk)
      : chunk();
    w.__nbemPlotlyLoading = from.then((got) => { w.__nbemPlotly = got; return got; });
    w.__nbemPlotlyLoading.catch(() => { w.__nbemPlotlyLoading = null; });
  }
  return w.__nbemPlotlyLoading;
}
