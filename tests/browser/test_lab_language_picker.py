"""Choosing the lab page's language (nblab/js/page_lang.js), in Chromium: the picker in the header (a labelled
select, each language named in itself, in its own ``lang``), the page drawn again in place in the chosen
language with the run kept (its iterations, the one on screen, Play), ``<html lang>`` set, the choice kept for the
tab's session (a reload, the page opened again without a link's language) and not beyond it (a new session
starts in the browser's language); a text no catalogue has reads in English. On the class page each student reads
in their own language while following the teacher: the teacher's state never sets it, and choosing another
language does not leave the teacher. The texts expected are nblab.i18n's (the Python catalogue: the oracle),
the numbers nbcore's. Screenshots go to LAB_SHOTS (lab_pick_*.png)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from kit.browser import require_chromium
from kit.class_server import DATA, SETTINGS, ClassServer, write_class
from kit.lab import settled
from kit.lab_page import READY, Oracle
from nblab import i18n

pytestmark = pytest.mark.browser
sync_api = require_chromium()

LAB_SHOTS = Path(os.environ.get("LAB_SHOTS", "/tmp/lab_shots"))
LABELS = ["Iteration", "Accuracy", "Supervised only", "Best supervised", "Log-likelihood", "MAP objective"]
SESSION_LANG = "() => sessionStorage.getItem('nblab-lang')"


@pytest.fixture(scope="module")
def lab_file(tmp_path_factory):
    from nblab.page import write_lab
    return write_lab(tmp_path_factory.mktemp("lab") / "sms_spam.html", "sms_spam")


def watch(page):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def open_page(browser, path, fragment="", locale="en-US"):
    page = browser.new_page(locale=locale, viewport={"width": 1280, "height": 720})
    errors = watch(page)
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    goto(page, path, fragment)
    return page, errors


def goto(page, path, fragment=""):
    page.goto(path.as_uri() + ("#" + fragment if fragment else ""))
    page.wait_for_function(READY, timeout=60_000)
    settled(page)


def labels(page):
    return page.locator(".lab-metric-label").all_inner_texts()


def expect_labels(page, lang):
    want = [i18n.gettext(lang, s) for s in LABELS]
    want[1] = i18n.gettext(lang, "Accuracy (t={t})", t=page.evaluate("() => __nblab.lab.t"))
    assert labels(page) == want


def choose(page, lang):
    """The reader picks `lang` (the label's select, as a person does); waits for the page in it."""
    page.get_by_label(i18n.gettext(page.evaluate("() => document.documentElement.lang"), "Language"),
                      exact=True).select_option(lang)
    page.wait_for_function("l => document.documentElement.lang === l && __nblab.settings.lang === l", arg=lang,
                           timeout=30_000)
    settled(page)


def run_state(page):
    return page.evaluate("() => { const G = __nblab; return { t: G.lab.t, latest: G.lab.latest, serial: G.lab.serial,"
                         " half: G.lab.half, lam: G.lab.run.history.map(s => s.lam), sliderMax: G.controls.iter.max,"
                         " slider: G.controls.iter.value, status: G.statusLine.textContent, hash: location.hash }; }")


def test_the_picker_lists_each_language_in_itself(browser, lab_file):
    page, errors = open_page(browser, lab_file)
    select = page.get_by_label("Language", exact=True)
    assert select.evaluate("e => e.tagName") == "SELECT"
    opts = select.locator("option").evaluate_all("os => os.map(o => [o.value, o.textContent, o.lang])")
    assert opts == [[k, i18n.NAMES[k], k] for k in i18n.LANGS]
    assert select.input_value() == "en"
    assert errors == []
    page.close()


def test_german_and_back_with_a_run_in_progress(browser, lab_file):
    page, errors = open_page(browser, lab_file)
    for _ in range(3):
        page.locator('button[data-act="step"]').click()
        settled(page)
    page.locator('button[data-act="e"]').click()
    settled(page)
    before = run_state(page)
    assert before["t"] == 3 and before["half"] == "e"
    acc = page.evaluate("() => __nblab.lab.accuracy(3)")

    choose(page, "de")
    now = run_state(page)
    # the same run, at the same iteration, with its pending E-step: only the texts changed
    for k in ("t", "latest", "serial", "half", "lam", "sliderMax", "slider"):
        assert now[k] == before[k], k
    expect_labels(page, "de")
    assert page.locator(".lab-metric-value").nth(1).inner_text() == i18n.percent("de", acc)
    assert now["status"] == i18n.gettext("de", "Status: {status}", status=i18n.gettext("de", "Paused at t = {t}", t=3))
    assert page.evaluate("() => document.querySelector('.lab-side h2').textContent") == i18n.gettext("de", "Settings")
    assert page.evaluate("() => document.getElementById('nblab').getAttribute('lang')") == "de"
    # the picker, drawn again, keeps the reader's focus and says the language in its own words
    assert page.evaluate("() => document.activeElement && document.activeElement.id") == "lab-lang"
    assert page.get_by_label("Sprache", exact=True).input_value() == "de"
    assert now["hash"].endswith("&lang=de") and page.evaluate(SESSION_LANG) == "de"
    # a text no catalogue has reads in English, filled, never as a key
    assert page.evaluate("() => NBLab.require('i18n.js').t('A text no catalogue has, t = {t}', { t: 3 })") \
        == "A text no catalogue has, t = 3"
    LAB_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(LAB_SHOTS / "lab_pick_de_1280.png"))

    # the run goes on in German: the M-step of the pending half, then Play keeps playing through a change
    page.locator('button[data-act="m"]').click()
    settled(page)
    assert run_state(page)["t"] == 4
    playing = page.evaluate("""() => { const G = __nblab; G.act('play'); const on = G.playing;
      const picker = document.getElementById('lab-lang'); picker.value = 'fr'; picker.dispatchEvent(new Event('change'));
      const still = G.playing; G.act('play'); return [on, still, document.documentElement.lang]; }""")
    assert playing == [True, True, "fr"]
    settled(page)
    expect_labels(page, "fr")

    choose(page, "en")
    back = run_state(page)
    assert back["serial"] == before["serial"] and back["t"] >= 4
    expect_labels(page, "en")
    assert page.evaluate("() => document.documentElement.lang") == "en"
    # English is the reader's default (the browser's): the link says no language again
    assert "lang=" not in back["hash"] and page.evaluate(SESSION_LANG) == "en"
    assert errors == []
    page.close()


