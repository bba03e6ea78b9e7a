"""URL values a page refuses are never refused silently.

Every setting lives in the URL (widgets bound with ``bind="query-params"``). Streamlit drops
a URL value it cannot use without a word (``lam=0.5`` is not on the λ slider, ``hidden=150``
is out of range, ``speed=warp``, ``dataset=../../etc/passwd``, ``hidden=10&hidden=20``) and
takes some it should not (``hidden=97.5`` on a slider in steps of 1). Here each bound widget is
drawn through a small wrapper that reads the widget's range / grid / options / default from the
row of its key in ``url_table.py`` (the page passes only what the table leaves to it, ``...``):

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

This module is the Streamlit side: the page's URL in and out, the session's bookkeeping and
the widget wrappers. The decisions are pure functions in ``url_values.py`` (re-exported here:
``urlguard.Number`` is ``url_values.Number``), the URL keys of every page with their specs are
one table in ``url_table.py``, and every use of Streamlit's private API is in ``url_streamlit.py``.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import streamlit as st

from dashboard.ui import url_streamlit, url_table, url_values
from dashboard.ui.url_values import (  # noqa: F401
    DROPPED,
    MAX_SHOWN,
    QUERY_MAX_FIELDS,
    QUERY_MAX_LENGTH,
    Choice,
    Decision,
    Flag,
    Grid,
    Many,
    Number,
    Range,
    Text,
    code,
    dropped_query,
    shown,
    url_number,
)

GUARD = "url_guard"
QP = "query-params"


# ---- session bookkeeping ----------------------------------------------------------------------

def _guard() -> dict:
    g = st.session_state.get(GUARD)
    if g is None:
        g = {"page": None, "raw": {}, "checked": set(), "expect": {}, "pending": {}, "notices": {},
             "rerun": False}
        st.session_state[GUARD] = g
    return g


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
        why = dropped_query(url_streamlit.raw_query_string(), len(raw), *url_streamlit.query_limits())
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
        url_streamlit.seed_url(key, want)  # else resolved() fixes the widget on a rerun
    g["expect"][key] = (d.value, spec)


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
    _add(key, url_values.unused(key, raw, why))
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
    _add(key, url_values.unused(key, raw, why))


def one_of(key: str, allowed: Sequence[str], what: str) -> None:
    """A URL value that is not a widget's but must be one of ``allowed`` (case-insensitive), e.g.
    ``player=on|off``: any other value, an empty one included, gets a notice naming it and ``what``
    is used instead. A value in the list is taken silently."""
    g = _guard()
    raw = g["raw"].get(key)
    if not raw or key in g["checked"]:
        return
    g["checked"].add(key)
    why = url_values.one_of(key, raw, allowed, what)
    if why:
        _add(key, why)


def notices() -> list[str]:
    return list(_guard()["notices"].values())


def _dismiss() -> None:
    _guard()["notices"] = {}


def _render(g: dict) -> None:
    items = list(g["notices"].values())
    if not items:
        g["slot"].empty()
        return
    lead = url_values.notice_lead(len(items))
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
#
# A wrapper takes its widget's range, step, options and default from the row of its key in
# ``url_table.KEYS``, so the table is the one place they are written. A value the table leaves to
# the page (``...``: the data sets loaded, the rows of the data set picked, a data set's own text
# settings) is passed by the caller as ``options=``, ``hi=`` or ``default=``; any other value
# passed that way raises ``ValueError``. Two run-time cases besides ``...``: ``options=`` may
# narrow the declared options (a page that offers only some of them on this data), and a
# ``default=`` may then replace a declared default that is no longer among them.

_UNSET = object()
#: ``default=DECLARED``: the table's default (as if no ``default=`` were given)
DECLARED = _UNSET


def _row(key: str, widget: str):
    row = url_table.BY_KEY.get(key)
    if row is None:
        raise KeyError(f"URL key {key!r} is not in dashboard/ui/url_table.py: declare it there")
    if row.widget != widget:
        raise ValueError(f"URL key {key!r} is declared for urlguard.{row.widget}, drawn with urlguard.{widget}")
    return row.spec


def spec_of(key: str, widget: str | None = None, **given):
    """The spec of ``key`` from the table, with the values the table leaves to the page filled in
    from ``given`` (``options=``, ``hi=``, ``default=``; ``fmt=`` / ``special=`` for the notices)."""
    spec = _row(key, widget) if widget else url_table.BY_KEY[key].spec
    changes = {}
    for name in ("fmt", "special"):
        if given.get(name, _UNSET) is not _UNSET:
            changes[name] = given[name]
    options = getattr(spec, "options", None)
    if given.get("options", _UNSET) is not _UNSET:
        v = list(given["options"])
        if options is not ... and not all(o in options for o in v):
            raise ValueError(f"URL key {key!r}: options={v!r} given, the table declares {options!r}")
        changes["options"] = options = v
    for name in ("hi", "default"):
        v = given.get(name, _UNSET)
        if v is _UNSET:
            continue
        declared = getattr(spec, name)
        free = declared is ... or (name == "default" and isinstance(spec, Choice)
                                   and (spec.options is ... or declared not in options))
        if not free and not _same(v, declared):
            raise ValueError(f"URL key {key!r}: {name}={v!r} given, the table declares {declared!r}; "
                             f"change it in dashboard/ui/url_table.py")
        changes[name] = v
    if changes:
        spec = dataclasses.replace(spec, **changes)
    if (isinstance(spec, Choice) and spec.options is not ... and spec.options and spec.default is not ...
            and spec.default not in spec.options):
        spec = dataclasses.replace(spec, default=spec.options[0])  # the declared default is not offered here
    left = [f.name for f in dataclasses.fields(spec) if getattr(spec, f.name) is ...]
    if left:
        raise ValueError(f"URL key {key!r}: the table leaves {', '.join(left)} to the page: pass "
                         + ", ".join(f"{n}=" for n in left))
    return spec


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    return a == b


def _run(key, spec, draw):
    check(key, spec)
    v = draw()
    resolved(key, v)
    return v


def slider(box, label, *, key: str, default=_UNSET, **kw):
    spec = spec_of(key, "slider", default=default)
    value = tuple(spec.default) if isinstance(spec, Range) else spec.default
    return _run(key, spec, lambda: box.slider(label, spec.lo, spec.hi, value, step=spec.step, key=key, bind=QP,
                                              **kw))


def number_input(box, label, *, key: str, hi=_UNSET, default=_UNSET, step=None, **kw):
    """``step`` is the +/- buttons' increment only: a URL value between steps is taken as given."""
    spec = spec_of(key, "number_input", hi=hi, default=default)
    return _run(key, spec, lambda: box.number_input(label, spec.lo, spec.hi, spec.default, step=step, key=key,
                                                    bind=QP, **kw))


