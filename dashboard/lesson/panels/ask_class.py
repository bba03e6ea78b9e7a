"""Ask the class (under the class link, in the sidebar): predict, then reveal.

The teacher picks a kind of question about the run as it is now (nblab/questions.py: α's direction at the
next Step, the word whose β moves most, a document's class at convergence, the accuracy at convergence),
presses Ask (``answers.ask`` on the class's store), sees how many have answered (a fragment that reruns on
its own), Show draws the class's answers, Reveal computes the right answer with nbcore on this server
(``questions.right_answer`` on the run as it was when asked), hands it to ``answers.reveal`` and, for a
question about the next Step, runs that Step. Close ends the question without an answer. Pause freezes
the students' controls on the lesson shown here until Resume.

What the class's page shows is the question's id and phase in the published state (class_link.teacher_state):
the page reads the question itself from the question route. Text from the data (a document, words, class
names) is shown with ``st.text`` and tables, never as Markdown.
"""
from __future__ import annotations

import streamlit as st

from dashboard.class_link import answers
from dashboard.data.store import ShareError
from dashboard.lesson import session
from dashboard.ui import state
from dashboard.ui.controls import _, page_lang
from nblab import i18n
from nblab import questions as Q

K_QUESTION = "class_question"   # the current question: {"q": Question, "phase", "t", "serial", "shown"}, or None
K_COUNT = "class_questions_asked"   # questions this session asked its class (numbers the ids)
K_KIND = "class_q_kind"
K_CLASS = "class_q_class"
K_PAUSED = "class_paused"
K_ERROR = "class_q_error"
TALLY_S = 2.0                   # s between two counts of the answers while a question is open


def current() -> dict | None:
    return st.session_state.get(K_QUESTION)


def published() -> tuple[dict | None, bool]:
    """What the class's state carries: the question ({"id", "phase"}) or None, and whether it is paused."""
    cur = current()
    q = None if cur is None else {"id": cur["q"].qid, "phase": cur["phase"]}
    return q, bool(st.session_state.get(K_PAUSED, False))


def _say(msg: str | None) -> None:
    st.session_state[K_ERROR] = msg


def _cls():
    return state.get(state.CLASS_OPEN)


def _on_ask() -> None:
    cls, lr = _cls(), session.lesson()
    if not cls:
        return
    kind = st.session_state.get(K_KIND) or Q.KINDS[0]
    n = int(st.session_state.get(K_COUNT, 0)) + 1
    try:
        q = Q.make(kind, n, lr.run, lr.prep, k=int(st.session_state.get(K_CLASS) or 0))
    except Q.NotAskable as e:
        _say(_("This question cannot be asked now: {why}", why=_why(e)))
        return
    try:
        answers.ask(cls["cid"], cls["key"], **q.ask_args())
    except ShareError as e:
        _say(_("Could not ask the class: {why}", why=e))
        return
    st.session_state[K_COUNT] = n
    st.session_state[K_QUESTION] = {"q": q, "phase": "open", "t": int(lr.latest), "serial": lr.serial, "shown": False}
    _say(None)


def restore(cid: str, stored: dict) -> None:
    """A teacher's new session took the class ``cid`` back (a reload, another tab or app process): go on with
    the question and the Pause its last published state ``stored`` carries, so that the students' question
    stays and the teacher can still reveal or close it. The question's run is the lesson this session
    rebuilds from its address (the same settings and iteration: EM is deterministic); it is bound to it on
    the panel's next drawing."""
    st.session_state[K_PAUSED] = bool(stored.get("paused"))
    pub = stored.get("question")
    if not isinstance(pub, dict) or pub.get("phase") not in ("open", "revealed"):
        return
    qid = str(pub.get("id"))
    try:
        got = answers.question(cid, qid)
    except ShareError as e:
        _say(_("Could not take back the class's question: {why}", why=e))
        return
    q = Q.from_spec(qid, got.get("options"), got.get("lo"), got.get("hi"))
    if q is None or not (got.get("open") or got.get("revealed")):
        return
    n = int(Q.parse_qid(qid)["n"])
    st.session_state[K_COUNT] = max(int(st.session_state.get(K_COUNT, 0)), n)
    cur = {"q": q, "phase": "revealed" if got.get("revealed") else "open", "t": int(stored.get("t") or 0),
           "serial": None, "shown": bool(got.get("revealed"))}
    if got.get("revealed"):
        cur["right"] = got.get("right")
    st.session_state[K_QUESTION] = cur


