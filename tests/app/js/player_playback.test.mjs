// node --test tests/app/js/player_playback.test.mjs — the lesson player's playback
// (dashboard/lesson/player/js/playback.js): which iteration is shown, Play / Pause / drag, the server's data.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as PB from "../../../dashboard/lesson/player/js/playback.js";

/** A stopped player on a run of `n` iterations (done or not), showing the latest. */
function at(n, done = false, fps = 5) {
  const s = PB.create(100);
  PB.adopt(s, { run: "r1", n, done, fps, seq: 0, t: n - 1, revealed: n - 1 });
  return s;
}

test("the server's data: the page's iteration is shown, clamped to the iterations sent", () => {
  const s = PB.create(1);
  const r = PB.adopt(s, { run: "a", n: 5, done: false, fps: 5, seq: 3, t: 9, revealed: 4 });
  assert.deepEqual(r, { newRun: true, playOn: false });
  assert.equal(s.t, 4);
  assert.equal(s.revealed, 4);
  assert.equal(s.seq, 3);
  // the same seq again (a rerun that did not move the run) keeps what the user picked
  PB.setT(s, 1);
  PB.adopt(s, { run: "a", n: 5, done: false, fps: 5, seq: 3, t: 4, revealed: 4 });
  assert.equal(s.t, 1);
  // a new seq (Step on the server) goes to the page's iteration
  PB.adopt(s, { run: "a", n: 6, done: false, fps: 5, seq: 4, t: 5, revealed: 5 });
  assert.equal(s.t, 5);
});

test("setT clamps to 0 … n-1 and says whether the iteration shown changed", () => {
  const s = at(4);
  assert.equal(PB.setT(s, 99), false);   // already at 3
  assert.equal(PB.setT(s, -5), true);
  assert.equal(s.t, 0);
  assert.equal(PB.setT(s, 2.7), true);
  assert.equal(s.t, 2);
});

test("Play at the end of a finished run replays it from the start; Pause keeps what was shown revealed", () => {
  const s = at(10, true);
  const id = s.playId;
  assert.equal(PB.play(s), true);
  assert.equal(s.t, 0);
  assert.equal(s.playId, id + 1);
  assert.equal(PB.play(s), false);        // playing already
  PB.setT(s, 4);
  assert.equal(s.revealed, 9);
  assert.equal(PB.pause(s), true);
  assert.equal(s.playing, false);
  assert.equal(PB.pause(s), false);
  // Play in the middle of an unfinished run goes on from there
  const u = at(10, false);
  PB.setT(u, 3);
  PB.play(u);
  assert.equal(u.t, 3);
});

test("tick moves one iteration per interval, keeps the beat, and pauses at the end of a finished run", () => {
  const s = at(3, true, 10);                // 100 ms per iteration
  PB.setT(s, 0);
  PB.play(s);
  assert.equal(PB.tick(s, 1000, true), "moved");
  assert.equal(s.t, 1);
  assert.equal(PB.tick(s, 1050, true), "waiting");
  assert.equal(PB.tick(s, 1100, true), "moved");
  assert.equal(s.t, 2);
  assert.equal(s.lastAdvance, 1100);       // on the beat (1000 + 100), not at the late frame's time
  assert.equal(PB.tick(s, 1200, true), "end");
  assert.equal(s.playing, false);
  assert.equal(PB.tick(s, 1300, true), "stopped");
});

test("tick on an unfinished run waits at the last iteration sent instead of ending", () => {
  const s = at(2, false, 10);
  PB.play(s);
  assert.equal(s.t, 1);
  assert.equal(PB.tick(s, 500, true), "waiting");
  assert.equal(s.playing, true);
});

test("Play stops when its bar stays gone, and carries on when it comes back", () => {
  const s = at(50, false, 5);
  PB.setT(s, 0);
  PB.play(s);
  assert.notEqual(PB.tick(s, 0, false), "gone");
  assert.notEqual(PB.tick(s, PB.GONE_MS, false), "gone");
  assert.notEqual(PB.tick(s, PB.GONE_MS + 10, true), "gone");   // back: the clock restarts
  assert.notEqual(PB.tick(s, PB.GONE_MS + 20, false), "gone");
  assert.equal(PB.tick(s, 2 * PB.GONE_MS + 50, false), "gone");
  assert.equal(s.playing, false);
});

