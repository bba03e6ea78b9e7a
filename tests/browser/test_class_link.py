"""Real browser, end to end: a teacher opens the lesson for the class, a student follows it.

The teacher's page is the Streamlit lesson view (dashboard/server.py, the README's run command); the
student's is the class link in another browser context where every WebSocket is refused (a school
network that blocks them) — the page must open none, and needs none. Checked:

* "Open for the class" shows a QR code; a real reader (zxing-cpp) decodes the drawn code from a
  screenshot, and it is the link shown under it;
* the student's page follows the teacher's Steps, an E-step half and a λ change, with nbcore's numbers
  (the oracle of tests/browser/test_lab_page.py, computed here, never the page's own);
* a student who joins after the teacher's λ change replays it (the same numbers as the teacher's run);
* a student's Step leaves (the teacher's next Step does not move the page; the bar names the teacher's
  iteration); "Back to the teacher" rejoins;
* "Close the class": the student's page says the class has ended and keeps working.

Screenshots (teacher's QR dialog, student following and exploring, desktop and phone) go to
artifacts/screenshots/class/.
"""
from __future__ import annotations

import io
import re

import pytest

from kit import ROOT
from kit.browser import ITER_JS, require_chromium, wait_idle, wait_still
from kit.classroom import server_teacher_key
from kit.lab_page import Opened, Oracle, check_numbers
from nblab.defaults import LAMBDAS

pytestmark = pytest.mark.browser
sync_api = require_chromium()

SHOTS = ROOT / "artifacts" / "screenshots" / "class"
QUERY = "/?dataset=toy_spam&hidden=50&lam=1&init=labeled"
SETTINGS = dict(hidden=50, lam=1.0, init="labeled", seed=0)



def teacher_iteration(page, n: int) -> None:
    page.wait_for_function(f"() => ({ITER_JS})() === {n}", timeout=120_000)


def click_step(page, name: str = "step") -> None:
    page.locator(f".st-key-{name} button:visible").first.click(timeout=60_000)


def open_student(browser, url: str, **ctx):
    """The class link in a fresh context that refuses every WebSocket; returns (Opened, sockets seen)."""
    context = browser.new_context(**ctx)
    sockets: list[str] = []
    page = context.new_page()
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.route_web_socket(re.compile(".*"), lambda ws: ws.close())
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function("() => !!(window.__nblab && window.__nblab.ready && window.__nblab.lab"
                           " && window.__nblab.follow && window.__nblab.follow.applied >= 1)", timeout=120_000)
    return Opened(page, [], errors, []), sockets


def follows_to(o: Opened, t: int, timeout=20_000) -> None:
    o.page.wait_for_function(f"() => __nblab.lab.t === {t} && __nblab.follow.following", timeout=timeout)