def _why(e: Q.NotAskable) -> str:
    """Why a question cannot be asked or answered, in the page's language."""
    return _(e.msgid, **e.params) if hasattr(e, "msgid") else str(e)


def _bound(cur: dict, lr) -> dict:
    """A question taken back with the class (no run of its own yet) bound to the run on screen, once it exists."""
    if cur["serial"] is None and lr.run is not None:
        cur = {**cur, "serial": lr.serial}
        st.session_state[K_QUESTION] = cur
    return cur


def _asked_run(cur: dict):
    """The run as it was when the question was asked (EM is deterministic: the run rewound there), or the
    message why there is none."""
    lr = session.lesson()
    cur = _bound(cur, lr)
    if lr.run is None or lr.serial != cur["serial"] or lr.latest < cur["t"]:
        return None, _("The run was rebuilt since the question was asked (a reset or new settings), so its right "
                       "answer is not this run's: close the question and ask again.")
    run = lr.run if lr.latest == cur["t"] and lr.run.pending is None else lr.run.rewound(cur["t"])
    return run, None


def _on_reveal() -> None:
    cls, cur, lr = _cls(), current(), session.lesson()
    if not cls or not cur or cur["phase"] != "open":
        return
    run, why = _asked_run(cur)
    if run is None:
        _say(why)
        return
    try:
        right = Q.right_answer(cur["q"], run, lr.prep)
    except Q.NotAskable as e:
        _say(_("The right answer cannot be computed: {why}", why=_why(e)))
        return
    try:
        answers.reveal(cls["cid"], cls["key"], cur["q"].qid, right)
    except ShareError as e:
        _say(_("Could not reveal the answer: {why}", why=e))
        return
    st.session_state[K_QUESTION] = {**cur, "phase": "revealed", "right": right, "shown": True}
    _say(None)
    if cur["q"].kind in ("alpha", "beta") and lr.latest == cur["t"]:
        session.on_step()   # the Step the class predicted


def _on_close() -> None:
    cls, cur = _cls(), current()
    if not cls or not cur:
        return
    if cur["phase"] == "open":
        try:
            answers.close(cls["cid"], cls["key"], cur["q"].qid)
        except ShareError as e:
            _say(_("Could not close the question: {why}", why=e))
            return
    st.session_state[K_QUESTION] = None
    _say(None)


def _on_show() -> None:
    cur = current()
    if cur:
        st.session_state[K_QUESTION] = {**cur, "shown": not cur.get("shown")}


def _on_pause() -> None:
    st.session_state[K_PAUSED] = not st.session_state.get(K_PAUSED, False)


def _label(q: Q.Question, option: str, prep) -> str:
    """An option as the teacher reads it (plain text: words and class names are data)."""
    if q.kind == "alpha":
        return {"up": _("up"), "down": _("down")}.get(option, option)
    if option.startswith("f") and q.kind == "beta":
        return str(prep.feature_names[int(option[1:])]) if prep is not None else _("word {j}", j=option[1:])
    if option.startswith("c"):
        return _class_name(prep, int(option[1:]))
    return option


def _class_name(prep, k: int) -> str:
    """Class ``k`` by its name in the data (before the lesson is computed in a new session: its number)."""
    return str(prep.class_names[k]) if prep is not None else f"{k}"


def _prompt(q: Q.Question, prep) -> str:
    if q.kind == "alpha":
        return _("At the next Step, does α of class {name} go up or down?", name=_class_name(prep, q.k))
    if q.kind == "beta":
        return _("At the next Step, which word's β moves most?")
    if q.kind == "doc":
        return _("At convergence, which class is document {doc} in?", doc=Q.doc_name(prep, q.doc))
    return _("What will the accuracy on the hidden labels be at convergence (in %)?")


def _right_text(q: Q.Question, right, prep) -> str:
    return i18n.percent(page_lang(), float(right) / 100.0) if q.answers == "number" else _label(q, right, prep)


