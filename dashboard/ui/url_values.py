"""URL values: what a page does with each value of its link, as pure functions (no Streamlit).

A setting's widget is bound to the URL (``bind="query-params"``). Before the widget is drawn,
the value the page was opened with is decided here by the setting's *spec*, one of the classes
below (:class:`Number`, :class:`Range`, :class:`Grid`, :class:`Choice`, :class:`Flag`,
:class:`Text`, :class:`Many`): a value between grid points snaps to the nearest one, an
out-of-range number is clamped, a duplicated key uses its last value, anything else falls
back to the default. Every value not taken as given comes with one short line for the page's
notice (:class:`Decision`), naming the value (escaped, shortened) and what was used instead.

Each spec has ``decide(key, raw) -> Decision`` (``raw``: every value of the key in the URL),
``url(value)`` (the value as the URL holds it) and ``same(a, b)`` (whether the widget took the
decided value). The URL keys of every page and their specs are in ``url_table.py``; the
Streamlit side (the page's URL, the session, the widgets) is ``urlguard.py``.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence
from urllib.parse import unquote_plus

from dashboard.ui import derive

MAX_SHOWN = 40  # characters of a user's URL value echoed in a notice
_MISSING = object()


# ---- text helpers --------------------------------------------------------------------------

def shown(value: Any, limit: int = MAX_SHOWN) -> str:
    """A user's value, shortened, on one line and escaped so Markdown shows it literally
    (derive.md_escape: every Markdown-active character, a block marker at the start, ``www.``
    autolinks and ``&…;`` entities included)."""
    return derive.md_escape(value, limit + 1)


def code(value: Any, limit: int = MAX_SHOWN) -> str:
    """A user's value for inside a Markdown code span (shown literally there): shortened,
    on one line (every control character and line separator becomes a space), without
    backticks (which would end the span)."""
    return derive.one_line(value, limit + 1).replace("`", "'") or " "


def _num_url(v) -> str:
    """A number as Streamlit writes it into the URL (5.0 -> "5")."""
    if isinstance(v, float) and math.isfinite(v) and v == int(v):
        return str(int(v))
    return str(v)


def _num(v: float) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


# ---- numbers --------------------------------------------------------------------------------

#: A number as a URL holds one: optional sign, ASCII digits with at most one dot, optional
#: exponent. Python's float() also takes "1_0" (10), Arabic-Indic "٥٠" and fullwidth "５０" (50),
#: "nan", "infinity" and surrounding Unicode spaces; none of those is read as a number here.
_URL_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def url_number(key: str, s: str) -> tuple[float | None, str | None]:
    """The number a URL value spells, or (None, why) when it spells none that a float holds.

    Every numeric URL value (sliders, number inputs, numeric select sliders, ranges) is read
    here. Spaces and tabs around it are dropped (a ``+`` in a query string arrives as a space).
    A value beyond the float range is refused rather than rounded: ``1e400`` is not infinity
    and ``1e-400`` is not 0 (a λ of 0 is a different model from a tiny λ)."""
    t = s.strip(" \t")
    if not _URL_NUMBER.fullmatch(t):
        return None, f"`{key}={code(s)}` is not a number (plain digits, e.g. 0.5 or 1e-3)"
    v = float(t)
    if math.isinf(v):
        return None, f"`{key}={code(s)}` is too large to be held as a number"
    mantissa = re.split("[eE]", t)[0]
    if v == 0 and any(ch in "123456789" for ch in mantissa):
        return None, f"`{key}={code(s)}` is too close to 0 to be held as a number (it would be read as 0)"
    return v, None


# ---- decisions -----------------------------------------------------------------------------

@dataclass
class Decision:
    value: Any
    why: str | None = None   # None: taken as given (no notice)
    refused: bool = False    # the URL value was not read at all (the default is used)


def _last(raw: list[str], key: str) -> tuple[str, str | None]:
    if len(raw) > 1:
        vals = ", ".join(shown(r, 12) for r in raw[:4]) + (", …" if len(raw) > 4 else "")
        return raw[-1], f"`{key}` appears {len(raw)} times ({vals}): the last one counts"
    return raw[-1], None


def _join(*parts: str | None) -> str | None:
    got = [p for p in parts if p]
    return "; ".join(got) if got else None


@dataclass
class _Bounded:
    """What a number slider, a number input and a range slider share: numbers in [lo, hi],
    optionally whole, optionally on a step grid. ``read`` decides on one URL value."""
    lo: float
    hi: float
    default: Any
    step: float | None = None
    integer: bool = False

    def read(self, key: str, s: str, dup: str | None, default: Any) -> Decision:
        """One URL value ``s`` (``dup``: the note on a repeated key; ``default``: the number
        used when ``s`` spells none): clamped into [lo, hi], then snapped to the step grid."""
        v, bad = url_number(key, s)
        if bad:
            return Decision(default, _join(dup, f"{bad}; used {_num(default)}"), refused=True)
        why = None
        if v < self.lo or v > self.hi:
            c = min(max(v, self.lo), self.hi)
            side = f"larger than {_num(self.hi)}, the most" if v > self.hi else f"smaller than {_num(self.lo)}, the least"
            why = (f"`{key}={code(s)}` is {side} this setting takes (it goes from {_num(self.lo)} to "
                   f"{_num(self.hi)}); used {_num(self._cast(c))}")
            v = c
        if self.step:
            snapped = self.lo + round((v - self.lo) / self.step) * self.step
            snapped = min(max(snapped, self.lo), self.hi)
            if not math.isclose(snapped, v, rel_tol=1e-9, abs_tol=1e-9) and why is None:
                why = (f"`{key}={code(s)}` is between the slider's steps (every {_num(self.step)}); "
                       f"used the nearest, {_num(self._cast(snapped))}")
            v = snapped
        elif self.integer and v != round(v) and why is None:
            why = f"`{key}={code(s)}` is not a whole number; used {round(v)}"
        return Decision(self._cast(v), _join(dup, why))

    def _cast(self, v: float):
        if self.integer:
            return int(round(v))
        return round(float(v), 10)


@dataclass
class Number(_Bounded):
    """slider / number_input: a number in [lo, hi], optionally whole, optionally on a step grid."""

    def decide(self, key: str, raw: list[str]) -> Decision:
        s, dup = _last(raw, key)
        return self.read(key, s, dup, self.default)

    def url(self, v) -> str:
        return _num_url(v)

    def same(self, a, b) -> bool:
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
        except (TypeError, ValueError):
            return a == b


@dataclass
class Range(_Bounded):
    """A range slider (two numbers): repeated key ``k=lo&k=hi`` (or ``k=lo,hi``); ``default``
    is a (from, to) pair. Each end is read as a :class:`Number`'s value is."""

    def decide(self, key: str, raw: list[str]) -> Decision:
        parts = [p for r in raw for p in str(r).split(",") if p.strip()]
        if len(parts) != 2:
            return Decision(self.default, f"`{key}` needs two numbers (from, to); got {len(parts)}: "
                                          f"used {_num(self.default[0])} to {_num(self.default[1])}")
        a, b = (self.read(key, p, None, self.default[0]) for p in parts)
        if a.refused or b.refused or a.why and "not" in a.why or b.why and "not" in b.why:
            return Decision(self.default, _join(a.why, b.why))
        lo, hi = sorted((a.value, b.value))
        return Decision((lo, hi), _join(a.why, b.why))

    def url(self, v) -> list[str]:
        return [_num_url(x) for x in v]

    def same(self, a, b) -> bool:
        try:
            return all(math.isclose(float(x), float(y), rel_tol=1e-9) for x, y in zip(a, b)) and len(a) == len(b)
        except (TypeError, ValueError):
            return a == b


