"""The lesson against honest baselines: majority class, supervised NB at each λ segment's λ and at the λ
leave-one-out picks on the labelled rows; the headline gain against the best of them; λ changes as new
segments; the α-drift and below-baseline warnings; which event model suits a teacher's upload.

Every figure is recomputed here from nbcore (nblab.outcome runs the lesson's own run outside the app)."""
from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.charts import lesson as lesson_charts
from dashboard.lesson.panels import em_drift
from kit import ROOT
from nblab import advice, numbers
from nblab.defaults import DEFAULTS
from nblab.outcome import lesson_outcome

APP = str(ROOT / "dashboard" / "app.py")


def new_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return at


def metric(at, label: str):
    return next(m for m in at.metric if m.label.startswith(label))


def markdown(at) -> str:
    return " ".join(m.value for m in at.markdown)


def pct(v) -> str:
    return f"{100 * v:.1f}"


# ---- the README's figures ------------------------------------------------------------------------------------

def test_the_readme_quotes_the_default_lesson_and_the_old_one_as_nbcore_computes_them():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    d = lesson_outcome("sms_spam", "bernoulli", DEFAULTS["hidden"], DEFAULTS["lam"])
    gains = [lesson_outcome("sms_spam", "bernoulli", DEFAULTS["hidden"], DEFAULTS["lam"], s).gain for s in range(10)]
    assert f"{DEFAULTS['hidden']} % of the labels hidden (EM sees {d.n_labelled} labelled" in text
    assert f"λ = {DEFAULTS['lam']:g}, Bernoulli NB" in text
    assert f"the majority class ({pct(d.majority)} %)" in text
    assert f"supervised NB at the run's λ ({pct(d.at_lambda)} %)" in text
    assert f"on the {d.n_labelled} labelled messages ({pct(d.cv)} %)" in text
    assert f"EM ends at {pct(d.em)} %" in text and f"**+{100 * d.gain:.1f} points over the best supervised" in text
    assert f"(+{100 * np.mean(gains):.1f} ± {100 * np.std(gains, ddof=1):.1f} over seeds 0–9" in text
    old = lesson_outcome("sms_spam", "bernoulli", 90, 1.0)
    assert f"(90 % hidden, λ = 1: {pct(old.at_lambda)} % → {pct(old.em)} %)" in text
    assert f"supervised NB at λ = {old.cv_lambda:g} already gets {pct(old.cv)} %" in text


# ---- the numbers -------------------------------------------------------------------------------------------

def test_segments_and_the_best_baseline_of_each():
    assert numbers.segments([1.0, 1.0, 1.0, 0.1, 0.1, 10.0]) == [(0, 2, 1.0), (3, 4, 0.1), (5, 5, 10.0)]
    sup = {1.0: 0.877, 0.1: 0.979, 10.0: 0.866}
    ref = numbers.reference(0.866, "ham", 0.03, 0.981, "leave-one-out", 557, [1.0, 1.0, 1.0, 0.1, 0.1, 10.0],
                            sup.get)
    assert ref.best(0) == ("supervised NB at λ = 0.03, chosen by leave-one-out on the 557 labelled", 0.981)
    assert [s[3] for s in ref.segments] == [0.877, 0.979, 0.866]
    ref2 = numbers.reference(0.866, "ham", 0.03, 0.95, "leave-one-out", 557, [1.0, 0.1], sup.get)
    assert ref2.best(0)[1] == 0.95 and ref2.best(1) == ("supervised NB at λ = 0.1", 0.979)  # like with like
    acc = numbers.with_refs([0.877, 0.96], ref2.refs(2))
    assert numbers.delta_text(acc[0], 0.5) == "-7.3 pts vs best supervised"   # its own segment's best
    assert numbers.delta_text(acc[1], 0.5) == "-1.9 pts vs best supervised"
    assert numbers.delta_text(0.868, 0.868) == "±0.0 pts vs supervised"         # a plain float: as before
    assert numbers.delta_color(numbers.Scored(0.95, 0.95), 0.5) == "off"


