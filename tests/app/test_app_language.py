"""The app's language (dashboard/ui/controls.py's language_picker, the ``lang`` row of dashboard/ui/url_table.py):
``?lang=de`` draws the sidebar's setting labels and the lesson's title in German (nblab.i18n's catalogue: the
texts expected are its own), a ``lang`` that is not one of ours is refused with the URL guard's notice and the
page stays English, the default is English (a request without Accept-Language, as every other test of the app
makes), the picker changes the language and the session keeps it from page to page, the browser's
Accept-Language is the default (nblab.i18n.accept_language), and the lesson program is told the language."""
from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from kit.apptest import APP, page_text
from nblab import i18n

#: the lesson's sidebar labels routed through the catalogue (classroom mode off: the Advanced ones drawn too)
LABELS = ["Data set", "Labels hidden", "Smoothing λ", "Play speed", "Classroom mode", "Language"]


def open_lesson(query=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sidebar_labels(at) -> set[str]:
    out = set()
    for kind in ("selectbox", "slider", "select_slider", "toggle", "radio", "number_input"):
        out |= {w.label for w in at.sidebar.get(kind)}
    return out


def picker(at):
    return next(w for w in at.sidebar.selectbox if w.key == "lang_pick")


def title(at) -> str:
    return at.title[0].value


def notice(at) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join(w.value for w in at.warning if "link had" in w.value))


def test_the_default_is_english_as_every_test_assumes():
    at = open_lesson()
    assert set(LABELS) <= sidebar_labels(at)
    assert title(at) == "Naive Bayes + EM: watch EM learn"
    p = picker(at)
    assert p.value == "en" and p.label == "Language" and p.options == [i18n.NAMES[k] for k in i18n.LANGS]
    assert "lang" not in at.query_params
    assert not notice(at)


@pytest.mark.parametrize("lang", ["de", "es", "fr"])
def test_lang_in_the_url_draws_the_sidebar_and_the_title_in_it(lang):
    at = open_lesson({"lang": lang})
    want = {i18n.gettext(lang, s) for s in LABELS}
    assert want <= sidebar_labels(at), want - sidebar_labels(at)
    assert not {"Labels hidden", "Play speed", "Data set"} & sidebar_labels(at)
    assert title(at) == i18n.gettext(lang, "Naive Bayes + EM: watch EM learn") != "Naive Bayes + EM: watch EM learn"
    assert picker(at).value == lang
    # the URL keeps the lab page's value (lang=de), not the picker's shown name
    assert at.query_params["lang"] == lang
    assert not notice(at)


def test_german_labels_by_name():
    at = open_lesson({"lang": "de"})
    labels = sidebar_labels(at)
    for de in ("Datensatz", "Verborgene Labels", "Glättung λ", "Abspielgeschwindigkeit", "Präsentationsmodus",
               "Sprache"):
        assert de in labels, (de, sorted(labels))
    assert title(at) == "Naive Bayes + EM: EM beim Lernen zusehen"


@pytest.mark.parametrize("bad", ["klingon", "<script>alert(1)</script>", "", "9" * 500, "DE-at"])
def test_a_bad_lang_falls_back_to_english_with_a_notice_and_no_traceback(bad):
    at = open_lesson({"lang": bad})
    assert set(LABELS) <= sidebar_labels(at)
    assert title(at) == "Naive Bayes + EM: watch EM learn"
    assert picker(at).value == "en"
    assert "lang" in notice(at), notice(at)
    assert "<script>" not in page_text(at).replace("&lt;script&gt;", "") or \
        all("<script>" not in m.value for m in at.markdown if getattr(m.proto, "allow_html", False))
    # the refused value leaves the URL
    assert "lang" not in at.query_params


def test_two_langs_the_last_one_counts():
    at = open_lesson({"lang": ["fr", "de"]})
    assert picker(at).value == "de"


def test_the_picker_changes_the_language_and_the_session_keeps_it():
    at = open_lesson()
    picker(at).set_value("fr").run()
    assert not at.exception
    assert i18n.gettext("fr", "Labels hidden") in sidebar_labels(at)
    assert title(at) == i18n.gettext("fr", "Naive Bayes + EM: watch EM learn")
    assert at.query_params["lang"] == "fr"
    # another page of the app, reached without lang= in its URL: still French
    at.query_params.clear()
    at.switch_page("views/smoothing.py").run()
    assert not at.exception
    assert picker(at).value == "fr" and picker(at).label == "Langue"
    assert i18n.gettext("fr", "Classroom mode") in sidebar_labels(at)
    # and back to English: the URL says no language again
    picker(at).set_value("en").run()
    assert picker(at).value == "en" and "lang" not in at.query_params


def test_the_browser_s_accept_language():
    assert i18n.accept_language("de-AT,de;q=0.9,en;q=0.5") == ["de-AT", "de", "en"]
    assert i18n.accept_language("en;q=0.1, fr") == ["fr", "en"]
    assert i18n.accept_language("*, es;q=0, xx;q=abc, de") == ["de"]
    assert i18n.accept_language(None) == [] and i18n.accept_language("") == []
    assert i18n.accept_language("a" * 5000) == []
    assert i18n.pick(i18n.accept_language("pt-BR,fr-CA;q=0.8")) == "fr"
    assert i18n.pick(i18n.accept_language("pt-BR,zh;q=0.8")) == "en"


def test_the_browser_s_language_is_the_default(monkeypatch):
    from dashboard.ui import controls

    # the request's Accept-Language, as Streamlit gives it (st.context.headers): AppTest sends none
    monkeypatch.setattr(controls, "browser_lang", lambda: "es")
    at = open_lesson()
    assert picker(at).value == "es"
    assert i18n.gettext("es", "Labels hidden") in sidebar_labels(at)
    assert "lang" not in at.query_params        # the browser's own language: the link does not say it
    at = open_lesson({"lang": "klingon"})
    assert picker(at).value == "es" and "lang" in notice(at)


