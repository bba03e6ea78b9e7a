// node --test tests/lab/js/lab_baselines.test.mjs — the lab page's baselines, as nblab/numbers.py and
// dashboard/charts/lesson.py have them: λ segments, the best supervised baseline of an iteration's segment,
// the gain sentence, the accuracy chart's three named lines (a step at a λ change) and the objective broken
// per λ segment. (Against nbcore on the default lesson, in Chromium: tests/browser/test_lab_baselines.py.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { segments, segmentOf, candidates, best, gainParts, gainSentence, deltaText, baselineMatrix }
  from "../../../nblab/js/lab.js";
import { accSpec, llSpec, baselineLines, brokenAtLambda, summary, tableOf } from "../../../nblab/js/charts.js";

const REF = { majority: 0.866, majorityName: "ham", cvLambda: 0.003, cv: 0.95, cvMethod: "leave-one-out", nLabelled: 1056,
  segments: [[0, 3, 0.01, 0.949], [4, 5, 0.1, 0.9735]] };

test("segments: one per stretch of iterations at one λ (numbers.segments)", () => {
  assert.deepEqual(segments([1, 1, 1]), [[0, 2, 1]]);
  assert.deepEqual(segments([0.01, 0.01, 0.01, 0.01, 0.1, 0.1]), [[0, 3, 0.01], [4, 5, 0.1]]);
  assert.deepEqual(segments([1, 0.1, 1]), [[0, 0, 1], [1, 1, 0.1], [2, 2, 1]]);
  assert.deepEqual(segments([]), []);
});

test("the best supervised baseline is its segment's (numbers.Reference.best)", () => {
  assert.deepEqual(segmentOf(REF, 2), [0, 3, 0.01, 0.949]);
  assert.deepEqual(segmentOf(REF, 9), [4, 5, 0.1, 0.9735]);       // beyond the run: the last segment
  assert.deepEqual(candidates(REF, 0).map((c) => c[0]), ["majority class (ham)", "supervised NB at λ = 0.01",
    "supervised NB at λ = 0.003, chosen by leave-one-out on the 1,056 labelled"]);
  assert.equal(best(REF, 3)[1], 0.95);
  assert.deepEqual(best(REF, 4), ["supervised NB at λ = 0.1", 0.9735]);
  // a baseline without a number is no candidate; equal ones: the first (Python's max)
  const r = Object.assign({}, REF, { cv: null, cvLambda: null, segments: [[0, 1, 1, 0.866]] });
  assert.deepEqual(best(r, 0), ["majority class (ham)", 0.866]);
  assert.equal(best(null, 0), null);
  assert.deepEqual(candidates(Object.assign({}, r, { majority: NaN }), 0), [["supervised NB at λ = 1", 0.866]]);
});

test("the gain sentence says plainly when the gain is small (numbers.gain_sentence)", () => {
  const top = ["supervised NB at λ = 0.003, chosen by leave-one-out on the 56 labelled", 0.95];
  const head = "EM against the best supervised baseline, supervised NB at λ = 0.003, chosen by leave-one-out on the 56 labelled (95.0%): ";
  assert.equal(gainSentence(0.97, top), head + "+2.0 pts. That gain is what the unlabelled documents add.");
  assert.equal(gainSentence(0.955, top), head + "+0.5 pts. That is a small gain: the labelled documents alone, with a "
    + "well-chosen λ, do almost as well — here the unlabelled documents add little.");
  assert.equal(gainSentence(0.94, top), head + "-1.0 pts. EM is below it: the labelled documents alone do better.");
  assert.equal(gainSentence(0.9497, top).includes("small"), true);           // −0.03 points: not "below" (numbers: d ≤ −0.0005)
  assert.deepEqual(gainParts(0.94, top).filter((p) => p[1]).map((p) => p), [["-1.0 pts", "strong"], ["below", "em"]]);
  assert.equal(gainSentence(NaN, top), null);
  assert.equal(gainSentence(0.9, null), null);
});

test("the accuracy's delta names its baseline (numbers.delta_text)", () => {
  assert.equal(deltaText(0.97, 0.95, "best supervised"), "+2.0 pts vs best supervised");
  assert.equal(deltaText(0.9, 0.95, "best supervised"), "-5.0 pts vs best supervised");
  assert.equal(deltaText(0.95, 0.9502, "best supervised"), "±0.0 pts vs best supervised");
  assert.equal(deltaText(0.97, 0.95), "+2.0 pts vs supervised");
});

