"""The teaching pages and lesson panels under streamlit.testing: every number checked against a reference written here
(hand calculation, loops over documents, scipy / scikit-learn as oracles, or a published example)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from streamlit.testing.v1 import AppTest

import nbcore
from kit import ROOT
from kit.apptest import chart_with, guided_narrative

APP = str(ROOT / "dashboard" / "app.py")


def open_view(page: str, timeout: int = 60, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(f"views/{page}.py")
    at.run()
    assert not at.exception, at.exception
    return at


def ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def text(at: AppTest) -> str:
    return " ".join(e.value for kind in ("markdown", "info", "warning", "success", "error", "caption")
                    for e in getattr(at, kind))


# ---- the coin ------------------------------------------------------------------------------------

def test_coin_mle_map_and_lambda_as_beta_prior():
    at = open_view("coin", coin_source="typed", coin_flips="HHTH", coin_lam="0")
    # the lecture: 3 heads, 1 tail: θ_MLE = 3/4; λ = 0 is Beta(1, 1) (flat) so θ_MAP = θ_MLE
    assert metric(at, "Heads α_H") == "3" and metric(at, "Tails α_T") == "1"
    assert metric(at, "θ_MLE") == "0.7500" and metric(at, "θ_MAP") == "0.7500"
    ok(at.select_slider(key="coin_lam").set_value(1.0).run())
    assert metric(at, "θ_MAP") == f"{(3 + 1) / (4 + 2):.4f}"            # (α_H + λ) / (N + 2λ)
    table = at.dataframe[0].value
    # the lab's Bernoulli NB engine with λ gives the same β as the Beta(λ+1, λ+1) MAP formula
    np.testing.assert_allclose(table["θ_MAP = (α_H + λ)/(N + 2λ)"], table["lab engine β (Bernoulli NB, λ)"])
    assert list(table["prior"]) == ["Beta(2, 2)", "Beta(1, 1)", "Beta(11, 11)"]
    ok(at.radio(key="coin_prior").set_value("beta").run())
    ok(at.number_input(key="coin_a").set_value(2.0).run())
    ok(at.number_input(key="coin_b").set_value(5.0).run())
    assert metric(at, "θ_MAP") == f"{(3 + 2 - 1) / (4 + 2 + 5 - 2):.4f}"  # mode of Beta(5, 6) = 4/9
    # the posterior is Beta(α_H + a, α_T + b): its mode is the MAP
    assert abs(stats.beta(5, 6).pdf(4 / 9) - max(stats.beta(5, 6).pdf(np.linspace(0, 1, 2001)))) < 1e-3


def test_coin_bad_flips_keep_the_last_good_ones():
    at = open_view("coin", coin_source="typed", coin_flips="HHTH")
    ok(at.text_input(key="coin_flips").set_value("HHXT").run())
    assert any("H and T only" in e.value for e in at.error)
    assert metric(at, "Heads α_H") == "3"  # the previous flips are still used


def test_two_coins_reproduce_do_and_batzoglou():
    at = open_view("coin")
    # Do & Batzoglou (2008), fig. 1: after one iteration θ_A ≈ 0.71, θ_B ≈ 0.58; responsibilities
    # of coin A 0.45, 0.80, 0.73, 0.35, 0.65; expected counts A: 21.3 H, 8.6 T; B: 11.7 H, 8.4 T
    # the two-coin table, drawn as tables that fit the page (figures.show_table), each led by its set column
    table = pd.concat([d.value.set_index("set") for d in at.dataframe if "set" in d.value.columns], axis=1)
    np.testing.assert_allclose(table["r(A)"].round(2), [0.45, 0.80, 0.73, 0.35, 0.65])
    assert table["A: ≈ heads"].sum() == pytest.approx(21.3, abs=0.05)
    assert table["A: ≈ tails"].sum() == pytest.approx(8.6, abs=0.05)
    assert table["B: ≈ heads"].sum() == pytest.approx(11.7, abs=0.05)
    assert table["B: ≈ tails"].sum() == pytest.approx(8.4, abs=0.05)
    t = text(at)
    assert "= **0.7130**" in t and "= **0.5813**" in t
    ok(at.slider(key="coin_t").set_value(10).run())
    md = text(at)
    # after 10 iterations: θ_A ≈ 0.80, θ_B ≈ 0.52
    th = [float(v) for v in __import__("re").findall(r"= \*\*(0\.\d{4})\*\*", md)[:2]]
    assert round(th[0], 2) == 0.80 and round(th[1], 2) == 0.52


# ---- the 2-D picture --------------------------------------------------------------------------------

def reference_gaussian(X, w, floor=0.05):
    """Weighted mean and variance per class (M-step with a variance floor), by hand."""
    mean = (X.T @ w) / w.sum(axis=0)
    var = np.stack([(w[:, k] @ (X - mean[:, k]) ** 2) / w[:, k].sum() for k in range(w.shape[1])], axis=1)
    return w.sum(axis=0) / w.sum(), mean, np.maximum(var, floor)


def reference_resp(X, alpha, mean, var):
    p = np.stack([alpha[k] * stats.norm(mean[0, k], np.sqrt(var[0, k])).pdf(X[:, 0])
                  * stats.norm(mean[1, k], np.sqrt(var[1, k])).pdf(X[:, 1]) for k in range(len(alpha))], axis=1)
    return p / p.sum(axis=1, keepdims=True)


def test_mixture2d_half_steps_match_a_hand_written_gaussian_em():
    at = open_view("mixture2d", mx_preset="unequal sizes")
    X0, y_true, y_obs = nbcore.mixture2d.preset("unequal sizes", 0)
    X = X0.round(2)  # the page's points (as shown in its editor)
    lab = y_obs >= 0
    w0 = np.zeros((len(X), 2))
    w0[lab, y_obs[lab]] = 1.0
    alpha, mean, var = reference_gaussian(X, w0)   # θ_0: from the labelled points
    assert metric(at, "α (A, B)") == f"{alpha[0]:.2f}, {alpha[1]:.2f}"
    ok(at.button(key="mx_btn_e").click().run())     # E-step: colours change, parameters don't
    r = reference_resp(X, alpha, mean, var)
    r[lab] = np.eye(2)[y_obs[lab]]
    hid = ~lab
    assert metric(at, "EM accuracy (hidden)") == f"{np.mean(r[hid].argmax(1) == y_true[hid]):.1%}"
    assert metric(at, "α (A, B)") == f"{alpha[0]:.2f}, {alpha[1]:.2f}"
    # k-means at t = 0: nearest starting centre (the labelled means)
    d = ((X[:, None, :] - mean.T[None]) ** 2).sum(axis=2)
    assert metric(at, "k-means accuracy (hidden)") == f"{np.mean(d.argmin(1)[hid] == y_true[hid]):.1%}"
    ok(at.button(key="mx_btn_m").click().run())     # M-step: θ_1 from r
    alpha1, mean1, var1 = reference_gaussian(X, r)
    assert metric(at, "α (A, B)") == f"{alpha1[0]:.2f}, {alpha1[1]:.2f}"
    params = at.dataframe[-1].value if len(at.dataframe) else None
    np.testing.assert_allclose(params["μ₁"], mean1[0], atol=1e-9)
    np.testing.assert_allclose(params["σ₂²"], var1[1], atol=1e-9)
    # log-likelihood of θ_1 by hand
    ll = sum(math.log(alpha1[y_obs[i]] * stats.norm(mean1[0, y_obs[i]], math.sqrt(var1[0, y_obs[i]])).pdf(X[i, 0])
                      * stats.norm(mean1[1, y_obs[i]], math.sqrt(var1[1, y_obs[i]])).pdf(X[i, 1])) if lab[i] else
             math.log(sum(alpha1[k] * stats.norm(mean1[0, k], math.sqrt(var1[0, k])).pdf(X[i, 0])
                          * stats.norm(mean1[1, k], math.sqrt(var1[1, k])).pdf(X[i, 1]) for k in range(2)))
             for i in range(len(X)))
    assert metric(at, "log-likelihood of θ_t") == f"{ll:.3f}"
    assert at.button(key="mx_btn_m").disabled and not at.button(key="mx_btn_e").disabled  # next: an E-step


def test_mixture2d_m_step_needs_an_e_step_and_reset():
    at = open_view("mixture2d", mx_preset="overlapping")
    assert at.button(key="mx_btn_m").disabled            # no E-step yet
    ok(at.button(key="mx_btn_10").click().run())
    assert "t = 10" in text(at)
    ok(at.button(key="mx_btn_reset").click().run())
    assert "t = 0" in text(at)


# ---- why EM climbs ----------------------------------------------------------------------------------

def _bern_joint(X, alpha, beta):
    return np.array([[math.log(alpha[k]) + sum(math.log(beta[j, k] if X[i, j] else 1 - beta[j, k])
                                               for j in range(X.shape[1])) for k in range(len(alpha))]
                     for i in range(X.shape[0])])


def test_climb_view_numbers_by_loops_on_the_toy_table():
    at = open_view("climb", cl_dataset="toy_spam")
    ds = nbcore.load_dataset("toy_spam")
    X = np.asarray(ds.for_model("bernoulli"))
    y, _ = nbcore.hide_labels(ds.y, fraction=0.5, random_state=0)
    y = np.asarray(y)
    lam = 1.0
    theta0 = nbcore.EM(n_classes=2, smoothing=lam, init="random", random_state=0).start(X, y).current  # the start
    a0, b0 = np.asarray(theta0.alpha), np.asarray(theta0.beta)

    def objective(alpha, beta):
        J = _bern_joint(X, alpha, beta)
        ll = sum(J[i, y[i]] if y[i] >= 0 else math.log(np.exp(J[i]).sum()) for i in range(len(y)))
        return ll + lam * float(np.sum(np.log(beta) + np.log(1 - beta)))

    L0 = objective(a0, b0)
    assert metric(at, "L(θ_0)") == f"{L0:.4f}"
    ok(at.button(key="cl_btn_e").click().run())
    assert metric(at, "bound at θ_0") == f"{L0:.4f}"           # tight after the E-step
    J0 = _bern_joint(X, a0, b0)
    q = np.exp(J0 - J0.max(1, keepdims=True))
    q /= q.sum(1, keepdims=True)
    q[y >= 0] = np.eye(2)[y[y >= 0]]
    a1 = q.sum(0) / q.sum()
    b1 = (lam + X.T @ q) / (2 * lam + q.sum(0))
    J1 = _bern_joint(X, a1, b1)
    with np.errstate(divide="ignore", invalid="ignore"):
        F1 = float(np.sum(np.where(q > 0, q * (J1 - np.log(q)), 0.0))) + lam * float(np.sum(np.log(b1) + np.log(1 - b1)))
    assert metric(at, "bound at θ_1 (after the M-step)") == f"{F1:.4f}"
    assert metric(at, "L(θ_1)") == f"{objective(a1, b1):.4f}"
    assert F1 >= L0 and objective(a1, b1) >= F1
    ok(at.button(key="cl_btn_m").click().run())
    assert metric(at, "L(θ_1)") == f"{objective(a1, b1):.4f}"
    assert len(at.get("plotly_chart")) == 2


def test_climb_view_on_abcd_runs_several_steps():
    at = open_view("climb", cl_dataset="abcd")
    at.session_state["cl_iter_table"] = True  # what opening "Every iteration so far" in the browser sends
    ok(at.button(key="cl_btn_5").click().run())
    assert "t = 5" in text(at)
    table = at.dataframe[0].value
    assert (table["M-step gain"] >= -1e-9).all() and (table["KL gap at θ_t+1"] >= -1e-9).all()
    np.testing.assert_allclose(table["L(θ_t+1)"] - table["L(θ_t)"], table["M-step gain"] + table["KL gap at θ_t+1"],
                               atol=1e-9)


# ---- components per class -----------------------------------------------------------------------------

def test_components_view_digits_against_sklearn_and_the_issue_numbers():
    from sklearn.naive_bayes import BernoulliNB

    at = open_view("components", timeout=240, cp_seeds="2")
    assert "Press **Run the comparison**" in text(at)
    ok(at.button(key="cp_run").click().run())
    table = at.dataframe[0].value
    ds = nbcore.load_dataset("digits")
    X, y = np.asarray(ds.for_model("bernoulli")), np.asarray(ds.y)
    for j, seed in enumerate(table["seed"]):
        y_obs, _ = nbcore.hide_labels(y, fraction=0.95, random_state=int(seed))
        y_obs = np.asarray(y_obs)
        lab, hid = y_obs >= 0, y_obs < 0
        sk = BernoulliNB(alpha=1.0, binarize=None).fit(X[lab], y_obs[lab])  # λ = 1 is sklearn's alpha = 1
        assert table["supervised NB"][j] == pytest.approx(np.mean(sk.predict(X[hid]) == y[hid]), abs=1e-12)
    # on the lesson's digits setting (seed 0) supervised NB 81.9 %, EM 77.5 %
    assert round(table["supervised NB"][0], 3) == 0.819 and round(table["EM, m = 1"][0], 3) == 0.775
    assert table["EM, m = 3"].mean() > table["supervised NB"].mean()
    assert "m = 3" in " ".join(e.value for e in at.success)
    assert len(at.get("plotly_chart")) == 2  # the comparison and the component pictures


# ---- the lesson view: half-steps, responsibilities, stop rules ------------------------------------------

SYNTHETIC = dict(dataset="synthetic_spam", hidden="90", lam="1", init="labeled", seed="0")


def open_lesson(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    return ok(at)


def test_lesson_half_steps_and_every_responsibility_on_the_toy_table():
    at = open_lesson(dataset="toy_spam", hidden="50", lam="1", init="labeled", seed="0")
    ds = nbcore.load_dataset("toy_spam")
    X = np.asarray(ds.for_model("bernoulli"))
    y_true = np.asarray(ds.y)
    y, _ = nbcore.hide_labels(y_true, fraction=0.5, random_state=0)
    y = np.asarray(y)
    lab = y >= 0
    # θ_0 by counting the labelled rows (λ = 1): α_k = N_k / N_lab, β = (1 + count) / (2 + N_k)
    n_k = np.array([np.sum(y == k) for k in range(2)], dtype=float)
    a0 = n_k / n_k.sum()
    b0 = np.stack([(1 + X[y == k].sum(0)) / (2 + n_k[k]) for k in range(2)], axis=1)
    J = _bern_joint(X, a0, b0)
    r = np.exp(J - J.max(1, keepdims=True))
    r /= r.sum(1, keepdims=True)
    r[lab] = np.eye(2)[y[lab]]
    assert at.button(key="m_step").disabled and not at.button(key="e_step").disabled
    ok(at.button(key="e_step").click().run())
    run = at.session_state["lesson"].run
    assert run.pending is not None and run.iteration == 0          # parameters not yet updated
    assert at.button(key="m_step").disabled is False and at.button(key="e_step").disabled
    assert "Between the half-steps at t = 0" in text(at)
    table = next(d.value for d in at.dataframe if "r(spam)" in d.value.columns)
    assert list(table["doc"]) == list(range(6))                     # a small set: every document
    np.testing.assert_allclose(table[["r(ham)", "r(spam)"]].to_numpy(), r, atol=1e-12)
    assert list(table["label EM sees"] == "hidden") == list(~lab)
    ok(at.button(key="m_step").click().run())
    run = at.session_state["lesson"].run
    assert run.iteration == 1 and run.pending is None
    np.testing.assert_allclose(run.current.alpha, r.sum(0) / 6, atol=1e-12)                  # eq. 23
    np.testing.assert_allclose(run.current.beta, (1 + X.T @ r) / (2 + r.sum(0)), atol=1e-12)  # eq. 24
    assert metric(at, "Iteration") == "1"


def test_lesson_stop_rule_numbers_are_the_issue_s_0_1358_and_0_2697():
    at = open_lesson(**SYNTHETIC)  # synthetic_spam, 90 % hidden, λ = 1, from the labelled rows, seed 0
    ok(at.button(key="step").click().run())
    assert metric(at, "‖Δθ‖², each parameter once") == "0.1358"
    assert metric(at, "‖Δθ‖², the course session's sum") == "0.2697"
    ok(at.selectbox(key="theta_tol").set_value(1e-3).run())
    ok(at.radio(key="theta_norm").set_value("both_values").run())
    run = at.session_state["lesson"].run
    assert run.settings.theta_tol == 1e-3 and run.settings.theta_norm == "both_values" and run.iteration == 1
    ok(at.button(key="converge").click().run())
    run = at.session_state["lesson"].run
    assert run.stop_reason == "theta" and run.current.delta < 1e-3
    # the rule as the course session writes it, recomputed here: Σ Δα² + Σ_{a ∈ {0,1}} Σ Δθ_a²
    a, b = run.history[-2], run.history[-1]
    by_hand = np.sum((b.alpha - a.alpha) ** 2) + 2 * np.sum((b.beta - a.beta) ** 2)
    assert run.current.delta == pytest.approx(by_hand, rel=1e-12)
    assert "parameters changed less than the tolerance" in text(at)


def test_lesson_large_set_histogram_and_most_uncertain_documents():
    from sklearn.naive_bayes import BernoulliNB

    at = open_lesson(**SYNTHETIC)
    ok(at.button(key="e_step").click().run())
    table = next(d.value for d in at.dataframe if "r(spam)" in d.value.columns)
    assert len(table) == 12
    # oracle: θ_0 is supervised NB on the visible labels with λ = 1 = scikit-learn's alpha = 1
    ds = nbcore.load_dataset("synthetic_spam")
    X, y_true = ds.for_model("bernoulli"), np.asarray(ds.y)
    y, _ = nbcore.hide_labels(y_true, fraction=0.9, random_state=0)
    y = np.asarray(y)
    sk = BernoulliNB(alpha=1.0, binarize=None).fit(X[y >= 0], y[y >= 0])
    p = sk.predict_proba(X)
    hidden = np.flatnonzero(y < 0)
    ent = -(p[hidden] * np.log(p[hidden])).sum(1)
    top = hidden[np.argsort(-ent, kind="stable")][:12]
    assert list(table["doc"]) == list(top)
    np.testing.assert_allclose(table[["r(ham)", "r(spam)"]].to_numpy(), p[top], atol=1e-9)
    assert chart_with(at, "Responsibilities of the hidden")


# ---- PlayTennis in the inspector -------------------------------------------------------------------------

def test_inspector_classifies_a_new_play_tennis_day_with_every_theta():
    at = open_view("inspector", insp_dataset="play_tennis", insp_lam="0")
    # Mitchell's new day <Sunny, Cool, High, Strong>, counted from the 14 days of the lecture (λ = 0):
    no = 5 / 14 * 3 / 5 * 1 / 5 * 4 / 5 * 3 / 5      # 0.0206
    yes = 9 / 14 * 2 / 9 * 3 / 9 * 3 / 9 * 3 / 9    # 0.0053
    assert metric(at, "p(No | day)") == f"{no / (no + yes):.4f}"
    assert metric(at, "p(Yes | day)") == f"{yes / (no + yes):.4f}"
    table = at.dataframe[0].value
    assert list(table["No (count)"])[:5] == ["5/14", "3/5", "1/5", "4/5", "3/5"]
    assert list(table["Yes (count)"])[:5] == ["9/14", "2/9", "3/9", "3/9", "3/9"]
    assert table["No"].iloc[5] == pytest.approx(no) and table["Yes"].iloc[5] == pytest.approx(yes)
    # λ = 1: θ = (1 + count) / (D_j + N_k); Outlook and Temperature have 3 values, Humidity and Wind 2
    ok(at.select_slider(key="insp_lam").set_value(1.0).run())
    no1 = 5 / 14 * (1 + 3) / (3 + 5) * (1 + 1) / (3 + 5) * (1 + 4) / (2 + 5) * (1 + 3) / (2 + 5)
    yes1 = 9 / 14 * (1 + 2) / (3 + 9) * (1 + 3) / (3 + 9) * (1 + 3) / (2 + 9) * (1 + 3) / (2 + 9)
    assert metric(at, "p(No | day)") == f"{no1 / (no1 + yes1):.4f}"
    assert at.dataframe[0].value["No (count)"].iloc[1] == "4/8"
    # another day: Overcast is never a No day → with λ = 0, p(Yes | Overcast, …) = 1
    ok(at.select_slider(key="insp_lam").set_value(0.0).run())
    ok(at.selectbox(key="insp_cat_0").set_value("Overcast").run())
    assert metric(at, "p(Yes | day)") == "1.0000"


def test_guided_lessons_6_to_9_open_the_new_views_with_their_settings():
    from dashboard.lesson import guided as lessons

    for lesson_id, page, n in (("coin", "coin", 6), ("climb", "climb", 7), ("mixture2d", "mixture2d", 8),
                               ("components", "components", 9)):
        at = open_view(page, timeout=120, **lessons.link_params(lessons.BY_ID[lesson_id]))
        assert f"Guided lesson {n}" in guided_narrative(at)
    at = open_view("coin", **lessons.link_params(lessons.BY_ID["coin"]))
    assert metric(at, "θ_MLE") == "0.7500" and metric(at, "θ_MAP") == "0.7500"   # HHTH, λ = 0


def test_two_coin_messages_bad_sets_and_the_symmetric_start():
    at = open_view("coin")
    ok(at.text_area(key="coin_sets").set_value("HHTH\nHTXH").run())
    assert any("H and T only" in e.value for e in at.error)
    assert metric(at, "Heads α_H") == "35"  # part 1 (50 seeded flips, θ = 0.7) is still drawn above the message
    ok(at.text_area(key="coin_sets").set_value("HHTHHTTH\nTTHT").run())
    ok(at.slider(key="coin_ta0").set_value(0.5).run())
    assert any("symmetric trap" in w.value for w in at.warning)
    # θ_A = θ_B = ½: every responsibility is exactly ½
    table = at.dataframe[1].value
    np.testing.assert_allclose(table["r(A)"], 0.5)


def test_components_view_needs_at_least_one_m():
    at = open_view("components")
    ok(at.multiselect(key="cp_ms").set_value([]).run())
    assert any("at least one number of components" in w.value for w in at.warning)


def test_lesson_climb_panel_matches_the_next_step():
    at = open_lesson(dataset="toy_spam", hidden="50", lam="1", init="labeled", seed="0")
    ok(at.button(key="step").click().run())
    # closed (as it starts): nothing of the bound is built or drawn (rerun cost)
    assert not any(m.label.startswith("M-step raises") for m in at.metric)
    at.session_state["climb_open"] = True  # what opening the expander in the browser sends
    ok(at.run())
    before = metric(at, "L(θ_1) = bound after the E-step")
    after = metric(at, "L(θ_2)")
    run = at.session_state["lesson"].run
    assert before == f"{run.current.objective:.4f}"
    ok(at.button(key="step").click().run())
    run = at.session_state["lesson"].run
    assert after == f"{run.current.objective:.4f}"          # the panel predicted the next objective
    assert float(metric(at, "M-step raises the bound by")) >= 0 and float(metric(at, "gap at θ_3 (a KL divergence)")) >= 0


def test_climb_link_settings_arrive_through_the_url():
    at = open_view("climb", cl_dataset="toy_spam", cl_hidden="100", cl_lam="0.1", cl_init="random", cl_seed="3")
    assert at.select_slider(key="cl_hidden").value == 100
    assert at.select_slider(key="cl_lam").value == 0.1
    assert at.number_input(key="cl_seed").value == 3


@pytest.mark.parametrize("page,query", [("mixture2d", {"mx_preset": "stretched"}), ("climb", {"cl_dataset": "abcd"}),
                                        ("coin", {}), ("components", {})])
def test_new_views_in_classroom_mode(page, query):
    at = open_view(page, **query)
    ok(at.toggle(key="classroom").set_value(True).run())
    assert at.toggle(key="classroom").value is True
    assert "font-size: 22px" in " ".join(m.value for m in at.markdown)  # the projector CSS is on
    assert len(at.metric) or page == "components"
