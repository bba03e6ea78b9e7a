"""URL values a page refuses are never refused silently.

Every setting lives in the URL (widgets bound with ``bind="query-params"``). Streamlit drops
a URL value it cannot use without a word (``lam=0.5`` is not on the λ slider, ``hidden=150``
is out of range, ``speed=warp``, ``dataset=../../etc/passwd``, ``hidden=10&hidden=20``) and
takes some it should not (``hidden=97.5`` on a slider in steps of 1). Here each bound widget is
drawn through a small wrapper that knows the widget's range / grid / options:

* before the widget is drawn the page's *initial* URL value for its key is checked: a value
  between grid points snaps to the nearest one, an out-of-range number is clamped, a
  duplicated key uses its last value, anything else falls back to the default;
* after the widget is drawn, if Streamlit resolved a different value, the decided value is
  put into the widget on one immediate rerun (``resolved()``; the URL follows);
* every value that was not taken as given gets one short line in a notice at the top of the
  page, naming the value (escaped, shortened) and what was used instead.

Only the URL the page was opened with is checked (once per widget per page visit), so a
value the user picks afterwards is never second-guessed. Per session: everything is kept in
``st.session_state`` (key ``GUARD``).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence
from urllib.parse import unquote_plus

import streamlit as st

from dashboard.ui import derive

GUARD = "url_guard"
QP = "query-params"
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
class Number:
    """slider / number_input: a number in [lo, hi], optionally whole, optionally on a step grid."""
    lo: float
    hi: float
    default: Any
    step: float | None = None
    integer: bool = False

    def decide(self, key: str, raw: list[str]) -> Decision:
        s, dup = _last(raw, key)
        v, bad = url_number(key, s)
        if bad:
            return Decision(self.default, _join(dup, f"{bad}; used {_num(self.default)}"), refused=True)
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

    def url(self, v) -> str:
        return _num_url(v)

    def _cast(self, v: float):
        if self.integer:
            return int(round(v))
        return round(float(v), 10)

    def same(self, a, b) -> bool:
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
        except (TypeError, ValueError):
            return a == b


@dataclass
class Range:
    """A range slider (two numbers): repeated key ``k=lo&k=hi`` (or ``k=lo,hi``)."""
    lo: float
    hi: float
    default: tuple
    step: float | None = None
    integer: bool = False

    def decide(self, key: str, raw: list[str]) -> Decision:
        parts = [p for r in raw for p in str(r).split(",") if p.strip()]
        one = Number(self.lo, self.hi, self.default[0], self.step, self.integer)
        if len(parts) != 2:
            return Decision(self.default, f"`{key}` needs two numbers (from, to); got {len(parts)}: "
                                          f"used {_num(self.default[0])} to {_num(self.default[1])}")
        a, b = (one.decide(key, [p]) for p in parts)
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


# ---- session bookkeeping ----------------------------------------------------------------------

def _guard() -> dict:
    g = st.session_state.get(GUARD)
    if g is None:
        g = {"page": None, "raw": {}, "checked": set(), "expect": {}, "pending": {}, "notices": {},
             "rerun": False}
        st.session_state[GUARD] = g
    return g


#: Streamlit's own limits on a query string (streamlit.runtime.state.query_params): a longer
#: one, or one with more parameters, is dropped whole before the page sees any of it.
try:
    from streamlit.runtime.state.query_params import (CLIENT_STATE_QUERY_STRING_MAX_FIELDS as QUERY_MAX_FIELDS,
                                                      CLIENT_STATE_QUERY_STRING_MAX_LENGTH as QUERY_MAX_LENGTH)
except ImportError:  # the values of Streamlit 1.67
    QUERY_MAX_LENGTH, QUERY_MAX_FIELDS = 512 * 1024, 1000
DROPPED = "(link)"  # the notice key of a query string Streamlit dropped whole
_QUERY_NAME = re.compile(r"(?:^|&)([^=&]*)")


def _raw_query_string() -> str:
    """The query string of this run as the browser sent it, where Streamlit keeps it (its script
    run context); "" when it does not."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        return str(getattr(get_script_run_ctx(), "query_string", "") or "")
    except Exception:  # noqa: BLE001 - a Streamlit internals change: nothing to compare with
        return ""


def dropped_query(query: str, n_read: int) -> str | None:
    """Why a query string with settings gave the page none (``n_read`` parameters read), naming
    what was ignored; None when nothing was dropped. Streamlit empties a query string longer
    than QUERY_MAX_LENGTH characters or with more than QUERY_MAX_FIELDS parameters (it logs a
    warning and nothing else), so the page would open with its defaults without a word."""
    if not query or n_read:
        return None
    n_fields = query.count("&") + 1
    if len(query) > QUERY_MAX_LENGTH:
        size = (f"it is {len(query):,} characters long and at most {QUERY_MAX_LENGTH:,} "
                f"({QUERY_MAX_LENGTH // 1024} KB) are read")
    elif n_fields > QUERY_MAX_FIELDS:
        size = f"it has {n_fields:,} parameters and at most {QUERY_MAX_FIELDS:,} are read"
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


