"""Lesson page: watch EM learn from partly labelled data.

The sidebar and the run's life cycle run on every full rerun; everything that changes
while EM runs is drawn by :func:`live`, a fragment that reruns on its own while playing.
The panels are in dashboard/lesson/panels/, one module each; the run's changes go through
the session's LessonRun (nblab/lesson_run.py).
"""
from __future__ import annotations

import streamlit as st

from dashboard.data import datasets, uploads
from dashboard.lesson import guided, metrics, player, program, run_guard, session, sharing, specs
from dashboard.lesson.panels import (
    class_emptied,
    class_link,
    climb,
    documents,
    download,
    em_drift,
    exports,
    half_steps,
    history,
    maths,
    metrics_row,
    model_advice,
    notices,
    parameters,
    responsibilities,
    run_controls,
    stop_rules,
)
from dashboard.pagekit import page_kit
from dashboard.ui import controls, state, text_controls
from dashboard.ui.controls import Settings
from nblab import numbers
from nblab.frame import Frame


def sidebar(classroom: bool) -> tuple[Settings, tuple[bool, str] | None]:
    """Lesson narrative, upload and data controls. Returns (settings, upload result or None)."""
    upload_result = uploads.process_pending_upload()  # before the widgets: may select the upload
    names, descriptions = datasets.dataset_names()
    settings = controls.data_controls(names, descriptions, state.get(state.UPLOAD_NAME), datasets.models_for,
                                      classroom, shared_name=state.get(state.SHARED_NAME))
    sharing.source_note(settings.data.dataset)
    settings = text_controls.apply(settings, datasets.default_pipeline(settings.data.dataset),
                                   state.get(state.UPLOAD_SERIAL), expanded=not classroom)
    text_controls.known_truth_button(settings.data.dataset)
    controls.upload_control(uploads.on_upload_change, uploads.max_upload_words())
    if state.get(state.UPLOAD_ERROR):  # stays next to the uploader until the next file
        st.sidebar.error(state.get(state.UPLOAD_ERROR))
    elif upload_result:
        st.sidebar.success(upload_result[1])
    with st.sidebar:
        sharing.share_panel()
        class_link.sidebar_panel()  # "Open for the class": a link and a QR code the class follows
    return settings, upload_result


def header(page: page_kit.PageContext, upload_result: tuple[bool, str] | None) -> None:
    """Title and the messages of a failed upload or run build; stops the page if there is no run."""
    page_kit.page_header(controls._("Watch EM learn") if page.classroom else controls._("Naive Bayes + EM: watch EM learn"),
                         None, page)
    guided.narrative_panel(page.classroom)  # guided lessons 1 and 2 open this view with ?lesson=<id>
    if upload_result and not upload_result[0]:  # in the main area once, right after the upload
        st.error(controls._("{message} — the previous data set and run are unchanged.", message=upload_result[1]))
    lr = session.lesson()
    if lr.error:
        st.error(f"Can't start a run with these settings: {lr.error}"
                 + (" The previous run is still shown." if lr.run is not None else ""))
    uploads.columns_panel()  # an upload's columns, the roles guessed for them, and a way to change them
    if lr.run is None:
        st.info("Pick a data set in the sidebar to start.")
        st.stop()


def current_frame(classroom: bool) -> Frame:
    """The session's run at the iteration on screen."""
    lr = session.lesson()
    use_player = player.enabled()
    acc = metrics.accuracy_series(lr.run, lr.prep, lr.serial)
    ref = metrics.reference(lr.run, lr.cfg, lr.prep)
    base = None
    if ref is not None:  # each iteration carries the best baseline of its λ segment: the pill compares like with like
        acc = numbers.with_refs(acc, ref.refs(len(acc)))
        best = ref.best(lr.latest)
        base = None if best is None else best[1]
    return Frame(run=lr.run, prep=lr.prep, cfg=lr.cfg, smoothing=lr.smoothing, t=session.on_screen(), latest=lr.latest,
                 view_t=lr.view_t, acc=acc, base=base, classroom=classroom,
                 fs=22 if classroom else 15, player=use_player,
                 playing=lr.playing or (use_player and player.playing()), serial=lr.serial, ref=ref)


