"""Step / Play / Reset / Run to convergence and the iteration scrubber."""
from __future__ import annotations

import streamlit as st

from dashboard.lesson import session, status
from dashboard.ui import controls
from nblab.frame import Frame

#: the caption's text at the latest iteration: a zero-width space (not whitespace to markdown, so the caption
#: renders its text element; nothing to see or read out)
EMPTY_CAPTION = "\u200b"
#: the caption's container key (the browser player writes into it: dashboard/lesson/player, ``dom``)
SHOWING_KEY = "nbem_showing"


def show(f: Frame) -> None:
    """Step / Play / Reset / Run to convergence, and the iteration scrubber (the player has its own
    Play and slider)."""
    controls.run_controls(f.playing, bool(f.run.done), on_step=session.on_step, on_play=session.on_play,
                          on_reset=session.on_reset, on_converge=session.on_converge, show_play=not f.player)
    if not f.player:
        controls.scrubber(len(f.run.history), f.t, on_change=session.on_scrub, playing=f.playing,
                          serial=f.serial)
    # always there, so the charts after it keep their place (not re-created); keyed: the browser player
    # writes the iteration it shows into it (and hides it at the latest) while it plays or drags. With the
    # player on, the caption is drawn at the latest iteration too (a zero-width space: a text element the
    # player can fill on a drag back; a blank or nbsp caption renders no paragraph), and the player hides it.
    slot = st.container(key=SHOWING_KEY)
    said = status.showing(f.t, f.latest)
    if said:
        slot.caption(said)
    elif f.player:
        slot.caption(EMPTY_CAPTION)
