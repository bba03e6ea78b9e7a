"""The lab page (nblab/page.py): EM in the browser, against nbcore's run.step() on the same data.

Chromium (Playwright, /usr/bin/chromium) opens the lab page from file:// with every non-file request
blocked. Each figure is also given as a ratio to nbcore's ``run.step()`` on the same data and settings,
measured in this process in the same run, interleaved with the browser's rounds (a busy machine slows
both alike):

* step:    one EM iteration of the page's engine (run.step() on a copy of the page's run, E-step + M-step)
           against one nbcore step; sms_spam (goal ≤ 5 ms and ≤ 1.5× nbcore) and spam_assassin (≤ 40 ms);
* lam:     a λ change mid-run (the run continues), from the slider's change event to the charts drawn
           (Plotly.react done), goal ≤ 100 ms;
* hidden:  a labels-hidden change (a new run: prepare, the first parameters, the baselines), the same way,
           goal ≤ 100 ms;
* drag:    the "Show iteration" slider dragged over a 150-iteration run and back, one input event per
           animation frame: frames drawn per second (goal ≥ 30);
* play:    Play from t = 0 over the same 150 iterations at 60 iterations/s: iterations shown per second
           (goal ≥ 30);
* first:   navigation start → the first chart drawn, a cold load from file:// (median of 3; goal ≤ 1 s).

    python benchmarks/bench_lab.py                 # sms_spam and spam_assassin
    python benchmarks/bench_lab.py sms_spam        # one data set
    python benchmarks/bench_lab.py --rounds 7
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
READY = "() => !!(window.__nblab && window.__nblab.ready)"

GOALS = {"step": {"sms_spam": 5.0, "spam_assassin": 40.0}, "lam": 100.0, "hidden": 100.0, "drag": 30.0, "play": 30.0,
         "first": 1000.0}

# n steps of the page's engine on a copy of its run (the page's own run is left as it is)
STEP_JS = """(n) => {
  const lab = __nblab.lab;
  const run = lab.run.withSettings({ maxIter: 100000, tol: null });
  const ts = [];
  for (let i = 0; i < n; i++) { const t0 = performance.now(); run.step(); ts.push(performance.now() - t0); }
  return ts;
}"""

# a settings slider moved and released; resolved when the charts are drawn
CHANGE_JS = """async ([label, index]) => {
  const G = __nblab;
  const el = [...document.querySelectorAll('.lab-settings input[type=range]')]
    .find((e) => document.querySelector('label[for="' + e.id + '"]').textContent === label);
  const raf = () => new Promise((r) => requestAnimationFrame(r));
  await raf();
  await G.drawing;
  await G.idle();                    // from a quiet page: the panels below drawn after the last step
  await raf();
  const before = G.drawing;
  const t0 = performance.now();
  el.value = String(index);
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  while (G.drawing === before) await raf();
  await G.drawing;
  return { ms: performance.now() - t0, latest: G.lab.latest, t: G.lab.t };
}"""

# the run made 150 iterations long (a random start; no tolerance stops it)
LONG_JS = """async () => {
  const G = __nblab;
  G.change({ init: 'random', max_iter: 150 });
  const lab = G.lab;
  lab.run = lab.run.withSettings({ tol: null, maxIter: 150 });
  lab.converge();
  G.render(true);
  await new Promise((r) => setTimeout(r, 300));
  await G.drawing;
  return lab.latest;
}"""

DRAG_JS = """async () => {
  const G = __nblab, s = document.querySelector('.lab-iter');
  const raf = () => new Promise((r) => requestAnimationFrame(r));
  const n = G.lab.latest;
  s.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
  const ts = [...Array(n + 1).keys()].reverse().concat([...Array(n + 1).keys()]);
  await raf();
  const f0 = G.frames, t0 = performance.now();
  for (const t of ts) { s.value = String(t); s.dispatchEvent(new Event('input', { bubbles: true })); await raf(); }
  const ms = performance.now() - t0;
  s.dispatchEvent(new PointerEvent('pointerup', { bubbles: true }));
  return { frames: G.frames - f0, moves: ts.length, ms };
}"""

PLAY_JS = """async () => {
  const G = __nblab;
  G.act('show', 0);
  await new Promise((r) => setTimeout(r, 300));
  G.fpsOverride = 60;
  const seen = new Set();
  const t0 = performance.now();
  G.act('play');
  await new Promise((r) => { const w = () => { seen.add(G.lab.t); (G.playing ? requestAnimationFrame(w) : r()); }; requestAnimationFrame(w); });
  G.fpsOverride = 0;
  return { iterations: seen.size - 1, ms: performance.now() - t0 };
}"""


# ---- nbcore, the reference ----------------------------------------------------------------------------------

def nbcore_run(name: str, settings: dict):
    import nbcore

    ds = nbcore.load_dataset(name)
    model = settings["model"]
    X = ds.for_model(model)
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=settings["hidden"] / 100.0, random_state=settings["seed"])
    opts = nbcore.get_model(model).suggested_options(X)
    return nbcore.EM(model=model, n_classes=int(ds.n_classes), smoothing=settings["lam"], init=settings["init"],
                     random_state=settings["seed"], max_iter=100000, tol=None, model_options=opts).start(X, np.asarray(y_obs))


def nbcore_steps(run, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        run.step()
        out.append((time.perf_counter() - t0) * 1000)
    return out


# ---- the browser ------------------------------------------------------------------------------------------------

def write_page(name: str, folder: Path) -> Path:
    from nblab.data import lab_data
    from nblab.page import lab_html

    template = None   # the page's own: nblab/template.json, the app's chart template
    path = folder / f"{name}.html"
    # the documents' texts only where the page ships them (spam_assassin's would make a 15 MB file)
    data = lab_data(name, texts=name != "spam_assassin")
    path.write_text(lab_html(data, template=template), encoding="utf-8")
    return path


def open_page(browser, path: Path, viewport=None):
    page = browser.new_page(viewport=viewport or {"width": 1280, "height": 900})
    blocked = []
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else (blocked.append(r.request.url), r.abort()))
    page.goto(path.as_uri())
    page.wait_for_function(READY, timeout=120_000)
    page.wait_for_timeout(300)
    return page, blocked


def ratio(ms: float, ref: float) -> str:
    return f"{ms / ref:.2f}× nbcore's step" if ref > 0 else "—"


def bench(name: str, browser, folder: Path, rounds: int) -> dict:
    path = write_page(name, folder)
    size = path.stat().st_size
    page, blocked = open_page(browser, path)
    settings = page.evaluate("() => __nblab.settings")
    lams = page.evaluate("() => __nblab.cfg.lambdas")
    ref_run = nbcore_run(name, settings)
    page.evaluate(STEP_JS, 3)           # warm the engine (the JIT)
    nbcore_steps(ref_run, 3)
    js, py, ref_all = [], [], []
    for _ in range(rounds):             # interleaved: a browser round, then an nbcore round
        js += page.evaluate(STEP_JS, 5)
        py += nbcore_steps(ref_run, 5)
    ref = statistics.median(py)
    out = {"name": name, "bytes": size, "ref_ms": ref, "step_ms": statistics.median(js)}
    ref_all.append(ref)

    # a λ change mid-run (continues) and a hidden-% change (rebuilds), each to the charts drawn
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)
    lam_ms, hid_ms, refs = [], [], []
    cur = lams.index(settings["lam"])
    for i in range(rounds):
        other = cur + 1 if cur + 1 < len(lams) else cur - 1
        got = page.evaluate(CHANGE_JS, ["Smoothing λ", other if i % 2 == 0 else cur])
        lam_ms.append(got["ms"])
        hid = settings["hidden"] - 1 - (i % 2)
        got = page.evaluate(CHANGE_JS, ["Labels hidden", hid])
        hid_ms.append(got["ms"])
        refs += nbcore_steps(ref_run, 3)
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(100)
    out["lam_ms"], out["hidden_ms"], out["ref2_ms"] = statistics.median(lam_ms), statistics.median(hid_ms), statistics.median(refs)

    if name == "sms_spam":
        # a 150-iteration run: drag and Play
        n = page.evaluate(LONG_JS)
        drags, plays = [], []
        for _ in range(max(2, rounds // 2)):
            d = page.evaluate(DRAG_JS)
            drags.append(d["frames"] / d["ms"] * 1000)
            p = page.evaluate(PLAY_JS)
            plays.append(p["iterations"] / p["ms"] * 1000)
            nbcore_steps(ref_run, 2)
        out.update(n_long=n, drag_fps=statistics.median(drags), play_fps=statistics.median(plays))
    page.close()

    # cold loads: navigation start → the first chart drawn
    firsts = []
    for _ in range(3):
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        p = ctx.new_page()
        p.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else (blocked.append(r.request.url), r.abort()))
        p.goto(path.as_uri())
        p.wait_for_function(READY, timeout=120_000)
        firsts.append(p.evaluate("() => __nblab.charts.first"))
        ctx.close()
        nbcore_steps(ref_run, 2)
    out["first_ms"] = statistics.median(firsts)
    out["blocked"] = blocked
    return out


def report(r: dict) -> list[str]:
    name, ref = r["name"], r["ref_ms"]
    goal = GOALS["step"].get(name)
    lines = [f"{name}: page {r['bytes'] / 1e6:.2f} MB; nbcore run.step() {ref:.2f} ms (median, same run)",
             f"  one EM iteration in the page   {r['step_ms']:7.2f} ms  ({ratio(r['step_ms'], ref)})"
             + (f"   goal ≤ {goal:g} ms" + (" and ≤ 1.5×" if name == "sms_spam" else "") if goal else ""),
             f"  λ change → new charts          {r['lam_ms']:7.1f} ms  ({ratio(r['lam_ms'], r['ref2_ms'])})   goal ≤ 100 ms",
             f"  hidden-% change → new charts   {r['hidden_ms']:7.1f} ms  ({ratio(r['hidden_ms'], r['ref2_ms'])})   goal ≤ 100 ms"]
    if "drag_fps" in r:
        lines += [f"  drag over {r['n_long']} iterations       {r['drag_fps']:7.1f} frames/s  "
                  f"({1000 / r['drag_fps']:.1f} ms a frame = {ratio(1000 / r['drag_fps'], ref)})   goal ≥ 30",
                  f"  Play over {r['n_long']} iterations       {r['play_fps']:7.1f} iterations/s  "
                  f"({1000 / r['play_fps']:.1f} ms each = {ratio(1000 / r['play_fps'], ref)})   goal ≥ 30"]
    lines.append(f"  first chart from file://       {r['first_ms']:7.0f} ms  ({ratio(r['first_ms'], ref)})   goal ≤ 1000 ms")
    if r["blocked"]:
        lines.append(f"  NETWORK REQUESTS (blocked): {r['blocked'][:3]}")
    return lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", default=["sms_spam", "spam_assassin"])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as d, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for name in args.names:
            r = bench(name, browser, Path(d), args.rounds)
            print("\n".join(report(r)), flush=True)
        browser.close()


if __name__ == "__main__":
    main()