def begin(page: str) -> None:
    """Call at the top of every page, before any widget. A new page visit takes a snapshot
    of the URL it was opened with; notices of the previous page are dropped."""
    g = _guard()
    if g["page"] != page:
        raw = {}
        for k in st.query_params:
            try:
                raw[k] = [str(v) for v in st.query_params.get_all(k)]
            except Exception:  # noqa: BLE001 - never let a hostile URL stop the page
                continue
        g.update(page=page, raw=raw, checked=set(), expect={}, pending={}, notices={})
        why = dropped_query(_raw_query_string(), len(raw))
        if why:
            g["notices"][DROPPED] = why
    g["rerun"] = False
    g["slot"] = None


def _add(key: str, text: str) -> None:
    g = _guard()
    g["notices"][key] = text
    if g.get("slot") is not None:
        _render(g)


def check(key: str, spec) -> None:
    """Before drawing the widget bound to `key`: apply a pending fix, or decide on the
    page's initial URL value (once per page visit)."""
    g = _guard()
    if key in g["pending"]:
        st.session_state[key] = g["pending"].pop(key)
        return
    if key in g["checked"]:
        return
    g["checked"].add(key)
    raw = g["raw"].get(key)
    if not raw:
        return
    d = spec.decide(key, raw)
    if d.why:
        _add(key, d.why)
    want = spec.url(d.value)
    if raw != (want if isinstance(want, list) else [want]):
        _seed_url(key, want)
    g["expect"][key] = (d.value, spec)


def _seed_url(key: str, value: str | list[str]) -> bool:
    """Make the widget seed from the decided value instead of the raw one, and show that
    value in the address bar. Uses Streamlit's query-param store (1.67): there is no public
    way to change the value a bound widget seeds from, and some raw values crash Streamlit's
    own seeding (an int number_input given ``inf`` raises an uncaught OverflowError). If the
    store is not what we expect, resolved() still fixes the widget on a rerun."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx()
        with ctx.session_state.query_params() as qp:
            values = value if isinstance(value, list) else [value]
            qp._initial_query_params[key] = values
            qp._query_params[key] = values if len(values) != 1 else values[0]
            qp._send_query_param_msg()
        return True
    except Exception:  # noqa: BLE001 - a Streamlit internals change: fall back to the rerun
        return False


def resolved(key: str, value) -> None:
    """After drawing the widget: if it did not take the decided value, fix it on a rerun."""
    g = _guard()
    exp = g["expect"].pop(key, None)
    if exp is None:
        return
    want, spec = exp
    if not spec.same(value, want):
        # the widget can only take another value on a later run: rerun now (the widgets above
        # are already checked; the ones below still see the page's initial URL)
        g["pending"][key] = want
        st.rerun()


def value_of(key: str, spec, fallback):
    """The value of a setting whose widget is NOT drawn on this run (e.g. the advanced
    settings in classroom mode): session state, else the checked URL value, else `fallback`."""
    if key in st.session_state:
        return st.session_state[key]
    g = _guard()
    raw = g["raw"].get(key)
    if not raw:
        return fallback
    if key not in g["checked"]:
        g["checked"].add(key)
        d = spec.decide(key, raw)
        if d.why:
            _add(key, d.why)
        g.setdefault("values", {})[key] = d.value
    return g.get("values", {}).get(key, fallback)


def not_used(key: str, why: str) -> None:
    """A URL key that does not apply on this page as set up (e.g. ``model=multinomial`` for a
    data set that allows only one model): say so and take it out of the URL."""
    g = _guard()
    raw = g["raw"].get(key)
    if not raw or key in g["checked"]:
        return
    g["checked"].add(key)
    _add(key, f"`{key}={code(raw[-1])}` {why}")
    try:
        if key in st.query_params:
            del st.query_params[key]
    except Exception:  # noqa: BLE001 - still bound to a widget of this page: Streamlit clears it
        pass


def note(key: str, why: str) -> None:
    """A URL value that is not a widget's (e.g. ``lesson=``) and was not used: say so once."""
    g = _guard()
    raw = g["raw"].get(key)
    if not raw or key in g["checked"]:
        return
    g["checked"].add(key)
    _add(key, f"`{key}={code(raw[-1])}` {why}")


