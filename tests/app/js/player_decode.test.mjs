// node --test tests/app/js/player_decode.test.mjs — the lesson player's frames
// (dashboard/lesson/player/js/decode.js): quantised arrays, string references, the frame log, specs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { decode, u16, mergeLog, frameLogs, specAt, Q_MAX, Q_MISSING } from "../../../dashboard/lesson/player/js/decode.js";

/** base64 of little-endian uint16 codes (what payload.py's encoder writes). */
function b64(codes) {
  const bytes = Buffer.alloc(2 * codes.length);
  codes.forEach((c, i) => bytes.writeUInt16LE(c, 2 * i));
  return bytes.toString("base64");
}

test("u16 reads little-endian codes", () => {
  assert.deepEqual(Array.from(u16(b64([0, 1, 256, 65535]))), [0, 1, 256, 65535]);
});

test("quantised numbers: lo + code * (hi - lo) / Q_MAX, missing as null, rows when shaped", () => {
  const flat = decode({ q: b64([0, Q_MAX, Q_MISSING, Q_MAX / 2]), lo: -1, hi: 3, n: 4 }, []);
  assert.equal(flat[0], -1);
  assert.equal(flat[1], 3);
  assert.equal(flat[2], null);
  assert.ok(Math.abs(flat[3] - 1) < 1e-12);
  const rows = decode({ q: b64([0, 1, 2, 3, 4, 5]), lo: 0, hi: Q_MAX, n: 6, shape: [2, 3] }, []);
  assert.deepEqual(rows, [[0, 1, 2], [3, 4, 5]]);
});

test("string references and plain values", () => {
  assert.deepEqual(decode({ s: [1, 0, 1] }, ["a", "b"]), ["b", "a", "b"]);
  assert.deepEqual(decode([1, 2], []), [1, 2]);
  assert.equal(decode("x", []), "x");
  assert.equal(decode(null, []), null);
  assert.deepEqual(decode({ other: 1 }, []), { other: 1 });
});

const TPL = { params: [{ data: [{ type: "bar", x: [0, 0], y: ["?", "?"] }], layout: { height: 300 } }] };
const frame = (x, words) => ({ params: { tpl: 0, d: [[0, "x", x], [0, "y", { s: words }]] } });

test("the frame log: deltas appended, a lost delta refused, a rewind cut, a new token starts over", () => {
  const logs = frameLogs();
  // a new log must start at frame 0
  assert.equal(mergeLog(logs, { token: "t1", base: 2, sbase: 0, n: 3, strs: [], frames: [] }), null);
  const log = mergeLog(logs, { token: "t1", base: 0, sbase: 0, n: 2, strs: ["a", "b"], templates: TPL,
    frames: [frame([1, 2], [0, 1]), frame([3, 4], [1, 0])] });
  assert.ok(log);
  assert.equal(log.frames.length, 2);
  // the next delta
  assert.equal(mergeLog(logs, { token: "t1", base: 2, sbase: 2, n: 3, strs: ["c"], frames: [frame([5, 6], [2, 0])] }), log);
  assert.equal(log.frames.length, 3);
  assert.deepEqual(log.strs, ["a", "b", "c"]);
  // a delta beyond what is held (one was lost): refused
  assert.equal(mergeLog(logs, { token: "t1", base: 5, sbase: 3, n: 6, strs: [], frames: [] }), null);
  // the run rewound to 2 iterations
  mergeLog(logs, { token: "t1", base: 3, sbase: 3, n: 2, strs: [], frames: [] });
  assert.equal(log.frames.length, 2);
  // another token: the old log is dropped
  const other = mergeLog(logs, { token: "t2", base: 0, sbase: 0, n: 1, strs: ["z"], templates: TPL, frames: [frame([0, 0], [0, 0])] });
  assert.notEqual(other, log);
  assert.equal(logs.size, 1);
});

test("specAt: the template patched with the frame's values, one object per frame, the last frame beyond them", () => {
  const logs = frameLogs();
  const log = mergeLog(logs, { token: "t", base: 0, sbase: 0, n: 2, strs: ["a", "b"], templates: TPL,
    frames: [frame([1, 2], [0, 1]), { params: { tpl: 0, d: [[0, "x", [7, 8]]], l: { height: 400 } } }] });
  const s0 = specAt(log, "params", 0);
  assert.deepEqual(s0.data[0], { type: "bar", x: [1, 2], y: ["a", "b"] });
  assert.deepEqual(s0.layout, { height: 300 });
  assert.equal(s0.lkey, "");
  assert.equal(s0.zOnly, false);
  assert.equal(specAt(log, "params", 0), s0);          // built once
  const s1 = specAt(log, "params", 9);                 // beyond the frames: the last one
  assert.deepEqual(s1.data[0].x, [7, 8]);
  assert.deepEqual(s1.data[0].y, ["?", "?"]);          // from the template
  assert.deepEqual(s1.layout, { height: 400 });
  assert.equal(s1.lkey, JSON.stringify({ height: 400 }));
  assert.equal(TPL.params[0].data[0].x[0], 0);          // the template is not changed
  assert.equal(specAt(log, "truth", 0), null);
});
