"""Documents table, confusion matrix and upload column choice (pure functions of the dashboard)."""
import numpy as np
import pytest

from dashboard.data.upload_columns import ColumnChoice, columns_frame, read_upload
from dashboard.lesson.panels.documents import confusion_frame, document_texts, documents_frame
from nbcore import get_model
from nbcore.data import DataError

P_PREV = np.array([[0.9, 0.1], [0.4, 0.6], [0.2, 0.8], [0.7, 0.3], [0.5, 0.5]])
P_NOW = np.array([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.45, 0.55], [0.52, 0.48]])
Y = np.array([0, 0, 1, 0, 1])
TEXTS = ["a", "b", "c", "d", "e"]


def test_documents_frame_columns_flips_and_orders():
    rows = np.array([1, 2, 3, 4])  # doc 0 is visible
    df = documents_frame(P_NOW, P_PREV, Y, rows, TEXTS, ["ham", "spam"], "least sure first")
    # confidence = max responsibility: doc1 .6, doc2 .9, doc3 .55, doc4 .52 -> 4, 3, 1, 2
    assert df["doc"].tolist() == [4, 3, 1, 2]
    by = df.set_index("doc")
    assert by.loc[1, "flipped"] == "spam → ham" and by.loc[3, "flipped"] == "ham → spam"
    assert by.loc[2, "flipped"] == "" and by.loc[4, "flipped"] == ""
    assert by.loc[4, "EM says"] == "ham" and by.loc[4, "true"] == "spam" and not by.loc[4, "correct"]
    assert by.loc[4, "r(true class)"] == pytest.approx(0.48)
    assert by.loc[1, "text"] == "b" and bool(by.loc[1, "correct"])
    flipped = documents_frame(P_NOW, P_PREV, Y, rows, TEXTS, ["ham", "spam"], "flipped first")
    assert flipped["doc"].tolist()[:2] == [3, 1]  # flipped ones, least sure first
    wrong = documents_frame(P_NOW, P_PREV, Y, rows, TEXTS, ["ham", "spam"], "wrong first")
    assert set(wrong["doc"].tolist()[:2]) == {3, 4}
    sure = documents_frame(P_NOW, None, Y, rows, TEXTS, ["ham", "spam"], "most sure first")
    assert sure["doc"].tolist() == [2, 1, 3, 4] and (sure["flipped"] == "").all()


def test_confusion_frame_rows_are_true_classes():
    cm = confusion_frame(np.array([0, 0, 1, 1, 1]), np.array([0, 1, 1, 1, 0]), ["ham", "spam"])
    assert cm.loc["true ham", "EM: ham"] == 1 and cm.loc["true ham", "EM: spam"] == 1
    assert cm.loc["true spam", "EM: spam"] == 2 and cm.loc["true spam", "EM: ham"] == 1
    assert cm.to_numpy().sum() == 5


def test_document_texts_for_word_tables():
    import nbcore
    ds = nbcore.load_dataset("toy_spam")
    t = document_texts(ds, ds.n_samples)
    assert t[0] == "{Cruise, Lottery, Win}" and t[3] == "{Win}"
    sms = nbcore.load_dataset("sms_spam")
    assert document_texts(sms, 3)[0].startswith("Go until jurong")


CSV = ("id,who,when,body,kind\n" + "\n".join(
    f"{i},user {i},2024-01-{i % 28 + 1:02d},{'win a free prize now call' if i % 3 == 0 else 'see you at lunch today ok'} {i},"
    f"{'spam' if i % 3 == 0 else ('ham' if i % 5 else '')}" for i in range(1, 41)) + "\n").encode()


def test_read_upload_guesses_then_applies_a_new_choice():
    ds, info, choice = read_upload(CSV)
    assert choice.label == "kind" and choice.text == ("body",) and set(choice.ignore) == {"id", "who", "when"}
    assert ds.is_text and ds.class_names == ["ham", "spam"] and (ds.y == -1).sum() > 0
    frame = columns_frame(info, choice)
    assert frame.set_index("column").loc["when", "used as"] == "ignored"
    # the teacher picks the text column as... the 'who' column instead (odd, but allowed)
    ds2, _, c2 = read_upload(CSV, ColumnChoice(label="kind", text=("who", "body")))
    assert ds2.texts[0].startswith("user 1\n") and c2.text == ("who", "body")
    with pytest.raises(DataError, match="both"):
        read_upload(CSV, ColumnChoice(label="kind", text=("kind",)))


