"""A teacher's CSV whose label column has blanks is read as meant: the blank rows are EM's unlabelled rows and
"Labels hidden" starts at 50 % of the *given* labels (held out to measure the accuracy on), not at the lesson's
99 %, which left EM 2 of a 60-row file's 20 labels; the upload's message says which and why."""
from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

import nbcore
from kit.apptest import APP

ROWS = (["text,label"] + [f"cheap pills offer now {i},spam" if i % 2 else f"meeting at noon about report {i},ham"
                          for i in range(20)] + [f"some words about pills or meetings {i}," for i in range(40)])
CSV = ("\n".join(ROWS) + "\n").encode()


def test_blank_labels_are_the_unlabelled_rows_and_half_the_given_are_held_out():
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.file_uploader[0].upload("my_topics.csv", CSV, "text/csv").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.slider(key="hidden").value == 50
    lr = at.session_state["lesson"]
    assert lr.cfg.dataset == "upload" and lr.cfg.hidden_pct == 50
    # what EM sees: nbcore.hide_labels of the file's own labels at 50 % with the lesson's seed (independently)
    y_file = np.asarray(nbcore.read_csv(__import__("io").BytesIO(CSV)).y)
    want, _ = nbcore.hide_labels(y_file, fraction=0.5, random_state=lr.cfg.seed)
    np.testing.assert_array_equal(np.asarray(lr.prep.y_obs), np.asarray(want))
    assert int((np.asarray(lr.prep.y_obs) >= 0).sum()) == 10
    said = " ".join(s.value for s in at.sidebar.success) + " ".join(m.value for m in at.sidebar.markdown)
    assert "40 of its rows have no label: EM reads them as its unlabelled rows" in said, said[-800:]
    assert "about 10 are held out to measure the accuracy on" in said


def test_a_file_with_every_label_keeps_the_lessons_share():
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    full = ("\n".join(ROWS[:21]) + "\n").encode()
    at.file_uploader[0].upload("all.csv", full, "text/csv").run()
    assert not at.exception
    assert at.slider(key="hidden").value == 99