def test_the_lesson_program_is_told_the_language(monkeypatch):
    from dashboard.lesson import program

    sent = []
    monkeypatch.setattr(program, "_COMPONENT", lambda **kw: sent.append(json.loads(kw["data"])))
    for lang in ("de", "en"):
        sent.clear()
        open_lesson({"lang": lang, "player": "program"})
        assert sent and {d["lang"] for d in sent} == {lang}, [d.get("lang") for d in sent]


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8


def test_the_sidebar_s_help_in_german():
    at = open_lesson({"lang": "de"})
    hidden = next(w for w in at.sidebar.slider if w.key == "hidden")
    assert hidden.help == i18n.gettext("de", "Share of the labelled documents whose label EM does not see. "
                                       "Accuracy is measured on exactly these documents. Steps of 1 %: click the "
                                       "slider, then ← / → for one step (or set `hidden=98` in the URL).")
    assert hidden.help.startswith("Anteil der gelabelten Dokumente")
    speed = next(w for w in at.sidebar.select_slider if w.key == "speed")
    from nblab import vocabulary
    assert speed.help == vocabulary.speed_help("de") != vocabulary.speed_help("en")
    up = at.sidebar.get("file_uploader")[0]
    assert up.proto.label.startswith("CSV mit einer Spalte `text`")


@pytest.mark.parametrize("lang", ["de", "es", "fr"])
def test_an_upload_error_in_the_page_s_language(lang):
    at = open_lesson({"lang": lang})
    at.file_uploader(key="uploader").upload("notes.bin", PNG, "application/octet-stream").run()
    assert not at.exception
    want = i18n.gettext(lang, "Could not use “{name}”: this is not a text file (it looks like an image, a "
                        "spreadsheet or another binary file). Save it as CSV (in a spreadsheet program: Save as → "
                        "CSV UTF-8).", name="notes.bin")
    assert want.startswith({"de": "„notes.bin“", "es": "No se pudo usar «notes.bin»",
                            "fr": "Impossible d’utiliser «\u00a0notes.bin\u00a0»"}[lang])
    errors = [e.value for e in at.error]
    assert want in errors, errors
    assert i18n.gettext(lang, "{message} — the previous data set and run are unchanged.", message=want) in errors
    assert at.session_state["lesson"].cfg.dataset == "sms_spam"


def test_an_upload_error_stays_english_by_default():
    at = open_lesson()
    at.file_uploader(key="uploader").upload("notes.bin", PNG, "application/octet-stream").run()
    errors = [e.value for e in at.error]
    assert any(e.startswith("Could not use “notes.bin”: this is not a text file") for e in errors), errors
    assert any(e.endswith(" — the previous data set and run are unchanged.") for e in errors), errors


# ---- no catalogued English in the lesson page's sidebar ----------------------------------------------------

def _sidebar_texts(at) -> list[str]:
    """Every text the sidebar shows a reader: labels, help, captions, notices, buttons, options."""
    out: list[str] = []
    for kind in ("selectbox", "slider", "select_slider", "toggle", "radio", "number_input", "text_input",
                 "button", "expander", "file_uploader", "checkbox"):
        for w in at.sidebar.get(kind):
            out += [str(getattr(w, a, None) or "") for a in ("label", "help")]
            out += [str(o) for o in (getattr(w, "options", None) or [])]
    for kind in ("caption", "markdown", "text", "info", "warning", "error", "success"):
        out += [str(e.value) for e in at.sidebar.get(kind)]
    return [t for t in out if t]


def _leaks(lang: str, texts: list[str]) -> list[str]:
    """The catalogue's English texts (those the language translates differently) shown in ``texts``: a short
    one (a label, "Show") as a whole text, a longer one inside any text, a msgid with placeholders by its
    fixed parts around anything."""
    from babel.messages.pofile import read_po
    with open(i18n.po_path(lang), "rb") as f:
        cat = read_po(f)
    found = []
    for m in cat:
        if not m.id or isinstance(m.id, tuple) or not m.string or m.string == m.id:
            continue
        parts = i18n.PLACEHOLDER.split(m.id)[::2]
        if len(parts) > 1:
            if sum(len(p.strip()) for p in parts) < 6:
                continue
            pat = re.compile(".+?".join(re.escape(p) for p in parts), re.S)
            hit = any(pat.search(t) for t in texts)
        elif len(m.id) >= 12:
            hit = any(m.id in t for t in texts)
        else:
            hit = len(m.id) >= 3 and any(t.strip() == m.id for t in texts)
        if hit:
            found.append(m.id)
    return found


@pytest.fixture
def class_store(tmp_path, monkeypatch):
    from kit import classroom
    yield from classroom.fresh_store(tmp_path, monkeypatch)


@pytest.mark.parametrize("lang", ["de", "es", "fr"])
def test_the_lesson_sidebar_shows_no_catalogued_english(lang, class_store):
    """The sidebar of the lesson page, on text data and on the toy table, with a class open and a question
    asked: no text the catalogue translates for ``lang`` is shown in English."""
    from kit import classroom
    texts: list[str] = []
    for query in ({"dataset": "sms_spam", "lang": lang}, {**classroom.QUERY, "lang": lang}):
        at = open_lesson(query)
        texts += _sidebar_texts(at)
        classroom.open_class(at)
        at.button(key="class_ask_btn").click()
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.session_state["class_question"] is not None
        texts += _sidebar_texts(at)
    assert _leaks(lang, texts) == []
