// node --test tests/app/js/player_bridge.test.mjs — the lesson player's Streamlit bridge
// (dashboard/lesson/player/js/bridge.js): what it reads of the page Streamlit drew.
import { test } from "node:test";
import assert from "node:assert/strict";
import { deltaArrowAgrees } from "../../../dashboard/lesson/player/js/bridge.js";

/** A metric's delta element as Streamlit draws it, with its arrow ("Up", "Down") or none (delta_arrow="off"). */
function delta(arrow) {
  const icon = arrow ? { getAttribute: (n) => (n === "data-testid" ? `stMetricDeltaIcon-${arrow}` : null) } : null;
  return { querySelector: (sel) => (sel === '[data-testid^="stMetricDeltaIcon-"]' ? icon : null) };
}

test("a delta's arrow agrees with a text of its own sign, and only with that", () => {
  // drawn at t = 0 below the best supervised baseline, rewritten with a later iteration above it
  assert.equal(deltaArrowAgrees(delta("Down"), "-3.0 pts vs best supervised"), true);
  assert.equal(deltaArrowAgrees(delta("Down"), "+27.6 pts vs best supervised"), false);
  assert.equal(deltaArrowAgrees(delta("Up"), "+27.6 pts vs best supervised"), true);
  assert.equal(deltaArrowAgrees(delta("Up"), "−1.2 pts vs supervised"), false);   // a typographic minus
  // "±0.0" is drawn grey with no arrow (nblab/numbers.py: delta_color "off", delta_arrow "off")
  assert.equal(deltaArrowAgrees(delta(null), "±0.0 pts vs supervised"), true);
  assert.equal(deltaArrowAgrees(delta(null), "+0.4 pts vs supervised"), false);
  assert.equal(deltaArrowAgrees(delta("Up"), "±0.0 pts vs supervised"), false);
});
