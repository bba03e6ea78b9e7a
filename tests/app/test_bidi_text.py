"""Bidi control characters in user text (a class named "spam" + U+202E) never reach a page: text read from a
user's file drops them (nbcore.strip_bidi, in the CSV decoder), and so do the lab's data (the class page, the
static site, the offline file), the page's title and the app's one-line user strings (dashboard/ui/derive.py)."""
from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import nbcore
from kit import ROOT
from kit.apptest import page_text

CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
BIDI = re.compile(f"[{CONTROLS}]")
CSV = ("text,label\n"
       "win cash now \u202efree,spam\u202e\n" "free prize inside,spam\u202e\n" "claim your \u2067prize\u2069,spam\u202e\n"
       "meeting at noon,ham\u200f\n" "lunch tomorrow,ham\u200f\n" "see you at lunch,ham\u200f\n"
       "claim your free cash,\n" "notes from the meeting,\n").encode("utf-8")


@pytest.mark.parametrize("c", list(CONTROLS))
def test_strip_bidi_drops_each_control_and_keeps_right_to_left_text(c):
    assert nbcore.strip_bidi(f"spam{c} accuracy 100.0%") == "spam accuracy 100.0%"
    assert nbcore.strip_bidi("שלום · سلام") == "שלום · سلام"


def test_a_users_file_is_read_without_bidi_controls():
    ds = nbcore.read_csv(CSV)
    assert sorted(map(str, ds.class_names)) == ["ham", "spam"]
    assert all(not BIDI.search(str(t)) for t in ds.texts)
    assert "win cash now free" in [str(t) for t in ds.texts]


def test_the_labs_data_and_title_drop_them_whoever_made_the_data_set():
    from nblab.data import lab_data_from_arrays
    from nblab.page import page_config
    X = (np.random.default_rng(0).random((20, 3)) < 0.5).astype(float)
    y = np.r_[np.zeros(10, int), np.ones(10, int)]
    data = lab_data_from_arrays(X, y, class_names=["spam\u202e", "ham\u2066"], feature_names=["a\u202b", "b", "c\u200f"],
                                texts=[f"doc {i}\u202e" for i in range(20)], name="mine\u202e")
    import json
    text = json.dumps(data, ensure_ascii=False)
    assert not BIDI.search(text)
    assert data["classNames"] == ["spam", "ham"] and data["name"] == "mine"
    assert not BIDI.search(page_config(data, title="Class: spam\u202e")["title"])


def test_one_line_drops_them():
    from dashboard.ui.derive import md_escape, one_line
    assert one_line("spam\u202e accuracy") == "spam accuracy"
    assert not BIDI.search(md_escape("x\u2066y\u2069 \u202ez"))


def test_the_app_shows_an_uploaded_sets_names_without_them(tmp_path, monkeypatch):
    monkeypatch.setenv("NBLAB_STORE_DIR", str(tmp_path / "store"))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.run()
    at.file_uploader(key="uploader").upload("mail\u202e.csv", CSV, "text/csv")
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "spam" in text and "ham" in text
    found = sorted({f"U+{ord(c):04X}" for c in BIDI.findall(text)})
    assert found == [], found
