"""Tests for nbcore.data: shipped sets, read_csv, hide_labels, error messages.

Expected numbers come from the teaching notes (seeds 002, 003, 004) or are
counted by hand in the test, never taken from the code under test.
"""

import dataclasses
import io
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import nbcore
from nbcore.data import DataError, read_csv

SPAMBASE = Path(__file__).resolve().parents[3] / "shared/datasets/spambase/spambase.csv"


def F(x):
    return Fraction(x).limit_denominator(1000)


# --------------------------------------------------------------------------- shipped sets
def test_list_datasets_names_and_descriptions():
    names = nbcore.list_datasets()
    assert list(names) == ["toy_spam", "play_tennis", "abcd", "synthetic_spam", "digits",
                           "sms_spam", "udhr_langid", "spam_assassin"]
    assert all(isinstance(d, str) and d for d in names.values())


def test_toy_spam_matches_the_course_session_table():
    ds = nbcore.load_dataset("toy_spam")
    table = np.array([[1, 1, 1, 1], [1, 0, 1, 1], [0, 1, 0, 1],
                      [0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]])
    np.testing.assert_array_equal(ds.X, table[:, :3])
    np.testing.assert_array_equal(ds.y, table[:, 3])
    np.testing.assert_array_equal(ds.y_true, table[:, 3])
    assert ds.feature_names == ["Cruise", "Lottery", "Win"]
    assert ds.class_names == ["ham", "spam"] and ds.n_classes == 2
    assert ds.kind == "binary" and ds.models[0] == "bernoulli"
    assert ds.truth is None and ds.image_shape is None and ds.categories is None
    np.testing.assert_array_equal(ds.queries, [[1, 1, 0], [0, 0, 0]])


def test_toy_spam_hand_computed_probabilities():
    ds = nbcore.load_dataset("toy_spam")
    X, y = ds.X, ds.y
    prior = {k: F(np.mean(y == k)) for k in (0, 1)}
    cond = {k: [F(X[y == k, j].sum() / (y == k).sum()) for j in range(3)] for k in (0, 1)}
    # the course session: P(spam) = 1/2, P(Cruise|spam) = P(Lottery|spam) = P(Win|spam) = 2/3, ham 1/3
    assert prior == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert cond[1] == [Fraction(2, 3)] * 3
    assert cond[0] == [Fraction(1, 3)] * 3

    def score(q, k):
        s = prior[k]
        for j, x in enumerate(q):
            s *= cond[k][j] if x else 1 - cond[k][j]
        return s

    cruise_lottery, none = ds.queries
    assert score(cruise_lottery, 1) == Fraction(2, 27)
    assert score(cruise_lottery, 0) == Fraction(1, 27)
    assert score(none, 1) == Fraction(1, 54)
    assert score(none, 0) == Fraction(4, 27)


def test_play_tennis_counts_match_seed_002():
    ds = nbcore.load_dataset("play_tennis")
    assert ds.kind == "categorical" and ds.models == ("categorical",)
    assert ds.X.shape == (14, 4)
    assert ds.feature_names == ["Outlook", "Temperature", "Humidity", "Wind"]
    assert ds.class_names == ["No", "Yes"]
    assert ds.categories[0] == ["Sunny", "Overcast", "Rain"]
    assert sorted(ds.categories[3]) == ["Strong", "Weak"]
    # alpha = (5/14, 9/14)
    assert F(np.mean(ds.y == 0)) == Fraction(5, 14)
    assert F(np.mean(ds.y == 1)) == Fraction(9, 14)
    sunny = ds.categories[0].index("Sunny")
    no = ds.class_names.index("No")
    assert F(np.mean(ds.X[ds.y == no, 0] == sunny)) == Fraction(3, 5)
    # by hand from the table: Overcast never with No; Strong wind on 3 of 9 Yes days
    overcast = ds.categories[0].index("Overcast")
    assert np.sum((ds.X[:, 0] == overcast) & (ds.y == no)) == 0
    strong = ds.categories[3].index("Strong")
    assert F(np.mean(ds.X[ds.y == 1, 3] == strong)) == Fraction(3, 9)
    # day 1 is Sunny, Hot, High, Weak, No
    d1 = [ds.categories[j][c] for j, c in enumerate(ds.X[0])]
    assert d1 == ["Sunny", "Hot", "High", "Weak"] and ds.class_names[ds.y[0]] == "No"


