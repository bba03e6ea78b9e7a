"""A number the page cannot give is "—", and the "—" always says why, under it, in a few words: the states
where each page has one (nothing hidden or nothing visible in the lesson, no flip yet, a flat or U-shaped
posterior, the bound before the first E-step, a class with one value, a class with none)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from kit import ROOT
from kit.apptest import dashes_without_reason

APP = str(ROOT / "dashboard" / "app.py")


def _open(page: str | None, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():      # the first page a session opens reads its settings from the address
        at.query_params[k] = v
    at.run()
    if page:                        # another page: the main script first (st.navigation registers the pages)
        at.switch_page(f"views/{page}.py")
        at.run()
    assert not at.exception, at.exception
    return at


def _reasons(at) -> dict[str, str]:
    return {m.label: m.proto.delta for m in at.metric if m.value == "—"}


@pytest.mark.parametrize("page, query, want", [
    (None, {"dataset": "toy_spam", "hidden": "0"},
     {"Accuracy (t=0)": "no hidden label to score", "Supervised only": "no hidden label to score",
      "Best supervised": "no hidden label to score"}),
    (None, {"dataset": "toy_spam", "hidden": "100"},
     {"Supervised only": "no visible label", "Best supervised": "no visible label"}),
    ("coin", {"coin_source": "typed", "coin_flips": "", "coin_lam": "0"},
     {"θ_MLE": "no flip yet", "θ_MAP": "every θ is a mode"}),
    ("climb", {"cl_dataset": "toy_spam"}, {"bound at θ_0": "press E-step first"}),
], ids=["lesson-nothing-hidden", "lesson-nothing-visible", "coin-no-flip", "climb-before-the-e-step"])
def test_every_dash_says_why(page, query, want):
    at = _open(page, **query)
    assert _reasons(at) == want
    assert dashes_without_reason(at) == []


def test_a_class_with_one_value_or_none_says_why_it_has_no_variance():
    at = _open("gaussian")
    at.text_input(key="gs_a").set_value("7").run()
    assert not at.exception
    got = _reasons(at)
    assert got, "class A with one value has no variance"
    assert set(got.values()) <= {"needs at least 2 values", "see the message above"}, got
    assert dashes_without_reason(at) == []


def test_no_page_shows_a_bare_dash_at_its_default_settings():
    from dashboard import pages
    for p in pages.PAGES:
        at = _open(p.path.removeprefix("views/").removesuffix(".py"))
        assert dashes_without_reason(at) == [], p.path
