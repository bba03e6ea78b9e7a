// The page's language (a page of its own: the lab page, the class page, the offline file): the picker in the
// header, the choice kept for the tab's session (sessionStorage), and the page drawn again in a new language
// in place: the run (its iterations, the one on screen, Play) stays as it is, only the page's texts change.
//
// The language a page starts in is i18n.js's startLang (the link's, else the session's, else the browser's);
// a hosted page (the app's lesson, the notebook widget) has no picker: its host says the language.

import * as I18n from "./i18n.js";
import { t, LANGS, NAMES } from "./i18n.js";
import { el } from "./dom.js";
import { mountCharts } from "./charts.js";
import { buildSkeleton } from "./page_skeleton.js";
import { mountPageControls } from "./page_actions.js";
import { render, drawCharts, drawLinkNotice, drawAbout, setClassroom } from "./page_draw.js";
import { mountPanels } from "./page_panels.js";

/** The language this tab's session chose (null: none, or no storage here). */
export function storedLang() {
  try { return typeof sessionStorage !== "undefined" ? sessionStorage.getItem(I18n.SESSION_KEY) : null; } catch (e) { return null; }
}

/** Keep `lang` as this tab's choice (a sandboxed frame without storage: the page still works). */
export function storeLang(lang) {
  try { if (typeof sessionStorage !== "undefined") sessionStorage.setItem(I18n.SESSION_KEY, lang); } catch (e) { /* no storage */ }
}

/** The picker in the header: a labelled select of the languages, each named in itself (G.langPicker). */
export function mountLangPicker(G, head) {
  const id = "lab-lang";
  const select = el("select", { id, class: "lab-lang-select" }, LANGS.map((l) =>
    el("option", { value: l, lang: l, text: NAMES[l] })));
  select.value = I18n.lang();
  // the reader's focus stays on the picker, drawn again in the new language
  select.addEventListener("change", () => setPageLang(G, select.value, true, true));
  head.append(el("p", { class: "lab-lang" }, el("label", { for: id, text: t("Language") }), select));
  G.langPicker = select;
  return select;
}

/** The document and the page's root say the page's language (screen readers pronounce it so). */
export function markLang(G, lang) {
  G.page.root.setAttribute("lang", lang);
  if (G.page.useHash) document.documentElement.lang = lang;
}

/**
 * Make `lang` the page's language (one it does not speak: the default) and draw every text again in it,
 * the run untouched. `chosen`: the reader chose it (the picker, the link): kept for the session; `picked`: with
 * the picker, which keeps the focus.
 */
export function setPageLang(G, lang, chosen, picked = false) {
  const was = I18n.lang();
  const now = I18n.setLang(lang);
  G.settings.lang = now;
  if (chosen && G.page.useHash) storeLang(now);
  if (now === was) return now;
  const focused = picked || (G.langPicker && document.activeElement === G.langPicker);
  markLang(G, now);
  redraw(G);
  if (focused && G.langPicker) G.langPicker.focus();
  return now;
}

/** The page's skeleton, its controls and (a page of its own) the language picker, in the page's language. */
export function buildPage(G, root) {
  const { bar, grid, side, head } = buildSkeleton(G, root);
  if (G.page.useHash) mountLangPicker(G, head);
  mountPageControls(G, side, bar);
  setClassroom(G, !!G.settings.classroom);
  return grid;
}

// The page's parts built again in the page's language around the same run (G.lab): the skeleton, the
// controls, the charts and the panels below; the class page's bar is put back on top.
function redraw(G) {
  const root = G.page.root;
  const grid = buildPage(G, root);
  if (G.followBar) root.prepend(G.followBar);
  if (G.redrawFollow) G.redrawFollow();
  G.charts = mountCharts(grid, G.chartCtx);
  G.drawnKey = null;
  drawAbout(G);
  drawLinkNotice(G);
  if (G.Plotly) {
    // the panels were mounted once plotly.js came: mounted again in their new slots
    G.panels = [];
    G.panelQueue = [];
    mountPanels(G, () => render(G, true));
    drawCharts(G, true);
  }
  render(G, true);
  // the teacher's question back under the bar, in the new language (and its controls paused with the rest)
  if (G.redrawQuestions) G.redrawQuestions();
}
