"""What the page shows is what the run uses, in a real browser (Playwright + Debian's Chromium):
the sidebar's text settings after an upload, before and after the next unrelated rerun."""
from __future__ import annotations

import re

import numpy as np
import pytest

from kit.browser import ITER_JS, frames, require_chromium
from kit.browser import wait_idle as _idle

pytestmark = pytest.mark.browser

require_chromium()


def _text_csv() -> bytes:
    rng = np.random.default_rng(0)
    rows = [" ".join(f"w{j}" for j in rng.integers(0, 3000, 15)) + ("," + ("ham" if i % 2 else "spam"))
            for i in range(400)]
    return ("text,label\n" + "\n".join(rows) + "\n").encode()


def _min_df_shown(page) -> int:
    box = page.locator('[data-testid="stSidebar"] [data-testid="stNumberInput"]').filter(has_text="min df")
    return int(box.locator("input").first.input_value())


def _features_line(page) -> str:
    """The status caption's text settings and vocabulary size ("features: words, …, V = 2,614")."""
    text = page.get_by_text(re.compile(r"features: .*, V = [0-9,]+")).first.inner_text()
    return re.search(r"features: .*, V = [0-9,]+", text).group(0)


def test_after_an_upload_the_sidebar_shows_the_min_df_the_run_uses_and_keeps_it(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 2000})
    page.goto(server, wait_until="domcontentloaded")
    _idle(page)
    assert _min_df_shown(page) == 2                    # the SMS lesson's own setting
    if not page.locator('[data-testid="stFileUploader"]').first.is_visible():
        page.get_by_text("Use your own CSV").first.click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        files=[{"name": "mail.csv", "mimeType": "text/csv", "buffer": _text_csv()}])
    page.get_by_text("Loaded “mail.csv”").first.wait_for(timeout=60_000)
    _idle(page)
    line = _features_line(page)
    assert _min_df_shown(page) == 1 and "≥ 2 documents" not in line, (_min_df_shown(page), line)
    # the next rerun (a Step) sends the widgets' values back: nothing may change under the class
    page.get_by_role("button", name=re.compile(r"^Step\b")).first.click()
    page.wait_for_function(f"() => ({ITER_JS})() === 1", timeout=120_000)
    _idle(page)
    assert _min_df_shown(page) == 1 and _features_line(page) == line
    assert page.get_by_text("new run").count() == 0
    page.close()


@pytest.mark.parametrize("player", ["on", "off"])
def test_after_a_server_restart_the_page_comes_back_at_its_iteration(browser, player):
    """A real restart: the server process is stopped and started again on the same port; the
    open page reconnects by itself and its new session recomputes the run to the URL's t."""
    from kit import free_port
    from kit.server import streamlit_server

    port = free_port()
    url = f"http://127.0.0.1:{port}/?player={player}"
    page = browser.new_page(viewport={"width": 1600, "height": 1400})
    with streamlit_server(port=port):
        page.goto(url, wait_until="domcontentloaded")
        _idle(page)
        for k in range(1, 5):
            page.get_by_role("button", name=re.compile(r"^Step\b")).first.click()
            page.wait_for_function(f"() => ({ITER_JS})() === {k}", timeout=120_000)
        page.wait_for_function("() => location.search.includes('t=4')", timeout=30_000)
    with streamlit_server(port=port):
        page.get_by_text("Recomputed to iteration 4").first.wait_for(timeout=180_000)
        page.wait_for_function(f"() => ({ITER_JS})() === 4", timeout=60_000)
        if player == "on":
            page.get_by_text(re.compile(r"Iteration 4 of 4")).first.wait_for(timeout=60_000)
    page.close()


SAMPLE_JS = """() => {
  const P = window.nbemPlayerSnapshot?.();
  const part = (prefix, id) => {
    const m = [...document.querySelectorAll('[data-testid="stMetric"]')].find((e) =>
      (e.querySelector('[data-testid="stMetricLabel"] p') || {}).textContent?.trim().startsWith(prefix));
    return m ? m.querySelector(`[data-testid="${id}"] p`).textContent.trim() : null;
  };
  const t = P.stats.lastDrawn;     // the iteration the charts show now (P.t may be a frame ahead)
  return { t: t, playing: P.playing, acc: P.acc[t], iteration: part("Iteration", "stMetricValue"),
           label: part("Accuracy (t=", "stMetricLabel"), value: part("Accuracy (t=", "stMetricValue") };
}"""


def test_while_playing_the_metrics_row_names_the_iteration_the_player_shows(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 1400})
    # 90 % hidden and λ = 1 pinned: a run long enough to watch the player move on
    page.goto(server + "/?dataset=synthetic_spam&hidden=90&lam=1&tol=1e-08&max_iter=40&speed=slow",
              wait_until="domcontentloaded")
    _idle(page)
    page.wait_for_function("() => window.nbemPlayerSnapshot?.() && window.nbemPlayerSnapshot?.().main", timeout=120_000)
    page.get_by_role("button", name=re.compile(r"^.?\s*Play\b")).first.click()
    # sampled as each of six iterations comes on screen (the charts' last draw changes) and ten painted
    # frames later, or until the run ends
    samples, last = [], -1
    for _ in range(6):
        page.wait_for_function("(s) => { const P = window.nbemPlayerSnapshot(); return !P.playing"
                               " || P.stats.lastDrawn !== s; }", arg=last, timeout=60_000)
        samples.append(page.evaluate(SAMPLE_JS))
        frames(page, 10)
        samples.append(page.evaluate(SAMPLE_JS))
        if not samples[-1]["playing"]:
            break
        last = samples[-1]["t"]
    playing = [s for s in samples if s["playing"]]
    assert len({s["t"] for s in playing}) >= 3, samples               # the player moved on
    for s in playing:
        assert s["iteration"] == str(s["t"]), s
        assert s["label"] == f"Accuracy (t={s['t']})" and s["value"] == s["acc"], s
    page.close()