def test_the_gain_sentence_says_plainly_when_it_is_small_or_negative():
    best = ("supervised NB at λ = 0.03", 0.981)
    assert "**+0.1 pts**" in numbers.gain_sentence(0.982, best) and "**small** gain" in numbers.gain_sentence(0.982, best)
    assert "*below* it" in numbers.gain_sentence(0.979, best)
    big = numbers.gain_sentence(0.97, ("majority class (ham)", 0.866))
    assert "**+10.4 pts**" in big and "what the unlabelled documents add" in big
    assert numbers.gain_sentence(float("nan"), best) is None and numbers.gain_sentence(0.9, None) is None


def test_alpha_drift_is_measured_against_the_labelled_share_and_its_sampling_error():
    y_obs = np.r_[np.zeros(100, int), np.ones(90, int), np.full(1000, -1)]   # labelled share 0.53 / 0.47
    assert advice.alpha_drift([0.55, 0.45], y_obs, 2) == []
    far = advice.alpha_drift([0.84, 0.16], y_obs, 2)
    assert [d.k for d in far] == [0, 1] and far[1].share == pytest.approx(90 / 190)
    assert far[0].allowed == pytest.approx(max(0.10, 3 * np.sqrt(0.526 * 0.474 / 190)), abs=1e-3)
    few = np.r_[np.zeros(6, int), np.ones(4, int), np.full(100, -1)]          # 10 labels: ±0.46 is sampling
    assert advice.alpha_drift([0.84, 0.16], few, 2) == []


def _frame(alpha_t, y_obs, acc, best, done=False, t=2, model="bernoulli", text=True):
    hist = [SimpleNamespace(alpha=np.array([0.5, 0.5])) for _ in range(t + 1)]
    hist[t] = SimpleNamespace(alpha=np.asarray(alpha_t))
    ref = SimpleNamespace(best=lambda _t: best)
    return SimpleNamespace(
        t=t, latest=t, run=SimpleNamespace(history=hist, done=done), acc=acc, ref=ref, playing=False,
        cfg=SimpleNamespace(model=model),
        prep=SimpleNamespace(y_obs=y_obs, n_classes=2, class_names=["ham", "spam"],
                             ds=SimpleNamespace(is_text=text)))


def test_the_drift_and_below_warnings_say_what_they_measured():
    y_obs = np.r_[np.zeros(100, int), np.ones(90, int), np.full(1000, -1)]
    f = _frame([0.84, 0.16], y_obs, [0.9, 0.8, 0.6], ("supervised NB at λ = 0.01", 0.88))
    text = em_drift.drift_text(f)
    assert "α(spam) is **16.0%** at t = 2, but **47.4%** of the 190 labelled documents are spam" in text
    assert "Try the multinomial model" in text                 # Bernoulli on text: the other model's hint
    assert em_drift.drift_text(_frame([0.84, 0.16], y_obs, [0.9] * 3, None, model="multinomial")).find(
        "Try the multinomial") < 0
    assert em_drift.drift_text(_frame([0.55, 0.45], y_obs, [0.9] * 3, None)) is None
    below = em_drift.below_text(f)
    assert "At t = 2 EM is **28.0 pts below** the best supervised baseline" in below and "88.0%" in below
    assert em_drift.below_text(_frame([0.5, 0.5], y_obs, [0.9, 0.9, 0.87], ("x", 0.88))) is None   # within 2 pts
    assert em_drift.below_text(_frame([0.5, 0.5], y_obs, [0.9, 0.9, 0.6], ("x", 0.88), done=True)) is None


# ---- the charts ---------------------------------------------------------------------------------------------

