"""The lesson in the class's language: one gettext catalogue per language, for the Python side and, compiled
to JSON, for the lab page's JavaScript (nblab/js/i18n.js reads nblab/js/catalogue.js, generated from the
same catalogues).

The msgids are the English texts themselves, so a string a catalogue lacks (or leaves empty, or marks fuzzy)
reads in English, never as a key. Placeholders are named, ``{name}``, the same in every language; a plural
message is a gettext plural (``ngettext``) under the language's own plural rule (Babel's Plural-Forms).
Numbers take the locale's symbols from Babel's CLDR data (decimal comma, thousands separator, the percent
sign's spacing) over the rounding the page already uses, so English reads exactly as before.

The files (docs/translating.md is the translator's guide)::

    nblab/locales/nblab.pot                       the template: every msgid the code marks
    nblab/locales/<lang>/LC_MESSAGES/nblab.po     a language's translations (a translator edits this one)
    nblab/locales/<lang>/LC_MESSAGES/nblab.mo     compiled for Python (generated)
    nblab/locales/<lang>/nblab.json               compiled for JavaScript (generated)
    nblab/js/catalogue.js                         every language's JSON and number symbols for the lab page (generated)

``python -m nblab.i18n extract`` rewrites the template from the code, ``update`` merges it into every
catalogue, ``compile`` writes the .mo, the JSON and catalogue.js, and ``check`` exits 1 when a compiled
file is stale, a catalogue misses a msgid of the template, or a translation's placeholders differ from the
English ones (the tests run the same checks).
"""
from __future__ import annotations

import functools
import io
import json
import math
import re
import sys
from datetime import datetime, timezone
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from babel import Locale
from babel.messages import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po, write_po
from babel.numbers import format_decimal, format_percent, parse_pattern
from babel.support import NullTranslations, Translations

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOCALES = HERE / "locales"
DOMAIN = "nblab"
POT = LOCALES / f"{DOMAIN}.pot"
JS_PATH = HERE / "js" / "catalogue.js"

#: the languages the lesson speaks, English (the msgids) first
LANGS = ("en", "es", "de", "fr")
#: each language's name in itself (a picker lists them so)
NAMES = {"en": "English", "es": "Español", "de": "Deutsch", "fr": "Français"}
DEFAULT = "en"

#: the folders extracted and how: the Python of the lesson core and the app, and the lab page's JavaScript
SOURCES = ("nblab", "dashboard")
#: the markers of each language, the msgid their first argument (tn's: singular, plural): Python's _ and N_ (a
#: no-op marking a table's text), the JavaScript's t and tn
MAPPING = {"python": ("**.py", {"_": None, "N_": None}), "javascript": ("**.js", {"t": None, "tn": (1, 2)})}
COMMENT_TAGS = ("TRANSLATORS:",)

# the date written in every catalogue's header: the files change only when their texts do
FIXED_DATE = datetime(2026, 1, 1, tzinfo=timezone.utc)

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# a Plural-Forms expression holds n, integers, C's operators and parentheses only (it is written into the
# JavaScript as it is: the same expression is valid there)
PLURAL_EXPR = re.compile(r"^[n0-9\s()?:!=<>&|%+\-*/]+$")


def N_(msgid: str) -> str:
    """Mark a text for the catalogue where it is written (a table of texts); translate it where it is shown."""
    return msgid


def pick(wanted) -> str:
    """The language of ours for a tag or a list of tags ("de-AT", ["fr-CA", "en"]); English when none is ours."""
    tags = [wanted] if isinstance(wanted, str) else list(wanted or [])
    for tag in tags:
        base = str(tag).strip().replace("_", "-").split("-")[0].lower()
        if base in LANGS:
            return base
    return DEFAULT


