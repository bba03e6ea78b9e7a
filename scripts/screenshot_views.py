"""Screenshots of every page in a real browser (Debian chromium + Playwright).

    python scripts/screenshot_views.py [--only trap,restarts]

Starts `streamlit run dashboard/app.py` on a free 127.0.0.1 port, visits each view
(pressing its Run/Step button where the view needs one), saves full-page PNGs to
artifacts/screenshots/views/ and prints how long each view took. Stops the server
it started (by its process id) when done.

The pages come from the registry, ``dashboard/pages.py``: ``VIEWS`` lists the scenes worth a
picture of their own, and :func:`views` adds a plain visit of every page that has none, so a new
page is in the screenshots without an edit here.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from dashboard import pages  # noqa: E402  (the page registry: no Streamlit import)
from loadtest.server import free_port  # noqa: E402

OUT = ROOT / "artifacts" / "screenshots" / "views"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# (file name, url path + query, button to press or None, text to wait for after it)
SCENES = [
    ("01_guided_lessons", "guided", None, "Guided lessons"),
    ("02_posterior_inspector", "inspector?insp_dataset=toy_spam&insp_lam=0&insp_words=Cruise&insp_words=Lottery",
     None, "Every term"),
    ("02b_posterior_inspector_synthetic", "inspector?insp_dataset=synthetic_spam", None, "Every term"),
    ("03_smoothing_explorer", "smoothing", None, "The two extremes"),
    ("04_symmetric_trap", "trap?lesson=trap", "Step", "Stuck at the symmetric point"),
    ("04b_symmetric_trap_broken", "trap?trap_start=random", "10 steps", "symmetry is broken"),
    ("05_restarts", "restarts", "Run restarts", "Random starts"),
    ("06_label_switching", "switching", None, "Accuracy after matching"),
    ("07_label_budget", "budget", "Draw the curve", "Biggest gain"),
    ("08_side_by_side", "side_by_side", "10 steps", "Accuracy on the"),
    ("09_sampling", "sampling", None, "Drawn from the model"),
    ("09b_sampling_digits", "sampling?smp_dataset=digits", None, "Drawn from the model"),
    ("10_gaussian_corner", "gaussian", None, "See the bias"),
    ("11_lesson_narrative_smoothing", "smoothing?lesson=smoothing&sm_dataset=synthetic_spam&sm_hidden=90", None,
     "Guided lesson"),
    # click a guided-lesson link (in-app navigation): the lesson view must open with the link's settings
    ("12_guided_link_to_lesson_view", "guided", "link:Open: Supervised Naive Bayes on the toy table", "toy_spam"),
    ("13_guided_link_to_trap", "guided", "link:Open: The symmetric trap", "Guided lesson 4"),
    # restarts -> open the worst start in the lesson view
    ("15_restart_opened_in_lesson_view", "restarts?rs_dataset=digits", ("Run restarts", "Open start"), "Opened random start"),
    # the lesson view's maths panel, numbers from the engine (every event model with a ratio estimate)
    ("16_lesson_maths_bernoulli", "?dataset=toy_spam&hidden=50&lam=1", "Step", "same as the engine's β"),
    ("17_lesson_maths_categorical", "?dataset=play_tennis&hidden=50&lam=1", "Step", "same as the engine's θ"),
    ("14_classroom_mode_inspector", "inspector?classroom=true&insp_dataset=toy_spam&insp_lam=0&insp_words=Cruise"
     "&insp_words=Lottery", None, "Every term"),
    # teaching depth II
    ("20_coin", "coin", None, "Two coins, identities hidden"),
    ("20b_coin_typed_lambda0", "coin?coin_source=typed&coin_flips=HHTH&coin_lam=0", None, "Two coins"),
    ("21_mixture2d_e_step", "mixture2d?mx_preset=unequal+sizes", "E-step", "E-step done"),
    ("21b_mixture2d_10_steps", "mixture2d?mx_preset=unequal+sizes", "10 steps", "t = 10"),
    ("21c_mixture2d_overlapping_m_step", "mixture2d?mx_preset=overlapping", ("10 steps", "E-step", "M-step"),
     "t = 11"),
    ("22_climb_e_step", "climb?cl_dataset=toy_spam", ("5 steps", "E-step"), "E-step done"),
    ("23_components_digits", "components?cp_seeds=3", ("Run the comparison",), "Look inside"),
    ("23b_components_m3", "components?cp_seeds=2&cp_ms=1&cp_ms=3", ("Run the comparison",), "Look inside"),
    ("25_lesson_half_steps_classroom", "?classroom=true&dataset=toy_spam&hidden=50&lam=1", ("Step", "E-step"),
     "Between the half-steps"),
    ("25b_lesson_large_set_responsibilities", "?dataset=synthetic_spam&hidden=90", ("E-step",), "most uncertain"),
    ("26_mixture2d_classroom", "mixture2d?classroom=true&mx_preset=stretched", ("10 steps",), "t = 10"),
    ("26b_climb_classroom", "climb?classroom=true&cl_dataset=abcd", ("5 steps", "E-step"), "E-step done"),
    ("24_inspector_play_tennis", "inspector?insp_dataset=play_tennis&insp_lam=0", None, "A new day"),
    ("22b_climb_abcd_history", "climb?cl_dataset=abcd&cl_hidden=100", ("5 steps",), "t = 5"),
]



def url_path(page: pages.Page) -> str:
    """The page's path in the app's URL: "" for the default page, else its file's name."""
    return page.url_path