def test_abcd_is_unlabelled_with_group_truth():
    ds = nbcore.load_dataset("abcd")
    docs = [["A", "B"], ["C", "D"], ["C", "D"], ["A", "B"], ["A", "B"]]
    expected = np.array([[w in d for w in "ABCD"] for d in docs], dtype=float)
    np.testing.assert_array_equal(ds.X, expected)
    assert ds.feature_names == ["A", "B", "C", "D"]
    np.testing.assert_array_equal(ds.y, [-1] * 5)
    np.testing.assert_array_equal(ds.y_true, [0, 1, 1, 0, 0])
    assert ds.n_classes == 2


def test_synthetic_spam_truth_and_file_come_from_the_generator():
    ds = nbcore.load_dataset("synthetic_spam")
    assert ds.X.shape == (600, 30) and ds.kind == "binary"
    assert ds.class_names == ["ham", "spam"]
    alpha, beta = ds.truth["alpha"], ds.truth["beta"]
    assert alpha.shape == (2,) and beta.shape == (30, 2)
    assert abs(alpha.sum() - 1) < 1e-12 and np.all((beta > 0) & (beta < 1))
    assert "free" in ds.feature_names and "meeting" in ds.feature_names
    from nbcore.data import _synthetic_spam_draw

    names, X, y = _synthetic_spam_draw()
    assert names == ds.feature_names
    np.testing.assert_array_equal(X, ds.X)
    np.testing.assert_array_equal(y, ds.y)
    # 600 rows: estimates are near the truth (sd of a proportion <= 0.032 per class)
    beta_hat = np.column_stack([ds.X[ds.y == k].mean(axis=0) for k in range(2)])
    assert np.abs(beta_hat - beta).max() < 0.13
    assert abs(np.mean(ds.y == 1) - alpha[1]) < 0.06


def test_digits_binarised():
    ds = nbcore.load_dataset("digits")
    assert ds.X.shape == (1797, 64) and ds.image_shape == (8, 8)
    assert set(np.unique(ds.X)) == {0.0, 1.0}
    assert ds.class_names == [str(d) for d in range(10)] and ds.n_classes == 10
    from sklearn.datasets import load_digits

    raw = load_digits()
    np.testing.assert_array_equal(ds.X, raw.data > 7)
    np.testing.assert_array_equal(ds.y, raw.target)


def test_dataset_is_frozen_and_for_model():
    ds = nbcore.load_dataset("toy_spam")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ds.y = None
    assert ds.for_model("bernoulli") is ds.X
    with pytest.raises(ValueError, match="Choose one of: bernoulli, multinomial"):
        ds.for_model("gaussian")
    with pytest.raises(ValueError, match="not built from text"):
        ds.transform("hello")


def test_unknown_dataset_lists_names():
    with pytest.raises(DataError, match="Choose one of: toy_spam, play_tennis"):
        nbcore.load_dataset("iris")


def test_missing_datasets_folder_is_explained(monkeypatch, tmp_path):
    monkeypatch.setenv("NBCORE_DATASETS", str(tmp_path / "nowhere"))
    with pytest.raises(DataError, match="pip install -e"):
        nbcore.load_dataset("toy_spam")
    assert nbcore.load_dataset("digits").X.shape == (1797, 64)


# --------------------------------------------------------------------------- read_csv
def test_spambase():
    if not SPAMBASE.is_file():
        pytest.skip("shared Spambase CSV not present")
    ds = read_csv(SPAMBASE, label_column="spam")
    assert ds.X.shape == (4601, 57) and ds.kind == "continuous"
    assert ds.models == ("gaussian", "bernoulli")
    assert ds.class_names == ["0", "1"]
    assert np.bincount(ds.y).tolist() == [2788, 1813]  # from the data's README
    assert ds.feature_names[0] == "word_freq_make"
    assert ds.inferred["delimiter"] == "," and ds.inferred["header"] is True
    assert ds.inferred["n_rows"] == 4601
    Xb = ds.for_model("bernoulli")
    np.testing.assert_array_equal(Xb, ds.X > 0)
    dsb = read_csv(SPAMBASE, label_column="spam", binarize=True)
    assert dsb.kind == "binary" and dsb.inferred["binarized"] is True
    np.testing.assert_array_equal(dsb.X, Xb)


