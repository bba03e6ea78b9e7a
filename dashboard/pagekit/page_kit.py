"""The shared furniture of every page: header (classroom mode, lesson narrative, title),
data-set / event-model / λ pickers, data preparation that stops the page with a message
instead of a traceback, and ``cached()`` — st.cache_data keyed by plain parameters, with a
progress bar that is only drawn when the work is really done (a rerun caused by changing
a control stops it at the next update).

Nothing user-specific is kept at module level.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import streamlit as st

from dashboard import pages
from dashboard.charts import theme
from dashboard.data import datasets
from dashboard.lesson import guided as lessons
from dashboard.lesson import sharing
from dashboard.ui import controls, derive, state, url_table, urlguard
from nbcore import hide_labels
from nbcore.data import DEFAULT_PIPELINES
from nblab import prepare as lesson_prepare

QP = controls.QP

# classroom-mode CSS, used by the lesson page (views/lesson.py) and every depth view
CLASSROOM_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 22px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li,
[data-testid="stCaptionContainer"], label, button p { font-size: 1.25rem !important; }
[data-testid="stMetricLabel"] p { font-size: clamp(0.9rem, 11cqi, 1.3rem) !important; }
h1 { font-size: 3rem !important; } h2, h3 { font-size: 2.1rem !important; }
.katex { font-size: 1.45em !important; }
/* a displayed formula a little smaller than inline maths, and one wider than the page breaks
   after a relation or operator (KaTeX's break points, as in inline maths) instead of being cut */
.katex-display > .katex { font-size: 1.15em !important; white-space: normal !important; padding-right: 0.5em; }
.katex-display > .katex > .katex-html { white-space: normal !important; }
.katex-display { overflow-x: auto; overflow-y: hidden; }
/* Streamlit's page paddings are in rem, which the larger base font inflates (110 px each side
   at 1280 px): give the width back to the content. */
[data-testid="stMainBlockContainer"] { padding: 3.5rem 1.2rem 4rem 1.2rem !important; max-width: none !important; }
/* Nothing a class must read is cut off with an ellipsis: page names, button
   labels, metric labels and deltas wrap onto a second line instead. */
.stMarkdownEllipsis, .stMarkdownEllipsis p, [data-testid="stSidebarNavLink"] span,
[data-testid="stMetricLabel"] div, [data-testid="stMetricDelta"] div {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
[data-testid="stPageLink"] *, [data-testid="stSidebarNavLink"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
[data-testid="stSidebarNavLink"], [data-testid="stPageLink-NavLink"] { height: auto !important; min-height: 2rem; }
[data-testid="stSidebarNavLink"] p { font-size: 1rem !important; line-height: 1.25 !important; }
[data-testid="stPageLink"] p { line-height: 1.3 !important; }
button div, button span { overflow: visible !important; }
/* Metric values shrink with their column (container query units) down to 1.2rem, and break
   only at spaces ("0.500 / 0.500"), never inside a number. */
[data-testid="stMetric"] { container-type: inline-size; }
[data-testid="stMetricValue"], [data-testid="stMetricValue"] *,
[data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p {
  font-size: clamp(1.2rem, 19cqi, 3rem) !important; line-height: 1.15; overflow-wrap: normal !important; }
/* A short screen (a 1280x720 projector): the title, the numbers and the spacing give room, so that on
   the lesson page the Step / Play controls and the first row of charts are on screen together. */
@media (max-height: 820px) {
  [data-testid="stMainBlockContainer"] { padding-top: 2.6rem !important; }
  h1 { font-size: 1.9rem !important; padding: 0.1rem 0 0.2rem 0 !important; }
  [data-testid="stMetricValue"], [data-testid="stMetricValue"] *,
  [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p { font-size: clamp(1.2rem, 19cqi, 2.1rem) !important; }
  [data-testid="stMetricLabel"] p { font-size: clamp(0.9rem, 11cqi, 1.1rem) !important; }
  [data-testid="stMainBlockContainer"] [data-testid="stVerticalBlock"] { gap: 0.55rem; }
  [data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"] { font-size: 1rem !important; }
  [data-testid="stMainBlockContainer"] button { min-height: 2.1rem; padding-top: 0.15rem; padding-bottom: 0.15rem; }
}
</style>"""

