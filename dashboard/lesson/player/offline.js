// The lesson player without a server: the offline HTML export and the notebook widget
// (dashboard/lesson/export.py, dashboard/lesson/widget.py).
//
// player.js (the app's player, unchanged) is a Streamlit components-v2 module: its default export is
// called with { data, parentElement, setStateValue, setTriggerValue }. This file provides that API
// offline: it loads plotly.js from the inlined gzip + base64 bundle, imports player.js from its text
// (a blob: module) and mounts it twice, with the "main" (Play, slider, time series) and "params"
// (parameter chart) data the export computed for every iteration. Step, the E/M half-steps, Back and
// Start again move through those precomputed frames; the panels the server draws in the app (metrics,
// documents, maths, what the E-step shows, settings, data card) are drawn here from the same export.
//
// Everything from the data (texts, names) is put on the page with textContent, never as HTML.
(function (global) {
  "use strict";

  // ---- small DOM helpers (text only) ---------------------------------------------------------------
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.appendChild(typeof kid === "string" || typeof kid === "number" ? document.createTextNode(String(kid)) : kid);
    }
    return el;
  }
  const sub = (s) => h("sub", null, String(s));
  const sup = (s) => h("sup", null, String(s));
  function fmt(v, d) {
    if (v === null || v === undefined || !isFinite(v)) return v === -Infinity || v === null ? "−∞" : String(v);
    const a = Math.abs(v);
    if (v !== 0 && (a < Math.pow(10, -d) || a >= 1e6)) return v.toExponential(2).replace("-", "−");
    return v.toFixed(d).replace("-", "−");
  }
  function bytesOf(b64) {
    const bin = atob(b64), out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  const u8 = (b64) => bytesOf(b64);
  const u16 = (b64) => { const b = bytesOf(b64); return new Uint16Array(b.buffer, b.byteOffset, b.length >> 1); };

  // ---- plotly.js and the player ----------------------------------------------------------------------
  let plotlyPromise = null;
  function loadPlotly(b64) {
    if (global.Plotly) return Promise.resolve(global.Plotly);
    if (plotlyPromise) return plotlyPromise;
    plotlyPromise = (async () => {
      if (typeof DecompressionStream === "undefined")
        throw new Error("this browser cannot unpack the charts' code (no DecompressionStream: Chrome 80+, Firefox 113+, Safari 16.4+)");
      const stream = new Blob([bytesOf(b64)]).stream().pipeThrough(new DecompressionStream("gzip"));
      const js = await new Response(stream).text();
      // a page with an AMD loader (classic Jupyter) would take plotly.js's UMD wrapper away from window
      const define = global.define;
      global.define = undefined;
      try {
        await new Promise((resolve, reject) => {
          const url = URL.createObjectURL(new Blob([js], { type: "text/javascript" }));
          const el = document.createElement("script");
          el.src = url;
          el.onload = () => { URL.revokeObjectURL(url); resolve(); };
          el.onerror = () => { URL.revokeObjectURL(url); reject(new Error("plotly.js did not load")); };
          document.head.appendChild(el);
        });
      } finally {
        if (define !== undefined) global.define = define;
      }
      if (!global.Plotly) throw new Error("plotly.js did not define Plotly");
      return global.Plotly;
    })();
    plotlyPromise.catch(() => { plotlyPromise = null; });
    return plotlyPromise;
  }
  async function importPlayer(src) {
    const url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
    try {
      const mod = await import(url);
      return { mod, P: global.__nbemPlayer };   // the player publishes its state when its module runs
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  // ---- the lesson ----------------------------------------------------------------------------------------
  const SORTS = ["least sure first", "flipped first", "wrong first", "most sure first", "document order"];
  const SHORTCUTS = [
    ["→  or  Page Down", "Step (the next iteration)"], ["←  or  Page Up", "Back one iteration"],
    ["P", "Play / Pause"], ["E", "E-step only"], ["M", "M-step only"],
    ["Home", "Start again (what comes next is hidden until you step or play)"], ["End", "The last iteration"],
    ["C", "Classroom fonts on / off"], ["?", "This list"],
  ];

  // host: { plotly: base64 gzip, player: player.js text, keysOn: element or document,
  //         onView(t, playing), onNeed(upto) } — the page and the notebook widget differ only there
  async function mount(root, data, host) {
    const L = { data, t: data.main.t, half: null, sort: SORTS[0], classroom: !!data.classroom, shownT: -1, shownHalf: null,
      lastPanels: 0 };
    root.classList.add("nbo-root");
    root.classList.toggle("nbo-classroom", L.classroom);
    root.textContent = "";
    const ui = build(root, L, data);
    let PL, player, P;
    try {
      PL = await loadPlotly(host.plotly);
      ({ mod: player, P } = await importPlayer(host.player));
    } catch (e) {
      ui.error.textContent = "The charts could not load here: " + (e && e.message ? e.message : e);
      ui.error.hidden = false;
      throw e;
    }
    L.P = P; L.PL = PL; L.player = player;
    const api = (el) => ({
      parentElement: el,
      setStateValue: (k, v) => { if (k === "view" && v) { if (!v.playing) L.half = null; host.onView && host.onView(v.t, !!v.playing); } },
      setTriggerValue: (k, v) => { if (k === "need" && host.onNeed) host.onNeed(v.upto); },
    });
    const mountBoth = (d) => {
      player.default(Object.assign({ data: d.main }, api(ui.main)));
      player.default(Object.assign({ data: d.params }, api(ui.params)));
    };
    mountBoth(data);
    const slider = () => ui.main.querySelector(".nbp-slider");
    // a drag reveals what it passes over (after "Start again" the iterations ahead are hidden)
    const s0 = slider();
    if (s0) s0.addEventListener("input", () => { P.revealed = Math.max(P.revealed, +s0.value); L.half = null; });

    function go(t) {
      const s = slider();
      if (!s) return;
      t = Math.max(0, Math.min(P.n - 1, t | 0));
      if (P.playing) pause();
      P.revealed = Math.max(P.revealed, t);
      s.value = String(t);
      s.dispatchEvent(new Event("input", { bubbles: true }));
      s.dispatchEvent(new Event("change", { bubbles: true }));
    }
    function play() { if (!P.playing) { L.half = null; ui.main.querySelector(".nbp-play").click(); } }
    function pause() { if (P.playing) ui.main.querySelector(".nbp-play").click(); }
    function step() {
      if (L.half !== null) { const t = L.half; L.half = null; go(t + 1); return; }
      if (P.t < P.n - 1) go(P.t + 1);
    }
    function eStep() {
      if (P.playing) pause();
      if (P.t >= P.n - 1 || L.half !== null) return;
      L.half = P.t;
      panels(true);
    }
    function mStep() { if (L.half !== null) step(); }
    function back() { L.half = null; go(P.t - 1); }
    function restart() {
      L.half = null;
      if (P.playing) pause();
      P.revealed = 0;
      go(0);
      P.revealed = 0;
    }
    function classroom(on) {
      L.classroom = on === undefined ? !L.classroom : !!on;
      root.classList.toggle("nbo-classroom", L.classroom);
      ui.classroomBtn.setAttribute("aria-pressed", String(L.classroom));
      const m = ui.main.querySelector(".nbp-root");
      if (m) m.classList.toggle("nbp-classroom", L.classroom);
    }
    const ctl = { go, play, pause, step, eStep, mStep, back, restart, classroom, L, get P() { return P; },
      update(d) { L.data = d; mountBoth(d); ui.refresh(d); L.shownT = -1; panels(true); } };
    ui.wire(ctl);

    // keyboard: a clicker's → / Page Down steps (P is the player's own Play / Pause)
    const keysOn = host.keysOn || document;
    keysOn.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const el = e.target, tag = el && el.tagName ? el.tagName.toUpperCase() : "";
      if (tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && el.type !== "range") || (el && el.isContentEditable)) return;
      if (tag === "INPUT" && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"].includes(e.key)) return;
      const k = e.key;
      const act = { ArrowRight: step, PageDown: step, ArrowLeft: back, PageUp: back, Home: restart,
        End: () => go(P.n - 1), e: eStep, E: eStep, m: mStep, M: mStep, c: () => classroom(), C: () => classroom(),
        "?": () => { ui.keys.open = !ui.keys.open; } }[k];
      if (!act) return;
      e.preventDefault();
      act();
    });

    // the panels follow the iteration the player shows (at most every 120 ms while it moves)
    function panels(force) {
      const t = P.t, now = performance.now();
      if (!force && t === L.shownT && L.half === L.shownHalf) return;
      if (!force && (P.playing || P.dragging) && now - L.lastPanels < 120) return;
      if (L.half !== null && L.half !== t) L.half = null;
      L.shownT = t; L.shownHalf = L.half; L.lastPanels = now;
      ui.draw(t, L.half);
    }
    ctl.panels = panels;
    (function watch() { panels(false); requestAnimationFrame(watch); })();
    panels(true);
    return ctl;
  }

  // ---- the page around the player ----------------------------------------------------------------------
  function metric(label) {
    const value = h("div", { class: "nbo-metric-value" }), delta = h("div", { class: "nbo-metric-delta" });
    const lab = h("div", { class: "nbo-metric-label", text: label });
    return { el: h("div", { class: "nbo-metric", "data-metric": label }, lab, value, delta), lab, value, delta };
  }

  function build(root, L, data) {
    const ui = {};
    const names = () => L.data.classNames;
    const head = h("header", { class: "nbo-head" },
      h("h1", { text: L.data.title }),
      ui.sub = h("p", { class: "nbo-sub" }));
    ui.error = h("div", { class: "nbp-error", hidden: true, role: "alert" });
    const mIt = metric("Iteration"), mAcc = metric("Accuracy on the hidden labels"), mLL = metric("Log-likelihood");
    ui.metrics = h("div", { class: "nbo-metrics" }, mIt.el, mAcc.el, mLL.el);
    ui.back = h("button", { type: "button", class: "nbo-btn", "data-act": "back", title: "Back one iteration (←)" }, "◀ Back");
    ui.step = h("button", { type: "button", class: "nbo-btn nbo-primary", "data-act": "step", title: "Step (→, Page Down)" }, "Step ▶");
    ui.e = h("button", { type: "button", class: "nbo-btn", "data-act": "e", title: "E-step only (E)" }, "E-step");
    ui.m = h("button", { type: "button", class: "nbo-btn", "data-act": "m", title: "M-step only (M)" }, "M-step");
    ui.restart = h("button", { type: "button", class: "nbo-btn", "data-act": "restart", title: "Start again (Home)" }, "⟲ Start again");
    ui.classroomBtn = h("button", { type: "button", class: "nbo-btn", "data-act": "classroom", "aria-pressed": String(L.classroom),
      title: "Classroom fonts (C)" }, "Classroom fonts");
    ui.keys = h("details", { class: "nbo-keys" }, h("summary", { text: "Keyboard shortcuts" }),
      h("ul", null, SHORTCUTS.map(([k, v]) => h("li", null, h("b", { text: k }), " — " + v))));
    ui.controls = h("div", { class: "nbo-controls" }, ui.back, ui.step, ui.e, ui.m, ui.restart, ui.classroomBtn, ui.keys);
    ui.status = h("div", { class: "nbo-status", "aria-live": "polite" });
    ui.main = h("div", { class: "nbo-main" });
    ui.params = h("div", { class: "nbo-params" });
    ui.half = h("section", { class: "nbo-half", hidden: true });
    ui.halfText = h("p");
    ui.halfChart = h("div", { class: "nbo-chart" });
    ui.half.append(h("h2", { text: "Between the half-steps" }), ui.halfText, ui.halfChart);
    ui.docs = h("details", { class: "nbo-panel nbo-docs", open: !L.classroom });
    ui.maths = h("details", { class: "nbo-panel nbo-maths", open: !L.classroom });
    ui.about = h("details", { class: "nbo-panel nbo-about" });
    root.append(head, ui.error, ui.metrics, ui.controls, ui.status, ui.main, ui.half, ui.params, ui.docs, ui.maths, ui.about);

    ui.refresh = (d) => {
      ui.sub.textContent = "";
      ui.sub.append(`${d.dataset} · ${d.model} event model · ${d.status} · exported ${d.exported} (nbcore ${d.nbcore}). `);
      if (d.link && /^https?:\/\//i.test(d.link)) ui.sub.append(h("a", { href: d.link, class: "nbo-live", rel: "noopener" }, "Open the live lesson with these settings"));
      drawAbout(ui.about, d);
    };
    ui.refresh(L.data);

    ui.wire = (ctl) => {
      const acts = { back: ctl.back, step: ctl.step, e: ctl.eStep, m: ctl.mStep, restart: ctl.restart, classroom: () => ctl.classroom() };
      ui.controls.addEventListener("click", (e) => {
        const b = e.target.closest && e.target.closest("button[data-act]");
        if (b && acts[b.dataset.act]) acts[b.dataset.act]();
      });
      ui.ctl = ctl;
    };

    ui.draw = (t, half) => {
      const d = L.data, P = L.P, n = P.n;
      mIt.value.textContent = String(t);
      mIt.delta.textContent = `of ${n - 1}` + (half !== null ? " · E-step done" : "");
      const a = d.main.acc[t];
      mAcc.lab.textContent = `Accuracy (t=${t})`;
      mAcc.value.textContent = a === null || a === undefined ? "—" : a;
      const dl = d.main.accDelta[t];
      mAcc.delta.textContent = dl || "";
      mAcc.delta.className = "nbo-metric-delta" + (dl && dl.startsWith("-") ? " nbo-down" : dl && dl.startsWith("+") ? " nbo-up" : "");
      const ll = d.lls ? d.lls[t] : null;
      mLL.value.textContent = ll === null || ll === undefined ? "—" : fmt(ll, 1);
      ui.step.disabled = t >= n - 1 && half === null;
      ui.back.disabled = t <= 0;
      ui.e.disabled = half !== null || t >= n - 1;
      ui.m.disabled = half === null;
      ui.status.textContent = half !== null
        ? `Between the half-steps at t = ${t}: the responsibilities are updated under θ${t}; the parameters are still θ${t}. Press M-step (or Step) to re-estimate them.`
        : t >= n - 1 ? `t = ${t}: the last iteration in this file. ${d.status}.` : "";
      drawHalf(ui, L, t, half);
      drawDocs(ui.docs, L, t);
      drawMaths(ui.maths, L, t);
    };
    return ui;
  }

  function drawHalf(ui, L, t, half) {
    const r = L.data.resp;
    ui.half.hidden = half === null;
    if (half === null) return;
    const names = L.data.classNames;
    ui.halfText.textContent = `E-step at θ${t}: every document's responsibility p(y = k | x, θ${t}) (eq. 21). ` +
      (r ? `${r.unsure[t].toLocaleString()} hidden documents have no class above 0.8. ` : "") +
      (L.data.docs ? `${L.data.docs.nFlip[t + 1].toLocaleString()} hidden documents change their most likely class. ` : "") +
      "Labelled documents stay one-hot (eq. 22). The parameters move at the M-step.";
    if (!r || !L.PL) return;
    const f = r.frames[t];
    if (!f || !f.resp) return;
    const tpl = r.templates.resp[f.resp.tpl];
    const data = tpl.data.map((tr) => Object.assign({}, tr));
    for (const [i, k, v] of f.resp.d || []) data[i][k] = L.player.decode(v, r.strs);
    const layout = Object.assign(structuredClone(tpl.layout), structuredClone(f.resp.l || {}));
    layout.template = L.data.main.tpl;
    L.PL.react(ui.halfChart, data, layout, { displayModeBar: false, responsive: true });
  }

  function drawDocs(box, L, t) {
    const D = L.data.docs;
    if (!D) { box.hidden = true; return; }
    box.hidden = false;
    const names = L.data.classNames, R = D.docs.length;
    if (!D._pred) { D._pred = u8(D.pred); D._conf = u16(D.conf); D._r = u16(D.rTrue); }
    const at = (arr, tt, i) => arr[tt * R + i];
    const rows = [];
    for (let i = 0; i < R; i++) {
      const pred = at(D._pred, t, i), prev = t > 0 ? at(D._pred, t - 1, i) : pred;
      rows.push({ i, doc: D.docs[i], text: D.text[i], true: D.true[i], pred, prev, flipped: prev !== pred,
        conf: at(D._conf, t, i) / 65535, r: at(D._r, t, i) / 65535, correct: pred === D.true[i] });
    }
    const by = { "least sure first": (a, b) => a.conf - b.conf || a.doc - b.doc,
      "most sure first": (a, b) => b.conf - a.conf || a.doc - b.doc,
      "flipped first": (a, b) => (b.flipped - a.flipped) || a.conf - b.conf || a.doc - b.doc,
      "wrong first": (a, b) => (a.correct - b.correct) || a.conf - b.conf || a.doc - b.doc,
      "document order": (a, b) => a.doc - b.doc }[L.sort];
    rows.sort(by);
    if (!box.__built) {
      box.__built = true;
      box.summaryEl = h("summary");
      box.sortEl = h("select", { "aria-label": "Order", class: "nbo-sort" }, SORTS.map((s) => h("option", { value: s, text: s })));
      box.sortEl.addEventListener("change", () => { L.sort = box.sortEl.value; drawDocs(box, L, L.P.t); });
      box.confEl = h("table", { class: "nbo-table nbo-confusion" });
      box.tableEl = h("table", { class: "nbo-table nbo-doctable" });
      box.noteEl = h("p", { class: "nbo-caption" });
      box.append(box.summaryEl,
        h("div", { class: "nbo-docs-top" },
          h("label", null, "Order ", box.sortEl),
          h("div", null, h("p", null, h("b", { text: "Confusion on the hidden labels" }),
            " (rows: true class; columns: the class EM gives it now)"), box.confEl)),
        h("div", { class: "nbo-scroll" }, box.tableEl), box.noteEl);
    }
    const right = D.right[t];
    box.summaryEl.textContent = `The ${D.nHidden.toLocaleString()} hidden documents at t = ${t}: ${(100 * right).toFixed(1)}% right` +
      (t > 0 ? `, ${D.nFlip[t].toLocaleString()} flipped at this iteration` : "");
    // confusion matrix
    const C = D.confusion[t];
    box.confEl.textContent = "";
    box.confEl.append(h("tr", null, h("th"), names.map((n) => h("th", { text: "EM: " + n }))));
    C.forEach((row, k) => box.confEl.append(h("tr", null, h("th", { text: "true " + names[k] }), row.map((v) => h("td", { text: v.toLocaleString() })))));
    // the documents
    const tb = box.tableEl;
    tb.textContent = "";
    tb.append(h("thead", null, h("tr", null, ["doc", "text", "true", "EM says", "r(true class)", "confidence", "flipped at t", "correct"].map((c) => h("th", { text: c })))));
    const body = h("tbody");
    for (const r of rows) {
      body.append(h("tr", { class: r.flipped ? "nbo-flipped" : null, "data-doc": r.doc },
        h("td", { text: String(r.doc) }), h("td", { class: "nbo-text", text: r.text }), h("td", { text: names[r.true] }),
        h("td", { text: names[r.pred] }),
        h("td", { class: "nbo-num" }, h("span", { class: "nbo-bar", style: `width:${(100 * r.r).toFixed(1)}%` }), h("span", { text: r.r.toFixed(3) })),
        h("td", { class: "nbo-num", text: r.conf.toFixed(3) }),
        h("td", { text: r.flipped ? `${names[r.prev]} → ${names[r.pred]}` : "" }),
        h("td", { text: r.correct ? "✓" : "✗", "aria-label": r.correct ? "correct" : "wrong" })));
    }
    tb.append(body);
    box.noteEl.textContent = R < D.nHidden
      ? `Showing ${R.toLocaleString()} of the ${D.nHidden.toLocaleString()} hidden documents (those whose class flipped most often, then the least sure), ${L.sort}.`
      : `Every hidden document, ${L.sort}.`;
  }

  function drawMaths(box, L, t) {
    const M = L.data.maths, names = L.data.classNames;
    if (!M) { box.hidden = true; return; }
    box.textContent = "";
    const K = names.length, i = M.doc;
    box.append(h("summary", { text: `The maths of this iteration (eq. 21–24 of the notes): document ${i}` }));
    if (M.text !== null && M.text !== undefined) box.append(h("p", null, `Document ${i}: “`, M.text, "”"));
    box.append(h("p", { class: "nbo-caption", text: t === 0
      ? "t = 0: these are the initial parameters. The E-step below uses θ⁽⁰⁾; press Step to see the M-step that makes θ⁽¹⁾."
      : `How iteration ${t} was made: E-step with θ⁽${t - 1}⁾, then M-step → θ⁽${t}⁾.` }));
    const cols = h("div", { class: "nbo-cols" });
    const colE = h("div"), colM = h("div");
    cols.append(colE, colM);
    box.append(cols);
    colE.append(h("h3", null, "E-step for document ", h("i", { text: "i" }), ` = ${i}`));
    if (M.labelled) {
      colE.append(h("p", null, `Document ${i} is labelled (${names[M.label]}), so EM keeps its label (eq. 22): r`, sub(i), " = one-hot(", names[M.label], ")."));
    } else {
      const e = M.e[t];
      colE.append(h("p", { class: "nbo-eq" }, "p(y", sub("i"), " = k | X", sub("i"), ", α, β) ∝ p(X", sub("i"), " | y", sub("i"), " = k, β) · α", sub("k"), "   (21)"));
      const tb = h("table", { class: "nbo-table" }, h("tr", null, ["k", "log α_k", "log p(x | k)", "sum", "p(k | x)"].map((c) => h("th", { text: c }))));
      for (let k = 0; k < K; k++) {
        tb.append(h("tr", null, h("td", { text: names[k] }), h("td", { class: "nbo-num", text: fmt(e.prior[k], 3) }),
          h("td", { class: "nbo-num", text: fmt(e.like[k], 2) }), h("td", { class: "nbo-num", text: fmt(e.joint[k], 2) }),
          h("td", { class: "nbo-num", "data-post": k, text: fmt(e.post[k], 3) })));
      }
      colE.append(tb);
      if (M.true >= 0) colE.append(h("p", { class: "nbo-caption" }, "True (hidden) label: ", names[M.true]));
    }
    colM.append(h("h3", { text: "M-step" }));
    const m = M.m[t];
    colM.append(h("p", { class: "nbo-eq" }, "α", sub("k"), sup("t+1"), " = (1/N) Σ", sub("i"), " p(y", sub("i"), " = k | X", sub("i"), ", α", sup("t"), ", β", sup("t"), ")   (23)"));
    if (!m) { colM.append(h("p", { class: "nbo-caption", text: "Press Step to fill these in with numbers." })); return; }
    const ta = h("table", { class: "nbo-table" }, h("tr", null, ["k", "Σᵢ rᵢₖ", "total", "α_k"].map((c) => h("th", { text: c }))));
    for (let k = 0; k < K; k++) {
      ta.append(h("tr", null, h("td", { text: names[k] }), h("td", { class: "nbo-num", text: fmt(m.cw[k], 2) }),
        h("td", { class: "nbo-num", text: fmt(m.total, 1) }), h("td", { class: "nbo-num", "data-alpha": k, text: fmt(m.alpha[k], 3) })));
    }
    colM.append(ta);
    if (m.values) {
      const s = M.symbol;
      colM.append(h("p", { class: "nbo-eq" }, `${s}(${M.rowLabel}, k) = (λ + Σᵢ rᵢₖ xᵢⱼ) / (${fmt(m.den, 0)}·λ + Σᵢ rᵢₖ)   (24)`));
      const tv = h("table", { class: "nbo-table" }, h("tr", null, ["k", "λ + counts", "c·λ + totals", s, "engine"].map((c) => h("th", { text: c }))));
      for (let k = 0; k < K; k++) {
        tv.append(h("tr", null, h("td", { text: names[k] }),
          h("td", { class: "nbo-num", text: `${fmt(m.lam, 3)} + ${fmt(m.counts[k], 2)}` }),
          h("td", { class: "nbo-num", text: `${fmt(m.den, 0)}·${fmt(m.lam, 3)} + ${fmt(m.totals[k], 2)}` }),
          h("td", { class: "nbo-num", "data-value": k, text: fmt(m.values[k], 3) }),
          h("td", { class: "nbo-num", text: fmt(m.engine[k], 3) })));
      }
      colM.append(tv);
      const ok = m.values.every((v, k) => Math.abs(v - m.engine[k]) < 1e-6);
      colM.append(h("p", { class: "nbo-caption", text: `λ = ${m.lam}. ` + (ok ? `✓ same as the engine's ${s}` : `engine's ${s} differs`) }));
    } else {
      colM.append(h("p", { class: "nbo-caption", text: `The ${M.model} model's M-step uses the same weighted sums Σᵢ rᵢₖ·(…); its parameters are in the chart.` }));
    }
  }

  function drawAbout(box, d) {
    box.textContent = "";
    box.append(h("summary", { text: "Settings, data source and licence" }));
    const tb = h("table", { class: "nbo-table nbo-settings" });
    for (const [k, v] of d.settings) tb.append(h("tr", null, h("th", { text: k }), h("td", { text: v })));
    box.append(tb);
    const c = d.card || {};
    if (d.description) box.append(h("p", { text: d.description }));
    if (c.source) box.append(h("p", null, h("b", { text: "Source: " }), c.source));
    if (c.licence) box.append(h("p", null, h("b", { text: "Licence: " }), c.licence));
    if (c.card) box.append(h("details", null, h("summary", { text: "The whole data card" }), h("pre", { class: "nbo-card", text: c.card })));
    box.append(h("p", { class: "nbo-caption", text: "Charts drawn with plotly.js (MIT licence). Made with the Naive Bayes + EM Lab (nbcore, MIT)." }));
    if (d.link) box.append(h("p", { class: "nbo-caption" }, "Live lesson with the same settings: ", h("code", { text: d.link })));
  }

  // ---- the one-file page ----------------------------------------------------------------------------------
  function page(root) {
    const read = (id) => JSON.parse(document.getElementById(id).textContent);
    const data = read("nbem-data");
    const host = { plotly: document.getElementById("nbem-plotly").textContent.trim(), player: read("nbem-player-src") };
    const q = new URLSearchParams(location.search);
    if (q.get("classroom") === "true" || q.get("classroom") === "1") data.classroom = true;
    document.documentElement.classList.add("nbo-page");
    return mount(root, data, host).then((ctl) => { global.__nbemOffline = ctl; return ctl; }).catch((e) => { console.error(e); });
  }

  global.NBEMOffline = { mount, page, loadPlotly };
})(typeof window !== "undefined" ? window : globalThis);
