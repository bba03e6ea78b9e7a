"""The lab in a notebook (nblab/widget.py, nblab.show) in a real JupyterLab, driven from Python.

Starts a JupyterLab server on a free port (its settings and workspaces in a temporary folder), opens a
notebook in Chromium and runs its cells one by one: the first shows the lab for an sms_spam run at t = 2
(EM runs in the browser, from the run's settings), the next ones set ``w.t``, call ``w.step(3)`` and
``w.play()``, and the last prints what the kernel knows of the view. After each, the page's iteration, its
status sentence and its log-likelihood are checked against the same run computed here with nbcore.
Screenshot: artifacts/screenshots/notebook_widget.png.
Skipped, with the reason, without JupyterLab, anywidget, ipykernel or Chromium.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

import nbcore
from kit import ROOT, free_port
from kit.browser import require_chromium
from kit.lab import settled

pytestmark = [pytest.mark.browser, pytest.mark.slow]

for _mod, _why in (("jupyterlab", "JupyterLab"), ("anywidget", "anywidget"), ("ipykernel", "ipykernel")):
    pytest.importorskip(_mod, reason=f"{_why} is not installed (pip install -e '.[test,widget]')")
sync_api = require_chromium()

SHOTS = ROOT / "artifacts" / "screenshots"
TOKEN = "nbem-test"

CELLS = [
    f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
    "import numpy as np, nbcore, nblab\n"
    "ds = nbcore.load_dataset('sms_spam')\n"
    "y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)\n"
    "run = nbcore.EM(model='bernoulli', n_classes=2, smoothing=1.0, init='labeled', random_state=0,\n"
    "                tol=1e-6).start(ds.for_model('bernoulli'), y_obs)\n"
    "run.step(); run.step()\n"
    "w = nblab.show(run, ds)\n"
    "w",
    "w.t = 1",
    "w.step(3)",
    "w.play()",
    "print('kernel', w.t, w.latest, w.settings['hidden'], float(w.settings['lam']))",
]

#: the widget's page state (boot.js's G, kept on the widget's element)
G = "document.querySelector('.nblab-widget').__nblab"
STATE = (f"() => {{ const g = {G}; return g && g.lab ? {{ t: g.lab.t, latest: g.lab.latest, playing: !!g.lab.playing,"
         " done: !!g.lab.done } : null; }")


def expected_run():
    ds = nbcore.load_dataset("sms_spam")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled", random_state=0,
                    tol=1e-6).start(ds.for_model("bernoulli"), y_obs)
    run.run_to_convergence()
    return ds, np.asarray(y_obs), run


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("jupyter")
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                    for c in CELLS],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (tmp / "lesson.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp / "cfg"), JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "ws"), JUPYTER_RUNTIME_DIR=str(tmp / "rt"))
    # no "news" or update notices over the notebook
    (tmp / "settings" / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (tmp / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port = free_port()
    log = open(tmp / "lab.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
                             "--ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={tmp}", "--allow-root",
                             "--LabApp.news_url=", "--ServerApp.open_browser=False"],
                            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 240
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail("JupyterLab did not start:\n" + (tmp / "lab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def run_cell(page, index: int):
    """Run the notebook's cell ``index`` (Shift+Enter in its editor) and wait until the kernel is idle."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    prompt = (f"() => {{ const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[{index}];"
              " const p = c && c.querySelector('.jp-InputPrompt'); return p && /\\[(\\d+|\\*)\\]/.test(p.textContent); }")
    for attempt in range(3):  # a key press while the page is still settling can be lost: press again
        # a dialog JupyterLab opens on a slow start (the kernel to use) holds every click: take its default
        dialog = page.locator(".jp-Dialog .jp-mod-accept")
        if dialog.count():
            dialog.first.click()
            page.locator(".jp-Dialog").first.wait_for(state="detached", timeout=60_000)
        cell.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        try:
            page.wait_for_function(prompt, timeout=60_000)
            break
        except sync_api.TimeoutError:
            if attempt == 2:
                raise
    page.wait_for_function(
        f"() => {{ const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[{index}];"
        " const p = c && c.querySelector('.jp-InputPrompt'); return p && /\\[\\d+\\]/.test(p.textContent); }",
        timeout=120_000)


def sentence(page) -> str:
    return page.locator(".nblab-widget #lab-sentence").inner_text()


def expected_words(run, ds, y_obs, t) -> str:
    """The start of the page's status sentence at t: α and the accuracy on the hidden labels, from nbcore."""
    a = np.asarray(run.history[t].alpha)
    acc = nbcore.hidden_accuracy(run.predict(t=t), np.asarray(ds.y), y_obs < 0)
    return f"α ham {a[0]:.2f}, spam {a[1]:.2f}; accuracy {acc:.1%}"


def check(page, run, ds, y_obs, t, latest):
    page.wait_for_function(f"() => {{ const s = ({STATE})(); return s && s.t === {t} && s.latest === {latest}; }}",
                           timeout=120_000)
    settled(page, G)                       # the sentence is drawn in the frame after the state changed
    assert sentence(page).startswith(f"Iteration {t} of {latest}: {expected_words(run, ds, y_obs, t)}")
    ll = page.evaluate(f"() => {G}.lab.run.history[{t}].logLikelihood")
    assert ll == pytest.approx(run.history[t].log_likelihood, rel=1e-9)


def test_widget_follows_python(lab, browser):
    ds, y_obs, run = expected_run()
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    try:
        page.goto(f"{lab}/lab/tree/lesson.ipynb?token={TOKEN}", wait_until="domcontentloaded")
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=120_000)
        page.wait_for_function("() => { const s = document.querySelector('.jp-Notebook-ExecutionIndicator');"
                               " return !s || s.getAttribute('data-status') === 'idle'; }", timeout=120_000)

        run_cell(page, 0)                                                   # the lab, opened at the run's t = 2
        check(page, run, ds, y_obs, 2, 2)
        page.wait_for_function(f"() => !!{G}.lab && !!document.querySelector('.nblab-widget .js-plotly-plot')",
                               timeout=120_000)

        run_cell(page, 1)                                                   # w.t = 1
        check(page, run, ds, y_obs, 1, 2)

        run_cell(page, 2)                                                   # w.step(3): t 2, then two new steps
        check(page, run, ds, y_obs, 4, 4)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate("() => document.querySelector('.nblab-widget').scrollIntoView()")
        settled(page, G)
        page.screenshot(path=str(SHOTS / "notebook_widget.png"))

        run_cell(page, 3)                                                   # w.play(): to where EM stops
        latest = len(run.history) - 1
        page.wait_for_function(f"() => {{ const s = ({STATE})(); return s && s.done && !s.playing && s.t === {latest}; }}",
                               timeout=120_000)
        check(page, run, ds, y_obs, latest, latest)

        run_cell(page, 4)                                                   # the kernel saw where the view stopped
        page.wait_for_function("() => [...document.querySelectorAll('.jp-OutputArea-output')]"
                               ".some(e => e.textContent.includes('kernel '))", timeout=120_000)
        out = page.locator(".jp-OutputArea-output", has_text="kernel ").inner_text().split()
        assert out[1:] == [str(latest), str(latest), "90", "1.0"]
    finally:
        page.close()
