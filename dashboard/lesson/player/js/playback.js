// @ts-check
// Playback: which iteration the player shows, and Play / Pause / drag as a small state machine.
//
// Pure: no page, no plotly, no clock of its own (the caller passes `now`, in ms). The player (player.js)
// owns one Playback, calls these functions on the user's and the server's events, and draws what they
// leave in it. Node's test runner imports this module (tests/lab/js/player_playback.test.mjs).
//
// Words used below:
//   n         iterations the server has sent (0 … n-1); the run is `done` when the server says so;
//   t         the iteration shown;
//   revealed  the furthest iteration shown since the server last moved the run: while playing, the charts
//             hide iterations after it (a curtain), so a replay does not give away what comes next;
//   seenBefore  the furthest iteration shown when Play was last pressed: playing through iterations up to it
//             is a replay (the status line says "Replaying"), beyond it the run is new to the viewer;
//   seq       the server's count of its own moves of the run (Step, Reset, convergence): a new seq makes
//             the player go to the iteration the page shows.

/**
 * @typedef {Object} Playback
 * @property {string | null} run      the run's token (a new token is a new run)
 * @property {number} n
 * @property {boolean} done
 * @property {number} t
 * @property {number} revealed
 * @property {number} seenBefore
 * @property {boolean} playing
 * @property {boolean} dragging       the slider is held (the charts draw cheap frames meanwhile)
 * @property {number} fps             iterations shown per second while playing
 * @property {number} seq
 * @property {number} playId         one per Play press: a late "need" of a paused play is ignored
 * @property {number} lastAdvance    when Play last moved t (ms; 0: not yet)
 * @property {number} pendingNeed    when more iterations were last asked for (ms; 0: none pending)
 * @property {number} goneAt         since when the player's bar has been missing while playing (ms; 0: there)
 * @property {boolean} lastInputPlay  the user's last input was Play (a new run arriving after it plays on)
 */

/**
 * What the server sends about the run (the main mount's data).
 * @typedef {{run: string, n: number, done: boolean, fps: number, seq: number, t: number, revealed: number}} RunData
 */

/** How long a request for more iterations is waited for before it is sent again (ms). */
export const NEED_RETRY_MS = 3000;
/** How long Play waits for its bar to come back (a rerun re-creates it) before it stops (ms). */
export const GONE_MS = 1500;

/**
 * A stopped player with nothing to show.
 * @param {number} [playId] the first play's id (random: ids of plays of an earlier page never match)
 * @returns {Playback}
 */
export function create(playId = Math.floor(Math.random() * 1e6)) {
  return { run: null, n: 0, done: false, t: 0, revealed: 0, seenBefore: 0, playing: false, dragging: false, fps: 5, seq: -1,
    playId, lastAdvance: 0, pendingNeed: 0, goneAt: 0, lastInputPlay: false };
}

/**
 * Show iteration `t` (clamped to 0 … n-1). While playing, what is shown is revealed.
 * @param {Playback} s
 * @param {number} t
 * @returns {boolean} whether the iteration shown changed
 */
export function setT(s, t) {
  t = Math.max(0, Math.min(s.n - 1, t | 0));
  if (t === s.t) return false;
  s.t = t;
  if (s.playing) s.revealed = Math.max(s.revealed, t);
  return true;
}

/**
 * Play: from where it is, or from the start at the end of a finished run.
 * @param {Playback} s
 * @returns {boolean} false when it was playing already
 */
export function play(s) {
  if (s.playing) return false;
  s.playId++;
  if (s.t >= s.n - 1 && s.done) s.t = 0;   // at the end of a finished run: play it again from the start
  s.playing = true;
  s.revealed = Math.max(s.revealed, s.t);
  s.seenBefore = s.revealed;
  s.lastAdvance = 0;
  return true;
}

/**
 * Pause (a drag or a key on the slider pauses too): what was shown stays revealed.
 * @param {Playback} s
 * @returns {boolean} false when it was not playing
 */
export function pause(s) {
  if (!s.playing) return false;
  s.playing = false;
  s.revealed = Math.max(s.revealed, s.t);
  return true;
}

/**
 * Whether the Play button can do anything: not on a finished run of one iteration.
 * @param {Playback} s
 */
export function canPlay(s) {
  return s.playing || s.n > 1 || !s.done;
}