def test_read_upload_headerless_and_no_label():
    data = b"ham,see you at lunch today\nspam,WIN a free prize call now\nham,ok on my way home\n" * 5
    ds, info, choice = read_upload(data)
    assert info["header"] is False and choice.label == "column 1" and ds.n_samples == 15
    with pytest.raises(DataError, match="No column looks like the labels"):
        read_upload(("title,body\n" + "\n".join(f"title number {i},the body of message {i} is here"
                                                  for i in range(30)) + "\n").encode())
    with pytest.raises(DataError, match="only one column"):
        read_upload(b"text\nhello there my friend\nanother line of text here\n")


def test_bernoulli_split_adds_up_to_the_class_likelihood():
    import scipy.sparse as sp
    X = np.array([[1, 0, 1], [0, 0, 0]], dtype=float)
    beta = np.array([[0.5, 0.2], [0.1, 0.4], [0.25, 0.5]])
    present, absent = get_model("bernoulli").log_likelihood_by_presence(sp.csr_matrix(X), {"beta": beta})
    # by hand, doc 0, class 0: present log .5 + log .25; absent log(1 - .1)
    assert present[0, 0] == pytest.approx(np.log(0.5) + np.log(0.25))
    assert absent[0, 0] == pytest.approx(np.log(0.9))
    assert present[1].tolist() == [0.0, 0.0]
    assert absent[1, 1] == pytest.approx(np.log(0.8) + np.log(0.6) + np.log(0.5))
    full = X @ np.log(beta) + (1 - X) @ np.log(1 - beta)
    np.testing.assert_allclose(present + absent, full)
    df = documents_frame(P_NOW[:2], None, Y[:2], np.array([0, 1]), TEXTS, ["ham", "spam"],
                         "document order", (present, absent))
    assert df["words absent spam:ham"].tolist() == pytest.approx([absent[0, 1] - absent[0, 0],
                                                                  absent[1, 1] - absent[1, 0]])


# ---- what the page draws costs the rows drawn, and is built once per iteration -----------------

@pytest.mark.parametrize("sort", ["least sure first", "most sure first", "flipped first", "wrong first",
                                  "document order"])
def test_documents_frame_limit_is_the_head_of_the_full_order(sort):
    rng = np.random.default_rng(3)
    n = 300
    p_now = rng.dirichlet([1, 1, 1], size=n)
    p_prev = rng.dirichlet([1, 1, 1], size=n)
    y = rng.integers(0, 3, size=n)
    y[::17] = -1  # a few rows without a true label
    rows = np.sort(rng.choice(n, size=200, replace=False))
    texts = [f"doc {i}" for i in range(n)]
    names = ["a", "b", "c"]
    full = documents_frame(p_now, p_prev, y, rows, texts, names, sort)
    head = documents_frame(p_now, p_prev, y, rows, texts, names, sort, limit=25)
    assert len(full) == 200 and len(head) == 25
    assert head.equals(full.head(25))
    assert documents_frame(p_now, p_prev, y, rows, texts, names, sort, limit=0).empty
    # the full order itself, checked against its definition (confidence = largest responsibility)
    conf = p_now[rows].max(axis=1)
    if sort == "least sure first":
        assert np.all(np.diff(full["confidence"].to_numpy()) >= 0)
        assert full["confidence"].tolist() == pytest.approx(sorted(conf))


def test_responsibility_histogram_spec_counts_and_is_a_valid_figure():
    import plotly.graph_objects as go

    from dashboard.charts.lesson import responsibility_histogram as responsibility_histogram_spec
    r1 = np.array([0.0, 0.01, 0.049, 0.05, 0.5, 0.97, 1.0])
    resp = np.column_stack([1 - r1, r1])
    spec = responsibility_histogram_spec(resp, ["ham", "spam"], 15)
    go.Figure(spec)  # every property valid (the server skips this check)
    assert len(spec["data"]) == 1 and spec["data"][0]["name"] == "r(· = spam)"
    counts = spec["data"][0]["y"]
    # bins of 0.05, right edge of the last bin closed: [0, .05) holds 0, .01, .049
    assert counts[0] == 3 and counts[1] == 1 and counts[10] == 1 and counts[19] == 2 and sum(counts) == 7
    three = responsibility_histogram_spec(np.full((4, 3), 1 / 3), ["a", "b", "c"], 15)
    assert [t["name"] for t in three["data"]] == ["r(· = a)", "r(· = b)", "r(· = c)"]
    assert all(sum(t["y"]) == 4 for t in three["data"])
