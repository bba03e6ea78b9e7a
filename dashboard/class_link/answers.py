"""A class's questions and its students' answers, in the shared store (the class answers' contract,
docs/class_link.md, "The class answers").

The teacher's session (the write key) opens a question on its class (:func:`ask`): a ``"choice"`` among
2–6 option ids, a ``"number"`` in a finite range, or a ``"report"``: the numbers a student's page computed
itself (its own EM start's log-likelihood, accuracy, α, ...), each a named field with a finite range. A
report question hands each browser a seed (derived from its token: the same after a reload) and, when the
teacher gave a list of labelled shares, one of them, round-robin in the order the browsers ask
(:func:`assign`), so the class's shares spread over the list. Students answer it over HTTP (routes.py, through
:func:`answer`); the teacher reads the tally (:func:`tally`) and, once the lesson has computed the right
answer itself (nbcore, on the server), calls :func:`reveal`: the question closes and its tally becomes
readable by everyone (:func:`public_tally`). There is no HTTP route that takes a right answer or opens,
closes or reveals a question: nothing a browser sends can change the lesson.

Safe by construction:

* a student is a random per-browser token (``TOKEN_RE``, at least 128 bits); the store keeps only the
  SHA-256 of the class id and the token together (a browser's answers in two classes cannot be linked);
  no name and no free text is stored: an answer is one of the question's option ids, a finite number, or
  a report of the question's own fields, each a finite number;
* one answer per token and question: a new one replaces the old (the tally counts each token once);
* every answer is checked (the option among the question's, the number finite and in range, the question
  open, the class open and not expired) inside the store's write transaction, so a refused answer changes
  nothing and is counted nowhere;
* bounded: ``MAX_QUESTIONS`` questions per class, ``MAX_ANSWERS`` tokens per question, and
  ``ANSWERS_PER_MINUTE`` answers per token and class (a token bucket kept in the store, so every process
  behind the proxy spends the same bucket), besides the client's request budget (entry.py);
* aggregated in the store (tables ``nblab_questions``, ``nblab_answers``, ``nblab_answer_rate``,
  ``nblab_assignments``, created
  with the classes' schema on SQLite and PostgreSQL): every app process counts the same answers, and they
  outlive any process.

Every call goes through the store's deadline and error handling (``ShareStore._bounded``, ``_guard``).
"""
from __future__ import annotations

import bisect
import hashlib
import json
import math
import numbers
import re
import threading
import time
from collections import OrderedDict
from typing import Any

from dashboard.class_link import store as CS
from dashboard.data import store as S

__all__ = [
    "AnswerError", "BadAnswer", "BadQuestion", "NoQuestion", "QuestionClosed", "ClassClosed", "TooManyAnswers",
    "NotRevealed", "NotAssigned", "ask", "close", "reveal", "tally", "answer", "assign", "mine", "question",
    "public_tally", "parse_body", "seed_of",
    "token_hash", "MAX_BODY", "MAX_ANSWERS", "MAX_QUESTIONS", "ANSWERS_PER_MINUTE", "NUMBER_BINS",
]

MAX_BODY = 1024                 # bytes of one answer's JSON body
MAX_QUESTIONS = 200             # questions one class may ask
MAX_ANSWERS = 5000              # tokens one question counts
ANSWERS_PER_MINUTE = 10         # answers (or changes) one token may send to one class in a minute (a burst of 10)
MIN_OPTIONS, MAX_OPTIONS = 2, 6
MAX_RANGE = 1e9                 # |lo|, |hi| of a number question
NUMBER_BINS = 10                # the histogram of a number question: equal bins over [lo, hi]
QUANTILES = (0.0, 0.25, 0.5, 0.75, 1.0)
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{22,64}")
ID_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")      # question ids and option ids
KINDS = ("choice", "number", "report")
MAX_FIELDS = 16                 # numbers one report holds
MAX_SHARES = 32                 # labelled shares a report question hands out
SEED_BITS = 31                  # a report's seed: 0 <= seed < 2**31 (numpy's and the lab's seeds take it)
READ_TTL = CS.READ_TTL          # s: a process answers a question's public view from memory this long


# ---- errors: each carries its HTTP status and a message for the student's page ------------------------

class AnswerError(CS.ClassError):
    status = 400