_TYPE = theme.TYPE_SCALE[True]
# classroom mode's type scale on the controls (the same table as the charts': charts/theme.py TYPE_SCALE):
# no text under its smallest size, and a slider's value and end labels clear of its track
CLASSROOM_TYPE_CSS = f"""<style>
[data-testid="stWidgetLabel"] p, [data-testid="stWidgetLabel"] label {{ font-size: {_TYPE["control"]}px !important; }}
[data-testid="stMain"] code, [data-testid="stSidebar"] code {{ font-size: max(0.85em, {_TYPE["small"]}px) !important; }}
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p {{ font-size: max(1em, {_TYPE["small"]}px) !important; }}
[data-testid="stSliderThumbValue"], [data-testid="stSliderThumbValue"] p, [data-testid="stSliderTickBar"],
[data-testid="stSliderTickBar"] p {{ font-size: {_TYPE["small"]}px !important; line-height: 1.2 !important; }}
/* the value above the thumb, between the label and the track: room for one line of it */
[data-testid="stSlider"] [role="group"] > div {{ padding-top: {int(_TYPE["small"] * 2)}px !important; }}
[data-testid="stSlider"] {{ padding-bottom: {int(_TYPE["small"] * 0.6)}px; }}
[data-testid="stSidebarNavLink"] p, [data-testid="stSidebarNavLink"] span {{ font-size: {_TYPE["nav"]}px !important; }}
[data-testid="stMarkdownContainer"] small, [data-baseweb="select"] *, [data-baseweb="input"] input,
[data-testid="stExpander"] summary p, [data-testid="stTooltipContent"] p {{ font-size: max(1em, {_TYPE["small"]}px) !important; }}
</style>"""

# CSS every page gets (normal and classroom mode)
BASE_CSS = """<style>
/* A displayed formula wider than its column breaks after a relation or operator (KaTeX's break
   points) instead of scrolling sideways: a region that scrolls must also take keyboard focus,
   which a formula cannot. */
.katex-display { overflow: visible !important; }
.katex-display > .katex { white-space: normal !important; max-width: 100%; }
.katex-display > .katex > .katex-html { white-space: normal !important; }
/* Keyboard focus is always visible, in the text colour (3:1 against every background here). */
button:focus-visible, a:focus-visible, summary:focus-visible, input:focus-visible,
[role="tab"]:focus-visible, [tabindex]:focus-visible {
  outline: 3px solid #111111 !important; outline-offset: 2px !important; }
/* A collapsed sidebar is out of the page: Streamlit only slides it off screen, where its links and
   controls stayed in the keyboard's tab order and were measured as cut off; until it is opened its
   content takes no part in the page. */
[data-testid="stSidebar"][data-collapsed="true"] > * { display: none !important; }
/* Motion only when the reader has not asked for less. */
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation-duration: 0.001ms !important; animation-iteration-count: 1 !important;
    transition-duration: 0.001ms !important; scroll-behavior: auto !important; }
}
</style>"""


#: chart font size by classroom mode (the projector needs larger text): the type scale's base
CHART_FONT = {False: theme.TYPE_SCALE[False]["base"], True: theme.TYPE_SCALE[True]["base"]}


@dataclass(frozen=True)
class PageContext:
    """What every page knows once it has started: whether classroom mode is on, and so the
    chart font size."""
    classroom: bool

    @property
    def fs(self) -> int:
        return CHART_FONT[self.classroom]


def page_start(name: str) -> PageContext:
    """The start every page shares: session state, a shared data set named in the URL, the URL
    guard, the language picker and the classroom toggle (shared by all pages) and its CSS."""
    state.init()
    sharing.apply_url()  # data=<id>: load the shared data set before any data-set picker is drawn
    sharing.drop_orphan_iteration()  # t= of an upload this session does not have is not recomputed
    urlguard.begin(name)
    # the lesson's browser player reads player=on|off itself (dashboard/lesson/player); any other value
    # is named here, on every page, instead of being ignored without a word
    urlguard.one_of("player", url_table.BY_KEY["player"].spec,
                    "the charts are drawn the usual way (player=on or player=off choose)")
    st.html(BASE_CSS + theme.FIGURE_CSS)  # style only: goes to the page's event container, takes no room
    controls.language_picker()  # first: every text drawn after it is in the page's language
    classroom = controls.classroom_toggle()
    if classroom:
        st.markdown(CLASSROOM_CSS, unsafe_allow_html=True)
        st.html(CLASSROOM_TYPE_CSS + theme.CLASSROOM_FIGURE_CSS)  # style only: goes to the page's event container, takes no room
    return PageContext(classroom)


def page_header(title: str, subtitle: str | None, page: PageContext) -> None:
    """The title, what the URL guard refused, the subtitle (not in classroom mode) and what
    happened to a shared data set's link."""
    st.title(title)
    urlguard.show()
    if subtitle and not page.classroom:
        st.caption(subtitle)
    sharing.delete_panel()
    sharing.show_message()


