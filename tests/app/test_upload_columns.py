"""The columns panel of an upload shows the role each column plays in the reading.

Each file below is built so that what nbcore.read_csv reads is known by construction; the
panel (columns_frame, the "Ignored" caption) must say the same, with reasons that fit.
"""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from dashboard.data import upload_columns as uc
from kit import ROOT
from nbcore.data import guess_columns

APP = str(ROOT / "dashboard" / "app.py")


def many_labels(extra: str = "") -> bytes:
    """600 rows: a "label" column with 500 different values and a free-text "message"."""
    head = "label,message" + (",author" if extra else "")
    rows = [f"c{i % 500},this is message number {i} with a few more words"
            + (f",user{i % 7}" if extra else "") for i in range(600)]
    return ("\n".join([head, *rows]) + "\n").encode()


def frame_roles(data: bytes, choice=None) -> tuple[dict, dict, object]:
    ds, info, choice = uc.read_upload(data, choice)
    f = uc.columns_frame(info, choice, ds.inferred).set_index("column")
    return f["used as"].to_dict(), f["why"].to_dict(), (ds, info, choice)


def test_a_label_column_with_500_values_is_the_label_in_the_guess_itself():
    lines = many_labels().decode().splitlines()
    g = guess_columns(lines[0].split(","), [r.split(",") for r in lines[1:]])
    assert g["label"] == "label" and g["roles"]["label"] == "label"
    assert "label" not in g["ignored"]
    assert "500" in g["reasons"]["label"] and "not used" not in g["reasons"]["label"]
    assert g["text"] == ["message"]


def test_the_panel_shows_the_500_value_label_column_as_the_label():
    roles, why, (ds, info, choice) = frame_roles(many_labels())
    assert ds.inferred["label_column"] == "label" and len(ds.class_names) == 500   # what is read
    assert roles == {"label": "label", "message": "text"}
    assert "500 different values" in why["label"]
    assert "not used" not in why["label"] and "ignored" not in why["label"].lower()
    assert uc.ignored_caption(info, choice, ds.inferred) is None   # nothing is ignored


def test_a_named_label_beats_an_author_column_and_the_caption_lists_only_the_author():
    roles, why, (ds, info, choice) = frame_roles(many_labels(extra="author"))
    assert ds.inferred["label_column"] == "label"
    assert roles == {"label": "label", "message": "text", "author": "ignored"}
    assert "author" in why["author"]
    caption = uc.ignored_caption(info, choice, ds.inferred)
    assert caption.startswith("Ignored by default:") and "author" in caption
    assert "label" not in caption.replace("(unlabelled)", "")


def test_a_label_picked_by_hand_is_shown_as_the_label_and_the_old_one_as_not_read():
    # "ref" has 500 different values; the guess takes "kind" (2 values); the teacher picks "ref"
    rows = [f"r{i % 500},{'spam' if i % 3 == 0 else 'ham'},this is message number {i} with words"
            for i in range(600)]
    data = ("ref,kind,message\n" + "\n".join(rows) + "\n").encode()
    roles, _, (ds, info, choice) = frame_roles(data)
    assert (choice.label, roles["ref"], roles["kind"]) == ("kind", "ignored", "label")
    picked = uc.ColumnChoice(label="ref", text=("message",), ignore=("kind",), header=True)
    roles, why, (ds, info, choice) = frame_roles(data, picked)
    assert ds.inferred["label_column"] == "ref" and len(ds.class_names) == 500
    assert roles == {"ref": "label", "kind": "ignored", "message": "text"}
    assert "500 different values" in why["ref"] and "picked" in why["ref"]
    assert "text column is read instead" in why["kind"]
    caption = uc.ignored_caption(info, choice, ds.inferred)
    assert caption.startswith("Ignored:") and "kind" in caption and "ref" not in caption


def test_a_lone_column_of_words_is_shown_as_the_text_it_is_read_as():
    # two-word cells: not free text to the guess, but read_csv reads the only column besides
    # the label as text when it holds words
    rows = [f"{'spam' if i % 2 else 'ham'},{'cheap' if i % 2 else 'hello'} {i}" for i in range(40)]
    data = ("kind,words\n" + "\n".join(rows) + "\n").encode()
    roles, why, (ds, info, choice) = frame_roles(data)
    assert ds.inferred["text_columns"] == ["words"]          # what is read
    assert roles == {"kind": "label", "words": "text"}
    assert "read as text" in why["words"]


def test_a_table_shows_its_features_and_the_ignored_id():
    rows = [f"{i},{'a' if i % 2 else 'b'},{'x' if i % 3 else 'y'},{'yes' if i % 2 else 'no'}" for i in range(40)]
    data = ("id,colour,shape,label\n" + "\n".join(rows) + "\n").encode()
    roles, why, (ds, info, choice) = frame_roles(data)
    assert ds.feature_names == ["colour", "shape"] and ds.inferred["label_column"] == "label"
    assert roles == {"id": "ignored", "colour": "feature", "shape": "feature", "label": "label"}
    assert "ID" in why["id"] and "feature" in why["colour"]


def test_the_columns_panel_on_the_page_escapes_column_names_and_agrees_with_the_reading():
    rows = [f"c{i % 500},this is message number {i} with a few more words,u{i % 7}" for i in range(600)]
    data = ("label,message,**bold** author\n" + "\n".join(rows) + "\n").encode()
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["pending_upload"] = ("many.csv", data)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    ds = at.session_state["lesson"].prep.ds
    assert ds.inferred["label_column"] == "label"
    frame = next(d.value for d in at.dataframe if "used as" in d.value.columns).set_index("column")
    assert frame.loc["label", "used as"] == "label" and frame.loc["message", "used as"] == "text"
    assert frame.loc["**bold** author", "used as"] == "ignored"
    captions = [c.value for c in at.caption if "Ignored" in c.value]
    assert len(captions) == 1, captions
    cap = captions[0]
    assert "\\*\\*bold\\*\\* author" in cap and "**bold** author" not in cap, cap   # a name, not Markdown
    assert not re.search(r"\*\*label\*\*", cap), cap                                  # the label is not "ignored"
    titles = [e.label for e in at.expander if "Columns of" in e.label]
    assert titles and "**bold**" not in titles[0], titles


def test_an_id_column_of_long_codes_is_shown_as_an_ignored_id():
    from kit.data import youtube_like  # the same file as the engine's test reads

    roles, why, _ = frame_roles(youtube_like())
    assert roles["COMMENT_ID"] == "ignored" and roles["CONTENT"] == "text"
    assert "ID" in why["COMMENT_ID"] and "free text" not in why["COMMENT_ID"], why["COMMENT_ID"]
    ds, info, choice = uc.read_upload(youtube_like())
    caption = uc.ignored_caption(info, choice, ds.inferred)
    assert "**COMMENT\\_ID** (its name says it is an ID" in caption, caption
