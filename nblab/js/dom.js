// The one DOM helper every drawing module of the lab uses: an element with attributes and children.
// Text goes in as text (textContent, text nodes), never as HTML: names and documents from the data stay data.
// Text also goes in without bidi control characters (plain): a class named "spam" + U+202E (RIGHT-TO-LEFT
// OVERRIDE) would otherwise turn the rest of its line around. The data's own strings are cleaned once when
// the page starts (cleanData), so text set with textContent elsewhere is clean too; lab.css isolates every
// element of the page for bidi (unicode-bidi: isolate), so right-to-left text in the data stays in its box.

//: the bidi controls: embeddings and overrides U+202A–202E, isolates U+2066–2069, marks U+200E, U+200F, U+061C
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `s` as text, without bidi control characters. */
export function plain(s) {
  return String(s).replace(BIDI_CONTROLS, "");
}

//: the data's keys that hold numbers only (encoded arrays): not walked
const NUMBERS = new Set(["matrix", "y", "yTrue", "truth"]);

/** The lab's data (or config) with every string in it plain (names, class names, features, documents), in
 * place; returns it. */
export function cleanData(data) {
  const walk = (v, depth) => {
    if (typeof v === "string") return plain(v);
    if (v === null || typeof v !== "object" || depth > 8 || ArrayBuffer.isView(v)) return v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (typeof v[i] === "string" || (v[i] && typeof v[i] === "object")) v[i] = walk(v[i], depth + 1);
      return v;
    }
    for (const k of Object.keys(v)) if (!(depth === 0 && NUMBERS.has(k))) v[k] = walk(v[k], depth + 1);
    return v;
  };
  return walk(data, 0);
}

/**
 * el("p", { class: "x", text: "hi", onclick: f, "aria-label": "…" }, child, [more, children], "text")
 * `class` sets the class name, `text` the text, an `on…` function becomes a listener, `true` an empty
 * attribute; null, undefined and false are left out (as attributes and as children).
 */
export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = plain(v);
    else if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : plain(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.appendChild(typeof kid === "object" ? kid : document.createTextNode(plain(kid)));
  }
  return e;
}
