"""The URL keys' table (dashboard/ui/url_table.py) against the pages. The URL guard's widget
wrappers take a widget's range, options and default from the table (a page passes only the values
the table leaves to it, ``...``); every page is opened under AppTest with the wrappers watched, and
every key a page draws must be in the table, under that page, with the same widget, range, options
and default, and every row of the table must be drawn."""
from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")
WRAPPERS = ("slider", "number_input", "select_slider", "selectbox", "radio", "toggle", "text_input",
            "multiselect", "segmented_control", "checkbox")
#: (page, query): every page as it opens, and the settings that bring out its other widgets
RUNS = [(None, {})] + [(p, q) for p, q in (
    ("views/lesson.py", {"classroom": "true"}), ("views/lesson.py", {"player": "off"}),
    ("views/lesson.py", {"dataset": "digits", "player": "off"}), ("views/coin.py", {"coin_source": "typed"}),
    ("views/coin.py", {"coin_prior": "beta"}), ("views/gaussian.py", {"gs_source": "random"}))]


def test_the_table_and_the_parser_import_no_streamlit():
    code = ("import sys; import dashboard.ui.url_table, dashboard.ui.url_values; "
            "print('streamlit' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_each_key_is_declared_once():
    from dashboard.ui import url_table

    names = [k.key for k in url_table.KEYS]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def _fields(spec) -> dict:
    """A spec's values that a table can declare (its formatting functions left out)."""
    return {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec) if f.name not in ("fmt", "special")}


def _agrees(declared, drawn) -> list[str]:
    if type(declared) is not type(drawn):
        return [f"{type(drawn).__name__} drawn, {type(declared).__name__} declared"]
    a, b = _fields(declared), _fields(drawn)
    return [f"{name}: {b[name]!r} drawn, {a[name]!r} declared" for name in a
            if a[name] is not ... and not _same(a[name], b[name])]


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    return a == b


@pytest.fixture(scope="module")
def drawn():
    """{(page, key): {(wrapper, spec), ...}} over RUNS: what every page drew through the URL guard."""
    from dashboard import pages
    from dashboard.ui import urlguard

    by_heading = {p.heading: p for p in pages.PAGES} | {"lesson": pages.LESSON}
    seen: dict = {}
    current = []
    saved = {name: getattr(urlguard, name) for name in (*WRAPPERS, "check", "value_of")}

    def wrap(name):
        def wrapper(*a, **k):
            current.append(name)
            try:
                return saved[name](*a, **k)
            finally:
                current.pop()
        return wrapper

    def check(key, spec):
        page = by_heading[urlguard._guard()["page"]]
        seen.setdefault((page, key), []).append((current[-1] if current else "check", spec))
        return saved["check"](key, spec)

    def value_of(key, spec, fallback):
        page = by_heading[urlguard._guard()["page"]]
        seen.setdefault((page, key), []).append(("value_of", spec))
        return saved["value_of"](key, spec, fallback)

    for name in WRAPPERS:
        setattr(urlguard, name, wrap(name))
    urlguard.check, urlguard.value_of = check, value_of
    try:
        for page, query in RUNS:
            for path in ([page] if page else [p.path for p in pages.PAGES]):
                at = AppTest.from_file(APP, default_timeout=240)
                at.run()
                for k, v in query.items():
                    at.query_params[k] = v
                at.switch_page(path)
                at.run()
                assert not at.exception, (path, query, [e.value for e in at.exception])
    finally:
        for name, fn in saved.items():
            setattr(urlguard, name, fn)
    return seen


def test_every_key_a_page_draws_is_in_the_table_as_drawn(drawn):
    from dashboard.ui import url_table

    problems = []
    for (page, key), calls in drawn.items():
        row = url_table.BY_KEY.get(key)
        if row is None:
            problems.append(f"{key} ({page.title}): not in url_table.KEYS")
            continue
        if row.page is not url_table.EVERY_PAGE and row.page != page:
            problems.append(f"{key}: drawn on {page.title}, declared for {row.page.title}")
        for widget, spec in calls:
            if widget not in (row.widget, "value_of"):  # value_of: the setting read without its widget
                problems.append(f"{key}: drawn with {widget}, declared {row.widget}")
            problems += [f"{key}: {p}" for p in _agrees(row.spec, spec)]
    assert not problems, "\n".join(sorted(set(problems)))


def test_every_widget_key_in_the_table_is_drawn_by_its_page(drawn):
    from dashboard.ui import url_table

    keys = {key for _, key in drawn}
    missing = [k.key for k in url_table.KEYS if k.widget != "param" and k.key not in keys]
    assert not missing, missing


def test_a_wrapper_takes_its_values_from_the_table_and_refuses_others():
    from dashboard.ui import url_table, urlguard

    assert urlguard.spec_of("sm_seed", "number_input") == url_table.BY_KEY["sm_seed"].spec
    with pytest.raises(ValueError, match="sm_seed"):
        urlguard.spec_of("sm_seed", "number_input", default=3)        # the table says 0
    with pytest.raises(ValueError, match="cl_init"):
        urlguard.spec_of("cl_init", "radio", options=["random", "warp"])  # not among the table's options
    with pytest.raises(ValueError, match="sm_seed"):
        urlguard.spec_of("sm_seed", "slider")                          # declared for number_input
    with pytest.raises(KeyError, match="nowhere_n"):
        urlguard.spec_of("nowhere_n", "slider")
    with pytest.raises(ValueError, match="options="):
        urlguard.spec_of("sm_dataset", "selectbox")                    # the data sets are the page's to give
    spec = urlguard.spec_of("sm_dataset", "selectbox", options=["abcd", "synthetic_spam"])
    assert spec.options == ["abcd", "synthetic_spam"] and spec.default == "synthetic_spam"
    assert urlguard.spec_of("evm_doc", "number_input", hi=9, default=4).hi == 9
