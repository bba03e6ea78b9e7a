"""The lesson's run and the only code that changes it (no Streamlit here).

A :class:`LessonRun` is one browser session's lesson: the EM run, the data settings and λ it
was built from, its data, the iteration on screen, Play, the last notice and error, and the
player's bookkeeping. Every change to the run goes through one of its methods: build,
continue with new settings, step (adopting the step computed ahead for the browser), the two
half-steps, run to convergence, rewind, reset, restore to the URL's iteration and the stop
rules. ``dashboard.lesson.session`` keeps one per session in ``st.session_state`` and wires its
methods to the widgets; an offline export or a notebook can drive one without a server.
"""
from __future__ import annotations

import warnings
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Callable, ContextManager

from nblab import limits
from nblab import prepare as prep_mod
from nblab.config import DataConfig
from nblab.prepare import Prepared

Busy = Callable[[str], ContextManager]  # "working on it" indicator: st.spinner on a page, nothing offline


@dataclass
class PlayerState:
    """What the browser player has told the server, and what it was sent (``dashboard.lesson.player``)."""
    sid: str = ""                 # this session's player id (part of every run token)
    seq: int = 0                  # bumped when the server moves the run: the browser jumps to the latest
    playing: bool = False         # the browser is playing
    floor: int = 0                # iterations up to here have been seen: never rewound below it
    shown: int | None = None      # the latest iteration the browser has drawn while playing
    stopped: int = -1             # the last Play id that was paused (its late "need" requests are ignored)
    failed: str | None = None     # why the player could not run (then the server draws the charts)
    log: object = None            # ChartLog: the parameter charts' frames, built once per iteration
    sent: tuple | None = None     # (token, frames, strings, templates) the browser holds
    last_n: tuple | None = None   # (serial, latest) at the last draw of the time series
    lower_seen: bool = False      # the browser has shown the panels below the charts (they are in view)