def test_a_student_follows_the_teacher_leaves_and_rejoins(server, browser):
    import zxingcpp
    from PIL import Image

    SHOTS.mkdir(parents=True, exist_ok=True)
    teacher = browser.new_page(viewport={"width": 1280, "height": 900})
    teacher.goto(server + QUERY, wait_until="domcontentloaded")
    wait_idle(teacher)
    teacher.get_by_text("Ready: t = 0").first.wait_for(timeout=120_000)
    try:
        # ---- Open for the class: the link and its QR code --------------------------------------------------
        teacher.get_by_role("textbox", name="Teacher key (to open a class)").fill(server_teacher_key())
        teacher.get_by_role("button", name="Open for the class").click()
        dialog = teacher.get_by_role("dialog")
        dialog.wait_for(timeout=60_000)
        link = dialog.locator("[data-testid=stCode] code").first.inner_text().strip()
        assert re.fullmatch(re.escape(server) + r"/class/[A-Za-z0-9_-]{16}", link), link
        qr = dialog.locator("img").first
        qr.wait_for(timeout=30_000)
        wait_still(teacher)   # the dialog's opening animation is over, its image decoded
        teacher.screenshot(path=str(SHOTS / "teacher_qr_dialog.png"))
        found = zxingcpp.read_barcodes(Image.open(io.BytesIO(qr.screenshot())))
        assert [r.text for r in found] == [link]
        teacher.keyboard.press("Escape")
        dialog.wait_for(state="hidden", timeout=30_000)
        # the sidebar keeps the link and the way to close the class
        assert teacher.locator('[data-testid="stSidebar"] code').filter(has_text="/class/").first.inner_text().strip() == link

        # ---- the student, with WebSockets refused ----------------------------------------------------------
        student, sockets = open_student(browser, link, viewport={"width": 1280, "height": 900})
        o = student
        orc = Oracle("toy_spam", **SETTINGS)
        names = o.ev("() => __nblab.lab.prep.classNames.map(String)")
        assert o.t == 0 and o.ev("() => __nblab.follow.following") is True
        check_numbers(o, orc, 0, names)

        # the teacher Steps twice: the student's page is at t = 2 with nbcore's numbers
        click_step(teacher)
        teacher_iteration(teacher, 1)
        click_step(teacher)
        teacher_iteration(teacher, 2)
        follows_to(o, 2)
        check_numbers(o, orc, 2, names)
        o.page.screenshot(path=str(SHOTS / "student_following.png"))

        # an E-step half: the student's page has the same E-step pending
        click_step(teacher, "e_step")
        o.page.wait_for_function("() => __nblab.follow.teacher && __nblab.follow.teacher.half === 'e'"
                                 " && __nblab.lab.half === 'e' && __nblab.lab.t === 2", timeout=20_000)
        click_step(teacher, "m_step")
        teacher_iteration(teacher, 3)
        follows_to(o, 3)
        o.page.wait_for_function("() => __nblab.lab.half === null", timeout=20_000)
        check_numbers(o, orc, 3, names)

        # ---- the student leaves to explore: a Step of their own ---------------------------------------------
        o.page.locator('button[data-act="step"]').first.click()
        o.page.wait_for_function("() => !__nblab.follow.following && __nblab.lab.t === 4", timeout=20_000)
        click_step(teacher)
        teacher_iteration(teacher, 4)
        click_step(teacher)
        teacher_iteration(teacher, 5)
        o.page.wait_for_function("() => __nblab.follow.teacher && __nblab.follow.teacher.t === 5", timeout=20_000)
        assert o.t == 4                                  # the page stayed where the student took it
        bar = o.page.get_by_role("button", name="Back to the teacher")
        assert bar.is_visible()
        assert "5" in o.page.locator(".lab-follow").first.inner_text()
        o.page.screenshot(path=str(SHOTS / "student_exploring.png"))
        bar.click()
        follows_to(o, 5)
        check_numbers(o, orc, 5, names)

        # ---- the teacher moves λ one notch down (1 → 0.3) mid-run, then Steps: EM continues from θ_5 --------
        thumb = teacher.get_by_role("slider", name="Smoothing λ").first
        thumb.focus()
        teacher.keyboard.press("ArrowLeft")
        # a select slider is an <input type=range> over the choices' indices: λ = 0.3 is LAMBDAS' index
        teacher.wait_for_function("(i) => [...document.querySelectorAll('[data-testid=\"stSidebar\"] input[type=range]')]"
                                  ".some(e => e.getAttribute('aria-label') === 'Smoothing λ' && e.value === String(i))",
                                  arg=LAMBDAS.index(0.3), timeout=60_000)
        teacher.get_by_text("λ changed 1 → 0.3").first.wait_for(timeout=60_000)  # the server's rerun for λ …
        wait_idle(teacher)                                                        # … is over
        click_step(teacher)
        teacher_iteration(teacher, 6)
        follows_to(o, 6)
        orc.to(5)
        orc.run = orc.run.with_settings(smoothing=0.3)
        orc.lam = 0.3
        orc.to(6)
        check_numbers(o, orc, 6, names)
        assert o.snap(6)["lam"] == 0.3 and o.snap(5)["lam"] == 1.0

        # ---- a phone follows too ------------------------------------------------------------------------------
        phone, phone_sockets = open_student(browser, link, viewport={"width": 390, "height": 844}, is_mobile=True,
                                            has_touch=True)
        follows_to(phone, 6)
        # a late joiner replays the teacher's λ history (λ = 1 to θ_5, then 0.3), not the lesson at today's λ
        check_numbers(phone, orc, 6, names)
        assert phone.snap(6)["lam"] == 0.3 and phone.snap(5)["lam"] == 1.0
        phone.page.screenshot(path=str(SHOTS / "student_phone.png"))

        # ---- Close the class ----------------------------------------------------------------------------------
        teacher.get_by_role("button", name="Close the class").click()
        o.page.wait_for_function("() => /ended/i.test(document.querySelector('.lab-follow').innerText)",
                                 timeout=30_000)
        o.page.screenshot(path=str(SHOTS / "student_class_ended.png"))
        o.page.locator('button[data-act="step"]').first.click()     # the lab still works on its own
        o.page.wait_for_function("() => __nblab.lab.t === 7", timeout=20_000)

        assert sockets == [] and phone_sockets == []     # no WebSocket was even tried
        assert o.errors == [] and phone.errors == []
    finally:
        teacher.close()
