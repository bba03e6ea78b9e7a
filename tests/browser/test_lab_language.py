"""The lab page in the class's language (nblab/js/i18n.js over the catalogue of nblab.i18n), in Chromium from
file://: the browser's language when it is one of ours, else English; ``#lang=`` in the link over it (an
unknown one refused with a notice); ``<html lang>`` set; the metric labels, the speeds' names and the caption
in that language with the locale's numbers (written by nblab.i18n, Babel's spelling: the oracle here), while
the speeds' values stay the URL's. Screenshots go to LAB_SHOTS (lab_lang_*.png)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from kit.browser import require_chromium
from kit.lab import settled
from kit.lab_page import READY
from nblab import i18n, vocabulary
from nblab.defaults import DEFAULTS, SPEEDS

pytestmark = pytest.mark.browser
sync_api = require_chromium()

LAB_SHOTS = Path(os.environ.get("LAB_SHOTS", "/tmp/lab_shots"))
LABELS = ["Iteration", "Accuracy", "Supervised only", "Best supervised", "Log-likelihood", "MAP objective"]


@pytest.fixture(scope="module")
def lab_file(tmp_path_factory):
    from nblab.page import write_lab
    return write_lab(tmp_path_factory.mktemp("lab") / "sms_spam.html", "sms_spam")


def open_page(browser, path, fragment="", locale="en-US", viewport=None):
    page = browser.new_page(locale=locale, viewport=viewport or {"width": 1280, "height": 720})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.goto(path.as_uri() + ("#" + fragment if fragment else ""))
    page.wait_for_function(READY, timeout=60_000)
    settled(page)
    return page, errors


def labels(page):
    return page.locator(".lab-metric-label").all_inner_texts()


def speeds(page):
    return page.locator("select[id^='lab-speed-'] option").evaluate_all("os => os.map(o => [o.value, o.textContent])")


def shown_numbers(page):
    return page.evaluate("() => { const G = __nblab, t = G.lab.t; return { t, acc: G.lab.accuracy(t),"
                         " ll: G.lab.run.history[t].logLikelihood, values: Array.from(document.querySelectorAll("
                         "'.lab-metric-value'), e => e.textContent), caption: G.caption.textContent,"
                         " hash: location.hash }; }")


def expect_language(page, lang):
    assert page.evaluate("() => document.documentElement.lang") == lang
    want = [i18n.gettext(lang, s) for s in LABELS]
    want[1] = i18n.gettext(lang, "Accuracy (t={t})", t=page.evaluate("() => __nblab.lab.t"))
    assert labels(page) == want
    assert speeds(page) == [[k, i18n.gettext(lang, "{name} ({rate} per second)",
                                             name=i18n.gettext(lang, vocabulary.SPEED_NAMES[k]),
                                             rate=i18n.number_g(lang, v))] for k, v in SPEEDS.items()]
    page.locator('button[data-act="step"]').click()
    settled(page)
    n = shown_numbers(page)
    assert n["values"][1] == i18n.percent(lang, n["acc"])
    assert n["values"][4] == i18n.number(lang, n["ll"], 1).replace("-", "\u2212")
    hidden = i18n.gettext(lang, "{hidden} labels hidden", hidden=i18n.percent(lang, DEFAULTS["hidden"] / 100, 0))
    assert hidden in n["caption"] and f"λ = {i18n.number_g(lang, DEFAULTS['lam'])}" in n["caption"]
    assert i18n.ngettext(lang, "max {n} iteration", "max {n} iterations", DEFAULTS["max_iter"]) in n["caption"]
    # the status and the sentence of the state (lab.js), after one Step
    assert page.locator(".lab-status").inner_text() == i18n.gettext(
        lang, "Status: {status}", status=i18n.gettext(lang, "Paused at t = {t}", t=n["t"]))
    sentence = page.locator(".lab-sentence").inner_text()
    head = i18n.gettext(lang, "Iteration {t} of {latest}: {words}", t=n["t"], latest=n["t"], words="α ")
    assert sentence.startswith(head), sentence
    assert "; " + i18n.gettext(lang, "accuracy {acc}", acc=i18n.percent(lang, n["acc"])) + ", " in sentence
    return n


def test_english_by_default_as_before(browser, lab_file):
    page, errors = open_page(browser, lab_file, locale="en-US")
    n = expect_language(page, "en")
    assert labels(page)[0] == "Iteration" and speeds(page)[0] == ["slow", "slow (0.5 per second)"]
    assert n["values"][1].endswith("%") and " " not in n["values"][1]
    assert "99% labels hidden · λ = 0.01" in n["caption"] and "lang=" not in n["hash"]
    assert errors == []
    page.close()


@pytest.mark.parametrize("locale,lang", [("de-DE", "de"), ("fr-FR", "fr"), ("es-ES", "es")])
def test_the_browser_s_language_when_it_is_ours(browser, lab_file, locale, lang):
    page, errors = open_page(browser, lab_file, locale=locale)
    n = expect_language(page, lang)
    assert i18n.percent(lang, 0.5) == "50,0\u00a0%"                   # the oracle's own spelling, checked
    assert "lang=" not in n["hash"]               # the reader's default is not written into a shared link
    assert page.evaluate("() => document.querySelector('.lab-side h2').textContent") == i18n.gettext(lang, "Settings")
    LAB_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(LAB_SHOTS / f"lab_lang_{lang}_1280.png"), full_page=False)
    page.set_viewport_size({"width": 390, "height": 844})
    settled(page)
    page.screenshot(path=str(LAB_SHOTS / f"lab_lang_{lang}_phone.png"), full_page=False)
    assert errors == []
    page.close()


def test_the_link_s_language_over_the_browser_s_and_an_unknown_one_refused(browser, lab_file):
    page, errors = open_page(browser, lab_file, fragment="lang=fr", locale="en-US")
    n = expect_language(page, "fr")
    assert n["hash"].endswith("&lang=fr")          # chosen in the link, not the browser's: kept in it
    page.close()
    page, errors = open_page(browser, lab_file, fragment="lang=klingon", locale="de-DE")
    expect_language(page, "de")
    notice = page.locator(".lab-link-notice").inner_text()
    assert "lang=klingon is not a language of this page (en, es, de, fr); used de" in notice
    assert errors == []
    page.close()


def test_a_new_language_in_the_link_draws_the_page_again_in_it(browser, lab_file):
    page, errors = open_page(browser, lab_file, fragment="lang=fr", locale="en-US")
    assert labels(page)[2] == "Supervisé seul"
    page.evaluate("() => { location.hash = 'lang=es'; }")
    page.wait_for_function("() => document.documentElement.lang === 'es'", timeout=60_000)
    settled(page)
    expect_language(page, "es")
    assert errors == []
    page.close()


def test_a_hosted_lab_keeps_its_host_s_language_not_the_browser_s(browser, lab_file):
    # the app's lesson and the notebook widget start the lab in their own element (hash: false): English until
    # the host says otherwise (opts.lang), whatever the browser's language; the document's lang is the host's
    page, errors = open_page(browser, lab_file, locale="de-DE")
    got = page.evaluate("""async () => {
      const read = (id) => JSON.parse(document.getElementById(id).textContent);
      const out = {};
      for (const [name, lang] of [["plain", undefined], ["fr", "fr"]]) {
        const root = document.createElement("div");
        document.body.append(root);
        const views = [];
        const G = NBLab.require("boot.js").start(root, { data: read("nblab-data"), cfg: read("nblab-config"),
          hash: false, host: { onView: (v) => views.push(v) }, lang });
        await new Promise((r) => { const w = () => (G.ready && views.length ? r() : setTimeout(w, 20)); w(); });
        out[name] = { lang: root.getAttribute("lang"), setting: G.settings.lang,
          // the host hears the lesson's settings, never the reader's language (nblab.page would refuse it)
          told: views.some((v) => "lang" in v.settings),
          label: root.querySelector(".lab-metric-label:nth-child(1)") ? root.querySelectorAll(".lab-metric-label")[2].textContent : null };
      }
      out.html = document.documentElement.lang;
      return out;
    }""")
    assert got["plain"] == {"lang": "en", "setting": "en", "told": False, "label": "Supervised only"}
    assert got["fr"] == {"lang": "fr", "setting": "fr", "told": False, "label": "Supervisé seul"}
    assert got["html"] == "de"
    page.close()
