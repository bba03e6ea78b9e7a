"""The posterior inspector on ten languages: the per-word comparison follows the message, character
n-grams show their word boundaries, and the words box shows the typed message. References come from
scikit-learn (MultinomialNB, CountVectorizer), never from the page's own code."""
from __future__ import annotations

import json

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB
from streamlit.testing.v1 import AppTest

import nbcore
from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")
GERMAN = "Alle Menschen sind frei und gleich an Würde und Rechten geboren."
FRENCH = "Tous les êtres humains naissent libres et égaux en dignité et en droits."


def open_inspector(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page("views/inspector.py")
    return ok(at.run())


def ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def figure(at: AppTest, key_part: str) -> dict:
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        if key_part in json.dumps(spec.get("layout", {}).get("title", "")):
            return spec
    raise AssertionError(f"no chart titled with {key_part!r}")


def compared(at: AppTest, names) -> tuple[str, str]:
    return names[at.selectbox(key="insp_a").value], names[at.selectbox(key="insp_b").value]


def reference():
    """MultinomialNB with α = λ = 1 on every labelled passage (the inspector's default parameters)."""
    ds = nbcore.load_dataset("udhr_langid")
    X, y = ds.for_model("multinomial"), np.asarray(ds.y)
    nb = MultinomialNB(alpha=1.0).fit(X[y >= 0], y[y >= 0])
    return ds, X, nb


def top_two(nb, x) -> list[int]:
    p = nb.predict_proba(x)[0]
    return list(np.argsort(-p, kind="stable")[:2])


def typed_terms(ds, text: str) -> list[str]:
    """The vocabulary terms of a typed text: sklearn's char_wb 1–3-gram analyser, lower-cased."""
    grams = set(CountVectorizer(analyzer="char_wb", ngram_range=(1, 3)).build_analyzer()(text))
    return sorted(g for g in grams if g in set(ds.feature_names))


def test_the_comparison_follows_the_typed_text_and_the_loaded_document():
    ds, X, nb = reference()
    names = [str(c) for c in ds.class_names]
    at = open_inspector(insp_dataset="udhr_langid")
    doc0 = top_two(nb, X[0])
    assert compared(at, names) == (names[doc0[0]], names[doc0[1]])

    at.text_area(key="insp_text").input(GERMAN).run()
    ok(at)
    want = top_two(nb, ds.transform(GERMAN))
    assert names[want[0]] == "German"
    assert compared(at, names) == (names[want[0]], names[want[1]])
    title = figure(at, "Which words push")["layout"]["title"]["text"]
    assert f"towards {names[want[0]]} (right) or {names[want[1]]} (left)" in title

    # the reader's pick stays for this message …
    other = next(k for k in range(len(names)) if k not in want)
    ok(at.selectbox(key="insp_b").set_value(other).run())
    ok(at.run())
    assert compared(at, names) == (names[want[0]], names[other])
    # … and a new message brings its own top two
    at.text_area(key="insp_text").input(FRENCH).run()
    ok(at)
    want = top_two(nb, ds.transform(FRENCH))
    assert names[want[0]] == "French"
    assert compared(at, names) == (names[want[0]], names[want[1]])

    # a document from the data set, loaded with the button: its own top two
    k = int(np.flatnonzero(np.asarray(ds.y) == names.index("German"))[0])
    at.number_input(key="insp_row").set_value(k).run()
    ok(at.button(key="insp_load").click().run())
    assert at.text_area(key="insp_text").value == ""
    want = top_two(nb, X[k])
    assert names[want[0]] == "German"
    assert compared(at, names) == (names[want[0]], names[want[1]])


def test_the_words_box_shows_the_typed_message_terms():
    ds, X, _ = reference()
    at = open_inspector(insp_dataset="udhr_langid")
    doc0 = [ds.feature_names[j] for j in np.flatnonzero(X[0].toarray().ravel() > 0)]
    assert sorted(at.multiselect(key="insp_words").value) == sorted(doc0)
    at.text_area(key="insp_text").input(GERMAN).run()
    ok(at)
    boxes = [m for m in at.multiselect if m.label.startswith("Words present")]
    assert len(boxes) == 1, [m.label for m in boxes]
    assert sorted(boxes[0].value) == typed_terms(ds, GERMAN)
    assert sorted(boxes[0].value) != sorted(doc0)


def _is_readable(label: str) -> bool:
    return label == label.strip()


def test_ngram_boundaries_are_visible_everywhere_terms_are_shown():
    ds, _, _ = reference()
    feats = [str(f) for f in ds.feature_names]
    assert " en" in feats and "en " in feats and "en" in feats  # three different terms
    at = open_inspector(insp_dataset="udhr_langid")
    at.session_state["insp_terms_table"] = True  # what opening "Every term (eq. 11)" in the browser sends
    at.text_area(key="insp_text").input(GERMAN).run()
    ok(at)
    # chart ticks: no term starts or ends with an invisible space, and no two bars read the same
    ticks = figure(at, "Which words push")["data"][0]["y"]
    assert all(_is_readable(t) for t in ticks), ticks
    assert len(set(ticks)) == len(ticks)
    assert any(t.startswith("␣") for t in ticks) and any(t.endswith("␣") for t in ticks)
    # the table of every term: as many distinct, readable rows as there are terms
    table = at.dataframe[0].value
    words = list(table["word"])
    assert len(set(words)) == len(feats) and all(_is_readable(w) for w in words)
    assert {"␣en", "en␣", "en"} <= set(words)
    # the words box and the caption of the typed text
    box = next(m for m in at.multiselect if m.label.startswith("Words present"))
    shown = [o for o in box.proto.options]
    assert len(set(shown)) == len(shown) and all(_is_readable(o) for o in shown)
    caption = next(c.value for c in at.caption if c.value.startswith("Scoring the typed text"))
    items = [i.rsplit("×", 1)[0] for i in caption.removeprefix("Scoring the typed text: ").split(", ")]
    assert len(set(items)) == len(items) and all(_is_readable(i) for i in items)
    assert "␣u" in items and "d␣" in items  # " und " starts with " u" and ends with "d "