def select_slider(box, label, *, key: str, format_func=str, **kw):
    spec = spec_of(key, "select_slider", fmt=format_func)
    return _run(key, spec, lambda: box.select_slider(label, list(spec.options), value=spec.default,
                                                     format_func=format_func, key=key, bind=QP, **kw))


def selectbox(box, label, *, key: str, options=_UNSET, default=_UNSET, format_func=str, special=None, **kw):
    spec = spec_of(key, "selectbox", options=options, default=default, fmt=format_func, special=special)
    opts = list(spec.options)
    return _run(key, spec, lambda: box.selectbox(label, opts, index=opts.index(spec.default) if opts else 0,
                                                 format_func=format_func, key=key, bind=QP, **kw))


def radio(box, label, *, key: str, options=_UNSET, default=_UNSET, format_func=str, **kw):
    spec = spec_of(key, "radio", options=options, default=default, fmt=format_func)
    opts = list(spec.options)
    return _run(key, spec, lambda: box.radio(label, opts, index=opts.index(spec.default) if opts else 0,
                                             format_func=format_func, key=key, bind=QP, **kw))


def toggle(box, label, *, key: str, default=_UNSET, **kw):
    spec = spec_of(key, "toggle", default=default)
    return _run(key, spec, lambda: box.toggle(label, value=spec.default, key=key, bind=QP, **kw))


def checkbox(box, label, *, key: str, default=_UNSET, **kw):
    spec = spec_of(key, "checkbox", default=default)
    return _run(key, spec, lambda: box.checkbox(label, spec.default, key=key, bind=QP, **kw))


def text_input(box, label, *, key: str, **kw):
    spec = spec_of(key, "text_input")
    return _run(key, spec, lambda: box.text_input(label, spec.default, key=key, bind=QP, max_chars=spec.max_len,
                                                  **kw))


def multiselect(box, label, *, key: str, options=_UNSET, **kw):
    spec = spec_of(key, "multiselect", options=options)
    return _run(key, spec, lambda: box.multiselect(label, list(spec.options), default=list(spec.default) or None,
                                                   key=key, bind=QP, **kw))


def segmented_control(box, label, *, key: str, default=_UNSET, format_func=str, **kw):
    spec = spec_of(key, "segmented_control", default=default, fmt=format_func)
    return _run(key, spec, lambda: box.segmented_control(label, list(spec.options), default=spec.default,
                                                         format_func=format_func, key=key, bind=QP, **kw))
