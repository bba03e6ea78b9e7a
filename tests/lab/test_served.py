"""The lab's controller over a served run (nblab/js/served.js) shows nbcore's numbers: the app's lesson view.

For every shipped data set and each event model the lesson offers it, nbcore runs the lesson
(``nblab.prepare.build_run``) and :mod:`nblab.served` encodes its iterations; node drives ``lab.js``'s Lab over
a ``servedEngine`` with those records, in batches, with a Step pressed before each batch arrives, and a λ
change after the first batch. Compared with nbcore, independently of the lab's code: α, the log-likelihood
and the objective at every iteration (bit for bit: they are the server's own numbers, carried as float64),
the posteriors of the first rows (predict_proba(t), to 1e-9) and the accuracy on the hidden labels (the
argmax of predict_proba against the true labels of the hidden rows). A press before the records came moves
nothing.
"""
from __future__ import annotations

import base64
import json
import shutil
import subprocess

import numpy as np
import pytest

import nbcore
from kit import ROOT
from nblab import served
from nblab.data import lab_data
from nblab.prepare import DataConfig, build_run

NODE = shutil.which("node")
DRIVER = ROOT / "tests" / "lab" / "served_driver.mjs"
pytestmark = pytest.mark.skipif(NODE is None, reason="needs node")

CASES = [(name, model) for name in nbcore.list_datasets() for model in nbcore.load_dataset(name).models]


def _cfg(name, model):
    return DataConfig(dataset=name, model=model, hidden_pct=90, init="labeled", seed=0, unlabeled_weight=1.0,
                      max_iter=100, tol=1e-6)


def _accuracy(prep, proba) -> float:
    rows = (prep.y_obs < 0) & (prep.y_eval >= 0)
    return float(np.mean(np.asarray(proba).argmax(axis=1)[rows] == prep.y_eval[rows]))


@pytest.mark.parametrize("name,model", CASES, ids=[f"{n}-{m}" for n, m in CASES])
def test_served_lab_shows_nbcore_numbers(name, model, tmp_path):
    prep, run = build_run(_cfg(name, model), 1.0)
    # the server's iterations: three, a λ change to 0.1 (EM continues from θ_3), then two more
    first = served.first_record(run)
    for _ in range(3):
        run.step()
    batch1 = served.records(run, 0)
    run = run.with_settings(smoothing=0.1)
    for _ in range(2):
        run.step()
    batch2 = served.records(run, 3)
    data = tmp_path / "data.json"
    data.write_text(json.dumps(lab_data(name)))
    settings = {"dataset": name, "model": model, "hidden": 90, "lam": 1.0, "init": "labeled", "seed": 0,
                "max_iter": 100, "tol": 1e-6, "t": 0, "speed": "normal", "classroom": False}
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"data": str(data), "settings": settings, "first": first, "steps": [batch1, batch2],
                               "lam": 0.1}))
    out = json.loads(subprocess.run([NODE, str(DRIVER), str(cfg)], check=True, capture_output=True, text=True,
                                    timeout=600).stdout, parse_constant=float)
    num = lambda v: float(v) if isinstance(v, str) else v  # noqa: E731  ("-Infinity" travels as text)
    assert out["latest"] == 5 == run.iteration
    assert out["waited"] == [0, 3], "a press before the server's records arrived must not move the run"
    for t in range(6):
        snap = run.history[t]
        assert np.array_equal(out["alpha"][t], snap.alpha), f"α at t = {t}"
        assert num(out["ll"][t]) == snap.log_likelihood and num(out["objective"][t]) == snap.objective, f"t = {t}"
        proba = run.predict_proba(t=t)
        got = np.asarray(out["post"][t]).reshape(-1, prep.n_classes)
        np.testing.assert_allclose(got, proba[:len(got)], rtol=1e-9, atol=1e-12, err_msg=f"posterior at t = {t}")
        assert out["acc"][t] == pytest.approx(_accuracy(prep, proba), abs=1e-12), f"accuracy at t = {t}"
    # the stop verdict is the server's: the status line says what nbcore's run says
    want = "Paused at t = 5" if run.stop_reason is None else ("Converged at t = 5" if run.converged else "Stopped at")
    assert out["status"][-1].startswith(want) and out["done"] == run.done


def test_records_carry_minus_infinity_and_the_stop_verdict():
    """λ = 0 on a document with a word never seen in any class: the log-likelihood is −∞, and it travels as
    float64 (JSON has no −∞); the latest record carries the run's stop verdict."""
    prep, run = build_run(_cfg("toy_spam", "bernoulli"), 0.0)
    run.run_to_convergence()
    recs = served.records(run, 0)
    numbers = np.frombuffer(base64.b64decode(served.first_record(run)["numbers"]["b64"]), dtype="<f8")
    assert numbers[0] == -np.inf == run.history[0].log_likelihood and np.isnan(numbers[2])
    assert recs[-1]["stop"] == run.stop_reason and all(r["stop"] is None for r in recs[:-1])
    assert [r["t"] for r in recs] == list(range(1, run.iteration + 1))
    json.dumps(recs, allow_nan=False)  # nothing JSON cannot carry


def test_ask_reads_only_whole_numbers():
    """The ask comes from the page: anything but a whole number is ignored, never a traceback."""
    a = served.Ask.read({"serial": "3", "have": 2.0, "target": -5, "resets": True, "t": float("nan")})
    assert (a.serial, a.have, a.target, a.resets, a.t) == (-1, 2, 0, 0, None)
    assert served.Ask.read(None) == served.Ask()