TEXT_CSV = (
    "message,label\n"
    "Win a FREE cruise now,spam\n"
    "Meeting moved to noon,ham\n"
    "free lottery win win,\n"
    '"Lunch, then the meeting",ham\n'
    "claim your free prize,spam\n"
    "see you at lunch,\n"
)


def test_text_csv_with_blank_labels(tmp_path):
    path = tmp_path / "msgs.csv"
    path.write_text(TEXT_CSV, encoding="utf-8")
    ds = read_csv(path, text_column="message")
    assert sp.isspmatrix_csr(ds.X) or sp.issparse(ds.X)
    assert ds.kind == "binary" and ds.models[0] == "bernoulli"
    assert ds.class_names == ["ham", "spam"]
    np.testing.assert_array_equal(ds.y, [1, 0, -1, 0, 1, -1])
    assert ds.inferred["n_labelled"] == 4 and ds.inferred["n_unlabelled"] == 2
    assert ds.inferred["text_column"] == "message" and ds.inferred["encoding"] == "utf-8"
    # binary: "win" appears twice in row 2 but counts once
    row2 = ds.X[2].toarray().ravel()
    assert row2[ds.feature_names.index("win")] == 1
    assert row2.sum() == 3  # free, lottery, win
    # the same file, auto-detected text column, from bytes
    auto = read_csv(path.read_bytes())
    assert auto.feature_names == ds.feature_names


def test_typed_message_scored_with_stored_vocabulary():
    ds = read_csv(TEXT_CSV.encode(), text_column="message")
    Xq = ds.transform("FREE prize at the meeting, unknownword")
    assert Xq.shape == (1, len(ds.feature_names))
    on = {ds.feature_names[j] for j in Xq.nonzero()[1]}
    assert on == {"free", "prize", "at", "the", "meeting"}
    assert ds.transform(["a", "b c"]).shape[0] == 2


def test_counts_bigrams_char_and_stop_words():
    counts = read_csv(TEXT_CSV.encode(), binary=False)
    assert counts.kind == "counts" and counts.models[0] == "multinomial"
    assert counts.X[2].toarray().ravel()[counts.feature_names.index("win")] == 2
    big = read_csv(TEXT_CSV.encode(), ngram_range=(1, 2))
    assert "free cruise" in big.feature_names and "free" in big.feature_names
    ch = read_csv(TEXT_CSV.encode(), analyzer="char", ngram_range=(3, 3))
    assert "fre" in ch.feature_names
    sw = read_csv(TEXT_CSV.encode(), stop_words="english")
    assert "the" not in sw.feature_names and "free" in sw.feature_names
    md = read_csv(TEXT_CSV.encode(), min_df=2)
    assert set(md.feature_names) == {"free", "lunch", "meeting", "win"}


def test_vocabulary_cap_is_reported():
    full = read_csv(TEXT_CSV.encode())
    assert full.inferred["truncated"] is False and full.pipeline.max_features is None
    ds = read_csv(TEXT_CSV.encode(), cap=3)
    assert len(ds.feature_names) == 3
    assert ds.inferred["truncated"] is True
    assert ds.inferred["vocabulary_size_before_cap"] == len(full.feature_names) > 3
    assert ds.pipeline.max_features is None          # the cap is the caller's, not the pipeline's
    freq = np.asarray(full.X.sum(0)).ravel()         # the 3 most frequent terms are the ones kept
    top = {full.feature_names[j] for j in np.argsort(-freq, kind="stable")[:3]}
    assert set(ds.feature_names) == top


