"""The guided lessons say what the app does at the settings their links open.

Every percentage a lesson's text quotes is recomputed here from the lesson's own parameters (or, for a
setting such as "95 % hidden", read from them) and checked at the precision the text shows: supervised
accuracies with scikit-learn, EM end points with nbcore.EM run to convergence outside the app. Lesson
links to the lesson view (the app's root page) must resolve to the root, not to the page showing them.
"""
from __future__ import annotations

import re
import warnings
from functools import cache
from urllib.parse import parse_qs, urljoin, urlsplit

import numpy as np
import pytest
from sklearn.naive_bayes import BernoulliNB, MultinomialNB
from streamlit.testing.v1 import AppTest

import nbcore
from dashboard import pages
from dashboard.lesson import guided as lessons
from kit import ROOT

APP = str(ROOT / "dashboard" / "app.py")
PCT = re.compile(r"(\d+(?:\.\d+)?) %")


def text_of(lesson) -> str:
    return " ".join((lesson.narrative, *lesson.try_this))


def pct(v: float, decimals: int = 1) -> str:
    return f"{100 * v:.{decimals}f}"


# ---- references, from the lesson parameters -------------------------------------------------------

def pipeline(params: dict) -> dict:
    """Text settings of a lesson-view link as nbcore.load_dataset arguments."""
    out = {}
    if "tokens" in params:
        out["tokens"] = {"chars": "char", "words": "word"}[params["tokens"]]
    if "ngram" in params:
        out["ngram_range"] = tuple(int(v) for v in params["ngram"])
    if "counts" in params:
        out["binary"] = params["counts"] == "presence"
    return out


