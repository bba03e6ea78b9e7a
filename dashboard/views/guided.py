"""Guided lessons: ready scenarios, each a link that carries its settings in the URL."""
from __future__ import annotations

import streamlit as st

from dashboard import pages
from dashboard.lesson import guided as lessons
from dashboard.pagekit import page_kit

SUBTITLE = (f"{len(lessons.LESSONS)} ready-made scenarios. Each link opens a view with its settings already in the "
            "URL (so you can bookmark or share it) and the lesson's narrative beside the controls.")


def main() -> None:
    page_kit.page_setup(pages.GUIDED, SUBTITLE)
    for lesson in lessons.LESSONS:
        lesson_card(lesson)


def lesson_card(lesson) -> None:
    """One lesson: its title, narrative and link beside what to try and its settings."""
    with st.container(border=True):
        left, right = st.columns([3, 2])
        with left:
            st.markdown(f"### {lesson.title}")
            st.markdown(lesson.narrative)
            lessons.link(st, lesson.page, f"Open: {lesson.title.split('·', 1)[-1].strip()}", ":material/play_circle:",
                         lessons.link_params(lesson))
        with right:
            if lesson.try_this:
                st.markdown("**Try this:**\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(lesson.try_this, 1)))
            st.caption("Settings: " + ", ".join(f"`{k}={v if isinstance(v, str) else '–'.join(v)}`"
                                                for k, v in lesson.params.items()))


main()
