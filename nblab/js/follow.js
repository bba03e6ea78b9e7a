// Following the teacher (the class link): the pure part, no DOM. The page (boot.js) polls the teacher's
// state (the class-link contract, docs/class_link.md: GET <cid>/state.json), hands every answer to a Follower
// and applies what it says; node's test runner imports this file directly (tests/lab/js/follow.test.mjs).
//
//   poll answer ─► Follower.onPoll ─► { apply: state | null, delay }      (when following)
//   a student's own action ─► Follower.leave()   (exploring: the teacher's changes no longer move the page)
//   "Back to the teacher" ─► Follower.rejoin() ─► the latest teacher state, applied at once
//
// A teacher state is data from the network: validateState keeps the keys it knows, each checked as a link's
// value is (state.js's decide), and refuses a state whose shape is wrong. Nothing of it is ever HTML: the
// page shows the numbers and words with textContent.

import { decide, REBUILD_KEYS, CONTINUE_KEYS } from "./state.js";
import { validQuestion } from "./questions.js";
import { t } from "./i18n.js";

//: the settings a teacher's state carries (state.js's keys that make the run; t is its own key)
export const SETTING_KEYS = ["dataset", "model", "hidden", "lam", "init", "seed", "max_iter", "tol"];
//: the longest wait between polls when the teacher cannot be reached (ms)
export const MAX_DELAY = 30000;
//: the shortest poll interval the page accepts (a config asking for less gets this)
export const MIN_INTERVAL = 500;
export const DEFAULT_INTERVAL = 2000;
//: a data key as the class link names it (a shipped data set's name or a share id)
const DATA_KEY = /^[A-Za-z0-9_-]{1,100}$/;

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** The poll interval a config asks for, kept within MIN_INTERVAL–MAX_DELAY (default 2 s). */
export function interval(follow) {
  const v = isObj(follow) ? follow.intervalMs : undefined;
  if (typeof v !== "number" || !isFinite(v)) return DEFAULT_INTERVAL;
  return Math.min(MAX_DELAY, Math.max(MIN_INTERVAL, Math.round(v)));
}