@st.fragment(run_every=TALLY_S)
def _tally_panel() -> None:
    """How many have answered (counted again every TALLY_S seconds) and, on Show, the distribution."""
    cls, cur, lr = _cls(), current(), session.lesson()
    if not cls or not cur:
        return
    try:
        got = answers.tally(cls["cid"], cls["key"], cur["q"].qid)
    except ShareError as e:
        st.warning(_("The class's answers cannot be counted right now: {why}", why=e), icon=":material/sync_problem:")
        return
    n = int(got["n"])
    st.text(i18n.ngettext(page_lang(), "{n} answered", "{n} answered", n))
    if not cur.get("shown"):
        return
    q = cur["q"]
    if q.answers == "choice":
        rows = [{"answer": _label(q, o, lr.prep), "count": int(got["counts"].get(o, 0)),
                 "right": "✓" if got.get("right") == o else ""} for o in q.options]
    else:
        edges = got["edges"]
        rows = [{"answer": f"{edges[i]:g}–{edges[i + 1]:g}", "count": int(c), "right": ""}
                for i, c in enumerate(got["bins"])]
        if got.get("mean") is not None:
            lang = page_lang()
            st.text(_("mean {mean}, median {median}", mean=i18n.number(lang, got["mean"], 1),
                      median=i18n.number(lang, got["quantiles"][2], 1)))
    st.dataframe(rows, hide_index=True)


def show() -> None:
    """The panel, inside the class box of the sidebar (only while this session leads a class)."""
    lr = session.lesson()
    cur = current()
    if cur is not None:
        _bound(cur, lr)
    with st.expander(_("Ask the class"), expanded=current() is not None, icon=":material/how_to_vote:"):
        paused = bool(st.session_state.get(K_PAUSED, False))
        st.button(_("Resume the class") if paused else _("Pause the class"), key="class_pause_btn", on_click=_on_pause,
                  icon=":material/play_arrow:" if paused else ":material/pause:",
                  help=_("Pause freezes your students' controls on the lesson you show until you resume."))
        if paused:
            st.caption(_("Your class is paused: the students' controls wait for you."))
        cur = current()
        if cur is None:
            lang = page_lang()   # the labels in this run's language, whoever formats them later
            st.selectbox(_("Question"), list(Q.KINDS), key=K_KIND,
                         format_func=lambda k: i18n.gettext(lang, Q.TITLES[k]))
            kind = st.session_state.get(K_KIND) or Q.KINDS[0]
            if kind == "alpha" and lr.prep is not None:
                st.selectbox(_("Class"), list(range(lr.prep.n_classes)), key=K_CLASS,
                             format_func=lambda k: str(lr.prep.class_names[k]))
            why = Q.why_not(kind, lr.run, lr.prep)
            if why is not None:
                st.caption(_why(why))
            st.button(_("Ask"), key="class_ask_btn", on_click=_on_ask, disabled=why is not None,
                      type="primary")
        else:
            q = cur["q"]
            st.text(_prompt(q, lr.prep))
            if q.answers == "choice":
                st.text(_("Options: {options}", options=" · ".join(_label(q, o, lr.prep) for o in q.options)))
            else:
                st.text(_("A number from {lo} to {hi}", lo=i18n.number_g(page_lang(), q.lo),
                          hi=i18n.number_g(page_lang(), q.hi)))
            if cur["phase"] == "revealed":
                st.text(_("Right answer: {answer}", answer=_right_text(q, cur["right"], lr.prep)))
            _tally_panel()
            # Reveal, the panel's main action, has a row of its own: three buttons side by side in the
            # sidebar's width cut their labels ("Re…")
            st.button(_("Reveal"), key="class_reveal_btn", on_click=_on_reveal, disabled=cur["phase"] != "open",
                      type="primary", width="stretch")
            c1, c2 = st.columns(2)
            c1.button(_("Hide") if cur.get("shown") else _("Show"), key="class_show_btn", on_click=_on_show,
                      width="stretch")
            c2.button(_("Close") if cur["phase"] == "open" else _("Done"), key="class_qclose_btn", on_click=_on_close,
                      width="stretch")
        err = st.session_state.get(K_ERROR)
        if err:
            st.error(err)
