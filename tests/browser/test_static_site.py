"""The lab published as a static site (nblab/site.py, ``python -m nblab.publish``), served by a plain static
server (``python -m http.server`` on 127.0.0.1) and opened in Chromium.

Every request the page makes is recorded: each one goes to the site's own origin and is answered 200, and the
page asks for exactly its shell, its three hashed assets and its data file. The lab draws, Step works, and
the numbers on screen are nbcore's for the same settings (the oracle of tests/browser/test_lab_page.py:
nbcore's own run, never anything the page computed). Screenshots (1280×720, 390×844) go to
$SITE_SHOTS (default /tmp/site_shots/).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from kit import ROOT, free_port
from kit.browser import require_chromium
from kit.lab import settled
from kit.lab_page import READY, Opened, Oracle, check_numbers

pytestmark = pytest.mark.browser
sync_api = require_chromium()

SITE_SHOTS = Path(os.environ.get("SITE_SHOTS", "/tmp/site_shots"))


def _publish(out: Path, name: str, **settings) -> Path:
    """The CLI, as a teacher runs it."""
    args = [sys.executable, "-m", "nblab.publish", str(out), "--dataset", name]
    for k, v in settings.items():
        args += [f"--{k.replace('_', '-')}", str(v)]
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """Two published folders: sms_spam at the lesson's defaults, digits at 95 % hidden and λ = 0.1."""
    root = tmp_path_factory.mktemp("site")
    return {"sms_spam": _publish(root / "sms", "sms_spam"),
            "digits": _publish(root / "digits", "digits", hidden=95, lam=0.1)}


