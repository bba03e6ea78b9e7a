"""Every URL key of every page, in one table: its name, the page that reads it, the widget it is
bound to and the values it takes (pure data, no Streamlit).

Each row's ``spec`` is a ``url_values`` spec: the bounds and step of a number, the grid of a
select slider, the options of a choice, and the default a refused value falls back to. ``...``
in a spec is a value known only when the page runs (the data sets loaded, the number of rows of
the data set picked, a data set's own text settings). A key bound to a widget is drawn through
the ``urlguard`` wrapper named in its row, which takes the range, step, options and default from
this table: a page passes only the ``...`` values (``urlguard.slider(st.sidebar, "How many",
key="sm_n")``). ``tests/app/test_url_table.py`` opens every page and checks that every key a page
draws is here under that page, and that every row is drawn.

Keys of the same name on two pages are two settings (``hidden`` on the lesson is not
``sm_hidden`` on the smoothing explorer); a teaching page prefixes its keys with its own short
name so that a link carries them side by side.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard import pages
from dashboard.pages import Page
from dashboard.ui.url_values import Choice, Flag, Grid, Many, Number, Range, Text
from nblab import i18n
from nblab.defaults import DEFAULTS, INITS, LAMBDAS, MAX_ITER_MAX, SEED_MAX, SPEEDS, TOLS

#: the page of a key that every page reads
EVERY_PAGE = None
#: a value known only when the page runs
AT_RUN_TIME = ...


@dataclass(frozen=True)
class UrlKey:
    """One URL key: ``widget`` is the ``urlguard`` wrapper that draws it, or ``"value_of"`` for a
    setting read without its widget, or ``"param"`` for a value that is not a widget's."""
    key: str
    page: Page | None
    widget: str
    spec: Any = None
    about: str = ""


def _seed(key: str, page: Page, default: int = 0) -> UrlKey:
    return UrlKey(key, page, "number_input", Number(0, SEED_MAX, default, None, True))


def _lam(key: str, page: Page, default: float = 1.0) -> UrlKey:
    return UrlKey(key, page, "select_slider", Grid(LAMBDAS, default))


def _dataset(key: str, page: Page, default: str) -> UrlKey:
    return UrlKey(key, page, "selectbox", Choice(AT_RUN_TIME, default, what="data set"),
                  "a shipped data set, or this session's upload (options: the data sets the page can use)")


def _model(key: str, page: Page) -> UrlKey:
    return UrlKey(key, page, "radio", Choice(AT_RUN_TIME, AT_RUN_TIME, what="event model"),
                  "an event model the data set allows (default: the first it allows)")


def _percent(key: str, page: Page, default: int, step: int) -> UrlKey:
    return UrlKey(key, page, "slider", Number(0, 100, default, step, True), "per cent of the labels hidden")


def _uw(key: str, page: Page) -> UrlKey:
    return UrlKey(key, page, "slider", Number(0.0, 1.0, 1.0, 0.05))


def _count(key: str, page: Page, lo: int, hi: int, default: int) -> UrlKey:
    return UrlKey(key, page, "slider", Number(lo, hi, default, 1, True))


LESSON, SM, TRAP, SMP, SBS, VOC, RS = (pages.LESSON, pages.SMOOTHING, pages.TRAP, pages.SAMPLING,
                                       pages.SIDE_BY_SIDE, pages.VOCABULARY, pages.RESTARTS)
MX, INSP, GS, LB, LS, EVM, COIN, CL, CP = (pages.MIXTURE2D, pages.INSPECTOR, pages.GAUSSIAN, pages.BUDGET,
                                           pages.SWITCHING, pages.EVENT_MODELS, pages.COIN, pages.CLIMB,
                                           pages.COMPONENTS)