@dataclass
class Grid:
    """select_slider over numbers: a value between grid points snaps to the nearest one
    (nearest on a log scale when the grid is positive, e.g. λ, tolerance)."""
    options: Sequence[float]
    default: float
    fmt: Callable[[float], str] = str

    def decide(self, key: str, raw: list[str]) -> Decision:
        s, dup = _last(raw, key)
        for o in self.options:
            if s == self.fmt(o) or s == str(o):
                return Decision(o, dup)
        v, bad = url_number(key, s)
        if bad:
            return Decision(self.default, _join(dup, f"{bad}; used {self.fmt(self.default)}"), refused=True)
        opts = sorted(self.options)
        if v < opts[0] or v > opts[-1]:
            c = opts[0] if v < opts[0] else opts[-1]
            return Decision(c, _join(dup, f"`{key}={code(s)}` is outside the slider "
                                          f"({self.fmt(opts[0])}–{self.fmt(opts[-1])}); used {self.fmt(c)}"))
        best = min(opts, key=lambda o: self._dist(v, o))
        if math.isclose(best, v, rel_tol=1e-9, abs_tol=1e-15):
            return Decision(best, dup)
        return Decision(best, _join(dup, f"`{key}={code(s)}` is not on the slider "
                                         f"({', '.join(self.fmt(o) for o in opts)}); used the nearest, {self.fmt(best)}"))

    def url(self, v) -> str:
        return self.fmt(v)

    @staticmethod
    def _dist(v: float, o: float) -> float:
        if v > 0 and o > 0:
            return abs(math.log(v) - math.log(o))
        return abs(v - o) if o == 0 and v <= 0 else (math.inf if o == 0 else abs(v - o))

    def same(self, a, b) -> bool:
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-15)
        except (TypeError, ValueError):
            return a == b


