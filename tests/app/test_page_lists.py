"""Every list of the app's pages outside the code follows the page registry, dashboard/pages.py:
the screenshots (scripts/screenshot_views.py) visit every page, and the README names every page."""
from __future__ import annotations

import importlib.util
import re

from kit import ROOT


def _screenshot_views():
    spec = importlib.util.spec_from_file_location("screenshot_views", ROOT / "scripts" / "screenshot_views.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_screenshots_visit_every_page_of_the_registry():
    from dashboard import pages

    shots = _screenshot_views()
    visited = {shots.page_of(path) for _, path, _, _ in shots.views()}
    assert visited == set(pages.PAGES), sorted(p.title for p in set(pages.PAGES) - visited)
    names = [v[0] for v in shots.views()]
    assert len(names) == len(set(names))   # one file per picture


def test_a_scene_names_a_page_of_the_registry():
    shots = _screenshot_views()
    for _, path, _, _ in shots.SCENES:
        shots.page_of(path)   # StopIteration: a page that is not in dashboard/pages.py


def test_the_readme_names_every_page():
    from dashboard import pages

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("Other views in the sidebar:")
    listed = re.sub(r"\s+", " ", readme[start:readme.index("\n\n", start)]).lower()   # that paragraph
    missing = [p.title for p in pages.PAGES if not p.default and p.title.lower() not in listed]
    assert not missing, missing