def accept_language(header) -> list[str]:
    """The tags of an HTTP ``Accept-Language`` header, most wanted first ("de-AT,de;q=0.9,en;q=0.5" → ["de-AT",
    "de", "en"]): a tag's q (1 when not given) orders them, the header's order breaks ties; ``q=0``, ``*`` and
    what is not a tag are left out, and a header longer than any browser sends is read no further."""
    tags = []
    for i, part in enumerate(str(header or "")[:1000].split(",")[:40]):
        tag, _, params = part.strip().partition(";")
        tag = tag.strip()
        if not re.fullmatch(r"[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*", tag):
            continue
        q = 1.0
        m = re.fullmatch(r"\s*q\s*=\s*([01](?:\.[0-9]{0,3})?)\s*", params) if params else None
        if params and not m:
            continue
        if m:
            q = float(m.group(1))
        if q > 0:
            tags.append((-q, i, tag))
    return [tag for _, _, tag in sorted(tags)]


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"


def json_path(lang: str) -> Path:
    return LOCALES / lang / f"{DOMAIN}.json"


@functools.lru_cache(maxsize=None)
def translations(lang: str) -> NullTranslations:
    """The compiled catalogue of ``lang`` (English, or a language without one: the msgids as they are)."""
    if lang == DEFAULT or lang not in LANGS or not mo_path(lang).exists():
        return NullTranslations()
    with mo_path(lang).open("rb") as f:
        return Translations(f, domain=DOMAIN)


def fill(text: str, params: dict) -> str:
    """Named placeholders filled in one pass ({name} → params["name"]); a placeholder without a value stays."""
    return PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), text)


def gettext(lang: str, msgid: str, **params) -> str:
    """``msgid`` in ``lang``, its placeholders filled (English when the catalogue lacks it)."""
    return fill(translations(pick(lang)).gettext(msgid), params)


def ngettext(lang: str, singular: str, plural: str, n: int, **params) -> str:
    """The form of ``n`` in ``lang`` (its own plural rule), placeholders filled; ``n`` is there as {n} too."""
    return fill(translations(pick(lang)).ngettext(singular, plural, n), {"n": n, **params})


# ---- numbers ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def symbols(lang: str) -> dict:
    """The locale's number symbols and percent affixes (Babel's CLDR data)."""
    loc = Locale.parse(pick(lang))
    sym = loc.number_symbols["latn"]
    pct = parse_pattern(loc.percent_formats[None].pattern)
    return {"decimal": sym["decimal"], "group": sym["group"], "minus": sym["minusSign"],
            "percentPrefix": pct.prefix[0], "percentSuffix": pct.suffix[0]}


def _localise(plain: str, lang: str) -> str:
    # plain: Python's "1,234.5" spelling (comma groups, dot decimal, hyphen minus)
    s = symbols(lang)
    return plain.translate(str.maketrans({",": s["group"], ".": s["decimal"], "-": s["minus"]}))


def _pattern(base: str, digits: int) -> str:
    # the locale's pattern ("#,##0", "#,##0\xa0%") with exactly `digits` decimals
    return base.replace("#,##0", "#,##0" + ("." + "0" * digits if digits else ""), 1)


