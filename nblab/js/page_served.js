// The lab page when its iterations come from a server (the Streamlit lesson view: nbcore computes every
// iteration, served.js's run adopts them). What the reader does never waits and is never lost:
//
//   * a press that needs the next iteration (Step or M-step at the end of the run, Run to convergence, Play
//     past the latest) raises the ask's target by one and is queued; every press after it is queued behind
//     it, so the presses take effect in the order they were made, however fast they came;
//   * when the server's records arrive (`deliver`) the queue runs as far as they go;
//   * the ask the host sends to its server: { serial, have, target, resets, t } (nblab/served.py).
//
// The page's own moves (the slider, Back, the end, an E-step) need nothing from the server and run at once
// when nothing is queued.

//: actions the queue keeps in order (the rest only change what is shown)
const ORDERED = ["step", "m", "e", "back", "end"];
//: iterations Play asks for ahead of the one it shows (the server computes them one at a time)
const PLAY_AHEAD = 3;

/** Whether `name` would need θ_{t+1} from the server now. */
function needsRecord(lab, name) {
  if (lab.done && lab.half !== "e") return false;
  if (name === "m") return lab.half === "e";
  if (name === "step") return lab.half === "e" || lab.t >= lab.latest;
  return false;
}

/**
 * Serve the page `G` from a host: `host.ask(ask)` sends the ask to the server. Returns the page's served
 * state (G.served): { intercept(name, arg) → true when the action was taken over, deliver(records),
 * need(n), ask() }.
 */
export function mountServed(G, host, serial) {
  const S = {
    serial, queue: [], target: 0, resets: 0, converging: false, replaying: false, lastAsk: "",
    /** The ask now; sent when it changed (or when `force`). */
    ask(force = false) {
      const run = G.lab.run;
      S.target = Math.max(S.target, run.served);
      const a = { serial: S.serial, have: run.served, target: S.target, resets: S.resets, t: G.lab.t };
      const text = JSON.stringify(a);
      if (force || text !== S.lastAsk) { S.lastAsk = text; host.ask(a); }
    },
    /** `n` more iterations than the server has sent (Play, a queued press). */
    need(n = 1) {
      S.target = Math.max(S.target, G.lab.run.served + n);
      S.ask();
    },
    /** Play is on: keep a few iterations ahead of the one shown. */
    playing() { S.need(PLAY_AHEAD); },
    /** Take over an action that needs the server, or that must wait behind one; false: the page does it. */
    intercept(name, arg) {
      if (S.replaying) return false;
      if (name === "reset") {
        S.queue.length = 0;
        S.converging = false;
        S.resets += 1;
        S.ask();
        return true;                       // the new run comes with the next serial
      }
      if (name === "converge") {
        if (G.lab.done) return true;
        S.converging = true;
        S.target = Math.max(S.target, G.lab.run.settings.maxIter);
        S.ask();
        G.statusLine.textContent = `Running to convergence … t = ${G.lab.latest}`;
        return true;
      }
      if (!ORDERED.includes(name)) return false;
      if (!S.queue.length && !(needsRecord(G.lab, name) && !G.lab.run.ready)) return false;
      S.queue.push([name, arg]);
      S.target = Math.max(S.target, G.lab.latest + S.queue.filter(([n]) => n === "step" || n === "m").length);
      S.ask();
      G.sentence.setAttribute("aria-busy", "true");
      return true;
    },
    /** The server's records: the queue runs as far as they go, Run to convergence goes on. */
    deliver(records) {
      G.lab.run.deliver(records || []);
      S.replaying = true;
      try {
        while (S.queue.length) {
          const [name, arg] = S.queue[0];
          if (needsRecord(G.lab, name) && !G.lab.run.ready) break;
          S.queue.shift();
          G.act(name, arg);
        }
        if (S.converging) {
          G.lab.converge();
          if (G.lab.done || G.lab.latest >= S.target) S.converging = false;
          G.render(true);
        }
      } finally {
        S.replaying = false;
      }
      if (!S.queue.length && !S.converging) G.sentence.setAttribute("aria-busy", "false");
      if (S.converging) G.statusLine.textContent = `Running to convergence … t = ${G.lab.latest}`;
      S.ask();
    },
  };
  return S;
}
