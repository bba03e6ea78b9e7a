"""The lesson view's panels, one module each.

Every panel module has a ``show(f)`` function that draws into the current Streamlit
container from a :class:`nblab.frame.Frame` (the run at the iteration on
screen); ``views/lesson.py`` calls them in order. Adding a panel is one module here and
one call there (docs/extending.md).
"""
from __future__ import annotations


def memo_chart(where, key: str, memo_key: tuple, build, *, name: str | None = None,
               summary: str | None = None) -> None:
    """A chart whose spec is built once per (run, memo_key): moving an unrelated widget
    (another parameters view, the maths pickers, an expander) reuses it. Drawn by
    ``figures.show_chart`` (accessible name, text summary, data as a table); without a ``name`` or
    ``summary`` of the caller's, both are read from the spec (its title and its numbers)."""
    from dashboard.charts import theme
    from dashboard.pagekit import figures
    from dashboard.ui import chart_names, state

    def made():
        spec = build()
        return theme.figure(spec), chart_names.figure_name(spec), chart_names.figure_summary(spec)

    fig, auto_name, auto_summary = state.memo((key,) + memo_key, made)
    figures.show_chart(where, fig, key=key, name=name or auto_name, summary=summary or auto_summary,
                       config={"displayModeBar": False})
