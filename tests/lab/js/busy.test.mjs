// How long the lab page waits before asking again for data a busy server refused (busy.js, used by boot.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { busyDelay, BUSY_TRIES } from "../../../nblab/js/busy.js";

test("only a busy answer is asked again: 429, or 503 with Retry-After", () => {
  for (const status of [400, 403, 404, 410, 500, 502, 504]) assert.equal(busyDelay(status, "3", 0), null, String(status));
  assert.equal(busyDelay(503, null, 0), null);          // a 503 without a wait is said at once
  assert.equal(busyDelay(503, "2", 0), 2000);
  assert.equal(busyDelay(429, "2", 0), 2000);
});

test("the wait is the server's Retry-After, 1 to 60 s, 5 s without one", () => {
  assert.equal(busyDelay(429, null, 0), 5000);
  assert.equal(busyDelay(429, "0", 0), 1000);
  assert.equal(busyDelay(429, "10", 0), 10000);
  assert.equal(busyDelay(429, "3600", 0), 60000);
  assert.equal(busyDelay(429, "soon", 0), 5000);       // not a number nor a date
  assert.equal(busyDelay(429, "-5", 0), 5000);
  const now = Date.parse("Wed, 02 Dec 2026 10:00:00 GMT");
  assert.equal(busyDelay(429, "Wed, 02 Dec 2026 10:00:07 GMT", 0, now), 7000);   // an HTTP date
  assert.equal(busyDelay(429, "Wed, 02 Dec 2026 09:00:00 GMT", 0, now), 1000);   // in the past
});

test("a class refused in the same second comes back spread over half the wait more", () => {
  assert.equal(busyDelay(429, "10", 0.999999), 15000);
  assert.equal(busyDelay(429, "10", 0.5), 12500);
  assert.equal(busyDelay(429, "10", 7), 15000);        // a bad random number stays in range
  assert.ok(BUSY_TRIES >= 3 && BUSY_TRIES <= 10);
});