@dataclass
class Choice:
    """selectbox / radio / select_slider over names. ``special(raw)`` may explain a refused
    value better (e.g. an uploaded file that is not in this session)."""
    options: Sequence[Any]
    default: Any
    fmt: Callable[[Any], str] = str
    special: Callable[[str], str | None] | None = None
    what: str = "option"

    def decide(self, key: str, raw: list[str]) -> Decision:
        s, dup = _last(raw, key)
        for o in self.options:
            if s == self.fmt(o) or s == str(o):
                return Decision(o, dup)
        for o in self.options:  # "Digits" for "digits"
            if s.strip().lower() in (self.fmt(o).lower(), str(o).lower()):
                return Decision(o, dup)
        extra = self.special(s) if self.special else None
        if extra:
            return Decision(self.default, _join(dup, extra))
        names = [self.fmt(o) for o in self.options]
        listed = ", ".join(shown(n, 30) for n in names[:8]) + (", …" if len(names) > 8 else "")
        return Decision(self.default, _join(dup, f"`{key}={code(s)}` is not a {self.what} here ({listed}); "
                                                 f"used {shown(self.fmt(self.default), 30)}"))

    def url(self, v) -> str:
        return self.fmt(v)

    def same(self, a, b) -> bool:
        return a == b


@dataclass
class Flag:
    """toggle / checkbox: true/false (also 1/0, yes/no, on/off)."""
    default: bool

    def decide(self, key: str, raw: list[str]) -> Decision:
        s, dup = _last(raw, key)
        low = s.strip().lower()
        if low in ("true", "1", "yes", "on"):
            return Decision(True, dup)
        if low in ("false", "0", "no", "off"):
            return Decision(False, dup)
        return Decision(self.default, _join(dup, f"`{key}={code(s)}` is not true or false; "
                                                 f"used {str(self.default).lower()}"))

    def url(self, v) -> str:
        return "true" if v else "false"

    def same(self, a, b) -> bool:
        return bool(a) == bool(b)


@dataclass
class Text:
    max_len: int
    default: str = ""

    def decide(self, key: str, raw: list[str]) -> Decision:
        s, dup = _last(raw, key)
        if len(s) > self.max_len:
            return Decision(s[:self.max_len], _join(dup, f"`{key}` is {len(s):,} characters long; "
                                                         f"only the first {self.max_len:,} are used"))
        return Decision(s, dup)

    def url(self, v) -> str:
        return str(v)

    def same(self, a, b) -> bool:
        return a == b