def test_a_reload_and_the_session_keep_the_language_a_new_session_does_not(browser, lab_file):
    page, errors = open_page(browser, lab_file)
    page.locator('button[data-act="step"]').click()
    settled(page)
    choose(page, "de")
    page.reload()
    page.wait_for_function(READY, timeout=60_000)
    settled(page)
    assert page.evaluate("() => document.documentElement.lang") == "de"
    expect_labels(page, "de")
    assert page.evaluate("() => __nblab.lab.t") == 1           # the link's iteration, as before the reload
    # the page opened again in this tab without a language in its link: the session's choice, not the browser's
    goto(page, lab_file)
    assert page.evaluate("() => document.documentElement.lang") == "de"
    expect_labels(page, "de")
    assert "lang=" not in page.evaluate("() => location.hash")
    # a link's unknown language is refused; the default used is the session's
    goto(page, lab_file, "lang=klingon")
    assert page.evaluate("() => document.documentElement.lang") == "de"
    assert "lang=klingon is not a language of this page (en, es, de, fr); used de" in \
        page.locator(".lab-link-notice").inner_text()
    assert errors == []
    page.close()
    # another session (a new browser context): the browser's language
    page, errors = open_page(browser, lab_file)
    assert page.evaluate("() => document.documentElement.lang") == "en"
    assert page.evaluate(SESSION_LANG) is None
    expect_labels(page, "en")
    page.close()


