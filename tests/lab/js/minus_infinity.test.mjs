// node --test tests/lab/js/minus_infinity.test.mjs — a log-likelihood of −∞ (λ = 0 with a document no class
// allows) is written −∞ with its reason in the chart's summary and table, never "—" (which means "no number").
import { test } from "node:test";
import assert from "node:assert/strict";
import { summary, tableOf, minusInfinityWhy } from "../../../nblab/js/charts.js";

const S = (ll, obj, lams) => ({ T: ll.length, K: 2, names: ["a", "b"], alpha: [ll.map(() => 0.5), ll.map(() => 0.5)],
  ll, obj, lams, acc: ll.map(() => 0.5), supervised: null, nHidden: 4, ref: null });

test("−∞ at λ = 0: written −∞, and the summary says why", () => {
  const s = S([-Infinity, -Infinity], [-Infinity, -Infinity], [0, 0]);
  const text = summary("ll", s, 1);
  assert.match(text, /MAP objective is −∞ and the log-likelihood −∞/);
  assert.match(text, /−∞ because at λ = 0 some document has a word \(or lacks one\) that no class allows/);
  assert.doesNotMatch(text, /—/);
  assert.deepEqual(tableOf("ll", s).rows[1].slice(1, 3), ["−∞", "−∞"]);
});

test("−∞ at λ > 0 gets the general reason; a finite value none; a missing value stays —", () => {
  assert.match(minusInfinityWhy(S([-Infinity], [-Infinity], [1]), 0), /probability 0 under every class\.$/);
  assert.equal(minusInfinityWhy(S([-3.5], [-4], [0]), 0), "");
  const s = S([null, -3.25], [null, -4.5], [1, 1]);
  assert.match(summary("ll", s, 1), /MAP objective is −4\.50 and the log-likelihood −3\.25/);
  assert.match(summary("ll", s, 0), /MAP objective is — and the log-likelihood —/);
});
