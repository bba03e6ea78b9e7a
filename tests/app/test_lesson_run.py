"""LessonRun, the one owner of a lesson's run, driven without Streamlit: every change it makes is
checked against nbcore driven directly (the same data, labels hidden and settings)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nbcore
from nblab.config import DataConfig
from nblab.lesson_run import LessonRun, status_line

CFG = DataConfig(dataset="synthetic_spam", model="bernoulli", hidden_pct=90, init="labeled", seed=0,
                 unlabeled_weight=1.0, max_iter=100, tol=1e-8)


def reference(cfg: DataConfig = CFG, smoothing: float = 1.0, **settings):
    """The same run built with nbcore alone."""
    ds = nbcore.load_dataset(cfg.dataset)
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=cfg.hidden_pct / 100, random_state=cfg.seed)
    return nbcore.EM(model=cfg.model, n_classes=ds.n_classes, smoothing=smoothing, init=cfg.init,
                     unlabeled_weight=cfg.unlabeled_weight, max_iter=cfg.max_iter, tol=cfg.tol,
                     random_state=cfg.seed, **settings).start(ds.for_model(cfg.model), np.asarray(y_obs))


def same(a, b):
    np.testing.assert_array_equal(a.alpha, b.alpha)
    np.testing.assert_array_equal(a.params["beta"], b.params["beta"])


@pytest.fixture
def lr():
    lesson = LessonRun()
    assert lesson.sync(CFG, 1.0) is True  # a first run: the page then restores the URL's t
    return lesson


def test_first_sync_builds_the_run_nbcore_would_build(lr):
    ref = reference()
    assert lr.run.iteration == 0 and lr.serial == 1 and lr.notice is None and lr.error is None
    same(lr.run.current, ref.current)
    assert lr.status() == ("ready", "Ready: t = 0 (initial parameters). Press Step or Play.")


def test_step_adopts_the_iteration_computed_ahead_with_the_same_numbers(lr):
    nxt = lr.ahead()
    assert nxt is not None and nxt is not lr.run and lr.run.iteration == 0  # the run itself is untouched
    lr.step()
    assert lr.run is nxt and lr.run.iteration == 1
    ref = reference()
    ref.step()
    same(lr.run.current, ref.current)
    lr.step(3)  # nothing computed ahead now: plain steps
    for _ in range(3):
        ref.step()
    same(lr.run.current, ref.current)
    assert lr.status()[0] == "paused"


def test_half_steps_make_one_step(lr):
    assert lr.e_step()
    assert lr.run.pending is not None and lr.run.iteration == 0
    lr.m_step()
    ref = reference()
    ref.step()
    same(lr.run.current, ref.current)
    lr.m_step()  # no E-step pending: the engine's message, the run unchanged
    assert "E-step" in lr.error and lr.run.iteration == 1


def test_lambda_before_a_step_rebuilds_and_after_a_step_continues(lr):
    lr.sync(CFG, 0.5)
    assert lr.notice[0] == "rebuilt" and lr.serial == 2 and lr.run.smoothing == 0.5
    same(lr.run.current, reference(smoothing=0.5).current)
    lr.step(2)
    lr.sync(CFG, 2.0)
    assert lr.notice[0] == "continued" and "**continues** from iteration 2" in lr.notice[1]
    assert lr.serial == 2 and len(lr.run.history) == 3  # history kept
    lr.step()
    assert [s.smoothing for s in lr.run.history] == [0.5, 0.5, 0.5, 2.0]


def test_new_data_settings_rebuild_and_bad_ones_keep_the_run(lr):
    lr.step(2)
    lr.sync(CFG.__class__(**{**CFG.__dict__, "hidden_pct": 50}), 1.0)
    assert lr.notice == ("rebuilt", "Data settings changed (labels hidden 90% → 50%): **new run** from iteration 0.")
    assert lr.run.iteration == 0 and lr.serial == 2
    before = lr.run
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr.sync(CFG.__class__(**{**CFG.__dict__, "model": "gaussian"}), 1.0)
    assert lr.error and lr.run is before


def test_converge_reports_progress_and_stops_where_nbcore_stops(lr):
    seen = []
    lr.converge(lambda frac, t: seen.append((frac, t)))
    ref = reference()
    while not ref.done:
        ref.step()
    assert lr.run.done and lr.run.iteration == ref.iteration
    assert [t for _, t in seen] == list(range(1, ref.iteration + 1))
    assert all(0 < f <= 1 for f, _ in seen)
    assert lr.status()[0] == "converged"


def test_rewind_then_step_gives_back_the_same_snapshots(lr):
    lr.step(6)
    kept = [s for s in lr.run.history]
    lr.rewind(3)
    assert lr.run.iteration == 3
    lr.step(3)
    for a, b in zip(lr.run.history, kept):
        same(a, b)


def test_rewind_keeps_a_components_run_a_components_run():
    ds = nbcore.load_dataset("digits")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    run = nbcore.EM(model="bernoulli", n_classes=10, components_per_class=2, init="labeled",
                    random_state=0, max_iter=5).start(ds.X, np.asarray(y_obs))
    for _ in range(3):
        run.step()
    lesson = LessonRun(run=run)
    lesson.rewind(1)
    assert type(lesson.run) is type(run)
    assert np.asarray(lesson.run.predict_proba()).shape == (ds.X.shape[0], 10)


def test_restore_to_the_links_iteration_and_say_when_it_stopped_earlier(lr):
    lr.restore_to(4)
    assert lr.run.iteration == 4 and lr.notice[0] == "continued"
    ref = reference()
    for _ in range(4):
        ref.step()
    same(lr.run.current, ref.current)
    fresh = LessonRun()
    fresh.sync(CFG.__class__(**{**CFG.__dict__, "max_iter": 3}), 1.0)
    fresh.restore_to(50)
    assert fresh.run.iteration == 3 and "before 50" in fresh.notice[1]


def test_stop_rule_continues_the_run_with_its_history(lr):
    lr.step(2)
    lr.set_stop_rule(1e-3, "both_values")
    assert lr.run.settings.theta_tol == 1e-3 and lr.run.settings.theta_norm == "both_values"
    assert lr.run.iteration == 2 and lr.serial == 1


def test_scrub_play_and_status_lines(lr):
    lr.step(3)
    lr.scrub(1)
    assert lr.t == 1 and lr.view_t == 1
    lr.scrub(3)  # the right end follows the run
    assert lr.view_t is None and lr.t == 3
    assert lr.set_playing(True) and not lr.set_playing(True)  # sets, never toggles
    assert lr.status() == ("running", "Running … t = 3")
    assert status_line(lr.run) == ("paused", "Paused at t = 3")
    done = reference(CFG.__class__(**{**CFG.__dict__, "max_iter": 3}))
    while not done.done:
        done.step()
    assert status_line(done) == ("max", "Stopped at the maximum number of iterations (t = 3)")
    # asked for 500 iterations but the memory budget kept 3: the status line says why it stopped
    kind, text = status_line(done, CFG.__class__(**{**CFG.__dict__, "max_iter": 500}))
    assert kind == "max" and "the most iterations this server keeps" in text and "Max iterations is 500" in text
