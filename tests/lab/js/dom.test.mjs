// node --test tests/lab/js/dom.test.mjs — text from the data without bidi controls (nblab/js/dom.js): plain()
// and cleanData(), which the page applies to its data before anything is drawn.
import { test } from "node:test";
import assert from "node:assert/strict";
import { plain, cleanData, BIDI_CONTROLS } from "../../../nblab/js/dom.js";

const CONTROLS = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
  "\u200e", "\u200f", "\u061c"];

test("plain drops every bidi control and keeps everything else, right-to-left letters included", () => {
  for (const c of CONTROLS) assert.equal(plain(`spam${c} accuracy 100.0%`), "spam accuracy 100.0%", `U+${c.codePointAt(0).toString(16)}`);
  assert.equal(plain("שלום עולם · سلام"), "שלום עולם · سلام");
  assert.equal(plain("a\u200db\u2060c"), "a\u200db\u2060c");     // joiners are not bidi controls
  assert.equal(plain(42), "42");
  assert.equal(plain(CONTROLS.join("")), "");
  assert.ok(BIDI_CONTROLS.global);
});

test("cleanData cleans every string of the data, in place, and leaves the numbers alone", () => {
  const data = {
    format: "nblab-data/1", name: "mail\u202e", description: "x\u2067y",
    classNames: ["spam\u202e", "ham"], featureNames: ["\u2066win", "cash"],
    texts: ["free \u202ecash", "lunch"], card: { source: "upload\u200f" },
    matrix: { format: "csr", n: 2, v: 2, indptr: { b64: "AAEC\u202e" } }, y: { b64: "AA" },
    n: 2, models: ["bernoulli"],
  };
  const out = cleanData(data);
  assert.equal(out, data);
  assert.equal(out.name, "mail");
  assert.equal(out.description, "xy");
  assert.deepEqual(out.classNames, ["spam", "ham"]);
  assert.deepEqual(out.featureNames, ["win", "cash"]);
  assert.deepEqual(out.texts, ["free cash", "lunch"]);
  assert.equal(out.card.source, "upload");
  assert.equal(out.matrix.indptr.b64, "AAEC\u202e");             // the encoded arrays are not text
  assert.equal(out.n, 2);
  const all = JSON.stringify({ ...out, matrix: null });
  assert.ok(!BIDI_CONTROLS.test(all), all);
  assert.equal(cleanData(null), null);
  assert.equal(cleanData("a\u202eb"), "ab");
});
