"""Column guessing for uploads (nbcore.inspect_csv) and files without a header row.

The expected roles are what a teacher would pick by eye for each file below.
"""
from pathlib import Path

import numpy as np
import pytest

from kit.data import youtube_like
from nbcore.data import DataError, inspect_csv, read_csv

DATA = Path(__file__).resolve().parents[2] / "datasets"

# A YouTube-comments-like export: text and label under odd names, plus ID/author/date.
COMMENTS = (
    "COMMENT_ID,AUTHOR,DATE,CONTENT,CLASS\n"
    "z13a1,Julius NM,2013-11-07T06:20:48,Huh anyway check out this you tube channel: kobyoshi02,1\n"
    "z13b2,adam riyati,2013-11-07T12:37:15,Hey guys check out my new channel and our first vid THIS IS US,1\n"
    "z13c3,Evgeny Murashkin,2013-11-08T17:34:21,just for test I have to say murdev.com,1\n"
    "z13d4,ElNino Melendez,2013-11-09T08:28:43,me shaking my sexy ass on my channel enjoy ^_^,1\n"
    "z13e5,GsMega,2013-11-10T16:05:38,watch?v=vtaRGgvGtWQ   Check this out .,1\n"
    "z13f6,Jason Bui,2013-11-11T03:21:39,This song never gets old love it so much,0\n"
    "z13g7,Maria Silva,2013-11-12T04:11:02,the best song ever made in my opinion,0\n"
    "z13h8,Tom K,2013-11-12T09:40:12,who is still listening to this in 2014,0\n"
    "z13i9,Anna P,2013-11-13T10:00:00,I love the dancing in the video so much,0\n"
    "z13j10,Lee W,2013-11-14T22:15:30,,\n"
    "z13k11,Sam R,2013-11-15T07:45:00,great video but the sound is a bit low here,\n"
)


def test_multi_column_export_guesses_text_label_and_ignored_columns():
    g = inspect_csv(COMMENTS.encode())
    assert g["header"] is True and g["n_rows"] == 11
    assert g["text"] == ["CONTENT"] and g["label"] == "CLASS"
    assert set(g["ignored"]) == {"COMMENT_ID", "AUTHOR", "DATE"}
    assert "ID" in g["reasons"]["COMMENT_ID"]
    assert "author" in g["reasons"]["AUTHOR"] and "date" in g["reasons"]["DATE"]
    assert "blank" in g["reasons"]["CLASS"]  # unlabelled rows are said


def test_picking_the_guessed_columns_gives_a_text_dataset():
    ds = read_csv(COMMENTS.encode(), text_column="CONTENT", label_column="CLASS")
    assert ds.class_names == ["0", "1"] and ds.y.tolist() == [1] * 5 + [0] * 4 + [-1, -1]
    assert ds.texts[0].startswith("Huh anyway") and ds.is_text
    assert "channel" in ds.feature_names and "julius" not in ds.feature_names
    assert ds.inferred["ignored_columns"] == ["COMMENT_ID", "AUTHOR", "DATE"]
    # the default label name is not there: the message names the likely column
    with pytest.raises(DataError) as info:
        read_csv(COMMENTS.encode())
    assert "'CLASS' looks like the labels" in str(info.value)


def test_two_text_columns_are_joined():
    data = ("subject,body,label\n"
            "cheap meds,buy now and save big,spam\n"
            "lunch,are we still on for noon today,ham\n"
            "free money,claim your prize today,spam\n")
    ds = read_csv(data.encode(), text_column=["subject", "body"], label_column="label")
    assert ds.texts[0] == "cheap meds\nbuy now and save big"
    assert {"cheap", "buy", "lunch", "noon"} <= set(ds.feature_names)
    assert ds.inferred["text_columns"] == ["subject", "body"]