def test_the_library_reads_a_file_of_any_size_and_keeps_every_term(tmp_path):
    """No dashboard limit inside the engine: an 11 MB corpus with 30,000 distinct words reads
    whole from Python (the dashboard passes its own caps, tests/app/test_server_limits.py)."""
    words = [f"w{i}" for i in range(30_000)]
    rows = [" ".join(words[i:i + 30]) + ",a" if i % 2 else " ".join(words[i:i + 30]) + ",b"
            for i in range(0, 30_000, 3)]
    body = ("text,label\n" + "\n".join(rows) + "\n").encode()
    path = tmp_path / "big.csv"
    reps = 11 * 1024 * 1024 // len(body) + 1
    path.write_bytes(b"text,label\n" + body.split(b"\n", 1)[1] * reps)
    assert path.stat().st_size > 11 * 1024 * 1024
    ds = read_csv(path)
    assert ds.n_samples == len(rows) * reps
    assert len(ds.feature_names) == 30_000 and ds.inferred["truncated"] is False


def test_uploaded_file_like_with_name():
    class UploadedFile(io.BytesIO):
        name = "class_emails.csv"

    f = UploadedFile(TEXT_CSV.encode())
    f.read(5)  # a half-read upload is rewound
    ds = read_csv(f)
    assert ds.name == "class_emails.csv" and ds.X.shape[0] == 6


def test_delimiters_encodings_and_headerless():
    semi = "a;b;label\n1;0;x\n0;1;y\n".encode("utf-8-sig")
    ds = read_csv(semi)
    assert ds.inferred["delimiter"] == ";" and ds.inferred["encoding"] == "utf-8-sig"
    assert ds.kind == "binary" and ds.feature_names == ["a", "b"]
    tab = "x\ty\tlabel\n1.5\t2\tA\n0.5\t-1\tB\n"
    ds = read_csv(tab.encode())
    assert ds.inferred["delimiter"] == "\t" and ds.kind == "continuous"
    np.testing.assert_array_equal(ds.X, [[1.5, 2], [0.5, -1]])
    latin = "texte,label\ncafé crème gratuit,spam\nréunion à midi,ham\n".encode("latin-1")
    ds = read_csv(latin)
    assert ds.inferred["encoding"] == "latin-1" and "café" in ds.feature_names
    windows = "text,label\n\u201cfree\u201d \u20ac5 now,spam\nsee you,ham\n".encode("cp1252")
    ds = read_csv(windows)
    assert ds.inferred["encoding"] == "cp1252" and "free" in ds.feature_names
    ds = read_csv(b"a,b,label\n1,0,x\n,,\n0,1,y\n")  # a row of only commas is skipped
    assert ds.X.shape == (2, 2)
    nohead = b"1.0,2.0,0\n3.0,4.0,1\n5.0,6.0,1\n"
    ds = read_csv(nohead, label_column=-1)
    assert ds.inferred["header"] is False
    np.testing.assert_array_equal(ds.y, [0, 1, 1])
    assert ds.X.shape == (3, 2)


def test_utf16_delimiter_from_column_names_and_pickle():
    ds = read_csv("a\tlabel\n1\tx\n2\ty\n".encode("utf-16"))
    assert ds.inferred["encoding"] == "utf-16" and ds.inferred["delimiter"] == "\t"
    np.testing.assert_array_equal(ds.X, [[1], [2]])
    semis = b'text,label\n"a;b;c;d",x\n"e;f;g",y\n"h;i;j;k",x\n'
    ds = read_csv(semis, text_column="text")
    assert ds.inferred["delimiter"] == "," and ds.feature_names[:2] == ["a", "b"]
    import pickle  # streamlit's cache pickles datasets

    again = pickle.loads(pickle.dumps(ds))
    assert again.transform("a z").nnz == 1


def test_label_values_sorted_numerically_and_categorical_table():
    ds = read_csv(b"f,label\n1.5,10\n2.5,2\n3.5,2\n")
    assert ds.class_names == ["2", "10"]
    np.testing.assert_array_equal(ds.y, [1, 0, 0])
    cat = read_csv(b"colour,size,label\nred,big,yes\nblue,small,no\nred,small,yes\n")
    assert cat.kind == "categorical" and cat.models == ("categorical",)
    assert cat.categories == [["blue", "red"], ["big", "small"]]
    np.testing.assert_array_equal(cat.X, [[1, 0], [0, 1], [1, 1]])


