#!/usr/bin/env python
"""First opening of every page in a fresh browser, against a one-title-one-metric Streamlit page.

Starts, in the same run, the app (``streamlit run dashboard/server.py``) and a trivial Streamlit app
(``st.title`` + ``st.metric``, written to a temporary file), each its own server with the same flags
and the repository's .streamlit/config.toml (both run from the repository root). Both servers are
warmed first: every page is opened once, untimed. Then, --repeat times, for each page of
dashboard/pages.py (the list is ``pages.PAGES``; --pages picks some): the trivial page is opened, then
the page, each in a FRESH Chromium browser context (headless Playwright, no HTTP cache, no cookies), so
machine noise hits both alike. Finally the lesson (the default page) is opened once on a freshly started
server process, --fresh times (each a new process), with a fresh trivial server's first open beside it.

"Complete", the same rule for every page and the trivial one, measured in the page (performance.now(),
0 = navigation start):
  * the page's script has run to its end: the browser received a ForwardMsg ``script_finished`` for
    every ``new_session`` (each script run, fragment runs included, starts with one), at least one;
  * its main content is there: an ``h1`` (every page starts with its title) in ``stMain``;
  * nothing is pending: no Streamlit skeleton (an element whose JavaScript chunk is still loading), no
    stale element, no "Running..." indicator;
  * every chart is drawn: each ``stPlotlyChart`` holds a plotly graph with its layout drawn
    (``_fullLayout`` and an SVG), every ``.js-plotly-plot`` too (the lesson's browser player), and the
    player, when on the page, has painted all its charts; every ``st.dataframe`` (``stDataFrame``) has its
    canvas and every image has loaded (elements inside a closed expander excepted: nobody sees them);
and it stays so for --quiet ms (a later run, a late chart or the lesson's panels below the charts start
the clock again). The figure is the moment it last became complete.

Reported per page: the median of the --repeat opens, the ratio to the median of the trivial page's
opens of the same run (target: ≤ 2), the server's CPU during the open (utime+stime, 10 ms ticks), what
the page holds (plotly charts, tables, KaTeX formulas) and the bytes it received (HTTP resources +
websocket). Not a test: nothing is asserted (tests/browser/test_bench_first_open.py runs --quick).

    python scripts/bench_first_open.py                        # every page, 5 opens each, + fresh lesson x3
    python scripts/bench_first_open.py --repeat 3 --json /tmp/first_open.json
    python scripts/bench_first_open.py --pages smoothing,coin --repeat 1 --fresh 0
    python scripts/bench_first_open.py --quick                # 2 pages, 1 open each, 1 fresh lesson
    python scripts/bench_first_open.py --baseline /tmp/old    # an older checkout's pages beside these, same run
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from loadtest.procstat import cpu_seconds  # noqa: E402
from loadtest.server import free_port, start_server, stop_server, wait_health  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ENTRY = "dashboard/server.py"
VIEWPORT = {"width": 1280, "height": 800}

TRIVIAL_APP = '''import streamlit as st

st.title("A trivial page")
st.metric("A number", 42)
'''

# In-page probe, installed before any script of the page: counts script runs from the websocket's
# ForwardMsgs (top-level protobuf fields: 4 new_session, 6 script_finished) and checks, after every DOM
# change and every 50 ms, whether the page is complete (the rule in the docstring above).
PROBE = r"""
(() => {
  if (window.__firstOpen) return;
  const B = window.__firstOpen = { started: 0, finished: 0, wsBytes: 0, doneAt: null, complete: false,
                                   why: "no run yet", whys: [] };
  function fields(buf) {
    const a = new Uint8Array(buf); const out = []; let i = 0;
    const varint = () => { let v = 0, m = 1, b; do { b = a[i++]; v += (b & 0x7f) * m; m *= 128; } while (b & 0x80 && i < a.length); return v; };
    while (i < a.length) {
      const tag = varint(), f = Math.floor(tag / 8), wt = tag & 7;
      out.push(f);
      if (wt === 0) varint(); else if (wt === 2) { const n = varint(); i += n; } else if (wt === 1) i += 8; else if (wt === 5) i += 4; else break;
    }
    return out;
  }
  const WS = window.WebSocket;
  class ProbeSocket extends WS {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        if (!(e.data instanceof ArrayBuffer)) return;
        B.wsBytes += e.data.byteLength;
        const fs = fields(e.data);
        if (fs.includes(4)) B.started++;
        if (fs.includes(6)) { B.finished++; schedule(); }
      });
    }
  }
  window.WebSocket = ProbeSocket;
  const hidden = (el) => { const d = el.closest("details"); return d && !d.open; };
  function check() {
    if (B.started === 0 || B.finished < B.started) return "script running (" + B.finished + "/" + B.started + " runs)";
    const main = document.querySelector('[data-testid="stMain"]');
    if (!main || !main.querySelector("h1")) return "no title";
    if (document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')) return "running indicator";
    if (document.querySelector('[data-testid="stSkeleton"]')) return "skeleton";
    if (document.querySelector('[data-stale="true"]')) return "stale element";
    for (const c of document.querySelectorAll('[data-testid="stPlotlyChart"]')) {
      if (hidden(c)) continue;
      const g = c.querySelector(".js-plotly-plot");
      if (!g || !g._fullLayout || !g.querySelector("svg.main-svg")) return "plotly chart not drawn";
    }
    for (const g of document.querySelectorAll(".js-plotly-plot:not(.nbp-back)"))
      if (!hidden(g) && !g._fullLayout) return "plot not drawn";
    const P = window.nbemPlayerSnapshot?.();
    if (P && P.main && !(P.stats && P.stats.painted)) return "player not painted";
    for (const d of document.querySelectorAll('[data-testid="stDataFrame"]'))
      if (!hidden(d) && !d.querySelector("canvas")) return "table not drawn";
    for (const im of main.querySelectorAll("img"))
      if (!hidden(im) && !(im.complete && im.naturalWidth > 0)) return "image loading";
    return "";
  }
  let queued = false;
  function run() {
    queued = false;
    const why = check();
    const ok = why === "";
    if (ok && !B.complete) B.doneAt = performance.now();
    if (!ok) B.doneAt = null;
    if (why !== B.why && B.whys.length < 200) B.whys.push([Math.round(performance.now()), why]);  // why it was not complete, over time
    B.complete = ok; B.why = why;
  }
  function schedule() { if (!queued) { queued = true; requestAnimationFrame(run); setTimeout(run, 30); } }
  new MutationObserver(schedule).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  setInterval(run, 50);
})();
"""

STATE_JS = "() => { const B = window.__firstOpen; return B ? [B.complete, B.doneAt, performance.now(), B.why] : [false, null, performance.now(), 'no probe']; }"

CONTENT_JS = r"""() => {
  const visible = (sel) => [...document.querySelectorAll(sel)].filter((e) => { const d = e.closest("details"); return !d || d.open; }).length;
  const res = performance.getEntriesByType("resource");
  const nav = performance.getEntriesByType("navigation")[0];
  return { plotly: visible('[data-testid="stPlotlyChart"]'), player_charts: visible(".js-plotly-plot:not(.nbp-back)") - visible('[data-testid="stPlotlyChart"] .js-plotly-plot'),
           tables: visible('[data-testid="stDataFrame"]'), katex: document.querySelectorAll(".katex").length,
           elements: document.querySelectorAll('[data-testid="stElementContainer"]').length,
           runs: window.__firstOpen.finished,
           http_kb: Math.round((res.reduce((s, r) => s + (r.encodedBodySize || 0), 0) + (nav ? nav.encodedBodySize : 0)) / 1024),
           ws_kb: Math.round(window.__firstOpen.wsBytes / 1024), requests: res.length };
}"""


def page_list(only: list[str] | None = None) -> list[tuple[str, str, str]]:
    """(name, title, URL path) of every page of dashboard/pages.py; the default page is at "/"."""
    from dashboard import pages

    out = [(Path(p.path).stem, p.title, p.url_path) for p in pages.PAGES]
    if only:
        unknown = set(only) - {n for n, _, _ in out}
        if unknown:
            raise SystemExit(f"unknown page(s): {', '.join(sorted(unknown))}; pages: {', '.join(n for n, _, _ in out)}")
        out = [row for row in out if row[0] in only]
    return out


def open_once(browser, url: str, pid: int | None, quiet_ms: float, timeout_s: float) -> dict:
    """Open ``url`` in a fresh browser context; wait until complete and quiet for quiet_ms.
    Returns {"ms": time to complete (page clock, from navigation start), "cpu_ms": server CPU, ...content}."""
    ctx = browser.new_context(viewport=VIEWPORT)
    try:
        page = ctx.new_page()
        page.add_init_script(PROBE)
        c0 = cpu_seconds(pid) if pid else None
        page.goto(url, wait_until="commit", timeout=int(timeout_s * 1000))
        deadline = time.time() + timeout_s
        why = ""
        while True:
            complete, done_at, now, why = page.evaluate(STATE_JS)
            if complete and done_at is not None and now - done_at >= quiet_ms:
                break
            if time.time() > deadline:
                raise TimeoutError(f"{url}: not complete within {timeout_s:.0f} s ({why})")
            page.wait_for_timeout(50)
        c1 = cpu_seconds(pid) if pid else None
        out = {"ms": float(done_at)}
        if c0 is not None and c1 is not None:
            # the quiet window is idle time on a complete page: the server's CPU in it is its own business
            out["cpu_ms"] = 1000.0 * (c1 - c0)
        out.update(page.evaluate(CONTENT_JS))
        return out
    finally:
        ctx.close()


class Servers:
    """The app's servers (this checkout's, and --baseline's) and the trivial page's, each started from its
    checkout's root with the same flags (so each reads its own .streamlit/config.toml)."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.trivial_app = workdir / "trivial_app.py"
        self.trivial_app.write_text(TRIVIAL_APP)
        self.procs = []

    def start(self, which: str, root: Path = ROOT) -> tuple[str, object]:
        port = free_port()
        app = str(self.trivial_app) if which == "trivial" else ENTRY
        proc = start_server(app, port, self.workdir / f"{which}_{port}.log", root=root)
        self.procs.append(proc)
        wait_health(port, proc, timeout=120)
        return f"http://127.0.0.1:{port}", proc

    def stop(self, proc) -> None:
        stop_server(proc)
        if proc in self.procs:
            self.procs.remove(proc)

    def stop_all(self) -> None:
        for p in list(self.procs):
            self.stop(p)