def test_the_accuracy_chart_names_every_baseline_and_steps_at_a_lambda_change():
    sup = {1.0: 0.877, 0.1: 0.979}
    ref = numbers.reference(0.866, "ham", 0.03, 0.981, "leave-one-out", 557, [1.0] * 4 + [0.1] * 3, sup.get)
    spec = lesson_charts.accuracy_figure([0.877, 0.93, 0.95, 0.96, 0.975, 0.979, 0.98], None, 3, ref=ref)
    names = [d["name"] for d in spec["data"]]
    assert names == ["EM", "NB at each segment's λ", "NB at λ = 0.03 (leave-one-out): 98.1%", "majority class: 86.6%"]
    seg = spec["data"][1]
    assert seg["x"] == [-0.5, 3.5, None, 3.5, 6.5] and seg["y"] == [0.877, 0.877, None, 0.979, 0.979]
    assert {a["text"] for a in spec["layout"]["annotations"]} == {"λ=1: 87.7%", "λ=0.1: 97.9%"}
    one = numbers.reference(0.866, "ham", 0.03, 0.981, "leave-one-out", 557, [1.0] * 3, sup.get)
    assert lesson_charts.accuracy_figure([0.9] * 3, None, ref=one)["data"][1]["name"] == "NB at λ = 1: 87.7%"


def test_the_objective_is_one_piece_per_lambda_and_never_claims_to_climb_across_a_change():
    spec = lesson_charts.likelihood_figure([-5, -4, -3, -3.5], [-6, -5, -4, -8], [1.0, 1.0, 1.0, 10.0])
    ob = spec["data"][0]
    assert ob["x"] == [0, 1, 2, None, 3] and ob["y"][3] is None
    texts = [a["text"] for a in spec["layout"]["annotations"]]
    assert "MAP objective (climbs within each λ)" in texts and "λ→10" in texts
    assert "⚠ objective went DOWN" not in texts                    # −4 → −8 is another objective
    same = lesson_charts.likelihood_figure([-5, -4], [-6, -5], [1.0, 1.0])
    assert "MAP objective (never goes down)" in [a["text"] for a in same["layout"]["annotations"]]


# ---- the lesson view -----------------------------------------------------------------------------------------

def test_the_default_lesson_headline_is_em_against_the_best_supervised_baseline():
    at = new_app(player="off")
    d = lesson_outcome("sms_spam", "bernoulli", DEFAULTS["hidden"], DEFAULTS["lam"])
    assert metric(at, "Supervised only").value == f"{d.at_lambda:.1%}"
    assert metric(at, "Best supervised").value == f"{d.best:.1%}"
    assert re.sub(r"\\(.)", r"\1", metric(at, "Best supervised").help).startswith(   # escaped Markdown, read back
        f"The best of: majority class (ham): {d.majority:.1%}; supervised NB at λ = {DEFAULTS['lam']:g}: "
        f"{d.at_lambda:.1%}; supervised NB at λ = {d.cv_lambda:g}, chosen by leave-one-out")
    assert "gain" not in markdown(at)                                  # t = 0 is the supervised fit itself
    click(at, "converge")
    acc = metric(at, "Accuracy (t=")
    assert acc.value == f"{d.em:.1%}" and acc.delta == f"{100 * (d.em - d.best):+.1f} pts vs best supervised"
    assert f"EM against the best supervised baseline, supervised NB at λ = {d.cv_lambda:g}" in markdown(at)
    assert f"**{100 * d.gain:+.1f} pts**" in markdown(at) and "what the unlabelled documents add" in markdown(at)
    assert not at.warning                                              # no drift, not below, nothing emptied


def test_a_lambda_change_mid_run_is_a_new_segment_and_the_pill_compares_like_with_like():
    at = new_app(dataset="sms_spam", hidden="90", lam="1", player="off")
    for _ in range(3):
        click(at, "step")
    pill_t3 = metric(at, "Accuracy (t=").delta
    old = lesson_outcome("sms_spam", "bernoulli", 90, 1.0)
    at.select_slider(key="lam").set_value(0.1).run()
    click(at, "step")
    lr = at.session_state["lesson"]
    assert [s.smoothing for s in lr.run.history] == [1.0, 1.0, 1.0, 1.0, 0.1]
    new = lesson_outcome("sms_spam", "bernoulli", 90, 0.1)
    assert metric(at, "Supervised only").value == f"{new.at_lambda:.1%}"     # t = 4: the λ = 0.1 segment
    scrub = next(s for s in at.slider if s.label == "Show iteration")
    scrub.set_value(3).run()
    assert metric(at, "Supervised only").value == f"{old.at_lambda:.1%}"     # t = 3: still λ = 1's
    assert metric(at, "Accuracy (t=").delta == pill_t3                        # history is not rewritten


