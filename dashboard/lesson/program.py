"""The lesson program in the lesson view: one components-v2 element that is the lab's own page.

The element is ``nblab/js/served_host.js`` (and the lab's modules it imports, joined into one module text:
``nblab.bundle.module_text``): the same program that draws the offline file, the notebook widget, the class
page and the static site. Here its iterations are computed by nbcore on the server, one at a time
(:mod:`nblab.served`): the browser asks ("iterations up to t = n", Reset), the element's fragment reruns,
:func:`nblab.served.advance` steps the session's lesson run and the answer carries the records the browser
lacks. The browser draws everything else from θ_t itself.

Streamlit keeps what it is good at: the page, the sidebar's settings (their changes reach the element as its
settings: λ mid-run continues, a data change is a new run), uploads, sharing, the class link.

Switched on with ``?player=program`` while the lesson's Streamlit panels are still the default view.
"""
from __future__ import annotations

import hashlib
import json

import streamlit as st
from streamlit.components import v2

from dashboard.lesson.session import lesson
from dashboard.serve import modules, plotly_build
from dashboard.ui import controls
from nblab import export, served
from nblab import page as page_mod
from nblab.bundle import bundle
from nblab.data import lab_data

KEY = "nblab_lesson"
#: the session's cache of the lesson's lab data: (data key, lab data, page config)
DATA_KEY = "nblab_lesson_data"
#: (serial, Reset presses) the server has acted on
RESETS_KEY = "nblab_lesson_resets"
JS = bundle("served_host.js", as_module=True)  # the lab's modules from nblab/js, joined into one ES module


def _css() -> str:
    """The lab page's styles without its page-wide rules (the Streamlit page is not the lab's), and the parts
    the app draws itself hidden: its title and settings (the sidebar's)."""
    keep = [line for line in page_mod.lab_css().splitlines() if not line.startswith(("html ", "body "))]
    return "\n".join(keep) + """
.lab-hosted.lab-root { max-width: none; padding: 0; }
.lab-hosted .lab-head, .lab-hosted .lab-side { display: none; }
.lab-hosted .lab-body { display: block; }
"""


def _register():
    try:
        return v2.component("nblab_lesson", css=_css(), js=modules.component_js("lesson", JS), isolate_styles=False)
    except Exception:  # refused by this Streamlit: the lesson's Streamlit view instead
        return None


_COMPONENT = _register()


def wanted() -> bool:
    """Whether this session's lesson is drawn by the lesson program (``?player=program``)."""
    return _COMPONENT is not None and str(st.query_params.get("player", "")).lower() == "program"


def _data_key(lr) -> str:
    """The identity of the run's data as the browser holds it: the data set, the upload and the text settings."""
    cfg = lr.cfg
    return hashlib.sha256(repr((cfg.dataset, cfg.upload_id, cfg.text)).encode()).hexdigest()[:16]


def _lab_data(lr) -> tuple[str, dict, dict]:
    key = _data_key(lr)
    got = st.session_state.get(DATA_KEY)
    if not got or got[0] != key:
        data = lab_data(lr.prep.ds)
        got = (key, data, page_mod.page_config(data, None, title=" "))
        st.session_state[DATA_KEY] = got
    return got


def _ask() -> dict:
    v = st.session_state.get(KEY)
    try:
        got = dict(v).get("ask") if v is not None else None
    except (TypeError, ValueError):
        got = None
    return got if isinstance(got, dict) else {}


def _on_ask() -> None:
    """The browser's ask: Reset, then the iterations it wants, computed before the element is drawn again."""
    lr = lesson()
    raw = _ask()
    ask = served.Ask.read(raw)
    if lr.run is None or ask.serial != lr.serial:
        return
    # Reset presses are counted per run: one more than the server has seen for this run is a new run
    seen_serial, seen = st.session_state.get(RESETS_KEY, (-1, 0))
    if ask.resets > (seen if seen_serial == ask.serial else 0):
        st.session_state[RESETS_KEY] = (ask.serial, ask.resets)
        lr.reset()
        return
    served.advance(lr, ask)
    if ask.t is not None:
        lr.view_t = None if ask.t >= lr.latest else ask.t


def show(speed: str, classroom: bool) -> None:
    """The lesson program for the session's lesson run (the fragment's body)."""
    lr = lesson()
    if lr.run is None:
        return
    raw = _ask()
    ask = served.Ask.read(raw)
    key, data, cfg = _lab_data(lr)
    answer = served.answer(lr, ask)
    if "first" in answer:  # a run the browser does not hold yet: the page's configuration goes with it
        answer["cfg"] = cfg
    settings = dict(export.lesson_settings(lr), dataset=str(data.get("name", "")), speed=speed, classroom=classroom)
    # the page's language (the sidebar's picker): the lab's texts inside the app are drawn in it
    answer.update(dataKey=key, settings=settings, t=int(lr.t), plotly=plotly_build.plotly_sources(), lang=controls.page_lang(),
                  notice=None if lr.notice is None else [lr.notice[0], lr.notice[1].replace("**", "")])
    if raw.get("dataKey") != key:
        answer["labData"] = data
    _COMPONENT(key=KEY, data=json.dumps(answer, allow_nan=False), on_ask_change=_on_ask)
