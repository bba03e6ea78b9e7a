"""The lesson player in a notebook (JupyterLab, Notebook 7, VS Code): an anywidget widget.

:func:`show` displays a run with the same player and panels as the offline file
(:mod:`dashboard.lesson.export`): its ES module is ``player/offline.js`` with player.js's text and our
plotly.js build sent as traits (nothing comes from a CDN). Python drives it::

    w = nbcore.show(run)     # run: an nbcore EMRun (or a LessonRun)
    w.step()                 # the next iteration (stepping the run when the view is at its end)
    w.play(); w.pause()
    w.t = 5                  # show iteration 5; w.t also follows the slider when the user stops

The view follows the run as it grows: :meth:`LessonWidget.step` steps the run, Play in the browser asks
for more iterations (the player's "need", answered here), and :meth:`LessonWidget.refresh` picks up
steps taken elsewhere. Where widgets cannot run (no anywidget, no kernel, Colab), :func:`show` returns
the one-file HTML inline instead (:class:`InlineLesson`).
"""
from __future__ import annotations

import functools

import html
import sys
import time

from dashboard.lesson import export

#: a "need" from the browser may spend this long stepping the run (seconds); it asks again when short
NEED_BUDGET_S = 0.5

_GLUE = r"""
export default {
  async render({ model, el }) {
    el.tabIndex = 0;                      // keys (→, E, M, …) act when the widget has the focus
    el.classList.add("nbo-widget");
    const root = document.createElement("div");
    el.appendChild(root);
    let ctl = null;
    const host = {
      plotly: model.get("_plotly"), player: model.get("_player"), keysOn: el,
      onView: (t, playing) => {
        if (model.get("t") !== t || model.get("playing") !== playing) {
          model.set("t", t); model.set("playing", playing); model.save_changes();
        }
      },
      onNeed: (upto) => model.send({ event: "need", upto }),
    };
    const onT = () => { const t = model.get("t"); if (ctl && t !== ctl.P.t) ctl.go(t); };
    const onLesson = () => { if (ctl) ctl.update(model.get("lesson")); };
    const onMsg = (msg) => {
      if (!ctl || !msg) return;
      const f = { play: ctl.play, pause: ctl.pause, e: ctl.eStep, m: ctl.mStep, restart: ctl.restart }[msg.cmd];
      if (f) f();
    };
    model.on("change:t", onT);
    model.on("change:lesson", onLesson);
    model.on("msg:custom", onMsg);
    ctl = await globalThis.NBEMOffline.mount(root, model.get("lesson"), host);
    el.__nbemOffline = ctl;
    onT();
    return () => {
      model.off("change:t", onT); model.off("change:lesson", onLesson); model.off("msg:custom", onMsg);
    };
  },
};
"""


def _esm() -> str:
    return export.OFFLINE_JS.read_text(encoding="utf-8") + "\n" + _GLUE


def _css() -> str:
    return export.player_sources()["css"] + "\n.nbo-widget .nbo-root { padding: 0.5rem 0; max-width: none; }\n" \
                                             ".nbo-widget:focus { outline: none; }\n"


def widgets_can_run() -> tuple[bool, str]:
    """(True, "") when an anywidget widget can be shown here, else (False, why)."""
    if "google.colab" in sys.modules:
        return False, "Colab (its plotly widget problems are open upstream)"
    try:
        import anywidget  # noqa: F401
    except ImportError:
        return False, "anywidget is not installed (pip install 'nbcore[widget]')"
    try:
        from IPython import get_ipython
    except ImportError:
        return False, "not in IPython"
    ip = get_ipython()
    if ip is None or not hasattr(ip, "kernel"):
        return False, "no Jupyter kernel"
    return True, ""


class InlineLesson:
    """The one-file HTML lesson, shown inline (an iframe) where widgets cannot run; ``save(path)`` writes it."""

    def __init__(self, page: str, why: str = "", height: int = 1400):
        self.page, self.why, self.height = page, why, height

    def _repr_html_(self) -> str:
        return (f'<iframe title="Naive Bayes + EM lesson" srcdoc="{html.escape(self.page, quote=True)}" '
                f'style="width:100%;height:{int(self.height)}px;border:0" sandbox="allow-scripts"></iframe>')

    def save(self, path):
        from pathlib import Path
        Path(path).write_text(self.page, encoding="utf-8")
        return Path(path)