def test_formula_cells_are_plain_text():
    data = (
        "msg,label\n"
        "\"=cmd|' /C calc'!A0\",spam\n"
        "=HYPERLINK(\"http://x\"),ham\n"
        "+1+2 hello,ham\n"
    ).encode()
    ds = read_csv(data, text_column="msg")
    assert {"cmd", "calc", "hyperlink", "hello"} <= set(ds.feature_names)
    cat = read_csv(b"f,label\n=1+1,=SUM(A1)\n@x,b\n=1+1,b\n")
    assert cat.categories == [["=1+1", "@x"]]
    assert cat.class_names == ["=SUM(A1)", "b"]


# --------------------------------------------------------------------------- error messages
def _err(data, **kw):
    with pytest.raises(DataError) as info:
        read_csv(data, **kw)
    msg = str(info.value)
    assert "Traceback" not in msg and " object at 0x" not in msg
    assert "Fix:" in msg or "Choose" in msg or "must" in msg
    return msg


def test_error_empty_file():
    assert "empty" in _err(b"")
    assert "empty" in _err(b"  \n\n ")


def test_error_header_only():
    msg = _err(b"text,label\n")
    assert "only a header row" in msg and "text, label" in msg


def test_error_missing_label_column_lists_columns():
    msg = _err(b"a,b,c\n1,2,3\n4,5,6\n", label_column="spam")
    assert "No label column called 'spam'" in msg and "'a', 'b', 'c'" in msg
    msg = _err(TEXT_CSV.encode(), text_column="body")
    assert "No text column called 'body'" in msg and "'message', 'label'" in msg


def test_error_single_class_and_all_blank():
    assert "only one class" in _err(b"x,label\n1,a\n2,a\n3,\n")
    assert "blank" in _err(b"x,label\n1,\n2,\n")


def test_error_binary_garbage():
    assert "binary file" in _err(b"PK\x03\x04\x00\x00garbage\x00")
    noisy = bytes(range(1, 32)) * 20 + b"\xff\xfe" * 50
    assert "binary file" in _err(noisy)
    assert "binary file" in _err(bytes(range(1, 32)) * 20)  # valid ASCII, still not text


def test_error_ragged_rows_say_which_line():
    msg = _err(b"a,b,label\n1,2,x\n1,2,3,y\n")
    assert "Line 3 has 4 values" in msg and "3 columns" in msg


def test_error_non_numeric_value_names_column_and_line():
    msg = _err(b"height,weight,label\n1.0,2.0,a\n1.5,heavy,b\n2.0,3.0,a\n")
    assert "Column 'weight'" in msg and "line 3" in msg and "'heavy'" in msg
    msg = _err(b"h,label\n1,a\n,b\n2,a\n")
    assert "empty cell on line 3" in msg


@pytest.mark.parametrize("bad", ["nan", "inf", "-Infinity"])
def test_error_nan_and_inf(bad):
    msg = _err(f"x,label\n1.0,a\n{bad},b\n2,a\n".encode())
    assert "NaN and infinity" in msg and "line 3" in msg and "'x'" in msg


def test_error_empty_vocabulary():
    stop = b"text,label\nthe and of,a\nit is the,b\n"
    assert "No words are left" in _err(stop, text_column="text", stop_words="english")
    assert "min_df" in _err(TEXT_CSV.encode(), min_df=50)


def test_error_file_too_big(tmp_path):
    big = b"text,label\n" + b"hello world,a\nfree prize,b\n" * 50
    msg = _err(big, max_bytes=500)
    assert "over the" in msg and "limit" in msg
    path = tmp_path / "big.csv"
    path.write_bytes(big)
    assert "limit" in _err(path, max_bytes=500)
    assert "limit" in _err(io.BytesIO(big), max_bytes=500)
    assert "500 bytes limit" in _err(big, max_bytes=500)
    assert read_csv(big).n_samples == 100            # no limit unless the caller passes one


