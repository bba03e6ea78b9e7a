// The lesson program in a Streamlit page (a components-v2 element; dashboard/lesson/program.py mounts it):
// the lab's own page (boot.js) over a served run (served.js), its iterations computed by nbcore on the server.
//
// Streamlit calls the default export with { data, setStateValue, parentElement } whenever the server sends
// new data. The data is nblab/served.py's answer plus what the page needs once per run:
//   { format: "nblab-served/1", serial, first, records, latest, done, error,
//     dataKey, labData (only when the browser does not hold dataKey's data yet), cfg, settings, t,
//     notice: [kind, text] | null, plotly: { bundle, chunk }, lang (the app's language: the page's texts) }
// The browser writes its ask (state "ask": nblab/served.py) back; every ask reruns the element's fragment.
// The page lives on the element (parentElement.__nblesson) from one call to the next: a new answer only
// delivers records, settings and notices to it.

import { start } from "./boot.js";
import { servedEngine } from "./served.js";
import { mountServed } from "./page_served.js";
import { loadPlotly } from "./plotly_loader.js";

//: the settings that only change how the page looks
const VIEW = ["speed", "classroom"];

/** Streamlit's root URL (where its static files are), for the app's plotly.js build. */
function streamlitBase() {
  const s = [...document.querySelectorAll("script[src]")].map((e) => e.src).find((u) => u.includes("/static/js/"));
  return s ? s.slice(0, s.indexOf("/static/js/") + 1) : new URL("./", document.baseURI).href;
}

function plotlyFrom(src) {
  return loadPlotly(src || {}, streamlitBase()).then((got) => got.Plotly);
}

/** A new page for the answer's run (a new serial): the lab over a served run from the answer's θ_0. */
function startPage(E, d) {
  E.root.textContent = "";
  const host = {
    keysOn: E.keys,
    onView: () => { if (E.G && E.G.served) E.G.served.ask(); },
  };
  const settings = Object.assign({}, d.settings, { t: 0 });
  const G = start(E.root, { data: E.labData, cfg: d.cfg, hash: false, host, settings, lang: d.lang,
    engine: servedEngine(d.first), plotlyLoading: plotlyFrom(d.plotly) });
  if (!G || !G.lab) return null;
  G.served = mountServed(G, { ask: (a) => E.setStateValue("ask", Object.assign({ dataKey: E.dataKey }, a)) }, d.serial);
  if (d.notice) { G.lab.notice = { kind: d.notice[0], text: d.notice[1] }; }
  // a run the server already took further (a link's t=, a reload): its iterations are the page's at once
  G.lab.run.deliver(d.records || []);
  G.lab.run.adoptAll();
  G.lab.scored();
  G.lab.show(d.t ?? G.lab.latest);
  G.render(true);
  return G;
}

/** What changed in the server's settings: the page applies it as the lab does a control's change. */
function applySettings(G, next) {
  const patch = {};
  for (const [k, v] of Object.entries(next)) if (k !== "t" && G.settings[k] !== v) patch[k] = v;
  if (!Object.keys(patch).length) return;
  if (Object.keys(patch).some((k) => !VIEW.includes(k))) G.lab.run.adoptAll();   // EM continues from the server's latest
  G.change(patch, "host");
}

function receive(E, d) {
  if (!d || d.format !== "nblab-served/1") return;
  if (d.labData) { E.labData = d.labData; E.dataKey = d.dataKey; }
  if (!E.labData || E.dataKey !== d.dataKey) {   // the data is on its way (the ask names the key the page holds)
    E.setStateValue("ask", { dataKey: E.dataKey || null, serial: -1, have: -1, target: 0, resets: 0 });
    return;
  }
  if (!E.G || E.G.served.serial !== d.serial) {
    if (E.G && E.G.api) E.G.api.destroy();
    E.G = startPage(E, d);
    if (E.G) E.G.served.ask(true);
    return;
  }
  const G = E.G;
  // the app's language changed (its sidebar's picker): the page's texts drawn again in it, the run kept
  if (d.lang && d.lang !== G.settings.lang) G.page.setLang(d.lang, false);
  applySettings(G, d.settings);
  G.served.deliver(d.records);
  if (d.error) { G.lab.error = String(d.error); G.render(true); }   // the server could not compute: said under the buttons
}

export default function mount(component) {
  const { parentElement, setStateValue } = component;
  const data = typeof component.data === "string" ? JSON.parse(component.data) : component.data;
  let E = parentElement.__nblesson;
  if (!E) {
    const keys = document.createElement("div");
    keys.className = "nblab-lesson";
    keys.tabIndex = -1;
    const root = document.createElement("div");
    root.className = "lab-root lab-hosted";
    keys.append(root);
    parentElement.append(keys);
    E = parentElement.__nblesson = { root, keys, G: null, labData: null, dataKey: null, setStateValue };
    window.__nblabLesson = E;
  }
  E.setStateValue = setStateValue;
  try {
    receive(E, data);
  } catch (e) {
    console.error(e);
    E.root.textContent = "";
    const box = document.createElement("div");
    box.className = "lab-notice lab-error";
    box.setAttribute("role", "alert");
    box.textContent = `The lesson could not be drawn here: ${e && e.message ? e.message : e}`;
    E.root.append(box);
  }
}
