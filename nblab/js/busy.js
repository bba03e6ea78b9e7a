// @ts-check
// When a server too busy to answer (many students at once) is asked again: the wait it gives, spread out.
// No DOM: boot.js uses it for the lab's data; node's test runner imports it directly.

//: automatic tries of a data fetch the server refused as busy (429, or 503 with Retry-After) before the page
//: asks for a click instead
export const BUSY_TRIES = 6;
const BUSY_DEFAULT_S = 5, BUSY_MAX_S = 60;

/**
 * How long to wait before asking again for data the server refused as busy, in ms; null when the answer is
 * not "busy" (any other failure is said at once). The wait is the server's Retry-After (seconds or an HTTP
 * date; 5 s without one, 1–60 s), stretched by up to half at random (``rnd`` in [0, 1)) so that a class
 * behind one address, refused in the same second, does not come back in the same second.
 * @param {number} status @param {string | null} retryAfter @param {number} rnd @param {number} [now] ms
 * @returns {number | null}
 */
export function busyDelay(status, retryAfter, rnd, now = Date.now()) {
  if (status !== 429 && !(status === 503 && retryAfter)) return null;
  let s = BUSY_DEFAULT_S;
  const v = String(retryAfter || "").trim();
  if (/^[0-9]{1,6}$/.test(v)) s = Number(v);
  else if (/^[A-Za-z]{3}, /.test(v) && Number.isFinite(Date.parse(v))) s = (Date.parse(v) - now) / 1000;   // an HTTP date
  s = Math.min(BUSY_MAX_S, Math.max(1, s));
  return Math.round(s * 1000 * (1 + 0.5 * Math.min(Math.max(rnd, 0), 1)));
}