def summarise(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


CONTENT_KEYS = ("plotly", "player_charts", "tables", "katex", "elements", "runs", "http_kb", "ws_kb", "requests")


def run(args) -> dict:
    from playwright.sync_api import sync_playwright

    pages_ = page_list(args.pages.split(",") if args.pages else None)
    apps = {"app": ROOT}
    if args.baseline:
        apps["baseline"] = Path(args.baseline).resolve()
    result = {"load_before": os.getloadavg(), "cores": os.cpu_count(), "repeat": args.repeat,
              "quiet_ms": args.quiet, "viewport": VIEWPORT, "roots": {k: str(v) for k, v in apps.items()},
              "trivial": None, "fresh": {}, **{k: {} for k in apps}}
    say = (lambda *a: print(*a, file=sys.stderr, flush=True)) if args.verbose else (lambda *a: None)
    with tempfile.TemporaryDirectory(prefix="bench_first_open_") as tmp, sync_playwright() as p:
        servers = Servers(Path(tmp))
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            urls = {}
            for which, root in apps.items():
                urls[which] = servers.start(which, root)
            triv_url, triv_proc = servers.start("trivial")
            # warm every server: each page once, untimed (the figures are a warm server's)
            open_once(browser, triv_url, None, args.quiet, args.timeout)
            for which in apps:
                for name, _, path in pages_:
                    r = open_once(browser, f"{urls[which][0]}/{path}", None, args.quiet, args.timeout)
                    say(f"warm {which} {name}: {r['ms']:.0f} ms")
            trivial = []
            raw = {which: {n: [] for n, _, _ in pages_} for which in apps}
            for rep in range(args.repeat):
                order = pages_[rep % len(pages_):] + pages_[:rep % len(pages_)]  # another page follows the start each time
                for i, (name, _, path) in enumerate(order):
                    t = open_once(browser, triv_url, triv_proc.pid, args.quiet, args.timeout)
                    trivial.append(t["ms"])
                    whiches = list(apps) if (rep + i) % 2 == 0 else list(apps)[::-1]  # which app goes first alternates
                    for which in whiches:
                        url, proc = urls[which]
                        r = open_once(browser, f"{url}/{path}", proc.pid, args.quiet, args.timeout)
                        r["trivial_ms"], r["trivial_cpu_ms"] = t["ms"], t.get("cpu_ms")
                        raw[which][name].append(r)
                        say(f"{rep + 1}/{args.repeat} {which} {name}: {r['ms']:.0f} ms (trivial {t['ms']:.0f} ms)")
            result["trivial"] = summarise(trivial)
            result["trivial"]["cpu_ms"] = statistics.median(o["trivial_cpu_ms"] for v in raw["app"].values() for o in v)
            tmed = result["trivial"]["median"]
            for which in apps:
                for name, title, path in pages_:
                    opens = raw[which][name]
                    row = summarise([o["ms"] for o in opens])
                    row.update(title=title, path="/" + path, ratio=row["median"] / tmed,
                               paired_ratio=statistics.median(o["ms"] / o["trivial_ms"] for o in opens),
                               cpu_ms=statistics.median(o.get("cpu_ms", float("nan")) for o in opens),
                               **{k: opens[-1][k] for k in CONTENT_KEYS})
                    result[which][name] = row
            for which, (url, proc) in urls.items():
                servers.stop(proc)
            servers.stop(triv_proc)
            # the lesson's first open on a fresh server process (each time a new process), the trivial page's beside it
            fresh = {which: [] for which in apps}
            fresh_triv = []
            for _ in range(args.fresh):
                url, proc = servers.start("trivial")
                fresh_triv.append(open_once(browser, url, proc.pid, args.quiet, args.timeout)["ms"])
                servers.stop(proc)
                for which, root in apps.items():
                    url, proc = servers.start(which, root)
                    r = open_once(browser, url + "/", proc.pid, args.quiet, args.timeout)
                    fresh[which].append(r["ms"])
                    servers.stop(proc)
                    say(f"fresh {which} server: lesson {r['ms']:.0f} ms, trivial {fresh_triv[-1]:.0f} ms")
            if fresh_triv:
                result["fresh"]["trivial"] = summarise(fresh_triv)
                for which in apps:
                    result["fresh"][which] = summarise(fresh[which])
                    result["fresh"][which]["ratio"] = statistics.median(fresh[which]) / statistics.median(fresh_triv)
                    result["fresh"][which]["ratio_to_warm_trivial"] = statistics.median(fresh[which]) / tmed
        finally:
            browser.close()
            servers.stop_all()
    result["load_after"] = os.getloadavg()
    return result


def report(res: dict) -> str:
    t = res["trivial"]
    lines = [f"load average before {' '.join(f'{x:.2f}' for x in res['load_before'])}, after "
             f"{' '.join(f'{x:.2f}' for x in res['load_after'])} ({res['cores']} cores); "
             f"{res['repeat']} fresh-context opens per page, quiet window {res['quiet_ms']:.0f} ms",
             f"trivial page (st.title + st.metric): median {t['median']:.0f} ms ({t['min']:.0f}-{t['max']:.0f}, "
             f"n={t['n']}), server CPU {t['cpu_ms']:.0f} ms"]
    for which in [w for w in ("app", "baseline") if w in res]:
        lines += ["", f"{which}: {res['roots'][which]}",
                  f"{'page':16s} {'median ms':>9s} {'range':>11s} {'ratio':>6s} {'paired':>6s} {'srv CPU':>7s} "
                  f"{'plotly':>6s} {'player':>6s} {'tables':>6s} {'katex':>5s} {'runs':>4s} {'http KB':>7s} {'ws KB':>6s}"]
        for name, r in res[which].items():
            flag = "" if r["ratio"] <= 2 else "  > 2x"
            lines.append(f"{name:16s} {r['median']:9.0f} {r['min']:5.0f}-{r['max']:<5.0f} {r['ratio']:6.2f} "
                         f"{r['paired_ratio']:6.2f} {r['cpu_ms']:7.0f} {r['plotly']:6d} {r['player_charts']:6d} "
                         f"{r['tables']:6d} {r['katex']:5d} {r['runs']:4d} {r['http_kb']:7d} {r['ws_kb']:6d}{flag}")
        n_over = sum(r["ratio"] > 2 for r in res[which].values())
        lines.append(f"{n_over} of {len(res[which])} pages above 2x the trivial page")
    if res["fresh"]:
        f = res["fresh"]
        for which in [w for w in ("app", "baseline") if w in f]:
            lines.append(f"fresh server process ({which}): lesson first open {f[which]['median']:.0f} ms "
                         f"({f[which]['min']:.0f}-{f[which]['max']:.0f}, n={f[which]['n']}); trivial page on a fresh "
                         f"server {f['trivial']['median']:.0f} ms; ratio {f[which]['ratio']:.2f} (to the warm trivial "
                         f"page {f[which]['ratio_to_warm_trivial']:.2f})")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="timed opens per page (each with a trivial open before it)")
    ap.add_argument("--pages", default="", help="comma-separated page names (file stems: lesson,smoothing,...); default all")
    ap.add_argument("--fresh", type=int, default=3, help="fresh server processes for the lesson's first open (0: none)")
    ap.add_argument("--quiet", type=float, default=1000.0, help="ms a complete page must stay complete")
    ap.add_argument("--timeout", type=float, default=180.0, help="s per open before giving up")
    ap.add_argument("--quick", action="store_true", help="smoke run: --pages lesson,smoothing --repeat 1 --fresh 1")
    ap.add_argument("--baseline", help="another checkout (e.g. a worktree of an older commit): its app is started "
                    "too and every page of it opened beside this one's, in the same run")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("-v", "--verbose", action="store_true", help="each open on stderr as it happens")
    args = ap.parse_args(argv)
    if args.quick:
        args.pages = args.pages or "lesson,smoothing"
        args.repeat, args.fresh = 1, min(args.fresh, 1)
    if not Path(CHROMIUM).exists():
        print(f"no browser at {CHROMIUM}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers (the finally blocks) on kill
    res = run(args)
    print(report(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