def page_setup(page: pages.Page | str, subtitle: str | None = None) -> PageContext:
    """A teaching page's start: :func:`page_start`, the guided lesson's narrative, :func:`page_header`.

    ``page`` is the page's registry entry (its icon and title make the heading) or a heading."""
    title = page.heading if isinstance(page, pages.Page) else page
    ctx = page_start(title)
    page_header(title, subtitle, ctx)
    lessons.narrative_panel(ctx.classroom)
    return ctx


def dataset_options(models: tuple[str, ...] = ("bernoulli", "multinomial")) -> list[str]:
    """Shipped data sets (and this session's upload) usable with any of ``models``."""
    names, _ = datasets.dataset_names()
    out = [n for n in names if set(datasets.models_for(n)) & set(models)]
    if state.get(state.UPLOAD_NAME) and set(datasets.models_for(controls.UPLOAD)) & set(models):
        out.append(controls.UPLOAD)
    if state.get(state.SHARED_NAME) and set(datasets.models_for(controls.SHARED)) & set(models):
        out.append(controls.SHARED)
    return out


def text_dataset_options() -> list[str]:
    """Shipped text corpora, and this session's upload or shared set when it is text."""
    names, _ = datasets.dataset_names()
    out = [n for n in names if n in DEFAULT_PIPELINES]
    for name, key in ((controls.UPLOAD, state.UPLOAD_DS), (controls.SHARED, state.SHARED_DS)):
        if getattr(state.get(key), "is_text", False):
            out.append(name)
    return out


def text_dataset_picker(key: str, help: str | None = None) -> str:
    """The page's text data set, in the sidebar (bound to the URL under ``key``; its default is the
    key's row in ``url_table``). Stops the page with a
    word when there is none."""
    options = text_dataset_options()
    if not options:
        st.warning("This page needs a text data set (e.g. sms_spam, or a CSV with a text column).")
        st.stop()
    return dataset_picker(key, container=st.sidebar, label="Data set (text)", options=options, help=help)


def hidden_labels(ds, hidden_pct: int, seed: int):
    """(y, y_obs, y_eval) of a data set with ``hidden_pct`` % of its labels hidden as the lesson view hides
    them: y_obs is -1 where hidden; y_eval the true labels (the data set's own when it has no others)."""
    y = np.asarray(ds.y)
    y_obs, _ = hide_labels(y, fraction=int(hidden_pct) / 100.0, random_state=seed)
    y_eval = np.asarray(ds.y_true) if getattr(ds, "y_true", None) is not None else y
    return y, np.asarray(y_obs), y_eval


def text_counts_dataset(name: str):
    """A text data set with its words counted (its own text settings, counts instead of presence):
    the multinomial's input, whose presence is the Bernoulli's. Stops the page with the reason
    when it cannot be had."""
    try:
        ds = datasets.get_dataset(name)
        if not getattr(ds, "is_text", False):
            raise ValueError(f"{name} is not a text data set.")
        if ds.pipeline.binary:
            ds = datasets.get_dataset(name, ds.pipeline.replace(binary=False))
        return ds
    except ValueError as e:  # nbcore.DataError is a ValueError
        st.error(str(e))
        st.stop()


def dataset_picker(key: str, models=("bernoulli", "multinomial"), container=None,
                   label: str = "Data set", help: str | None = None, options: list[str] | None = None,
                   follow_lesson: bool = False) -> str:
    """The page's data set (bound to the URL under ``key``): the sets ``models`` can read, or
    ``options`` when given; a class link's shared set first, else the default of the key's row in
    ``url_table``. ``follow_lesson``: a page that shows what the lesson shows opens on the lesson's data set
    (the teacher's choice; the link's own value still wins), and says so when it cannot show it."""
    box = container or st.sidebar
    default = url_table.BY_KEY[key].spec.default
    options = dataset_options(models) if options is None else list(options)
    if controls.SHARED in options:
        default = controls.SHARED  # a class link's data set is what every view shows first
    if default not in options:
        default = options[0]
    if key in st.session_state and st.session_state[key] not in options:
        st.session_state[key] = default
    chosen = lesson_dataset() if follow_lesson else None
    cannot = None
    if chosen is not None and default != controls.SHARED:
        if chosen not in options:
            cannot = chosen
        elif key not in st.session_state and key not in st.query_params:
            st.session_state[key] = chosen   # the page opens where the lesson is; its URL key then says so
    names = {controls.UPLOAD: f"{state.get(state.UPLOAD_NAME)} (your upload)",
             controls.SHARED: f"{state.get(state.SHARED_NAME)} (shared)"}
    got = urlguard.selectbox(box, label, options=options, default=default, key=key, help=help,
                             format_func=lambda n: names.get(n, n),
                             special=controls.gone_upload(default))
    if cannot is not None and got == default:
        box.caption(f"The lesson's data set, {derive.md_escape(names.get(cannot, cannot), 60)}, is not one this page "
                    f"can show (it reads {' or '.join(models)} data): it shows {derive.md_escape(names.get(got, got), 60)}.")
    return got


