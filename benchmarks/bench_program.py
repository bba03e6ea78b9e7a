"""Step in the app's lesson view: the lesson program (``?player=program``: nbcore on the server computes the
iteration, the lab's page draws it) against today's view (the Streamlit panels and the browser player), in
the same run, interleaved round by round (a busy machine slows both alike).

For each data set, one app server (``streamlit run dashboard/server.py``), one Chromium, one page per view;
each round presses Step once on each page and times the press to the new iteration drawn:

* program: the click → the page's charts drawn for the new iteration (``G.drawing`` resolved), and the
  bytes the server sent over the WebSocket for that Step (the records of θ_t, ``nblab/served.py``);
* today:   the click → the metrics row shows the new iteration and Streamlit's script run is over.

Goals (issue "the lesson drawn once"): Step to new charts ≤ 150 ms on sms_spam, ≤ 400 ms on udhr_langid.

    python benchmarks/bench_program.py                      # sms_spam and udhr_langid, 8 rounds
    python benchmarks/bench_program.py sms_spam --rounds 12
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from kit.browser import ARGS, CHROMIUM, ITER_JS, SCRIPT_IDLE_JS  # noqa: E402
from kit.server import streamlit_server  # noqa: E402

GOALS = {"sms_spam": 150.0, "udhr_langid": 400.0}
READY = "() => { const E = window.__nblabLesson; return !!(E && E.G && E.G.ready); }"
# one Step on the lesson program, to its charts drawn: ms
PROGRAM_STEP = """async () => {
  const G = window.__nblabLesson.G, raf = () => new Promise((r) => requestAnimationFrame(r));
  await G.drawing; await raf();
  const n = G.lab.latest + 1, t0 = performance.now();
  [...document.querySelectorAll('.lab-bar button')].find((b) => b.textContent.startsWith('Step')).click();
  while (G.lab.latest < n || G.served.queue.length) await raf();
  await G.drawing;
  return performance.now() - t0;
}"""


def _ws_bytes(page) -> list[int]:
    got: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: got.append(len(f) if f else 0)))
    return got


def bench(dataset: str, rounds: int) -> dict:
    from playwright.sync_api import sync_playwright

    out = {"program": [], "today": [], "bytes": []}
    with streamlit_server() as srv, sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        base = srv.url
        prog = b.new_page(viewport={"width": 1280, "height": 720})
        frames = _ws_bytes(prog)
        prog.goto(f"{base}/?player=program&dataset={dataset}&max_iter=300&tol=1e-08")
        prog.wait_for_function(READY, timeout=240_000)
        today = b.new_page(viewport={"width": 1280, "height": 720})
        today.goto(f"{base}/?dataset={dataset}&max_iter=300&tol=1e-08")
        today.wait_for_function(f"() => ({ITER_JS})() >= 0", timeout=240_000)
        today.wait_for_function(SCRIPT_IDLE_JS, timeout=240_000)
        for _ in range(rounds):
            before = sum(frames)
            out["program"].append(prog.evaluate(PROGRAM_STEP))
            out["bytes"].append(sum(frames) - before)
            n = today.evaluate(ITER_JS)
            t0 = time.perf_counter()
            today.locator(".st-key-step button:visible").first.click()
            today.wait_for_function(f"() => ({ITER_JS})() >= {n + 1}", timeout=240_000)
            today.wait_for_function(SCRIPT_IDLE_JS, timeout=240_000)
            out["today"].append((time.perf_counter() - t0) * 1000)
        b.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", default=["sms_spam", "udhr_langid"])
    ap.add_argument("--rounds", type=int, default=8)
    a = ap.parse_args(argv)
    for name in a.datasets:
        r = bench(name, a.rounds)
        prog, today = statistics.median(r["program"]), statistics.median(r["today"])
        kb = statistics.median(r["bytes"]) / 1024
        goal = GOALS.get(name)
        print(f"{name}: Step to new charts, program {prog:.0f} ms (goal ≤ {goal:.0f} ms) · today's view {today:.0f} ms"
              f" · ratio {prog / today:.2f} · {kb:.0f} KB sent per Step · {a.rounds} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