def one_of(key: str, allowed: Sequence[str], what: str) -> None:
    """A URL value that is not a widget's but must be one of ``allowed`` (case-insensitive), e.g.
    ``player=on|off``: any other value, an empty one included, gets a notice naming it and ``what``
    is used instead. A value in the list is taken silently."""
    g = _guard()
    raw = g["raw"].get(key)
    if not raw or key in g["checked"]:
        return
    g["checked"].add(key)
    s, dup = _last(raw, key)
    if s.strip().lower() in {a.lower() for a in allowed}:
        if dup:
            _add(key, dup)
        return
    listed = ", ".join(allowed)
    _add(key, _join(dup, f"`{key}={code(s)}` is not one of {listed}; {what}"))


def notices() -> list[str]:
    return list(_guard()["notices"].values())


def _dismiss() -> None:
    _guard()["notices"] = {}


def _render(g: dict) -> None:
    items = list(g["notices"].values())
    if not items:
        g["slot"].empty()
        return
    lead = "This link had a setting the page could not use" if len(items) == 1 else \
        f"This link had {len(items)} settings the page could not use as given"
    g["slot"].warning(f"**{lead}:**\n\n" + "\n".join(f"- {t}" for t in items), icon=":material/link_off:")


def show(container=None) -> None:
    """Where the page's notice goes (under the title). Notices found later in the same run
    (widgets drawn below) are written into the same place as they are found."""
    g = _guard()
    box = (container or st).container()
    g["slot"] = box.empty()
    if g["notices"]:
        _render(g)
        box.button("OK, hide this note", key="url_notice_ok", on_click=_dismiss, type="tertiary")


# ---- widgets drawn through the guard ----------------------------------------------------------

def _run(key, spec, draw):
    check(key, spec)
    v = draw()
    resolved(key, v)
    return v


def slider(box, label, lo, hi, value, *, key: str, step=None, **kw):
    if isinstance(value, (tuple, list)):
        spec = Range(lo, hi, tuple(value), step, isinstance(lo, int) and isinstance(hi, int))
    else:
        integer = isinstance(lo, int) and isinstance(hi, int) and isinstance(value, int)
        spec = Number(lo, hi, value, step if step is not None else (1 if integer else None), integer)
    return _run(key, spec, lambda: box.slider(label, lo, hi, value, step=step, key=key, bind=QP, **kw))


def number_input(box, label, lo, hi, value, *, key: str, step=None, **kw):
    integer = isinstance(value, int) and not isinstance(value, bool)
    spec = Number(lo, hi, value, None, integer)
    return _run(key, spec, lambda: box.number_input(label, lo, hi, value, step=step, key=key, bind=QP, **kw))


def select_slider(box, label, options, *, value, key: str, format_func=str, **kw):
    numeric = all(isinstance(o, (int, float)) and not isinstance(o, bool) for o in options)
    spec = Grid(list(options), value, format_func) if numeric else Choice(list(options), value, format_func,
                                                                          what="setting")
    return _run(key, spec, lambda: box.select_slider(label, options, value=value, format_func=format_func,
                                                     key=key, bind=QP, **kw))


def selectbox(box, label, options, *, index=0, key: str, format_func=str, special=None, what="choice", **kw):
    options = list(options)
    spec = Choice(options, options[index] if options else None, format_func, special, what)
    return _run(key, spec, lambda: box.selectbox(label, options, index=index, format_func=format_func,
                                                 key=key, bind=QP, **kw))


def radio(box, label, options, *, index=0, key: str, format_func=str, what="choice", **kw):
    options = list(options)
    spec = Choice(options, options[index] if options else None, format_func, what=what)
    return _run(key, spec, lambda: box.radio(label, options, index=index, format_func=format_func,
                                             key=key, bind=QP, **kw))


def toggle(box, label, value=False, *, key: str, **kw):
    return _run(key, Flag(bool(value)), lambda: box.toggle(label, value=value, key=key, bind=QP, **kw))


def text_input(box, label, value="", *, key: str, max_chars: int = 2000, **kw):
    return _run(key, Text(max_chars, value), lambda: box.text_input(label, value, key=key, bind=QP,
                                                                    max_chars=max_chars, **kw))


def multiselect(box, label, options, *, key: str, default=None, **kw):
    options = list(options)
    return _run(key, Many(options, list(default or [])),
                lambda: box.multiselect(label, options, default=default, key=key, bind=QP, **kw))


def segmented_control(box, label, options, *, default=None, key: str, format_func=str, **kw):
    options = list(options)
    spec = Choice(options, default, format_func, what="option")
    return _run(key, spec, lambda: box.segmented_control(label, options, default=default, format_func=format_func,
                                                         key=key, bind=QP, **kw))


def checkbox(box, label, value=False, *, key: str, **kw):
    return _run(key, Flag(bool(value)), lambda: box.checkbox(label, value, key=key, bind=QP, **kw))
