// The one DOM helper every drawing module of the lab uses: an element with attributes and children.
// Text goes in as text (textContent, text nodes), never as HTML: names and documents from the data stay data.

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
    else if (k === "text") e.textContent = String(v);
    else if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.appendChild(typeof kid === "object" ? kid : document.createTextNode(String(kid)));
  }
  return e;
}
