"""The session's keys (dashboard/ui/state.py): each declared once, with its default, and read by name."""
from __future__ import annotations

import re

from kit import ROOT
from kit.apptest import APP


def test_each_session_key_is_declared_once_with_its_default():
    from dashboard.ui import state

    names = {k: v for k, v in vars(state).items() if k.isupper() and isinstance(v, str)}
    declared = set(state._DEFAULTS)
    assert declared == set(names.values()) - {state.LESSON}, (declared, names)
    assert state.UPLOAD_SERIAL in declared and state._DEFAULTS[state.UPLOAD_SERIAL] == 0


def test_the_lesson_run_is_one_object_under_its_one_key():
    """After the lesson's first run, the session holds one LessonRun, under state.LESSON, and it is the run
    the page drew (its iteration is the metrics row's)."""
    from streamlit.testing.v1 import AppTest

    from dashboard.ui import state
    from nblab.lesson_run import LessonRun

    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    runs = [k for k in at.session_state if isinstance(at.session_state[k], LessonRun)]
    assert runs == [state.LESSON], runs
    at.button(key="step").click().run()
    assert at.session_state[state.LESSON].run.current.iteration == 1
    assert next(m.value for m in at.metric if m.label.startswith("Iteration")) == "1"


def test_state_reads_no_session_key_as_a_literal():
    src = (ROOT / "dashboard" / "ui" / "state.py").read_text(encoding="utf-8")
    reads = re.findall(r"session_state(?:\.get\(|\[)\s*(['\"][^'\"]*['\"])", src)
    assert not reads, reads
