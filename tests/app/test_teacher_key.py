"""The server's own teacher key (dashboard/class_link/teacher_key.py): made once, mode 600, the same for every
process on the store's folder, printed once per process, and the share key instead where one is set."""
from __future__ import annotations

import stat

from dashboard.class_link import teacher_key as TK


def test_the_key_is_made_once_private_and_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(TK, "_PRINTED", set())
    said = []
    key = TK.own_key(tmp_path / "store", say=said.append)
    path = tmp_path / "store" / TK.FILE
    assert len(key) >= 20 and path.read_text().strip() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(said) == 1 and key in said[0] and str(path) in said[0]
    assert TK.own_key(tmp_path / "store", say=said.append) == key     # the same key, not printed again
    assert len(said) == 1
    monkeypatch.setattr(TK, "_PRINTED", set())                          # another process: the same file
    assert TK.own_key(tmp_path / "store", say=said.append) == key
    path.unlink()                                                       # deleted: a new key
    assert TK.own_key(tmp_path / "store", say=said.append) != key


def test_the_share_key_is_the_teacher_key_where_one_is_set(tmp_path):
    assert TK.teacher_key("operator-key", env={"NBLAB_STORE_DIR": str(tmp_path)}) == "operator-key"
    assert not (tmp_path / TK.FILE).exists()
    own = TK.teacher_key(None, env={"NBLAB_STORE_DIR": str(tmp_path)})
    assert (tmp_path / TK.FILE).read_text().strip() == own
    assert TK.key_dir({"NBLAB_STORE_DIR": str(tmp_path)}) == tmp_path
    assert TK.key_dir({}, {"store_dir": str(tmp_path / "s")}) == tmp_path / "s"


def test_matches_is_exact_but_forgives_the_spaces_of_a_paste():
    assert TK.matches("  abc123  \n", "abc123")
    for typed in ("", None, "abc12", "abc1234", "ABC123", "abc 123"):
        assert not TK.matches(typed, "abc123"), typed
