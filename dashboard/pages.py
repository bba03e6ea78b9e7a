"""The page registry: every page of the app, listed once.

``app.py`` builds the navigation from :data:`PAGES`; every link (``st.page_link``,
``st.switch_page``, the guided lessons) and every page header uses the same entries.

How to add a page: write ``dashboard/views/<name>.py`` as a ``main()`` that reads top to bottom (its
first line ``page = page_kit.page_setup(pages.<NAME>, "one-line subtitle")``, which returns the page
context: ``page.classroom``, ``page.fs``; its state, if any, one object from dashboard/ui/page_state.py)
and a last line that calls ``main()``; add one ``Page`` below (``charts=True`` if it draws plotly charts
when it opens) and append it to :data:`PAGES`. Links to it use ``pages.<NAME>.path``, and their query parameters go
through :func:`dashboard.ui.controls.carry`, which adds the page context every link keeps (classroom mode).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Page:
    """One page of the app.

    ``path`` is relative to ``dashboard/`` (the entry script's folder): the form
    ``st.page_link``, ``st.switch_page`` and ``AppTest.switch_page`` take. ``charts``: the page draws
    plotly charts when it opens (its HTML then starts loading plotly.js at once: dashboard/serve/early.py)."""
    path: str
    title: str
    icon: str
    default: bool = False
    charts: bool = False

    @property
    def url_path(self) -> str:
        """The page's URL path under the app's root, as st.navigation gives it: "" for the default page,
        else the file's stem."""
        return "" if self.default else Path(self.path).stem

    @property
    def heading(self) -> str:
        """Page title with its icon, as shown at the top of the page."""
        return f"{self.icon} {self.title}"


LESSON = Page("views/lesson.py", "Watch EM learn", ":material/monitoring:", default=True, charts=True)
GUIDED = Page("views/guided.py", "Guided lessons", ":material/school:")
INSPECTOR = Page("views/inspector.py", "Posterior inspector", ":material/search:", charts=True)
SMOOTHING = Page("views/smoothing.py", "Smoothing explorer", ":material/tune:", charts=True)
TRAP = Page("views/trap.py", "The symmetric trap", ":material/balance:", charts=True)
RESTARTS = Page("views/restarts.py", "Restarts & local optima", ":material/landscape:")
SWITCHING = Page("views/switching.py", "Label switching", ":material/swap_horiz:", charts=True)
BUDGET = Page("views/budget.py", "Label-budget curve", ":material/stacked_line_chart:")
SIDE_BY_SIDE = Page("views/side_by_side.py", "Side by side", ":material/compare:", charts=True)
SAMPLING = Page("views/sampling.py", "Sampling from the model", ":material/casino:")
GAUSSIAN = Page("views/gaussian.py", "Gaussian NB corner", ":material/ssid_chart:", charts=True)
# teaching depth II
COIN = Page("views/coin.py", "The coin and the prior", ":material/toll:", charts=True)
MIXTURE2D = Page("views/mixture2d.py", "The 2-D picture", ":material/scatter_plot:", charts=True)
CLIMB = Page("views/climb.py", "Why EM climbs", ":material/trending_up:", charts=True)
COMPONENTS = Page("views/components.py", "Components per class", ":material/workspaces:")
# event models on real text
EVENT_MODELS = Page("views/event_models.py", "Event models side by side", ":material/text_compare:", charts=True)
VOCABULARY = Page("views/vocabulary.py", "Vocabulary curve", ":material/format_size:")

#: Navigation order.
PAGES: tuple[Page, ...] = (LESSON, GUIDED, INSPECTOR, SMOOTHING, TRAP, RESTARTS, SWITCHING, BUDGET,
                           SIDE_BY_SIDE, SAMPLING, GAUSSIAN, COIN, MIXTURE2D, CLIMB, COMPONENTS, EVENT_MODELS,
                           VOCABULARY)


def navigation() -> list:
    """``st.Page`` objects for ``st.navigation`` (imports Streamlit only when called: the catalogue itself is
    read without it, by the URL table and its parser)."""
    import streamlit as st

    return [st.Page(HERE / p.path, title=p.title, icon=p.icon, default=p.default) for p in PAGES]
