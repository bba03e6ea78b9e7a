// The run guard's decisions (dashboard/lesson/run_guard.js): no page, node --test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createGate, press, sent, acted, expire, nextPress, keyButton, ownKey, HOLD_MS, QUEUE_MAX }
  from "../../../dashboard/lesson/run_guard.js";

const KEYS = { ArrowRight: "step", PageDown: "step", e: "e_step", m: "m_step", Home: "reset" };
const key = (k, extra = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, repeat: false, ...extra });

test("a press on an idle page goes through and is then noted as sent", () => {
  const g = createGate();
  assert.equal(press(g, "step", false, 0), "pass");
  assert.equal(g.sent, true);
});

test("a press while one is sent, while a run goes on, or behind waiting presses waits its turn", () => {
  const g = createGate();
  press(g, "step", false, 0);
  assert.equal(press(g, "e_step", false, 10), "wait");   // sent, not yet acted on by the server
  acted(g);
  assert.equal(press(g, "m_step", true, 20), "wait");    // a run goes on
  assert.equal(press(g, "reset", false, 30), "wait");    // idle, but two presses are ahead of it
  assert.deepEqual(g.queue, ["e_step", "m_step", "reset"]);
});

test("waiting presses are replayed one per run, in the order pressed", () => {
  const g = createGate();
  press(g, "step", false, 0);
  press(g, "step", false, 100);
  press(g, "e_step", false, 200);
  assert.equal(nextPress(g, false), null);      // the first is still sent
  acted(g);                                     // the server started its run
  assert.equal(nextPress(g, true), null);       // … and is running it
  const first = nextPress(g, false);            // the run ended
  assert.equal(first, "step");
  sent(g, 300);
  assert.equal(nextPress(g, false), null);      // one at a time
  acted(g);
  assert.equal(nextPress(g, false), "e_step");
  assert.equal(nextPress(g, false), null);      // (not marked sent here: the queue is now empty)
});

test("a note of sent that the server never answers expires after HOLD_MS", () => {
  const g = createGate();
  press(g, "step", false, 1000);
  assert.equal(expire(g, 1000 + HOLD_MS - 1), false);
  assert.equal(g.sent, true);
  assert.equal(expire(g, 1000 + HOLD_MS), true);
  assert.equal(g.sent, false);
  assert.equal(press(g, "step", false, 1000 + HOLD_MS + 1), "pass");
});

test("the queue holds at most QUEUE_MAX presses; more are dropped", () => {
  const g = createGate();
  press(g, "step", false, 0);
  for (let i = 0; i < QUEUE_MAX; i++) assert.equal(press(g, "step", false, i), "wait");
  assert.equal(press(g, "step", false, 99), "drop");
  assert.equal(g.queue.length, QUEUE_MAX);
});

test("keys: the clicker's keys map to their buttons; letters either case; modified or repeated keys are not shortcuts", () => {
  assert.equal(keyButton(KEYS, key("ArrowRight")), "step");
  assert.equal(keyButton(KEYS, key("PageDown")), "step");
  assert.equal(keyButton(KEYS, key("E")), "e_step");
  assert.equal(keyButton(KEYS, key("m")), "m_step");
  assert.equal(keyButton(KEYS, key("Home")), "reset");
  assert.equal(keyButton(KEYS, key("ArrowLeft")), null);
  assert.equal(keyButton(KEYS, key("p")), null);
  assert.equal(keyButton(KEYS, key("ArrowRight", { ctrlKey: true })), null);
  assert.equal(keyButton(KEYS, key("e", { repeat: true })), null);
  assert.equal(keyButton(KEYS, key("constructor")), null);   // not an inherited property
});

test("keys typed into a field, a slider or a menu are that element's own", () => {
  const el = (tagName, role = null, extra = {}) => ({ tagName, getAttribute: (a) => (a === "role" ? role : null), ...extra });
  assert.equal(ownKey(el("INPUT")), true);
  assert.equal(ownKey(el("textarea")), true);
  assert.equal(ownKey(el("DIV", "slider")), true);
  assert.equal(ownKey(el("DIV", null, { isContentEditable: true })), true);
  assert.equal(ownKey(el("BUTTON")), false);
  assert.equal(ownKey(el("BODY")), false);
  assert.equal(ownKey(null), false);
});
