"""The posterior inspector's document number: a number beyond the data set is answered with a message
that says how many documents there are (not only a red field), and nothing breaks. The document count
comes from nbcore.load_dataset, not from the page."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

import nbcore
from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")


def _inspector(dataset: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    at.query_params["insp_dataset"] = dataset
    at.switch_page("views/inspector.py")
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_document_number_beyond_the_data_gets_a_message():
    n = nbcore.load_dataset("sms_spam").X.shape[0]
    at = _inspector("sms_spam")
    words_before = list(at.multiselect(key="insp_words").value)
    at.number_input(key="insp_row").set_value(n + 820).run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert errors == [f"Document {n + 820:,} does not exist: this data set has {n:,} documents "
                      f"(numbered 0–{n - 1:,})."], errors
    assert at.button(key="insp_load").disabled  # nothing to load
    assert list(at.multiselect(key="insp_words").value) == words_before  # the message is still scored
    assert at.metric  # and its posterior still shown

    # the last document is fine, and loads
    at.number_input(key="insp_row").set_value(n - 1).run()
    assert not at.exception and not at.error
    at.button(key="insp_load").click().run()
    assert not at.exception
    row = nbcore.load_dataset("sms_spam").X[n - 1]
    assert len(at.multiselect(key="insp_words").value) == row.getnnz()
