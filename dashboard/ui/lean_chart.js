// A chart of dashboard/ui/figures.py:show_chart, drawn in the browser with the app's own plotly.js build
// (dashboard/static/plotly-nbem.min.js.gz: scatter, bar and heatmap; 1.2 MB, evaluated in ~0.14 s) instead
// of st.plotly_chart's 4.7 MB chunk (~0.9 s of a fresh tab's main thread). The lesson player loads the
// same build; whichever comes first sets window.Plotly and the other uses it. When the build cannot be
// fetched or unpacked, Streamlit's own chunk is loaded instead (the same file st.plotly_chart loads).
//
// data (one JSON text): {spec: {data, layout}, config, height, plotly: {bundle, chunk}}
// The graph div carries data-testid="stPlotlyChart"'s inner structure: .js-plotly-plot, like
// st.plotly_chart's, so what finds a chart on the page (accessibility script, tests) finds these too.
let loading = null;
function base() {
  const s = [...document.querySelectorAll("script[src]")].map((e) => e.src).find((u) => u.includes("/static/js/"));
  return s ? s.slice(0, s.indexOf("/static/js/") + 1) : new URL("./", document.baseURI).href;
}
function fromScript(url) {
  return new Promise((resolve, reject) => {
    const el = document.createElement("script");
    el.src = url;
    el.async = true;
    el.onload = () => (window.Plotly ? resolve(window.Plotly) : reject(new Error("no window.Plotly")));
    el.onerror = () => { el.remove(); reject(new Error("could not load " + url)); };
    document.head.appendChild(el);
  });
}
function fromGzip(url) {
  if (typeof DecompressionStream === "undefined") return Promise.reject(new Error("no DecompressionStream"));
  return fetch(url).then((r) => {
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).blob();
  }).then((js) => {
    const src = URL.createObjectURL(new Blob([js], { type: "text/javascript" }));
    return fromScript(src).finally(() => URL.revokeObjectURL(src));
  });
}
function fromChunk(path) {
  return import(new URL(path, base()).href).then(() => {
    if (!window.Plotly) throw new Error("plotly.js did not define window.Plotly");
    return window.Plotly;
  });
}
function plotly(src) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  // one load per page, shared with the lesson player (it looks for window.Plotly first)
  if (!window.__nbemPlotlyLoading) {
    window.__nbemPlotlyLoading = (src.bundle ? fromGzip(new URL(src.bundle, base()).href).catch(() => fromChunk(src.chunk))
      : fromChunk(src.chunk));
    window.__nbemPlotlyLoading.catch(() => { window.__nbemPlotlyLoading = null; });
  }
  return window.__nbemPlotlyLoading;
}

export default function (component) {
  const { parentElement } = component;
  const data = typeof component.data === "string" ? JSON.parse(component.data) : component.data;
  if (!data || !data.spec) return;
  let box = parentElement.__nbChart;
  if (!box) {
    box = document.createElement("div");
    box.className = "nb-lean-chart";
    box.setAttribute("data-testid", "stPlotlyChart");
    box.style.width = "100%";
    const gd = document.createElement("div");
    box.appendChild(gd);
    parentElement.appendChild(box);
    box.gd = gd;
    parentElement.__nbChart = box;
  }
  const gd = box.gd;
  gd.style.height = (data.height || 450) + "px";
  gd.style.width = "100%";
  let gone = false, ro = null;
  plotly(data.plotly).then((Plotly) => {
    if (gone) return;
    const layout = Object.assign({}, data.spec.layout || {});
    delete layout.width;   // the chart takes its column's width, as st.plotly_chart does
    const config = Object.assign({ displaylogo: false, responsive: true }, data.config || {});
    return Plotly.react(gd, data.spec.data || [], layout, config).then(() => {
      if (gone || typeof ResizeObserver === "undefined") return;
      let w = gd.clientWidth;
      ro = new ResizeObserver(() => {
        if (gd.clientWidth !== w && gd._fullLayout) { w = gd.clientWidth; Plotly.Plots.resize(gd); }
      });
      ro.observe(box);
    });
  }).catch((e) => {
    const note = document.createElement("div");
    note.textContent = "This chart could not be drawn here (" + String(e && e.message ? e.message : e) + ").";
    box.replaceChildren(note);
  });
  return () => { gone = true; if (ro) ro.disconnect(); };
}
