"""The test kit: what the test modules share, so that no test module imports another.

- :mod:`kit.server`  a real ``streamlit run`` on a free port (``streamlit_server``);
- :mod:`kit.apptest` Streamlit's AppTest: open a page, read its metrics, texts and chart specs;
- :mod:`kit.browser` Playwright driving Debian's Chromium: flags, the skip-or-fail guard, waits on state;
- :mod:`kit.deploy`, :mod:`kit.pg`, :mod:`kit.recipe`, :mod:`kit.data`: the deployment, a throwaway
  PostgreSQL (and one a test may stop, start and freeze), docs/extending.md's recipes, data sets built by
  hand for several folders' tests;
- :mod:`kit.lab_page`, :mod:`kit.class_server`: the lab page opened in Chromium with nbcore's numbers for
  it, and the class link's URLs served from a folder;
- :mod:`kit.hostile`, :mod:`kit.problems`: hostile upload files, and the small EM problems hypothesis draws.

``tests/`` is on ``sys.path`` (pytest puts the directory of the root ``conftest.py`` there), so a test
imports ``from kit import ROOT`` or ``from kit.apptest import open_page``.
"""
from __future__ import annotations

import sys
from pathlib import Path

#: the checkout's root (the folder with nbcore/, nblab/, dashboard/)
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from loadtest.server import free_port  # noqa: E402  (one helper for the tests, the scripts and the load test)

__all__ = ["ROOT", "free_port"]