test("need: asked for while playing close to the last iteration sent, once per retry period", () => {
  const s = at(10, false, 5);
  assert.equal(PB.need(s, 0), null);           // not playing
  PB.setT(s, 0);
  PB.play(s);
  assert.equal(PB.need(s, 0), null);           // 9 left to show
  PB.setT(s, 6);
  const ask = PB.need(s, 100);
  assert.deepEqual(ask, { run: "r1", upto: 9 + 8, t: 6, revealed: 9, play: s.playId });
  assert.equal(PB.need(s, 200), null);         // pending
  assert.notEqual(PB.need(s, 100 + PB.NEED_RETRY_MS), null);
  // the iterations came: asked again at once when short again
  PB.adopt(s, { run: "r1", n: 12, done: false, fps: 5, seq: 0, t: 11, revealed: 11 });
  PB.setT(s, 10);
  assert.notEqual(PB.need(s, 200 + PB.NEED_RETRY_MS), null);
  // nothing more to ask of a finished run
  const d = at(10, true);
  PB.setT(d, 0); PB.play(d); PB.setT(d, 8);
  assert.equal(PB.need(d, 0), null);
});

test("a new run stops Play unless Play was the last input, which plays the new run from its start", () => {
  const s = at(10);
  PB.setT(s, 2);
  PB.play(s);
  let r = PB.adopt(s, { run: "r2", n: 4, done: false, fps: 5, seq: 0, t: 3, revealed: 3 });
  assert.deepEqual(r, { newRun: true, playOn: false });
  assert.equal(s.playing, false);
  assert.equal(s.t, 3);
  s.lastInputPlay = true;
  PB.play(s);
  const id = s.playId;
  r = PB.adopt(s, { run: "r3", n: 4, done: false, fps: 5, seq: 0, t: 3, revealed: 3 });
  assert.deepEqual(r, { newRun: true, playOn: true });
  assert.equal(s.playing, true);
  assert.equal(s.t, 0);
  assert.equal(s.playId, id + 1);
});

test("Step ahead: only the iteration right after the last, of this run, while stopped", () => {
  const s = at(5);
  assert.equal(PB.canStepAhead(s, null), false);
  assert.equal(PB.canStepAhead(s, { run: "other", from: 5 }), false);
  assert.equal(PB.canStepAhead(s, { run: "r1", from: 4 }), false);
  assert.equal(PB.canStepAhead(s, { run: "r1", from: 5 }), true);
  PB.stepAhead(s, { n: 6, done: true });
  assert.equal(s.t, 5);
  assert.equal(s.revealed, 5);
  assert.equal(s.done, true);
  PB.play(s);
  assert.equal(PB.canStepAhead(s, { run: "r1", from: 6 }), false);
});

test("the report, the curtain, 'Showing an earlier iteration' and the Play button's state", () => {
  const s = at(6);
  assert.deepEqual(PB.view(s), { run: "r1", t: 5, revealed: 5, playing: false, play: 100 });
  assert.equal(PB.curtained(s), false);
  assert.equal(PB.showingEarlier(s), false);
  PB.setT(s, 2);
  assert.equal(PB.showingEarlier(s), true);
  assert.equal(PB.curtained(s), false);        // everything was revealed
  PB.play(s);
  assert.equal(PB.curtained(s), true);
  assert.equal(PB.canPlay(at(1, true)), false);
  assert.equal(PB.canPlay(at(1, false)), true);
});

test("seenBefore: the furthest iteration shown when Play was pressed; a new run starts from none seen", () => {
  // a first Play from t = 0 with the server computing ahead: nothing after 0 was seen before
  const s = at(1);
  PB.play(s);
  assert.equal(s.seenBefore, 0);
  PB.adopt(s, { run: "r1", n: 12, done: true, fps: 5, seq: 0, t: 11, revealed: 11 });
  PB.setT(s, 3);
  assert.equal(s.seenBefore, 0);           // still this Play's: iteration 3 is new to the viewer
  PB.pause(s);
  // Play again from 3 after dragging back to 1: 1 … 3 were seen (a replay), 4 … 11 were not
  PB.setT(s, 1);
  PB.play(s);
  assert.equal(s.seenBefore, 3);
  // at the end of a finished run that was all shown (the server ran it to convergence): a replay
  const f = at(10, true);
  PB.play(f);
  assert.equal(f.t, 0);
  assert.equal(f.seenBefore, 9);
  // a new run that Play carries on into: nothing of it was seen
  f.lastInputPlay = true;
  PB.adopt(f, { run: "r9", n: 4, done: false, fps: 5, seq: 0, t: 3, revealed: 3 });
  assert.equal(f.seenBefore, 0);
});