test("baselineMatrix: the split's matrix as baselines.js reads it", () => {
  const csr = baselineMatrix({ format: "csr", n: 2, v: 3, indptr: Int32Array.of(0, 1, 3), indices: Int32Array.of(2, 0, 1), data: null });
  assert.deepEqual(Array.from(csr.csr.data), [1, 1, 1]);
  assert.equal(csr.v, 3);
  const dense = baselineMatrix({ format: "dense", n: 1, v: 2, values: Float64Array.of(0.5, 2) });
  assert.deepEqual(Array.from(dense.dense), [0.5, 2]);
  assert.equal(baselineMatrix({ format: "codes" }), null);
});

const S = (lams, ref = REF) => ({ T: lams.length, K: 2, names: ["ham", "spam"], alpha: [lams.map(() => 0.8), lams.map(() => 0.2)],
  ll: lams.map((_, t) => -100 + t), obj: lams.map((_, t) => -90 + t), lams, acc: lams.map((_, t) => 0.9 + t / 100),
  supervised: 0.949, majority: 0.866, nHidden: 5518, ref });

test("the accuracy chart draws the app's three named baselines; NB at λ steps at a λ change, labelled", () => {
  const one = accSpec(S([0.01, 0.01, 0.01, 0.01], Object.assign({}, REF, { segments: [[0, 3, 0.01, 0.949]] })), 15, 600);
  assert.deepEqual(one.data.map((d) => d.name), ["EM", "NB at λ = 0.01: 94.9%", "NB at λ = 0.003 (leave-one-out): 95.0%",
    "majority class: 86.6%"]);
  assert.deepEqual(one.data[1].x, [-0.5, 3.5]);
  assert.deepEqual(one.data[3].y, [0.866, 0.866]);
  assert.equal(one.layout.annotations.length, 0);
  const two = accSpec(S([0.01, 0.01, 0.01, 0.01, 0.1, 0.1]), 15, 600);
  const at = two.data.find((d) => d.name === "NB at each segment's λ");
  assert.deepEqual(at.x, [-0.5, 3.5, null, 3.5, 5.5]);
  assert.deepEqual(at.y, [0.949, 0.949, null, 0.9735, 0.9735]);
  assert.deepEqual(two.layout.annotations.map((a) => a.text), ["λ=0.01: 94.9%", "λ=0.1: 97.4%"]);
  assert.equal(two.layout.shapes.filter((s) => s.x0 === 3.5).length, 1);
  assert.deepEqual(two.layout.xaxis.range, [-0.5, 5.5]);
  assert.deepEqual(baselineLines(null), { segs: [], atName: null, cv: null, majority: null });
  // the summary and the data table name the segment's λ at t
  assert.match(summary("acc", S([0.01, 0.01, 0.01, 0.01, 0.1, 0.1]), 5), /supervised NB at λ = 0\.1 97\.4%/);
  const tab = tableOf("acc", S([0.01, 0.01, 0.01, 0.01, 0.1, 0.1]));
  assert.deepEqual(tab.head, ["iteration t", "EM", "supervised NB at this segment's λ",
    "supervised NB at λ = 0.003 (leave-one-out)", "majority class"]);
  assert.equal(tab.rows[3][2], "94.9% (λ = 0.01)");
  assert.equal(tab.rows[4][2], "97.4% (λ = 0.1)");
});

test("without a visible label: one supervised line, no reference", () => {
  const s = S([1, 1], null);
  s.supervised = null;
  assert.deepEqual(accSpec(s, 15, 600).data.map((d) => d.name), ["EM"]);
});

test("the objective breaks at a λ change and its title says it climbs within each λ", () => {
  assert.deepEqual(brokenAtLambda([1, 2, 3, 4], [1, 1, 0.1, 0.1]), { x: [0, 1, null, 2, 3], y: [1, 2, null, 3, 4] });
  const spec = llSpec(S([0.01, 0.01, 0.1, 0.1]), 15, 600);
  const obj = spec.data.find((d) => d.name === "objective");
  assert.deepEqual(obj.x, [0, 1, null, 2, 3]);
  const texts = spec.layout.annotations.map((a) => a.text);
  assert.ok(texts.includes("MAP objective (climbs within each λ)"), texts);
  assert.ok(texts.includes("λ→0.1"), texts);
  const flat = llSpec(S([1, 1, 1]), 15, 600);
  assert.ok(flat.layout.annotations.map((a) => a.text).includes("MAP objective (never goes down)"));
  assert.deepEqual(flat.data[0].x, [0, 1, 2]);
});
