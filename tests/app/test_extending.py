"""docs/extending.md's "how to add" recipes, each followed to the letter.

A new event model is registered from the test (the recipe says "from your own code"). The page,
the lesson panel and the data set are added to a copy of the repository, touching only the
files the recipe names, and the copy's app runs in a fresh Python process under AppTest, so
nothing of the real checkout is imported by mistake (the script asserts where its modules
came from).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from kit import ROOT
from kit.recipe import PAGE_DEFAULT, PAGE_HI, PAGE_KEY, add_data_set, add_page, add_panel, alpha_text
from kit.recipe import copy_repo as _copy

APP = str(ROOT / "dashboard" / "app.py")


# ---- an event model -------------------------------------------------------------------------------

def test_a_registered_event_model_is_offered_and_run_by_the_lesson_view():
    import nbcore
    from nbcore.models import register_model, unregister_model
    from nbcore.models.multinomial import MultinomialModel

    class CountsTwin(MultinomialModel):
        """A new model in one class: the multinomial's maths under another name."""
        name = "counts_twin"
        title = "counts twin"
        data_kinds = ("counts", "binary")

    register_model(CountsTwin)
    st.cache_data.clear()  # the shipped sets (and their model lists) are cached per process
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(APP, default_timeout=180)
        at.query_params["dataset"] = "sms_spam"
        at.query_params["player"] = "off"
        at.run()
        assert not at.exception
        radio = at.radio(key="model")
        assert "counts_twin" in radio.options, radio.options
        radio.set_value("counts_twin").run()
        at.button(key="step").click().run()
        assert not at.exception, [e.value for e in at.exception]
        run = at.session_state["lesson"].run
        assert run.model.name == "counts_twin" and run.iteration == 1
        # the same numbers as the model it copies: the app adds nothing of its own
        ds = nbcore.load_dataset("sms_spam")
        twin = np.asarray(run.history[1].params["beta"])
        prep = at.session_state["lesson"].prep
        ref = nbcore.EM(model="multinomial", n_classes=2, smoothing=at.session_state["lesson"].smoothing,
                        init="labeled", random_state=0,
                        keep_resp=2).start(prep.X, prep.y_obs)
        ref.step()
        np.testing.assert_allclose(twin, np.asarray(ref.history[1].params["beta"]), rtol=1e-12)
        assert ds.X.shape[0] == prep.X.shape[0]
    finally:
        unregister_model("counts_twin")
        st.cache_data.clear()
        st.cache_resource.clear()


# ---- a page, a lesson panel, a data set: in a copy of the repository --------------------------------

