// node --test tests/app/js/early_plotly.test.mjs — a chart page's early plotly.js load
// (dashboard/serve/early_plotly.js): where plotly.js comes from is read from the page, and the warm-up chart
// never stays on the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ATTR, sourcesFrom, warmUp } from "../../../dashboard/serve/early_plotly.js";

/** A document whose one script element carries `value` in the data attribute (none when undefined). */
function docWith(value) {
  const el = value === undefined ? null : { getAttribute: (n) => (n === ATTR ? value : null) };
  return { querySelector: (sel) => (sel === `script[${ATTR}]` ? el : null) };
}

test("the sources are the script element's JSON object", () => {
  const src = { bundle: "app/static/plotly-nbem.min.js.gz", chunk: "static/js/PlotlyChart.x.js" };
  assert.deepEqual(sourcesFrom(docWith(JSON.stringify(src))), src);
});

test("no element, bad JSON or a value that is not an object: nothing is loaded early", () => {
  assert.equal(sourcesFrom(docWith(undefined)), null);
  assert.equal(sourcesFrom(docWith("{bundle:")), null);
  assert.equal(sourcesFrom(docWith("")), null);
  assert.equal(sourcesFrom(docWith("[1, 2]")), null);
  assert.equal(sourcesFrom(docWith("null")), null);
  assert.equal(sourcesFrom(docWith('"app/static/x.js"')), null);
});

/** A document with a body that records what is appended and removed. */
function fakeDoc() {
  const body = { kids: [], appendChild(el) { this.kids.push(el); el.parent = this; } };
  const doc = {
    body,
    createElement: () => {
      const el = { style: {}, attrs: {}, setAttribute(k, v) { this.attrs[k] = v; },
        remove() { body.kids = body.kids.filter((k) => k !== el); } };
      return el;
    },
  };
  return doc;
}

for (const fails of [false, true]) {
  test(`the warm-up chart is hidden and removed afterwards (${fails ? "plotly fails" : "drawn"})`, async () => {
    const doc = fakeDoc(), calls = [];
    const Plotly = {
      newPlot: (box, data, layout, config) => {
        calls.push(["newPlot", box, data, layout, config]);
        assert.equal(doc.body.kids.includes(box), true, "drawn in a box on the page");
        return fails ? Promise.reject(new Error("no")) : Promise.resolve(box);
      },
      purge: (box) => calls.push(["purge", box]),
    };
    const p = warmUp(Plotly, doc);
    if (fails) await assert.rejects(p); else await p;
    assert.equal(calls[0][0], "newPlot");
    const box = calls[0][1];
    assert.equal(box.attrs["aria-hidden"], "true");
    assert.match(box.style.cssText, /visibility:hidden/);
    assert.match(box.style.cssText, /left:-10000px/);
    assert.equal(calls[0][4].staticPlot, true);
    assert.deepEqual(calls[1], ["purge", box]);
    assert.equal(doc.body.kids.length, 0, "nothing left on the page");
  });
}
