"""The class page follows the teacher (nblab/js/follow.js, page_follow.js's mountFollow), and fetches its data.

A temporary folder is served by Python's http.server (a ThreadingHTTPServer in a thread, 127.0.0.1, a free
port) in the class link's shape (docs/class_link.md): the page at ``/class/<cid>`` (nblab.site.shell_html with
``dataUrl`` and ``follow``), the hashed assets under ``/class/assets/``, the data at
``/class/data/<key>.json`` and the teacher's state at ``/class/<cid>/state.json`` (``ETag: "<v>"``,
``Cache-Control: no-cache``, 304 on a matching If-None-Match, 404 once the class is gone), which the tests
rewrite as a teacher's session would. The numbers on screen are compared with nbcore's run at the teacher's
settings (tests/browser/test_lab_page.py's oracle: nbcore, never anything the page computed).

Screenshots of the following, exploring and ended states (1280×720 and 390×844) go to $FOLLOW_SHOTS
(default /tmp/follow_shots/).
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from kit.browser import require_chromium
from kit.class_server import DATA, INTERVAL, SETTINGS, ClassServer, write_class
from kit.lab import count_fetches_script
from kit.lab_page import READY, Opened, Oracle, check_numbers

pytestmark = pytest.mark.browser
sync_api = require_chromium()

SHOTS = Path(os.environ.get("FOLLOW_SHOTS", "/tmp/follow_shots"))
@pytest.fixture(scope="module")
def lab_data():
    from nblab.data import lab_data as make
    return make(DATA)


@pytest.fixture(scope="module")
def server(tmp_path_factory, lab_data):
    folder = tmp_path_factory.mktemp("class")
    for cid in ("lessonAAAAAAAAAA", "phoneBBBBBBBBBBB", "brokenCCCCCCCCCC", "gone0DDDDDDDDDDD"):
        write_class(folder, cid, lab_data)
    write_class(folder, "staticEEEEEEEEEE", lab_data, follow=False)
    write_class(folder, "switchFFFFFFFFFF", lab_data)
    write_class(folder, "awayGGGGGGGGGGGG", lab_data)
    write_class(folder, "busyGGGGGGGGGGGG", lab_data)
    s = ClassServer(folder)
    yield s
    s.stop()




def open_class(browser, server, cid, ready=True, clock=False, **ctx) -> Opened:
    """The class page; ``clock``: Playwright's clock installed first (its time still flows as the real one,
    and ``page.clock.run_for`` fires every timer due in a stretch of it at once)."""
    page = browser.new_page(**ctx)
    page.add_init_script(count_fetches_script("state.json"))
    if clock:
        page.clock.install()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append("console: " + m.text) if m.type == "error" and "404" not in m.text
            and "500" not in m.text and "503" not in m.text and "429" not in m.text else None)
    page.goto(f"{server.url}class/{cid}")
    if ready:
        page.wait_for_function(READY, timeout=60_000)
    o = Opened(page, [], errors, [])
    if ready:
        o.settle()
    return o


def wait_applied(o: Opened, v: int):
    o.page.wait_for_function("v => window.__nblab.follow && window.__nblab.follow.applied >= v", arg=v, timeout=30_000)
    o.settle()


def bar_text(o: Opened) -> str:
    return o.page.locator(".lab-follow-text").inner_text()


def shot(o: Opened, name: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    o.page.evaluate("() => window.scrollTo(0, 0)")
    o.page.screenshot(path=str(SHOTS / f"{name}.png"))


# ---- the tests -------------------------------------------------------------------------------------------------------

def test_follows_the_teacher_leaves_and_rejoins(browser, server):
    cid = "lessonAAAAAAAAAA"
    server.publish(cid, 0)
    o = open_class(browser, server, cid, clock=True, viewport={"width": 1280, "height": 720})
    wait_applied(o, 1)
    names = o.ev("() => __nblab.lab.prep.classNames.map(String)")
    bar = o.page.locator(".lab-follow-text")
    assert bar.get_attribute("role") == "status" and bar.get_attribute("aria-live") == "polite"
    assert bar_text(o) == "Following the teacher — iteration 0"
    assert o.ev("() => __nblab.settings.hidden") == 90 and o.ev("() => __nblab.settings.lam") == 1.0
    orc = Oracle(DATA, model="bernoulli", hidden=90, lam=1.0)
    check_numbers(o, orc, 0, names)

    # the teacher steps to 3: the page computes up to 3 and shows it
    wait_applied(o, server.publish(cid, 3))
    assert o.t == 3 and o.latest == 3
    check_numbers(o, orc, 3, names)
    assert o.metric(0) == "3"
    assert bar_text(o) == "Following the teacher — iteration 3"
    # an unchanged state is revalidated, not downloaded again: the browser sends If-None-Match, the server says 304
    o.page.wait_for_function("n => __nblab.follow.polls >= n", arg=o.ev("() => __nblab.follow.polls") + 2, timeout=20_000)
    assert any(s == 304 for _, s in server.requests(f"{cid}/state.json")), server.requests(f"{cid}/state.json")[-5:]

    # λ changes mid-run: the run continues from iteration 3 (as a link's change), then the teacher steps to 5
    wait_applied(o, server.publish(cid, 3, dict(SETTINGS, lam=0.1)))
    assert "EM continues from iteration 3" in o.page.locator(".lab-change").inner_text()
    wait_applied(o, server.publish(cid, 5, dict(SETTINGS, lam=0.1)))
    orc.to(3)
    orc.run = orc.run.with_settings(smoothing=0.1)
    orc.lam = 0.1
    orc.to(5)
    assert o.t == 5 and o.latest == 5
    check_numbers(o, orc, 5, names)
    assert o.snap(5)["lam"] == 0.1 and o.snap(3)["lam"] == 1.0

    # the E-step half of iteration 6
    wait_applied(o, server.publish(cid, 5, dict(SETTINGS, lam=0.1), half="e"))
    assert o.ev("() => __nblab.lab.half") == "e" and o.t == 5 and o.latest == 5
    assert "E-step done" in o.page.locator(".lab-metric-delta").first.inner_text()
    assert bar_text(o) == "Following the teacher — iteration 5 (E-step done)"
    shot(o, "following_desktop")

    # the student presses Step: they leave (the M-step is theirs), the teacher's next state does not move the page
    o.click("m")
    assert o.t == 6
    follow = o.ev("() => __nblab.follow")
    assert follow["following"] is False
    v = server.publish(cid, 2, dict(SETTINGS, lam=0.1))
    o.page.wait_for_function("v => __nblab.follow.teacher && __nblab.follow.teacher.v === v", arg=v, timeout=20_000)
    o.settle()
    assert o.t == 6 and o.latest == 6
    assert bar_text(o) == "Exploring on your own — the teacher is at iteration 2"
    back = o.page.get_by_role("button", name="Back to the teacher")
    assert back.is_visible()
    shot(o, "exploring_desktop")

    # back to the teacher: the latest state again, following
    back.click()
    o.settle()
    assert o.ev("() => __nblab.follow.following") is True
    assert o.t == 2
    check_numbers(o, orc, 2, names)
    assert bar_text(o) == "Following the teacher — iteration 2"
    assert not back.is_visible()
    # a data setting changes: a new run (as a link's change), computed up to the teacher's iteration
    wait_applied(o, server.publish(cid, 2, dict(SETTINGS, lam=0.1, hidden=80)))
    assert "new run from iteration 0" in o.page.locator(".lab-change").inner_text()
    assert o.t == 2 and o.latest == 2
    check_numbers(o, Oracle(DATA, model="bernoulli", hidden=80, lam=0.1), 2, names)
    # keys and a link change leave too; the view-only keys (classroom, shortcuts list) do not
    o.press("c")
    assert o.ev("() => __nblab.follow.following") is True
    o.press("c")
    o.press("ArrowRight")
    assert o.ev("() => __nblab.follow.following") is False and o.t == 3
    back.click()
    o.settle()
    assert o.t == 2 and o.ev("() => __nblab.follow.following") is True
    o.ev("() => { location.hash = 'lam=1&t=1'; }")
    o.page.wait_for_function("() => !__nblab.follow.following", timeout=10_000)
    back.click()
    o.settle()
    assert o.ev("() => __nblab.follow.following") is True and o.t == 2 and o.ev("() => __nblab.settings.lam") == 0.1

    # the class ends (404): said plainly, the lab still works
    server.states[cid] = None
    o.page.wait_for_function("() => __nblab.follow.ended", timeout=20_000)
    o.settle()
    assert bar_text(o).startswith("The class has ended")
    assert not back.is_visible()
    shot(o, "ended_desktop")
    polls = o.ev("() => __nblab.follow.polls")
    o.click("step")
    assert o.t == 3
    fetches = o.ev("() => window.__fetches")
    o.page.clock.run_for(3 * INTERVAL)      # every timer due in three poll intervals fires now
    # no more polling once the class is over: no poll's fetch was even called, no answer counted
    assert o.ev("() => window.__fetches") == fetches
    assert o.ev("() => __nblab.follow.polls") == polls
    assert o.errors == [], o.errors
    o.page.close()


def test_phone_and_the_network_failing(browser, server):
    cid = "phoneBBBBBBBBBBB"
    server.publish(cid, 4)
    o = open_class(browser, server, cid, clock=True, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    wait_applied(o, 1)
    assert o.t == 4 and bar_text(o) == "Following the teacher — iteration 4"
    # nothing wider than the phone
    assert o.ev("() => document.documentElement.scrollWidth") <= 390
    shot(o, "following_phone")
    # the teacher's server fails: plain words, the page keeps following once it answers again
    server.fail[f"/class/{cid}/state.json"] = 503
    o.page.wait_for_function("() => __nblab.follow.error === 'unreachable'", timeout=20_000)
    assert bar_text(o).startswith("Can't reach the teacher's lesson — retrying")
    assert o.page.locator(".lab-follow").get_attribute("data-trouble") == "true"
    shot(o, "unreachable_phone")
    del server.fail[f"/class/{cid}/state.json"]
    v = server.publish(cid, 6)
    wait_applied(o, v)
    assert o.t == 6 and bar_text(o) == "Following the teacher — iteration 6"
    # a hostile state (HTML in strings, a huge t) changes nothing and never becomes markup
    server.fail[f"/class/{cid}/state.json"] = json.dumps(
        {"v": 99, "t": 10 ** 30, "data": "<img src=x onerror=alert(1)>", "settings": {"model": "<b>x</b>"}}).encode()
    o.page.wait_for_function("() => __nblab.follow.error === 'bad'", timeout=20_000)
    assert o.t == 6 and o.page.locator(".lab-follow img, .lab-follow b").count() == 0
    del server.fail[f"/class/{cid}/state.json"]
    server.publish(cid, 6)
    o.page.wait_for_function("() => !__nblab.follow.error", timeout=30_000)
    # a hidden tab does not poll; visible again, it polls at once
    o.ev("() => { Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });"
         " document.dispatchEvent(new Event('visibilitychange')); }")
    # a poll in flight may still land: wait until every fetch of the state made so far has been answered
    o.page.wait_for_function("() => __nblab.follow.polls === window.__fetches", timeout=20_000)
    polls = o.ev("() => __nblab.follow.polls")
    o.page.clock.run_for(4 * INTERVAL)      # every timer due in four poll intervals fires now: none polls
    assert o.ev("() => window.__fetches") == polls
    assert o.ev("() => __nblab.follow.polls") == polls
    v = server.publish(cid, 5)
    o.ev("() => { Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });"
         " document.dispatchEvent(new Event('visibilitychange')); }")
    o.page.wait_for_function("v => __nblab.follow.applied === v", arg=v, timeout=10_000)   # no timer runs while hidden: only the poll on "visible" can bring it
    assert o.ev("() => __nblab.follow.polls") == polls + 1
    o.settle()
    assert o.t == 5
    # a tap on Step leaves, on a phone too
    o.click("step")
    assert o.t == 6 and bar_text(o) == "Exploring on your own — the teacher is at iteration 5"
    o.page.get_by_role("button", name="Back to the teacher").scroll_into_view_if_needed()
    shot(o, "exploring_phone")
    assert o.ev("() => document.documentElement.scrollWidth") <= 390
    server.states[cid] = None
    o.page.wait_for_function("() => __nblab.follow.ended", timeout=30_000)
    o.settle()
    shot(o, "ended_phone")
    assert bar_text(o).startswith("The class has ended")
    assert o.errors == [], o.errors
    o.page.close()


def test_a_busy_server_is_asked_again_by_itself(browser, server):
    """The data route answers 429 (Retry-After: 1) twice, as the class budget does when a whole class behind
    one address arrives at once: the page says the server is busy, asks again by itself after the wait, and
    starts with no click."""
    cid = "busyGGGGGGGGGGGG"
    server.publish(cid, 2)
    data_path = f"/class/data/{DATA}.json"
    with server.lock:
        server.busy[data_path] = 2
        before = len(server.log)
    o = open_class(browser, server, cid, ready=False, viewport={"width": 390, "height": 844})
    o.page.wait_for_function(READY, timeout=60_000)
    with server.lock:
        asked = [s for p, s in server.log[before:] if p.split("?")[0] == data_path]
    assert asked == [429, 429, 200], asked
    assert o.ev("() => window.__nblabLoad") == {"busy": 2, "waitMs": o.ev("() => window.__nblabLoad.waitMs")}
    assert 1000 <= o.ev("() => window.__nblabLoad.waitMs") <= 1500
    wait_applied(o, 1)
    assert o.errors == [], o.errors
    o.page.close()


def test_data_fetch_fails_then_try_again(browser, server):
    cid = "brokenCCCCCCCCCC"
    server.publish(cid, 2)
    data_path = f"/class/data/{DATA}.json"
    server.fail[data_path] = 500
    o = open_class(browser, server, cid, ready=False, viewport={"width": 1280, "height": 720})
    alert = o.page.get_by_role("alert")
    alert.wait_for(timeout=30_000)
    assert "The lab's data could not be loaded." in alert.inner_text()
    assert "answered 500" in alert.inner_text()
    assert "Traceback" not in o.page.content()
    # not JSON: said so
    server.fail[data_path] = b"<html>oops</html>"
    o.page.get_by_role("button", name="Try again").click()
    o.page.wait_for_function("() => document.body.innerText.includes('not valid JSON')", timeout=30_000)
    shot(o, "data_failed_desktop")
    # the server is back: Try again starts the lab, which then follows the teacher
    del server.fail[data_path]
    o.page.get_by_role("button", name="Try again").click()
    o.page.wait_for_function(READY, timeout=60_000)
    wait_applied(o, 1)
    assert o.t == 2 and bar_text(o) == "Following the teacher — iteration 2"
    o.page.close()


def test_loading_message_and_a_static_page_without_follow(browser, server, lab_data):
    # a slow data file: "Loading the data…" meanwhile
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    gate = server.hold[f"/class/data/{DATA}.json"] = threading.Event()
    page.goto(f"{server.url}class/staticEEEEEEEEEE", wait_until="domcontentloaded")
    page.wait_for_function("() => document.body.innerText.includes('Loading the data…')", timeout=20_000)
    assert page.get_by_role("status").first.inner_text() == "Loading the data…"
    gate.set()
    del server.hold[f"/class/data/{DATA}.json"]
    page.wait_for_function(READY, timeout=60_000)
    # no follow: no bar, no poll
    assert page.locator(".lab-follow").count() == 0
    assert page.evaluate("() => window.__nblab.follow") is None
    assert not server.requests("staticEEEEEEEEEE/state.json")
    page.close()


AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
AXE_RUN = """async () => {
  // the panels below the charts are tests/browser/test_lab_page.py's; here: the page's own parts and the bar
  const r = await axe.run({ exclude: [['.nbl-panel']] }, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
                                      resultTypes: ['violations'] });
  const b = await axe.run({ exclude: [['.nbl-panel']] }, { runOnly: { type: 'tag', values: ['best-practice'] },
                                                          resultTypes: ['violations'] });
  return r.violations.concat(b.violations).map(v => [v.id, v.impact, v.nodes.length, v.nodes.slice(0, 3).map(n => n.target.join(' '))]);
}"""


def test_axe_on_the_bar_and_the_data_message(browser, server):
    """WCAG 2.0 / 2.1 A and AA and axe's best practices on the class page: following, exploring, ended, and
    the data's failure message (a phone and a desktop)."""
    if not AXE.exists():
        pytest.skip("no vendored axe-core")
    cid = "gone0DDDDDDDDDDD"
    server.publish(cid, 1)
    for vp in ({"width": 1280, "height": 720}, {"width": 390, "height": 844}):
        # the site's CSP allows no inline script: axe goes in with the CSP bypassed
        o = open_class(browser, server, cid, viewport=vp, bypass_csp=True)
        wait_applied(o, o.ev("() => __nblab.follow.teacher.v"))
        o.page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
        assert o.ev(AXE_RUN) == [], ("following", vp)
        o.click("step")
        assert o.ev("() => __nblab.follow.mode") == "exploring"
        o.ev("() => document.querySelector('.lab-follow-back').focus()")
        assert o.ev(AXE_RUN) == [], ("exploring", vp)
        o.page.close()
    server.states[cid] = None
    o = open_class(browser, server, cid, viewport={"width": 1280, "height": 720}, bypass_csp=True)
    o.page.wait_for_function("() => __nblab.follow.ended", timeout=20_000)
    o.settle()
    o.page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    assert o.ev(AXE_RUN) == [], "ended"
    o.page.close()
    server.fail[f"/class/data/{DATA}.json"] = 503
    try:
        o = open_class(browser, server, cid, ready=False, viewport={"width": 390, "height": 844}, bypass_csp=True)
        o.page.get_by_role("alert").wait_for(timeout=30_000)
        o.page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
        assert o.ev(AXE_RUN) == [], "data failed"
        o.page.close()
    finally:
        del server.fail[f"/class/data/{DATA}.json"]