class Static:
    def __init__(self, folder: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.proc = subprocess.Popen([sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1",
                                      "--directory", str(folder)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.url, timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"python -m http.server did not answer on {self.url}")
            time.sleep(0.2)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture(scope="module")
def servers(sites):
    got = {name: Static(folder) for name, folder in sites.items()}
    yield got
    for s in got.values():
        s.stop()




class Visit(Opened):
    def __init__(self, page, base, requests, responses, foreign, failed, errors, dialogs):
        super().__init__(page, foreign, errors, dialogs)
        self.base, self.requests, self.responses, self.failed = base, requests, responses, failed


def open_site(browser, base: str, path: str = "", **ctx) -> Visit:
    """The site opened over HTTP; every request recorded (and any to another origin refused)."""
    page = browser.new_page(**ctx)
    requests, responses, foreign, failed, errors, dialogs = [], {}, [], [], [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("response", lambda r: responses.__setitem__(r.url, r.status))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append("console: " + m.text) if m.type == "error" else None)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    def route(r):
        if r.request.url.startswith(base):
            return r.continue_()
        foreign.append(r.request.url)
        return r.abort()

    page.route("**/*", route)
    page.goto(base + path)
    v = Visit(page, base, requests, responses, foreign, failed, errors, dialogs)
    try:
        page.wait_for_function(READY, timeout=90_000)
    except sync_api.TimeoutError:
        load = page.evaluate("() => window.__nblabLoad || null")
        page.close()
        raise AssertionError(f"the lab did not start: {load}, errors {errors}, requests {responses}, failed {failed}")
    v.settle()
    return v


def check_requests(v: Visit, data_file: str):
    """Same origin only, every answer 200, and exactly the shell, its assets and its data."""
    from nblab.site import asset_names

    assert v.blocked == [], v.blocked
    assert v.failed == [], v.failed
    assert all(u.startswith(v.base) for u in v.requests), v.requests
    assert v.responses and all(s == 200 for s in v.responses.values()), v.responses
    asked = sorted({u[len(v.base):].split("#")[0] for u in v.requests})
    want = sorted(["", f"data/{data_file}.json"] + [f"assets/{n}" for n in asset_names().values()])
    assert asked == want


def close_ok(v: Visit):
    assert v.dialogs == [], v.dialogs
    assert v.errors == [], v.errors
    v.page.close()


def test_published_sms_spam_draws_steps_and_shows_nbcores_numbers(browser, servers):
    v = open_site(browser, servers["sms_spam"].url, viewport={"width": 1280, "height": 900})
    check_requests(v, "sms_spam")
    # no data in the page itself: it came from data/sms_spam.json
    assert v.ev("() => document.getElementById('nblab-data') === null")
    assert v.ev("() => __nblab.cfg.dataUrl") == "data/sms_spam.json"
    assert v.ev("() => !('follow' in __nblab.cfg)")
    v.page.wait_for_function("() => document.querySelectorAll('.lab-chart .js-plotly-plot').length >= 2",
                             timeout=60_000)
    orc = Oracle("sms_spam")
    names = v.ev("() => __nblab.lab.prep.classNames.map(String)")
    assert v.t == 0 and v.latest == 0
    check_numbers(v, orc, 0, names)
    v.click("step")
    assert v.t == 1
    check_numbers(v, orc, 1, names)
    v.press("ArrowRight", 3)
    assert v.t == 4
    check_numbers(v, orc, 4, names)
    # stepping fetched nothing more
    check_requests(v, "sms_spam")
    close_ok(v)


def test_published_settings_open_the_page_and_match_nbcore(browser, servers):
    """digits published with --hidden 95 --lam 0.1: the page opens there, and its run is nbcore's."""
    v = open_site(browser, servers["digits"].url, viewport={"width": 1280, "height": 900})
    check_requests(v, "digits")
    s = v.ev("() => __nblab.lab.settings || __nblab.settings")
    assert s["hidden"] == 95 and s["lam"] == 0.1
    orc = Oracle("digits", hidden=95, lam=0.1)
    names = v.ev("() => __nblab.lab.prep.classNames.map(String)")
    check_numbers(v, orc, 0, names)
    v.click("step")
    v.click("step")
    check_numbers(v, orc, 2, names)
    close_ok(v)


def test_a_link_fragment_still_wins_over_the_published_settings(browser, servers):
    v = open_site(browser, servers["sms_spam"].url, "#hidden=95&lam=0.1",
                  viewport={"width": 1280, "height": 900})
    orc = Oracle("sms_spam", hidden=95, lam=0.1)
    names = v.ev("() => __nblab.lab.prep.classNames.map(String)")
    v.click("step")
    check_numbers(v, orc, 1, names)
    close_ok(v)


def test_a_missing_data_file_is_said_on_the_page(browser, sites, tmp_path):
    """The data file gone (a half-copied folder): the page says so in an alert instead of staying blank, and
    once the file is there its button starts the lab."""
    broken = tmp_path / "broken"
    shutil.copytree(sites["sms_spam"], broken)
    data = broken / "data" / "sms_spam.json"
    kept = data.read_bytes()
    data.unlink()
    srv = Static(broken)
    try:
        page = browser.new_page()
        statuses = {}
        page.on("response", lambda r: statuses.__setitem__(r.url[len(srv.url):], r.status))
        page.goto(srv.url)
        alert = page.locator("#nblab [role=alert]")
        alert.wait_for(timeout=60_000)
        text = alert.inner_text()
        assert "data" in text.lower() and "Traceback" not in text and "TypeError" not in text
        assert statuses["data/sms_spam.json"] == 404
        data.write_bytes(kept)                                   # the copy finished: try again
        alert.locator("button").click()
        page.wait_for_function(READY, timeout=90_000)
        assert statuses["data/sms_spam.json"] == 200
        page.close()
    finally:
        srv.stop()


def test_screenshots(browser, servers):
    """Desktop (1280×720) and phone (390×844), at t = 0 and after three steps."""
    SITE_SHOTS.mkdir(parents=True, exist_ok=True)
    for tag, vp in (("desktop", {"width": 1280, "height": 720}), ("phone", {"width": 390, "height": 844})):
        v = open_site(browser, servers["sms_spam"].url, viewport=vp)
        v.page.wait_for_function("() => document.querySelectorAll('.lab-chart .js-plotly-plot').length >= 2",
                                 timeout=60_000)
        v.settle()
        settled(v.page)
        v.page.screenshot(path=str(SITE_SHOTS / f"sms_spam_{tag}_t0.png"))
        v.press("ArrowRight", 3)
        settled(v.page)
        v.page.screenshot(path=str(SITE_SHOTS / f"sms_spam_{tag}_t3.png"))
        close_ok(v)