@dataclass
class Many:
    """multiselect: repeated key (``k=a&k=b``) or one comma-separated value (``k=a,b``).
    Options may be any values; the URL holds their text."""
    options: Sequence[Any]
    default: list = field(default_factory=list)

    def decide(self, key: str, raw: list[str]) -> Decision:
        by_text = {str(o): o for o in self.options}
        by_lower = {str(o).lower(): o for o in self.options}
        items = []
        for r in raw:
            items += [r] if r in by_text else [p.strip() for p in str(r).split(",") if p.strip()]
        if not items:  # ``k=`` (or only commas and spaces): names nothing, so the default stays
            listed = ", ".join(shown(g, 20) for g in self.default[:8]) if self.default else "nothing selected"
            return Decision(list(self.default), f"`{key}=` is empty (no value after the =); used the default: "
                                                f"{listed}", refused=True)
        good, bad = [], []
        for it in items:
            o = by_text.get(it, by_lower.get(it.lower(), _MISSING))
            if o is _MISSING:
                bad.append(it)
            elif o not in good:
                good.append(o)
        why = None
        if bad:
            why = (f"`{key}`: {', '.join(shown(b, 20) for b in bad[:5])}{', …' if len(bad) > 5 else ''} "
                   f"{'is' if len(bad) == 1 else 'are'} not in the list; "
                   + (f"used {', '.join(shown(g, 20) for g in good[:8])}" if good else "nothing selected"))
        return Decision(good, why)

    def url(self, v) -> list[str]:
        return [str(x) for x in v]

    def same(self, a, b) -> bool:
        return list(a or []) == list(b or [])


# ---- a link Streamlit dropped whole ------------------------------------------------------------

#: Streamlit's limits on a query string, as in Streamlit 1.67 (``url_streamlit.query_limits()`` reads
#: the installed Streamlit's): a longer one, or one with more parameters, is dropped whole before the
#: page sees any of it.
QUERY_MAX_LENGTH, QUERY_MAX_FIELDS = 512 * 1024, 1000
DROPPED = "(link)"  # the notice key of a query string Streamlit dropped whole
_QUERY_NAME = re.compile(r"(?:^|&)([^=&]*)")


def dropped_query(query: str, n_read: int, max_length: int = QUERY_MAX_LENGTH,
                  max_fields: int = QUERY_MAX_FIELDS) -> str | None:
    """Why a query string with settings gave the page none (``n_read`` parameters read), naming
    what was ignored; None when nothing was dropped. Streamlit empties a query string longer
    than ``max_length`` characters or with more than ``max_fields`` parameters (it logs a
    warning and nothing else), so the page would open with its defaults without a word."""
    if not query or n_read:
        return None
    n_fields = query.count("&") + 1
    if len(query) > max_length:
        size = (f"it is {len(query):,} characters long and at most {max_length:,} "
                f"({max_length // 1024} KB) are read")
    elif n_fields > max_fields:
        size = f"it has {n_fields:,} parameters and at most {max_fields:,} are read"
    else:
        return None
    names: list[str] = []
    for m in _QUERY_NAME.finditer(query):  # each name (the text before "="), however long the values
        name = unquote_plus(m.group(1)[:200])
        if name and name not in names:
            names.append(name)
            if len(names) > 8:
                break
    listed = ", ".join(f"`{code(n, 20)}`" for n in names[:8]) + (", …" if len(names) > 8 else "")
    return (f"this link is too long: {size}, so none of its settings was used"
            + (f" ({listed})" if listed else "") + "; the page opened with its default settings")


# ---- URL values that are not a widget's ---------------------------------------------------------

def one_of(key: str, raw: list[str], allowed: Sequence[str], what: str) -> str | None:
    """The notice for a value that must be one of ``allowed`` (case-insensitive), e.g. ``player=on|off``:
    None when the (last) value is in the list and the key is not repeated; ``what`` says what is used
    instead of any other value, an empty one included."""
    s, dup = _last(raw, key)
    if s.strip().lower() in {a.lower() for a in allowed}:
        return dup
    return _join(dup, f"`{key}={code(s)}` is not one of {', '.join(allowed)}; {what}")


def unused(key: str, raw: list[str], why: str) -> str:
    """The notice for a URL value the page does not use: its (last) value, then ``why``."""
    return f"`{key}={code(raw[-1])}` {why}"


def notice_lead(n: int) -> str:
    """The notice's first line, for ``n`` lines below it."""
    return ("This link had a setting the page could not use" if n == 1 else
            f"This link had {n} settings the page could not use as given")