def _run_copy(root: Path, body: str, env: dict | None = None) -> dict:
    """Run ``body`` (a script using ``at``, an AppTest of the copy's app) in a fresh process
    whose imports resolve to the copy; returns what the script prints as JSON."""
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(root)!r})
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file({str(root / "dashboard" / "app.py")!r}, default_timeout=240)
        import dashboard
        assert dashboard.__file__.startswith({str(root)!r}), dashboard.__file__
    """) + textwrap.dedent(body)
    p = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=600,
                       env={**os.environ, **(env or {})})
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_a_new_page_is_one_file_in_views_and_one_entry_in_pages(tmp_path):
    root = _copy(tmp_path, "dashboard")
    add_page(root)
    got = _run_copy(root, f"""
        from dashboard.ui import url_table, urlguard
        drawn = []
        check = urlguard.check
        urlguard.check = lambda key, spec: (drawn.append(key), check(key, spec))[1]
        out = {{}}
        for query in ({{}}, {{"{PAGE_KEY}": "7"}}, {{"{PAGE_KEY}": "70"}}):
            at = AppTest.from_file({str(root / "dashboard" / "app.py")!r}, default_timeout=240)
            at.run()
            for k, v in query.items():
                at.query_params[k] = v
            at.switch_page("views/hello.py")
            at.run()
            out[json.dumps(query)] = {{"exc": [e.value for e in at.exception], "md": [m.value for m in at.markdown],
                                      "title": [t.value for t in at.title], "warn": [w.value for w in at.warning],
                                      "n": at.session_state["{PAGE_KEY}"]}}
        page_keys = [k for k in drawn if k.startswith("hello_")]
        out["table"] = {{k: [url_table.BY_KEY[k].page.path if k in url_table.BY_KEY else None] for k in page_keys}}
        print(json.dumps(out))
    """)
    plain, seven, seventy = (got[json.dumps(q)] for q in ({}, {PAGE_KEY: "7"}, {PAGE_KEY: "70"}))
    for run in (plain, seven, seventy):
        assert not run["exc"], run["exc"]
    assert any("Hello from a new page, on toy_spam, chart font 15." in m for m in plain["md"]), plain["md"]
    assert any("Hello" in t for t in plain["title"]), plain["title"]
    # the widget lives in the URL: a link sets it, a value it cannot take is named in a notice
    assert plain["n"] == PAGE_DEFAULT and f"Hello × {PAGE_DEFAULT}" in plain["md"]
    assert seven["n"] == 7 and "Hello × 7" in seven["md"] and not seven["warn"]
    assert seventy["n"] == PAGE_HI and f"Hello × {PAGE_HI}" in seventy["md"]
    assert any(f"{PAGE_KEY}=70" in w and f"used {PAGE_HI}" in w for w in seventy["warn"]), seventy["warn"]
    # every key the page binds to the URL is a row of the URL keys' table, under the new page
    assert got["table"] == {"hello_dataset": ["views/hello.py"], PAGE_KEY: ["views/hello.py"]}, got["table"]


def test_a_new_lesson_panel_is_one_module_and_one_call(tmp_path):
    """The panel holds a widget (drawn once: a second call would raise DuplicateWidgetID) and follows
    every Step. Under AppTest there is no browser, so the lesson draws its server charts (player off)
    whatever the URL says; tests/browser/test_extending_in_chromium.py runs it with the player."""
    root = _copy(tmp_path, "dashboard")
    add_panel(root)
    got = _run_copy(root, """
        at.query_params["dataset"] = "synthetic_spam"
        at.run()
        shown = [m.value for m in at.markdown if m.value.startswith("Hello panel")]
        at.button(key="step").click().run()
        shown += [m.value for m in at.markdown if m.value.startswith("Hello panel")]
        at.toggle(key="hello_pct").set_value(True).run()
        shown += [m.value for m in at.markdown if m.value.startswith("Hello panel")]
        run = at.session_state["lesson"].run
        print(json.dumps({"exc": [e.value for e in at.exception], "shown": shown,
                          "alpha": [float(run.history[t].alpha[0]) for t in (0, 1)], "t": run.iteration}))
    """)
    assert not got["exc"], got["exc"]
    assert got["t"] == 1
    a0, a1 = got["alpha"]
    assert got["shown"] == [f"Hello panel: t = 0, α = {alpha_text(a0)}", f"Hello panel: t = 1, α = {alpha_text(a1)}",
                            f"Hello panel: t = 1, α = {alpha_text(a1, pct=True)}"], got["shown"]


def test_a_new_data_set_is_a_file_a_card_and_one_registry_entry(tmp_path):
    root = _copy(tmp_path, "dashboard", "nbcore", "datasets/toy_spam.csv", "datasets/toy_spam_queries.csv",
                 "datasets/toy_spam.md")
    add_data_set(root)
    got = _run_copy(root, """
        import nbcore
        assert nbcore.__file__.startswith(sys.path[0]), nbcore.__file__
        ds = nbcore.load_dataset("outing")
        at.query_params["dataset"] = "outing"
        at.query_params["player"] = "off"
        at.run()
        at.button(key="step").click().run()
        lesson = at.session_state["lesson"]
        print(json.dumps({"exc": [e.value for e in at.exception], "listed": list(nbcore.list_datasets()),
                          "shape": list(ds.X.shape), "classes": list(ds.class_names), "models": list(ds.models),
                          "lesson": [lesson.cfg.dataset, lesson.run.iteration, list(lesson.prep.X.shape)]}))
    """, env={"NBCORE_DATASETS": str(root / "datasets")})
    assert not got["exc"], got["exc"]
    assert "outing" in got["listed"] and got["shape"] == [80, 5]
    assert sorted(got["classes"]) == ["go", "stay"] and "bernoulli" in got["models"]
    assert got["lesson"] == ["outing", 1, [80, 5]]


@pytest.mark.parametrize("recipe", ["event model", "page", "lesson panel", "data set"])
def test_the_docs_name_the_files_these_tests_touch(recipe):
    doc = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    # both engines: nbcore's model and its JavaScript twin; the lab's JS panel and the Streamlit one
    files = {"event model": ["register_model", "nblab/js/models.js", "nblab/js/model_", "test_model_registry.py"],
             "page": ["dashboard/views/", "dashboard/pages.py", "dashboard/ui/url_table.py", "urlguard."],
             "lesson panel": ["nblab/js/panels/", "mount(el, ctx)", "dashboard/lesson/panels/",
                              "dashboard/views/lesson.py", "lower_panels()"],
             "data set": ["datasets/", "nbcore/data.py", "_REGISTRY", "read_shipped_csv"]}[recipe]
    article = "an" if recipe[0] in "aeiou" else "a"
    section = doc.split(f"## How to add {article} {recipe}")[1].split("\n## ")[0]
    for name in files:
        assert name in section, (recipe, name)
