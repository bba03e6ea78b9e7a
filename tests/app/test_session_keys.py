"""The session's keys (dashboard/ui/state.py): each declared once, with its default, and read by name."""
from __future__ import annotations

import re

from kit import ROOT


def test_each_session_key_is_declared_once_with_its_default():
    from dashboard.ui import state

    names = {k: v for k, v in vars(state).items() if k.isupper() and isinstance(v, str)}
    declared = set(state._DEFAULTS)
    assert declared == set(names.values()) - {state.LESSON}, (declared, names)
    assert state.UPLOAD_SERIAL in declared and state._DEFAULTS[state.UPLOAD_SERIAL] == 0


def test_the_lesson_run_key_is_one_name():
    from dashboard.lesson import session
    from dashboard.ui import state

    assert session.KEY == state.LESSON


def test_state_reads_no_session_key_as_a_literal():
    src = (ROOT / "dashboard" / "ui" / "state.py").read_text(encoding="utf-8")
    reads = re.findall(r"session_state(?:\.get\(|\[)\s*(['\"][^'\"]*['\"])", src)
    assert not reads, reads
