"""A file that is not a CSV gets the app's own message (what it looks like, how to save it as CSV), not the
browser's "application/octet-stream files are not allowed": the uploader takes in every file type. After a
refusal the uploader is a new, empty one, so it never goes on holding (or listing) the file it refused, and
the next file is taken as usual."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from kit.apptest import APP

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8
GOOD = b"text,label\nwin cash now,spam\nmeeting at noon,ham\ncheap cash prize,\nlunch meeting today,\n"


def test_a_binary_file_gets_the_apps_message_and_the_uploader_is_left_empty():
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    assert not at.exception
    up = at.file_uploader(key="uploader")
    assert list(up.proto.type) == []          # every file type is taken in: the app judges it, not the browser
    up.upload("notes.bin", PNG, "application/octet-stream").run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("Could not use “notes.bin”: this is not a text file" in e and "Save it as CSV" in e for e in errors), errors
    assert at.session_state["lesson"].cfg.dataset == "sms_spam"     # what the teacher had stays
    # the uploader drawn now is a new one, holding nothing
    assert [u.key for u in at.file_uploader] == ["uploader_1"]
    assert at.file_uploader(key="uploader_1").value is None
    # and the next file goes through it as usual
    at.file_uploader(key="uploader_1").upload("mail.csv", GOOD, "text/csv").run()
    assert not at.exception and not at.error
    assert at.session_state["lesson"].cfg.dataset == "upload"
    assert [u.key for u in at.file_uploader] == ["uploader_1"]      # a file taken in stays shown
