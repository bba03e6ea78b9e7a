"""Real browser, end to end: the teacher asks the class, three students answer, Reveal shows nbcore's answer.

The teacher's page is the Streamlit lesson view (dashboard/server.py); the students' are the class link in
three browser contexts of their own (one phone-sized, 390x844). Checked:

* the teacher's "Ask the class" (α of class 0 at the next Step) reaches every student's page, with one-tap
  options whose texts are bidi islands (<bdi>, dir=auto) and never markup; a class name from the data in the
  prompt stays text;
* each student's tap is stored (the page's token in localStorage: 256 random bits), the teacher's count reads
  3, a reload keeps the student's answer (GET mine);
* Reveal: every student's page shows the right answer computed by nbcore here (an independent run) with the
  class's distribution, and the teacher's lesson runs the Step predicted (the students follow it);
* Pause freezes the students' controls (a notice says so) until Resume;
* axe-core: no violation on the question panel (desktop and phone).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from kit import ROOT
from kit.browser import ITER_JS, require_chromium, wait_idle
from kit.classroom import server_teacher_key
from kit.lab_page import AXE, Oracle

pytestmark = pytest.mark.browser
sync_api = require_chromium()

SHOTS = ROOT / "artifacts" / "screenshots" / "class"
QUERY = "/?dataset=toy_spam&hidden=50&lam=1&init=labeled"
SETTINGS = dict(hidden=50, lam=1.0, init="labeled", seed=0)
AXE_ON = """async () => {
  const r = await axe.run('.lab-question', { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    resultTypes: ['violations'] });
  return r.violations.map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '));
}"""


#: the sidebar's button labels whose text does not fit their button (cut with an ellipsis)
CUT_LABELS_JS = """() => [...document.querySelectorAll('[data-testid="stSidebar"] button')]
  .filter(b => b.offsetParent !== null)
  .filter(b => [b, ...b.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1
    || getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.getBoundingClientRect().width + 1))
  .map(b => b.innerText)"""


def open_student(browser, url: str, **ctx):
    context = browser.new_context(bypass_csp=True, **ctx)   # axe-core is injected as an inline script
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function("() => !!(window.__nblab && window.__nblab.ready && window.__nblab.follow"
                           " && window.__nblab.follow.applied >= 1)", timeout=120_000)
    return page, errors


def question_shown(page, qid: str, phase: str) -> None:
    try:
        page.wait_for_function("([q, p]) => __nblab.question && __nblab.question.id === q && __nblab.question.phase === p"
                               " && !__nblab.question.busy", arg=[qid, phase], timeout=60_000)
    except Exception:
        seen = page.evaluate("() => ({ question: __nblab.question, teacher: __nblab.follow.teacher,"
                             " status: (document.querySelector('.lab-q-status') || {}).textContent })")
        raise AssertionError(f"the question {qid} ({phase}) is not shown: {seen}") from None


def test_the_class_answers_and_sees_nbcores_answer_revealed(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    orc = Oracle("toy_spam", **SETTINGS).to(1)
    right = "up" if orc.alpha(1)[0] > orc.alpha(0)[0] else "down"
    teacher = browser.new_page(viewport={"width": 1280, "height": 900})
    teacher.goto(server + QUERY, wait_until="domcontentloaded")
    wait_idle(teacher)
    teacher.get_by_text("Ready: t = 0").first.wait_for(timeout=120_000)
    side = teacher.locator('[data-testid="stSidebar"]')
    teacher.get_by_role("textbox", name="Teacher key (to open a class)").fill(server_teacher_key())
    teacher.get_by_role("button", name="Open for the class").click()
    dialog = teacher.get_by_role("dialog")
    dialog.wait_for(timeout=60_000)
    link = dialog.locator("[data-testid=stCode] code").first.inner_text().strip()
    assert re.fullmatch(re.escape(server) + r"/class/[A-Za-z0-9_-]{16}", link), link
    teacher.keyboard.press("Escape")
    dialog.wait_for(state="hidden", timeout=30_000)

    students = [open_student(browser, link, viewport={"width": 1280, "height": 900}),
                open_student(browser, link, viewport={"width": 1280, "height": 900}),
                open_student(browser, link, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)]
    pages = [p for p, _ in students]
    # a class name from the data, hostile, in one student's copy: the prompt shows it as text
    pages[0].evaluate("() => { __nblab.data.classNames[0] = '<img src=x onerror=\"window.__hit=1\">\\u202Eevil'; }")

    # ---- the teacher asks: α of class 0 at the next Step -----------------------------------------------------
    side.get_by_text("Ask the class").first.click()
    side.get_by_role("button", name="Ask", exact=True).click()
    side.get_by_text("0 answered").first.wait_for(timeout=60_000)
    qid = "q1-a0"
    for p in pages:
        question_shown(p, qid, "open")
    got = pages[0].evaluate("""() => ({
      prompt: document.querySelector('.lab-q-prompt').textContent,
      promptKids: document.querySelector('.lab-q-prompt').children.length,
      imgs: document.querySelectorAll('.lab-question img').length, hit: window.__hit || 0,
      options: [...document.querySelectorAll('.lab-q-option')].map(b => ({ id: b.dataset.option, dir: b.getAttribute('dir'),
        kids: [...b.children].map(c => c.tagName), text: b.textContent,
        iso: getComputedStyle(b.querySelector('bdi')).unicodeBidi })) })""")
    assert "<img src=x" in got["prompt"] and got["promptKids"] == 0 and got["imgs"] == 0 and got["hit"] == 0, got
    assert [o["id"] for o in got["options"]] == ["up", "down"]
    for o in got["options"]:
        assert o["dir"] == "auto" and o["kids"] == ["BDI"] and o["iso"] == "isolate", o

    # ---- three answers (two right, one wrong), one of them reloaded -----------------------------------------
    wrong = "down" if right == "up" else "up"
    for p, choice in zip(pages, (right, wrong, right)):
        p.locator(f'.lab-q-option[data-option="{choice}"]').click()
        p.wait_for_function("(c) => __nblab.question.mine === c", arg=choice, timeout=30_000)
        assert p.locator(f'.lab-q-option[data-option="{choice}"]').get_attribute("aria-pressed") == "true"
    tokens = [p.evaluate("() => localStorage.getItem('nblab-answer-token')") for p in pages]
    assert len(set(tokens)) == 3 and all(re.fullmatch(r"[A-Za-z0-9_-]{43}", t) for t in tokens)
    side.get_by_text("3 answered").first.wait_for(timeout=60_000)
    pages[1].reload(wait_until="domcontentloaded")
    pages[1].wait_for_function("() => !!(window.__nblab && __nblab.follow && __nblab.follow.applied >= 1)", timeout=120_000)
    question_shown(pages[1], qid, "open")
    assert pages[1].evaluate("() => __nblab.question.mine") == wrong
    assert pages[1].evaluate("() => localStorage.getItem('nblab-answer-token')") == tokens[1]
    if AXE.exists():
        for p in (pages[0], pages[2]):
            p.add_script_tag(content=AXE.read_text(encoding="utf-8"))
            assert p.evaluate(AXE_ON) == []
    pages[2].screenshot(path=str(SHOTS / "student_phone_answering.png"))

    # ---- Show, then Reveal: nbcore's answer on every student's page, and the Step the class predicted -------
    side.get_by_role("button", name="Show", exact=True).click()
    side.get_by_role("button", name="Reveal", exact=True).click()
    side.get_by_text(f"Right answer: {right}").first.wait_for(timeout=60_000)
    teacher.wait_for_function(f"() => ({ITER_JS})() === 1", timeout=120_000)
    teacher.screenshot(path=str(SHOTS / "teacher_question_revealed.png"))
    side.get_by_role("button", name="Reveal", exact=True).scroll_into_view_if_needed()
    teacher.screenshot(path=str(SHOTS / "teacher_question_panel.png"))
    assert teacher.evaluate(CUT_LABELS_JS) == []
    for p in pages:
        question_shown(p, qid, "revealed")
        assert p.evaluate("() => __nblab.question.right") == right
        assert p.evaluate("() => __nblab.question.n") == 3
        rows = p.evaluate("() => [...document.querySelectorAll('.lab-q-tally li')].map(li => [li.dataset.option,"
                          " li.dataset.right, li.textContent])")
        assert [(r[0], r[1]) for r in rows] == [("up", str(right == "up").lower()), ("down", str(right == "down").lower())]
        counts = {r[0]: int(re.search(r": (\d+)", r[2]).group(1)) for r in rows}
        assert counts == {right: 2, wrong: 1}
        p.wait_for_function("() => __nblab.lab.t === 1", timeout=60_000)
        np.testing.assert_allclose(p.evaluate("() => Array.from(__nblab.lab.run.history[1].alpha)"), orc.alpha(1),
                                   rtol=1e-9)
    pages[2].screenshot(path=str(SHOTS / "student_phone_revealed.png"))

    # ---- Pause and Resume --------------------------------------------------------------------------------------
    side.get_by_role("button", name="Pause the class").click()
    for p in pages:
        p.wait_for_function("() => __nblab.question.paused === true", timeout=60_000)
        assert p.locator('button[data-act="step"]').first.is_disabled()
        assert p.locator(".lab-paused-note").is_visible()
    # a student reads in a language of their own, paused or not: the page drawn again in German keeps the
    # question (revealed, under the bar) and keeps every control of the lab waiting for the teacher
    phone = pages[2]
    assert phone.locator("#lab-lang").is_enabled()
    phone.select_option("#lab-lang", "de")
    phone.wait_for_function("() => document.querySelector('.lab-q-title')?.textContent === 'Die Frage der Lehrkraft'",
                            timeout=60_000)
    box = phone.evaluate("""() => { const q = document.querySelector('.lab-question');
      return { visible: !!q && !q.hidden && q.isConnected, afterBar: q.previousElementSibling === document.querySelector('.lab-follow'),
               right: !!document.querySelector('.lab-q-right'), step: document.querySelector('button[data-act="step"]').disabled }; }""")
    assert box == {"visible": True, "afterBar": True, "right": True, "step": True}, box
    # the teacher steps while the class is paused: every page follows, and its controls still wait
    teacher.locator(".st-key-step button:visible").first.click(timeout=60_000)
    teacher.wait_for_function(f"() => ({ITER_JS})() === 2", timeout=120_000)
    for p in pages:
        p.wait_for_function("() => __nblab.lab.t === 2", timeout=60_000)
        assert p.locator('button[data-act="step"]').first.is_disabled()
        assert p.locator('button[data-act="converge"]').first.is_disabled()
    side.get_by_role("button", name="Resume the class").click()
    for p in pages:
        p.wait_for_function("() => __nblab.question.paused === false", timeout=60_000)
        assert p.locator('button[data-act="step"]').first.is_enabled()
    for _, errors in students:
        assert errors == []
