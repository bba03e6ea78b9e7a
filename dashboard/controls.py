"""Widgets. Each *_controls() draws a group of widgets and returns a small
frozen dataclass of plain values; nothing here touches the EM run.

The widget key is also the URL query-parameter name (bind="query-params"), so
the whole configuration lives in the URL and a teacher can share one link,
e.g. ?dataset=digits&hidden=95&lam=0.1&classroom=true
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

# ---- option lists -----------------------------------------------------------
LAMBDAS = [0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0]
TOLS = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
INITS = ["uniform", "random", "labeled"]
INIT_LABELS = {
    "uniform": "uniform (α = 1/K, β = ½)",
    "random": "random (seeded)",
    "labeled": "from the labelled documents",
}
# Play speed: (EM steps per tick, seconds between ticks of the st.fragment(run_every=...))
SPEEDS = {"slow": (1, 1.0), "normal": (1, 0.2), "fast": (4, 0.2)}
SHIPPED = ["synthetic_spam", "toy_spam", "play_tennis", "abcd", "digits"]
UPLOAD = "upload"  # dataset option meaning "this session's uploaded CSV"

# ---- defaults of the ready-made lesson ---------------------------------------
DEFAULTS = dict(
    dataset="synthetic_spam",
    hidden=90,
    lam=1.0,
    init="labeled",
    seed=0,
    uw=1.0,
    max_iter=100,
    tol=1e-6,
    classroom=False,
    speed="normal",
)

# widget keys = URL parameter names
K_DATASET, K_MODEL, K_HIDDEN, K_LAM = "dataset", "model", "hidden", "lam"
K_INIT, K_SEED, K_UW, K_MAXIT, K_TOL = "init", "seed", "uw", "max_iter", "tol"
K_CLASSROOM, K_UPLOADER, K_SPEED = "classroom", "uploader", "speed"
K_STEP, K_PLAY, K_RESET, K_CONVERGE, K_SCRUB = "step", "play", "reset", "converge", "scrub"
K_DOC, K_WORD = "doc", "word"
K_PARAM_VIEW = "param_view"

QP = "query-params"


@dataclass(frozen=True)
class DataConfig:
    """Everything that, when changed, needs a new run from iteration 0."""
    dataset: str
    model: str
    hidden_pct: int
    init: str
    seed: int
    unlabeled_weight: float
    max_iter: int
    tol: float


@dataclass(frozen=True)
class Settings:
    data: DataConfig
    lam: float       # changing λ continues the current run (run.with_smoothing)
    classroom: bool
    speed: str = "normal"  # key of SPEEDS


@dataclass(frozen=True)
class RunActions:
    step: bool
    play: bool       # Play/Pause pressed (toggle)
    reset: bool
    converge: bool


@dataclass(frozen=True)
class MathsChoice:
    doc: int
    word: int


def fmt_lam(v: float) -> str:
    # also the URL value (bound widgets put the formatted option in the URL): keep it short
    return f"{v:g}"


def classroom_toggle() -> bool:
    return st.sidebar.toggle(
        "Classroom mode", value=DEFAULTS["classroom"], key=K_CLASSROOM, bind=QP,
        help="Bigger fonts for a projector; hides the advanced controls.",
    )


def _ensure_valid(key: str, options: list, default) -> None:
    """If the key holds a value that is no longer an option (e.g. the model after a
    dataset change), put the default back before the widget is drawn."""
    if key in st.session_state and st.session_state[key] not in options:
        st.session_state[key] = default


def data_controls(dataset_names: list[str], descriptions: dict[str, str], upload_name: str | None,
                  models_for, classroom: bool) -> Settings:
    """Sidebar: data set, event model, hidden fraction, λ and (unless classroom mode)
    the advanced settings. `models_for(name)` returns the valid event models."""
    sb = st.sidebar
    options = list(dataset_names) + ([UPLOAD] if upload_name else [])
    _ensure_valid(K_DATASET, options, DEFAULTS["dataset"])

    def _fmt(name: str) -> str:
        if name == UPLOAD:
            return f"{upload_name} (your upload)"
        return name

    dataset = sb.selectbox(
        "Data set", options, index=options.index(DEFAULTS["dataset"]) if DEFAULTS["dataset"] in options else 0,
        format_func=_fmt, key=K_DATASET, bind=QP,
        help="\n\n".join(f"**{n}**: {d}" for n, d in descriptions.items()) or None,
    )
    models = list(models_for(dataset)) or ["bernoulli"]
    if len(models) > 1:
        _ensure_valid(K_MODEL, models, models[0])
        model = sb.radio("Event model", models, index=0, key=K_MODEL, bind=QP, horizontal=True,
                         help="How a document's features are modelled given its class.")
    else:
        model = models[0]
        sb.caption(f"Event model: **{model}** (the only one this data allows)")

    hidden = sb.slider("Labels hidden", 0, 100, DEFAULTS["hidden"], step=5, format="%d%%",
                       key=K_HIDDEN, bind=QP,
                       help="Share of the labelled documents whose label EM does not see. "
                            "Accuracy is measured on exactly these documents.")
    lam = sb.select_slider("Smoothing λ", LAMBDAS, value=DEFAULTS["lam"], format_func=fmt_lam,
                           key=K_LAM, bind=QP,
                           help="Pseudo-counts in eq. 24 (0 = no smoothing). Changing λ mid-run continues from the "
                                "current parameters; every other setting starts a new run.")

    speed = sb.select_slider("Play speed", list(SPEEDS), value=DEFAULTS["speed"], key=K_SPEED, bind=QP,
                             help="slow: one iteration a second (to talk over); normal: one per tick; "
                                  "fast: four per tick.")

    if classroom:
        # advanced widgets are not drawn: use their bound/remembered values
        ss = st.session_state
        init = ss.get(K_INIT, DEFAULTS["init"])
        seed = ss.get(K_SEED, DEFAULTS["seed"])
        uw = ss.get(K_UW, DEFAULTS["uw"])
        max_iter = ss.get(K_MAXIT, DEFAULTS["max_iter"])
        tol = ss.get(K_TOL, DEFAULTS["tol"])
    else:
        with sb.expander("Advanced", expanded=False):
            init = st.selectbox("Initialisation", INITS, index=INITS.index(DEFAULTS["init"]),
                                key=K_INIT, bind=QP, persist_state="session",
                                help="; ".join(f"**{k}**: {v}" for k, v in INIT_LABELS.items()))
            seed = st.number_input("Seed", 0, 9999, DEFAULTS["seed"], step=1, key=K_SEED, bind=QP,
                                   persist_state="session",
                                   help="Which labels are hidden, and the random initialisation.")
            uw = st.slider("Unlabelled weight", 0.0, 1.0, DEFAULTS["uw"], step=0.05, key=K_UW, bind=QP,
                           persist_state="session",
                           help="How much an unlabelled document counts in the M-step (1 = as much as a labelled one).")
            max_iter = st.number_input("Max iterations", 1, 1000, DEFAULTS["max_iter"], step=10,
                                       key=K_MAXIT, bind=QP, persist_state="session")
            tol = st.select_slider("Convergence tolerance", TOLS, value=DEFAULTS["tol"],
                                   format_func=lambda v: f"{v:.0e}", key=K_TOL, bind=QP,
                                   persist_state="session")
    data = DataConfig(str(dataset), str(model), int(hidden), str(init), int(seed), float(uw),
                      int(max_iter), float(tol))
    return Settings(data=data, lam=float(lam), classroom=classroom, speed=str(speed))


def upload_control(on_change, max_words: int | None = None) -> None:
    """CSV uploader; the callback receives the file (parsed later, per session)."""
    cap = f"{max_words:,}" if max_words else None
    with st.sidebar.expander("Use your own CSV", expanded=False):
        st.file_uploader(
            "CSV with a `text` column and a `label` column (empty label = unlabelled), "
            "or feature columns plus `label`",
            type=["csv"], key=K_UPLOADER, on_change=on_change,
            help=(f"Text is turned into word features; only the {cap} most frequent words are kept."
                  if cap else None),
        )
        if cap:
            st.caption(f"Text columns: at most {cap} different words are kept (the most frequent). "
                       "Your file stays in your session only.")


def run_controls(playing: bool, done: bool, on_step=None, on_play=None, on_reset=None,
                 on_converge=None) -> RunActions:
    """Step / Play-Pause / Reset / Run to convergence, in one row (callbacks run before the rerun)."""
    c1, c2, c3, c4 = st.columns(4)
    step = c1.button("Step", icon=":material/skip_next:", key=K_STEP, disabled=done or playing, width="stretch", on_click=on_step,
                     help="One E-step (eq. 21-22) followed by one M-step (eq. 23-24).")
    play = c2.button("Pause" if playing else "Play", key=K_PLAY,
                     icon=":material/pause:" if playing else ":material/play_arrow:", disabled=done and not playing,
                     type="primary", width="stretch", on_click=on_play,
                     help="Animate: a few EM iterations per second; stops by itself when done.")
    converge = c3.button("Run to convergence", icon=":material/fast_forward:", key=K_CONVERGE, disabled=done or playing, width="stretch",
                         on_click=on_converge)
    reset = c4.button("Reset", icon=":material/replay:", key=K_RESET, width="stretch", on_click=on_reset,
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


def maths_controls(n_docs: int, word_labels: list[str], default_word: int, default_doc: int) -> MathsChoice:
    """Which document (E-step) and which feature (β update) the maths panel fills in.
    The values persist while the panel is hidden (e.g. during Play)."""
    c1, c2 = st.columns(2)
    for key, n in ((K_DOC, n_docs), (K_WORD, len(word_labels or []))):
        if key in st.session_state:
            v = st.session_state[key]
            try:
                ok = 0 <= int(v) < n
            except (TypeError, ValueError):  # e.g. a formatted label echoed back by a browser
                ok = False
            if not ok:
                del st.session_state[key]  # from another data set
    doc = c1.number_input("Document i", 0, max(n_docs - 1, 0), value=int(default_doc), step=1, key=K_DOC,
                          persist_state="session")
    if not word_labels:
        return MathsChoice(doc=int(doc), word=0)
    word = c2.selectbox("Feature j", list(range(len(word_labels))), index=int(default_word),
                        format_func=lambda j: word_labels[j], key=K_WORD, persist_state="session")
    return MathsChoice(doc=int(doc), word=int(word))