def number(lang: str, v: float, digits: int = 0) -> str:
    """``v`` with ``digits`` decimals in the locale's spelling ("1,234.5", "1.234,5", "1 234,5"), written by
    Babel; rounded as the page's ``toLocaleString`` rounds: the shortest decimal of ``v``, half away from 0."""
    q = Decimal(repr(abs(float(v)))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    # the sign of v even when it rounds to 0 ("-0.0"), as the page writes a tiny negative number
    sign = symbols(lang)["minus"] if math.copysign(1.0, v) < 0 else ""
    return sign + format_decimal(q, format=_pattern("#,##0", digits), locale=pick(lang))


def number_g(lang: str, v: float) -> str:
    """``v`` in its shortest spelling (Python's ``{:g}``: 0.5, 1, 40) with the locale's decimal sign."""
    return _localise(f"{v:g}", lang)


def percent(lang: str, acc: float, digits: int = 1) -> str:
    """A share as the locale writes a percentage ("85.3%", "85,3 %"), written by Babel; rounded as the page's
    percent rounds (``(acc * 100).toFixed(1)``: the exact value of acc × 100, half up)."""
    q = Decimal(acc * 100).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    base = Locale.parse(pick(lang)).percent_formats[None].pattern
    return format_percent(q / 100, format=_pattern(base, digits), locale=pick(lang))


# ---- the catalogues: extract, update, compile, check -----------------------------------------------------


def plural_forms(lang: str) -> str:
    return get_plural(lang).plural_forms


def extract() -> Catalog:
    """The template: every marked text of nblab/ and dashboard/, with where it is written."""
    pot = Catalog(project="nblab", domain=DOMAIN, fuzzy=False, header_comment="# The lesson's texts (nblab.i18n).")
    for folder, (method, (pattern, keywords)) in ((f, m) for f in SOURCES for m in MAPPING.items()):
        found = extract_from_dir(ROOT / folder, [(pattern, method)], keywords=keywords, comment_tags=COMMENT_TAGS,
                                 strip_comment_tags=True)
        for filename, lineno, message, comments, context in found:
            if "node_modules" in filename or filename.endswith("catalogue.js"):
                continue
            pot.add(message, None, [(f"{folder}/{filename}", lineno)], auto_comments=comments, context=context)
    return pot


def _po_text(catalog: Catalog) -> bytes:
    buf = io.BytesIO()
    # no dates in the files: the same code gives the same bytes (the check compares them)
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    write_po(buf, catalog, width=100, omit_header=False, sort_output=False, include_lineno=True)
    return buf.getvalue()


def read(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def template_bytes() -> bytes:
    return _po_text(extract())


def updated(lang: str, template: Catalog) -> Catalog:
    """``lang``'s catalogue merged with the template (new msgids empty, gone ones dropped)."""
    cat = read(po_path(lang), lang) if po_path(lang).exists() else Catalog(locale=lang, domain=DOMAIN, project="nblab")
    cat.update(template, no_fuzzy_matching=True, update_header_comment=False)
    cat.obsolete.clear()
    return cat


def compiled(lang: str) -> tuple[bytes, dict]:
    """The .mo bytes and the JSON table of ``lang``'s catalogue: {msgid: text} and {msgid: [forms]} for a
    plural (keyed by the singular); untranslated and fuzzy texts are left out (they read in English)."""
    cat = read(po_path(lang), lang)
    buf = io.BytesIO()
    write_mo(buf, cat, use_fuzzy=False)
    table: dict[str, object] = {}
    for m in cat:
        if not m.id or m.fuzzy:
            continue
        if m.pluralizable:
            forms = list(m.string)
            if all(forms):
                table[m.id[0]] = forms
        elif m.string:
            table[m.id] = m.string
    return buf.getvalue(), dict(sorted(table.items()))


def json_text(lang: str) -> str:
    return json.dumps({"lang": lang, "plural_forms": plural_forms(lang), "messages": compiled(lang)[1]},
                      ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def js_source() -> str:
    """The text of nblab/js/catalogue.js: each language's messages, plural rule and number symbols."""
    lines = ["// Generated by `python -m nblab.i18n compile` from nblab/locales/*/LC_MESSAGES/nblab.po: do not edit by hand.",
             "// @ts-check", "",
             "//: the languages, English (the msgids) first, each named in itself",
             f"export const LANGS = Object.freeze({json.dumps(list(LANGS))});",
             f"export const NAMES = Object.freeze({json.dumps(NAMES, ensure_ascii=False)});",
             "//: each language's plural rule: the index of the form for n (Babel's Plural-Forms, as written there)",
             "export const PLURALS = Object.freeze({"]
    for lang in LANGS:
        expr = get_plural(lang).plural_expr
        if not PLURAL_EXPR.match(expr):
            raise ValueError(f"{lang}: plural rule {expr!r} is not a plain expression of n")
        lines.append(f"  {lang}: (/** @type {{number}} */ n) => Number({expr}),")
    lines.append("});")
    lines.append("//: each language's number symbols and percent affixes (Babel's CLDR data)")
    lines.append(f"export const NUMBERS = Object.freeze({json.dumps({l: symbols(l) for l in LANGS}, ensure_ascii=False)});")
    lines.append("//: each language's messages: msgid → text, or → [forms] for a plural (keyed by the singular)")
    msgs = {lang: compiled(lang)[1] for lang in LANGS if lang != DEFAULT}
    lines.append("/** @type {Readonly<Record<string, Readonly<Record<string, string | string[]>>>>} */")
    lines.append(f"export const MESSAGES = Object.freeze({json.dumps(msgs, ensure_ascii=False, sort_keys=True)});")
    return "\n".join(lines) + "\n"


def problems() -> list[str]:
    """What is wrong with the committed files: a stale template or compiled file, a catalogue that misses a
    msgid of the template (or leaves one untranslated), a translation whose placeholders are not the msgid's."""
    out = []
    template = extract()
    if not POT.exists() or {m.id for m in read(POT) if m.id} != {m.id for m in template if m.id}:
        out.append(f"{_shown(POT)} is not what the code marks: run python -m nblab.i18n extract")
    for lang in LANGS:
        if lang == DEFAULT:
            continue
        if not po_path(lang).exists():
            out.append(f"{_shown(po_path(lang))} is missing: run python -m nblab.i18n update")
            continue
        cat = read(po_path(lang), lang)
        for m in template:
            if not m.id:
                continue
            have = cat.get(m.id)
            if have is None:
                out.append(f"{lang}: {_first(m.id)!r} is not in the catalogue: run python -m nblab.i18n update")
            elif have.fuzzy or not (all(have.string) if have.pluralizable else have.string):
                out.append(f"{lang}: {_first(m.id)!r} is not translated")
            else:
                want = set(PLACEHOLDER.findall(" ".join(m.id) if m.pluralizable else m.id))
                for form in (have.string if have.pluralizable else [have.string]):
                    got = set(PLACEHOLDER.findall(form))
                    if got != want - ({"n"} if m.pluralizable else set()) and got != want:
                        out.append(f"{lang}: {_first(m.id)!r} has placeholders {sorted(got)}, the English {sorted(want)}")
        mo, _ = compiled(lang)
        if not mo_path(lang).exists() or mo_path(lang).read_bytes() != mo:
            out.append(f"{_shown(mo_path(lang))} is stale: run python -m nblab.i18n compile")
        if not json_path(lang).exists() or json_path(lang).read_text(encoding="utf-8") != json_text(lang):
            out.append(f"{_shown(json_path(lang))} is stale: run python -m nblab.i18n compile")
    if not JS_PATH.exists() or JS_PATH.read_text(encoding="utf-8") != js_source():
        out.append(f"{_shown(JS_PATH)} is stale: run python -m nblab.i18n compile")
    return out


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def _first(msgid) -> str:
    return msgid[0] if isinstance(msgid, tuple) else msgid


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    cmd = args[0] if args else "check"
    if cmd == "extract":
        POT.parent.mkdir(parents=True, exist_ok=True)
        POT.write_bytes(template_bytes())
    elif cmd == "update":
        template = read(POT)
        for lang in LANGS[1:]:
            po_path(lang).parent.mkdir(parents=True, exist_ok=True)
            po_path(lang).write_bytes(_po_text(updated(lang, template)))
    elif cmd == "compile":
        for lang in LANGS[1:]:
            mo_path(lang).write_bytes(compiled(lang)[0])
            json_path(lang).write_text(json_text(lang), encoding="utf-8")
        JS_PATH.write_text(js_source(), encoding="utf-8")
        translations.cache_clear()
    elif cmd == "check" or cmd == "--check":
        found = problems()
        for p in found:
            print(p, file=sys.stderr)
        return 1 if found else 0
    else:
        print("python -m nblab.i18n extract | update | compile | check", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
