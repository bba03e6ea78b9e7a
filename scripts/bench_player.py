#!/usr/bin/env python
"""Benchmark of the lesson view in a real browser: the player against the server-rendered charts.

Starts `streamlit run dashboard/app.py` on a free 127.0.0.1 port, drives Debian's Chromium with
Playwright and measures, on the default lesson and on digits, each as the median of --repeat runs
(fresh browser context each run), with the player (default) and with ``?player=off`` (the
server-rendered charts: the named baseline, measured in the same run):

  cold load      navigation start -> every chart of the page drawn (ms)
  page complete  navigation start -> the panels below the charts are there too (the maths panel: with the
                 player they come in a second render, asked for once the charts are drawn) (ms)
  plotly.js      bytes and load time of the plotly.js chunk (Streamlit's own; the player reuses it)
  step           Step click -> every chart updated (ms; "updated" = the last plotly draw the click caused;
                 the player's hidden buffers, drawn ahead, are not counted: nobody sees them)
  step page      Step click -> the page's iteration metric shows the new iteration (the server's rerun,
                 which also brings the maths panel, the documents and the rest of the page)
  lambda         λ change (the first of the session, then a second one) -> every chart updated (ms)
  server CPU     server process CPU per Step (ms; /proc utime+stime around the click)
  drag           distinct iterations drawn per second while the mouse drags the iteration slider
                 (one slider position per mouse move, for --drag-seconds)
  play           distinct iterations drawn per second at the fastest Play speed on a long run
  pause          Pause obeyed on the first click (the iteration stays put afterwards), at each speed

It prints the machine's load average before and after (2 shared cores: absolute numbers are
noisy; compare the two modes, measured side by side). Not a test: nothing is asserted.

    python scripts/bench_player.py                       # default lesson + digits, 3 runs each
    python scripts/bench_player.py --repeat 5 --json artifacts/bench_player.json
    python scripts/bench_player.py --datasets digits --modes on
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from kit.server import streamlit_server  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LONG_RUN = "tol=1e-08&max_iter=150&init=random"   # many iterations for drag and Play

# In-page instrumentation: the time of every user input, and of every change to a chart's DOM.
# A chart "draw" is any DOM mutation inside a plotly chart or the player's marker overlay, seen by a
# MutationObserver (its callback runs right after the script that changed the DOM): this catches
# Plotly.newPlot / react from st.plotly_chart (whose plotly.js is a module, not window.Plotly) and
# from the player alike, and the player's marker moves, which make no plotly call at all.
# B.frames counts animation frames in which some chart changed (the frames a viewer could see).
INSTRUMENT = """
(() => {
  if (window.__bench) return;
  const B = window.__bench = { inputs: [], draws: [], frames: 0, dirty: false };
  for (const ev of ["click", "keydown", "pointerdown"])
    document.addEventListener(ev, (e) => B.inputs.push([ev, e.timeStamp]), true);
  const isChart = (n) => {
    const el = n && (n.nodeType === 1 ? n : n.parentElement);
    // the player's hidden buffers (.nbp-back: the next iteration drawn ahead, unseen) are not draws
    return !!(el && el.closest && el.closest('.js-plotly-plot, .nbp-overlay, .stPlotlyChart')
              && !el.closest('.nbp-back'));
  };
  B.pageDone = null;   // the maths panel's expander appeared: the page is complete
  new MutationObserver((muts) => {
    if (B.pageDone === null && [...document.querySelectorAll('[data-testid="stExpander"] summary')]
        .some((e) => e.textContent.includes('The maths of this iteration')))
      B.pageDone = performance.now();
    if (muts.some((m) => isChart(m.target))) {
      const t = performance.now();
      if (B.draws.length > 5000) B.draws.splice(0, 2500);
      B.draws.push(t);
      B.dirty = true;
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const raf = () => { if (B.dirty) { B.frames++; B.dirty = false; } requestAnimationFrame(raf); };
  requestAnimationFrame(raf);
})();
"""

ITERATION_JS = """() => {
  const m = [...document.querySelectorAll('[data-testid="stMetric"]')].find(e => e.innerText.includes('Iteration'));
  return m ? parseInt(m.querySelector('[data-testid="stMetricValue"]').innerText) : -1; }"""

IDLE_JS = """(want) => {
  const s = document.querySelector('[data-testid="stStatusWidget"]');
  if (s && s.innerText.includes('Running')) return false;
  const plots = [...document.querySelectorAll('.js-plotly-plot:not(.nbp-back)')].filter(g => g._fullLayout);
  return plots.length >= want;
}"""


def cpu_ms(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def settle(page, quiet_ms: int = 350, timeout_s: float = 60.0, after: float | None = None) -> float:
    """Wait until no chart changed for quiet_ms (and, given `after`, until some chart changed after
    that page time: a notice or the metric can show before the charts are redrawn); return the
    time of the last chart change (page clock)."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        last, now = page.evaluate("() => [window.__bench.draws.at(-1) || 0, performance.now()]")
        idle = page.evaluate(IDLE_JS, 0)
        if idle and now - last >= quiet_ms and (after is None or last > after):
            return last
        page.wait_for_timeout(60)
    return page.evaluate("() => window.__bench.draws.at(-1) || 0")


def n_charts(dataset: str) -> int:
    """Charts on the lesson page: α, accuracy, likelihood and the parameter chart (sms_spam and digits
    have no known truth, so no truth scatter)."""
    return 4


def open_page(browser, url: str, want: int):
    ctx = browser.new_context(viewport={"width": 1600, "height": 1800})
    page = ctx.new_page()
    page.add_init_script(INSTRUMENT)
    page.goto(url, wait_until="commit")
    page.wait_for_function(IDLE_JS, arg=want, timeout=120_000, polling=20)
    last = settle(page)
    return ctx, page, last


def click_play(page) -> None:
    """Play: the player's button, or the server's (whose name carries its shortcut "P")."""
    page.locator('[data-testid="nbpPlay"], .st-key-play button').first.click()


PLAYING_JS = """() => { const P = window.nbemPlayerSnapshot?.();
  return P && P.main ? P.playing : !!document.querySelector('.st-key-pause button'); }"""


def click_pause(page) -> None:
    page.locator('[data-testid="nbpPlay"], .st-key-pause button').first.click()


def pause_if_playing(page) -> None:
    """Pause unless the run has ended by itself: checked and clicked in one step in the page (a run
    that converges between a check and a Playwright click would leave no Pause button, or Play again)."""
    page.evaluate("""() => { const P = window.nbemPlayerSnapshot?.();
      if (P && P.main) { if (P.playing) document.querySelector('[data-testid="nbpPlay"]').click(); return; }
      const b = document.querySelector('.st-key-pause button'); if (b) b.click(); }""")


def input_time(page, kind: str) -> float:
    return page.evaluate(f"() => window.__bench.inputs.filter(e => e[0] === '{kind}').at(-1)[1]")


def step_once(page, pid: int) -> tuple[float, float, float]:
    """(Step click -> last chart drawn, Step click -> the page's iteration metric updated (the server's
    rerun: metrics, maths panel, documents), server CPU) in ms."""
    n0 = page.evaluate(ITERATION_JS)
    c0 = cpu_ms(pid)
    page.locator(".st-key-step button").first.click()
    page.wait_for_function(f"() => ({ITERATION_JS})() === {n0 + 1}", timeout=60_000, polling=5)
    t_page = page.evaluate("() => performance.now()")
    t_in = input_time(page, "click")
    last = settle(page, after=t_in)
    c1 = cpu_ms(pid)
    return last - t_in, t_page - t_in, c1 - c0


def lam_change(page) -> float:
    """λ one notch down with the keyboard on the sidebar's λ slider (an <input type=range> since
    Streamlit 1.5x: found by its accessible name, its value read from the input)."""
    lam = page.get_by_role("slider", name="Smoothing λ")
    before = lam.input_value()
    old_text = lam.get_attribute("aria-valuetext")
    lam.focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("(b) => { const s = [...document.querySelectorAll('[data-testid=\"stSidebar\"] "
                           "input[type=range]')].find(e => e.getAttribute('aria-label') === 'Smoothing λ');"
                           " return s && s.value !== b; }", arg=before, timeout=30_000)
    new_text = lam.get_attribute("aria-valuetext")
    page.get_by_text(f"λ changed {old_text} → {new_text}").first.wait_for(timeout=60_000)
    t_in = input_time(page, "keydown")
    last = settle(page, after=t_in)
    return last - t_in


def drag_rate(page, mode: str, seconds: float) -> dict | None:
    """Distinct iterations drawn per second while the mouse drags the slider (one position per move).

    Player: its own counter of distinct iterations drawn. Server-rendered: Streamlit's slider reports
    only on release, so no chart changes while the mouse moves (animation frames with a chart change)."""
    if mode == "off":
        slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').last
    else:
        slider = page.locator(".nbp-slider")
    box = slider.bounding_box()
    n = page.evaluate(ITERATION_JS)
    if not box or n < 4:
        return None
    y = box["y"] + box["height"] / 2
    x0, x1 = box["x"] + 8, box["x"] + box["width"] - 8
    pos = [x0 + (x1 - x0) * k / n for k in range(n + 1)]
    page.mouse.move(pos[-1], y)
    page.mouse.down()
    before = page.evaluate("() => [window.nbemPlayerSnapshot?.() ? window.nbemPlayerSnapshot?.().stats.distinct : 0,"
                           " window.__bench.frames, performance.now()]")
    k, direction, moves = n, -1, 0
    t_end = time.time() + seconds
    while time.time() < t_end:
        k += direction
        if k <= 0 or k >= n:
            direction = -direction
        page.mouse.move(pos[max(0, min(n, k))], y)
        moves += 1
    after = page.evaluate("() => [window.nbemPlayerSnapshot?.() ? window.nbemPlayerSnapshot?.().stats.distinct : 0,"
                          " window.__bench.frames, performance.now()]")
    page.mouse.up()
    secs = (after[2] - before[2]) / 1000.0
    frames = after[0] - before[0] if mode == "on" else after[1] - before[1]
    return {"fps": frames / secs, "frames": frames, "moves_per_s": round(moves / secs, 1), "seconds": round(secs, 2), "moves": moves, "positions": n + 1}


def measure(browser, base: str, pid: int, dataset: str, mode: str, drag_seconds: float) -> dict:
    q = f"dataset={dataset}&" if dataset != "default" else ""
    off = "player=off&" if mode == "off" else ""
    want = n_charts(dataset)
    out: dict = {}
    t0 = time.time()
    ctx, page, last = open_page(browser, f"{base}/?{q}{off}", want)
    out["cold_load_ms"] = last  # page clock starts at navigation
    # the rest of the page (with the player, a second render once the charts are drawn); the Steps
    # below start from the complete page, as a teacher's would
    page.wait_for_function("() => window.__bench.pageDone !== null", timeout=120_000, polling=20)
    page.wait_for_function(IDLE_JS, arg=want, timeout=120_000, polling=20)
    out["page_complete_ms"] = max(last, page.evaluate("() => window.__bench.pageDone"))
    res = page.evaluate("() => performance.getEntriesByType('resource').filter(r => r.name.includes('PlotlyChart') || r.name.includes('plotly-nbem'))"
                        ".map(r => [r.transferSize || r.encodedBodySize, r.duration])")
    if res:
        out["plotly_bytes"], out["plotly_fetch_ms"] = res[0]
    steps, pages, cpus = [], [], []
    for _ in range(3):
        ms, page_ms, cpu = step_once(page, pid)
        steps.append(ms)
        pages.append(page_ms)
        cpus.append(cpu)
    out["step_ms"] = statistics.median(steps)
    out["step_page_ms"] = statistics.median(pages)
    out["server_cpu_per_step_ms"] = statistics.median(cpus)
    out["lambda_first_ms"] = lam_change(page)
    out["lambda_second_ms"] = lam_change(page)
    ctx.close()

    # long run: Play at the fastest speed, then Pause on the first click at every speed, then drag
    ctx, page, _ = open_page(browser, f"{base}/?{q}{off}{LONG_RUN}&speed=fastest", want)
    sampler = ("() => { window.__shown = []; const tick = () => { const P = window.nbemPlayerSnapshot?.();"
               " const v = P ? P.stats.lastDrawn : (" + ITERATION_JS + ")();"
               " window.__shown.push([performance.now(), v]); if (window.__shown.length < 20000)"
               " requestAnimationFrame(tick); }; requestAnimationFrame(tick); }")
    page.evaluate(sampler)
    click_play(page)
    # play until the run ends by itself (it converges: sms_spam from a random start takes ~40
    # iterations, ~1 s at the fastest speed) or for at most 5 s, then Pause
    page.wait_for_function(PLAYING_JS, timeout=60_000, polling=20)
    t_end = time.time() + 5.0
    while time.time() < t_end and page.evaluate(PLAYING_JS):
        page.wait_for_timeout(100)
    shown = page.evaluate("() => window.__shown")
    pause_if_playing(page)
    settle(page)
    vals = [(t, v) for t, v in shown if v is not None and v >= 0]
    changes = [t for (a, b), (t, _) in zip(zip(vals, vals[1:]), vals[1:]) if b[1] != a[1]]
    if len(changes) >= 3:
        # frames/s from the first to the last new iteration shown (the Play click's latency excluded)
        out["play_fastest_fps"] = (len(changes) - 1) / ((changes[-1] - changes[0]) / 1000.0)
        out["play_frames"] = len(changes)
    # Pause obeys at every speed (player only: the server path has its own test)
    if mode == "on":
        obeyed = {}
        for speed in ("slow", "normal", "fast", "fastest"):
            page.goto(f"{base}/?{q}{LONG_RUN}&speed={speed}", wait_until="commit")
            page.wait_for_function(IDLE_JS, arg=want, timeout=120_000)
            settle(page)
            click_play(page)
            page.wait_for_function("() => window.nbemPlayerSnapshot?.().t >= 2", timeout=60_000)
            click_pause(page)
            t_pause = page.evaluate("() => window.nbemPlayerSnapshot?.().t")
            page.wait_for_timeout(1500)
            t_after = page.evaluate("() => [window.nbemPlayerSnapshot?.().t, window.nbemPlayerSnapshot?.().playing]")
            obeyed[speed] = (t_after[0] == t_pause and not t_after[1])
        out["pause_first_click"] = obeyed
    # drag over a finished long run
    page.goto(f"{base}/?{q}{off}{LONG_RUN}", wait_until="commit")
    page.wait_for_function(IDLE_JS, arg=want, timeout=120_000)
    settle(page)
    page.locator(".st-key-converge button").first.click()
    page.wait_for_function(f"() => ({ITERATION_JS})() > 5", timeout=120_000)
    settle(page, quiet_ms=600)
    r = drag_rate(page, mode, drag_seconds)
    if r:
        out["drag_fps"] = r["fps"]
        out["drag"] = r
    ctx.close()
    out["wall_s"] = round(time.time() - t0, 1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--datasets", default="default,digits")
    ap.add_argument("--modes", default="on,off")
    ap.add_argument("--drag-seconds", type=float, default=2.0)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    load0 = os.getloadavg()
    results: dict = {}
    with streamlit_server() as srv, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        # warm the server (imports, data caches) once: the runs below measure the browser side
        ctx, page, _ = open_page(browser, srv.url, n_charts("default"))
        ctx.close()
        for ds in args.datasets.split(","):
            for mode in args.modes.split(","):
                runs = []
                for i in range(args.repeat):
                    r = measure(browser, srv.url, srv.proc.pid, ds, mode, args.drag_seconds)
                    print(f"{ds:8s} player={mode:3s} run {i + 1}: {json.dumps(r)}", flush=True)
                    runs.append(r)
                results[f"{ds}/{mode}"] = runs
        browser.close()
    load1 = os.getloadavg()
    print(f"\nload average before: {' '.join(f'{x:.2f}' for x in load0)}   after: "
          f"{' '.join(f'{x:.2f}' for x in load1)}   ({os.cpu_count()} cores)")
    keys = ["cold_load_ms", "page_complete_ms", "plotly_bytes", "step_ms", "step_page_ms", "lambda_first_ms", "lambda_second_ms",
            "server_cpu_per_step_ms", "play_fastest_fps", "drag_fps"]
    summary = {}
    for name, runs in results.items():
        row = {}
        for k in keys:
            vals = [r[k] for r in runs if r.get(k) is not None]
            row[k] = round(statistics.median(vals), 1) if vals else None
        summary[name] = row
    print(f"\n{'medians':18s} " + " ".join(f"{k:>14s}" for k in keys))
    for name, row in summary.items():
        print(f"{name:18s} " + " ".join(f"{'—' if row[k] is None else row[k]:>14}" for k in keys))
    for ds in args.datasets.split(","):
        on, off = summary.get(f"{ds}/on"), summary.get(f"{ds}/off")
        if on and off:
            for k in ("cold_load_ms", "page_complete_ms", "step_ms", "lambda_first_ms", "server_cpu_per_step_ms"):
                if on[k] and off[k]:
                    print(f"{ds}: {k} player / server-rendered baseline = {on[k] / off[k]:.2f}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"summary": summary, "runs": results, "loadavg_before": load0,
                                               "loadavg_after": load1, "when": time.strftime("%Y-%m-%d %H:%M")},
                                              indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
