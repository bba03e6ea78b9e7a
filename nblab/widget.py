"""The lab in a notebook (JupyterLab, Notebook 7, VS Code): an anywidget widget.

:func:`show` displays the lab page (:mod:`nblab.page`) for a run or a data set; EM runs in the browser, as
in the offline file, so every control of the lab works in the notebook. The kernel sends the data once
(the widget's ``_lab`` trait) and drives the view::

    w = nblab.show(run, ds)   # a plain nbcore run and its data set, a LessonRun, or a data set's name
    w.step()                  # one more iteration (w.step(3): three)
    w.e_step(); w.m_step()    # the two halves
    w.play(); w.pause()
    w.t = 5                   # show iteration 5; w.t follows the slider, Step and Play in the browser
    w.settings                # the lab's settings as the student left them (the URL keys)
    w.save("lesson.html")     # the same lab as one offline file

Where widgets cannot run (no anywidget, no kernel, Colab), :func:`show` returns the one-file lab inline
(:class:`InlineLab`, an iframe) instead.
"""
from __future__ import annotations

import functools
import html
from pathlib import Path

from nblab import bundle, export
from nblab import page as page_mod

#: the ES module anywidget loads: the lab's bundle (it defines globalThis.NBLab without starting a page),
#: then the widget's glue. Messages from Python: {cmd: "step", n} | "e" | "m" | "play" | "pause" | "reset".
_GLUE = r"""
export default {
  async render({ model, el }) {
    el.classList.add("nblab-widget");
    el.tabIndex = 0;                      // keys (→, E, M, P, …) act when the widget has the focus
    const root = document.createElement("div");
    root.className = "lab-root";
    el.appendChild(root);
    let G = null;
    const host = {
      keysOn: el,
      onView: (v) => {
        let changed = false;
        for (const [k, val] of [["t", v.t], ["latest", v.latest], ["playing", v.playing]]) {
          if (model.get(k) !== val) { model.set(k, val); changed = true; }
        }
        if (JSON.stringify(model.get("settings")) !== JSON.stringify(v.settings)) { model.set("settings", v.settings); changed = true; }
        if (changed) model.save_changes();
      },
    };
    const onT = () => { const t = model.get("t"); if (G && G.api && t !== G.api.t()) G.api.go(t); };
    const onMsg = (msg) => {
      if (!G || !G.api || !msg) return;
      const f = { step: () => G.api.step(msg.n || 1), e: G.api.eStep, m: G.api.mStep, play: G.api.play,
                  pause: G.api.pause, reset: G.api.reset, converge: G.api.converge }[msg.cmd];
      if (f) f();
    };
    model.on("change:t", onT);
    model.on("msg:custom", onMsg);
    G = await globalThis.NBLab.require("boot.js").start(root, {
      data: model.get("_lab"), cfg: model.get("_config"), plotly: model.get("_plotly"), hash: false, host });
    el.__nblab = G;
    return () => {
      model.off("change:t", onT);
      model.off("msg:custom", onMsg);
      if (G && G.api && G.api.destroy) G.api.destroy();
    };
  },
};
"""


@functools.lru_cache(maxsize=1)
def _esm() -> str:
    return bundle.bundle("boot.js") + "\n" + _GLUE


@functools.lru_cache(maxsize=1)
def _css() -> str:
    css = "\n".join(p.read_text(encoding="utf-8") for p in (page_mod.CSS, page_mod.PANELS_CSS) if p.is_file())
    return css + "\n.nblab-widget .lab-root { max-width: none; }\n"


def _page_parts(run, prep=None, **options) -> tuple[dict, dict]:
    """(lab data, page config) for what :func:`show` is given: a data set's name, an nbcore Dataset, a
    LessonRun, or a plain nbcore run with its data set."""
    from nblab.data import lab_data

    settings = dict(options.pop("settings", None) or {})
    title, template = options.pop("title", None), options.pop("template", None)
    if isinstance(run, str) or hasattr(run, "for_model"):
        data = lab_data(run)
    elif export._is_lesson(run):
        data, settings = lab_data(run.prep.ds), {**export.lesson_settings(run), **settings}
    else:
        ds = prep if prep is not None and hasattr(prep, "for_model") else getattr(prep, "ds", None)
        data, got = export._plain_run_data(run, ds)
        settings = {**got, **settings}
    if options.get("classroom"):
        settings["classroom"] = True
    if options.get("t") is not None:
        settings["t"] = int(options["t"])
    return data, page_mod.page_config(data, settings, title, template)


def _widget_class():
    import anywidget
    import traitlets

    class LabWidget(anywidget.AnyWidget):
        """The lab in a notebook (see the module's docstring)."""

        _esm = _esm()
        _css = _css()
        _lab = traitlets.Dict().tag(sync=True)
        _config = traitlets.Dict().tag(sync=True)
        _plotly = traitlets.Unicode().tag(sync=True)
        #: the iteration on screen (set it to move the view; it follows the browser's slider, Step and Play)
        t = traitlets.Int(0).tag(sync=True)
        #: the latest iteration computed in the browser
        latest = traitlets.Int(0).tag(sync=True)
        playing = traitlets.Bool(False).tag(sync=True)
        #: the lab's settings as shown (the URL keys: model, hidden, lam, init, seed, max_iter, tol, …)
        settings = traitlets.Dict().tag(sync=True)

        def __init__(self, data: dict, config: dict):
            super().__init__(_lab=data, _config=config, _plotly=page_mod.plotly_b64(),
                             t=int(config["defaults"].get("t", 0) or 0), settings=dict(config["defaults"]))

        def step(self, n: int = 1) -> None:
            """``n`` more iterations (E-step + M-step each), computed in the browser."""
            self.send({"cmd": "step", "n": int(n)})

        def e_step(self) -> None:
            self.send({"cmd": "e"})

        def m_step(self) -> None:
            self.send({"cmd": "m"})

        def play(self) -> None:
            self.send({"cmd": "play"})

        def pause(self) -> None:
            self.send({"cmd": "pause"})

        def reset(self) -> None:
            self.send({"cmd": "reset"})

        def converge(self) -> None:
            self.send({"cmd": "converge"})

        def save(self, path) -> Path:
            """The lab as one offline HTML file, at the settings and iteration shown now."""
            settings = {**self._config["defaults"], **self.settings, "t": int(self.t)}
            path = Path(path)
            path.write_text(page_mod.lab_html(self._lab, settings=settings,
                                              title=self._config.get("title"), template=self._config.get("template")),
                            encoding="utf-8")
            return path

    return LabWidget


class InlineLab:
    """The one-file lab shown inline (an iframe), where widgets cannot run."""

    def __init__(self, page: str):
        self.page = page

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self.page, quote=True)}" style="width: 100%; height: 900px; '
                f'border: 0" title="Naive Bayes + EM lab" sandbox="allow-scripts allow-downloads"></iframe>')

    def save(self, path) -> Path:
        path = Path(path)
        path.write_text(self.page, encoding="utf-8")
        return path


def show(run, prep=None, *, inline: bool = False, **options):
    """The lab for ``run`` in a notebook: a widget (anywidget), or the page inline without one.

    ``run``: a plain nbcore run (with ``prep``, the data set it ran on), a LessonRun, a data set's name or
    an nbcore Dataset; ``options``: ``settings={…}`` (the URL keys), ``t``, ``classroom``, ``title``,
    ``template``."""
    data, config = _page_parts(run, prep, **options)
    if not inline:
        try:
            return _widget_class()(data, config)
        except ImportError:
            pass
    return InlineLab(page_mod.lab_html(data, settings=config["defaults"], title=config["title"],
                                       template=config["template"]))
