// @ts-check
// A chart of dashboard/pagekit/figures.py:show_chart, drawn in the browser with the app's own plotly.js build
// (dashboard/static/plotly-nbem.min.js.gz: scatter, bar and heatmap; 1.2 MB, evaluated in ~0.14 s) instead
// of st.plotly_chart's 4.7 MB chunk (~0.9 s of a fresh tab's main thread). The lesson player loads the
// same build through the same loader (nblab/js/plotly_loader.js: once per page, whichever asks first). When
// the build cannot be fetched or unpacked, Streamlit's own chunk is loaded instead (the file st.plotly_chart loads).
//
// data (one JSON text): {spec: {data, layout}, config, height, plotly: {bundle, chunk}}
// The graph div carries data-testid="stPlotlyChart"'s inner structure: .js-plotly-plot, like
// st.plotly_chart's, so what finds a chart on the page (accessibility script, tests) finds these too.

import { loadPlotly } from "../../nblab/js/plotly_loader.js";
import { streamlitBase } from "../lesson/player/js/bridge.js";

/**
 * Draws `component.data` (one JSON text, above) into the component's element.
 * @param {{parentElement: any, data: any}} component
 */
export default function draw(component) {
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
  let gone = false, ro = /** @type {ResizeObserver | null} */ (null);
  loadPlotly(data.plotly, streamlitBase()).then(({ Plotly }) => {
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
