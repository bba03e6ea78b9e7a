"""What the teacher's session tells a class (dashboard/lesson/panels/class_link.py): the state a student's
page applies must be the lesson on the teacher's screen — checked against the LessonRun's own settings
and an nbcore run driven directly, never against what the panel computed."""
from __future__ import annotations

import numpy as np
import pytest

import nbcore
from dashboard.lesson.panels import class_link
from nblab.config import DataConfig
from nblab.lesson_run import LessonRun

CFG = DataConfig(dataset="toy_spam", model="bernoulli", hidden_pct=50, init="labeled", seed=3,
                 unlabeled_weight=1.0, max_iter=40, tol=1e-6)


@pytest.fixture
def lr():
    lesson = LessonRun()
    assert lesson.sync(CFG, 0.5) is True
    return lesson


def test_the_state_names_the_data_settings_and_iteration_on_screen(lr):
    lr.step(2)
    s = class_link.teacher_state(lr)
    assert s == {"data": "toy_spam", "t": 2, "half": None,
                 "settings": {"model": "bernoulli", "hidden": 50, "lam": 0.5, "init": "labeled", "seed": 3,
                              "max_iter": 40, "tol": 1e-6},
                 "lams": [[0, 0.5]]}


def test_scrubbing_back_publishes_the_iteration_shown_not_the_latest(lr):
    lr.step(3)
    lr.scrub(1)   # the teacher drags the slider back
    assert class_link.teacher_state(lr)["t"] == 1


def test_an_e_step_pending_is_the_half_the_class_sees(lr):
    lr.step(1)
    assert lr.e_step()
    s = class_link.teacher_state(lr)
    assert s["t"] == 1 and s["half"] == "e"
    lr.m_step()
    s = class_link.teacher_state(lr)
    assert s["t"] == 2 and s["half"] is None


def test_the_published_settings_rebuild_the_teachers_run_in_nbcore(lr):
    """A student's page runs EM from these settings: nbcore from the same settings reaches the teacher's θ_t."""
    lr.step(4)
    s = class_link.teacher_state(lr)
    ds = nbcore.load_dataset(s["data"])
    st = s["settings"]
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=st["hidden"] / 100, random_state=st["seed"])
    ref = nbcore.EM(model=st["model"], n_classes=ds.n_classes, smoothing=st["lam"], init=st["init"],
                    max_iter=st["max_iter"], tol=st["tol"], random_state=st["seed"]).start(
        ds.for_model(st["model"]), np.asarray(y_obs))
    for _ in range(s["t"]):
        ref.step()
    np.testing.assert_allclose(ref.current.alpha, lr.run.current.alpha, rtol=0, atol=0)
    np.testing.assert_allclose(ref.current.params["beta"], lr.run.current.params["beta"], rtol=0, atol=0)


def test_no_state_without_a_run():
    assert class_link.teacher_state(LessonRun()) is None
    assert class_link.teacher_state(None) is None


def test_an_upload_not_shared_has_no_class_data_key():
    cfg = DataConfig(dataset="upload", model="bernoulli", hidden_pct=50, init="labeled", seed=0,
                     unlabeled_weight=1.0, max_iter=10, tol=1e-6)
    assert class_link.data_key(cfg) is None


def test_the_qr_code_is_an_svg_of_the_link():
    import io
    svg = class_link.qr_svg("http://127.0.0.1:8501/class/AbCdEfGhIjKlMnOp")
    assert svg.lstrip().startswith("<svg") and "</svg>" in svg and "<script" not in svg
    # decoded by a real reader from segno's raster of the same code (the browser test decodes the drawn SVG)
    import segno
    import zxingcpp
    from PIL import Image
    buf = io.BytesIO()
    segno.make("http://127.0.0.1:8501/class/AbCdEfGhIjKlMnOp", error="m").save(buf, kind="png", scale=6)
    buf.seek(0)
    found = zxingcpp.read_barcodes(Image.open(buf))
    assert [r.text for r in found] == ["http://127.0.0.1:8501/class/AbCdEfGhIjKlMnOp"]


def test_a_lambda_change_mid_run_is_in_the_history_the_class_replays(lr):
    """λ 0.5 to θ_3, then 0.1: the change points are where nbcore's snapshots change λ."""
    lr.step(3)
    lr.sync(CFG, 0.1)      # λ changed mid-run: the run continues from θ_3
    lr.step(2)
    s = class_link.teacher_state(lr)
    assert s["settings"]["lam"] == 0.1 and s["t"] == 5
    assert s["lams"] == [[0, 0.5], [4, 0.1]]
    assert [lr.run.history[t].smoothing for t in range(6)] == [0.5, 0.5, 0.5, 0.5, 0.1, 0.1]


def test_the_state_with_its_history_is_one_the_class_store_accepts(lr):
    from dashboard.class_link import store
    lr.step(2)
    lr.sync(CFG, 1.0)
    lr.step(1)
    s = class_link.teacher_state(lr)
    assert store.clean_state(s)["lams"] == [[0, 0.5], [3, 1.0]]


def test_changed_text_settings_do_not_travel_and_the_teacher_is_told_so():
    """The class's pages read a shipped set with its own text settings: a lesson with others would disagree."""
    import dataclasses

    from nbcore.data import DEFAULT_PIPELINES
    p = DEFAULT_PIPELINES["sms_spam"]
    cfg = DataConfig(dataset="sms_spam", model="bernoulli", hidden_pct=99, init="labeled", seed=0,
                     unlabeled_weight=1.0, max_iter=100, tol=1e-6, text=p)
    assert class_link.text_settings_travel(cfg)
    assert not class_link.text_settings_travel(dataclasses.replace(cfg, text=dataclasses.replace(p, min_df=p.min_df + 1)))
    assert class_link.text_settings_travel(CFG)      # not text: nothing to carry
