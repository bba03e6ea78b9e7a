"""The lab page opened in Chromium, and nbcore's numbers for it: what the lab page's tests and the tests of
the pages built on it (the class page, the static site, bidi, the long link) share. ``Oracle`` is the run
computed here with plain nbcore; ``open_lab`` opens a written page from file:// with every other request
blocked and recorded; ``check_numbers`` compares what the page shows at t with the oracle's."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import nbcore
from kit import ROOT
from nblab.defaults import DEFAULTS

SHOTS = ROOT / "artifacts" / "screenshots"
#: the screenshots at t = 0, after a λ change mid-run and at convergence (looked at by a person)
LAB_SHOTS = Path(os.environ.get("LAB_SHOTS", "/tmp/lab_shots"))
AXE = ROOT / "tests" / "browser" / "vendor" / "axe.min.js"
READY = "() => !!(window.__nblab && window.__nblab.ready && window.__nblab.lab)"
DEFAULT_MODEL = {"sms_spam": "bernoulli", "udhr_langid": "multinomial", "digits": "bernoulli"}


# ---- the oracle: the same run with plain nbcore --------------------------------------------------------------

class Oracle:
    """nbcore's run for a data set and the lab's settings, with the numbers the page shows."""

    def __init__(self, name, model=None, hidden=DEFAULTS["hidden"], lam=DEFAULTS["lam"], init=DEFAULTS["init"],
                 seed=DEFAULTS["seed"], max_iter=DEFAULTS["max_iter"], tol=DEFAULTS["tol"]):
        ds = nbcore.load_dataset(name)
        model = model or DEFAULT_MODEL.get(name, ds.models[0])
        self.ds, self.model = ds, model
        self.X = ds.for_model(model)
        self.y = np.asarray(getattr(ds, "y_true", None) if getattr(ds, "y_true", None) is not None else ds.y)
        y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=hidden / 100.0, random_state=seed)
        self.y_obs = np.asarray(y_obs)
        self.K = int(ds.n_classes)
        self.opts = nbcore.get_model(model).suggested_options(self.X)
        self.no_labels = not (self.y_obs >= 0).any()
        eff = "random" if init == "labeled" and self.no_labels else init
        self.run = nbcore.EM(model=model, n_classes=self.K, smoothing=lam, init=eff, random_state=seed,
                             max_iter=max_iter, tol=tol, model_options=self.opts).start(self.X, self.y_obs)
        self.lam = lam

    def to(self, t):
        while len(self.run.history) - 1 < t and not self.run.done:
            self.run.step()
        return self

    def alpha(self, t):
        return np.asarray(self.run.history[t].alpha, dtype=float)

    def ll(self, t):
        return float(self.run.history[t].log_likelihood)

    def objective(self, t):
        return float(self.run.history[t].objective)

    def acc(self, t):
        pred = np.asarray(self.run.predict_proba(t=t)).argmax(axis=1)
        return nbcore.hidden_accuracy(pred, self.y, self.y_obs < 0, n_classes=self.K if self.no_labels else None)

    def reference(self):
        """The run's baselines (nblab.numbers.Reference) from nbcore.baselines: the majority class, supervised
        NB at each λ segment's λ and at the λ leave-one-out picks on the labelled rows."""
        from nbcore import baselines as nb_baselines
        from nblab import numbers
        from nblab.outcome import CV_LAMBDAS
        lams = [float(s.smoothing) for s in self.run.history]
        key = tuple(sorted(set(lams)))
        if getattr(self, "_b", (None,))[0] != key:
            self._b = (key, nb_baselines.baselines(self.model, self.X, self.y_obs, self.y, self.K, key, CV_LAMBDAS,
                                                   **self.opts))
        b = self._b[1]
        name = str(self.ds.class_names[b.majority_class]) if b.majority_class is not None else ""
        return numbers.reference(b.majority, name, b.cv_lambda, b.cv, b.cv_method, b.n_labelled, lams,
                                 lambda v: b.at_lambda.get(float(v)))

    def supervised(self, lam=None):
        lam = self.lam if lam is None else lam
        alpha, params = nbcore.supervised_fit(self.model, self.X, self.y_obs, self.K, lam, **self.opts)
        proba = nbcore.predict_proba(self.model, alpha, params, self.X, **self.opts)
        return nbcore.hidden_accuracy(np.asarray(proba).argmax(axis=1), self.y, self.y_obs < 0)