def data_and_model(prefix: str, models=("bernoulli", "multinomial"), follow_lesson: bool = False) -> tuple[str, str]:
    """A page's first two sidebar pickers: its data set and the event model, bound to the URL as
    ``<prefix>_dataset`` and ``<prefix>_model`` (``follow_lesson``: see :func:`dataset_picker`)."""
    dataset = dataset_picker(f"{prefix}_dataset", models=models, follow_lesson=follow_lesson)
    return dataset, model_picker(f"{prefix}_model", dataset, allowed=models)


def lesson_dataset() -> str | None:
    """The data set of the session's lesson (what the teacher chose in the lesson view), or None before any."""
    cfg = getattr(st.session_state.get(state.LESSON), "cfg", None)
    return getattr(cfg, "dataset", None)


def model_picker(key: str, dataset: str, allowed=("bernoulli", "multinomial"), container=None) -> str:
    box = container or st.sidebar
    models = [m for m in datasets.models_for(dataset) if m in allowed] or list(allowed[:1])
    if len(models) == 1:
        box.caption(f"Event model: **{models[0]}**")
        urlguard.not_used(key, f"does not apply: {dataset} allows only the {models[0]} model here, which is used")
        return models[0]
    if key in st.session_state and st.session_state[key] not in models:
        st.session_state[key] = models[0]
    return urlguard.radio(box, "Event model", options=models, default=models[0], key=key, horizontal=True)


def lam_picker(key: str, container=None, label: str = "Smoothing λ") -> float:
    """λ on the grid of the lab, bound to the URL under ``key`` (its default: the key's row in ``url_table``)."""
    box = container or st.sidebar
    return float(urlguard.select_slider(box, label, format_func=controls.fmt_lam, key=key))


def prepare(dataset: str, model: str, hidden_pct: int, seed: int):
    """nblab.prepare.prepare for the given data settings (the other DataConfig fields are unused there).

    Data the model cannot use is shown as a message and the page stops (never a traceback).
    """
    cfg = controls.DataConfig(dataset=dataset, model=model, hidden_pct=int(hidden_pct), init="labeled", seed=int(seed),
                              unlabeled_weight=1.0, max_iter=100, tol=1e-6)
    try:

        return lesson_prepare.prepare(cfg, datasets.get_dataset)
    except ValueError as e:
        st.error(str(e))
        st.stop()


def dataset_for_model(dataset: str, model: str):
    """(Dataset, X prepared for `model`), or a message and a stopped page if they don't fit."""
    try:
        ds = datasets.get_dataset(dataset)
        return ds, ds.for_model(model)
    except ValueError as e:
        st.error(str(e))
        st.stop()


# ---- cached computations with a progress bar -----------------------------------------------

@st.cache_data(show_spinner=False, max_entries=64)
def _store(kind: str, key: tuple, _value=None):
    """A cache slot: raises KeyError when empty (exceptions are not cached), so a miss
    can be computed *outside* st.cache_data, with a live progress bar, and then stored."""
    if _value is None:
        raise KeyError(kind)
    return _value


def cached(kind: str, key: tuple, compute: Callable, text: str, shareable: bool = True):
    """compute(callback) with a progress bar, cached across sessions by (kind, key).

    ``key`` must be plain values only. ``shareable=False`` (an uploaded file) skips the
    shared cache. A rerun (a control changed) stops the script inside the callback, so a
    half-done computation is never stored."""
    if shareable:
        try:
            return _store(kind, key)
        except KeyError:
            pass
    bar = st.progress(0.0, text=text)

    def callback(done, total):
        bar.progress(min(1.0, done / max(1, total)), text=f"{text} {done}/{total}")

    value = compute(callback)
    bar.empty()
    if shareable:
        _store(kind, key, _value=value)
    return value


def is_shared(dataset: str) -> bool:
    """Shipped data may go into the cross-session cache; a session's upload may not."""
    return dataset not in controls.USER_DATA  # "shared" names a different file in each session
