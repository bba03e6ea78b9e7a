"""The depth views under streamlit.testing (no browser): each view loads, reacts to a control
and shows the expected numbers on a case worked by hand."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from kit import ROOT
from kit.apptest import guided_narrative

APP = str(ROOT / "dashboard" / "app.py")


def open_view(page: str, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()  # the main script first (st.navigation registers the pages)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(f"views/{page}.py")
    at.run()
    assert not at.exception, at.exception
    return at


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def text(at: AppTest) -> str:
    parts = [e.value for kind in ("markdown", "info", "warning", "success", "error", "caption")
             for e in getattr(at, kind)]
    return " ".join(parts)


def ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


# ---- 1. posterior inspector ---------------------------------------------------------------

def test_inspector_toy_spam_lambda0_cruise_lottery_is_two_thirds():
    at = open_view("inspector", insp_dataset="toy_spam", insp_lam="0")
    ok(at.multiselect(key="insp_words").set_value(["Cruise", "Lottery"]).run())
    # the course session: P(spam | Cruise, Lottery, not Win) = (2/3·2/3·1/3) / (… + 1/3·1/3·2/3) = 2/3
    assert metric(at, "p(spam | x)") == "0.6667"
    assert metric(at, "p(ham | x)") == "0.3333"
    # the absent word Win counts in Bernoulli NB: log(1/3) − log(2/3) = −log 2
    assert "counts absent words too" in text(at) and "-0.693" in text(at)
    # multinomial NB ignores absent words
    ok(at.radio(key="insp_model").set_value("multinomial").run())
    assert "ignores absent words" in text(at)
    assert metric(at, "p(spam | x)") == "0.5000"


def test_inspector_uses_the_lesson_run_and_flags_impossible_words():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["lam"] = "0"          # lesson view: synthetic_spam, 90 % hidden, λ = 0
    at.query_params["dataset"] = "synthetic_spam"
    at.run()
    ok(at)
    lesson_run = at.session_state["lesson"].run
    at.switch_page("views/inspector.py")
    at.query_params["insp_dataset"] = "synthetic_spam"
    ok(at.run())
    ok(at.radio(key="insp_source").set_value("run").run())
    ok(at.multiselect(key="insp_words").set_value(["limited", "meeting"]).run())
    assert "Using the lesson view's run at iteration 0" in text(at)
    # 60 labelled documents, λ = 0: "limited" never occurs in a labelled ham e-mail -> β = 0
    assert lesson_run.current.iteration == 0
    assert "impossible" in text(at)
    assert metric(at, "p(ham | x)") == "0.0000"


# ---- 2. smoothing explorer ----------------------------------------------------------------

def test_smoothing_explorer_extremes():
    at = open_view("smoothing", sm_dataset="synthetic_spam")   # the page would open on the lesson's sms_spam
    assert len(at.get("plotly_chart")) == 2
    t = text(at)
    assert "β(limited | ham) = 0" in t            # λ = 0: never seen with ham -> impossible
    assert "everything → ½" in t
    dev = float(t.split("every β is within **")[1].split("**")[0])
    assert dev < 0.01                              # λ = 1000 pulls every β to ½
    ok(at.slider(key="sm_hidden").set_value(0).run())
    assert "No hidden labels" in text(at)


# ---- 3. symmetric trap ------------------------------------------------------------------

def test_symmetric_trap_stays_at_one_over_k_and_can_be_broken():
    at = open_view("trap")
    ok(at.button(key="trap_step").click().run())
    assert metric(at, "Iteration") == "1"
    assert metric(at, "max |p(y | x) − 1/K| (hidden docs)") == "0.000000"
    assert metric(at, "max β difference between classes") == "0.000000"
    run = at.session_state["trap"].run
    np.testing.assert_allclose(run.predict_proba(), 0.5)
    np.testing.assert_allclose(run.current.resp, 0.5)
    assert "Stuck at the symmetric point" in text(at)
    ok(at.radio(key="trap_start").set_value("random").run())
    ok(at.button(key="trap_step10").click().run())
    assert float(metric(at, "max β difference between classes")) > 0.1
    assert "symmetry is broken" in text(at)
    ok(at.radio(key="trap_start").set_value("uniform").run())
    ok(at.slider(key="trap_labels").set_value(2).run())   # a handful of labels breaks it too
    ok(at.button(key="trap_step").click().run())
    assert float(metric(at, "max β difference between classes")) > 0.1


# ---- 4. restarts --------------------------------------------------------------------------

def test_restarts_and_open_a_start_in_the_lesson_view():
    # a bound parameter in the URL: switch_page must not try to clear it (Streamlit refuses to)
    at = open_view("restarts", rs_dataset="synthetic_spam", rs_hidden="100")
    assert "Press **Run restarts**" in text(at)
    ok(at.button(key="rs_go").click().run())
    assert metric(at, "Random starts") == "10"
    res = at.session_state["rs"].value
    assert len(res) == 10 and all(r["acc_aligned"] >= r["acc"] - 1e-12 for r in res)
    assert len(at.get("plotly_chart")) == 1
    ok(at.slider(key="rs_n").set_value(3).run())          # a changed control hides the stale result
    assert "settings changed" in text(at)
    ok(at.slider(key="rs_n").set_value(10).run())
    ok(at.button(key="rs_go").click().run())               # cached: instant
    worst = int(np.argmin([r["objective"] for r in res]))
    ok(at.selectbox(key="rs_pick").set_value(worst).run())
    chosen = at.session_state["rs"].value[worst]["run"]
    ok(at.button(key="rs_open").click().run())
    run = at.session_state["lesson"].run
    assert run.iteration == chosen.iteration
    assert run.current.objective == pytest.approx(chosen.current.objective)
    assert metric(at, "Iteration") == str(chosen.iteration)   # the lesson page shows it, no rebuild
    assert "Opened random start" in text(at)


# ---- 5. label switching -------------------------------------------------------------------

def test_label_switching_matching_never_lowers_accuracy():
    at = open_view("switching")
    for seed in (1, 2):
        ok(at.number_input(key="ls_seed").set_value(seed).run())
        before = float(metric(at, "Accuracy as labelled").rstrip("%"))
        after = float(metric(at, "Accuracy after matching").rstrip("%"))
        assert after >= before
    ok(at.number_input(key="ls_seed").set_value(1).run())
    assert metric(at, "Accuracy as labelled") == "14.3%"     # clusters came out swapped
    assert metric(at, "Accuracy after matching") == "85.7%"
    assert "label switching" in text(at)


# ---- 6. label budget ----------------------------------------------------------------------

def test_label_budget_curve():
    at = open_view("budget")
    ok(at.button(key="lb_go").click().run())
    rows = at.session_state["lb"].value
    assert {r["n_labelled"] for r in rows} == {2, 4, 8, 16, 32, 64, 128, 256}
    assert len(rows) == 8 * 3
    # with 2 labels EM (reading the 598 unlabelled documents) beats supervised NB on average
    two = [r for r in rows if r["n_labelled"] == 2]
    assert np.mean([r["acc_em"] for r in two]) > np.mean([r["acc_supervised"] for r in two])
    assert len(at.get("plotly_chart")) == 1
    ok(at.slider(key="lb_uw").set_value(0.5).run())
    assert "settings changed" in text(at)


# ---- 7. side by side ----------------------------------------------------------------------

def test_side_by_side_steps_both_runs_on_the_same_hidden_labels():
    at = open_view("side_by_side")
    ok(at.button(key="sbs_step").click().run())
    runs = at.session_state["sbs"].runs
    assert runs["a"].iteration == runs["b"].iteration == 1
    np.testing.assert_array_equal(runs["a"].y, runs["b"].y)
    assert runs["a"].smoothing == 0.01 and runs["b"].smoothing == 1.0
    assert [m.value for m in at.metric if m.label == "Iteration"] == ["1", "1"]
    ok(at.select_slider(key="sbs_lam_a").set_value(1.0).run())  # new settings: both start again
    runs = at.session_state["sbs"].runs
    assert runs["a"].iteration == runs["b"].iteration == 0
    ok(at.button(key="sbs_step").click().run())
    # same λ, same start, same data: identical runs
    assert runs["a"].current.objective == pytest.approx(runs["b"].current.objective)


# ---- 8. sampling ----------------------------------------------------------------------------

def test_sampling_words_and_digit_images():
    at = open_view("sampling")
    t = text(at)
    assert "Drawn from the model" in t and "Real documents of this class" in t
    ok(at.selectbox(key="smp_dataset").set_value("digits").run())
    assert len(at.get("plotly_chart")) == 2 * 3   # 3 classes shown: samples + real images each


# ---- 9. Gaussian corner -------------------------------------------------------------------

def test_gaussian_corner_biased_vs_unbiased_variance():
    at = open_view("gaussian")
    # the lecture's exam scores 85, 95, 100, 12: mean 73, Σ(x−μ)² = 5078
    assert metric(at, "Class A: σ² MLE (1/N)") == "1269.5"
    assert metric(at, "Class A: σ² unbiased (1/(N−1))") == "1692.67"
    ok(at.text_input(key="gs_a").set_value("1, 2, 3").run())
    assert metric(at, "Class A: σ² MLE (1/N)") == "0.666667"
    assert metric(at, "Class A: σ² unbiased (1/(N−1))") == "1"
    ok(at.text_input(key="gs_a").set_value("7").run())
    assert "at least two values" in text(at)


# ---- 10. guided lessons --------------------------------------------------------------------

def test_guided_lessons_links_and_narrative():
    from dashboard.lesson import guided as lessons

    at = open_view("guided")
    links = at.get("page_link")
    anchors = [m for m in at.markdown if '<a href="./?' in m.value]  # links to the lesson view (the root page)
    assert len(links) + len(anchors) == len(lessons.LESSONS) >= 9
    for lesson in lessons.LESSONS:
        assert (ROOT / "dashboard" / lesson.page).exists()
        assert lessons.link_params(lesson)["lesson"] == lesson.id
    # a lesson link = page + settings in the URL: the view starts with those settings and the narrative
    at = open_view("trap", **lessons.link_params(lessons.BY_ID["trap"]))
    assert "Guided lesson 4" in guided_narrative(at)
    assert at.radio(key="trap_start").value == "uniform"
    at = open_view("restarts", **lessons.link_params(lessons.BY_ID["optima"]))
    assert at.selectbox(key="rs_dataset").value == "digits"
    assert at.slider(key="rs_hidden").value == 100
    at = open_view("smoothing", **lessons.link_params(lessons.BY_ID["smoothing"]))
    assert "Guided lesson 3" in guided_narrative(at)


def test_lesson_view_shows_the_narrative_of_guided_lessons_1_and_2():
    from dashboard import pages
    from dashboard.lesson import guided as lessons

    for lesson_id, title in (("supervised", "Guided lesson 1"), ("hide", "Guided lesson 2")):
        lesson = lessons.BY_ID[lesson_id]
        assert lesson.page == pages.LESSON.path
        at = AppTest.from_file(APP, default_timeout=60)
        for k, v in lessons.link_params(lesson).items():  # the link is the first page this session opens
            at.query_params[k] = v
        at.run()  # the lesson view is the default page
        assert not at.exception, at.exception
        assert at.title[0].value.endswith("watch EM learn")
        sidebar = guided_narrative(at)
        assert title in sidebar, sidebar[:300]
        for k, v in lesson.params.items():  # the link's settings are the lesson view's widgets
            got = at.session_state[k]
            assert (float(got) == float(v)) if isinstance(got, (int, float)) else str(got) == str(v), (k, got, v)
        box = next(e for e in at.main.expander if e.label.startswith(title))
        assert box.proto.expanded          # open where the class looks
        # in classroom mode the first screen is the lesson itself: the narrative is one click away
        at = AppTest.from_file(APP, default_timeout=60)
        for k, v in {**lessons.link_params(lesson), "classroom": "true"}.items():
            at.query_params[k] = v
        at.run()
        assert guided_narrative(at).startswith(title)
        assert not next(e for e in at.main.expander if e.label.startswith(title)).proto.expanded
    at = open_view("lesson")  # no lesson= in the URL: no narrative
    assert guided_narrative(at) == ""