/** The data key of a data URL ("data/sms_spam.json" → "sms_spam"), or null. */
export function dataKeyOf(url) {
  if (typeof url !== "string") return null;
  const m = /(?:^|\/)([^/?#]+)\.json(?:[?#].*)?$/.exec(url);
  if (!m) return null;
  let k;
  try { k = decodeURIComponent(m[1]); } catch (e) { return null; }
  return DATA_KEY.test(k) ? k : null;
}

/** The data URL of the data key `key`, in the place of the page's own (`url`: "data/sms_spam.json"), or null. */
export function dataUrlFor(url, key) {
  if (typeof url !== "string" || typeof key !== "string" || !DATA_KEY.test(key)) return null;
  const m = /^(.*?)([^/?#]+)\.json((?:[?#].*)?)$/.exec(url);
  return m ? `${m[1]}${encodeURIComponent(key)}.json` : null;
}

/**
 * A teacher's state from the network, checked. `table`: state.js's schema (the page's ranges and options).
 * Returns { state, problems } where state is null when the answer cannot be used (problems says why), else
 * { v, t, half, data, settings, open } with only the keys that were valid (settings: the keys given and
 * accepted; a value the page cannot use is left out, with a problem naming it).
 */
export function validateState(raw, table) {
  const problems = [];
  const no = (why) => ({ state: null, problems: problems.concat([why]) });
  if (!isObj(raw)) return no("the teacher's state is not an object");
  const v = raw.v;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) return no("its version (v) is not a whole number ≥ 0");
  const t = raw.t;
  const tHi = table && table.t ? table.t.hi : 1000;
  if (typeof t !== "number" || !Number.isInteger(t) || t < 0 || t > tHi) return no(`its iteration (t) is not a whole number in 0–${tHi}`);
  let half = null;
  if (own(raw, "half") && raw.half !== null && raw.half !== undefined) {
    if (raw.half === "e") half = "e";
    else problems.push("half is neither null nor \"e\": ignored");
  }
  let open = true;
  if (own(raw, "open")) {
    if (raw.open === false) open = false;
    else if (raw.open !== true) problems.push("open is not true or false: read as true");
  }
  let data = null;
  if (own(raw, "data") && raw.data !== null && raw.data !== undefined) {
    if (typeof raw.data === "string" && DATA_KEY.test(raw.data)) data = raw.data;
    else problems.push("data is not a data set's key: ignored");
  }
  const settings = {};
  if (own(raw, "settings") && raw.settings !== null && raw.settings !== undefined) {
    if (!isObj(raw.settings)) return no("its settings are not an object");
    for (const key of SETTING_KEYS) {
      if (!own(raw.settings, key) || !table || !table[key]) continue;
      const val = raw.settings[key];
      if (key === "dataset") continue;          // the data is the state's `data` key (the page holds one data set)
      if (typeof val !== "number" && typeof val !== "string") { problems.push(`settings.${key} is not a number or a word: ignored`); continue; }
      if (typeof val === "number" && !isFinite(val)) { problems.push(`settings.${key} is not a finite number: ignored`); continue; }
      if (typeof val === "string" && val.length > 200) { problems.push(`settings.${key} is too long: ignored`); continue; }
      const d = decide(key, [String(val)], table[key]);
      if (d.refused) { problems.push(`settings.${key}: ${d.why}`); continue; }
      settings[key] = d.value;
    }
  }
  let lams = null;
  if (own(raw, "lams") && raw.lams !== null && raw.lams !== undefined) {
    const got = validLams(raw.lams, tHi, table);
    if (got.lams) lams = got.lams;
    else problems.push(`lams: ${got.why}: ignored`);
  }
  // away: the teacher's page has not been heard from for a while (closed, crashed, its server down)
  let away = false;
  if (own(raw, "away")) {
    if (raw.away === true) away = true;
    else if (raw.away !== false) problems.push("away is not true or false: read as false");
  }
  // the teacher's current question ({ id, phase }: questions.js) and Pause (the students' controls wait)
  let question = null;
  if (own(raw, "question") && raw.question !== null && raw.question !== undefined) {
    question = validQuestion(raw.question);
    if (!question) problems.push("question is not a question's id and phase: ignored");
  }
  let paused = false;
  if (own(raw, "paused")) {
    if (raw.paused === true) paused = true;
    else if (raw.paused !== false) problems.push("paused is not true or false: read as false");
  }
  const state = { v, t, half, data, settings, open, away, question, paused };
  if (lams) state.lams = lams;
  return { state, problems };
}

//: the most λ changes a teacher's state lists (a longer list is not the teacher's page: ignored)
export const MAX_LAMS = 64;

/**
 * The λ history of the teacher's run, checked: [[t, λ], ...] with t = 0 first and strictly increasing, each
 * λ a value the page's λ control accepts. Entry [t, λ]: θ_t and the iterations after it were computed with λ
 * (until the next entry). Returns { lams } or { why }.
 */
export function validLams(raw, tHi = 1000, table = null) {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_LAMS) return { why: `not a list of 1–${MAX_LAMS} [t, λ] pairs` };
  const out = [];
  for (const e of raw) {
    if (!Array.isArray(e) || e.length !== 2) return { why: "an entry is not a [t, λ] pair" };
    const [t, lam] = e;
    if (typeof t !== "number" || !Number.isInteger(t) || t < 0 || t > tHi) return { why: "an entry's t is not a whole number in range" };
    if (out.length === 0 ? t !== 0 : t <= out[out.length - 1][0]) return { why: "the t's do not start at 0 and increase" };
    if (typeof lam !== "number" || !isFinite(lam) || lam < 0) return { why: "an entry's λ is not a number ≥ 0" };
    if (table && table.lam) {
      const d = decide("lam", [String(lam)], table.lam);
      if (d.refused) return { why: `λ ${String(lam).slice(0, 20)}: ${d.why}` };
    }
    out.push([t, lam]);
  }
  return { lams: out };
}

/** The λ θ_i was computed with, by the teacher's history `lams` (validLams' list). */
export function lamAt(lams, i) {
  let v = lams[0][1];
  for (const [t, lam] of lams) { if (t <= i) v = lam; else break; }
  return v;
}

/**
 * The first iteration i ≤ min(upto, latest) whose λ on this page (`lamOf(i)`: the page run's history) is not
 * the teacher's (`lams`), or -1 when they agree there. The page replays from there (boot.js).
 */
export function firstMismatch(lamOf, latest, lams, upto) {
  const end = Math.min(latest, upto);
  for (let i = 0; i <= end; i++) if (lamOf(i) !== lamAt(lams, i)) return i;
  return -1;
}

/**
 * What the page must do to show the teacher's state. `current`: { settings, t, latest, half, dataKey }
 * (dataKey: the page's data, or null when unknown). Returns
 *   { action: "reload", data }                          the teacher works on another data set;
 *   { action: "apply", patch, rebuild, cont, t, half, same } otherwise: `patch` holds the settings that differ
 *     (REBUILD keys start a new run, CONTINUE keys continue it, as a link's change), then iteration `t` is
 *     shown (computed if needed) and, if half is "e", the E-step of t + 1 is done. `same` is true when the
 *     page already shows exactly that.
 */
export function plan(current, state) {
  if (state.data && current.dataKey && state.data !== current.dataKey) return { action: "reload", data: state.data };
  const patch = {};
  for (const k of SETTING_KEYS) {
    if (k === "dataset" || !own(state.settings, k)) continue;
    if (current.settings[k] !== state.settings[k]) patch[k] = state.settings[k];
  }
  const rebuild = REBUILD_KEYS.filter((k) => own(patch, k));
  const cont = CONTINUE_KEYS.filter((k) => own(patch, k));
  const changed = rebuild.length + cont.length > 0;
  const halfNow = current.t === current.latest ? current.half || null : null;
  const same = !changed && current.t === state.t && halfNow === state.half;
  return { action: "apply", patch, rebuild, cont, t: state.t, half: state.half, same };
}

/** An ETag the page may send back (a short quoted string), or null. */
export function validEtag(tag) {
  return typeof tag === "string" && tag.length <= 100 && /^(W\/)?"[\x21\x23-\x7e]*"$/.test(tag) ? tag : null;
}

/** The wait before the next poll after `failures` failed polls in a row (doubling, at most MAX_DELAY). */
export function nextDelay(failures, intervalMs = DEFAULT_INTERVAL) {
  if (!(failures > 0)) return intervalMs;
  return Math.min(MAX_DELAY, intervalMs * Math.pow(2, Math.min(failures, 16)));
}

/**
 * The follow/explore state machine.
 *   following: the teacher's states move the page;  exploring: the student left (the states are kept, the
 *   bar names the teacher's iteration);  ended: the class is over (404/410, or open: false): polling stops.
 * `polls` counts the answers, `applied` the version last applied (-1 none), `failures` the failed polls in a row.
 * `etag`: the ETag of the last answer whose body validated, the one the next poll may revalidate (an answer that
 * did not validate is never kept, and a 304 after it is not taken for a good state).
 */
export class Follower {
  constructor(intervalMs = DEFAULT_INTERVAL) {
    this.intervalMs = intervalMs;
    this.following = true;
    this.teacher = null;        // the latest valid state
    this.polls = 0;
    this.applied = -1;
    this.failures = 0;
    this.ended = false;
    this.error = null;          // null | "unreachable" | "bad" (the last answer could not be read)
    this.etag = null;
    this.refused = false;       // the last 200 was refused: a 304 after it is no news of a good state
  }

  /**
   * One poll's outcome: { status } (a number; 0 = the network failed) with `body` (already parsed JSON) for a
   * 200, or { status: 200, invalid: true } when the body was not JSON; `etag`: the answer's ETag (a 200's).
   * `table`: state.js's schema.
   * Returns { apply: state | null (apply it now), delay (ms before the next poll; null = stop polling) }.
   */
  onPoll(res, table) {
    this.polls++;
    const status = res && typeof res.status === "number" ? res.status : 0;
    if (status === 404 || status === 410) {
      this.ended = true;
      this.error = null;
      return { apply: null, delay: null };
    }
    if (status === 304) {
      // unchanged since the answer the page asked about: that is only good news if that answer was good
      if (this.refused) {
        this.failures++;
        this.error = this.error || "bad";
        return { apply: null, delay: nextDelay(this.failures, this.intervalMs) };
      }
      this.failures = 0;
      this.error = null;
      return { apply: null, delay: this.intervalMs };
    }
    if (status !== 200 || res.invalid) {
      this.failures++;
      this.error = status === 200 ? "bad" : "unreachable";
      if (status === 200) { this.etag = null; this.refused = true; }
      return { apply: null, delay: nextDelay(this.failures, this.intervalMs) };
    }
    const { state } = validateState(res.body, table);
    if (!state) {
      this.failures++;
      this.error = "bad";
      this.etag = null;
      this.refused = true;
      return { apply: null, delay: nextDelay(this.failures, this.intervalMs) };
    }
    this.failures = 0;
    this.error = null;
    this.etag = validEtag(res.etag);
    this.refused = false;
    // an older version than the one held (a reordered answer, a stale cache) changes nothing
    if (this.teacher && state.v < this.teacher.v) return { apply: null, delay: this.intervalMs };
    this.teacher = state;
    if (!state.open) {
      this.ended = true;
      return { apply: null, delay: null };
    }
    const fresh = state.v !== this.applied;
    return { apply: this.following && fresh ? state : null, delay: this.intervalMs };
  }

  /** The page applied `state` (its version is remembered: the same version is not applied again). */
  done(state) { if (state) this.applied = state.v; }

  /** The student acted on their own: stop following. Returns true if that changed anything. */
  leave() {
    if (!this.following) return false;
    this.following = false;
    return true;
  }

  /** "Back to the teacher": follow again; returns the state to apply now (null if none known yet). */
  rejoin() {
    if (this.ended) return null;
    this.following = true;
    return this.teacher;
  }

  /** What the bar says: { mode: "following" | "exploring" | "ended", text, button (show "Back to the teacher") }. */
  bar() {
    const T = this.teacher;
    const at = T ? (T.half === "e" ? t("iteration {t} (E-step done)", { t: T.t }) : t("iteration {t}", { t: T.t })) : null;
    if (this.ended) {
      return { mode: "ended", button: false,
        text: t("The class has ended. The lab keeps working here: explore on your own.") };
    }
    const trouble = this.error === "unreachable" ? t("Can't reach the teacher's lesson — retrying")
      : this.error === "bad" ? t("The teacher's lesson sent something this page cannot read — retrying")
      : T && T.away ? t("The teacher's lesson has not been heard from for a while (their page may be closed) — "
        + "the lab keeps working here; it follows again when the teacher is back") : null;
    if (this.following) {
      const text = trouble ? trouble + (T ? " " + t("(last seen at {at})", { at }) : "") + "."
        : T ? t("Following the teacher — {at}", { at }) : t("Following the teacher — waiting for the lesson…");
      return { mode: "following", button: false, text };
    }
    const base = T ? t("Exploring on your own — the teacher is at {at}", { at }) : t("Exploring on your own");
    return { mode: "exploring", button: !!T, text: trouble ? `${base}. ${trouble}.` : base };
  }
}
