"""The metrics row and the player name the same iteration and print the same accuracy."""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


def _json_data(raw: str):
    """A component's data: the lesson player sends it as one JSON text (a JSON string holding JSON)."""
    d = json.loads(raw)
    return json.loads(d) if isinstance(d, str) else d


def _metric(at, label_start: str):
    return next(m for m in at.metric if m.label.startswith(label_start))


def test_scrubbed_back_the_iteration_metric_names_the_iteration_of_the_accuracy_beside_it():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    for _ in range(6):
        at.button(key="step").click().run()
    at.session_state["lesson"].view_t = 2           # what the scrubber (or the player's drag) reports
    at.run()
    assert _metric(at, "Accuracy").label == "Accuracy (t=2)"
    assert int(_metric(at, "Iteration").value) == 2


def test_player_and_metric_print_one_rounding_of_the_accuracy():
    """Ties at a half-tenth of a percent (e.g. 389/400 = 97.25 %) and values a hair below one
    (0.970499…) are where two roundings part: the player's text comes from the server's."""
    from nblab import numbers

    assert numbers.percent(389 / 400) == f"{389 / 400:.1%}"
    assert numbers.percent(0.9704999) == "97.0%" and numbers.percent(float("nan")) is None

    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["player"] = "on"
    at.run()
    at.button(key="step").click().run()
    shown = _metric(at, "Accuracy").value
    main = next(_json_data(e.proto.json) for e in at.get("bidi_component")
                if e.proto.component_name == "nbem_player" and _json_data(e.proto.json)["role"] == "main")
    assert main["acc"][1] == shown and shown.endswith("%")
    run, prep = at.session_state["lesson"].run, at.session_state["lesson"].prep
    hidden = prep.score_mask
    pred = run.predict_proba(t=1).argmax(axis=1)                 # by hand: right / scored at t = 1
    assert shown == f"{(pred[hidden] == prep.y_eval[hidden]).mean():.1%}"


def test_a_dash_always_says_why():
    """No hidden label (0 % hidden): no accuracy, and the delta's place says why and what gives one; with
    every label hidden, no baseline: "no visible label" under each "—" of Naive Bayes."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = "toy_spam"
    at.query_params["hidden"] = "0"
    at.run()
    for label in ("Accuracy", "Supervised only", "Best supervised"):   # every label visible: nothing scored
        m = _metric(at, label)
        assert m.value == "—" and m.proto.delta == "no hidden label to score", (label, m.value, m.proto.delta)
    assert "raise “Labels hidden”" in _metric(at, "Accuracy").proto.help
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = "toy_spam"
    at.query_params["hidden"] = "100"
    at.run()
    for label in ("Supervised only", "Best supervised"):
        m = _metric(at, label)
        assert m.value == "—" and m.proto.delta == "no visible label", (label, m.value, m.proto.delta)
    assert _metric(at, "Accuracy").value.endswith("%")     # every label hidden: all of them scored


def test_the_lambda_zero_warning_asks_to_watch_what_the_page_shows():
    """λ = 0 says to watch the accuracy where there is one; with no hidden label (no accuracy) it names what
    there is to watch instead."""
    def warning(hidden: str) -> str:
        at = AppTest.from_file(APP, default_timeout=120)
        at.query_params.update(dataset="toy_spam", hidden=hidden, lam="0")
        at.run()
        return next(w.value for w in at.warning if w.value.startswith("λ = 0"))
    assert "Watch what happens to the accuracy" in warning("50")
    unscored = warning("0")
    assert "accuracy to watch" in unscored and "log-likelihood" in unscored
    assert "Watch what happens to the accuracy" not in unscored
