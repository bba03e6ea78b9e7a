"""A long link to a usable page: the lab page of an upload at a class's size (6,000 documents, 3,615 words,
20 overlapping classes: tests/kit/data.py's long_link_data) opened on the link that froze a tab
(``#model=bernoulli&init=random&lam=0&hidden=100&seed=2&max_iter=1000&tol=1e-08&t=1000``), in Chromium.

Each round opens the page cold from file:// twice, interleaved: with the link, and with the same link at
``t=0`` (the baseline: the same page, nothing to catch up). Printed (medians):

* usable:   navigation start → the page's first frame with its controls live (``__nblab.usableAt``), with the
            link and at t=0, and their ratio (goal: the link ≤ 3 s);
* finished: navigation start → the link's iteration computed in the background (``__nblab.ready``), and how
            many iterations that was (EM stops at tol before 1000);
* in one go: the same iterations computed by the page's engine in one call (``Lab.restoreTo(t)``, measured in
            the page after it finished): what a page that computes the link before its first frame (as the
            lab did) spends before it is usable, on top of its load.

    python benchmarks/bench_long_link.py              # 3 rounds
    python benchmarks/bench_long_link.py --rounds 5
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

USABLE = "() => !!(window.__nblab && window.__nblab.usableAt)"
READY = "() => !!(window.__nblab && window.__nblab.ready && !window.__nblab.job)"


def one(browser, uri: str, wait_ready: bool) -> tuple[float, float | None, int, float | None]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(uri)
        page.wait_for_function(USABLE, timeout=600_000)
        usable = page.evaluate("() => __nblab.usableAt")
        done = None
        if wait_ready:
            page.wait_for_function(READY, timeout=600_000, polling=200)
            done = page.evaluate("() => performance.now()")
        sync = None
        if wait_ready:
            sync = page.evaluate("""() => { const L = __nblab.lab.constructor;
                const lab = new L(__nblab.data, Object.assign({}, __nblab.lab.settings, { t: 0 }));
                const t0 = performance.now(); lab.restoreTo(__nblab.lab.latest); return performance.now() - t0; }""")
        return usable, done, page.evaluate("() => __nblab.lab.latest"), sync
    finally:
        page.close()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from kit.browser import launch
    from kit.data import LONG_LINK, long_link_data
    from nblab.page import write_lab

    with tempfile.TemporaryDirectory() as d, sync_playwright() as p:
        path = write_lab(Path(d) / "big.html", long_link_data())
        browser = launch(p)
        link, base, done, iters, sync = [], [], [], [], []
        for _ in range(args.rounds):
            u, f, n, s = one(browser, path.as_uri() + "#" + LONG_LINK, True)
            link.append(u)
            done.append(f)
            iters.append(n)
            sync.append(s)
            base.append(one(browser, path.as_uri() + "#" + LONG_LINK.replace("t=1000", "t=0"), False)[0])
        browser.close()
    m_link, m_base, m_done, m_sync = (statistics.median(x) for x in (link, base, done, sync))
    print(f"usable with the link : {m_link:8.0f} ms  (rounds: {', '.join(f'{x:.0f}' for x in link)})  goal <= 3000 ms")
    print(f"usable at t=0        : {m_base:8.0f} ms  (rounds: {', '.join(f'{x:.0f}' for x in base)})")
    print(f"ratio link / t=0     : {m_link / m_base:8.2f}")
    print(f"finished in the background: {m_done:8.0f} ms, {iters[0]} iterations (EM stopped at tol)")
    print(f"the same iterations in one go: {m_sync:8.0f} ms (a page computing them before its first frame is usable "
          f"after its load + this: {m_base + m_sync:.0f} ms; ratio usable now / then {m_link / (m_base + m_sync):.2f})")


if __name__ == "__main__":
    main()