# ---- a teacher's upload: short comments ---------------------------------------------------------------------

def youtube_csv(n=600, seed=0) -> bytes:
    """Short YouTube-style comments (ID, author and date columns, a 0/1 CLASS): spam pushes a channel or a
    link, ham talks about the song; about 47 % spam, a handful of words each."""
    rng = np.random.default_rng(seed)
    spam_core = ["check out my channel", "subscribe to my channel", "please subscribe", "visit my website",
                 "free gift cards here", "click this link", "make money online fast", "check my new video",
                 "subscribe and i will subscribe back", "go to my page"]
    ham_core = ["love this song", "this song is amazing", "who is still watching in 2015", "best song ever",
                "her voice is beautiful", "this video is so funny", "i love her", "the beat is great",
                "watching this every day", "so many views wow"]
    filler = ["lol", "omg", "guys", "please", "really", "so", "much", "it", "you", "the", "my", "a", "and",
              "now", "everyone", "haha", "yes", "wow", "cool", "nice", "song", "video", "channel"]
    rare = [f"w{j}" for j in range(400)]  # names, typos, other words: a long tail, most seen once or twice
    rows = ["COMMENT_ID,AUTHOR,DATE,CONTENT,CLASS"]
    for i in range(n):
        spam = rng.random() < 0.47
        words = (spam_core if spam else ham_core)[rng.integers(10)].split()
        if spam and rng.random() < 0.3:   # "love this song, check out my channel": spam that flatters first
            words = ham_core[rng.integers(10)].split() + words
        words += list(rng.choice(filler, rng.integers(0, 4)))
        words += [rare[min(int(rng.zipf(1.3)), 400) - 1] for _ in range(rng.integers(0, 4))]
        if spam and rng.random() < 0.5:
            words += ["subscribe"] * int(rng.integers(1, 3))
        rows.append(f"c{i},user{i % 97},2015-0{1 + i % 9}-1{i % 9},\"{' '.join(words)}\",{int(spam)}")
    return ("\n".join(rows) + "\n").encode()


def test_an_upload_of_short_comments_gets_model_advice_and_the_other_model_in_one_click():
    at = new_app(player="off", hidden="90")
    at.session_state["pending_upload"] = ("youtube_spam.csv", youtube_csv())
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    lr = at.session_state["lesson"]
    assert lr.cfg.dataset == "upload" and lr.cfg.model == "bernoulli"
    adv = advice.model_advice(lr.prep.ds, lr.prep.y_obs, "bernoulli")
    text = markdown(at)
    assert "Which event model suits your data?" in text
    assert (f"Leave-one-out on the {adv.n_labelled:,} labelled documents" in text
            and f"**Bernoulli {adv.current.accuracy:.1%}** (λ = {adv.current.lam:g})" in text
            and f"**multinomial {adv.other.accuracy:.1%}** (λ = {adv.other.lam:g})" in text)
    assert adv.median_words <= advice.SHORT_TEXT and "The documents are short: a median of" in text
    assert f"from a vocabulary of {adv.vocabulary:,}" in text and "words it *lacks*" in text
    verdict = {None: "about as good", "bernoulli": "The **Bernoulli** model you use suits",
               "multinomial": "The **multinomial** model suits"}[None if adv.better is None else adv.better.model]
    assert verdict in text
    button = at.button(key="advice_other_model")
    assert button.label == "Use the multinomial model (word counts) on the same data"
    button.click().run()
    assert not at.exception, at.exception
    lr = at.session_state["lesson"]
    assert lr.cfg.model == "multinomial" and lr.cfg.text.binary is False     # counts follow the model
    assert at.button(key="advice_other_model").label == "Use the Bernoulli model (presence) on the same data"
    assert re.search(r"\*\*multinomial [\d.]+%\*\*", markdown(at))


def test_shipped_data_get_no_model_advice():
    at = new_app(player="off")
    assert "Which event model suits your data?" not in markdown(at)


# ---- the side-by-side and label-budget pages -----------------------------------------------------------------

