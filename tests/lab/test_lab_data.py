"""nblab.data: the lab's data decodes in the browser's engine (data.js, em.prepare) to the data set's
own matrix, labels and model inputs, and sms_spam's whole lab data stays within the page's budget."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import nbcore
from nblab.data import encode_array, lab_data, lab_data_from_arrays

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")

DECODE = r"""
import { readFileSync } from "node:fs";
const { decodeLabData, denseRow } = await import(process.argv[1] + "/nblab/js/data.js");
const { prepare } = await import(process.argv[1] + "/nblab/js/em.js");
const data = decodeLabData(JSON.parse(readFileSync(process.argv[2], "utf8")));
const rows = [];
for (let i = 0; i < data.matrix.n; i++) rows.push(Array.from(denseRow(data.matrix, i)));
const inputs = {};
for (const model of data.models) {
  const prep = prepare(data, { model, hiddenPct: 50, seed: 3 });
  inputs[model] = { X: Array.from({ length: prep.N }, (_, i) => Array.from(prep.row(i))), yObs: Array.from(prep.yObs),
                    v: prep.X.v, n: prep.X.n };
}
process.stdout.write(JSON.stringify({ rows, y: Array.from(data.y), yTrue: data.yTrue && Array.from(data.yTrue), inputs }));
"""


def _cases():
    yield "toy_spam", nbcore.load_dataset("toy_spam")
    yield "play_tennis", nbcore.load_dataset("play_tennis")
    yield "abcd", nbcore.load_dataset("abcd")
    rng = np.random.default_rng(0)
    counts = rng.poisson(0.7, size=(40, 9)).astype(float)
    yield "counts", nbcore.Dataset(name="counts", X=counts, y=rng.integers(-1, 3, 40), feature_names=list("abcdefghi"),
                                   class_names=["a", "b", "c"], kind="counts")
    yield "continuous", nbcore.Dataset(name="cont", X=rng.normal(size=(30, 4)) * 1e3, y=rng.integers(0, 2, 30),
                                       feature_names=list("wxyz"), class_names=["p", "q"], kind="continuous",
                                       y_true=rng.integers(0, 2, 30))


@pytest.mark.skipif(NODE is None, reason="node (v20) decodes the lab's data")
@pytest.mark.parametrize("label,ds", list(_cases()), ids=lambda v: v if isinstance(v, str) else "")
def test_decoded_matrix_labels_and_model_inputs(label, ds, tmp_path):
    path = tmp_path / "data.json"
    path.write_text(json.dumps(lab_data(ds)), encoding="utf-8")
    proc = subprocess.run([NODE, "--input-type=module", "-e", DECODE, str(ROOT), str(path)], capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    out = json.loads(proc.stdout)
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X, dtype=float)
    assert np.array_equal(np.array(out["rows"], dtype=float), X)
    assert out["y"] == np.asarray(ds.y).tolist()
    assert out["yTrue"] == (None if ds.y_true is None else np.asarray(ds.y_true).tolist())
    for model in ds.models:
        Xm = ds.for_model(model)
        Xm = Xm.toarray() if hasattr(Xm, "toarray") else np.asarray(Xm, dtype=float)
        assert np.array_equal(np.array(out["inputs"][model]["X"], dtype=float), Xm), model
        y_obs, _ = nbcore.hide_labels(ds.y, 0.5, random_state=3)
        assert out["inputs"][model]["yObs"] == y_obs.tolist()


def test_sms_spam_lab_data_fits_the_page():
    d = lab_data("sms_spam")
    size = len(json.dumps(d))
    assert size <= 1_000_000, f"sms_spam's lab data is {size / 1e6:.2f} MB as JSON"
    assert d["matrix"]["data"] is None  # presence: every stored value is 1
    assert d["matrix"]["indices"]["dtype"] == "u16"
    assert d["text"]["analyzer"] == "word" and d["text"]["binary"] is True
    assert d["models"] == ["bernoulli", "multinomial"]


def test_smallest_exact_types_and_kinds():
    assert encode_array(np.array([1, 2], dtype=np.uint8)) == {"dtype": "u8", "b64": "AQI="}
    counts = lab_data_from_arrays(np.array([[0, 300.0], [2, 0]]), [0, 1])
    assert counts["kind"] == "counts" and counts["matrix"]["data"]["dtype"] == "u16"
    halves = lab_data_from_arrays(np.array([[0, 0.5], [2, 0]]), [0, 1], kind="counts")
    assert halves["matrix"]["data"]["dtype"] == "f32"
    cont = lab_data_from_arrays(np.array([[0.1, -2.0], [2, 0]]), [0, -1])
    assert cont["kind"] == "continuous" and cont["models"][0] == "gaussian"
    assert cont["modelOptions"]["gaussian"]["var_floor"] > 0 and cont["modelInputs"]["bernoulli"] == "binarize"
    cat = lab_data_from_arrays(np.array([[0, 2], [1, 0]]), [0, 1], kind="categorical")
    assert cat["matrix"]["nCategories"] == [2, 3] and cat["models"] == ["categorical"]
