"""The lesson view's panels, one module each.

Every panel module has a ``show(f)`` function that draws into the current Streamlit
container from a :class:`dashboard.lesson.frame.Frame` (the run at the iteration on
screen); ``views/lesson.py`` calls them in order. Adding a panel is one module here and
one call there (docs/extending.md).
"""
from __future__ import annotations


def memo_chart(where, key: str, memo_key: tuple, build) -> None:
    """A chart whose spec is built once per (run, memo_key): moving an unrelated widget
    (another parameters view, the maths pickers, an expander) reuses it."""
    from dashboard.charts import theme
    from dashboard.ui import state

    fig = state.memo((key,) + memo_key, lambda: theme.figure(build()))
    where.plotly_chart(fig, key=key, config={"displayModeBar": False})