class BadAnswer(AnswerError):
    """The body or the answer is not one this question takes."""
    status = 400


class BadQuestion(AnswerError):
    """The teacher's question is not one the contract allows (the lesson's mistake, never a student's)."""
    status = 400


class NoQuestion(AnswerError):
    status = 404


class NotRevealed(AnswerError):
    status = 403


class QuestionClosed(AnswerError):
    status = 409


class ClassClosed(AnswerError):
    """The teacher closed the class: it takes no answers and no questions."""
    status = 410


class NotAssigned(AnswerError):
    """A report of a question that hands out labelled shares, from a browser that was handed none."""
    status = 409


class TooManyAnswers(AnswerError):
    status = 429

    def __init__(self, msg: str, retry_after: int):
        super().__init__(msg)
        self.retry_after = max(1, int(retry_after))


NO_QUESTION = "This class has no such question."
CLOSED = "This question is closed: it takes no more answers."
CLASS_CLOSED = "This class has ended: it takes no more answers."
NOT_REVEALED = "The class's answers are shown once the teacher reveals the right one."
NOT_JSON = "The answer is not valid JSON."
NOT_FINITE = "The answer is not valid JSON: NaN and Infinity are not numbers."
SHAPE = 'The answer must be a JSON object {"token": "...", "answer": ...} with nothing else in it.'
BAD_TOKEN = ("The answer's token is not valid: a random id of 22 to 64 characters of A-Z, a-z, 0-9, "
             "- and _, made once by the page.")
NOT_A_NUMBER = "This question's answer is a number."
TOKEN_SHAPE = 'The request must be a JSON object {"token": "..."} with nothing else in it.'
NOT_ASSIGNED = "This browser has no labelled share of this question yet: the page asks for one first."
NO_ASSIGNMENT = "This question hands out no seeds or shares (it is not a report)."


def status_of(e: Exception) -> int:
    """The HTTP status of an error the answer calls raise."""
    if isinstance(e, AnswerError):
        return e.status
    if isinstance(e, CS.ClassGone):
        return 410
    return 404   # ClassNotFound, BadClassId


# ---- checks -------------------------------------------------------------------------------------------

def _check_id(qid) -> str:
    if not isinstance(qid, str) or not ID_RE.fullmatch(qid):
        raise NoQuestion(NO_QUESTION)
    return qid


def _check_token(token) -> str:
    if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
        raise BadAnswer(BAD_TOKEN)
    return token


def token_hash(cid: str, token: str) -> str:
    """What the store keeps of a student's token: the SHA-256 of the class and the token together."""
    return hashlib.sha256(f"nblab-answer:{cid}:{token}".encode()).hexdigest()


def _finite_number(v, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):   # a numpy number (the lesson's) too
        raise BadQuestion(f"{what}: a finite number")
    try:
        f = float(v)
    except OverflowError:
        raise BadQuestion(f"{what}: a finite number") from None
    if not math.isfinite(f) or abs(f) > MAX_RANGE:
        raise BadQuestion(f"{what}: a finite number within ±{MAX_RANGE:g}")
    return f