def test_headerless_two_column_file_is_read_as_data():
    lines = (DATA / "sms_spam.tsv").read_text(encoding="utf-8").splitlines()[:300]
    as_csv = "\n".join(f'{lab},"{txt.replace(chr(34), chr(34) * 2)}"' for lab, txt in
                       (ln.split("\t", 1) for ln in lines)) + "\n"
    for data in (as_csv, "\n".join(lines) + "\n"):
        g = inspect_csv(data.encode())
        assert g["header"] is False and g["n_rows"] == 300  # first message not lost
        assert g["columns"] == ["column 1", "column 2"]
        assert g["label"] == "column 1" and g["text"] == ["column 2"]
        ds = read_csv(data.encode(), label_column=g["label"], text_column=g["text"])
        assert ds.n_samples == 300 and ds.texts[0].startswith("Go until jurong point")
        assert ds.class_names == ["ham", "spam"] and ds.y[0] == 0 and ds.y[2] == 1
        assert ds.inferred["header"] is False


def test_headerless_label_last_and_header_files_still_have_headers():
    data = ("I will call you later tonight ok,ham\n"
            "WINNER you have won a prize call now,spam\n"
            "see you at the station at five,ham\n"
            "are you coming to dinner tonight,ham\n")
    g = inspect_csv(data.encode())
    assert g["header"] is False and g["label"] == "column 2" and g["text"] == ["column 1"]
    with_header = "message,label\n" + data
    g2 = inspect_csv(with_header.encode())
    assert g2["header"] is True and g2["label"] == "label" and g2["text"] == ["message"]
    ds = read_csv(with_header.encode())
    assert ds.n_samples == 4


def test_table_with_id_column_ignores_it():
    rows = "\n".join(f"{i},{'Sunny' if i % 2 else 'Rain'},{'Hot' if i % 3 else 'Cool'},"
                     f"{'Yes' if i % 2 else 'No'}" for i in range(1, 31))
    data = "id,Outlook,Temperature,Play\n" + rows + "\n"
    g = inspect_csv(data.encode())
    assert g["text"] == [] and g["ignored"] == ["id"]
    assert g["label"] in ("Play", "Outlook")  # both have two values
    ds = read_csv(data.encode(), label_column="Play", ignore_columns=g["ignored"])
    assert ds.feature_names == ["Outlook", "Temperature"] and ds.kind == "categorical"
    with pytest.raises(DataError, match="no features"):
        read_csv(data.encode(), label_column="Play", ignore_columns=["id", "Outlook", "Temperature"])


def test_numbered_rows_without_name_are_an_id():
    rows = "\n".join(f"{i},{x:.3f},{'a' if i % 2 else 'b'}" for i, x in
                     enumerate(np.linspace(0, 1, 40)))
    g = inspect_csv(("n_row,value,label\n" + rows).encode())
    assert "n_row" in g["ignored"] and "value" not in g["ignored"]
    g2 = inspect_csv(("a,value,label\n" + rows).encode())
    assert "a" in g2["ignored"] and "whole number" in g2["reasons"]["a"]


def test_a_long_code_column_named_like_an_id_is_an_ignored_id_not_free_text():
    g = inspect_csv(youtube_like())
    codes = [line.split(",")[0] for line in youtube_like().decode().splitlines()[1:]]
    assert sum(map(len, codes)) / len(codes) > 40 and not any(" " in c for c in codes)  # the case itself
    assert g["text"] == ["CONTENT"] and g["label"] == "CLASS"
    assert g["roles"]["COMMENT_ID"] == "ignored"
    why = g["reasons"]["COMMENT_ID"]
    assert "ID" in why and "free text" not in why and "add it to the text" not in why, why


def test_free_text_without_spaces_is_still_text():
    # a language written without spaces: long values of words, not codes
    rows = ["id,body,label"] + [f"{i},今日はとても良い天気ですね、みんなで公園まで散歩に行きましょう。{i}番目の手紙です,{i % 2}" for i in range(30)]
    g = inspect_csv(("\n".join(rows) + "\n").encode())
    assert g["text"] == ["body"] and g["roles"]["id"] == "ignored"
