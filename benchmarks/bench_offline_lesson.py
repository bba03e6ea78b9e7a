"""The offline lesson (dashboard/lesson/export.py): file size, load to first chart, frames per second.

For each case the lesson is built as the app builds it (LessonRun), run to convergence (or to its
iteration cap) and exported; then Chromium (Playwright, /usr/bin/chromium) opens the file from
file:// with every non-file request blocked and measures:

* size: the file raw and gzipped (gzip -6);
* first chart: navigation start → the first chart of the player drawn (performance.now() in the page),
  median of 3 cold loads (a fresh page each);
* dragging: the slider moved through every iteration and back (input events, one per animation frame,
  the player in its drag mode), frames drawn per second;
* playing: Play at 60 iterations/s from t = 0, distinct iterations drawn per second.

    python benchmarks/bench_offline_lesson.py            # all cases
    python benchmarks/bench_offline_lesson.py sms_spam   # one

Budget (docs/offline.md): default lesson ≤ 2 MB and first chart ≤ 1 s; dragging ≥ 20 frames/s, also on
the long run (150 iterations, random initialisation).
"""
from __future__ import annotations

import gzip
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]

CASES = {
    "sms_spam": dict(dataset="sms_spam", model="bernoulli", hidden_pct=90, init="labeled", max_iter=100, tol=1e-6),
    "digits": dict(dataset="digits", model="bernoulli", hidden_pct=90, init="labeled", max_iter=100, tol=1e-6),
    "udhr_langid": dict(dataset="udhr_langid", model="multinomial", hidden_pct=90, init="labeled", max_iter=100,
                        tol=1e-6),
    # the default lesson from a random start, held to exactly 150 iterations (a negative tolerance never
    # stops it early: EM from this start reaches a fixed point at t = 58)
    "long_random_150": dict(dataset="sms_spam", model="bernoulli", hidden_pct=90, init="random", max_iter=150,
                            tol=-1.0),
}

FIRST_CHART = ("() => { const gd = document.querySelector('.nbp-grid .js-plotly-plot');"
               " return gd && gd._fullLayout ? (window.__nbemFirst || (window.__nbemFirst = performance.now())) : 0; }")
READY = ("() => { const gd = document.querySelector('.nbp-params .js-plotly-plot:not(.nbp-back)');"
         " return !!(gd && gd._fullLayout && window.__nbemOffline); }")
DRAG = """async () => {
  const P = window.__nbemPlayer, s = document.querySelector('.nbp-slider');
  const raf = () => new Promise((r) => requestAnimationFrame(r));
  s.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
  const ts = [...Array(P.n).keys()].reverse().concat([...Array(P.n).keys()]);
  await raf();
  const t0 = performance.now(), d0 = P.stats.draws;
  for (const t of ts) { s.value = String(t); s.dispatchEvent(new Event('input', { bubbles: true })); await raf(); }
  const dt = performance.now() - t0;
  document.dispatchEvent(new PointerEvent('pointerup', { bubbles: true }));
  return { frames: ts.length, ms: dt, draws: P.stats.draws - d0 };
}"""
PLAY = """async () => {
  const P = window.__nbemPlayer;
  document.querySelector('.nbp-slider').value = '0';
  document.querySelector('.nbp-slider').dispatchEvent(new Event('input', { bubbles: true }));
  await new Promise((r) => setTimeout(r, 300));
  P.fps = 60;
  const d0 = P.stats.distinct, t0 = performance.now();
  document.querySelector('.nbp-play').click();
  await new Promise((r) => { const w = () => (P.playing ? requestAnimationFrame(w) : r()); requestAnimationFrame(w); });
  return { iterations: P.stats.distinct - d0, ms: performance.now() - t0 };
}"""


def build(case: str) -> tuple[Path, int, float]:
    from nblab.config import DataConfig
    from nblab.lesson_run import LessonRun
    from dashboard.lesson import export

    c = CASES[case]
    cfg = DataConfig(seed=0, unlabeled_weight=1.0, **c)
    lr = LessonRun()
    lr.sync(cfg, 1.0)
    if lr.error:
        raise SystemExit(f"{case}: {lr.error}")
    lr.converge()
    path = Path(tempfile.mkdtemp(prefix="nbem_offline_")) / f"{case}.html"
    t0 = time.perf_counter()
    export.export_lesson(lr, None, path)
    return path, lr.latest, time.perf_counter() - t0


def measure(browser, path: Path) -> dict:
    loads = []
    for _ in range(3):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
        page.add_init_script("(() => { const f = () => { const gd = document.querySelector('.nbp-grid .js-plotly-plot');"
                             " if (gd && gd._fullLayout) window.__nbemFirst = performance.now(); else requestAnimationFrame(f); };"
                             " requestAnimationFrame(f); })()")
        page.goto(path.as_uri())
        page.wait_for_function(READY, timeout=60_000)
        loads.append(page.evaluate("() => window.__nbemFirst"))
        if len(loads) < 3:
            page.close()
    page.wait_for_timeout(500)
    drag = page.evaluate(DRAG)
    page.wait_for_timeout(500)
    play = page.evaluate(PLAY)
    page.close()
    return {"first_chart_ms": statistics.median(loads), "drag_fps": 1000 * drag["frames"] / drag["ms"],
            "play_fps": 1000 * play["iterations"] / play["ms"]}


def main(names: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for case in names or list(CASES):
            path, latest, export_s = build(case)
            raw = path.read_bytes()
            m = measure(browser, path)
            rows.append((case, latest, len(raw) / 1e6, len(gzip.compress(raw, 6)) / 1e6, export_s, m))
            print(f"{case:16s} t={latest:3d}  {len(raw) / 1e6:5.2f} MB raw  {rows[-1][3]:5.2f} MB gz  "
                  f"export {export_s:5.2f} s  first chart {m['first_chart_ms']:6.0f} ms  "
                  f"drag {m['drag_fps']:5.1f} fps  play {m['play_fps']:5.1f} fps", flush=True)
        browser.close()
    print("\n| lesson | iterations | file | gzipped | export | first chart | dragging | playing |")
    print("|---|---|---|---|---|---|---|---|")
    for case, latest, mb, gz, ex, m in rows:
        print(f"| {case} | {latest} | {mb:.2f} MB | {gz:.2f} MB | {ex:.1f} s | {m['first_chart_ms']:.0f} ms | "
              f"{m['drag_fps']:.0f} fps | {m['play_fps']:.0f} fps |")


if __name__ == "__main__":
    main(sys.argv[1:])
