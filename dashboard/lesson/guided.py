"""The guided lessons: ready scenarios (toy tables, synthetic and real text), their texts and links.

Each lesson is a link whose URL carries the settings (the target page binds its
widgets to query parameters, so the link *is* the configuration) plus
``lesson=<id>``; ``narrative_panel()`` shows the lesson's short narrative in the main
area, under the page's title, whenever ``lesson=`` is in the URL.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from urllib.parse import urlencode

import streamlit as st

from dashboard import pages
from dashboard.ui import controls, derive, urlguard
from nblab.defaults import DEFAULTS

LESSON_PARAM = "lesson"


def _lam_text(v: float) -> str:
    return f"{v:g}"


#: the default lesson's settings (nblab.defaults.DEFAULTS, the one source), as a link's parameters
_DEFAULT_LESSON = {"dataset": DEFAULTS["dataset"], "hidden": str(DEFAULTS["hidden"]), "lam": _lam_text(DEFAULTS["lam"]),
                   "init": DEFAULTS["init"], "model": "bernoulli"}


# ---- the guided lessons --------------------------------------------------------------

@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    page: str                      # page file the link opens (pages.<NAME>.path)
    params: dict                   # query parameters = the settings of that page's widgets
    narrative: str                 # shown beside the controls
    try_this: tuple = ()           # short "now do this" steps
    also: tuple = field(default=())  # extra links: (label, page, params)


LESSONS: list[Lesson] = [
    Lesson(
        id="supervised",
        title="1 · Supervised Naive Bayes on the toy table",
        page=pages.LESSON.path,
        params={"dataset": "toy_spam", "hidden": "0", "lam": "0", "init": "labeled"},
        narrative=(
            "Six e-mails, three words, every label visible. With λ = 0 Naive Bayes is pure counting "
            "(eq. 12–13): α_spam = 3/6 = ½, β(Cruise | spam) = 2/3, β(Cruise | ham) = 1/3. "
            "Because every label is known, one EM step *is* the supervised fit — nothing is guessed."
        ),
        try_this=("Press **Step** once and read α and β off the charts.",
                  "Open the maths panel: check β(Win | spam) = 2/3 by counting rows.",
                  "Then open the **Posterior inspector** link: P(spam | Cruise, Lottery) = 2/3."),
        also=(("Posterior inspector: P(spam | Cruise, Lottery)", pages.INSPECTOR.path,
               {"insp_dataset": "toy_spam", "insp_lam": "0", "insp_words": "Cruise,Lottery"}),),
    ),
    Lesson(
        id="hide",
        title="2 · Hide the labels",
        page=pages.LESSON.path,
        params={"dataset": "synthetic_spam", "hidden": "90", "lam": "1", "init": "labeled"},
        narrative=(
            "600 e-mails, but EM only sees 10 % of the labels. It starts from the labelled ones "
            "(the course session step 1) and then alternates: guess the hidden labels softly (E-step, eq. 21), "
            "re-count with those guesses (M-step, eq. 23–24). Accuracy is measured on exactly the "
            "hidden documents, and compared with Naive Bayes trained on the visible labels alone."
        ),
        try_this=("Press **Play** and watch accuracy and the objective climb.",
                  "Raise “Labels hidden” to 100 %: what happens to the class names?",
                  "See the **Label-budget curve** for the whole picture."),
        also=(("Label-budget curve", pages.BUDGET.path, {}),),
    ),
    Lesson(
        id="smoothing",
        title="3 · Why smoothing",
        page=pages.SMOOTHING.path,
        params={"sm_dataset": "synthetic_spam", "sm_hidden": "90"},
        narrative=(
            "With λ = 0 a word never seen with a class gets β = 0: the model then says it is "
            "*impossible* for that class to contain the word (the notes §3.1), and one word can veto a "
            "class. λ pseudo-documents per class (eq. 14) fix that; but as λ → ∞ every β is pulled "
            "to ½ and the words stop carrying any information."
        ),
        try_this=("Read “λ = 0: impossible events”: one word vetoes a class.",
                  "Follow the rare word's β from λ = 0 to λ = 1000; where is accuracy best?",
                  "In the lesson view, set λ = 0 on toy_spam and look at the maths panel."),
        also=(("Lesson view with λ = 0 on the toy table", pages.LESSON.path,
               {"dataset": "toy_spam", "hidden": "50", "lam": "0", "init": "labeled"}),),
    ),
    Lesson(
        id="trap",
        title="4 · The symmetric trap",
        page=pages.TRAP.path,
        params={"trap_dataset": "abcd", "trap_start": "uniform", "trap_labels": "0"},
        narrative=(
            "No labels and the uniform start (α = 1/K, β = ½): every class explains every document "
            "equally well, so every responsibility is 1/K, so the M-step gives every class the same β "
            "again — EM is stuck at the symmetric point for ever (the note on the uniform start). A random start, or a "
            "handful of labels, breaks the tie."
        ),
        try_this=("Press **Step**: every responsibility is exactly 1/K.",
                  "Pick the random start, or reveal 2 labels, and step again."),
    ),
    Lesson(
        id="optima",
        title="5 · Local optima",
        page=pages.RESTARTS.path,
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
        also=(("Label switching", pages.SWITCHING.path, {}),),
    ),
    # teaching depth II
    Lesson(
        id="coin",
        title="6 · The coin: what λ is",
        page=pages.COIN.path,
        params={"coin_source": "typed", "coin_flips": "HHTH", "coin_prior": "lambda", "coin_lam": "0"},
        narrative=(
            "Three heads and one tail (the lecture). Maximum likelihood says θ = 3/4. A Beta(a, b) prior adds "
            "a − 1 imaginary heads and b − 1 imaginary tails; the lab's smoothing λ is exactly Beta(λ+1, λ+1): "
            "θ_MAP = (α_H + λ) / (N + 2λ), eq. (14) for one word. Then: two coins whose identities are hidden — "
            "EM on the classic example of Do & Batzoglou."
        ),
        try_this=("Move λ from 0 to 1: θ_MAP goes from 0.75 to 4/6 = 0.667; the lab's engine gives the same β.",
                  "Switch to random flips and drag “Flips seen so far”: the prior matters less and less.",
                  "In part 3, step t from 1 to 10: θ_A 0.71 → 0.80, θ_B 0.58 → 0.52."),
    ),
    Lesson(
        id="climb",
        title="7 · Half-steps: why EM climbs",
        page=pages.CLIMB.path,
        params={"cl_dataset": "toy_spam", "cl_init": "random"},
        narrative=(
            "For any guess q of the hidden labels, Jensen's inequality gives a lower bound on the "
            "log-likelihood. The E-step chooses q = the posterior, so the bound touches the curve; the M-step "
            "jumps to the top of the bound. The likelihood rises by the M-step's gain plus a KL gap ≥ 0 — so "
            "EM can never go down."
        ),
        try_this=("Press **E-step**: the bound equals L(θ_t) (gap 0).",
                  "Press **M-step**: the bound rose; L rose at least as much.",
                  "Switch to abcd and press **5 steps**: the staircase flattens as EM converges."),
        also=(("Half-steps in the lesson view", pages.LESSON.path,
               {"dataset": "toy_spam", "hidden": "50", "lam": "1", "init": "labeled"}),),
    ),
    Lesson(
        id="mixture2d",
        title="8 · The 2-D picture",
        page=pages.MIXTURE2D.path,
        params={"mx_preset": "unequal sizes"},
        narrative=(
            "Two continuous features: Gaussian Naive Bayes is a mixture of axis-aligned Gaussians. Each point "
            "is coloured by its responsibilities; the E-step recolours the points, the M-step moves the "
            "ellipses. Beside it, k-means gives every point wholly to the nearest centre."
        ),
        try_this=("Press **E-step** then **M-step** a few times and watch colours, then ellipses, change.",
                  "Compare the accuracies: a big wide class and a small tight one fool k-means.",
                  "Pick “one class with few labels”, or edit the points: add a point in the overlap."),
    ),
    Lesson(
        id="components",
        title="9 · Several pictures per digit",
        page=pages.COMPONENTS.path,
        params={"cp_dataset": "digits", "cp_hidden": "95"},
        narrative=(
            "On digits with 95 % of the labels hidden, plain EM ends *below* supervised Naive Bayes "
            "(76.7 % vs 82.2 % on average over the 5 seeds the page runs): one average picture per digit is "
            "the wrong model. Nigam et al. (2000, §5) "
            "give each class several mixture components; labelled digits stay within their class's components."
        ),
        try_this=("Press **Run the comparison**: m = 1 below the supervised line, m = 3 above it.",
                  "Look inside: the components of one digit differ in slant or stroke; some get α ≈ 0.",
                  "Find a seed where m = 2 is worse than m = 1: why can extra components hurt?"),
    ),
    # ---- real text: numbers measured with seed 0 (the tests recompute every one with nbcore) ----
    Lesson(
        id="sms",
        title="10 · EM reads the messages nobody labelled",
        page=pages.LESSON.path,
        params=_DEFAULT_LESSON,
        narrative=(
            "5,574 real text messages; EM sees the labels of only 56 of them (8 spam). Naive Bayes trained on "
            "those alone gets 94.9 % of the hidden ones right — calling everything ham gets 86.6 %, and the "
            "best λ supervised Naive Bayes can pick from the 56 by itself (leave-one-out) gives 95.0 %. EM also "
            "reads the 5,518 unlabelled messages: they are full of “txt”, “claim”, “prize”, words the 8 "
            "labelled spams only hinted at, and it ends at 97.0 %: 2.0 points above the best supervised "
            "baseline (over ten random choices of the 56: 2.3 ± 0.3 points)."
        ),
        try_this=("Press **Play** and watch the accuracy climb past the three baseline lines.",
                  "Open the documents table, order **flipped first**: which messages changed side?",
                  "Parameters view → Top features: real words moving in β.",
                  "Change the seed (Advanced): another 56 labelled messages, a similar gain."),
        also=(("Posterior inspector: type your own message", pages.INSPECTOR.path,
               {"insp_dataset": "sms_spam", "insp_lam": _DEFAULT_LESSON["lam"]}),),
    ),
    Lesson(
        id="lambda",
        title="11 · Is it EM, or is it λ?",
        page=pages.LESSON.path,
        params={"dataset": "sms_spam", "hidden": "90", "lam": "1", "init": "labeled", "model": "bernoulli"},
        narrative=(
            "The same messages with 557 labels (75 spam) and λ = 1: supervised Naive Bayes gets 87.7 %, EM "
            "97.9 % — ten points, it seems, from the unlabelled messages. Now set λ = 0.1: supervised Naive "
            "Bayes alone gets 97.9 %, and EM 98.1 %. Most of the ten points were λ. With 4,250 words and only "
            "75 labelled spams, λ = 1 pulls every spam word's β towards ½ (eq. 14) and the spam class drowns "
            "in the words it lacks; EM “fixes” that only because 5,017 unlabelled messages outweigh the "
            "pseudo-counts. The fair comparison is with supervised Naive Bayes at the λ it picks itself from the "
            "557 labelled messages (leave-one-out: λ = 0.03, 98.1 %): against it, EM gains −0.2 points at "
            "λ = 1 and +0.1 at λ = 0.1. With this many labels the unlabelled messages add almost nothing; "
            "with 56 labels (lesson 10) they add two points."
        ),
        try_this=("Press **Play** at λ = 1: read the three baseline lines of the accuracy chart, not only the "
                  "one EM passes.",
                  "Follow the link below (λ = 0.1) and press **Play** again: what is left of the gain?",
                  "Change λ mid-run: the charts start a new segment, each compared with its own λ."),
        also=(("Same data at λ = 0.1", pages.LESSON.path,
               {"dataset": "sms_spam", "hidden": "90", "lam": "0.1", "init": "labeled", "model": "bernoulli"}),),
    ),
    Lesson(
        id="absent",
        title="12 · Few labels: Bernoulli collapses, multinomial does not",
        page=pages.LESSON.path,
        params={"dataset": "sms_spam", "hidden": "95", "lam": "1", "init": "labeled", "model": "bernoulli"},
        narrative=(
            "Hide 95 % of the labels (279 visible, 37 of them spam). Bernoulli EM calls every message "
            "ham and stays at 86.6 %; multinomial EM on word counts goes from 94.7 % to 98.0 %. Why: "
            "Bernoulli NB scores every vocabulary word a message *lacks* with log(1 − β) (eq. 11). A text "
            "message has ~15 of the 4,250 words, so ~4,235 absent-word terms. With few spam examples and "
            "λ = 1, β(word | spam) ≥ 1/39 for every word, so each missing word costs spam a little more "
            "than ham — thousands of them outweigh the few words that are there. Multinomial NB only "
            "looks at the words present."
        ),
        try_this=("Step once, open the documents table: compare **words present** with **words absent** "
                  "(spam:ham log-odds) — the absent column is hugely negative.",
                  "Follow the link below (counts → multinomial) and press **Play**.",
                  "Back here, lower λ to 0.1: the absent-word penalty shrinks and Bernoulli recovers."),
        also=(("Same, with word counts and the multinomial model", pages.LESSON.path,
               {"dataset": "sms_spam", "hidden": "95", "lam": "1", "init": "labeled", "counts": "counts",
                "model": "multinomial"}),),
    ),
    Lesson(
        id="langid",
        title="13 · Language identification with character n-grams",
        page=pages.LESSON.path,
        params={"dataset": "udhr_langid", "hidden": "95", "lam": "1", "init": "labeled", "model": "multinomial",
                "tokens": "chars", "ngram": ["1", "3"], "counts": "counts"},
        narrative=(
            "Short passages of the Universal Declaration of Human Rights in ten languages (the notebook, "
            "exercise 1), 5 % of them labelled. Characters 1–3-grams with counts: supervised 84.8 %, EM "
            "97.0 %. Character n-grams catch spelling (“ij” Dutch, “ä” Swedish and Finnish, “ção” "
            "Portuguese) even in words never seen before; with whole words the same run goes 80.9 % → "
            "93.9 %. The mistakes left are between close relatives: Spanish/Portuguese/Italian, "
            "Dutch/German."
        ),
        try_this=("Press **Play**; look at the confusion matrix under the documents table.",
                  "Text → features: switch **Tokens** to words: the run restarts (the notice says why).",
                  "Try n = 2–2 or 3–3: how does the number of features V change, and the accuracy?"),
    ),
    Lesson(
        id="mismatch",
        title="14 · When EM makes things worse: model mismatch",
        page=pages.LESSON.path,
        params={"dataset": "udhr_langid", "hidden": "90", "lam": "1", "init": "labeled", "model": "bernoulli",
                "tokens": "chars", "ngram": ["1", "3"], "counts": "presence"},
        narrative=(
            "Same languages, but presence/absence of 7,717 character n-grams under the Bernoulli model. "
            "Supervised NB: 60.9 %. EM climbs at every step, as it guarantees — what it climbs is the MAP "
            "objective, the log-likelihood plus the log prior that λ adds; the log-likelihood alone even dips, "
            "from t = 4 to t = 11, where the prior gains more than the fit loses. And the accuracy *falls*, to "
            "51.8 %. EM maximises how well the model fits the data, not how well "
            "it predicts the labels. Here the model is wrong about the data: overlapping n-grams (“th”, "
            "“the”, “he ”) are far from independent, and thousands of absent n-grams are counted as "
            "evidence, so the clusters that fit best are not the languages. With unlabelled data the "
            "model's mistakes are amplified, not corrected (Nigam et al. 2000)."
        ),
        try_this=("Press **Play**: the objective rises at every step (the log-likelihood below it dips, "
                  "marked ▼) while accuracy drops below the supervised line.",
                  "Switch **x_j is the term's** to counts (multinomial follows): supervised 92.3 %, EM 96.9 %.",
                  "Or keep Bernoulli and set λ = 0.1: how much of the problem was the absent terms?"),
    ),
    Lesson(
        id="hurts",
        title="15 · When EM hurts: real e-mail",
        page=pages.LESSON.path,
        params={"dataset": "spam_assassin", "hidden": "90", "lam": "1", "init": "labeled", "model": "bernoulli"},
        narrative=(
            "5,915 real e-mails from the SpamAssassin corpus, 591 of them labelled; each is the presence or "
            "absence of 20,000 words (Bernoulli). Naive Bayes trained on the labelled ones gets 81.1 % of the "
            "hidden ones right. EM also reads the 5,324 unlabelled e-mails and *falls* to 67.0 % — below "
            "calling every hidden e-mail ham (69.4 %). Its objective still rises at every step: EM finds the "
            "two groups that best explain which of the 20,000 words each e-mail contains and lacks, and for "
            "e-mails, which run from one line to many pages, those are long messages against short ones, not "
            "spam against ham. The same e-mails as word counts under the multinomial model go from 96.6 % to 97.4 %: "
            "that model scores only the words an e-mail contains, and the words of spam stay the strongest "
            "evidence in them."
        ),
        try_this=("Press **Play**: the objective climbs while accuracy drops below the supervised line.",
                  "Scrub to t = 1 and open the documents table, order **flipped first**: how long are the "
                  "e-mails that changed side?",
                  "Follow the link below (counts → multinomial) and press **Play**: EM now gains."),
        also=(("Same e-mails, with word counts and the multinomial model", pages.LESSON.path,
               {"dataset": "spam_assassin", "hidden": "90", "lam": "1", "init": "labeled", "counts": "counts",
                "model": "multinomial"}),),
    ),
]
BY_ID = {lesson.id: lesson for lesson in LESSONS}


def link_params(lesson: Lesson) -> dict:
    return {**lesson.params, LESSON_PARAM: lesson.id}


#: The page served at the app's root (``st.Page(default=True)``).
DEFAULT_PAGES = frozenset(p.path for p in pages.PAGES if p.default)


def href(page: str, query_params: dict | None = None) -> str:
    """The href of a link to the default page with these settings: ``./?…``, the app's root relative
    to the page being shown (``/guided`` → ``/``, ``/base/guided`` → ``/base/``)."""
    return "./" + ("?" + urlencode(query_params, doseq=True) if query_params else "")


def link(box, page: str, label: str, icon: str, query_params: dict | None = None) -> None:
    """A link to ``page`` with its settings in the URL, in ``box``.

    st.page_link writes the default page's href as a bare ``?…`` (its url_path is always ""), which the
    browser resolves against the page being shown: opened in a new tab or copied from the guided page it
    is ``/guided?…``, the guided page again. Streamlit has no option to change that href, so links to the
    default page are drawn as an ``<a href="./?…">`` (our own label and settings, escaped) that opens in
    the same tab, like a page link; the page loads afresh with the settings from the URL. Links to any
    other page stay st.page_link (their href is the page's url_path, which resolves correctly).

    Both carry the page context (``controls.carry``: classroom mode), so a lesson opened on the projector
    stays in classroom mode."""
    query_params = controls.carry(query_params)
    if page not in DEFAULT_PAGES:
        box.page_link(page, label=label, icon=icon, query_params=query_params)
        return
    box.markdown(f'{icon} <a href="{html.escape(href(page, query_params))}" target="_self">'
                 f"{derive.md_escape(label, 200)}</a>", unsafe_allow_html=True)


def current_lesson() -> Lesson | None:
    return BY_ID.get(st.query_params.get(LESSON_PARAM, ""))


def narrative_panel(classroom: bool = False) -> Lesson | None:
    """If the URL has ``lesson=<id>``, show that lesson's narrative in the main area, under the page's
    title where the class looks: open, or closed in classroom mode (where the first screen is the
    lesson's controls and charts), one click away either way."""
    lesson = current_lesson()
    if lesson is None:
        if st.query_params.get(LESSON_PARAM):
            urlguard.note(LESSON_PARAM, "is not a guided lesson (" + ", ".join(BY_ID) + "): no lesson text is shown")
        return None
    box = st.expander(f"Guided lesson {lesson.title}", expanded=not classroom, icon=":material/school:")
    box.markdown(lesson.narrative)
    if lesson.try_this:
        box.markdown("**Try this:**\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(lesson.try_this, 1)))
    for label, page, params in lesson.also:
        link(box, page, label, ":material/arrow_forward:", {**params, LESSON_PARAM: lesson.id})
    i = LESSONS.index(lesson)
    if i + 1 < len(LESSONS):
        nxt = LESSONS[i + 1]
        link(box, nxt.page, f"Next: {nxt.title}", ":material/skip_next:", link_params(nxt))
    link(box, pages.GUIDED.path, "All guided lessons", ":material/school:")
    return lesson