def open_view(page: str, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(f"views/{page}.py")
    at.run()
    assert not at.exception, at.exception
    return at


def test_side_by_side_draws_and_names_every_baseline():
    import nbcore
    from kit.apptest import chart_with
    from nbcore import baselines
    from nblab.outcome import CV_LAMBDAS
    at = open_view("side_by_side", sbs_dataset="synthetic_spam")   # it would open on the lesson's sms_spam
    at.button(key="sbs_conv").click().run()
    assert not at.exception, at.exception
    ds = nbcore.load_dataset("synthetic_spam")
    y_obs = np.asarray(nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)[0])
    y_eval = np.asarray(ds.y_true if getattr(ds, "y_true", None) is not None else ds.y)
    b = baselines.baselines("bernoulli", ds.for_model("bernoulli"), y_obs, y_eval, ds.n_classes, (0.01, 1.0),
                            CV_LAMBDAS)
    spec = chart_with(at, "majority class")
    names = [d.get("name") for d in spec["data"]]
    for want in (f"majority class: {b.majority:.1%}", f"NB at λ = 0.01: {b.at_lambda[0.01]:.1%}",
                 f"NB at λ = 1: {b.at_lambda[1.0]:.1%}", f"NB at λ = {b.cv_lambda:g} (leave-one-out): {b.cv:.1%}"):
        assert want in names, (want, names)
    assert sum("EM against the best supervised baseline" in m for m in markdown(at).split("Run ")) == 2


def test_the_label_budget_curve_carries_the_other_baselines():
    import nbcore
    from nbcore import baselines
    ds = nbcore.load_dataset("synthetic_spam")
    X, y = ds.for_model("bernoulli"), np.asarray(ds.y)
    rows = nbcore.label_budget_curve("bernoulli", X, y, [4, 32], [0], 2, max_iter=20)
    for r in rows:
        rng = np.random.default_rng(0)  # the rows label_budget_curve labels (one per class first)
        order = rng.permutation(len(y))
        first = [order[y[order] == k][0] for k in range(2)]
        rest = [i for i in order if i not in set(first)][: r["n_labelled"] - 2]
        y_obs = np.full(len(y), -1)
        y_obs[first + rest] = y[first + rest]
        assert r["cv_lambda"] == baselines.choose_smoothing("bernoulli", X, y_obs, 2)
        assert r["acc_supervised_cv"] == baselines.supervised_accuracy("bernoulli", X, y_obs, y, 2, r["cv_lambda"])
        assert r["acc_majority"] == baselines.majority_accuracy(y_obs, y, 2)
    at = open_view("budget")
    at.button(key="lb_go").click().run()
    assert not at.exception, at.exception
    from kit.apptest import chart_with
    spec = chart_with(at, "supervised NB, λ by leave-one-out")
    assert "majority class" in [d.get("name") for d in spec["data"]]
    assert "**Against the best supervised baseline**" in markdown(at)


def test_the_label_budget_headline_is_against_the_best_supervised_baseline():
    """The page's large numbers compare EM with the best supervised baseline of each run (supervised NB at the
    run's λ, at the leave-one-out λ, the majority class), computed here from the page's own rows."""
    at = open_view("budget")
    at.button(key="lb_go").click().run()
    assert not at.exception, at.exception
    rows = at.session_state["lb"].value
    ns = sorted({r["n_labelled"] for r in rows})

    def gain(n):
        rs = [r for r in rows if r["n_labelled"] == n]
        best = np.mean([max(r["acc_supervised"], r["acc_supervised_cv"], r["acc_majority"]) for r in rs])
        return np.mean([r["acc_em"] for r in rs]) - best

    metrics = {m.label: m for m in at.metric}
    first, last = metrics[f"EM with {ns[0]} labels"], metrics[f"EM with {ns[-1]} labels"]
    assert first.delta == f"{gain(ns[0]) * 100:+.1f} pts vs best supervised"
    assert last.delta == f"{gain(ns[-1]) * 100:+.1f} pts vs best supervised"
    top = max(ns, key=gain)
    assert metrics["Biggest gain"].value == f"{gain(top) * 100:+.1f} pts"
    assert metrics["Biggest gain"].delta == f"at {top} labels, vs best supervised"