/**
 * One animation frame while playing: move on when an interval has passed (keeping the beat: a late frame
 * does not push the next one back, a long stall restarts it), pause at the end of a finished run, stop when
 * the bar has been gone too long.
 * @param {Playback} s
 * @param {number} now
 * @param {boolean} barThere whether the player's bar is on the page
 * @returns {"stopped" | "end" | "gone" | "moved" | "waiting"} what happened ("end": paused at the end,
 *   "gone": stopped; "stopped": it was not playing)
 */
export function tick(s, now, barThere) {
  if (!s.playing) return "stopped";
  if (!barThere) {                       // the bar was re-created (a rerun moved it): carry on unless it is gone
    if (!s.goneAt) s.goneAt = now;
    if (now - s.goneAt > GONE_MS) { s.playing = false; return "gone"; }
  } else s.goneAt = 0;
  const interval = 1000 / s.fps;
  if (now - s.lastAdvance >= interval - 4) {
    if (s.t < s.n - 1) {
      s.lastAdvance = s.lastAdvance && now - s.lastAdvance < 2 * interval ? s.lastAdvance + interval : now;
      setT(s, s.t + 1);
      return "moved";
    }
    if (s.done) {
      pause(s);
      return "end";
    }
  }
  return "waiting";
}

/**
 * While playing, the request for more iterations the server should compute, or null: none needed yet
 * (more than max(3, fps) left to show), the run is done, or a request is still pending.
 * @param {Playback} s
 * @param {number} now
 * @returns {{run: string | null, upto: number, t: number, revealed: number, play: number} | null}
 */
export function need(s, now) {
  if (s.done || !s.playing || s.n - 1 - s.t >= Math.max(3, s.fps)) return null;
  if (s.pendingNeed && now - s.pendingNeed < NEED_RETRY_MS) return null;
  s.pendingNeed = now;
  const chunk = Math.max(5, Math.ceil(s.fps * 1.5));
  return { run: s.run, upto: s.n - 1 + chunk, t: s.t, revealed: s.revealed, play: s.playId };
}

/**
 * What the player reports to the server (state "view").
 * @param {Playback} s
 */
export function view(s) {
  return { run: s.run, t: s.t, revealed: s.revealed, playing: s.playing, play: s.playId };
}

/**
 * The server's data about the run, adopted. A new run (Reset, other data) stops Play, as Reset promises,
 * unless Play was the user's last input (Home then P, faster than the server answers): then it plays the new
 * run from its start. A new seq (the server moved the run) shows the page's iteration unless playing.
 * @param {Playback} s
 * @param {RunData} d
 * @returns {{newRun: boolean, playOn: boolean}} whether the run is new and, if so, whether Play goes on
 */
export function adopt(s, d) {
  const newRun = s.run !== d.run;
  let playOn = false;
  if (newRun) {
    playOn = s.playing && s.lastInputPlay;
    s.run = d.run; s.seq = -1; s.revealed = 0; s.seenBefore = 0;
    if (playOn) { s.t = 0; s.playId++; s.lastAdvance = 0; s.pendingNeed = 0; }
    else s.playing = false;
  }
  if (d.n !== s.n || d.done !== s.done) s.pendingNeed = 0;   // the iterations asked for have come
  s.n = d.n; s.done = d.done; s.fps = d.fps;
  if (d.seq !== s.seq) {
    s.seq = d.seq;
    if (!s.playing) { s.t = Math.min(d.t, s.n - 1); s.revealed = Math.max(d.revealed, s.t); }
  }
  s.t = Math.min(s.t, s.n - 1);
  s.revealed = Math.min(Math.max(s.revealed, 0), s.n - 1);
  return { newRun, playOn };
}

/**
 * Whether the iteration the server sent ahead (`next`: the run stepped once more) can be shown now, on Step.
 * @param {Playback} s
 * @param {{run: string, from: number} | null} next
 */
export function canStepAhead(s, next) {
  return !!next && next.run === s.run && next.from === s.n && !s.playing;
}

/**
 * Step answered here: the iteration sent ahead becomes the latest, and is shown.
 * @param {Playback} s
 * @param {{n: number, done: boolean}} next
 */
export function stepAhead(s, next) {
  s.n = next.n; s.done = next.done;
  s.t = s.n - 1; s.revealed = s.t;
}

/**
 * Whether the curtain hides iterations after `revealed` (playing, or a replay not yet at the end).
 * @param {Playback} s
 */
export function curtained(s) {
  return s.playing || s.revealed < s.n - 1;
}

/**
 * Whether an earlier iteration than the latest is shown ("Showing iteration t of n").
 * @param {Playback} s
 */
export function showingEarlier(s) {
  return s.t < s.n - 1;
}
