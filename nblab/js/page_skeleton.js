// The lab page's skeleton (boot.js): the header, the notices, the metrics row, the settings column, the charts'
// grid and a container per panel below. Everything it writes from the data goes in as text.

import { el } from "./dom.js";
import { PANELS } from "./panels/registry.js";
import { WORDS } from "./vocabulary.js";
import { t } from "./i18n.js";

//: the panels below the charts present (the registry nblab/bundle.py writes, in its PANEL_ORDER): a container each
export const PANEL_SLOTS = PANELS.map(([name]) => name);

/** One metric of the row: its label, its value and the line under it. */
function metric(label) {
  const lab = el("div", { class: "lab-metric-label", text: label });
  const value = el("div", { class: "lab-metric-value" });
  const delta = el("div", { class: "lab-metric-delta" });
  return { box: el("div", { class: "lab-metric" }, lab, value, delta), lab, value, delta };
}

/** The metrics row (G.metrics, the status line, the caption, the gain sentence). */
function metricsRow(G) {
  const mIt = metric(t("Iteration")), mAcc = metric(t("Accuracy")), mSup = metric(t("Supervised only")),
    mBest = metric(t("Best supervised")), mLL = metric(t("Log-likelihood")), mObj = metric(t("MAP objective"));
  // on a projector (classroom mode) these two stay on their charts: the row keeps to one line (the app's
  // four: iteration, accuracy, supervised only, best supervised)
  mLL.box.classList.add("lab-metric-extra");
  mObj.box.classList.add("lab-metric-extra");
  G.metrics = { mIt, mAcc, mSup, mBest, mLL, mObj };
  G.statusLine = el("p", { class: "lab-status" });
  G.caption = el("p", { class: "lab-caption" });
  // EM against the best supervised baseline in words (numbers.gain_sentence), plainly when the gain is small
  G.gain = el("p", { class: "lab-gain", hidden: true });
  return el("section", { class: "lab-metrics", "aria-label": t("The numbers at this iteration") },
    el("div", { class: "lab-metric-grid" }, mIt.box, mAcc.box, mSup.box, mBest.box, mLL.box, mObj.box), G.statusLine, G.caption, G.gain);
}

/** The notices above the page: the link's, what a change did, λ = 0, the run's error. */
function notices(G) {
  G.linkBox = el("section", { class: "lab-notice lab-link-notice", "aria-labelledby": "lab-link-h", hidden: true });
  G.changeBox = el("div", { class: "lab-notice lab-change", role: "status", "aria-live": "polite" });
  G.lamZero = el("p", { class: "lab-notice lab-warn", hidden: true, text: t(WORDS.lam_zero) });
  G.errorBox = el("div", { class: "lab-notice lab-error", role: "alert", hidden: true });
  // the warnings that EM's result should not be trusted as it looks (warnings.js)
  G.warnBox = el("div", { class: "lab-notice lab-warn lab-warnings", role: "status", hidden: true });
}

/**
 * Empty `root` and build the page's skeleton in it; the parts the page writes to later go on G. Returns the
 * containers the controls, the charts and the language picker are mounted in: { bar, grid, side, head }.
 */
export function buildSkeleton(G, root) {
  root.textContent = "";
  const head = el("header", { class: "lab-head" }, el("h1", { text: G.cfg.title }), G.sub = el("p", { class: "lab-sub" }));
  notices(G);
  const bar = el("div", { class: "lab-bar" });
  G.sentence = el("p", { class: "lab-sentence", role: "status", "aria-live": "polite", "aria-atomic": "true", id: "lab-sentence" });
  const row = metricsRow(G);
  const grid = el("div", { class: "lab-charts" });
  G.error = el("div", { class: "lab-error", role: "alert", hidden: true });
  const side = el("aside", { class: "lab-side", "aria-label": t("Settings") }, el("h2", { class: "lab-h2", text: t("Settings") }));
  const lower = el("div", { class: "lab-lower" });
  G.slots = {};
  for (const p of PANEL_SLOTS) {
    // no name of its own: a panel names itself with its heading (two landmarks of one name would clash)
    G.slots[p] = el("section", { id: `lab-panel-${p}`, class: "lab-panel", "data-panel": p, hidden: true });
    lower.append(G.slots[p]);
  }
  const about = el("details", { class: "lab-about" }, el("summary", { text: t("About this page and its data") }));
  G.about = about;
  // what a change did, λ = 0 and the run's error come and go under the buttons: they never move them
  const top = el("section", { class: "lab-top", "aria-label": t("The run") }, bar, G.sentence, row, G.changeBox, G.lamZero, G.errorBox, G.warnBox);
  const content = el("div", { class: "lab-content" }, grid);
  // the panels below take the page's whole width, under the settings and the charts
  const main = el("main", { class: "lab-main" }, top, el("div", { class: "lab-body" }, side, content), lower, about);
  root.append(head, G.linkBox, main);
  return { bar, grid, side, head };
}
