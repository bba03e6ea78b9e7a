"""A legal link that asks for a long computation (an upload of 6,000 documents, 3,615 words and 20 classes,
``t=1000`` at ``tol=1e-08``) no longer freezes the tab: the page is drawn and usable while EM computes a slice
at a time (nblab/js/page_catchup.js), with its progress and a Stop button; an action of the student's own stops
it first; left alone it ends on the run computed in one go. (The figure, link to a usable page, is
benchmarks/bench_long_link.py's.)"""
from __future__ import annotations

import pytest

from kit.browser import require_chromium
from kit.class_server import ClassServer, write_class
from kit.data import LONG_LINK, long_link_data
from kit.lab_page import Opened

pytestmark = pytest.mark.browser
sync_api = require_chromium()

USABLE = "() => !!(window.__nblab && window.__nblab.usableAt && window.__nblab.lab)"
#: clicks the progress box's Stop once the iterations passed ``n`` while the job runs; true when it clicked
STOP_WHILE_COMPUTING_JS = """n => {
  if (!(__nblab.job && __nblab.lab.latest > n)) return false;
  const b = document.querySelector('.lab-progress .lab-progress-stop');
  if (!b || b.closest('[hidden]') || b.disabled) return false;
  b.click();
  return true;
}"""


@pytest.fixture(scope="module")
def big_page(tmp_path_factory):
    from nblab.page import write_lab
    return write_lab(tmp_path_factory.mktemp("long") / "big.html", long_link_data())


def open_usable(browser, path, fragment) -> Opened:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri() + "#" + fragment)
    page.wait_for_function(USABLE, timeout=120_000)
    return Opened(page, [], errors, [])


def test_the_page_is_usable_while_the_link_computes_and_stop_ends_it_there(browser, big_page):
    o = open_usable(browser, big_page, LONG_LINK)
    # drawn with its controls, EM still on its way to the link's iteration, the progress said
    first = o.ev("() => ({ job: !!__nblab.job, latest: __nblab.lab.latest, done: __nblab.lab.run.done })")
    assert first["job"] and not first["done"], first
    box = o.page.locator(".lab-progress")
    o.page.wait_for_function("() => !document.querySelector('.lab-progress').hidden", timeout=30_000)
    assert box.get_attribute("role") == "status"
    assert "Computing iteration" in box.inner_text() and "of 1000" in box.inner_text()
    # the page answers between slices: the iterations grow while the page takes clicks. Stop is clicked in the
    # page's own turn, the moment the iterations have grown while the job still runs: on a loaded machine a
    # pointer click can land after the job has ended (and its button is hidden), or on a layout still moving
    o.page.wait_for_function(STOP_WHILE_COMPUTING_JS, arg=first["latest"], timeout=60_000)
    o.settle()
    got = o.ev("() => ({ job: !!__nblab.job, t: __nblab.lab.t, latest: __nblab.lab.latest, done: __nblab.lab.run.done,"
               " notice: __nblab.lab.notice && __nblab.lab.notice.text, ready: __nblab.ready })")
    assert not got["job"] and got["t"] == got["latest"] and not got["done"], got
    assert got["notice"].startswith(f"Stopped at iteration {got['latest']}: the link asks for 1000."), got
    assert box.is_hidden()
    o.page.wait_for_function("() => __nblab.ready === true", timeout=60_000)
    # the page's link names where it stopped (a reload does not start the long way again)
    o.page.wait_for_function("t => location.hash.includes('t=' + t)", arg=got["latest"], timeout=30_000)
    assert o.errors == [], o.errors
    o.page.close()


def test_a_step_of_the_students_own_stops_the_computation_first(browser, big_page):
    o = open_usable(browser, big_page, LONG_LINK)
    assert o.ev("() => !!__nblab.job")
    o.page.locator('button[data-act="step"]').click()
    o.settle()
    got = o.ev("() => ({ job: !!__nblab.job, t: __nblab.lab.t, latest: __nblab.lab.latest })")
    assert not got["job"] and got["t"] == got["latest"] >= 1, got
    assert o.page.locator(".lab-progress").is_hidden()
    assert o.errors == [], o.errors
    o.page.close()


def test_left_alone_it_ends_on_the_run_computed_in_one_go(browser, big_page):
    link = LONG_LINK.replace("t=1000", "t=6")
    o = open_usable(browser, big_page, link)
    o.page.wait_for_function("() => __nblab.ready === true && !__nblab.job", timeout=120_000)
    o.settle()
    assert o.t == 6 and o.latest == 6
    assert o.ev("() => __nblab.lab.notice.text").startswith("Recomputed to iteration 6, as the link says")
    # the same run computed in one go, in the page, from the same data and settings
    same = o.ev("""() => { const L = __nblab.lab.constructor, lab = new L(__nblab.data, Object.assign({}, __nblab.lab.settings));
        lab.restoreTo(6);
        const f = (r) => r.run.history.map((s) => s.objective);
        return JSON.stringify(f(lab)) === JSON.stringify(f(__nblab.lab)); }""")
    assert same
    assert o.page.locator(".lab-progress").is_hidden()
    assert o.errors == [], o.errors
    o.page.close()


def test_a_class_page_far_behind_the_teacher_is_usable_and_catches_up(browser, tmp_path):
    """A student joins a class whose teacher is at iteration 12 of the large upload: the class page is drawn,
    follows and takes clicks while it computes its way there, then shows the teacher's iteration."""
    cid = "bigHHHHHHHHHHHHH"
    data = long_link_data()
    write_class(tmp_path, cid, data, key="bigupload")
    server = ClassServer(tmp_path)
    try:
        settings = {"model": "bernoulli", "hidden": 100, "lam": 0.0, "init": "random", "seed": 2, "max_iter": 1000,
                    "tol": 1e-8}
        server.publish(cid, 12, settings=settings, data="bigupload")
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}class/{cid}")
        page.wait_for_function("() => !!(window.__nblab && window.__nblab.usableAt && window.__nblab.follow"
                               " && window.__nblab.follow.applied >= 1 && window.__nblab.job)", timeout=120_000)
        o = Opened(page, [], errors, [])
        assert "where the teacher is" in page.locator(".lab-progress").inner_text()
        assert o.ev("() => __nblab.follow.following") is True
        page.wait_for_function("() => __nblab.ready === true && !__nblab.job", timeout=180_000)
        o.settle()
        assert o.t == 12 and o.latest == 12
        assert page.locator(".lab-follow-text").inner_text() == "Following the teacher — iteration 12"
        assert page.locator(".lab-progress").is_hidden()
        assert errors == [], errors
        page.close()
    finally:
        server.stop()
