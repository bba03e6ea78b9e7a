"""Predict, then reveal: the questions a lesson asks its class about its own run (no Streamlit here).

A question is made from the run's current state and names what it asks in its id, so a student's page
reads it from the id and its own copy of the data (nblab/js/questions.js parses the same ids):

=========== ====================== ================================================ ========================
id          kind                   asks                                             answers
=========== ====================== ================================================ ========================
``qN-aK``   ``"alpha"`` (choice)   does α of class K go up or down at the next Step ``up`` / ``down``
``qN-b``    ``"beta"`` (choice)    which of four words' β moves most at the next    ``f<feature index>``
                                   Step (the largest |Δβ_jk| over the classes)
``qN-dI``   ``"doc"`` (choice)     which class document I is in at convergence      ``c<class index>``
``qN-acc``  ``"acc"`` (number)     the accuracy on the hidden labels at convergence a number 0–100 (%)
=========== ====================== ================================================ ========================

``N`` numbers the class's questions (ids are new in a class). The right answer is computed here, by nbcore,
from the run on the server (:func:`right_answer`): a copy of the run is stepped once, or run to
convergence; the teacher's run itself is untouched (the lesson then runs the step it asked about, which
EM's determinism makes the same). Nothing of a browser's is ever read.
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np

from nblab import numbers
from nblab.i18n import N_, fill

KINDS = ("alpha", "beta", "doc", "acc")
#: each kind's name in the teacher's picker
TITLES = {"alpha": N_("α of a class at the next Step: up or down?"),
          "beta": N_("Which word's β moves most at the next Step?"),
          "doc": N_("Which class does this document end in?"),
          "acc": N_("The accuracy at convergence (a number)")}
N_WORDS = 4
MAX_CLASSES = 6      # a choice question takes at most 6 options (dashboard/class_link/answers.py)
QID_RE = re.compile(r"q(\d{1,6})-(?:a(\d{1,2})|(b)|d(\d{1,7})|(acc))")


class NotAskable(ValueError):
    """This kind of question cannot be asked of this run now; ``str(e)`` says why in English, ``msgid`` and
    ``params`` say it for the catalogue (a page shows ``gettext(lang, e.msgid, **e.params)``)."""

    def __init__(self, msgid: str, **params):
        super().__init__(fill(msgid, params))
        self.msgid, self.params = msgid, params


@dataclass(frozen=True)
class Question:
    """One question: ``qid`` (its id, which names it), ``kind`` (KINDS), what the store takes
    (``answers``: "choice" with ``options``, or "number" in [lo, hi]), and what it is about: ``k`` the
    class (alpha), ``words`` the feature indices (beta), ``doc`` the document (doc)."""
    qid: str
    kind: str
    answers: str
    options: tuple = ()
    lo: float | None = None
    hi: float | None = None
    k: int | None = None
    words: tuple = ()
    doc: int | None = None

    def ask_args(self) -> dict:
        """The keyword arguments of ``answers.ask`` for this question (after cid, key)."""
        if self.answers == "choice":
            return {"qid": self.qid, "kind": "choice", "options": list(self.options)}
        return {"qid": self.qid, "kind": "number", "lo": self.lo, "hi": self.hi}


def parse_qid(qid: str) -> dict | None:
    """What an id says: ``{"n", "kind", "k" | "doc"}``, or None for an id that is not a question's."""
    m = QID_RE.fullmatch(str(qid or ""))
    if not m:
        return None
    n = int(m.group(1))
    if m.group(2) is not None:
        return {"n": n, "kind": "alpha", "k": int(m.group(2))}
    if m.group(3):
        return {"n": n, "kind": "beta"}
    if m.group(4) is not None:
        return {"n": n, "kind": "doc", "doc": int(m.group(4))}
    return {"n": n, "kind": "acc"}


def from_spec(qid: str, options=(), lo=None, hi=None) -> Question | None:
    """The question ``qid`` again, from its id and what the store kept of it (its options, or its range):
    what a teacher's new session (a reload, another app process) needs to go on with a question it did not
    ask itself. None when the id and the rest do not make a question of this module's kinds."""
    what = parse_qid(qid)
    if what is None:
        return None
    kind = what["kind"]
    if kind == "acc":
        try:
            lo, hi = float(lo), float(hi)
        except (TypeError, ValueError):
            return None
        return Question(str(qid), kind, "number", lo=lo, hi=hi)
    options = tuple(str(o) for o in (options or ()))
    if kind == "alpha":
        return Question(str(qid), kind, "choice", options=options, k=what["k"]) if options == ("up", "down") else None
    if kind == "beta":
        if len(options) != N_WORDS or not all(re.fullmatch(r"f\d{1,7}", o) for o in options):
            return None
        return Question(str(qid), kind, "choice", options=options, words=tuple(int(o[1:]) for o in options))
    if not options or not all(o == f"c{c}" for c, o in enumerate(options)):
        return None
    return Question(str(qid), kind, "choice", options=options, doc=what["doc"])


def _next_step_ok(run) -> None:
    if run is None:
        raise NotAskable(N_("Start a run first."))
    if run.done:
        raise NotAskable(N_("EM has stopped: there is no next Step to predict. Reset or change a setting first."))
    if run.pending is not None:
        raise NotAskable(N_("An E-step is pending: finish the iteration (M-step) first."))


def _stepped(run):
    """A copy of ``run`` one Step on (the run itself untouched)."""
    nxt = run.with_settings()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nxt.step()
    return nxt


def _converged(run):
    """A copy of ``run`` run to convergence (or its maximum iterations)."""
    out = run.with_settings()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if out.pending is not None:
            out.m_step()
        out.run_to_convergence()
    return out


