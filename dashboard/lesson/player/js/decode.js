// @ts-check
// The player's frames, decoded (the mirror of dashboard/lesson/player/payload.py, which encodes them).
//
// The server sends each chart of each iteration once: a template spec per chart (sent when it changes)
// and, per iteration, a patch of the template's traces ("d": [trace index, key, value]) and layout ("l").
// A value is either plain JSON or encoded:
//   {q: base64 of little-endian uint16 codes, lo, hi, n, shape?}  numbers quantised on [lo, hi]
//                                                                 (65535: missing → null), 2-D when shaped;
//   {s: [indices]}                                                strings from the log's string table.
// Nothing here touches the page: node's test runner imports it (tests/lab/js/player_decode.test.mjs).

import { base64Bytes } from "../../../../nblab/js/data.js";

/** the largest quantisation code of a value */
export const Q_MAX = 65534;
/** the code of a missing value */
export const Q_MISSING = 65535;

/**
 * @typedef {{q: string, lo: number, hi: number, n: number, shape?: [number, number]}} Quantised
 * @typedef {{s: number[]}} StringRefs
 * @typedef {{data: Array<Object<string, any>>, layout: Object<string, any>}} TemplateSpec
 * @typedef {{tpl: number, d?: Array<[number, string, any]>, l?: object, _spec?: FrameSpec}} Patch
 * @typedef {{data: any[], layout: any, tpl: number, lkey: string, zOnly: boolean}} FrameSpec
 *   a chart's spec at one iteration: its traces, layout, template index, the layout patch as a key, and
 *   whether only heatmaps' z differ from the template
 * @typedef {{templates: Object<string, TemplateSpec[]>, frames: Array<Object<string, Patch>>, strs: string[]}} FrameLog
 * @typedef {{token: string, base: number, sbase: number, n: number, strs: string[],
 *            frames: Array<Object<string, Patch>>, templates?: Object<string, TemplateSpec[]>}} ParamsData
 *   what the params mount receives: frames from index `base` on, strings from `sbase` on
 */

/**
 * base64 of little-endian uint16 → the codes.
 * @param {string} b64
 * @returns {Uint16Array}
 */
export function u16(b64) {
  const bytes = base64Bytes(b64), n = bytes.length >> 1, out = new Uint16Array(n);
  for (let i = 0; i < n; i++) out[i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
  return out;
}

/**
 * One value of a patch, decoded: quantised numbers → numbers (null where missing; rows when shaped),
 * string references → strings of `strs`; anything else as it is.
 * @param {any} v
 * @param {string[]} strs
 * @returns {any}
 */
export function decode(v, strs) {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    if ("q" in v) {
      const codes = u16(v.q), step = (v.hi - v.lo) / Q_MAX, flat = new Array(v.n);
      for (let i = 0; i < v.n; i++) flat[i] = codes[i] === Q_MISSING ? null : v.lo + codes[i] * step;
      if (!v.shape) return flat;
      const [r, c] = v.shape, out = new Array(r);
      for (let i = 0; i < r; i++) out[i] = flat.slice(i * c, (i + 1) * c);
      return out;
    }
    if ("s" in v) return v.s.map((/** @type {number} */ i) => strs[i]);
  }
  return v;
}

/**
 * The frame logs kept by a page: one per run token (a new token drops the others).
 * @returns {Map<string, FrameLog>}
 */
export function frameLogs() {
  return new Map();
}

/**
 * A params update merged into its log: null when frames or strings are missing (an update was lost, or the
 * log is new and the update does not start at frame 0): the caller asks the server for all of them again.
 * @param {Map<string, FrameLog>} logs
 * @param {ParamsData} d
 * @returns {FrameLog | null}
 */
export function mergeLog(logs, d) {
  let log = logs.get(d.token);
  if (!log) {
    if (d.base !== 0) return null;
    logs.clear();
    log = { templates: {}, frames: [], strs: [] };
    logs.set(d.token, log);
  }
  if (d.base > log.frames.length || d.sbase > log.strs.length) return null;
  if (d.templates) log.templates = d.templates;
  log.strs.length = d.sbase; log.strs.push(...d.strs);
  log.frames.length = d.base; log.frames.push(...d.frames);
  if (log.frames.length > d.n) log.frames.length = d.n;   // the run was rewound
  return log;
}

/**
 * Chart `name`'s spec at iteration `t` (the last frame when `t` is beyond them), built once per frame and
 * kept on it: the same object for the same frame, so a redraw of an unchanged frame can be skipped.
 * @param {FrameLog} log
 * @param {string} name
 * @param {number} t
 * @returns {FrameSpec | null}
 */
export function specAt(log, name, t) {
  const f = log.frames[Math.min(t, log.frames.length - 1)];
  const p = f && f[name];
  if (!p) return null;
  if (!p._spec) {
    const tpl = log.templates[name][p.tpl];
    /** @type {Array<Object<string, any>>} */
    const data = tpl.data.map((tr) => Object.assign({}, tr));
    for (const [i, k, v] of p.d || []) data[i][k] = decode(v, log.strs);
    p._spec = { data, layout: Object.assign({}, tpl.layout, p.l || {}),
      tpl: p.tpl, lkey: p.l ? JSON.stringify(p.l) : "", zOnly: (p.d || []).every((e) => e[1] === "z") };
  }
  return p._spec;
}