def page_of(path: str) -> pages.Page:
    """The registry's page a scene's ``url path + query`` opens."""
    name = path.split("?", 1)[0]
    return next(p for p in pages.PAGES if url_path(p) == name)


def views() -> list[tuple]:
    """Every scene of ``SCENES``, then a plain visit of each page of ``pages.PAGES`` that has no scene
    (waiting for its title)."""
    seen = {page_of(scene[1]) for scene in SCENES}
    plain = [(f"30_{Path(p.path).stem}", url_path(p), None, p.title) for p in pages.PAGES if p not in seen]
    return SCENES + plain


VIEWS = views()


IDLE_JS = """() => {
  const w = document.querySelector('[data-testid="stStatusWidget"]');
  const running = w && /Running|Stop/.test(w.innerText);
  const skeleton = document.querySelector('[data-testid="stSkeleton"]');
  return !running && !skeleton;
}"""


def wait_idle(page, timeout=60_000) -> None:
    """Wait until the script has finished: no 'Running' status, no skeleton placeholders,
    twice in a row 400 ms apart (a rerun can start right after one ends)."""
    page.wait_for_selector('[data-testid="stSidebar"]', timeout=timeout)
    deadline = time.time() + timeout / 1000
    calm = 0
    while calm < 2 and time.time() < deadline:
        page.wait_for_timeout(400)
        calm = calm + 1 if page.evaluate(IDLE_JS) else 0
    page.wait_for_timeout(600)  # let plotly finish laying out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated substrings of view names")
    ap.add_argument("--width", type=int, default=1600)
    ap.add_argument("--height", type=int, default=2000,
                    help="viewport height: Streamlit scrolls inside the page, so full_page alone shows one screen")
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s]
    views = [v for v in VIEWS if not only or any(o in v[0] for o in only)]

    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = open(OUT / "streamlit.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "dashboard/app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=1).status == 200:
                    break
            except OSError:
                if time.time() > deadline:
                    raise SystemExit("streamlit did not start within 60 s")
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for name, path, button, expect in views:
                ctx = browser.new_context(viewport={"width": args.width, "height": args.height})
                page = ctx.new_page()
                t0 = time.time()
                page.goto(f"{url}/{path}", wait_until="domcontentloaded")
                wait_idle(page)
                for action in ([button] if isinstance(button, str) else list(button or [])):
                    if action.startswith("link:"):
                        page.get_by_role("link", name=action[5:]).first.click()
                    else:
                        page.get_by_role("button", name=action).first.click()
                    page.wait_for_timeout(300)
                    wait_idle(page)
                ok = True
                try:
                    page.get_by_text(expect).first.wait_for(timeout=60_000)
                    wait_idle(page)
                except Exception:  # still take the picture: it shows what went wrong
                    ok = False
                page.mouse.move(5, args.height - 5)  # no tooltip in the picture
                page.wait_for_timeout(300)
                exc = page.locator('[data-testid="stException"]').count()
                shot = OUT / f"{name}.png"
                page.screenshot(path=str(shot), full_page=True)
                print(f"{name:40s} {time.time() - t0:5.1f} s  {page.url.split(str(port))[-1][:60]:60s}  {'ok' if ok and not exc else 'CHECK'}"
                      f"{'  (exception shown)' if exc else ''}  {shot.relative_to(ROOT)}")
                ctx.close()
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