def _beta_moves(run) -> np.ndarray:
    """Each feature's largest |Δβ_jk| over the classes at the next Step."""
    nxt = _stepped(run)
    return np.abs(np.asarray(nxt.current.beta) - np.asarray(run.current.beta)).max(axis=1)


def why_not(kind: str, run, prep) -> NotAskable | None:
    """None when a question of ``kind`` can be asked of this run now, else why not (its msgid and params)."""
    try:
        _check(kind, run, prep)
    except NotAskable as e:
        return e
    return None


def available(run, prep) -> dict[str, str | None]:
    """Each kind: None when it can be asked of this run now, else why not (a sentence, in English)."""
    return {kind: None if (e := why_not(kind, run, prep)) is None else str(e) for kind in KINDS}


def _check(kind: str, run, prep) -> None:
    if run is None or prep is None:
        raise NotAskable(N_("Start a run first."))
    if kind in ("alpha", "beta"):
        _next_step_ok(run)
    if kind == "beta" and "beta" not in run.current.params:
        raise NotAskable(N_("This event model has no β (the bernoulli and multinomial models have)."))
    if kind == "beta" and run.current.beta.shape[0] < N_WORDS:
        raise NotAskable(N_("The data have fewer than {n} words."), n=N_WORDS)
    if kind == "doc" and prep.n_classes > MAX_CLASSES:
        raise NotAskable(N_("A question offers at most {most} classes; these data have {n}."), most=MAX_CLASSES,
                         n=prep.n_classes)
    if kind == "acc" and not bool(prep.score_mask.any()):
        raise NotAskable(N_("No hidden label is known: there is no accuracy to predict."))


def make(kind: str, n: int, run, prep, *, k: int = 0, doc: int | None = None, seed: int | None = None) -> Question:
    """Question number ``n`` of kind ``kind`` about ``run`` (its data ``prep``) as it is now. ``k``: the
    class of an α question; ``doc``: the document of a doc question (default one drawn among the hidden
    ones); ``seed``: the draw of the document and the four words (default ``n``). Raises NotAskable."""
    if kind not in KINDS:
        raise NotAskable(f"Unknown kind of question {str(kind)[:20]!r} (one of {', '.join(KINDS)}).")
    if not isinstance(n, int) or not 0 <= n < 10**6:
        raise NotAskable("n: a whole number from 0 to 999999.")
    _check(kind, run, prep)
    rng = np.random.default_rng(n if seed is None else seed)
    if kind == "alpha":
        if not 0 <= int(k) < prep.n_classes:
            raise NotAskable(f"There is no class {k}: the classes are 0–{prep.n_classes - 1}.")
        return Question(f"q{n}-a{int(k)}", "alpha", "choice", options=("up", "down"), k=int(k))
    if kind == "beta":
        moves = _beta_moves(run)
        order = np.argsort(-moves, kind="stable")
        # one word that moves clearly most (the top one), three others drawn from the rest: a real question,
        # with one right answer (no tie at the top)
        top = int(order[0])
        rest = [int(j) for j in order[1:] if moves[j] < moves[top]]
        if len(rest) < N_WORDS - 1:
            raise NotAskable(N_("The next Step moves too few words apart to ask which moves most."))
        others = rng.choice(len(rest), size=N_WORDS - 1, replace=False)
        words = sorted([top] + [rest[int(i)] for i in others])
        order = [int(j) for j in rng.permutation(words)]
        return Question(f"q{n}-b", "beta", "choice", options=tuple(f"f{j}" for j in order), words=tuple(order))
    if kind == "doc":
        if doc is None:
            pool = np.flatnonzero(np.asarray(prep.y_obs) < 0)
            if pool.size == 0:
                pool = np.arange(len(prep.y_obs))
            doc = int(pool[int(rng.integers(pool.size))])
        if not 0 <= int(doc) < len(prep.y_obs):
            raise NotAskable(f"There is no document {doc}: the documents are 0–{len(prep.y_obs) - 1}.")
        return Question(f"q{n}-d{int(doc)}", "doc", "choice", options=tuple(f"c{c}" for c in range(prep.n_classes)),
                        doc=int(doc))
    return Question(f"q{n}-acc", "acc", "number", lo=0.0, hi=100.0)


def right_answer(q: Question, run, prep):
    """The right answer of ``q`` about ``run`` (the state it was asked about), computed by nbcore: an option
    id, or the accuracy in percent. The run is untouched."""
    if q.kind == "alpha":
        _next_step_ok(run)
        nxt = _stepped(run)
        return "up" if float(nxt.current.alpha[q.k]) > float(run.current.alpha[q.k]) else "down"
    if q.kind == "beta":
        _next_step_ok(run)
        moves = _beta_moves(run)
        best = max(q.words, key=lambda j: (float(moves[j]), -j))
        return f"f{best}"
    end = _converged(run)
    if q.kind == "doc":
        return f"c{int(np.asarray(end.predict_proba())[q.doc].argmax())}"
    acc = numbers.score(np.asarray(end.predict_proba()).argmax(axis=1), prep)
    return float(min(100.0, max(0.0, acc * 100.0)))


def doc_name(prep, doc: int, chars: int = 80) -> str:
    """How the panel names document ``doc``: its number and its first characters (plain text: data)."""
    texts = getattr(getattr(prep, "ds", None), "texts", None)
    head = "" if texts is None else " ".join(str(texts[doc]).split())[:chars]
    return f"#{doc}" + (f" “{head}”" if head else "")
