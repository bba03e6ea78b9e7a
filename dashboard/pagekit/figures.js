// Gives a chart drawn by dashboard/pagekit/figures.py:show_chart its accessible name and description.
// The chart's container (st.container(key=...): class st-key-<box>) becomes role="figure" with the
// chart's name as aria-label and the visible summary under the chart as aria-describedby; plotly's SVG
// is hidden from screen readers (its words are in the name, the summary and the "Data as a table"
// expander). Streamlit and plotly redraw inside the container on reruns: a MutationObserver puts the
// attributes back. The name is data (it may hold a class or data-set name): set with setAttribute only.
function apply(box, name, sumId) {
  if (box.getAttribute("role") !== "figure") box.setAttribute("role", "figure");
  if (box.getAttribute("aria-label") !== name) box.setAttribute("aria-label", name);
  const sum = box.querySelector('[data-testid="stText"]');   // the first text in the box: the summary
  if (sum) {
    if (sum.id !== sumId) sum.id = sumId;
    if (box.getAttribute("aria-describedby") !== sumId) box.setAttribute("aria-describedby", sumId);
  }
  for (const svg of box.querySelectorAll(".js-plotly-plot svg")) {
    if (svg.getAttribute("aria-hidden") !== "true") svg.setAttribute("aria-hidden", "true");
  }
}

export default function (component) {
  const { data, parentElement } = component;
  if (!data || !data.box) return;
  const sel = "." + CSS.escape("st-key-" + data.box);
  const name = String(data.name || "");
  const sumId = "nbfig-summary-" + data.box;
  let observer = null, frame = 0, gone = false;
  const t0 = performance.now();
  // the script may run before its element is in the page: look for the container until it is (10 s at most)
  const attach = () => {
    if (gone) return;
    const box = parentElement.closest(sel) || document.querySelector(sel);
    if (!box) {
      if (performance.now() - t0 < 10000) frame = requestAnimationFrame(attach);
      return;
    }
    apply(box, name, sumId);
    let queued = false;
    observer = new MutationObserver(() => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; apply(box, name, sumId); });
    });
    observer.observe(box, { childList: true, subtree: true });
  };
  attach();
  return () => { gone = true; cancelAnimationFrame(frame); if (observer) observer.disconnect(); };
}