def live(speed: str, classroom: bool) -> None:
    """Everything that changes while EM runs. Runs as a fragment, with run_every while playing."""
    lr = session.lesson()
    if lr.app_rerun:
        lr.app_rerun = False
        st.rerun(scope="app")
    stop_rules.apply()  # the course session's ‖Δθ‖² rule
    top = st.container()  # messages come and go inside it; the panels after it keep their place
    with top:
        session.advance(speed)
    t = session.on_screen()  # what the URL, the share link and the class read (the panels: f.t, the same)
    session.remember_iteration(t)
    if sharing.link_behind(t) and not (lr.playing or player.playing()):
        st.rerun(scope="app")  # the sidebar's share link names another iteration: redraw it (sharer only)
    class_link.publish()  # the class following this lesson sees what is on screen now
    f = current_frame(classroom)
    with top:
        notices.show(f)
        class_emptied.show(f)
        if not f.playing:
            model_advice.show(f)  # the teacher's own text: which event model suits it
    if not classroom:
        metrics_row.show(f)
    run_controls.show(f)
    half_steps.show(f)  # E-step / M-step buttons, shortcuts
    # next to the charts, under the buttons: a warning that appears after a Step never moves Step itself
    em_drift.show(f)  # α far from the labelled share, EM below the best supervised baseline
    truth_slot = history.show(f)
    if classroom:  # a projector shows the controls and the charts on one screen first, the big numbers next
        metrics_row.show(f)
    view, prev_view = parameters.views(f)
    parameters.show(f, view, prev_view, truth_slot)
    responsibilities.show(f)  # every document's responsibility
    if not f.player:  # the server draws everything: the panels below follow in the same run
        lower_panels(f, view)


def lower_panels(f: Frame, view) -> None:
    """The panels below the charts: the stop rules' numbers, the lower bound, the documents, the maths,
    the exports and the offline file."""
    if f.playing:  # keep Play ticks light; the numbers come back on Pause
        st.caption("The maths panel and the exports are back when you press Pause.")
        return
    stop_rules.show(f)  # both stop rules' numbers
    climb.show(f)  # the lower bound at this iteration
    documents.show(f)  # raw text, responsibilities, flips
    maths.show(f)
    exports.show(f, view)
    download.show(f)  # the lesson as one offline HTML file


def lower(classroom: bool) -> None:
    """With the browser player, the panels below the charts are a fragment of their own, drawn when they
    are in view: the browser asks for them (dashboard/lesson/player, trigger ``refresh``) when it scrolls
    to them or when they show another iteration than the charts. A Step, a drag or Play with the panels
    out of view reruns the charts' fragment only."""
    lr = session.lesson()
    if lr.run is None:
        return
    f = current_frame(classroom)
    with st.container(key=player.LOWER_FRAGMENT_KEY):
        drawn = player.lower_key(f) if player.lower_wanted() and not f.playing else None
        player.show_lower(st.container(), drawn)
        if drawn is None and not f.playing:
            st.caption("The documents, the maths and the exports of this iteration appear here when you "
                       "scroll to them.")
        else:  # while playing it says they are back on Pause
            lower_panels(f, specs.param_view(f.run, f.cfg.model, f.prep, f.t))


def program_view(speed: str, classroom: bool) -> None:
    """The lesson program (dashboard/lesson/program.py); the class following this lesson sees what it shows."""
    program.show(speed, classroom)
    class_link.publish()


def main() -> None:
    """The sidebar, the run's settings, the header, then the live fragment (and the lower panels')."""
    # plotly.js starts loading now, first thing in the sidebar: the browser fetches and evaluates it
    # while it is still waiting for the rest of the page (cold load ~0.2 s sooner than from the
    # sidebar's end: docs/performance.md, "The lesson player")
    player.preload()
    run_guard.show()  # one press of Step, E, M, Reset (or their keys), one action, in order
    page = page_kit.page_start("lesson")  # also loads a shared data set named in the URL, before the picker
    classroom = page.classroom
    settings, upload_result = sidebar(classroom)
    stop_rules.sidebar(classroom)  # the course session's ‖Δθ‖² < ε
    session.sync(settings)
    header(page, upload_result)
    if program.wanted():  # the lesson program draws the lesson; nbcore computes its iterations
        st.fragment(program_view)(settings.speed, classroom)
        return
    interval = controls.SPEEDS.get(settings.speed, controls.SPEEDS[controls.DEFAULTS["speed"]])[1] if session.lesson().playing else None
    st.fragment(live, run_every=interval)(settings.speed, classroom)
    if player.enabled():
        st.fragment(lower)(classroom)


main()
