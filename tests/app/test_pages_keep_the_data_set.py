"""A page never changes the data set the teacher chose: after the lesson on sms_spam, the Smoothing explorer
and Side by side open on sms_spam (they used to open on their own default, synthetic_spam); a page that cannot
show the lesson's data set (play_tennis is categorical; the Smoothing explorer reads Bernoulli or multinomial data)
says so and shows another."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import pages
from kit.apptest import APP, page_text


def lesson_then(path: str, dataset: str = "sms_spam") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    if dataset != "sms_spam":
        at.query_params["dataset"] = dataset
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["lesson"].cfg.dataset == dataset         # sms_spam: the README's lesson
    at.switch_page(path).run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("page,key", [(pages.SMOOTHING, "sm_dataset"), (pages.SIDE_BY_SIDE, "sbs_dataset")])
def test_a_page_opens_on_the_lessons_data_set(page, key):
    at = lesson_then(page.path)
    assert at.selectbox(key=key).value == "sms_spam"
    assert "is not one this page can show" not in page_text(at)


def test_a_page_that_cannot_show_it_says_so():
    at = lesson_then(pages.SMOOTHING.path, "play_tennis")
    assert at.selectbox(key="sm_dataset").value == "synthetic_spam"
    shown = [c.value.replace("\\_", "_") for c in at.sidebar.caption]   # names are Markdown-escaped
    assert any("The lesson's data set, play_tennis, is not one this page can show (it reads bernoulli or "
               "multinomial data): it shows synthetic_spam." in c for c in shown), shown
