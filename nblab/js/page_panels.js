// The panels below the charts (panels/*.js): mounted once plotly.js is there, and redrawn one per task, only
// when the run they show changed and only while they are on screen (or near it).

import { PANELS } from "./panels/registry.js";
import { el } from "./dom.js";

/** The panels' shared context: plotly.js, the template, the data, a small event bus and refresh(). */
function panelContext(G, refresh) {
  const bus = new Map();
  return { Plotly: G.Plotly, template: G.cfg.template, data: G.data,
    on: (ev, fn) => { if (!bus.has(ev)) bus.set(ev, []); bus.get(ev).push(fn); },
    emit: (ev, payload) => { for (const fn of bus.get(ev) || []) try { fn(payload); } catch (e) { console.error(e); } },
    refresh };
}

/** An observer that marks a panel visible near the screen and queues it when it is stale (null without one). */
function visibility(G) {
  if (typeof IntersectionObserver === "undefined") return null;
  return new IntersectionObserver((entries) => {
    for (const e of entries) {
      const p = G.panels.find((q) => q.el === e.target);
      if (!p) continue;
      p.visible = e.isIntersecting;
      if (p.visible && p.stale && !G.panelQueue.includes(p)) { G.panelQueue.push(p); pumpPanels(G); }
    }
  }, { rootMargin: "300px 0px 300px 0px" });
}

/** Mount every panel present in its slot (G.panels); `refresh()` redraws the page (a panel's own change). */
export function mountPanels(G, refresh) {
  const ctx = panelContext(G, refresh);
  const seen = visibility(G);
  for (const [pname, mod] of PANELS) {
    const slot = G.slots[pname] || (G.slots[pname] = el("section", { id: `lab-panel-${pname}`, class: "lab-panel", "data-panel": pname }));
    if (!slot.parentNode) G.slots.params.parentNode.append(slot);
    slot.hidden = false;
    try {
      const inst = mod.mount(slot, ctx);
      const p = { name: pname, el: slot, inst, visible: !seen, stale: true, key: null };
      G.panels.push(p);
      if (seen) seen.observe(slot);
    } catch (e) {
      console.error(`panel ${pname}:`, e);
      slot.textContent = "";
      slot.append(el("p", { class: "lab-caption", text: `“${mod.TITLE || pname}” could not start here.` }));
    }
  }
}

// The panels are redrawn one per task (each can take tens of ms): a frame, a key press or a control
// change waiting behind them waits for one panel at most, not for all of them.
export function drawPanels(G) {
  // the run's current λ too: a λ changed before the next Step changes what that step would do (the climb panel)
  const key = `${G.lab.serial}|${G.lab.latest}|${G.lab.t}|${G.lab.half}|${G.settings.classroom}|${G.lab.run.history[G.lab.latest].lam}`
    + `|${G.lab.run.lam}|${G.lab.playing}`;
  for (const p of G.panels) {
    if (p.key === key && !p.stale) continue;
    p.key = key;
    p.stale = true;
    if (p.visible && !G.panelQueue.includes(p)) G.panelQueue.push(p);
  }
  pumpPanels(G);
}

function pumpPanels(G) {
  if (G.panelTimer || !G.panelQueue.length) return;
  G.panelTimer = setTimeout(() => {
    G.panelTimer = null;
    const p = G.panelQueue.shift();
    if (p && p.stale && p.visible) updatePanel(G, p);
    if (G.panelQueue.length) pumpPanels(G);
    else for (const fn of G.idleWaiters.splice(0)) fn();
  }, 0);
}

function updatePanel(G, p) {
  p.stale = false;
  const t0 = performance.now();
  try {
    p.inst.update(G.lab.view());
    G.stats.panels[p.name] = (G.stats.panels[p.name] || 0) + performance.now() - t0;
  } catch (e) {
    console.error(`panel ${p.name}:`, e);
  }
}

/** A promise resolved once the panels below are drawn (what the tests and the benchmark wait for). */
export function idle(G) {
  return new Promise((resolve) => {
    if (!G.panelQueue.length && !G.panelTimer) resolve(); else G.idleWaiters.push(resolve);
  });
}
