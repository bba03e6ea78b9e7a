"""The lesson as one file (nblab.export) without a browser: it is the lab page, with the lesson's data and the
settings and iteration it was made at; a plain nbcore run's hidden rows are found again; nothing of the app is
imported. The numbers the page computes are checked in Chromium (tests/browser/test_lab_export.py) and the
engine against nbcore (tests/lab/test_em_parity.py)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import nbcore
from nblab import export
from nblab.config import DataConfig
from nblab.lesson_run import LessonRun

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def _block(page: str, ident: str):
    m = re.search(rf'<script type="application/json" id="{ident}">(.*?)</script>', page, flags=re.S)
    assert m, ident
    return json.loads(m.group(1))


def _lesson(dataset="synthetic_spam", model="bernoulli", hidden=90, lam=1.0, steps=3, init="labeled", seed=0):
    lr = LessonRun()
    lr.sync(DataConfig(dataset, model, hidden, init, seed, 1.0, 100, 1e-6), lam)
    lr.step(steps)
    return lr


def test_a_lesson_file_opens_at_the_lessons_settings_and_iteration():
    lr = _lesson(hidden=80, lam=0.3, steps=4, seed=7)
    lr.scrub(2)
    page = export.lesson_page(lr)
    cfg = _block(page, "nblab-config")["defaults"]
    assert {k: cfg[k] for k in ("dataset", "model", "hidden", "lam", "init", "seed", "max_iter", "tol", "t")} == {
        "dataset": "synthetic_spam", "model": "bernoulli", "hidden": 80, "lam": 0.3, "init": "labeled", "seed": 7,
        "max_iter": 100, "tol": 1e-6, "t": 2}
    data = _block(page, "nblab-data")
    assert data["name"] == "synthetic_spam" and data["n"] == 600 and data["v"] == 30


def test_a_lambda_changed_mid_run_is_the_lambda_of_the_next_step():
    lr = _lesson(lam=1.0, steps=2)
    lr.sync(lr.cfg, 0.1)          # λ changed mid-run: the run continues
    assert lr.latest == 2
    cfg = _block(export.lesson_page(lr), "nblab-config")["defaults"]
    assert cfg["lam"] == 0.1 and cfg["t"] == 2


def test_run_to_convergence_opens_where_em_stops_and_leaves_the_run_alone():
    lr = _lesson(steps=1)
    page = export.lesson_page(lr, converge=True)
    want = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled", tol=1e-6, random_state=0)
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs, _ = nbcore.hide_labels(ds.y, fraction=0.9, random_state=0)
    oracle = want.start(ds.for_model("bernoulli"), y_obs)
    oracle.run_to_convergence()
    assert _block(page, "nblab-config")["defaults"]["t"] == oracle.iteration > 1
    assert lr.latest == 1          # the page's run did not move


def test_classroom_mode_travels_with_the_file():
    assert _block(export.lesson_page(_lesson(steps=0), classroom=True), "nblab-config")["defaults"]["classroom"] is True


def test_a_plain_run_on_a_shipped_set_hides_the_same_rows_in_the_file():
    ds = nbcore.load_dataset("toy_spam")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.5, random_state=3)
    run = nbcore.EM(model="bernoulli", n_classes=2, init="labeled", random_state=3, smoothing=0.1).start(
        ds.for_model("bernoulli"), y_obs)
    run.step()
    data, settings = export._plain_run_data(run, ds)
    assert settings["hidden"] == 50 and settings["seed"] == 3 and settings["lam"] == 0.1 and settings["t"] == 1
    assert data["name"] == "toy_spam"


def test_a_plain_run_with_its_own_hidden_rows_keeps_them_as_given():
    """Rows hidden by hand (no percentage and seed give them): the file's labels are the run's, hidden 0 %."""
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs = np.asarray(ds.y).copy()
    y_obs[::3] = -1
    run = nbcore.EM(model="bernoulli", n_classes=2, init="labeled", random_state=0).start(ds.for_model("bernoulli"), y_obs)
    data, settings = export._plain_run_data(run, ds)
    assert settings["hidden"] == 0
    import base64
    kinds = {"i8": "<i1", "i16": "<i2", "i32": "<i4"}
    y = np.frombuffer(base64.b64decode(data["y"]["b64"]), dtype=kinds[data["y"]["dtype"]])
    assert np.array_equal(y, y_obs)


def test_export_lesson_writes_the_file_and_needs_a_path(tmp_path):
    lr = _lesson(steps=1)
    path = export.export_lesson(lr, None, tmp_path / "l.html")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert export.export_bytes(lr) == path.read_bytes()
    with pytest.raises(TypeError, match="needs a path"):
        export.export_lesson(lr)


def test_nbcore_points_to_the_lesson_core_for_the_file_and_the_widget():
    for name, where in (("export_lesson", "nblab.export_lesson"), ("show", "nblab.show")):
        with pytest.raises(AttributeError, match=re.escape(where)):
            getattr(nbcore, name)


def test_a_lesson_is_exported_without_streamlit_or_the_app(tmp_path):
    code = ("import sys\n"
            "from nblab.config import DataConfig\nfrom nblab.lesson_run import LessonRun\nimport nblab\n"
            "lr = LessonRun(); lr.sync(DataConfig('toy_spam', 'bernoulli', 50, 'labeled', 0, 1.0, 100, 1e-6), 1.0)\n"
            f"nblab.export_lesson(lr, None, {str(tmp_path / 'x.html')!r}, converge=True)\n"
            "bad = [m for m in ('streamlit', 'dashboard', 'plotly') if m in sys.modules]\n"
            "print(bad); sys.exit(1 if bad else 0)\n")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_lab_draws_with_the_apps_chart_template():
    """nblab/template.json is the app's player template (one look), written from it in a process without
    Streamlit (whose import swaps plotly's default template for one with placeholder colours)."""
    pytest.importorskip("plotly")
    code = ("import json, sys\n"
            "from dashboard.charts.player_template import chart_template\n"
            "assert 'streamlit' not in sys.modules\n"
            "print(json.dumps(chart_template()))\n")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    saved = json.loads((ROOT / "nblab" / "template.json").read_text(encoding="utf-8"))
    assert saved == json.loads(res.stdout)
    assert "#000001" not in json.dumps(saved)   # no Streamlit placeholder colour
