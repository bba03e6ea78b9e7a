"""The upload's column summary (the title of its Columns panel) reads as a sentence: each column's name is
quoted, so a file whose columns are called "label" and "text" no longer reads "label label, text text"."""
from __future__ import annotations

from dashboard.data.upload_columns import ColumnChoice


def test_the_usual_columns_read_as_a_sentence():
    assert ColumnChoice(label="label", text=("text",)).describe() == "the labels are in “label”, the text in “text”"


def test_several_text_columns_and_ignored_ones():
    got = ColumnChoice(label="topic", text=("title", "body"), ignore=("id", "author", "date")).describe()
    assert got == ("the labels are in “topic”, the text in “title” and “body”; “id”, “author” and “date” are "
                   "ignored")
    assert ColumnChoice(label="y", ignore=("id",)).describe() == ("the labels are in “y”, the features in the "
                                                                  "other columns; “id” is ignored")


def test_a_column_name_is_text_not_markdown():
    got = ColumnChoice(label="**bold**", text=("[x](http://e.example)",)).describe()
    assert "**bold**" not in got and "](http" not in got