@functools.lru_cache(maxsize=1)  # the class only: no user data
def _widget_class():
    import anywidget
    import traitlets

    class LessonWidget(anywidget.AnyWidget):
        """The lesson player in a notebook; see the module's docstring."""
        _esm = traitlets.Unicode(_esm()).tag(sync=True)
        _css = traitlets.Unicode(_css()).tag(sync=True)
        _plotly = traitlets.Unicode("").tag(sync=True)
        _player = traitlets.Unicode("").tag(sync=True)
        lesson = traitlets.Dict().tag(sync=True)
        t = traitlets.Int(0).tag(sync=True)
        playing = traitlets.Bool(False).tag(sync=True)

        def __init__(self, run, prep=None, **options):
            self._run, self._prep = run, prep
            self._options = dict(options)
            self._seq = 0
            self._token = f"nb-{id(self) % 10 ** 8}"
            data = self._data()
            super().__init__(_plotly=export.plotly_b64(), _player=export.player_sources()["player"],
                             lesson=data, t=int(data["main"]["t"]))
            self.on_msg(self._on_msg)

        # ---- the run -------------------------------------------------------------------------------
        def _emrun(self):
            r = self._run
            return r.run if hasattr(r, "prep") and hasattr(r, "cfg") else r

        @property
        def latest(self) -> int:
            return len(self._emrun().history) - 1

        def _data(self, t=None) -> dict:
            opts = dict(self._options)
            opts.pop("converge", None)
            if t is not None:
                opts["t"] = t
            data = export.lesson_data(self._run, self._prep, final=False, token=self._token, **opts)
            data["main"]["seq"] = self._seq
            return data

        def refresh(self, follow: bool = True) -> None:
            """Send the run's iterations again (it was stepped elsewhere); ``follow`` shows the latest."""
            if follow:
                self._seq += 1
            t = self.latest if follow else min(self.t, self.latest)
            self.lesson = self._data(t)
            self.t = t

        def _step_run(self) -> bool:
            r = self._run
            run = self._emrun()
            if run.done:
                return False
            if hasattr(r, "prep") and hasattr(r, "cfg"):
                r.step()
            else:
                run.step()
            return True

        # ---- driving it from Python ----------------------------------------------------------------
        def step(self, n: int = 1) -> int:
            """n iterations forward: through the iterations already there, then stepping the run."""
            for _ in range(int(n)):
                if self.t < self.latest:
                    self.t = self.t + 1
                elif self._step_run():
                    self.refresh(follow=True)
                else:
                    break
            return self.t

        def play(self) -> None:
            self.send({"cmd": "play"})

        def pause(self) -> None:
            self.send({"cmd": "pause"})

        def e_step(self) -> None:
            """Show what the E-step computes at the iteration shown (the M-step or Step moves on)."""
            self.send({"cmd": "e"})

        def m_step(self) -> None:
            self.send({"cmd": "m"})

        def save(self, path):
            """The same lesson as one offline HTML file."""
            return export.export_lesson(self._run, self._prep, path, **self._options)

        def _on_msg(self, _widget, content, _buffers) -> None:
            if not isinstance(content, dict) or content.get("event") != "need":
                return
            try:
                upto = int(content.get("upto", 0))
            except (TypeError, ValueError):
                return
            start = time.perf_counter()
            stepped = False
            while self.latest < upto and time.perf_counter() - start < NEED_BUDGET_S and self._step_run():
                stepped = True
            if stepped or self._emrun().done:
                self.lesson = self._data(min(self.t, self.latest))

    return LessonWidget


def LessonWidget(run, prep=None, **options):
    """The anywidget widget (anywidget imported on first use; the class is made once per process)."""
    return _widget_class()(run, prep, **options)


def show(run, prep=None, *, inline: bool | None = None, **options):
    """Display ``run`` with the lesson player: a widget where widgets can run, else the one-file HTML
    inline. ``inline=True`` forces the HTML; options as :func:`dashboard.lesson.export.lesson_data`."""
    ok, why = widgets_can_run()
    if inline or (inline is None and not ok):
        page = export.export_html(export.lesson_data(run, prep, **options))
        return InlineLesson(page, why if not inline else "asked for")
    return LessonWidget(run, prep, **options)
