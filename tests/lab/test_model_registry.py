"""One list of event models, read from the code: every model registered in nbcore has a JavaScript
implementation in nblab/js/models.js with the same properties, and no code outside the models decides
by comparing a model's name with a string (it asks the model: nbcore's tags, the browser model's fields).
"""
from __future__ import annotations

import numpy as np
import pytest

import nbcore
from kit import ROOT
from kit.models import NODE, browser_models, js_name_comparisons, models_without_javascript, python_name_comparisons
from nbcore.models import MODELS, EventModel, model_made_for, register_model, unregister_model
from nblab.data import lab_data_from_arrays, matrix_format

pytestmark = pytest.mark.skipif(NODE is None, reason="node imports the browser's models")

#: the model modules and registries, where a model's name is its own business
MODEL_HOMES = ("nbcore/models/", "nblab/js/models.js", "nblab/js/model_")
#: files that still decide by a model's name, listed one by one (not skipped by folder) so a new
#: comparison anywhere else fails at once:
#: - the maths panel's M-step numbers (eq. 24) pick the counts and the λ denominator by model; they belong
#:   in the models' estimateParts hook, which the one lesson program's maths panel is to use
STILL_BY_NAME = ("nblab/js/panels/maths.js",)


@pytest.fixture(scope="module")
def browser():
    return browser_models()


def test_every_model_registered_in_nbcore_has_a_javascript_implementation(browser):
    """nbcore's registry and the browser's name the same models: a model added to one alone fails here."""
    assert models_without_javascript(MODELS, browser) == []
    assert sorted(browser) == sorted(MODELS)


def test_the_browser_models_say_what_nbcore_models_say(browser):
    """Each model's properties in the browser match nbcore's tags: the matrix it reads (the lab data's
    format for the kind it is made for), whether absent features score, its parameters."""
    for name, cls in MODELS.items():
        js = browser[name]
        assert js["matrixFormat"] == matrix_format(cls.data_kinds[0]), name
        assert js["scoresAbsentFeatures"] is bool(cls.scores_absent_features), name
        assert js["paramNames"] == list(cls.param_names), name
        assert js["title"] == cls.title, name
        assert js["inputKind"] == cls.input_kind, name


def test_a_model_registered_in_nbcore_alone_is_found_missing(browser):
    """The check itself: a model registered in nbcore and not in the browser is reported by name."""
    class Poisson(EventModel):
        name = "poisson_counts"
        data_kinds = ("counts",)
        prepare = log_likelihood = statistics = params_from = uniform_params = lambda *a, **k: None

    register_model(Poisson)
    try:
        assert models_without_javascript(MODELS, browser) == ["poisson_counts"]
    finally:
        unregister_model("poisson_counts")


def test_the_lab_data_takes_its_matrix_format_from_the_model_made_for_the_kind():
    """A model registered for a kind decides how the lab's data holds it: with the Gaussian model (dense)
    replaced by a sparse-reading model made for continuous data, continuous data travels as CSR."""
    X = np.array([[0.5, 0.0], [0.0, 2.5]])
    assert lab_data_from_arrays(X, kind="continuous")["matrix"]["format"] == "dense"
    gaussian = MODELS["gaussian"]

    class SparseContinuous(gaussian):
        accepts_sparse = True

    register_model(SparseContinuous, "gaussian", replace=True)
    try:
        assert model_made_for("continuous") is SparseContinuous
        assert matrix_format("continuous") == "csr"
        assert lab_data_from_arrays(X, kind="continuous")["matrix"]["format"] == "csr"
    finally:
        register_model(gaussian, "gaussian", replace=True)
    codes = lab_data_from_arrays(np.array([[0, 2], [1, 0]]), kind="categorical")["matrix"]
    assert codes["format"] == "codes" and codes["nCategories"] == [2, 3]
    assert matrix_format("no such kind") == "csr" and model_made_for("no such kind") is None


def _outside_models(pattern: str):
    for path in sorted(ROOT.glob(pattern)):
        rel = path.relative_to(ROOT).as_posix()
        if "__pycache__" not in rel and not rel.startswith(MODEL_HOMES) and rel not in STILL_BY_NAME:
            yield rel, path


def test_no_python_code_compares_a_model_name_with_a_string_outside_the_models():
    names = set(MODELS) | {"categorical"}
    found = {rel: hits for folder in ("nbcore", "nblab", "dashboard")
             for rel, path in _outside_models(f"{folder}/**/*.py") if (hits := python_name_comparisons(path, names))}
    assert found == {}


def test_no_javascript_compares_a_model_name_with_a_string_outside_the_models():
    found = {rel: hits for folder in ("nblab", "dashboard")
             for rel, path in _outside_models(f"{folder}/**/*.js") if (hits := js_name_comparisons(path, MODELS))}
    assert found == {}


def test_the_readers_see_a_comparison(tmp_path):
    """The scanners themselves: ==, in a tuple, and === on either side count; a subscript does not."""
    py = tmp_path / "a.py"
    py.write_text('if m == "bernoulli":\n    pass\nok = d["bernoulli"]\nif m in ("x", "gaussian"):\n    pass\n')
    assert python_name_comparisons(py, {"bernoulli", "gaussian"}) == [1, 4]
    js = tmp_path / "a.js"
    js.write_text('if (model === "bernoulli") x();\nconst y = MODELS["bernoulli"];\nif ("gaussian" !== m) z();\n'
                  'if (["x", "gaussian"].includes(m)) z();\nswitch (m) { case "bernoulli": break; }\n'
                  'const names = ["bernoulli"];\n')
    assert js_name_comparisons(js, {"bernoulli", "gaussian"}) == [1, 3, 4, 5]


def test_nbcore_names_the_kinds_the_models_are_made_for():
    """Every registered model's first data kind is one nbcore's data sets have."""
    assert {cls.data_kinds[0] for cls in MODELS.values()} <= set(nbcore.dataset.KINDS)
