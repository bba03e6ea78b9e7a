"""The status line, said about the iteration on screen.

The server writes it (the metrics row) and, while the browser player moves the iteration with no
server rerun (Play, a drag, a Step shown ahead), the player writes it (player.js, ``statusText``) from
the same templates: :func:`templates` makes them once per run state, :func:`text` (and its mirror in
player.js) fills in the iteration, so the two can never word it differently.
"""
from __future__ import annotations

from nblab.lesson_run import status_line

#: where the iteration on screen goes in a template
T = "{t}"


def templates(run, cfg=None) -> dict:
    """The status line of ``run`` as templates: ``at`` (the latest iteration on screen, stopped),
    ``back`` (an earlier one on screen), ``running`` (playing through iterations not seen yet) and, for a
    finished run, ``replay`` (playing through iterations seen before), each with ``{t}`` for the
    iteration on screen, and ``latest`` (the latest iteration they were made for); ``showing``, the
    caption under the buttons (:func:`showing`)."""
    latest = len(run.history) - 1
    _, at = status_line(run, cfg, playing=False)
    replay = None
    if run.done:  # the iterations are all there (the server may have computed them ahead of the screen)
        running = f"Running … t = {T} of {latest}"
        replay = f"Replaying … t = {T} of {latest}"
        back = f"Showing t = {T} of {latest} · {at}"
    else:
        running = f"Running … t = {T}"
        back = f"Paused at t = {T} (EM has computed up to t = {latest})"
    return {"latest": latest, "at": at, "back": back, "running": running, "replay": replay, "showing": SHOWING}


#: the caption under the run's buttons while an earlier iteration is on screen ({n}: the latest)
SHOWING = f"Showing iteration {T} of {{n}} (drag the slider to the right end to follow the run)."


def showing(t: int, latest: int) -> str | None:
    """The caption saying an earlier iteration than the latest is on screen (None at the latest)."""
    return SHOWING.replace(T, str(int(t))).replace("{n}", str(int(latest))) if t < latest else None


def text(tpl: dict, t: int, playing: bool, seen: int | None = None) -> str:
    """The status line with iteration ``t`` on screen (player.js ``statusText`` says the same). While
    playing a finished run it says "Replaying" only for the iterations up to ``seen`` (the furthest one
    on screen before this Play), so a first Play through iterations the server computed ahead of the
    screen says "Running"."""
    t = int(t)
    if playing:
        s = tpl["replay"] if tpl.get("replay") and seen is not None and t <= int(seen) else tpl["running"]
    else:
        s = tpl["at"] if t >= tpl["latest"] else tpl["back"]
    return s.replace(T, str(t))