KEYS: tuple[UrlKey, ...] = (
    # every page
    UrlKey("classroom", EVERY_PAGE, "toggle", Flag(DEFAULTS["classroom"]), "classroom mode (kept by every link)"),
    UrlKey("player", EVERY_PAGE, "param", ("on", "off", "true", "false", "1", "0", "yes", "no", "program"),
           "the lesson's browser player on or off, or the lesson drawn by the lesson program (any other value "
           "gets a notice on every page)"),
    UrlKey("lesson", EVERY_PAGE, "param", AT_RUN_TIME, "a guided lesson's id: its narrative in the sidebar"),
    UrlKey("data", EVERY_PAGE, "param", AT_RUN_TIME, "a shared data set's id"),
    UrlKey("delete", EVERY_PAGE, "param", AT_RUN_TIME, "with data=: the sharer's key that deletes it"),
    UrlKey("lang", EVERY_PAGE, "param", Choice(list(i18n.LANGS), AT_RUN_TIME, what="language"),
           "the app's language, the lab page's values (en, es, de, fr); written only when it is not the browser's "
           "(Accept-Language), the default; the sidebar's picker sets it (dashboard/ui/controls.py)"),
    # the lesson: its sidebar (dashboard/ui/controls.py)
    _dataset("dataset", LESSON, DEFAULTS["dataset"]),
    _model("model", LESSON),
    _percent("hidden", LESSON, DEFAULTS["hidden"], 1),
    UrlKey("lam", LESSON, "select_slider", Grid(LAMBDAS, DEFAULTS["lam"]), "λ, the smoothing"),
    UrlKey("speed", LESSON, "select_slider", Choice(list(SPEEDS), DEFAULTS["speed"],
                                                    what="setting")),
    UrlKey("init", LESSON, "selectbox", Choice(INITS, DEFAULTS["init"], what="initialisation"),
           "drawn under Advanced; read without its widget in classroom mode"),
    UrlKey("seed", LESSON, "number_input", Number(0, SEED_MAX, DEFAULTS["seed"], None, True)),
    UrlKey("uw", LESSON, "slider", Number(0.0, 1.0, DEFAULTS["uw"], 0.05), "the unlabelled rows' weight"),
    UrlKey("max_iter", LESSON, "number_input", Number(1, MAX_ITER_MAX, DEFAULTS["max_iter"], None, True)),
    UrlKey("tol", LESSON, "select_slider", Grid(TOLS, DEFAULTS["tol"]), "the convergence tolerance"),
    UrlKey("t", LESSON, "value_of", Number(0, 1000, 0, None, True), "the iteration a link restores"),
    # the lesson: text settings (dashboard/ui/text_controls.py), for a data set of texts
    # (the defaults are the data set's own settings)
    UrlKey("tokens", LESSON, "segmented_control", Choice(["words", "chars"], AT_RUN_TIME)),
    UrlKey("ngram", LESSON, "slider", Range(1, 5, AT_RUN_TIME, None, True), "n-gram range (from, to)"),
    UrlKey("counts", LESSON, "radio", Choice(["presence", "counts"], AT_RUN_TIME, what="choice")),
    UrlKey("vocab", LESSON, "selectbox", Choice(["all", "500", "1000", "2000", "5000", "10000", "20000"],
                                                AT_RUN_TIME, what="choice")),
    UrlKey("min_df", LESSON, "number_input", Number(1, 100, AT_RUN_TIME, None, True)),
    UrlKey("stop", LESSON, "checkbox", Flag(AT_RUN_TIME), "drop English stop words"),
    UrlKey("lower", LESSON, "checkbox", Flag(AT_RUN_TIME), "lower-case the text"),
    # the lesson: its panels (dashboard/lesson/panels/)
    UrlKey("doc_sort", LESSON, "segmented_control",
           Choice(["least sure first", "most sure first", "flipped first", "wrong first", "document order"],
                  "least sure first")),
    UrlKey("theta_tol", LESSON, "selectbox", Choice([None, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8], None, what="choice"),
           "the course session's stop rule ‖Δθ‖² < ε (None: off)"),
    UrlKey("theta_norm", LESSON, "radio", Choice(["parameters", "both_values"], "parameters", what="choice")),
    # posterior inspector
    _dataset("insp_dataset", INSP, "toy_spam"), _model("insp_model", INSP), _lam("insp_lam", INSP),
    UrlKey("insp_words", INSP, "multiselect", Many(AT_RUN_TIME, []), "the words present in the message"),
    # smoothing explorer
    _dataset("sm_dataset", SM, "synthetic_spam"), _model("sm_model", SM), _percent("sm_hidden", SM, 90, 5),
    _seed("sm_seed", SM), UrlKey("sm_range", SM, "slider", Range(-4, 4, (-3, 3), None, True), "λ grid: powers of ten"),
    # the symmetric trap
    _dataset("trap_dataset", TRAP, "abcd"), _model("trap_model", TRAP), _lam("trap_lam", TRAP),
    UrlKey("trap_start", TRAP, "radio", Choice(["uniform", "random"], "uniform", what="choice")),
    _count("trap_labels", TRAP, 0, 10, 0), _seed("trap_seed", TRAP),
    # restarts & local optima
    _dataset("rs_dataset", RS, "synthetic_spam"), _model("rs_model", RS), _lam("rs_lam", RS),
    _percent("rs_hidden", RS, 100, 5), _count("rs_n", RS, 2, 40, 10), _seed("rs_seed", RS),
    # label switching
    _dataset("ls_dataset", LS, "synthetic_spam"), _model("ls_model", LS), _lam("ls_lam", LS),
    _seed("ls_seed", LS, 1),
    # label-budget curve
    _dataset("lb_dataset", LB, "synthetic_spam"), _lam("lb_lam", LB), _uw("lb_uw", LB),
    UrlKey("lb_model", LB, "radio", Choice(AT_RUN_TIME, AT_RUN_TIME, what="event model"),
           "an event model the data set allows, or both (default: the first)"),
    _count("lb_seeds", LB, 1, 10, 3),
    # side by side
    _dataset("sbs_dataset", SBS, "synthetic_spam"), _model("sbs_model", SBS), _percent("sbs_hidden", SBS, 90, 5),
    _seed("sbs_seed", SBS), _lam("sbs_lam_a", SBS, 0.01), _lam("sbs_lam_b", SBS, 1.0),
    UrlKey("sbs_init_a", SBS, "selectbox", Choice(INITS, "labeled", what="choice")),
    UrlKey("sbs_init_b", SBS, "selectbox", Choice(INITS, "labeled", what="choice")),
    _uw("sbs_uw_a", SBS), _uw("sbs_uw_b", SBS),
    # sampling from the model
    _dataset("smp_dataset", SMP, "synthetic_spam"), _model("smp_model", SMP), _lam("smp_lam", SMP),
    _percent("smp_hidden", SMP, 90, 5), _count("smp_n", SMP, 1, 12, 4), _seed("smp_seed", SMP),
    # Gaussian NB corner
    UrlKey("gs_source", GS, "radio", Choice(["typed", "random"], "typed", what="choice")),
    UrlKey("gs_a", GS, "text_input", Text(2000, "85, 95, 100, 12"), "class A's values (typed)"),
    UrlKey("gs_b", GS, "text_input", Text(2000, "40, 55, 48, 62, 51"), "class B's values (typed)"),
    _count("gs_n", GS, 2, 50, 4),
    UrlKey("gs_mua", GS, "slider", Number(-5.0, 5.0, -1.0, 0.5)),
    UrlKey("gs_mub", GS, "slider", Number(-5.0, 5.0, 1.5, 0.5)),
    UrlKey("gs_sd", GS, "slider", Number(0.2, 3.0, 1.0, 0.1)),
    _seed("gs_seed", GS),
    # the coin and the prior
    UrlKey("coin_source", COIN, "radio", Choice(["random", "typed"], "random", what="choice")),
    UrlKey("coin_truth", COIN, "slider", Number(0.05, 0.95, 0.7, 0.05)),
    _count("coin_total", COIN, 1, 200, 50), _seed("coin_seed", COIN),
    UrlKey("coin_flips", COIN, "text_input", Text(2000, "HHTH"), "the flips, typed (H / T)"),
    UrlKey("coin_prior", COIN, "radio", Choice(["lambda", "beta"], "lambda", what="choice")), _lam("coin_lam", COIN),
    UrlKey("coin_a", COIN, "number_input", Number(0.5, 100.0, 2.0)),
    UrlKey("coin_b", COIN, "number_input", Number(0.5, 100.0, 2.0)),
    # the 2-D picture
    UrlKey("mx_preset", MX, "selectbox", Choice(["well separated", "overlapping", "unequal sizes",
                                                 "one class with few labels", "stretched"], "well separated",
                                                what="choice")),
    _seed("mx_seed", MX), UrlKey("mx_init", MX, "radio", Choice(["labeled", "random"], "labeled", what="choice")),
    UrlKey("mx_kmeans", MX, "toggle", Flag(True)),
    # why EM climbs
    _dataset("cl_dataset", CL, "toy_spam"), _model("cl_model", CL), _lam("cl_lam", CL),
    UrlKey("cl_hidden", CL, "select_slider", Grid([0, 25, 50, 75, 90, 100], 50)),
    UrlKey("cl_init", CL, "radio", Choice(["random", "labeled", "uniform"], "random", what="choice")),
    _seed("cl_seed", CL),
    # components per class
    _dataset("cp_dataset", CP, "digits"), _lam("cp_lam", CP),
    UrlKey("cp_hidden", CP, "select_slider", Grid([50, 80, 90, 95, 98], 95)),
    _count("cp_seeds", CP, 1, 10, 5), UrlKey("cp_ms", CP, "multiselect", Many([1, 2, 3, 4, 5], [1, 2, 3])),
    # event models side by side
    _dataset("evm_dataset", EVM, "sms_spam"), _lam("evm_lam", EVM), _percent("evm_hidden", EVM, 95, 1),
    _uw("evm_uw", EVM), _seed("evm_seed", EVM),
    UrlKey("evm_vocab", EVM, "select_slider", Choice([100, 300, 1000, 3000, 10000, 20000, "all"], "all",
                                                     what="setting"), "the most frequent words kept"),
    UrlKey("evm_doc", EVM, "number_input", Number(0, AT_RUN_TIME, AT_RUN_TIME, None, True),
           "the document (row) shown: up to the data set's last row"),
    # vocabulary curve
    _dataset("voc_dataset", VOC, "sms_spam"), _lam("voc_lam", VOC), _percent("voc_hidden", VOC, 95, 1),
    _uw("voc_uw", VOC), _seed("voc_seed", VOC),
)

BY_KEY: dict[str, UrlKey] = {k.key: k for k in KEYS}


def keys_of(page: Page) -> list[UrlKey]:
    """The URL keys ``page`` reads: its own, then those of every page."""
    return [k for k in KEYS if k.page == page] + [k for k in KEYS if k.page is EVERY_PAGE]
