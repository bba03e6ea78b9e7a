"""Numbers in the URL are read only as a URL spells them; a link Streamlit drops is named.

A URL value such as ``hidden=1_0`` or ``hidden=٥٠`` is not a number a link holds (Python's
float() would read 10 and 50), and ``lam=1e-400`` is no number a float holds (float() gives 0,
a different model from a tiny λ): each is refused with a notice naming it and the value used.
A query string over Streamlit's limits reaches the page empty: the page says so.
"""
from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from kit import ROOT
from nblab.defaults import DEFAULTS

APP = str(ROOT / "dashboard" / "app.py")


def open_lesson(query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def notice_text(at: AppTest) -> str:
    """The URL notice as a reader sees it (Markdown backslash escapes removed)."""
    return re.sub(r"\\(.)", r"\1", " ".join(w.value for w in at.warning if "link had" in w.value))


# ---- the decisions (pure) ------------------------------------------------------------------

NOT_URL_NUMBERS = [
    "1_0",        # float("1_0") == 10
    "٥٠",         # Arabic-Indic digits: float() == 50
    "５０",        # fullwidth digits: float() == 50
    "\u00a050",   # a no-break space in front: float() == 50
    "50\u2003",   # an em space after
    "nan", "inf", "-Infinity",
    "1e400",      # overflows: float() == inf
    "1e-400",     # underflows: float() == 0.0
    "-2.5e-999",
    "9" * 400,    # 10^400: overflows
    "0x10", "1,5", "1..5", "1e", ".", "+", "",
]


@pytest.mark.parametrize("s", NOT_URL_NUMBERS)
def test_a_slider_refuses_what_is_not_a_plain_number_and_says_what_it_used(s):
    from dashboard.ui import urlguard as ug

    hidden = ug.Number(0, 100, 90, 1, True)   # the lesson's "Labels hidden"
    d = hidden.decide("hidden", [s])
    assert d.value == 90, (s, d.value)
    assert d.why and "hidden=" in d.why and "used 90" in d.why, d.why


@pytest.mark.parametrize("s", NOT_URL_NUMBERS)
def test_the_lambda_grid_refuses_what_is_not_a_plain_number(s):
    from dashboard.ui import controls
    from dashboard.ui import urlguard as ug

    lam = ug.Grid(controls.LAMBDAS, 1.0, controls.fmt_lam)
    d = lam.decide("lam", [s])
    assert d.value == 1.0, (s, d.value)
    assert d.why and "lam=" in d.why and "used 1" in d.why, d.why


def test_a_range_refuses_a_part_that_is_not_a_plain_number():
    from dashboard.ui import urlguard as ug

    r = ug.Range(0, 100, (10, 20), 1, True)
    for bad in (["1_0", "30"], ["5", "1e400"], ["١٠", "20"]):
        d = r.decide("span", bad)
        assert d.value == (10, 20) and d.why, (bad, d)
    assert r.decide("span", ["30", "40"]).value == (30, 40)


@pytest.mark.parametrize("s,want", [
    ("50", 50), ("+50", 50), ("50.0", 50), ("5e1", 50), ("5E+1", 50), ("500e-1", 50), (" 50", 50),
    (".5e2", 50), ("50.", 50),
])
def test_plain_numbers_are_still_read_as_written(s, want):
    from dashboard.ui import urlguard as ug

    d = ug.Number(0, 100, 90, 1, True).decide("hidden", [s])
    assert (d.value, d.why) == (want, None), (s, d)


def test_tiny_and_subnormal_but_representable_lambdas_are_not_refused():
    from dashboard.ui import controls
    from dashboard.ui import urlguard as ug

    lam = ug.Grid(controls.LAMBDAS, 1.0, controls.fmt_lam)
    # 1e-310 is a (subnormal) float, not 0: it is a number, just not on the slider
    d = lam.decide("lam", ["1e-310"])
    assert d.value == 0.001 and "not on the slider" in d.why
    assert lam.decide("lam", ["0"]).value == 0.0 and lam.decide("lam", ["0"]).why is None
    assert lam.decide("lam", ["0e-400"]).value == 0.0   # zero spelt with any exponent is zero


# ---- on the page ---------------------------------------------------------------------------

@pytest.mark.parametrize("query,key,used", [
    ({"hidden": "1_0"}, "hidden", DEFAULTS["hidden"]),
    ({"hidden": "٥٠"}, "hidden", DEFAULTS["hidden"]),
    ({"hidden": "５０"}, "hidden", DEFAULTS["hidden"]),
    ({"lam": "1e-400"}, "lam", DEFAULTS["lam"]),
    ({"lam": "1e400"}, "lam", DEFAULTS["lam"]),
    ({"seed": "1_2"}, "seed", DEFAULTS["seed"]),   # a number input, drawn in the advanced settings
])
def test_lesson_page_refuses_lookalike_numbers_with_a_notice(query, key, used):
    at = open_lesson(query)
    assert at.session_state[key] == used, (key, at.session_state[key])
    note = notice_text(at)
    assert f"{key}={query[key]}" in note, note
    assert f"used {used:g}" in note, note


# ---- a query string over Streamlit's limits ---------------------------------------------------

def test_a_link_over_512_kb_says_it_was_too_long_and_names_what_it_ignored():
    # 600,000 characters of one setting, then two ordinary ones: Streamlit reads none of them
    at = open_lesson({"gs_note": "x" * 600_000, "hidden": "50", "lam": "0.1"})
    assert at.session_state["hidden"] == DEFAULTS["hidden"] and at.session_state["lam"] == DEFAULTS["lam"]
    note = notice_text(at)
    assert "too long" in note, note
    for name in ("gs_note", "hidden", "lam"):
        assert name in note, (name, note)
    assert "524,288" in note, note   # 512 × 1024 characters: the limit it went over
    assert len(note) < 800


def test_a_link_with_over_1000_parameters_says_none_was_read():
    query = {f"p{i}": "1" for i in range(1200)}
    query["hidden"] = "50"
    at = open_lesson(query)
    assert at.session_state["hidden"] == DEFAULTS["hidden"]
    note = notice_text(at)
    assert "1,201 parameters" in note and "p0" in note, note


def test_a_link_just_under_the_limits_is_read_without_that_notice():
    at = open_lesson({"filler": "x" * 500_000, "hidden": "50"})
    assert at.session_state["hidden"] == 50
    assert "too long" not in notice_text(at)


# ---- a refused value is echoed as data ----------------------------------------------------------

def test_shown_escapes_autolinks_entities_and_mentions():
    from dashboard.ui import urlguard as ug

    # CommonMark reads "&amp;" as "&", GFM turns "www.x.org" and "a@b.org" into links; a
    # backslash before ASCII punctuation makes it literal, so each must carry one
    out = ug.shown("&amp; www.evil.example a@b.org", 60)
    assert "\\&amp;" in out and "\\@" in out, out
    assert "www." not in out.replace("www\\.", ""), out
    assert "\n" not in ug.shown("a\u2028b\x0bc") and "\u2028" not in ug.shown("a\u2028b")


def test_code_keeps_a_value_on_one_line_inside_its_span():
    from dashboard.ui import urlguard as ug

    out = ug.code("a`b\u2028c\u2029d\x0be")
    assert "`" not in out and not any(ch in out for ch in "\u2028\u2029\x0b\n\r"), repr(out)
