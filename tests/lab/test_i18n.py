"""The lesson's catalogue (nblab.i18n): the template is what the code marks, every language has every msgid
translated with the English placeholders, the compiled files (.mo, JSON, nblab/js/catalogue.js) are what the
.po files give, a missing string reads in English, plurals follow each language's rule, and numbers are Babel's
spelling for the locale over the page's rounding."""
from __future__ import annotations

import gettext
import shutil
from decimal import Decimal

import pytest
from babel.messages.plurals import get_plural
from babel.numbers import format_decimal, format_percent

from nblab import i18n, vocabulary
from nblab.defaults import SPEEDS

OTHERS = [lang for lang in i18n.LANGS if lang != i18n.DEFAULT]


def test_the_committed_catalogues_are_complete_and_compiled():
    assert i18n.problems() == []
    assert i18n.main(["check"]) == 0


@pytest.fixture
def copy(tmp_path, monkeypatch):
    """The catalogues in a copy: nblab.i18n reads and writes there."""
    shutil.copytree(i18n.LOCALES, tmp_path / "locales")
    js = tmp_path / "catalogue.js"
    shutil.copy(i18n.JS_PATH, js)
    monkeypatch.setattr(i18n, "LOCALES", tmp_path / "locales")
    monkeypatch.setattr(i18n, "POT", tmp_path / "locales" / "nblab.pot")
    monkeypatch.setattr(i18n, "JS_PATH", js)
    i18n.translations.cache_clear()
    yield tmp_path
    i18n.translations.cache_clear()


def _drop(lang: str, msgid: str):
    cat = i18n.read(i18n.po_path(lang), lang)
    cat.delete(msgid)
    i18n.po_path(lang).write_bytes(i18n._po_text(cat))


def test_a_catalogue_missing_a_msgid_of_the_template_fails_the_check(copy, capsys):
    _drop("de", "Supervised only")
    found = i18n.problems()
    assert "de: 'Supervised only' is not in the catalogue: run python -m nblab.i18n update" in found
    assert not any(p.startswith(("es:", "fr:")) for p in found)
    assert i18n.main(["check"]) == 1
    assert "'Supervised only' is not in the catalogue" in capsys.readouterr().err


def test_an_untranslated_or_fuzzy_string_fails_the_check_and_reads_in_english(copy):
    cat = i18n.read(i18n.po_path("fr"), "fr")
    cat["Settings"].string = ""
    cat["Accuracy"].flags.add("fuzzy")
    i18n.po_path("fr").write_bytes(i18n._po_text(cat))
    found = i18n.problems()
    assert "fr: 'Settings' is not translated" in found and "fr: 'Accuracy' is not translated" in found
    i18n.main(["compile"])
    assert i18n.gettext("fr", "Settings") == "Settings" and i18n.gettext("fr", "Accuracy") == "Accuracy"
    assert i18n.gettext("fr", "Iteration") == "Itération"
    messages = i18n.compiled("fr")[1]
    assert "Settings" not in messages and "Accuracy" not in messages and messages["Iteration"] == "Itération"


def test_a_translation_with_other_placeholders_fails_the_check(copy):
    cat = i18n.read(i18n.po_path("es"), "es")
    cat["of {n}"].string = "de {total}"
    i18n.po_path("es").write_bytes(i18n._po_text(cat))
    assert "es: 'of {n}' has placeholders ['total'], the English ['n']" in i18n.problems()


def test_stale_compiled_files_fail_the_check(copy):
    cat = i18n.read(i18n.po_path("de"), "de")
    cat["Settings"].string = "Optionen"
    i18n.po_path("de").write_bytes(i18n._po_text(cat))
    found = i18n.problems()
    assert any("de/LC_MESSAGES/nblab.mo is stale" in p for p in found)
    assert any("de/nblab.json is stale" in p for p in found)
    assert any("catalogue.js is stale" in p for p in found)
    i18n.main(["compile"])
    assert i18n.problems() == []
    assert i18n.gettext("de", "Settings") == "Optionen"
    assert '"Settings": "Optionen"' in i18n.JS_PATH.read_text(encoding="utf-8")


def test_a_template_that_is_not_what_the_code_marks_fails_the_check(copy):
    cat = i18n.read(i18n.POT)
    cat.delete("Settings")
    i18n.POT.write_bytes(i18n._po_text(cat))
    assert any("nblab.pot is not what the code marks: run python -m nblab.i18n extract" in p for p in i18n.problems())


def test_update_brings_a_new_msgid_to_every_catalogue_untranslated(copy):
    cat = i18n.read(i18n.POT)
    cat.add("A new text", locations=[("nblab/x.py", 1)])
    i18n.POT.write_bytes(i18n._po_text(cat))
    assert i18n.main(["update"]) == 0
    for lang in OTHERS:
        got = i18n.read(i18n.po_path(lang), lang)
        assert got["A new text"].string == "" and got["Settings"].string   # the others kept
    assert i18n.main(["nonsense"]) == 2


def test_the_template_holds_the_first_slice():
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in i18n.read(i18n.POT) if m.id}
    assert set(vocabulary.WORDS.values()) <= ids
    assert set(vocabulary.SPEED_NAMES.values()) <= ids
    assert {"Accuracy", "Supervised only", "Best supervised", "Log-likelihood", "MAP objective", "Play speed",
            "Status: {status}", "max {n} iteration"} <= ids
    assert len(ids) >= 40


def test_the_catalogues_say_the_languages_own_plural_rule():
    for lang in OTHERS:
        assert i18n.read(i18n.po_path(lang), lang).plural_forms == get_plural(lang).plural_forms