def _spec(kind, options, lo, hi, fields=None, shares=None) -> dict:
    """The question's stored spec: ``{"options": [...]}``, ``{"lo": lo, "hi": hi}`` or
    ``{"fields": {name: [lo, hi], ...}, "shares": [...] | None}``."""
    if kind == "choice":
        if not isinstance(options, (list, tuple)) or not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
            raise BadQuestion(f"options: a list of {MIN_OPTIONS}–{MAX_OPTIONS} option ids")
        if not all(isinstance(o, str) and ID_RE.fullmatch(o) for o in options):
            raise BadQuestion("options: each an id of 1–32 characters of A-Z, a-z, 0-9, - and _")
        if len(set(options)) != len(options):
            raise BadQuestion("options: each option once")
        return {"options": list(options)}
    if kind == "number":
        lo_f, hi_f = _finite_number(lo, "lo"), _finite_number(hi, "hi")
        if not lo_f < hi_f:
            raise BadQuestion("lo < hi: the range of the answers")
        return {"lo": lo_f, "hi": hi_f}
    if kind == "report":
        if not isinstance(fields, dict) or not 1 <= len(fields) <= MAX_FIELDS:
            raise BadQuestion(f"fields: 1–{MAX_FIELDS} named ranges {{name: (lo, hi)}}")
        out = {}
        for name, rng in fields.items():
            if not isinstance(name, str) or not ID_RE.fullmatch(name):
                raise BadQuestion("fields: each name 1–32 characters of A-Z, a-z, 0-9, - and _")
            if not isinstance(rng, (list, tuple)) or len(rng) != 2:
                raise BadQuestion(f"fields: {name}'s range a pair (lo, hi)")
            f_lo, f_hi = _finite_number(rng[0], f"{name} lo"), _finite_number(rng[1], f"{name} hi")
            if not f_lo < f_hi:
                raise BadQuestion(f"fields: {name}'s lo < hi")
            out[name] = [f_lo, f_hi]
        got_shares = None
        if shares is not None:
            if not isinstance(shares, (list, tuple)) or not 1 <= len(shares) <= MAX_SHARES:
                raise BadQuestion(f"shares: a list of 1–{MAX_SHARES} labelled shares in (0, 1]")
            got_shares = [_finite_number(x, "shares") for x in shares]
            if not all(0.0 < x <= 1.0 for x in got_shares):
                raise BadQuestion(f"shares: a list of 1–{MAX_SHARES} labelled shares in (0, 1]")
        return {"fields": out, "shares": got_shares}
    raise BadQuestion('kind: "choice", "number" or "report"')


def _value(kind: str, spec: dict, v) -> str | float:
    """The answer ``v`` as stored (an option id, or a float), or BadAnswer with the reason."""
    if kind == "choice":
        if not isinstance(v, str) or v not in spec["options"]:
            raise BadAnswer("The answer is not one of this question's options (" + ", ".join(spec["options"]) + ").")
        return v
    if kind == "report":
        names = list(spec["fields"])
        if not isinstance(v, dict) or set(v) != set(names):
            raise BadAnswer("The report must hold exactly this question's numbers: " + ", ".join(names) + ".")
        out = {}
        for name in names:
            f_lo, f_hi = spec["fields"][name]
            x = v[name]
            if isinstance(x, bool) or not isinstance(x, numbers.Real):
                raise BadAnswer(f"The report's {name} must be a number.")
            try:
                f = float(x)
            except OverflowError:
                f = math.inf
            if not (math.isfinite(f) and f_lo <= f <= f_hi):
                raise BadAnswer(f"The report's {name} must be a number from {f_lo:g} to {f_hi:g}.")
            out[name] = f
        return out
    if isinstance(v, bool) or not isinstance(v, numbers.Real):   # from JSON: int or float; from nbcore: numpy's too
        raise BadAnswer(NOT_A_NUMBER)
    try:
        f = float(v)
    except OverflowError:
        f = math.inf
    if not (math.isfinite(f) and spec["lo"] <= f <= spec["hi"]):
        raise BadAnswer(f"The answer must be a number from {spec['lo']:g} to {spec['hi']:g}.")
    return f


def _no_constant(name: str):
    raise BadAnswer(NOT_FINITE)