def words(o: Oracle, t: int, names) -> str:
    """export.iteration_words for iteration t (the page's status sentence after "Iteration t of n: ")."""
    text = "α " + ", ".join(f"{n} {a:.2f}" for n, a in zip(names, o.alpha(t)))
    a = o.acc(t)
    text += f"; accuracy {a:.1%}"
    if o.no_labels:                      # no supervised baseline without a visible label
        return text
    # the best supervised baseline of iteration t's λ segment (nblab.numbers.iteration_words)
    base = o.reference().best(t)[1]
    d = (a - base) * 100
    text += (", the same as the best supervised" if abs(d) < 0.05
             else f", {abs(d):.1f} points {'above' if d > 0 else 'below'} the best supervised")
    return text


class Opened:
    def __init__(self, page, blocked, errors, dialogs):
        self.page, self.blocked, self.errors, self.dialogs = page, blocked, errors, dialogs

    def ev(self, js, arg=None):
        return self.page.evaluate(js, arg) if arg is not None else self.page.evaluate(js)

    @property
    def t(self):
        return self.ev("() => __nblab.lab.t")

    @property
    def latest(self):
        return self.ev("() => __nblab.lab.latest")

    def sentence(self):
        return self.page.locator("#lab-sentence").inner_text()

    def metric(self, i):
        return self.page.locator(".lab-metric-value").nth(i).inner_text()

    def settle(self):
        """Every queued draw done (two animation frames)."""
        self.ev("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def press(self, key, times=1):
        """A clicker's key, with nothing focused (a focused number box or radio keeps its arrow keys)."""
        self.ev("() => document.activeElement && document.activeElement.blur()")
        for _ in range(times):
            self.page.keyboard.press(key)
            self.settle()

    def click(self, act):
        self.page.locator(f'button[data-act="{act}"]').click()
        self.settle()

    def snap(self, t):
        return self.ev("t => { const s = __nblab.lab.run.history[t]; return { alpha: Array.from(s.alpha), ll: s.logLikelihood,"
                       " obj: s.objective, lam: s.lam, acc: __nblab.lab.accuracy(t) }; }", t)

    def set_range(self, label, index):
        """Move a settings slider to `index` and release it (input + change), as a user does."""
        self.page.get_by_label(label, exact=True).evaluate(
            "(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input', {bubbles: true}));"
            " e.dispatchEvent(new Event('change', {bubbles: true})); }", index)
        self.settle()


def open_lab(browser, path: Path, fragment: str = "", **ctx) -> Opened:
    """The page opened with every non-file request blocked (and recorded)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(**ctx)
    blocked, errors, dialogs = [], [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append("console: " + m.text) if m.type == "error" else None)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    def route(r):
        if r.request.url.startswith("file:"):
            return r.continue_()
        blocked.append(r.request.url)
        return r.abort()

    page.route("**/*", route)
    page.goto(path.as_uri() + (("#" + fragment) if fragment else ""))
    page.wait_for_function(READY, timeout=60_000)
    o = Opened(page, blocked, errors, dialogs)
    o.settle()
    return o


def close_ok(o: Opened):
    assert o.blocked == [], o.blocked
    assert o.dialogs == [], o.dialogs
    assert [e for e in o.errors if "favicon" not in e] == [], o.errors
    o.page.close()


def show(o: Opened, t: int):
    """Drag "Show iteration" to t."""
    o.page.locator(".lab-iter").evaluate("(e, t) => { e.value = String(t); e.dispatchEvent(new Event('input', {bubbles: true})); }", t)
    o.settle()


def check_numbers(o: Opened, orc: Oracle, t: int, names):
    """The numbers of iteration t: the engine's to 1e-9 (relative) of nbcore's, and on screen as nbcore's."""
    orc.to(t)
    if o.t != t:
        show(o, t)
    assert o.t == t
    s = o.snap(t)
    np.testing.assert_allclose(s["alpha"], orc.alpha(t), rtol=1e-9, atol=1e-12)
    assert s["ll"] == pytest.approx(orc.ll(t), rel=1e-9)
    assert s["obj"] == pytest.approx(orc.objective(t), rel=1e-9)
    assert s["acc"] == pytest.approx(orc.acc(t), abs=1e-12)
    assert o.sentence() == f"Iteration {t} of {o.latest}: {words(orc, t, names)}"
    assert o.metric(1) == f"{orc.acc(t):.1%}"                                  # accuracy at t
    ref = None if orc.no_labels else orc.reference()
    # supervised only: NB at the λ of iteration t's segment; best supervised: the best of the three
    assert o.metric(2) == ("—" if orc.no_labels else f"{orc.supervised(ref.segment_of(t)[2]):.1%}")
    assert o.metric(3) == ("—" if orc.no_labels else f"{ref.best(t)[1]:.1%}")
    shown_ll = float(o.metric(4).replace("\u2212", "-").replace(",", ""))
    assert shown_ll == pytest.approx(orc.ll(t), abs=0.051)                     # log-likelihood, 1 decimal


# ---- the tests -----------------------------------------------------------------------------------------------------
