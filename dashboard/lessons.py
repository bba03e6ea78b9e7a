"""Guided lessons (texts and links) and the shared furniture of the depth views.

Two parts:

* ``LESSONS``: five ready scenarios. Each is a link whose URL carries the
  settings (the target page binds its widgets to query parameters, so the
  link *is* the configuration) plus ``lesson=<id>``; ``narrative_panel()``
  shows the lesson's short narrative in the sidebar, beside the controls,
  whenever ``lesson=`` is in the URL.
* Small helpers every depth view uses: page header (classroom mode, narrative),
  a data-set picker, and ``cached()`` — st.cache_data keyed by plain
  parameters, with a progress bar that is only drawn when the work is really
  done (a rerun caused by changing a control stops it at the next update).

Nothing user-specific is kept at module level.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import streamlit as st

from dashboard import controls, runner, state

QP = controls.QP
LESSON_PARAM = "lesson"

# Page files of the depth views (paths relative to dashboard/, as st.Page / AppTest use them)
P_LESSON = "views/lesson.py"
P_INSPECTOR = "views/inspector.py"
P_SMOOTHING = "views/smoothing.py"
P_TRAP = "views/trap.py"
P_RESTARTS = "views/restarts.py"
P_SWITCHING = "views/switching.py"
P_BUDGET = "views/budget.py"
P_SIDE = "views/side_by_side.py"
P_SAMPLING = "views/sampling.py"
P_GAUSSIAN = "views/gaussian.py"
P_GUIDED = "views/guided.py"


# ---- the five guided lessons --------------------------------------------------------------

@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    page: str                      # page file the link opens
    params: dict                   # query parameters = the settings of that page's widgets
    narrative: str                 # shown beside the controls
    try_this: tuple = ()           # short "now do this" steps
    also: tuple = field(default=())  # extra links: (label, page, params)


LESSONS: list[Lesson] = [
    Lesson(
        id="supervised",
        title="1 · Supervised Naive Bayes on the toy table",
        page=P_LESSON,
        params={"dataset": "toy_spam", "hidden": "0", "lam": "0", "init": "labeled"},
        narrative=(
            "Six e-mails, three words, every label visible. With λ = 0 Naive Bayes is pure counting "
            "(eq. 12–13): α_spam = 3/6 = ½, β(Cruise | spam) = 2/3, β(Cruise | ham) = 1/3. "
            "Because every label is known, one EM step *is* the supervised fit — nothing is guessed."
        ),
        try_this=("Press **Step** once and read α and β off the charts.",
                  "Open the maths panel: check β(Win | spam) = 2/3 by counting rows.",
                  "Then open the **Posterior inspector** link: P(spam | Cruise, Lottery) = 2/3."),
        also=(("Posterior inspector: P(spam | Cruise, Lottery)", P_INSPECTOR,
               {"insp_dataset": "toy_spam", "insp_lam": "0", "insp_words": "Cruise,Lottery"}),),
    ),
    Lesson(
        id="hide",
        title="2 · Hide the labels",
        page=P_LESSON,
        params={"dataset": "synthetic_spam", "hidden": "90", "lam": "1", "init": "labeled"},
        narrative=(
            "600 e-mails, but EM only sees 10 % of the labels. It starts from the labelled ones "
            "(seed 003 step 1) and then alternates: guess the hidden labels softly (E-step, eq. 21), "
            "re-count with those guesses (M-step, eq. 23–24). Accuracy is measured on exactly the "
            "hidden documents, and compared with Naive Bayes trained on the visible labels alone."
        ),
        try_this=("Press **Play** and watch accuracy and the objective climb.",
                  "Raise “Labels hidden” to 100 %: what happens to the class names?",
                  "See the **Label-budget curve** for the whole picture."),
        also=(("Label-budget curve", P_BUDGET, {}),),
    ),
    Lesson(
        id="smoothing",
        title="3 · Why smoothing",
        page=P_SMOOTHING,
        params={"sm_dataset": "synthetic_spam", "sm_hidden": "90"},
        narrative=(
            "With λ = 0 a word never seen with a class gets β = 0: the model then says it is "
            "*impossible* for that class to contain the word (seed 000 §3.1), and one word can veto a "
            "class. λ pseudo-documents per class (eq. 14) fix that; but as λ → ∞ every β is pulled "
            "to ½ and the words stop carrying any information."
        ),
        try_this=("Read “λ = 0: impossible events”: one word vetoes a class.",
                  "Follow the rare word's β from λ = 0 to λ = 1000; where is accuracy best?",
                  "In the lesson view, set λ = 0 on toy_spam and look at the maths panel."),
        also=(("Lesson view with λ = 0 on the toy table", P_LESSON,
               {"dataset": "toy_spam", "hidden": "50", "lam": "0", "init": "labeled"}),),
    ),
    Lesson(
        id="trap",
        title="4 · The symmetric trap",
        page=P_TRAP,
        params={"trap_dataset": "abcd", "trap_start": "uniform", "trap_labels": "0"},
        narrative=(
            "No labels and the uniform start (α = 1/K, β = ½): every class explains every document "
            "equally well, so every responsibility is 1/K, so the M-step gives every class the same β "
            "again — EM is stuck at the symmetric point for ever (seed 001). A random start, or a "
            "handful of labels, breaks the tie."
        ),
        try_this=("Press **Step**: every responsibility is exactly 1/K.",
                  "Pick the random start, or reveal 2 labels, and step again."),
    ),
    Lesson(
        id="optima",
        title="5 · Local optima",
        page=P_RESTARTS,
        params={"rs_dataset": "digits", "rs_hidden": "100", "rs_n": "10"},
        narrative=(
            "EM only climbs: it stops at the top of whichever hill it started on. Run it from several "
            "random starts and compare the final objective with the accuracy on the hidden labels. "
            "A higher likelihood does not always mean a better classifier — and without labels the "
            "clusters may even come out with swapped names."
        ),
        try_this=("Press **Run restarts** (about 5 s): 1,797 digits, no labels, 10 random starts.",
                  "Find a start with a lower objective but a higher accuracy than the best one.",
                  "Open it in the lesson view and look at its β images.",
                  "See **Label switching** for why “accuracy as labelled” can be 14 %."),
        also=(("Label switching", P_SWITCHING, {}),),
    ),
]
BY_ID = {lesson.id: lesson for lesson in LESSONS}


def link_params(lesson: Lesson) -> dict:
    return {**lesson.params, LESSON_PARAM: lesson.id}


def current_lesson() -> Lesson | None:
    return BY_ID.get(st.query_params.get(LESSON_PARAM, ""))


def narrative_panel(container=None) -> Lesson | None:
    """If the URL has ``lesson=<id>``, show that lesson's narrative (sidebar by default)."""
    lesson = current_lesson()
    if lesson is None:
        return None
    box = (container or st.sidebar).container(border=True)
    box.markdown(f":material/school: **Guided lesson {lesson.title}**")
    box.markdown(lesson.narrative)
    if lesson.try_this:
        box.markdown("**Try this:**\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(lesson.try_this, 1)))
    for label, page, params in lesson.also:
        box.page_link(page, label=label, icon=":material/arrow_forward:", query_params={**params, LESSON_PARAM: lesson.id})
    i = LESSONS.index(lesson)
    if i + 1 < len(LESSONS):
        nxt = LESSONS[i + 1]
        box.page_link(nxt.page, label=f"Next: {nxt.title}", icon=":material/skip_next:", query_params=link_params(nxt))
    box.page_link(P_GUIDED, label="All guided lessons", icon=":material/school:")
    return lesson


# ---- page furniture ---------------------------------------------------------------------

# classroom-mode CSS, used by the lesson page (views/lesson.py) and every depth view
CLASSROOM_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 22px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li,
[data-testid="stCaptionContainer"], label, button p { font-size: 1.25rem !important; }
[data-testid="stMetricValue"], [data-testid="stMetricValue"] *,
[data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p { font-size: 3rem !important; line-height: 1.2; }
[data-testid="stMetricLabel"] p { font-size: 1.3rem !important; }
h1 { font-size: 3rem !important; } h2, h3 { font-size: 2.1rem !important; }
.katex { font-size: 1.45em !important; }
</style>"""


def page_setup(title: str, subtitle: str | None = None) -> int:
    """Session state, classroom toggle (shared with the lesson page), narrative, title.
    Returns the chart font size."""
    state.init()
    classroom = controls.classroom_toggle()
    if classroom:
        st.markdown(CLASSROOM_CSS, unsafe_allow_html=True)
    narrative_panel()
    st.title(title)
    if subtitle and not classroom:
        st.caption(subtitle)
    return 22 if classroom else 15


def dataset_options(models: tuple[str, ...] = ("bernoulli", "multinomial")) -> list[str]:
    """Shipped data sets (and this session's upload) usable with any of ``models``."""
    names, _ = runner.dataset_names()
    out = [n for n in names if set(runner.models_for(n)) & set(models)]
    if state.get(state.UPLOAD_NAME) and set(runner.models_for(controls.UPLOAD)) & set(models):
        out.append(controls.UPLOAD)
    return out


def dataset_picker(key: str, default: str, models=("bernoulli", "multinomial"), container=None,
                   label: str = "Data set", help: str | None = None) -> str:
    box = container or st.sidebar
    options = dataset_options(models)
    if default not in options:
        default = options[0]
    if key in st.session_state and st.session_state[key] not in options:
        st.session_state[key] = default
    upload = state.get(state.UPLOAD_NAME)
    return box.selectbox(label, options, index=options.index(default), key=key, bind=QP, help=help,
                         format_func=lambda n: f"{upload} (your upload)" if n == controls.UPLOAD else n)


def model_picker(key: str, dataset: str, allowed=("bernoulli", "multinomial"), container=None) -> str:
    box = container or st.sidebar
    models = [m for m in runner.models_for(dataset) if m in allowed] or list(allowed[:1])
    if len(models) == 1:
        box.caption(f"Event model: **{models[0]}**")
        return models[0]
    if key in st.session_state and st.session_state[key] not in models:
        st.session_state[key] = models[0]
    return box.radio("Event model", models, index=0, key=key, bind=QP, horizontal=True)


def lam_picker(key: str, default: float = 1.0, container=None, label: str = "Smoothing λ") -> float:
    box = container or st.sidebar
    return float(box.select_slider(label, controls.LAMBDAS, value=default, format_func=controls.fmt_lam,
                                   key=key, bind=QP))


def prepare(dataset: str, model: str, hidden_pct: int, seed: int):
    """runner.prepare for the given data settings (the other DataConfig fields are unused there).

    Data the model cannot use is shown as a message and the page stops (never a traceback).
    """
    cfg = controls.DataConfig(dataset=dataset, model=model, hidden_pct=int(hidden_pct), init="labeled", seed=int(seed),
                              unlabeled_weight=1.0, max_iter=100, tol=1e-6)
    try:
        return runner.prepare(cfg)
    except ValueError as e:
        st.error(str(e))
        st.stop()


def dataset_for_model(dataset: str, model: str):
    """(Dataset, X prepared for `model`), or a message and a stopped page if they don't fit."""
    try:
        ds = runner.get_dataset(dataset)
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
    return dataset != controls.UPLOAD
