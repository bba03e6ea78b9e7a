"""Readings a statistician expects, and nothing refused without a word: missing-value labels, a label
column of decimals, UTF-16 files, an upload over the memory budget, empty list values in a link,
an unknown player= value, a huge t=, and the iteration of a link whose upload is gone."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import nbcore
from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")
TEXT = "text,label\n" + "".join(f"word{i % 5} thing {i},{['spam', 'ham', 'NaN', 'nan', 'NA', 'null', '', 'N/A'][i % 8]}\n"
                                for i in range(48))


def test_missing_value_labels_are_unlabelled():
    ds = nbcore.read_csv(TEXT.encode())
    assert ds.class_names == ["ham", "spam"]
    assert ds.inferred["n_unlabelled"] == 36 and ds.inferred["n_missing_markers"] == 30
    from nbcore.data import inspect_csv
    info = inspect_csv(TEXT.encode())
    assert info["stats"]["label"]["distinct"] == 2 and info["stats"]["label"]["n_blank"] == 36


def test_a_label_column_of_many_decimals_is_asked_about():
    rng = np.random.default_rng(0)
    data = "x,label\n" + "".join(f"{i},{rng.random():.4f}\n" for i in range(300))
    with pytest.raises(nbcore.DataError, match=r"\d+ different numbers with decimals .* is it really the classes"):
        nbcore.read_csv(data.encode())
    few = "x,label\n" + "".join(f"{i},{[0.5, 1.5][i % 2]}\n" for i in range(30))   # two decimal classes: fine
    assert nbcore.read_csv(few.encode()).n_classes == 2


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_uploads_are_read(encoding):
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["pending_upload"] = ("excel unicode.csv", TEXT.replace("NaN", "é").encode(encoding))
    at.run()
    assert not at.exception
    assert at.session_state["dataset"] == "upload", [e.value for e in at.error]


def test_an_upload_over_the_memory_budget_leaves_the_sidebar_on_the_data_that_runs(monkeypatch):
    monkeypatch.setenv("NBLAB_RUN_BUDGET_MB", "0.05")   # the default lesson fits nothing bigger than a toy
    rng = np.random.default_rng(1)
    words = [f"w{j}" for j in range(3000)]
    rows = "".join(f"{' '.join(rng.choice(words, 30))},{['a', 'b', 'c', 'd'][i % 4]}\n" for i in range(400))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = "toy_spam"
    at.run()
    before = at.selectbox(key="dataset").value
    at.session_state["pending_upload"] = ("big.csv", ("text,label\n" + rows).encode())
    at.run()
    assert not at.exception
    assert at.selectbox(key="dataset").value == before != "upload"
    assert any("MB" in e.value and "big.csv" in e.value for e in at.error), [e.value for e in at.error]


def _notice(at) -> str:
    return " ".join(w.value for w in at.warning)


def test_empty_list_values_and_unknown_player_values_get_a_notice():
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("views/components.py")
    at.query_params["cp_ms"] = ""
    at.query_params["player"] = "fast"
    at.run()
    assert not at.exception
    text = _notice(at)
    assert "`cp_ms=` is empty" in text and "`player=fast` is not one of on, off" in text, text


def test_a_huge_iteration_is_said_plainly():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = "toy_spam"
    at.query_params["t"] = "1e308"
    at.run()
    assert not at.exception
    assert "`t=1e308` is larger than 1000, the most this setting takes" in _notice(at), _notice(at)


def test_the_iteration_of_a_link_whose_upload_is_gone_is_not_recomputed_on_other_data():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = "upload"
    at.query_params["t"] = "3"
    at.run()
    assert not at.exception
    shown = " ".join(e.value for e in list(at.warning) + list(at.info) + list(at.markdown) + list(at.caption))
    assert "not in this browser session" in shown and "as the link says" not in shown
    assert "t" not in at.query_params
