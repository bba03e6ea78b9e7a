"""The dashboard's limits are the dashboard's: every read of a user's file passes them to the
engine, which itself reads any size and keeps every term (tests/test_data.py)."""
import io

import pytest

import nbcore
from dashboard import limits, upload_columns, uploads


def _text_csv(n_words: int) -> bytes:
    rows = [" ".join(f"w{i}x{j}" for j in range(50)) + (",a" if i % 2 else ",b")
            for i in range(n_words // 50)]
    return ("text,label\n" + "\n".join(rows) + "\n").encode()


def test_an_upload_over_the_cap_is_refused_with_the_size_and_the_limit():
    big = b"text,label\n" + b"hello world again,a\nfree prize now,b\n" * (limits.UPLOAD_MAX_BYTES // 36 + 10)
    assert nbcore.read_csv(io.BytesIO(big)).n_samples > 0      # the engine alone reads it
    for read in (uploads.read_upload, upload_columns.read_upload):
        with pytest.raises(nbcore.DataError, match=r"over the 5\.0 MB limit for uploads"):
            read(big)


def test_an_uploaded_text_keeps_at_most_the_vocabulary_cap():
    data = _text_csv(limits.VOCABULARY_CAP + 5_000)
    for ds in (uploads.read_upload(data), upload_columns.read_upload(data)[0]):
        assert ds.X.shape[1] == limits.VOCABULARY_CAP
        assert ds.inferred["truncated"] and ds.pipeline.max_features is None
