"""What the lesson view shows on one pass: the run, its data and the iteration on screen."""
from __future__ import annotations

from dataclasses import dataclass

from nblab.config import DataConfig
from nblab.prepare import Prepared


@dataclass(frozen=True)
class Frame:
    """The lesson at the iteration on screen; every lesson panel draws from one."""
    run: object                   # nbcore EMRun
    prep: Prepared
    cfg: DataConfig
    smoothing: float              # λ the next step uses
    t: int                        # iteration on screen
    latest: int                   # latest iteration of the run
    view_t: int | None            # iteration picked with the scrubber (None = follow the run)
    acc: list                     # accuracy on the hidden labels per iteration
    base: float | None            # the best supervised baseline of the latest λ segment, on the same documents
    classroom: bool
    fs: int                       # chart font size
    player: bool = False          # the browser player draws the charts (dashboard/lesson/player)
    playing: bool = False         # EM plays (on the server, or in the browser's player)
    serial: int = 0               # the run's build number (LessonRun.serial)
    ref: object = None            # nblab.numbers.Reference: every baseline, per λ segment (None: nothing to score)

    @property
    def snap(self):
        return self.run.history[self.t]