def test_error_bad_inputs():
    assert "binary mode" in _err(io.StringIO("a,label\n1,x\n"))
    assert "No file was found" in _err("/no/such/file.csv")
    assert "analyzer" in _err(TEXT_CSV.encode(), analyzer="sentence")


# --------------------------------------------------------------------------- hide_labels
def test_hide_labels_fraction_and_stratification():
    y = np.array([0] * 60 + [1] * 40)
    y_obs, hidden = nbcore.hide_labels(y, 0.5, random_state=0)
    assert hidden.dtype == bool and hidden.shape == y.shape
    assert hidden.sum() == 50
    assert hidden[y == 0].sum() == 30 and hidden[y == 1].sum() == 20
    np.testing.assert_array_equal(y_obs[hidden], -1)
    np.testing.assert_array_equal(y_obs[~hidden], y[~hidden])
    assert y.tolist() == [0] * 60 + [1] * 40  # input untouched


def test_hide_labels_keeps_one_per_class_and_extremes():
    y = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2])
    y_obs, hidden = nbcore.hide_labels(y, 0.99, random_state=3)
    for k in (0, 1, 2):
        assert np.sum(y_obs == k) >= 1
    y_obs, hidden = nbcore.hide_labels(y, 0.0, random_state=3)
    assert not hidden.any() and np.array_equal(y_obs, y)
    y_obs, hidden = nbcore.hide_labels(y, 1.0, random_state=3)
    assert hidden.all() and np.all(y_obs == -1)
    with pytest.raises(ValueError, match="between 0 and 1"):
        nbcore.hide_labels(y, 1.5)


def test_hide_labels_deterministic_and_already_unlabelled():
    y = np.array([0, 1, -1, 0, 1, -1, 0, 1, 0, 1])
    a = nbcore.hide_labels(y, 0.5, random_state=11)
    b = nbcore.hide_labels(y, 0.5, random_state=11)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    y_obs, hidden = a
    assert not hidden[2] and not hidden[5] and y_obs[2] == -1 and y_obs[5] == -1
    assert hidden.sum() == 4  # half of the 8 known labels
    draws = {tuple(nbcore.hide_labels(y, 0.5, random_state=s)[1]) for s in range(10)}
    assert len(draws) > 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-1, 3), min_size=1, max_size=60),
       st.floats(0, 1), st.integers(0, 2**16))
def test_hide_labels_properties(labels, fraction, seed):
    y = np.array(labels)
    y_obs, hidden = nbcore.hide_labels(y, fraction, random_state=seed)
    known = y >= 0
    assert not np.any(hidden & ~known)
    assert np.all(y_obs[~hidden] == y[~hidden]) and np.all(y_obs[hidden] == -1)
    if fraction < 1:
        for k in np.unique(y[known]):
            assert np.sum(y_obs == k) >= 1
    else:
        assert hidden.sum() == known.sum()
    # per class, close to the requested fraction
    for k in np.unique(y[known]):
        n_k = np.sum(y == k)
        assert abs(hidden[y == k].sum() - fraction * n_k) <= 1.0 + 1e-9


def test_a_quoted_cell_over_128_kb_is_read_whole():
    """The csv module's default field limit is 131,072 characters; a long document in one quoted
    cell is data (the old message blamed unbalanced quotes)."""
    long_text = "word " * 40_000                                  # 200,000 characters
    data = f'text,label\n"{long_text}",spam\n"short note",ham\n'.encode()
    ds = read_csv(data)
    assert ds.texts[0] == long_text and ds.n_samples == 2


@pytest.mark.parametrize("enc", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_read_as_text(enc):
    data = "text,label\nfree prize now,spam\nsee you at lunch,ham\nwin cash,spam\n".encode(enc)
    assert not data.startswith((b"\xff\xfe", b"\xfe\xff"))
    ds = read_csv(data)
    assert ds.n_samples == 3 and ds.inferred["encoding"] == enc
    assert list(ds.class_names) == ["ham", "spam"]


def test_binary_with_nul_bytes_is_still_refused_as_binary():
    assert "binary file" in _err(bytes(range(256)) * 40)