@cache
def lesson_view_run(name: str, hidden: int, model: str, text: tuple = (), lam: float = 1.0):
    """(supervised accuracy, EM accuracy at convergence, log-likelihoods, objectives, V) on the hidden rows,
    the lesson view's defaults otherwise: seed 0, start from the labelled rows, ≤ 100 iterations,
    tol 1e-6 (λ from the lesson's link)."""
    ds = nbcore.load_dataset(name, **dict(text))
    X, y = ds.for_model(model), np.asarray(ds.y)
    y_obs, _ = nbcore.hide_labels(y, fraction=hidden / 100, random_state=0)
    y_obs = np.asarray(y_obs)
    seen, scored = y_obs >= 0, (y_obs < 0) & (y >= 0)
    nb = MultinomialNB(alpha=lam) if model == "multinomial" else BernoulliNB(alpha=lam, binarize=None)
    sup = float(np.mean(nb.fit(X[seen], y_obs[seen]).predict(X[scored]) == y[scored]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = nbcore.EM(model=model, n_classes=ds.n_classes, smoothing=lam, init="labeled", max_iter=100,
                        tol=1e-6, random_state=0).start(X, y_obs)
        while not run.done:
            run.step()
    em = float(np.mean(np.asarray(run.predict_proba()).argmax(axis=1)[scored] == y[scored]))
    ll = [s.log_likelihood for s in run.history]
    obj = [s.objective for s in run.history]
    return sup, em, ll, obj, X.shape[1], ds, y_obs


def view_run(lesson_id: str, **changes):
    p = {**lessons.BY_ID[lesson_id].params, **changes}
    return lesson_view_run(p["dataset"], int(p["hidden"]), p["model"], tuple(sorted(pipeline(p).items())),
                           float(p["lam"]))


def quotes_hide(lesson):
    return {f"{100 - int(lesson.params['hidden'])}": "labels EM sees", "100": "the setting to try"}


def quotes_optima(lesson):
    # the Label switching link opens that page at its defaults: synthetic_spam, no labels, random start
    # with seed 1, λ = 1; "accuracy as labelled" reads cluster k as class k
    (_, page, params), = lesson.also
    assert page == pages.SWITCHING.path and params == {}
    ds = nbcore.load_dataset("synthetic_spam")
    X, y = ds.for_model("bernoulli"), np.asarray(ds.y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = nbcore.EM(model="bernoulli", n_classes=ds.n_classes, smoothing=1.0, init="random", max_iter=200,
                        random_state=1).start(X, np.full(len(y), -1))
        run.run_to_convergence()
    as_labelled = float(np.mean(run.predict() == y))
    return {pct(as_labelled, 0): "accuracy as labelled on Label switching"}


def quotes_components(lesson):
    # the page runs seeds 0-4 (its default) at the link's hidden fraction; supervised NB by scikit-learn,
    # EM with one component per class by nbcore
    hidden = int(lesson.params["cp_hidden"])
    ds = nbcore.load_dataset(lesson.params["cp_dataset"])
    X, y = np.asarray(ds.for_model("bernoulli")), np.asarray(ds.y)
    sup, em = [], []
    for seed in range(5):
        y_obs = np.asarray(nbcore.hide_labels(y, fraction=hidden / 100, random_state=seed)[0])
        lab, hid = y_obs >= 0, y_obs < 0
        sup.append(np.mean(BernoulliNB(alpha=1.0, binarize=None).fit(X[lab], y_obs[lab]).predict(X[hid]) == y[hid]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = nbcore.EM(n_classes=ds.n_classes, smoothing=1.0, init="labeled", random_state=seed,
                            max_iter=200).start(X, y_obs)
            run.run_to_convergence()
        em.append(np.mean(run.predict()[hid] == y[hid]))
    assert np.mean(em) < np.mean(sup)  # "ends *below* supervised Naive Bayes"
    text = text_of(lesson)
    assert f"({pct(np.mean(em))} % vs {pct(np.mean(sup))} % on average over the 5 seeds" in text
    return {str(hidden): "hidden", pct(np.mean(em)): "EM mean", pct(np.mean(sup)): "supervised mean"}


def quotes_sms(lesson):
    # the default lesson (nblab.defaults): the link opens it, and its figures are the app's own run's
    # (nblab.outcome: the lesson run to convergence, nbcore.baselines), supervised checked with scikit-learn
    from nblab.defaults import DEFAULTS
    from nblab.outcome import lesson_outcome
    p = lesson.params
    assert (p["dataset"], int(p["hidden"]), float(p["lam"])) == (DEFAULTS["dataset"], DEFAULTS["hidden"], DEFAULTS["lam"])
    sup, em, *_, ds, y_obs = view_run("sms")
    out = lesson_outcome(p["dataset"], p["model"], int(p["hidden"]), float(p["lam"]))
    assert out.at_lambda == pytest.approx(sup, abs=1e-12) and out.em == pytest.approx(em, abs=1e-12)
    gains = [lesson_outcome(p["dataset"], p["model"], int(p["hidden"]), float(p["lam"]), seed).gain
             for seed in range(10)]
    spam = ds.class_names.index("spam")
    text = text_of(lesson)
    assert f"labels of only {out.n_labelled} of them ({int((y_obs == spam).sum())} spam)" in text
    assert f"alone gets {pct(sup)} %" in text and f"calling everything ham gets {pct(out.majority)} %" in text
    assert f"(leave-one-out) gives {pct(out.cv)} %" in text and out.best == out.cv
    assert f"reads the {out.n_hidden:,} unlabelled messages" in text and f"ends at {pct(em)} %" in text
    assert f"{100 * out.gain:.1f} points above the best supervised baseline" in text
    assert (f"over ten random choices of the {out.n_labelled}: {100 * np.mean(gains):.1f} ± "
            f"{100 * np.std(gains, ddof=1):.1f} points") in text
    return {pct(sup): "supervised", pct(out.majority): "all ham", pct(out.cv): "supervised at the LOO λ",
            pct(em): "EM"}


def quotes_lambda(lesson):
    # the same split at λ = 1 (the link) and λ = 0.1 (its "also" link), supervised and EM; the fair
    # baseline is supervised NB at the λ leave-one-out picks on the labelled rows
    from nblab.outcome import lesson_outcome
    (_, page, params), = lesson.also
    assert page == pages.LESSON.path and {k: v for k, v in params.items() if k != "lam"} == \
        {k: v for k, v in lesson.params.items() if k != "lam"}
    p = lesson.params
    sup1, em1, *_, ds, y_obs = view_run("lambda")
    sup01, em01, *_ = view_run("lambda", lam=params["lam"])
    o1 = lesson_outcome(p["dataset"], p["model"], int(p["hidden"]), float(p["lam"]))
    o01 = lesson_outcome(p["dataset"], p["model"], int(p["hidden"]), float(params["lam"]))
    assert (o1.at_lambda, o1.em, o01.at_lambda, o01.em) == pytest.approx((sup1, em1, sup01, em01), abs=1e-12)
    assert o1.cv_lambda == o01.cv_lambda and o1.cv == o01.cv   # λ chosen on the labelled rows: the same split
    spam = ds.class_names.index("spam")
    text = text_of(lesson)
    assert f"with {o1.n_labelled} labels ({int((y_obs == spam).sum())} spam) and λ = {p['lam']}" in text
    assert f"supervised Naive Bayes gets {pct(sup1)} %, EM {pct(em1)} %" in text
    assert f"set λ = {params['lam']}: supervised Naive Bayes alone gets {pct(sup01)} %, and EM {pct(em01)} %" in text
    assert f"leave-one-out: λ = {o1.cv_lambda:g}, {pct(o1.cv)} %" in text
    signed = lambda g: f"{100 * g:+.1f}".replace("-", "−")  # noqa: E731  (the text's minus sign)
    assert f"EM gains {signed(o1.gain)} points at λ = 1 and {signed(o01.gain)} at λ = 0.1" in text
    assert f"{o1.n_hidden:,} unlabelled messages" in text and f"{ds.X.shape[1]:,} words" in text
    assert abs(o1.em - o1.at_lambda) > 0.09 and abs(o01.gain) < 0.01   # "ten points" that were λ
    return {pct(sup1): "supervised at λ = 1", pct(em1): "EM at λ = 1", pct(sup01): "supervised at λ = 0.1",
            pct(em01): "EM at λ = 0.1", pct(o1.cv): "supervised at the LOO λ"}


def quotes_absent(lesson):
    _, em_b, *_ = view_run("absent")
    (_, page, params), = lesson.also
    assert page == pages.LESSON.path
    sup_m, em_m, *_ = lesson_view_run(params["dataset"], int(params["hidden"]), params["model"],
                                      tuple(sorted(pipeline(params).items())))
    text = text_of(lesson)
    assert f"stays at {pct(em_b)} %" in text and f"goes from {pct(sup_m)} % to {pct(em_m)} %" in text
    return {lesson.params["hidden"]: "hidden", pct(em_b): "Bernoulli EM", pct(sup_m): "multinomial supervised",
            pct(em_m): "multinomial EM"}


def quotes_langid(lesson):
    sup, em, *_ = view_run("langid")
    sup_w, em_w, *_ = view_run("langid", tokens="words")  # Text → features: Tokens switched to words
    text = text_of(lesson)
    assert f"supervised {pct(sup)} %, EM {pct(em)} %" in text
    assert f"with whole words the same run goes {pct(sup_w)} % → {pct(em_w)} %" in text
    return {str(100 - int(lesson.params["hidden"])): "labelled", pct(sup): "supervised", pct(em): "EM",
            pct(sup_w): "supervised, words", pct(em_w): "EM, words"}


def quotes_mismatch(lesson):
    sup, em, ll, obj, V, *_ = view_run("mismatch")
    sup_c, em_c, *_ = view_run("mismatch", counts="counts", model="multinomial")  # counts → multinomial follows
    text = text_of(lesson)
    assert f"{V:,} character n-grams" in text
    assert f"Supervised NB: {pct(sup)} %" in text and f"*falls*, to {pct(em)} %" in text
    assert f"to counts (multinomial follows): supervised {pct(sup_c)} %, EM {pct(em_c)} %" in text
    return {pct(sup): "supervised", pct(em): "EM", pct(sup_c): "supervised, counts", pct(em_c): "EM, counts"}


def quotes_hurts(lesson):
    sup, em, _, obj, V, ds, y_obs = view_run("hurts")
    (_, page, params), = lesson.also
    assert page == pages.LESSON.path
    sup_m, em_m, *_ = lesson_view_run(params["dataset"], int(params["hidden"]), params["model"],
                                      tuple(sorted(pipeline(params).items())))
    y = np.asarray(ds.y)
    all_ham = float(np.mean(y[y_obs < 0] == ds.class_names.index("ham")))
    assert em < min(sup, all_ham) and em_m > sup_m  # EM hurts under Bernoulli, helps under multinomial
    assert all(b >= a - 1e-9 * abs(a) for a, b in zip(obj, obj[1:]))  # "its objective still rises"
    text = text_of(lesson)
    assert f"{V:,} words" in text and f"{int(np.sum(y_obs >= 0)):,} of them labelled" in text
    assert f"gets {pct(sup)} %" in text and f"*falls* to {pct(em)} %" in text and f"({pct(all_ham)} %)" in text
    assert f"go from {pct(sup_m)} % to {pct(em_m)} %" in text
    return {pct(sup): "supervised", pct(em): "EM", pct(all_ham): "all ham", pct(sup_m): "multinomial supervised",
            pct(em_m): "multinomial EM"}


QUOTES = {"hide": quotes_hide, "optima": quotes_optima, "components": quotes_components, "sms": quotes_sms,
          "lambda": quotes_lambda,
          "absent": quotes_absent, "langid": quotes_langid, "mismatch": quotes_mismatch,
          "hurts": quotes_hurts}


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=[lesson.id for lesson in lessons.LESSONS])
def test_every_percentage_a_lesson_quotes_is_what_the_app_gives_at_its_settings(lesson):
    quoted = PCT.findall(text_of(lesson))
    if lesson.id not in QUOTES:
        assert not quoted, f"lesson {lesson.id} quotes {quoted}: add its reference here"
        return
    known = QUOTES[lesson.id](lesson)
    unexplained = [q for q in quoted if q not in known]
    assert not unexplained, (lesson.id, unexplained, known)


def test_lesson_13_says_what_climbs_and_when_the_log_likelihood_dips():
    """EM climbs the MAP objective (log-likelihood + log prior of λ); on this lesson the log-likelihood alone
    falls on some steps, and the text names them as the lesson view's chart marks them (t where L_t < L_t−1)."""
    _, _, ll, obj, *_ = view_run("mismatch")
    assert all(b >= a - 1e-9 * abs(a) for a, b in zip(obj, obj[1:]))          # the objective never falls
    dips = [t for t in range(1, len(ll)) if ll[t] < ll[t - 1]]
    assert dips, "the log-likelihood climbs at every step here"
    text = text_of(lessons.BY_ID["mismatch"])
    assert "log-likelihood climbs at every step" not in text
    m = re.search(r"log-likelihood alone even dips, from t = (\d+) to t = (\d+)", text)
    assert m, text
    assert (int(m.group(1)), int(m.group(2))) == (dips[0], dips[-1])
    assert dips == list(range(dips[0], dips[-1] + 1))  # one stretch, as "from … to …" says


# ---- links to the lesson view ------------------------------------------------------------------------

def open_page(page: str, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def hrefs(at: AppTest) -> list[tuple[str, str]]:
    """(label, href) of every link to a page: st.page_link's href is built as the browser's front end
    builds it (its page field, then "?" and the query string); a Markdown/HTML link gives its own."""
    out = []
    for el in at.get("page_link"):
        p = el.proto
        out.append((p.label, p.page + (("&" if "?" in p.page else "?") + p.query_string if p.query_string else "")))
    for md in at.markdown:
        for h, label in re.findall(r'<a href="([^"]*)"[^>]*>(.*?)</a>', md.value):
            out.append((label, h.replace("&amp;", "&")))
        for label, h in re.findall(r"\[([^\]]*)\]\(([^)\s]*)\)", md.value):
            out.append((label, h))
    return out


def lands_on_root(h: str, shown_at: str) -> dict:
    """Resolve h against the page that shows it, as a browser does; the app root's query, or fail."""
    got = urlsplit(urljoin(shown_at, h))
    root = urlsplit(shown_at).path.rsplit("/", 1)[0] + "/"
    assert got.path == root, (h, shown_at, got.path)
    return parse_qs(got.query)


def as_query(params: dict) -> dict:
    return {k: ([str(x) for x in v] if isinstance(v, list) else [str(v)]) for k, v in params.items()}


def test_guided_page_links_to_the_lesson_view_land_on_the_app_root():
    at = open_page(pages.GUIDED.path)
    links = [(label, h) for label, h in hrefs(at) if "Open" in label]
    assert len(links) == len(lessons.LESSONS)
    to_root = [lesson for lesson in lessons.LESSONS if lesson.page == pages.LESSON.path]
    assert len(to_root) >= 6
    for lesson in to_root:
        want = as_query(lessons.link_params(lesson))
        found = [h for _, h in links if parse_qs(urlsplit(h).query) == want]
        assert len(found) == 1, (lesson.id, links)
        for shown_at in ("http://host/guided", "http://host/base/guided", "https://x.org/a/b/guided?lesson=x"):
            assert lands_on_root(found[0], shown_at) == want


def test_narrative_links_to_the_lesson_view_land_on_the_app_root():
    # lesson 9 on the components page: "Next" opens lesson 10 in the lesson view
    at = open_page(pages.COMPONENTS.path, **lessons.link_params(lessons.BY_ID["components"]))
    nxt = [h for label, h in hrefs(at) if "Next" in label]
    assert len(nxt) == 1, hrefs(at)
    want = as_query(lessons.link_params(lessons.BY_ID["sms"]))
    assert lands_on_root(nxt[0], "http://host/components") == want
    # the other pages' links keep resolving to their own page
    other = [h for label, h in hrefs(at) if "All guided lessons" in label]
    assert len(other) == 1 and urlsplit(urljoin("http://host/base/components", other[0])).path == "/base/guided"


def test_lesson_view_link_is_a_link_and_shows_its_label_literally():
    at = open_page(pages.GUIDED.path)
    body = next(md.value for md in at.markdown if "Supervised Naive Bayes on the toy table" in md.value
                and "<a " in md.value)
    assert 'target="_self"' in body and body.count("<a ") == 1  # same tab, like the other page links


# ---- "Why EM climbs" at t = 0, and the restarts page's wording ------------------------------------------

def _figure_text(at: AppTest, key: str) -> str:
    """Every string of the chart drawn under ``key`` (trace names, texts, annotations, titles)."""
    import json

    el = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key) or key in c.proto.id)
    return json.dumps(json.loads(el.proto.spec), ensure_ascii=False)


def test_climb_start_draws_no_bound_and_no_theta_1_until_the_e_step():
    at = open_page(pages.CLIMB.path, **lessons.link_params(lessons.BY_ID["climb"]))
    status = " ".join(m.value for m in at.markdown if m.value.startswith("**t = 0**"))
    assert "no bound yet" in status
    drawn = _figure_text(at, "cl_slice")
    assert "bound" not in drawn.replace("no bound yet", ""), drawn[:500]
    assert "θ_1" not in drawn and "θ_{1}" not in drawn
    assert "top of the bound" not in drawn
    # after the E-step there is a bound touching at θ_0, and the M-step's target θ_1
    at.button(key="cl_btn_e").click().run()
    assert not at.exception, at.exception
    drawn = _figure_text(at, "cl_slice")
    assert "bound from the E-step at θ_0" in drawn and "θ_1" in drawn


def test_restarts_on_digits_speaks_of_pixels_not_words():
    at = open_page(pages.RESTARTS.path, **lessons.link_params(lessons.BY_ID["optima"]))
    assert nbcore.load_dataset("digits").image_shape == (8, 8)  # the rows are 8×8 images
    at.button(key="rs_go").click().run(timeout=300)
    assert not at.exception, at.exception
    said = [w.value for w in at.warning if "likelihood of the" in w.value]
    assert said, [w.value for w in at.warning]  # lesson 5: the best objective is not the best classifier
    assert "*pixels*" in said[0] and "word" not in said[0]