def _one_each(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise BadAnswer(SHAPE)
    return dict(pairs)


def _parse(body: bytes, keys: set[str], shape: str) -> dict:
    if len(body) > MAX_BODY:
        raise BadAnswer(f"The answer is over {MAX_BODY} bytes.")
    try:
        got = json.loads(body.decode("utf-8"), parse_constant=_no_constant, object_pairs_hook=_one_each)
    except BadAnswer as e:
        raise BadAnswer(shape if str(e) == SHAPE else str(e)) from None
    except (ValueError, RecursionError):   # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise BadAnswer(NOT_JSON) from None
    if not isinstance(got, dict) or set(got) != keys:
        raise BadAnswer(shape)
    _check_token(got["token"])
    return got


def parse_body(body: bytes) -> tuple[str, Any]:
    """``(token, answer)`` of an answer's body: a JSON object of exactly those two keys (UTF-8, at most
    MAX_BODY bytes). Raises BadAnswer; the answer itself is checked against its question by :func:`answer`."""
    got = _parse(body, {"token", "answer"}, SHAPE)
    return got["token"], got["answer"]


def parse_token_body(body: bytes) -> str:
    """The token of an assignment's body: a JSON object ``{"token": "..."}`` and nothing else."""
    return _parse(body, {"token"}, TOKEN_SHAPE)["token"]


# ---- inside a transaction -------------------------------------------------------------------------------

def _live_class(db, store: S.ShareStore, cid: str) -> None:
    """The class exists, is not expired and its teacher has not closed it (raises otherwise)."""
    row = db.execute("SELECT updated, state FROM nblab_classes WHERE id = ?", (cid,)).fetchone()
    if row is None:
        raise CS.ClassNotFound("This class is not on the server (it was closed or never opened).")
    if float(row[0]) < store.clock() - CS.CLASS_TTL:
        raise CS.ClassGone("This class was not used for 12 hours and was closed.")
    try:
        is_open = json.loads(str(row[1])).get("open", True)
    except (ValueError, AttributeError):
        is_open = False   # a state nobody can read takes no answers
    if is_open is not True:
        raise ClassClosed(CLASS_CLOSED)


def _question(db, cid: str, qid: str) -> dict:
    row = db.execute("SELECT kind, spec, is_open, right_answer FROM nblab_questions WHERE class_id = ? AND qid = ?",
                     (cid, qid)).fetchone()
    if row is None:
        raise NoQuestion(NO_QUESTION)
    kind, spec = str(row[0]), json.loads(str(row[1]))
    right = None if row[3] is None else json.loads(str(row[3]))
    out = {"question": qid, "kind": kind, "open": bool(int(row[2])), "revealed": row[3] is not None, "right": right}
    out.update(_spec_of({"kind": kind, **spec}))
    return out


def _spec_of(q: dict) -> dict:
    if q["kind"] == "choice":
        return {"options": q["options"]}
    if q["kind"] == "report":
        return {"fields": q["fields"], "shares": q["shares"]}
    return {"lo": q["lo"], "hi": q["hi"]}


def seed_of(qid: str, th: str) -> int:
    """A report's seed for the browser whose token hash is ``th``: the same whenever it asks."""
    return int(hashlib.sha256(f"nblab-seed:{qid}:{th}".encode()).hexdigest()[:16], 16) % (2 ** SEED_BITS)


def _summary(xs: list[float]) -> dict:
    xs = sorted(xs)
    return {"quantiles": [_quantile(xs, p) for p in QUANTILES] if xs else None,
            "mean": math.fsum(xs) / len(xs) if xs else None}


def _quantile(xs: list[float], p: float) -> float:
    """The ``p`` quantile of sorted ``xs``, interpolated linearly between order statistics."""
    h = (len(xs) - 1) * p
    i = math.floor(h)
    j = min(i + 1, len(xs) - 1)
    return xs[i] + (h - i) * (xs[j] - xs[i])


def _tally(db, cid: str, q: dict) -> dict:
    """The question's tally from the store: counts per option, or the numbers' histogram and quantiles."""
    out = {k: q[k] for k in ("question", "kind", "open", "revealed", "right")}
    if q["kind"] == "choice":
        rows = db.execute("SELECT choice, COUNT(*) FROM nblab_answers WHERE class_id = ? AND qid = ? "
                          "GROUP BY choice", (cid, q["question"])).fetchall()
        got = {str(c): int(n) for c, n in rows}
        out["options"] = q["options"]
        out["counts"] = {o: got.get(o, 0) for o in q["options"]}
        out["n"] = sum(got.values())
        return out
    if q["kind"] == "report":
        shares = q["shares"]
        got_rows = db.execute("SELECT a.token_hash, a.report, s.slot FROM nblab_answers a LEFT JOIN nblab_assignments s "
                              "ON s.class_id = a.class_id AND s.qid = a.qid AND s.token_hash = a.token_hash "
                              "WHERE a.class_id = ? AND a.qid = ? ORDER BY a.at, a.token_hash",
                              (cid, q["question"])).fetchall()
        reports = []
        for th, text, slot in got_rows:
            reports.append({"seed": seed_of(q["question"], str(th)),
                            "share": None if shares is None or slot is None else shares[int(slot) % len(shares)],
                            "values": json.loads(str(text))})
        out.update({"fields": q["fields"], "shares": shares, "n": len(reports), "reports": reports,
                    "summary": {name: _summary([r["values"][name] for r in reports]) for name in q["fields"]}})
        return out
    xs = [float(r[0]) for r in db.execute("SELECT num FROM nblab_answers WHERE class_id = ? AND qid = ? "
                                          "ORDER BY num", (cid, q["question"])).fetchall()]
    lo, hi = q["lo"], q["hi"]
    edges = [lo + (hi - lo) * i / NUMBER_BINS for i in range(NUMBER_BINS)] + [hi]
    bins = [0] * NUMBER_BINS
    for x in xs:   # [edge_i, edge_i+1), the last bin closed at hi
        bins[min(NUMBER_BINS - 1, max(0, bisect.bisect_right(edges, x) - 1))] += 1
    out.update({"lo": lo, "hi": hi, "n": len(xs), "edges": edges, "bins": bins, **_summary(xs)})
    return out


def _keep_order(spec: dict) -> str:
    """The spec's JSON with its keys in the teacher's order (a report's fields are listed as asked)."""
    return json.dumps(spec, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _owned(db, store, cid: str, write_key: str) -> None:
    CS._owned_row(db, store, cid, write_key)


# ---- the teacher (the lesson's Streamlit session, never a browser) ---------------------------------

def ask(cid: str, write_key: str, qid: str, kind: str, *, options=None, lo=None, hi=None, fields=None,
        shares=None, store: S.ShareStore | None = None) -> dict:
    """Open question ``qid`` on the class: ``kind="choice"`` with ``options`` (2–6 ids),
    ``kind="number"`` with the range ``[lo, hi]``, or ``kind="report"`` with ``fields``
    (``{name: (lo, hi)}``, 1–16 numbers each page reports) and optionally ``shares`` (1–32 labelled
    shares in (0, 1], handed out round-robin). Returns the question as students read it.
    Raises WrongKey, ClassNotFound, ClassGone, ClassClosed, BadQuestion (a bad spec, an id asked
    before, more than MAX_QUESTIONS), StoreUnavailable."""
    CS._check_key(cid, write_key)
    if not isinstance(qid, str) or not ID_RE.fullmatch(qid):
        raise BadQuestion("id: 1–32 characters of A-Z, a-z, 0-9, - and _")
    spec = _spec(kind, options, lo, hi, fields, shares)
    store = store or CS.get_store()

    def work():
        with store._guard("ask question"):
            with store._tx(write=True) as db:
                now = store.clock()
                _owned(db, store, cid, write_key)
                _live_class(db, store, cid)
                for table in ("nblab_answers", "nblab_answer_rate", "nblab_assignments", "nblab_questions"):
                    # the rows of classes that are gone
                    db.execute(f"DELETE FROM {table} WHERE class_id NOT IN (SELECT id FROM nblab_classes)")
                n = int(db.execute("SELECT COUNT(*) FROM nblab_questions WHERE class_id = ?", (cid,)).fetchone()[0])
                if db.execute("SELECT 1 FROM nblab_questions WHERE class_id = ? AND qid = ?",
                              (cid, qid)).fetchone() is not None:
                    raise BadQuestion("This class has asked a question with this id already.")
                if n >= MAX_QUESTIONS:
                    raise BadQuestion(f"This class has asked {MAX_QUESTIONS} questions, as many as it may.")
                db.execute("INSERT INTO nblab_questions (class_id, qid, kind, spec, is_open, right_answer, created) "
                           "VALUES (?, ?, ?, ?, 1, NULL, ?)", (cid, qid, kind, _keep_order(spec), now))
                return _question(db, cid, qid)
    got = store._bounded("ask question", work)
    _forget(cid)
    return got


def close(cid: str, write_key: str, qid: str, *, store: S.ShareStore | None = None) -> dict:
    """Close question ``qid`` (it takes no more answers); returns its tally. Raises like :func:`ask`,
    NoQuestion."""
    return _finish(cid, write_key, qid, None, store)


def reveal(cid: str, write_key: str, qid: str, right, *, store: S.ShareStore | None = None) -> dict:
    """Mark ``right`` (computed by the lesson on the server, never taken from a browser) as the answer of
    question ``qid``: the question closes and its tally (returned) becomes readable by the students.
    ``right`` must be an answer the question takes (an option, a number in range). A question is revealed
    once. Raises like :func:`close`, BadQuestion."""
    if right is None:
        raise BadQuestion("right: the question's right answer")
    return _finish(cid, write_key, qid, (right,), store)


def _finish(cid, write_key, qid, right, store) -> dict:
    CS._check_key(cid, write_key)
    _check_id(qid)
    store = store or CS.get_store()

    def work():
        with store._guard("close question"):
            with store._tx(write=True) as db:
                _owned(db, store, cid, write_key)
                q = _question(db, cid, qid)
                if right is None:
                    db.execute("UPDATE nblab_questions SET is_open = 0 WHERE class_id = ? AND qid = ?", (cid, qid))
                else:
                    if q["revealed"]:
                        raise BadQuestion("This question's answer was revealed already.")
                    try:
                        value = _value(q["kind"], _spec_of(q), right[0])
                    except BadAnswer as e:
                        raise BadQuestion(f"right: {e}") from None
                    db.execute("UPDATE nblab_questions SET is_open = 0, right_answer = ? WHERE class_id = ? AND qid = ?",
                               (CS._dump(value), cid, qid))
                return _tally(db, cid, _question(db, cid, qid))
    got = store._bounded("close question", work)
    _forget(cid)
    return got


def tally(cid: str, write_key: str, qid: str, *, store: S.ShareStore | None = None) -> dict:
    """The question's tally for the teacher (at any time): ``n`` (tokens that answered) and ``counts``
    per option; or ``bins`` over ``edges`` and ``quantiles`` (min, quartiles, max) and ``mean`` of the
    numbers; or, for a report, ``reports`` (``{"seed", "share", "values"}`` each, in the order they came)
    and a ``summary`` (quantiles and mean) per field. Raises like :func:`close`."""
    CS._check_key(cid, write_key)
    _check_id(qid)
    store = store or CS.get_store()

    def work():
        with store._guard("tally"):
            with store._tx(write=False) as db:
                _owned(db, store, cid, write_key)
                return _tally(db, cid, _question(db, cid, qid))
    return store._bounded("tally", work)


# ---- the students (the HTTP routes) ---------------------------------------------------------------

def answer(cid: str, qid: str, token: str, value, *, store: S.ShareStore | None = None) -> dict:
    """Store the answer of the browser holding ``token`` (replacing its earlier one). Returns
    ``{"question", "answer", "replaced"}``. Raises BadClassId, ClassNotFound, ClassGone, ClassClosed,
    NoQuestion, QuestionClosed, BadAnswer, TooManyAnswers, StoreUnavailable; a refused answer changes
    nothing in the store."""
    if not CS.valid_class_id(cid):
        raise CS.BadClassId("This class link is not valid.")
    _check_id(qid)
    th = token_hash(cid, _check_token(token))
    store = store or CS.get_store()

    def work():
        with store._guard("answer"):
            with store._tx(write=True) as db:
                now = store.clock()
                _live_class(db, store, cid)
                q = _question(db, cid, qid)
                if not q["open"]:
                    raise QuestionClosed(CLOSED)
                v = _value(q["kind"], _spec_of(q), value)
                if q["kind"] == "report" and q["shares"] is not None and db.execute(
                        "SELECT 1 FROM nblab_assignments WHERE class_id = ? AND qid = ? AND token_hash = ?",
                        (cid, qid, th)).fetchone() is None:
                    raise NotAssigned(NOT_ASSIGNED)
                old = db.execute("SELECT 1 FROM nblab_answers WHERE class_id = ? AND qid = ? AND token_hash = ?",
                                 (cid, qid, th)).fetchone()
                left = _bucket(db, cid, th, now)
                if old is None:
                    _room(db, "nblab_answers", cid, qid, "answers")
                _spend(db, cid, th, left, now)
                choice = v if q["kind"] == "choice" else None
                num = v if q["kind"] == "number" else None
                report = CS._dump(v) if q["kind"] == "report" else None
                db.execute("INSERT INTO nblab_answers (class_id, qid, token_hash, choice, num, report, at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (class_id, qid, token_hash) DO UPDATE SET "
                           "choice = excluded.choice, num = excluded.num, report = excluded.report, at = excluded.at",
                           (cid, qid, th, choice, num, report, now))
        return {"question": qid, "answer": v, "replaced": old is not None}
    return store._bounded("answer", work)


def _bucket(db, cid: str, th: str, now: float) -> float:
    """The token's answers left in its bucket now (TooManyAnswers when it has not one)."""
    rate = ANSWERS_PER_MINUTE / 60.0
    row = db.execute("SELECT tokens, at FROM nblab_answer_rate WHERE class_id = ? AND token_hash = ?",
                     (cid, th)).fetchone()
    have = float(ANSWERS_PER_MINUTE) if row is None else min(
        float(ANSWERS_PER_MINUTE), float(row[0]) + max(0.0, now - float(row[1])) * rate)
    if have < 1.0:
        wait = math.ceil((1.0 - have) / rate)
        raise TooManyAnswers(f"Too many answers from this browser: wait {wait} seconds.", wait)
    return have


def _spend(db, cid: str, th: str, have: float, now: float) -> None:
    db.execute("INSERT INTO nblab_answer_rate (class_id, token_hash, tokens, at) VALUES (?, ?, ?, ?) "
               "ON CONFLICT (class_id, token_hash) DO UPDATE SET tokens = excluded.tokens, at = excluded.at",
               (cid, th, have - 1.0, now))


def _room(db, table: str, cid: str, qid: str, what: str) -> int:
    """How many rows the question has in ``table``; TooManyAnswers when it has MAX_ANSWERS."""
    n = int(db.execute(f"SELECT COUNT(*) FROM {table} WHERE class_id = ? AND qid = ?", (cid, qid)).fetchone()[0])
    if n >= MAX_ANSWERS:
        raise TooManyAnswers(f"This question has taken as many {what} as it may ({MAX_ANSWERS}).", 60)
    return n


def _assignment(db, qid: str, th: str, q: dict) -> dict:
    row = db.execute("SELECT slot FROM nblab_assignments WHERE class_id = ? AND qid = ? AND token_hash = ?",
                     (q["class"], qid, th)).fetchone() if q["shares"] is not None else None
    share = None if row is None else q["shares"][int(row[0]) % len(q["shares"])]
    return {"seed": seed_of(qid, th), "share": share}


def assign(cid: str, qid: str, token: str, *, store: S.ShareStore | None = None) -> dict:
    """The seed and labelled share of report question ``qid`` for the browser holding ``token``:
    ``{"question", "seed", "share"}`` (``share`` None when the question hands out none). A browser that
    asks again gets the same; a new one the next share of the list (round-robin in the order they ask).
    Raises like :func:`answer` (a new share costs one answer of the token's budget)."""
    if not CS.valid_class_id(cid):
        raise CS.BadClassId("This class link is not valid.")
    _check_id(qid)
    th = token_hash(cid, _check_token(token))
    store = store or CS.get_store()

    def work():
        with store._guard("assign"):
            with store._tx(write=True) as db:
                now = store.clock()
                _live_class(db, store, cid)
                q = _question(db, cid, qid)
                if q["kind"] != "report":
                    raise BadAnswer(NO_ASSIGNMENT)
                if not q["open"]:
                    raise QuestionClosed(CLOSED)
                q["class"] = cid
                got = _assignment(db, qid, th, q)
                if q["shares"] is not None and got["share"] is None:
                    left = _bucket(db, cid, th, now)
                    slot = _room(db, "nblab_assignments", cid, qid, "browsers")
                    _spend(db, cid, th, left, now)
                    db.execute("INSERT INTO nblab_assignments (class_id, qid, token_hash, slot, at) VALUES (?, ?, ?, ?, ?)",
                               (cid, qid, th, slot, now))
                    got = _assignment(db, qid, th, q)
        return {"question": qid, **got}
    return store._bounded("assign", work)


def mine(cid: str, qid: str, token: str, *, store: S.ShareStore | None = None) -> dict:
    """The question as students see it and this token's answer (``None`` when it has not answered):
    ``{"question": {...}, "answer": ...}``, for a page that reloads. Raises like :func:`question`,
    BadAnswer (a token of the wrong shape)."""
    if not CS.valid_class_id(cid):
        raise CS.BadClassId("This class link is not valid.")
    _check_id(qid)
    th = token_hash(cid, _check_token(token))
    store = store or CS.get_store()

    def work():
        with store._guard("my answer"):
            with store._tx(write=False) as db:
                q = _public(db, store, cid, qid)
                row = db.execute("SELECT choice, num, report FROM nblab_answers WHERE class_id = ? AND qid = ? "
                                 "AND token_hash = ?", (cid, qid, th)).fetchone()
                mine_ = None if q["kind"] != "report" else _assignment(db, qid, th, {**q, "class": cid})
        if row is None:
            got = None
        else:
            got = {"choice": lambda: str(row[0]), "number": lambda: float(row[1]),
                   "report": lambda: json.loads(str(row[2]))}[q["kind"]]()
        out = {"question": q, "answer": got}
        if mine_ is not None:
            out.update(mine_)
        return out
    return store._bounded("my answer", work)


def _public(db, store, cid: str, qid: str) -> dict:
    """The question as students may read it (the right answer only once revealed); the class must exist
    and not be expired (a closed class's questions stay readable: they say they are closed)."""
    try:
        _live_class(db, store, cid)
        class_open = True
    except ClassClosed:
        class_open = False
    q = _question(db, cid, qid)
    q["open"] = q["open"] and class_open
    return q


_CACHE: "OrderedDict[tuple, tuple[float, Any]]" = OrderedDict()
_CACHE_LOCK = threading.Lock()
CACHE_ENTRIES = 4096


def clear_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()


def _forget(cid: str) -> None:
    with _CACHE_LOCK:
        for k in [k for k in _CACHE if k[1] == cid]:
            del _CACHE[k]


def is_cached(what: str, cid: str, qid: str, store: S.ShareStore | None = None) -> bool:
    """Whether :func:`question` (``what="question"``) or :func:`public_tally` (``"tally"``) would answer
    from this process's cache now (the route charges a store read otherwise)."""
    if store is None:
        with CS._STORE_LOCK:
            if len(CS._STORES) != 1:
                return False
            store = next(iter(CS._STORES.values()))
    with _CACHE_LOCK:
        hit = _CACHE.get((id(store), cid, qid, what))
    return hit is not None and time.monotonic() - hit[0] < READ_TTL


def _cached_read(what: str, cid: str, qid: str, store: S.ShareStore, fn) -> dict:
    """``fn(db)``'s answer for (store, class, question), kept READ_TTL seconds by this process (a room
    asking for the same question or tally costs the database one read per READ_TTL); errors too."""
    ck = (id(store), cid, qid, what)
    with _CACHE_LOCK:
        hit = _CACHE.get(ck)
    if hit is not None and time.monotonic() - hit[0] < READ_TTL:
        got = hit[1]
    else:
        t0 = time.monotonic()

        def work():
            with store._guard(what):
                with store._tx(write=False) as db:
                    return fn(db)
        try:
            got = store._bounded(what, work)
        except (AnswerError, CS.ClassNotFound, CS.ClassGone) as e:
            got = e
        with _CACHE_LOCK:
            _CACHE[ck] = (t0, got)
            _CACHE.move_to_end(ck)
            while len(_CACHE) > CACHE_ENTRIES:
                _CACHE.popitem(last=False)
    if isinstance(got, Exception):
        raise type(got)(*([str(got), got.retry_after] if isinstance(got, TooManyAnswers) else [str(got)]))
    return json.loads(json.dumps(got))   # a copy: callers may change theirs


def question(cid: str, qid: str, *, store: S.ShareStore | None = None) -> dict:
    """The question as students see it: ``{"question", "kind", "open", "revealed", "right"}`` plus
    ``options`` or ``lo``/``hi`` (``right`` is None until revealed). Raises BadClassId, ClassNotFound,
    ClassGone, NoQuestion, StoreUnavailable."""
    if not CS.valid_class_id(cid):
        raise CS.BadClassId("This class link is not valid.")
    _check_id(qid)
    store = store or CS.get_store()
    return _cached_read("question", cid, qid, store, lambda db: _public(db, store, cid, qid))


def public_tally(cid: str, qid: str, *, store: S.ShareStore | None = None) -> dict:
    """The tally, for everyone once the question is revealed (as :func:`tally`); NotRevealed before."""
    if not CS.valid_class_id(cid):
        raise CS.BadClassId("This class link is not valid.")
    _check_id(qid)
    store = store or CS.get_store()

    def fn(db):
        q = _public(db, store, cid, qid)
        if not q["revealed"]:
            raise NotRevealed(NOT_REVEALED)
        got = _tally(db, cid, q)
        got.pop("reports", None)   # a report question's students get the summary; the projector draws the dots
        return got
    return _cached_read("tally", cid, qid, store, fn)