def test_the_teacher_switches_data(browser, server):
    """Another data set in the teacher's state: the page reloads only once the server answers for that data
    (a data set it cannot serve leaves the working lab as it is, said in the bar, and is asked about again);
    then it reloads once (the server serves the page for the class's data); a page still holding the old data
    after that says so instead of reloading again."""
    from nblab.data import lab_data as make

    cid = "switchFFFFFFFFFF"
    server.publish(cid, 2)
    o = open_class(browser, server, cid, clock=True, viewport={"width": 1280, "height": 720})
    wait_applied(o, 1)
    loads = []
    o.page.on("load", lambda *_: loads.append(1))
    toy = dict(SETTINGS, dataset="toy_spam", hidden=50)
    server.publish(cid, 1, toy, data="toy_spam")
    # the server has no toy_spam data yet: no reload into "This class's data set is gone", the lab keeps working
    o.page.wait_for_function("() => document.body.innerText.includes('cannot give this page right now')",
                             timeout=30_000)
    assert loads == []
    assert o.ev("() => __nblab.data.name") == DATA and o.t == 2
    assert o.page.locator(".lab-follow").get_attribute("data-trouble") == "true"
    o.page.clock.run_for(4 * INTERVAL)           # more polls: the same answer, still no reload
    o.page.wait_for_function("n => __nblab.follow.polls >= n", arg=o.ev("() => __nblab.follow.polls") + 2,
                             timeout=30_000)
    assert loads == []
    # the server can serve toy_spam now (its class page still holds the old data): asked again, the page reloads
    (server.folder / "class" / "data" / "toy_spam.json").write_text(json.dumps(make("toy_spam")), encoding="utf-8")
    o.page.clock.run_for(31_000)
    o.page.wait_for_function("() => document.body.innerText.includes('The teacher moved to another data set')", timeout=30_000)
    assert len(loads) == 1                                   # one reload, not a loop
    # the reloaded page keeps polling the same state: two more answers on this same document, no reload
    o.ev("() => { window.__sameDocument = true; }")
    o.page.wait_for_function("n => __nblab.follow.polls >= n", arg=o.ev("() => __nblab.follow.polls") + 2,
                             timeout=30_000)
    assert o.ev("() => window.__sameDocument === true")
    assert len(loads) == 1
    assert o.ev("() => __nblab.data.name") == DATA
    # the server now serves the class's page for toy_spam: a reload follows the teacher there
    write_class(server.folder, cid, make("toy_spam"), key="toy_spam")
    o.page.reload()
    o.page.wait_for_function(READY, timeout=60_000)
    wait_applied(o, server.states[cid]["v"])
    assert o.ev("() => __nblab.data.name") == "toy_spam"
    assert o.t == 1 and o.ev("() => __nblab.settings.hidden") == 50
    assert bar_text(o) == "Following the teacher — iteration 1"
    assert o.errors == [], o.errors
    o.page.close()


def test_a_teacher_whose_page_is_gone_is_said_and_the_lab_keeps_working(browser, server):
    cid = "awayGGGGGGGGGGGG"
    server.publish(cid, 3)
    o = open_class(browser, server, cid, viewport={"width": 1280, "height": 720})
    wait_applied(o, 1)
    st = dict(server.states[cid], away=True)     # the same version: the store read the class away
    server.states[cid] = st
    server.etag_suffix[cid] = "a"
    o.page.wait_for_function("() => __nblab.follow.away === true", timeout=30_000)
    o.settle()
    text = bar_text(o)
    assert "has not been heard from" in text and "keeps working" in text and "iteration 3" in text, text
    assert o.page.locator(".lab-follow").get_attribute("data-trouble") == "true"
    o.click("step")                              # the lab works on its own
    assert o.t == 4
    o.page.get_by_role("button", name="Back to the teacher").click()
    o.settle()
    server.etag_suffix.pop(cid)
    v = server.publish(cid, 5, away=False)       # the teacher is back and steps
    wait_applied(o, v)
    assert o.t == 5 and bar_text(o) == "Following the teacher — iteration 5"
    assert o.errors == [], o.errors
    o.page.close()