@dataclass
class LessonRun:
    """One session's lesson run. ``run`` is None until the first build succeeds."""
    cfg: DataConfig | None = None     # the data settings the run was built from
    smoothing: float | None = None    # the λ the next step uses
    prep: Prepared | None = None      # the run's data
    run: object = None                # nbcore EMRun
    serial: int = 0                   # bumped on every (re)build: the key of every cache derived from the run
    view_t: int | None = None         # iteration picked on the scrubber; None follows the latest
    playing: bool = False             # the server-driven Play (the browser player has its own flag)
    notice: tuple | None = None       # (kind, text): what the last change did ("rebuilt" / "continued")
    error: str | None = None          # why the last change failed (the run is unchanged)
    converge_pending: bool = False    # "Run to convergence" pressed: the next render runs it with a progress bar
    app_rerun: bool = False           # a change needs a whole-page rerun (Play changes the refresh interval)
    player: PlayerState = field(default_factory=PlayerState)
    load: Callable | None = field(default=None, repr=False)  # load(name, text) -> Dataset; None: shipped sets only
    _ahead: tuple | None = field(default=None, repr=False)  # (run, n snapshots, run stepped once more)

    # ---- what is on screen --------------------------------------------------------------------------

    @property
    def latest(self) -> int:
        return len(self.run.history) - 1

    @property
    def t(self) -> int:
        """The iteration on screen: the one picked on the scrubber, else the latest."""
        return self.latest if self.view_t is None else min(self.view_t, self.latest)

    def status(self) -> tuple[str, str]:
        """(kind, text) of the status line (see :func:`status_line`)."""
        return status_line(self.run, self.cfg, self.playing)

    # ---- building ---------------------------------------------------------------------------------

    def install(self, cfg: DataConfig, smoothing: float, prep: Prepared, run, notice: tuple | None = None) -> None:
        """Make ``run`` this lesson's run (also for pages that build a run themselves, e.g. restarts).
        ``notice`` (kind, text), when given, replaces the notice shown above the run."""
        self.run, self.cfg, self.smoothing, self.prep = run, cfg, smoothing, prep
        self.serial += 1
        self.view_t = None
        self.playing = False
        self.error = None
        self._ahead = None
        if notice is not None:
            self.notice = notice

    def sync(self, cfg: DataConfig, smoothing: float, busy: Busy = lambda text: nullcontext()) -> bool:
        """Bring the run in line with the controls. Returns True when a first run was built.

        A changed data setting rebuilds the run (iteration 0); a changed λ, max iterations or
        tolerance continues from the current parameters (``EMRun.with_settings``, history kept).
        Either way ``notice`` says which happened. A ValueError from nbcore keeps the previous
        run and is kept in ``error``."""
        run, old_cfg, old_smoothing = self.run, self.cfg, self.smoothing
        if run is not None and old_cfg == cfg and old_smoothing == smoothing:
            self.error = None
            return False
        if run is not None and run.current.iteration > 0 and prep_mod.only_continuable_changed(old_cfg, cfg):
            self._continue_with(cfg, smoothing)
            return False
        try:
            with busy("Preparing the data and the first parameters …"):
                prep, new_run = prep_mod.build_run(cfg, smoothing, self.load)
        except ValueError as e:
            msg = str(e)
            if "init=" in msg:
                msg += " (Sidebar → Advanced → Initialisation.)"
            self.error = msg
            return False
        self.install(cfg, smoothing, prep, new_run)
        if run is None:
            self.notice = None
        elif old_cfg == cfg:
            self.notice = ("rebuilt", f"λ changed {old_smoothing:g} → {smoothing:g} before any step: "
                                      f"**new run** from iteration 0 with λ = {smoothing:g}.")
        else:
            self.notice = ("rebuilt", f"Data settings changed ({prep_mod.describe_change(old_cfg, cfg)}): "
                                      f"**new run** from iteration 0.")
        if prep_mod.effective_init(cfg, prep) != cfg.init:
            kind, text = self.notice or ("rebuilt", "")
            self.notice = (kind, (text + " " if text else "") +
                           "No label is visible, so EM starts from a **random** initialisation "
                           "(“from the labelled documents” needs at least one label).")
        return run is None

    def _continue_with(self, cfg: DataConfig, smoothing: float) -> None:
        """λ, max iterations or tolerance changed mid-run: continue from θ_t with them (history kept)."""
        run, old_cfg, old_smoothing = self.run, self.cfg, self.smoothing
        t = run.current.iteration
        changes = {}
        if smoothing != old_smoothing:
            changes["smoothing"] = smoothing
        if cfg.max_iter != old_cfg.max_iter:
            changes["max_iter"] = cfg.max_iter
        if cfg.tol != old_cfg.tol:
            changes["tol"] = cfg.tol
        try:
            if "max_iter" in changes:
                changes["max_iter"] = min(cfg.max_iter, prep_mod.iteration_cap(
                    cfg, self.prep, prep_mod.model_options(cfg, self.prep)))
            self.run = run.with_settings(**changes)
        except ValueError as e:
            self.error = str(e)
            return
        self.smoothing, self.cfg = smoothing, cfg
        self._ahead = None
        what = [f"λ changed {old_smoothing:g} → {smoothing:g}"] if smoothing != old_smoothing else []
        what += [prep_mod.describe_change(old_cfg, cfg)] if old_cfg != cfg else []
        self.notice = ("continued", f"{'; '.join(what)}: EM **continues** from iteration {t} with the current "
                                    f"parameters (history kept; the next steps use λ = {smoothing:g}).")

    def reset(self) -> None:
        """A new run from iteration 0 with the same settings."""
        if self.cfg is None:
            return
        try:
            prep, run = prep_mod.build_run(self.cfg, self.smoothing, self.load)
        except ValueError as e:
            self.error = str(e)
            return
        self.install(self.cfg, self.smoothing, prep, run)
        self.notice = ("rebuilt", "Reset: **new run** from iteration 0 with the same settings.")

    def restore_to(self, asked: int, busy: Busy = lambda text: nullcontext()) -> None:
        """Step a first run to the iteration a link names (``t=``), with a notice.

        EM is deterministic given the data, the settings and the seed, so the same link recomputes
        the same numbers (steps taken at another λ earlier in the run are recomputed at the current
        one). Bounded by the run's max iterations, which the memory budget already bounds."""
        run = self.run
        want = min(int(asked), run.settings.max_iter)
        if want <= 0:
            return
        try:
            with busy(f"Recomputing the run to iteration {want} …"):
                while run.current.iteration < want and not run.done:
                    run.step()
        except ValueError as e:
            self.error = str(e)
        t = run.current.iteration
        text = f"Recomputed to iteration {t}, as the link says (the same settings give the same numbers)."
        if t < asked:
            text += (f" EM stopped at t = {t} ({'converged' if run.converged else 'its maximum number of iterations'})"
                     f" before {asked}.")
        self.notice = ("continued", text)

    def rename_dataset(self, dataset: str) -> None:
        """The run's data now goes by another name (an upload that became its shared copy: the same
        bytes, read the same way), so the controls' new name continues the run instead of rebuilding it."""
        if self.cfg is not None:
            self.cfg = replace(self.cfg, dataset=dataset)

    # ---- moving on --------------------------------------------------------------------------------

    def step(self, n: int = 1) -> None:
        """n EM iterations. The first adopts the run computed ahead for the browser (:meth:`ahead`)
        when there is one, instead of computing that iteration again."""
        run = self.run
        before = None if run is None else run.current.iteration
        try:
            for _ in range(n):
                if run is None or run.done:
                    break
                nxt = self.take_ahead()
                if nxt is not None:
                    run = self.run = nxt
                    continue
                run.step()
        except ValueError as e:  # the engine explains; never a traceback
            self.error = str(e)
            self.playing = False
        self.view_t = None
        if run is not None and run.current.iteration != before:
            self.notice = None  # "new run" / "continues from t" are news only until the next step

    def e_step(self) -> bool:
        """The first half of an iteration: responsibilities under θ_t (eq. 21); θ does not change."""
        if self.run is None or self.run.done:
            return False
        self.run.e_step()
        self.view_t = None
        return True

    def m_step(self) -> None:
        """The second half: θ_{t+1} from the pending responsibilities (eq. 23–24)."""
        if self.run is None:
            return
        try:
            self.run.m_step()
        except ValueError as e:  # no E-step pending: the engine explains
            self.error = str(e)
        self.view_t = None

    def converge(self, progress: Callable[[float, int], None] = lambda frac, t: None) -> None:
        """Step until EM stops, telling ``progress(fraction done, t)`` after every iteration."""
        run = self.run
        if run is None or run.done:
            return
        start = run.current.iteration
        max_iter = self.cfg.max_iter if self.cfg is not None else run.settings.max_iter
        while not run.done:
            run.step()
            progress(min(1.0, (run.current.iteration - start) / max(1, max_iter - start)), run.current.iteration)
        self.view_t = None

    def rewind(self, keep: int) -> None:
        """Drop the iterations after ``keep`` (computed ahead for the browser, never shown).
        EM is deterministic: stepping again gives them back identical."""
        self.run = self.run.rewound(keep)
        self._ahead = None

    def follow_latest(self) -> None:
        """The server moved the run (Step, Run to convergence, Reset): the browser player jumps to
        the latest iteration, and every iteration up to it counts as seen."""
        self.player.seq += 1
        self.player.playing = False
        self.player.floor = 0 if self.run is None else len(self.run.history) - 1

    def set_stop_rule(self, theta_tol: float | None, theta_norm: str) -> None:
        """Continue the run with the course session's ‖Δθ‖² stop rule (history kept) if it changed."""
        run = self.run
        if run is None:
            return
        s = run.settings
        if s.theta_tol == theta_tol and s.theta_norm == theta_norm:
            return
        try:
            self.run = run.with_settings(theta_tol=theta_tol, theta_norm=theta_norm)
            self._ahead = None
        except ValueError as e:
            self.error = str(e)

    def set_playing(self, playing: bool) -> bool:
        """Play (True) or Pause (False); sets, never toggles. Returns whether anything changed."""
        if self.playing == playing:
            return False
        self.playing = playing
        self.view_t = None
        return True

    def scrub(self, v) -> None:
        """The scrubber picked iteration ``v``; its right end follows the run."""
        self.view_t = int(v) if v is not None and v < self.latest else None

    # ---- the step computed ahead ----------------------------------------------------------------------

    def ahead(self):
        """The run stepped once more, computed now so the browser can hold the next iteration's charts
        and show them the moment Step is pressed; the Step then adopts it (:meth:`step`), so the server
        does the same work per Step, only earlier. The run itself is untouched: a copy
        (``EMRun.with_settings()``, which shares the snapshots) is stepped.

        None when there is no next iteration to show (the run is done, a half-step is pending, the
        browser is playing) or stepping fails (the real Step then reports why)."""
        run = self.run
        got = self._ahead
        if got is not None and got[0] is run and got[1] == len(run.history):
            return got[2]
        nxt = None
        if run is not None and not run.done and run.pending is None and not self.player.playing:
            try:
                with warnings.catch_warnings():  # the real Step warns, if it must
                    warnings.simplefilter("ignore")
                    nxt = run.with_settings()
                    nxt.step()
            except ValueError:
                nxt = None
        self._ahead = (run, len(run.history) if run is not None else 0, nxt)
        return nxt

    def take_ahead(self):
        """The run computed ahead of the current one, if there is one (and it is still one step ahead)."""
        got, run = self._ahead, self.run
        if (got is not None and run is not None and got[0] is run and got[1] == len(run.history)
                and got[2] is not None and len(got[2].history) == len(run.history) + 1):
            self._ahead = None
            return got[2]
        return None


def status_line(run, cfg: DataConfig | None = None, playing: bool = False) -> tuple[str, str]:
    """(kind, text) for a run's status line; kind is running, converged, max, ready or paused.
    ``cfg`` (the data settings asked for) tells when the memory budget cut Max iterations."""
    t = run.current.iteration
    reason = getattr(run, "stop_reason", None)
    if run.converged:
        why = {"tol": "objective changed less than the tolerance",
               "theta": "parameters changed less than the tolerance"}.get(reason, reason or "")
        return "converged", f"Converged at t = {t}" + (f" ({why})" if why else "")
    if run.done:
        if cfg is not None and run.settings.max_iter < cfg.max_iter:
            return "max", (f"Stopped at t = {t}: the most iterations this server keeps for a run this large "
                           f"({limits.run_budget_bytes() // limits.MB} MB per lesson); Max iterations is {cfg.max_iter}")
        return "max", f"Stopped at the maximum number of iterations (t = {t})"
    if playing:
        return "running", f"Running … t = {t}"
    if t == 0:
        return "ready", "Ready: t = 0 (initial parameters). Press Step or Play."
    return "paused", f"Paused at t = {t}"
