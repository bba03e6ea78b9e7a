"""The lesson view's "EM emptied a class" warning (dashboard/lesson/panels/core.py, class_emptied_notice):
when it fires, what it names and links to, and that the default lesson never shows it."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.lesson.panels import class_emptied
from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")


def lesson(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def warnings_text(at: AppTest) -> str:
    return " ".join(w.value for w in at.warning)


def test_emptied_classes_rules():
    alpha = [[0.8, 0.2], [0.9, 0.1], [0.99, 0.01], [0.999, 0.001]]
    mean = [[0.9, 0.1], [0.95, 0.05], [0.995, 0.005], [0.9999, 0.0001]]
    counts = [[90, 10], [95, 5], [100, 0], [100, 0]]
    # no hidden document keeps class 1 from t = 2 on
    assert class_emptied.emptied_classes(alpha, mean, counts) == {1: 2}
    # a class that comes back is no longer reported
    assert class_emptied.emptied_classes(alpha[:3] + [[0.8, 0.2]], mean[:3] + [[0.9, 0.1]],
                                         counts[:3] + [[90, 10]]) == {}
    # α below 1 % of its start, with a hidden document still assigned to it
    assert class_emptied.emptied_classes([[0.5, 0.5], [0.996, 0.004]], [[0.5, 0.5], [0.6, 0.4]],
                                         [[50, 50], [99, 1]]) == {1: 1}
    # the hidden documents' share below 1 % of the class's start while α holds the labelled documents
    assert class_emptied.emptied_classes([[0.87, 0.13], [0.993, 0.007]], [[0.9, 0.1], [0.9996, 0.0004]],
                                         [[5293, 2], [5293, 2]]) == {1: 1}
    # empty at the start already: counted from EM's first iteration; nothing to say before EM ran
    assert class_emptied.emptied_classes([[0.87, 0.13], [0.99, 0.01]], [[1.0, 0.0], [1.0, 0.0]],
                                         [[10, 0], [10, 0]]) == {1: 1}
    assert class_emptied.emptied_classes([[0.87, 0.13]], [[1.0, 0.0]], [[10, 0]]) == {}


def test_bernoulli_on_sms_spam_with_97_percent_hidden_empties_spam():
    at = lesson(dataset="sms_spam", model="bernoulli", hidden="97", lam="1")
    assert "EM emptied" not in warnings_text(at)  # t = 0: EM has not run yet
    at.button(key="step").click().run()
    text = warnings_text(at)
    assert "EM emptied the class **spam** at iteration **1**" in text
    run, prep = at.session_state["lesson"].run, at.session_state["lesson"].prep
    hidden = prep.y_obs < 0
    assert (run.predict(t=1)[hidden] != 1).all()  # no hidden message is spam under θ_1
    assert f"0 of the {int(hidden.sum()):,} hidden documents" in text
    link = [p.proto for p in at.get("page_link") if p.proto.page.endswith("event_models")]
    assert len(link) == 1
    assert link[0].query_string == "evm_dataset=sms_spam&evm_hidden=97&evm_lam=1&evm_seed=0&evm_uw=1"
    at.button(key="converge").click().run()
    assert "EM emptied the class **spam** at iteration **1**" in warnings_text(at)


def test_bernoulli_at_95_percent_counts_the_hidden_share_not_only_the_argmax():
    # two hidden messages stay spam, and α(spam) keeps the 37 labelled ones (0.7 %, 5 % of its start):
    # the hidden documents' share of spam (< 1 % of its start) is what says the class was emptied
    at = lesson(dataset="sms_spam", model="bernoulli", hidden="95", lam="1")
    at.button(key="converge").click().run()
    assert "EM emptied the class **spam** at iteration **1**" in warnings_text(at)
    assert "2 of the 5,295 hidden documents" in warnings_text(at)


def test_default_lesson_and_multinomial_never_empty_a_class():
    at = lesson()
    at.button(key="step").click().run()
    at.button(key="converge").click().run()
    assert at.session_state["lesson"].run.done
    assert "EM emptied" not in warnings_text(at)
    assert not [p for p in at.get("page_link") if p.proto.page.endswith("event_models")]
    at = lesson(dataset="sms_spam", model="multinomial", hidden="97")
    at.button(key="converge").click().run()
    assert "EM emptied" not in warnings_text(at)


def _hostile_names_script():
    # AppTest.from_function runs this function's source alone: it imports what it uses itself
    import numpy as np
    import streamlit as st

    import nbcore
    from dashboard.lesson.panels import class_emptied
    from dashboard.ui import controls, state
    from nblab.frame import Frame
    from nblab.prepare import Prepared

    state.init()
    ds = nbcore.load_dataset("sms_spam")
    y = np.asarray(ds.y)
    y_obs = np.asarray(nbcore.hide_labels(y, fraction=0.97, random_state=0)[0])
    run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled", random_state=0).start(ds.X, y_obs)
    run.step()
    names = ["ham", "*spam* $x$ [a](b) <b>"]
    # no pages are registered in this one-function app: data that is not text draw no page link
    prep = Prepared(None, ds.X, y_obs, y_obs < 0, y, 2, names, list(ds.feature_names))
    cfg = controls.DataConfig("upload", "bernoulli", 97, "labeled", 0, 1.0, 100, 1e-6)
    f = Frame(run=run, prep=prep, cfg=cfg, smoothing=1.0, t=1, latest=1, view_t=None, acc=[],
                  base=None, classroom=False, fs=15)
    class_emptied.show(f)
    st.session_state["done"] = True


def test_class_names_from_the_data_are_escaped():
    at = AppTest.from_function(_hostile_names_script, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    text = warnings_text(at)
    assert r"**\*spam\* \$x\$ \[a\]\(b\) \<b\>**" in text
    assert "<b>" not in text and "$x$" not in text