def test_a_language_in_the_link_draws_the_page_again_in_place(browser, lab_file):
    page, errors = open_page(browser, lab_file, fragment="lang=fr")
    page.locator('button[data-act="step"]').click()
    settled(page)
    page.evaluate("() => { __nblab.lab.__same = true; }")
    page.evaluate("() => { location.hash = location.hash.replace('lang=fr', 'lang=es'); }")
    page.wait_for_function("() => document.documentElement.lang === 'es'", timeout=30_000)
    settled(page)
    expect_labels(page, "es")
    # no reload: the same page and run
    assert page.evaluate("() => [__nblab.lab.__same, __nblab.lab.t]") == [True, 1]
    assert page.get_by_label("Idioma", exact=True).input_value() == "es"
    assert page.evaluate(SESSION_LANG) == "es"
    assert errors == []
    page.close()


# ---- the class page ------------------------------------------------------------------------------------------

CID = "langsAAAAAAAAAAA"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from nblab.data import lab_data
    folder = tmp_path_factory.mktemp("class")
    write_class(folder, CID, lab_data(DATA))
    s = ClassServer(folder)
    yield s
    s.stop()


def bar(page):
    return page.locator(".lab-follow-text").inner_text()


def following(lang, t):
    return i18n.gettext(lang, "Following the teacher — {at}", at=i18n.gettext(lang, "iteration {t}", t=t))


def wait_applied(page, v):
    page.wait_for_function("v => window.__nblab.follow && window.__nblab.follow.applied >= v", arg=v, timeout=30_000)
    settled(page)


def test_each_student_follows_the_teacher_in_their_own_language(browser, server):
    server.publish(CID, 2)
    page = browser.new_page(locale="de-DE", viewport={"width": 390, "height": 844})
    errors = watch(page)
    page.goto(f"{server.url}class/{CID}")
    page.wait_for_function(READY, timeout=60_000)
    wait_applied(page, 1)
    orc = Oracle(DATA, model=SETTINGS["model"], hidden=SETTINGS["hidden"], lam=SETTINGS["lam"])
    assert page.evaluate("() => [document.documentElement.lang, __nblab.lab.t]") == ["de", 2]
    expect_labels(page, "de")
    assert page.locator(".lab-metric-value").nth(1).inner_text() == i18n.percent("de", orc.to(2).acc(2))
    assert bar(page) == following("de", 2) == "Sie folgen der Lehrkraft – Iteration 2"

    # the teacher's state saying another language (a teacher reading French) never changes the student's
    wait_applied(page, server.publish(CID, 3, dict(SETTINGS, lang="fr")))
    assert page.evaluate("() => [document.documentElement.lang, __nblab.settings.lang, __nblab.lab.t]") == ["de", "de", 3]
    expect_labels(page, "de")

    # the student chooses Spanish: still following, the bar on top, the teacher's next step shown in Spanish
    choose(page, "es")
    assert bar(page) == following("es", 3)
    assert page.evaluate("() => [__nblab.follow.following, !!document.querySelector('#nblab > .lab-follow')]") == [True, True]
    wait_applied(page, server.publish(CID, 5))
    assert page.evaluate("() => [document.documentElement.lang, __nblab.lab.t]") == ["es", 5]
    expect_labels(page, "es")
    assert page.locator(".lab-metric-value").nth(1).inner_text() == i18n.percent("es", orc.to(5).acc(5))
    assert bar(page) == following("es", 5)
    assert page.evaluate("() => [document.querySelector('.lab-follow-back').textContent,"
                         " document.querySelector('.lab-follow').getAttribute('aria-label')]") == \
        [i18n.gettext("es", "Back to the teacher"), i18n.gettext("es", "The teacher's lesson")]
    LAB_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(LAB_SHOTS / "lab_pick_class_es_phone.png"))
    # the student's reload: still in Spanish, still following
    page.reload()
    page.wait_for_function(READY, timeout=60_000)
    wait_applied(page, 1)
    assert page.evaluate("() => [document.documentElement.lang, __nblab.follow.following]") == ["es", True]
    page.wait_for_function("() => __nblab.lab.t === 5", timeout=30_000)
    assert errors == []
    page.close()