@pytest.mark.parametrize("lang", OTHERS)
def test_a_missing_string_reads_in_english_never_as_a_key(lang):
    assert i18n.gettext(lang, "No such text {x}", x=3) == "No such text 3"
    assert i18n.ngettext(lang, "{n} new thing", "{n} new things", 1) == "1 new thing"
    assert i18n.ngettext(lang, "{n} new thing", "{n} new things", 2) == "2 new things"
    assert i18n.gettext("xx", "Settings") == "Settings" and i18n.pick("xx-YY") == "en"


def test_every_language_translates_the_slice():
    for lang in OTHERS:
        words = vocabulary.words(lang)
        assert all(words[k] != v for k, v in vocabulary.WORDS.items()), lang
    assert vocabulary.words() == vocabulary.WORDS
    assert vocabulary.words("de")["no_visible"] == "kein sichtbares Label"
    assert i18n.gettext("es", "Accuracy (t={t})", t=12) == "Exactitud (t=12)"


def test_plurals_take_the_language_s_form():
    # French: 0 and 1 are singular; Spanish: 0 is plural; German: only 1 is singular
    one, many = "max {n} iteration", "max {n} iterations"
    assert i18n.ngettext("fr", one, many, 0) == "max. 0 itération"
    assert i18n.ngettext("fr", one, many, 2) == "max. 2 itérations"
    assert i18n.ngettext("es", one, many, 0) == "máx. 0 iteraciones"
    assert i18n.ngettext("es", one, many, 1) == "máx. 1 iteración"
    assert i18n.ngettext("de", one, many, 0) == "max. 0 Iterationen"
    assert i18n.ngettext("de", one, many, 1) == "max. 1 Iteration"
    assert i18n.ngettext("en", one, many, 1) == "max 1 iteration"
    # the .mo's rule is the one Babel gives (gettext's own reading of the Plural-Forms)
    for lang in OTHERS:
        rule = gettext.c2py(get_plural(lang).plural_expr)
        for n in (0, 1, 2, 5, 21, 100, 1000, 10**6, 2 * 10**6):
            forms = i18n.read(i18n.po_path(lang), lang)[one].string
            assert i18n.ngettext(lang, one, many, n) == forms[rule(n)].replace("{n}", str(n))


def test_the_speed_help_keeps_english_and_speaks_the_others():
    assert vocabulary.speed_help() == ("Iterations shown per second while playing: slow 0.5, normal 1, fast 5, "
                                       "faster 20, fastest 40.")
    assert vocabulary.speed_help("de") == ("Angezeigte Iterationen pro Sekunde beim Abspielen: langsam 0,5, normal 1, "
                                           "schnell 5, schneller 20, am schnellsten 40.")
    assert "lente 0,5" in vocabulary.speed_help("fr") and "máxima 40" in vocabulary.speed_help("es")
    assert set(vocabulary.SPEED_NAMES) == set(SPEEDS)


def test_named_placeholders_fill_once_and_leave_unknown_ones():
    assert i18n.fill("{a} and {b}", {"a": "{b}", "b": "x"}) == "{b} and x"   # a value is never read again
    assert i18n.fill("{a} {missing}", {"a": 1}) == "1 {missing}"


# numbers: Babel's spelling (its own format_decimal / format_percent over the locale's pattern) of the value
# rounded as the page rounds it
VALUES = [0.0, 0.5, 1.0, 12.34, 999.95, 1234.25, -1234.05, 12345.678, -98765.4321, 1234567.891, -0.04, 2.675]


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_numbers_are_babel_s_for_the_locale(lang):
    for v in VALUES:
        for d in (0, 1, 2):
            q = Decimal(repr(abs(v))).quantize(Decimal(1).scaleb(-d), rounding="ROUND_HALF_UP")
            want = format_decimal(q, format="#,##0" + ("." + "0" * d if d else ""), locale=lang)
            assert i18n.number(lang, v, d) == ("-" if v < 0 else "") + want


def test_numbers_in_each_locale_s_spelling():
    assert [i18n.number(lang, -1234567.891, 1) for lang in i18n.LANGS] == [
        "-1,234,567.9", "-1.234.567,9", "-1.234.567,9", "-1\u202f234\u202f567,9"]
    assert [i18n.percent(lang, 0.853) for lang in i18n.LANGS] == ["85.3%", "85,3\u00a0%", "85,3\u00a0%", "85,3\u00a0%"]
    assert i18n.percent("de", 0.5, 0) == format_percent(0.5, locale="de") == "50\u00a0%"
    assert i18n.number_g("fr", 0.5) == "0,5" and i18n.number_g("en", 40.0) == "40"


def test_english_percent_is_the_page_s_own():
    from nblab import numbers
    for acc in (0.0, 0.853, 0.97049, 0.9995, 1.0, 1 / 3, 2 / 3):
        assert i18n.percent("en", acc) == numbers.percent(acc)


def test_an_unknown_command_says_the_commands(capsys):
    assert i18n.main(["nonsense"]) == 2
    assert "python -m nblab.i18n extract | update | compile | check" in capsys.readouterr().err


def test_a_plural_rule_that_is_not_a_plain_expression_of_n_is_never_written_into_the_page(monkeypatch):
    class Rule:
        plural_expr = "n != 1); fetch('//x'); (0"
        plural_forms = "nplurals=2; plural=(n != 1);"
    monkeypatch.setattr(i18n, "get_plural", lambda lang: Rule())
    with pytest.raises(ValueError, match="is not a plain expression of n"):
        i18n.js_source()
