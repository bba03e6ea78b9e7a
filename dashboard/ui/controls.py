"""Widgets. Each *_controls() draws a group of widgets and returns a small
frozen dataclass of plain values; nothing here touches the EM run.

The widget key is also the URL query-parameter name (bind="query-params"), so
the whole configuration lives in the URL and a teacher can share one link,
e.g. ?dataset=digits&hidden=95&lam=0.1&classroom=true
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard.ui import state, urlguard
from nblab import defaults, i18n, vocabulary
from nblab.config import DataConfig
from nblab.defaults import DEFAULTS, INIT_LABELS, INITS, LAMBDAS, MAX_ITER_MAX, SEED_MAX, TOLS  # noqa: F401  (the lesson's choices)

# ---- option lists (shared with the lab page: nblab.defaults) -----------------
LAM_LABEL = i18n.N_("Smoothing λ")  # the λ slider's label (the browser player finds the slider by it: lam_label())
# Play speed: (EM steps per tick, seconds between ticks of the st.fragment(run_every=...))
SPEEDS = {name: vocabulary.server_tick(name) for name in defaults.SPEEDS}
UPLOAD = "upload"  # dataset option meaning "this session's uploaded CSV"
SHARED = "shared"  # dataset option meaning "the data set shared by a link (data=<id> in the URL)"
USER_DATA = (UPLOAD, SHARED)  # data sets that are not shipped (no truth panel, no cross-session cache by name)

# widget keys = URL parameter names
K_DATASET, K_MODEL, K_HIDDEN, K_LAM = "dataset", "model", "hidden", "lam"
K_INIT, K_SEED, K_UW, K_MAXIT, K_TOL = "init", "seed", "uw", "max_iter", "tol"
K_CLASSROOM, K_UPLOADER, K_SPEED = "classroom", "uploader", "speed"
K_STEP, K_PLAY, K_RESET, K_CONVERGE, K_SCRUB = "step", "play", "reset", "converge", "scrub"
K_PAUSE = "pause"
K_DOC, K_WORD = "doc", "word"
K_PARAM_VIEW = "param_view"
K_LANG = "lang"  # the URL's key of the language (the picker's widget is not bound to it: see language_picker)

QP = "query-params"


@dataclass(frozen=True)
class Settings:
    data: DataConfig
    smoothing: float  # λ; changing it continues the current run (EMRun.with_settings)
    classroom: bool
    speed: str = DEFAULTS["speed"]  # key of SPEEDS


@dataclass(frozen=True)
class RunActions:
    step: bool
    play: bool       # Play or Pause pressed
    reset: bool
    converge: bool


@dataclass(frozen=True)
class MathsChoice:
    doc: int
    word: int


def lam_label() -> str:
    """The λ slider's label in the page's language (the browser player is told it: it finds the slider by it)."""
    return _(LAM_LABEL)


def fmt_lam(v: float) -> str:
    # also the URL value (bound widgets put the formatted option in the URL): keep it short
    return f"{v:g}"


def _fmt_tol(v: float) -> str:
    return f"{v:.0e}"


#: Classroom mode as page context: this session's choice, kept outside the toggle's own widget state.
#: Streamlit resets a bound widget to its default on the first page switch after a page was opened
#: with ``?classroom=true`` (the URL loses the flag, and the next switch brings it back): every page's
#: toggle starts from this value instead, and every link the app builds carries it (carry).
CLASSROOM_ON = "classroom_on"


def classroom_wanted() -> bool:
    """Whether this run is in classroom mode, before any widget is drawn (app.py's page config reads it):
    the session's choice, else the URL's ``classroom=`` (a link opened in a new tab or a reload)."""
    if CLASSROOM_ON in st.session_state:
        return bool(st.session_state[CLASSROOM_ON])
    raw = st.query_params.get_all(K_CLASSROOM)
    return bool(raw) and raw[-1].strip().lower() in ("true", "1", "yes", "on")


def carry(query_params: dict | None = None) -> dict:
    """A link's query parameters with the page context every link of the app keeps: ``classroom=true``
    while classroom mode is on (the session's choice), and ``lang=`` when the session chose a language other
    than the browser's. Without them a link opened in a new tab, or the default page's plain ``<a href>`` (a
    fresh session), drops the mode and the language."""
    out = dict(query_params or {})
    if classroom_wanted():
        out[K_CLASSROOM] = "true"
    lang = st.session_state.get(LANG_CHOSEN)
    if lang in i18n.LANGS and lang != browser_lang():
        out[K_LANG] = lang
    return out


# ---- the language ---------------------------------------------------------------------------------------------

#: the session's language, as the picker or a link chose it (absent: the browser's)
LANG_CHOSEN = "lang_chosen"
#: the picker's widget key (not bound to the URL: a bound select box writes its shown option, "Deutsch", into
#: the URL; the URL says "de", as the lab page's link does)
LANG_PICK = "lang_pick"
#: the URL's language this session has read already (a link's value is taken once, not again on every rerun)
LANG_SEEN = "lang_seen"


def browser_lang() -> str:
    """Our language for the browser: its Accept-Language (st.context.headers), else its navigator.language
    (st.context.locale), else English."""
    try:
        tags = i18n.accept_language(st.context.headers.get("Accept-Language"))
    except Exception:  # noqa: BLE001 - no request here (a test run): English
        tags = []
    if not tags:
        try:
            tags = [st.context.locale] if st.context.locale else []
        except Exception:  # noqa: BLE001
            tags = []
    return i18n.pick(tags)


def page_lang() -> str:
    """The page's language on this run, before any widget is drawn: the session's choice, else a link's
    ``lang=`` (one of ours), else the browser's."""
    if st.session_state.get(LANG_CHOSEN) in i18n.LANGS:
        return st.session_state[LANG_CHOSEN]
    try:
        raw = st.query_params.get_all(K_LANG)
    except Exception:  # noqa: BLE001 - never let a hostile URL stop the page
        raw = []
    got = raw[-1].strip().lower() if raw else ""
    return got if got in i18n.LANGS else browser_lang()


def _(msgid: str, **params) -> str:
    """``msgid`` in the page's language (nblab.i18n's catalogue; English when it lacks it)."""
    return i18n.gettext(page_lang(), msgid, **params)


def _picked() -> None:
    st.session_state[LANG_CHOSEN] = st.session_state.get(LANG_PICK)


def language_picker() -> str:
    """The language picker at the top of the sidebar, each language named in itself. A link's ``lang=`` chooses
    (once: the reader's pick afterwards is theirs); a value that is not one of ours gets the URL guard's notice
    and the browser's language is used. The choice is kept for the session (page to page) and written into the
    URL while it is not the browser's. Returns the page's language."""
    default = browser_lang()
    spec = urlguard.spec_of(K_LANG, default=default)
    try:
        raw = [str(v) for v in st.query_params.get_all(K_LANG)]
    except Exception:  # noqa: BLE001
        raw = []
    urlguard.one_of(K_LANG, list(i18n.LANGS), f"the page is in {i18n.NAMES[default]} ({default})")
    if raw and raw != st.session_state.get(LANG_SEEN):   # a language in the link not read yet
        st.session_state[LANG_SEEN] = raw
        st.session_state[LANG_CHOSEN] = spec.decide(K_LANG, raw).value
    lang = st.session_state.get(LANG_CHOSEN)
    if lang not in i18n.LANGS:
        lang = default
    st.session_state[LANG_PICK] = lang
    st.sidebar.selectbox(i18n.gettext(lang, "Language"), list(i18n.LANGS), key=LANG_PICK,
                         format_func=lambda code: i18n.NAMES[code], on_change=_picked)
    try:
        if lang != default:
            if raw != [lang]:
                st.query_params[K_LANG] = lang
            st.session_state[LANG_SEEN] = [lang]
        elif raw:
            del st.query_params[K_LANG]
            st.session_state.pop(LANG_SEEN, None)
    except Exception:  # noqa: BLE001 - the URL could not be written: the page still speaks the language
        pass
    return lang


def _keep_classroom() -> None:
    st.session_state[CLASSROOM_ON] = bool(st.session_state.get(K_CLASSROOM))


def classroom_toggle() -> bool:
    """The classroom toggle (bound to ``classroom=`` in the URL). A page reached without the flag in its
    URL (a sidebar link, st.page_link) starts from the session's choice, so the mode and the URL keep it."""
    if CLASSROOM_ON in st.session_state and K_CLASSROOM not in st.query_params:
        on = bool(st.session_state[CLASSROOM_ON])
        st.session_state[K_CLASSROOM] = on
        if on:
            # into the URL before the toggle binds to it: a value put into a bound widget through session
            # state does not reach the URL by itself on the first page switch
            try:
                st.query_params[K_CLASSROOM] = "true"
            except Exception:  # noqa: BLE001 - still bound (a later switch): the toggle writes it itself
                pass
    on = urlguard.toggle(
        st.sidebar, _("Classroom mode"), key=K_CLASSROOM, on_change=_keep_classroom,
        help=_("Bigger fonts for a projector; hides the advanced controls."),
    )
    st.session_state[CLASSROOM_ON] = bool(on)
    return bool(on)


def gone_upload(shown_instead: str):
    """For urlguard: explains a link naming an upload this session does not have
    (a reload, a new tab or a server restart lose it)."""
    def explain(raw: str) -> str | None:
        if raw == UPLOAD or raw.endswith("(your upload)"):
            name = raw[: -len("(your upload)")].strip() if raw.endswith("(your upload)") else "a file"
            return (f"this link names an uploaded file (`{urlguard.code(name)}`) that is not in this browser "
                    f"session: uploads stay only in the tab they were made in and are lost on a reload, in "
                    f"a new tab or when the server restarts. Upload the file again (sidebar → Use your own "
                    f"CSV); meanwhile the page shows {shown_instead}")
        return None
    return explain


def _ensure_valid(key: str, options: list, default) -> None:
    """If the key holds a value that is no longer an option (e.g. the model after a
    dataset change), put the default back before the widget is drawn."""
    if key in st.session_state and st.session_state[key] not in options:
        st.session_state[key] = default


def data_controls(dataset_names: list[str], descriptions: dict[str, str], upload_name: str | None,
                  models_for, classroom: bool, shared_name: str | None = None) -> Settings:
    """Sidebar: data set, event model, hidden fraction, λ and (unless classroom mode)
    the advanced settings. `models_for(name)` returns the valid event models.
    ``shared_name``: the file name of the data set a data= link opened (option "shared")."""
    sb = st.sidebar
    dataset = _dataset_control(dataset_names, descriptions, upload_name, shared_name)
    model = _model_control(dataset, models_for)
    # steps of 1 %: 97–99 % hidden (≈ 170–55 labelled SMS) is where Bernoulli and multinomial EM part ways
    hidden = urlguard.slider(sb, _("Labels hidden"), format="%d%%",
                             key=K_HIDDEN,
                             help=_("Share of the labelled documents whose label EM does not see. "
                                    "Accuracy is measured on exactly these documents. Steps of 1 %: "
                                    "click the slider, then ← / → for one step (or set `hidden=98` in the URL)."))
    lam = urlguard.select_slider(sb, lam_label(), format_func=fmt_lam, key=K_LAM,
                                 help=_("Pseudo-counts in eq. 24 (0 = no smoothing). Changing λ mid-run continues "
                                        "from the current parameters; every other setting starts a new run."))

    lang = page_lang()   # the speeds' names in this run's language, whoever formats them later
    speed = urlguard.select_slider(sb, _("Play speed"), key=K_SPEED, format_func=lambda v: i18n.gettext(lang, v),
                                   help=vocabulary.speed_help(lang))
    if classroom:  # advanced widgets are not drawn: use their remembered values, or the (checked) URL values
        init, seed, uw, max_iter, tol = _advanced_values()
    else:
        with sb.expander(_("Advanced"), expanded=False):
            init, seed, uw, max_iter, tol = _advanced_controls()
    data = DataConfig(str(dataset), str(model), int(hidden), str(init), int(seed), float(uw),
                      int(max_iter), float(tol))
    return Settings(data=data, smoothing=float(lam), classroom=classroom, speed=str(speed))


def _dataset_control(dataset_names: list[str], descriptions: dict[str, str], upload_name: str | None,
                     shared_name: str | None) -> str:
    """The lesson's data set picker: the shipped sets, this session's upload and a data= link's set."""
    sb = st.sidebar
    options = list(dataset_names) + ([UPLOAD] if upload_name else []) + ([SHARED] if shared_name else [])
    _ensure_valid(K_DATASET, options, DEFAULTS["dataset"])

    def _fmt(name: str) -> str:
        if name == UPLOAD:
            return f"{upload_name} (your upload)"
        if name == SHARED:
            return f"{shared_name} (shared)"
        return name

    dataset = urlguard.selectbox(
        sb, _("Data set"), options=options, format_func=_fmt, key=K_DATASET, special=gone_upload(DEFAULTS["dataset"]),
        help="\n\n".join(f"**{n}**: {d}" for n, d in descriptions.items()) or None,
    )
    return dataset


def _model_control(dataset: str, models_for) -> str:
    """The event model: a choice when the data set allows several, else the one it allows (said in a caption)."""
    sb = st.sidebar
    models = list(models_for(dataset)) or ["bernoulli"]
    if len(models) > 1:
        _ensure_valid(K_MODEL, models, models[0])
        model = urlguard.radio(sb, _("Event model"), options=models, default=models[0], key=K_MODEL, horizontal=True,
                               help=_("How a document's features are modelled given its class."))
    else:
        model = models[0]
        sb.caption(_("Event model: **{model}** (the only one this data allows)", model=model))
        urlguard.not_used(K_MODEL, f"does not apply: {dataset} allows only the {model} model, which is used")
    return model


def _advanced_values():
    """(init, seed, unlabelled weight, max iterations, tolerance) without their widgets: remembered or from the URL."""
    init = urlguard.value_of(K_INIT, urlguard.spec_of(K_INIT), DEFAULTS["init"])
    seed = urlguard.value_of(K_SEED, urlguard.spec_of(K_SEED), DEFAULTS["seed"])
    uw = urlguard.value_of(K_UW, urlguard.spec_of(K_UW), DEFAULTS["uw"])
    max_iter = urlguard.value_of(K_MAXIT, urlguard.spec_of(K_MAXIT), DEFAULTS["max_iter"])
    tol = urlguard.value_of(K_TOL, urlguard.spec_of(K_TOL, fmt=_fmt_tol), DEFAULTS["tol"])
    return init, seed, uw, max_iter, tol


def _advanced_controls():
    """(init, seed, unlabelled weight, max iterations, tolerance) from the Advanced expander's widgets."""
    init = urlguard.selectbox(st, _("Initialisation"), key=K_INIT, persist_state="session",
                              help="; ".join(f"**{k}**: {_(v)}" for k, v in INIT_LABELS.items()))
    seed = urlguard.number_input(st, _("Seed"), step=1, key=K_SEED,
                                 persist_state="session",
                                 help=_("Which labels are hidden, and the random initialisation."))
    uw = urlguard.slider(st, _("Unlabelled weight"), key=K_UW,
                         persist_state="session",
                         help=_("How much an unlabelled document counts in the M-step (1 = as much as a "
                                "labelled one)."))
    max_iter = urlguard.number_input(st, _("Max iterations"), step=10,
                                     key=K_MAXIT, persist_state="session")
    tol = urlguard.select_slider(st, _("Convergence tolerance"),
                                 format_func=_fmt_tol, key=K_TOL, persist_state="session")
    return init, seed, uw, max_iter, tol


def uploader_key() -> str:
    """The uploader's key now: "uploader", then "uploader_1", "uploader_2"… after each refused file, so the
    uploader never goes on holding a file the app refused (Streamlit lets no code empty a file uploader)."""
    n = int(state.get(state.UPLOADER_SERIAL))
    return K_UPLOADER if n == 0 else f"{K_UPLOADER}_{n}"


def refuse_uploaded_file() -> None:
    """The file in the uploader was refused: the next uploader drawn is a new, empty one."""
    state.put(state.UPLOADER_SERIAL, int(state.get(state.UPLOADER_SERIAL)) + 1)


def upload_control(on_change, max_words: int | None = None) -> None:
    """CSV uploader; the callback receives the file (parsed later, per session). Every file type is taken
    in, so that a file which is not a CSV gets the app's own message (what it looks like, how to save it as
    CSV) rather than the browser's "application/octet-stream files are not allowed"."""
    cap = i18n.number(page_lang(), max_words) if max_words else None
    with st.sidebar.expander(_("Use your own CSV"), expanded=False):
        st.file_uploader(
            _("CSV with a `text` column and a `label` column (empty label = unlabelled), "
              "or feature columns plus `label`"),
            key=uploader_key(), on_change=on_change,
            help=(_("Text is turned into word features; only the {cap} most frequent words are kept.", cap=cap)
                  if cap else None),
        )
        if cap:
            st.caption(_("Text columns: at most {cap} different words are kept (the most frequent). "
                         "Your file stays in your session only.", cap=cap))


# Streamlit merges the clicks of one button that reach the server while the app is still busy
# with an earlier click into a single rerun (ScriptRequests coalesces trigger values): three quick
# Step clicks gave two iterations, 20 clicks at 3/s gave 11. So while the app runs, Step takes
# no clicks and looks it (greyed, busy cursor): every click it takes is one iteration, and a
# click it refuses is visibly refused, never silently merged. The browser marks the app's state
# on its root element (data-test-script-state); from the click until that state changes the lesson's
# run guard (dashboard/lesson/run_guard.js) greys Step the same way.
STEP_BUSY_CSS = """<style>
:is([data-test-script-state="running"], [data-test-script-state="rerunRequested"]) .st-key-step { cursor: progress; }
:is([data-test-script-state="running"], [data-test-script-state="rerunRequested"]) .st-key-step button {
  pointer-events: none; opacity: 0.55; }
</style>"""


def run_controls(playing: bool, done: bool, on_step=None, on_play=None, on_reset=None,
                 on_converge=None, show_play: bool = True) -> RunActions:
    """Step / Play-Pause / Reset / Run to convergence, in one row (callbacks run before the rerun).
    show_play=False leaves Play out (the browser player has its own)."""
    st.html(STEP_BUSY_CSS)  # style only: goes to the page's event container, takes no room
    if show_play:
        c1, c2, c3, c4 = st.columns(4)
    else:
        c1, c3, c4 = st.columns(3)
        c2 = None
    step = c1.button("Step", icon=":material/skip_next:", key=K_STEP, disabled=done or playing, width="stretch", on_click=on_step,
                     shortcut="Right",
                     help="One E-step (eq. 21-22) followed by one M-step (eq. 23-24).")
    # Play and Pause are two buttons (two keys) whose callbacks SET the state (on_play(True) /
    # on_play(False)) rather than toggle it: Streamlit may deliver one click's trigger twice
    # when it lands during a Play tick (the callback ran in the fragment rerun, then again in
    # the full rerun it asked for), and a toggle undid the click: Pause was ignored.
    if c2 is None:  # the browser player has its own Play / Pause
        play = False
    elif playing:
        play = c2.button("Pause", key=K_PAUSE, icon=":material/pause:", type="primary", width="stretch",
                         on_click=on_play, args=(False,), shortcut="P", help="Stop the animation at the current iteration.")
    else:
        play = c2.button("Play", key=K_PLAY, icon=":material/play_arrow:", disabled=done, type="primary",
                         width="stretch", on_click=on_play, args=(True,), shortcut="P",
                         help="Animate: a few EM iterations per second; stops by itself when done.")
    converge = c3.button("Run to convergence", icon=":material/fast_forward:", key=K_CONVERGE, disabled=done or playing, width="stretch",
                         on_click=on_converge)
    reset = c4.button("Reset", icon=":material/replay:", key=K_RESET, width="stretch", on_click=on_reset,
                      shortcut="Home",
                      help="Start again from iteration 0 with the same settings.")
    return RunActions(step=step, play=play, reset=reset, converge=converge)


def scrubber(n_snapshots: int, value: int, on_change=None, playing: bool = False, serial: int = 0) -> int:
    """Slider over iterations 0..n-1; returns the chosen iteration.

    The widget key includes the number of snapshots (and the run's serial), so each new
    iteration gets a fresh slider: a stale value the browser still holds for an older
    range can never come back as a spurious change. on_change receives the key."""
    if playing:
        st.slider("Show iteration", 0, max(1, n_snapshots - 1), n_snapshots - 1, key=K_SCRUB + "_playing",
                  disabled=True, help="Pause to look at an earlier iteration.")
        return n_snapshots - 1
    if n_snapshots <= 1:
        st.slider("Show iteration", 0, 1, 0, key=K_SCRUB + "_idle", disabled=True,
                  help="Take a step first; then drag to look at any earlier iteration.")
        return 0
    key = f"{K_SCRUB}_{serial}_{n_snapshots}"
    return st.slider("Show iteration", 0, n_snapshots - 1, max(0, min(int(value), n_snapshots - 1)), key=key,
                     on_change=on_change, args=(key,) if on_change else None,
                     help="Drag back to see any earlier iteration; all charts follow.")


def maths_controls(n_docs: int, word_labels: list[str], default_word: int, default_doc: int,
                   word_choices=None, word_help: str | None = None) -> MathsChoice:
    """Which document (E-step) and which feature (β update) the maths panel fills in.
    The values persist while the panel is hidden (e.g. during Play).

    ``word_choices(doc)``: the feature rows the picker offers for that document (None = every row);
    the feature picked before is always kept among them."""
    c1, c2 = st.columns(2)
    for key, n, default in ((K_DOC, n_docs, default_doc), (K_WORD, len(word_labels or []), default_word)):
        if key in st.session_state:
            v = st.session_state[key]
            try:
                ok = 0 <= int(v) < n
            except (TypeError, ValueError):  # e.g. a formatted label echoed back by a browser
                ok = False
            if not ok:  # from another (larger) data set: put this data set's default in its place
                st.session_state[key] = int(default) if 0 <= int(default) < max(n, 1) else 0
    doc = c1.number_input("Document i", 0, max(n_docs - 1, 0), value=int(default_doc), step=1, key=K_DOC,
                          persist_state="session")
    if not word_labels:
        return MathsChoice(doc=int(doc), word=0)
    if word_choices is None:
        options = list(range(len(word_labels)))
    else:
        options = list(word_choices(int(doc)))
        picked = st.session_state.get(K_WORD)
        if picked is not None and int(picked) not in options:  # a feature picked before stays pickable
            options.insert(0, int(picked))
        if int(default_word) not in options:
            options.insert(0, int(default_word))
    word = c2.selectbox("Feature j", options, index=options.index(int(default_word)),
                        format_func=lambda j: word_labels[j], key=K_WORD, persist_state="session", help=word_help)
    return MathsChoice(doc=int(doc), word=int(word))
