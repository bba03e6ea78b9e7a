"""The app and the lab page show the same lesson: one engine is the truth (nbcore), two views of it.

The Streamlit app's lesson view (the server runs nbcore; ``?player=off``: the server draws the charts
and the panels below them in the same run) and the lab page (EM in the browser, written with
nblab.page.write_lab and opened from file://) are opened on the same settings and compared at
t = 0, 1 and 5 (the app's ``?t=`` and the lab's ``#t=`` recompute the run to that iteration):

* α per class, the accuracy on the hidden labels, the log-likelihood and the MAP objective, read from
  the charts' own data (plotly keeps a chart's traces in ``gd.data``): full precision on both sides,
  so equal to the engine parity's 1e-9 (relative); the accuracy (a count over the hidden documents) exactly;
* the documents panel: its title (count, share right, flips), the confusion matrix and the first rows
  of the table (doc ids, true class, EM's class, r(true class), confidence and, for Bernoulli with two
  classes, the words present / absent log-odds) — the app's table is read from the grid's own
  accessible table (full precision), the lab's as shown (3 or 1 decimals);
* the maths panel for the same document (the default: the hidden one least sure under θ⁽⁰⁾): the
  E-step numbers, the class priors' sums and the M-step row of eq. 24, as displayed (the app's KaTeX
  source, the lab's tables).

Every number is also checked against nbcore's own run on the same settings, so a disagreement says
which side is wrong. Settings: the default lesson (nblab.defaults, sms_spam, Bernoulli), and
udhr_langid with the multinomial model (ten classes, a long vocabulary of character n-grams).

Skipped without /usr/bin/chromium unless CI is set.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from kit.browser import require_chromium, wait_idle

pytestmark = pytest.mark.browser

sync_api = require_chromium()

import nbcore  # noqa: E402
from nblab.config import DataConfig  # noqa: E402
from nblab.defaults import DEFAULTS  # noqa: E402

TS = (0, 1, 5)
CASES = {
    # the ready-made lesson, as nblab.defaults has it
    "default_lesson": dict(dataset=DEFAULTS["dataset"], model="bernoulli", hidden=DEFAULTS["hidden"], lam=DEFAULTS["lam"],
                           init=DEFAULTS["init"], seed=DEFAULTS["seed"], max_iter=DEFAULTS["max_iter"], tol=DEFAULTS["tol"]),
    "udhr_multinomial": dict(dataset="udhr_langid", model="multinomial", hidden=90, lam=0.1, init="labeled", seed=0,
                             max_iter=100, tol=1e-6),
}
REL = 1e-9   # the lab's engine against nbcore (docs/lab.md: checked to 1e-9, relative)
WAIT = 240_000


def query(case: dict, t: int) -> str:
    """The settings as the URL keys the app and the lab share (the app's spelling of λ and the tolerance)."""
    c = dict(case)
    c["lam"] = f"{c['lam']:g}"
    c["tol"] = f"{c['tol']:.0e}"
    return "&".join(f"{k}={v}" for k, v in c.items()) + f"&t={t}"


# ---- nbcore: the truth --------------------------------------------------------------------------------

class Truth:
    """nbcore's run on the case's settings, prepared as the lesson prepares it (nblab.prepare.build_run)."""

    def __init__(self, case: dict):
        from nblab.prepare import build_run

        cfg = DataConfig(dataset=case["dataset"], model=case["model"], hidden_pct=case["hidden"], init=case["init"],
                         seed=case["seed"], unlabeled_weight=1.0, max_iter=case["max_iter"], tol=case["tol"])
        self.prep, self.run = build_run(cfg, case["lam"])
        for _ in range(max(TS)):
            if not self.run.done:
                self.run.step()
        self.rows = np.flatnonzero(self.prep.score_mask)
        p0 = np.asarray(self.run.predict_proba(t=0))
        unl = np.flatnonzero(self.prep.y_obs < 0)
        self.default_doc = int(unl[np.argmin(p0[unl].max(axis=1))])

    def series(self, t: int) -> dict:
        s = self.run.history[t]
        pred = np.asarray(self.run.predict_proba(t=t))[self.rows].argmax(axis=1)
        return {"alpha": [float(a) for a in s.alpha], "acc": float(np.mean(pred == self.prep.y_eval[self.rows])),
                "ll": float(s.log_likelihood), "obj": float(s.objective)}

    def x(self, i: int) -> np.ndarray:
        r = self.prep.X[i]
        return np.asarray(r.toarray() if hasattr(r, "toarray") else r, dtype=float).ravel()

    def maths(self, t: int, doc: int) -> dict:
        """The maths panel's numbers for `doc` at t, as displayed (shown()): the E-step under θ_{t−1}
        (θ⁽⁰⁾ at t = 0), the class priors' sums and eq. 24 for the top separating row at t."""
        run, model = self.run, self.run.model
        src = run.history[max(0, t - 1)]
        ex = nbcore.explain(model, src.alpha, src.params, self.x(doc))
        like = np.asarray(ex.contributions).sum(axis=0)
        out = {"e": [[shown(ex.log_prior[k]), shown(like[k], 2), shown(ex.log_joint[k], 2), shown(ex.posterior[k])]
                     for k in range(len(like))]}
        if t == 0:
            return out
        w = np.asarray(run.m_step_weights(t), dtype=float)
        cw = w.sum(axis=0)
        alpha = nbcore.class_prior(w)
        out["alpha"] = [[shown(cw[k], 2), str(w.shape[0]), shown(alpha[k])] for k in range(len(cw))]
        tab = model.param_table(run.history[t].params, self.prep.feature_names, getattr(self.prep.ds, "categories", None))
        m = np.log(np.clip(np.asarray(tab.mat, dtype=float), 1e-12, None)) if tab.log_scale else np.asarray(tab.mat)
        row = int(np.argsort(-(m.max(axis=1) - m.min(axis=1)), kind="stable")[0])
        parts = model.estimate_parts(model.statistics(run.Xp, w))
        if parts is not None:
            counts, totals, den = (np.asarray(a, dtype=float) for a in parts)
            lam = float(run.history[t].smoothing)
            values = (lam + counts[row]) / (den[row] * lam + totals[row])
            c = den[row]
            c_text = f"{c:g}" if float(c).is_integer() else shown(c, 2)
            out["row"] = str(tab.rows[row])
            out["m"] = [[shown(lam), shown(counts[row, k], 2), c_text, shown(lam), shown(totals[row, k], 2), shown(values[k])]
                        for k in range(len(cw))]
        return out


def shown(v, d: int = 3) -> str:
    """A number as the maths panels print it (dashboard/lesson/panels/maths._n; the lab's common.fmt), in
    one spelling both pages' texts are brought to: "-0.150", "2.56e-31", "-inf"."""
    v = float(v)
    if not math.isfinite(v):
        return "nan" if v != v else ("-inf" if v < 0 else "inf")
    if v != 0 and (abs(v) < 10 ** (-d) or abs(v) >= 1e6):
        m, e = f"{v:.2e}".split("e")
        return f"{m}e{int(e)}"
    return f"{v:.{d}f}"


_SUP = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def lab_number(s: str) -> str:
    """The lab's "−1.50×10⁻⁷" / "−∞" / "5,574" in shown()'s spelling."""
    s = s.strip().replace("\u2212", "-").replace(",", "")
    if s.endswith("∞"):
        return s.replace("∞", "inf")
    if "×10" in s:
        m, e = s.split("×10")
        return f"{m}e{int(e.translate(_SUP))}"
    return s


TEX_NUM = r"-?\d+(?:\.\d+)?(?:\\times 10\^\{-?\d+\})?|-?\\infty|\\text\{NaN\}"


def tex_number(s: str) -> str:
    """The app's LaTeX "-1.50\\times 10^{-7}" / "-\\infty" in shown()'s spelling."""
    s = s.strip()
    if s == r"\text{NaN}":
        return "nan"
    if s.endswith(r"\infty"):
        return "-inf" if s.startswith("-") else "inf"
    m = re.fullmatch(r"(-?\d+\.\d+)\\times 10\^\{(-?\d+)\}", s)
    return f"{m[1]}e{int(m[2])}" if m else s


def tex_unescape(s: str) -> str:
    """derive.latex_escape undone (a row's label inside \\text{…})."""
    for a, b in ((r"\textbackslash{}", "\\"), (r"\textasciicircum{}", "^"), (r"\textasciitilde{}", "~")):
        s = s.replace(a, b)
    return re.sub(r"\\([{}$&#%_])", r"\1", s)


# ---- reading the app -------------------------------------------------------------------------------------

CHARTS_JS = """(sel) => {
    const out = {};
    for (const g of document.querySelectorAll(sel)) {
        const box = g.closest('[data-chart]');
        const t = box ? box.dataset.chart : ((g.layout && g.layout.title && g.layout.title.text) || '').replace(/<[^>]+>/g, '');
        out[t] = (g.data || []).map((d) => ({ name: d.name, x: d.x ? Array.from(d.x) : [], y: d.y ? Array.from(d.y) : [] }));
    }
    return out;
}"""

# the grid's accessible table (Streamlit's dataframe draws on a canvas and keeps the rows on screen in a
# hidden <table role=grid> for screen readers): {header: cell text} per row, in the table's order
GRID_JS = """(first) => {
    for (const t of document.querySelectorAll('[data-testid="stDataFrame"] table[role=grid]')) {
        const heads = {};
        for (const th of t.querySelectorAll('thead th')) heads[th.getAttribute('aria-colindex')] = th.textContent.trim();
        if (!Object.values(heads).includes(first)) continue;
        const rows = [...t.querySelectorAll('tbody tr')].map((tr) => {
            const r = { _row: Number(tr.getAttribute('aria-rowindex')) };
            for (const td of tr.querySelectorAll('td')) r[heads[td.getAttribute('aria-colindex')]] = td.textContent;
            return r;
        });
        return rows.sort((a, b) => a._row - b._row);
    }
    return null;
}"""

# the maths panel's expander: its text and the KaTeX source of its formulas (st.latex keeps it in an <annotation>)
MATHS_JS = """() => {
    const box = [...document.querySelectorAll('[data-testid="stExpander"]')]
        .find((e) => (e.querySelector('summary') || {}).innerText?.includes('The maths of this iteration'));
    if (!box) return null;
    return { text: box.innerText, tex: [...box.querySelectorAll('annotation[encoding="application/x-tex"]')].map((a) => a.textContent) };
}"""

DOCS_TITLE = re.compile(r"The [\d,]+ hidden documents at t = \d+: [\d.]+% right(?:, [\d,]+ flipped at this iteration)?")


def series_at(traces: list[dict], name: str | None, t: int, index: int | None = None) -> float:
    """The y of a trace (by name, or the index-th) at x = t."""
    tr = traces[index] if name is None else next(d for d in traces if d["name"] == name)
    return tr["y"][tr["x"].index(t)]


def app_numbers(page, t: int, K: int) -> dict:
    charts = page.evaluate(CHARTS_JS, ".js-plotly-plot")
    alpha = next(v for k, v in charts.items() if k.startswith("Class priors"))
    acc = next(v for k, v in charts.items() if k.startswith("Accuracy on hidden labels"))
    ll = next(v for k, v in charts.items() if k.startswith("Does EM climb"))
    return {"alpha": [series_at(alpha, None, t, k) for k in range(K)], "acc": series_at(acc, "EM", t),
            "ll": series_at(ll, "log-likelihood", t), "obj": series_at(ll, "objective", t)}


def app_documents(page) -> dict:
    box = page.locator('[data-testid="stExpander"]').filter(has_text="hidden documents at t =")
    box.first.locator('[data-testid="stDataFrame"]').last.scroll_into_view_if_needed()   # the table (after the matrix)
    page.wait_for_function(f"() => {{ const r = ({GRID_JS})('doc'); return r && r.length >= 5; }}", timeout=WAIT)
    rows = page.evaluate(GRID_JS, "doc")
    rows = [r for n, r in enumerate(rows) if r["_row"] == n + 2]   # the first rows, from the table's top
    # the confusion matrix: {(true class, EM's class): count} of the cells the grid has on screen (a wide
    # matrix's columns beyond its width are not in the accessible table)
    confusion = {(r[""].removeprefix("true "), k.removeprefix("EM: ")): int(c)
                 for r in page.evaluate(GRID_JS, "") for k, c in r.items() if k.startswith("EM: ")}
    title = DOCS_TITLE.search(page.locator('[data-testid="stMain"]').inner_text())
    return {"rows": rows, "confusion": confusion, "title": title and title.group(0)}


def app_confidence(row: dict) -> float:
    """The app's confidence of a row: its own column when shown; with two classes the table may leave it
    out for room (the toolbar shows it), and it is then r(true class) when EM is right, 1 − r when wrong."""
    if "confidence" in row:
        return float(row["confidence"])
    r = float(row["r(true class)"])
    return r if row["EM says"] == row["true"] else 1.0 - r


def app_maths(page) -> dict:
    """The maths panel's numbers from the KaTeX source of its formulas (st.latex keeps it in an
    <annotation>), and the document it is about."""
    got = page.evaluate(MATHS_JS)
    tex, text = got["tex"], got["text"].replace("\u2060", "")   # (the word joiner that stops auto-links)
    doc = int(re.search(r"E-step for document i = (\d+)", text).group(1))
    said = re.search(rf"Document {doc}: “(.*)”", text)
    out = {"doc": doc, "text": said and said.group(1)}

    def lines(block):
        return re.sub(r"^\\begin\{aligned\}|\\end\{aligned\}$", "", block).split(r"\\")
    N = TEX_NUM
    for block in tex:
        if block.startswith(r"\begin{aligned}k="):          # log α_k + (log p(x | k)) = log joint
            out["e"] = [list(map(tex_number, re.search(rf"&\s*({N}) \+ \(({N})\) = ({N})", ln).groups())) for ln in lines(block)]
        elif block.startswith(r"\begin{aligned}p(y_{"):     # the posterior
            out["post"] = [tex_number(re.search(rf"&= ({N})", ln).group(1)) for ln in lines(block)]
        elif block.startswith(r"\begin{aligned}\alpha_{"):  # eq. 23 with numbers
            out["alpha"] = [list(map(tex_number, re.search(rf"\\frac\{{({N})\}}\{{(\d+)\}} = ({N})", ln).groups()))
                            for ln in lines(block)]
        elif block.startswith(r"\begin{aligned}") and r"\cdot" in block:   # eq. 24 for one row
            ls = lines(block)
            out["m"] = [list(map(tex_number, re.search(rf"\\frac\{{({N}) \+ ({N})\}}\{{(\S+?)\\cdot({N}) \+ ({N})\}} = ({N})",
                                                       ln).groups())) for ln in ls]
            out["row"] = tex_unescape(re.search(r"_\{\\text\{(.*?)\},\\text\{", ls[0]).group(1))
    if "e" in out and "post" in out:
        out["e"] = [e + [p] for e, p in zip(out["e"], out.pop("post"))]
    return out


def open_app(ctx, server: str, case: dict, t: int):
    """The app's page at t (asked for only: ready_app waits for it; the server builds the three
    iterations' sessions side by side, one session per tab)."""
    page = ctx.new_page()
    page.set_default_timeout(WAIT)
    page.goto(f"{server}/?{query(case, t)}&player=off", wait_until="commit")
    return page


def ready_app(page, t: int):
    """The app's page drawn: the charts, and the panels below them at t."""
    wait_idle(page, WAIT)
    page.locator('[data-testid="stExpander"]', has_text="The maths of this iteration").first.wait_for(timeout=WAIT)
    page.wait_for_function("(t) => [...document.querySelectorAll('[data-testid=\"stMain\"] summary')]"
                           ".some((s) => s.innerText.includes('hidden documents at t = ' + t + ':'))", arg=t, timeout=WAIT)
    return page


# ---- reading the lab ---------------------------------------------------------------------------------------

def open_lab(ctx, url: str, case: dict, t: int):
    """The lab page at t (asked for only: ready_lab waits for it)."""
    page = ctx.new_page()
    page.set_default_timeout(WAIT)
    page.lab_errors = []
    page.on("pageerror", lambda e: page.lab_errors.append(str(e)))
    page.goto(url + "#" + query(case, t), wait_until="commit")
    return page


def ready_lab(page, t: int):
    """The lab page ran EM to t and drew its charts and the documents and maths panels."""
    page.wait_for_function("() => window.__nblab && window.__nblab.ready === true", timeout=WAIT)
    page.wait_for_function("(t) => window.__nblab.lab && window.__nblab.lab.t === t", arg=t, timeout=WAIT)
    page.wait_for_function("(t) => { const g = document.querySelector('.lab-chart[data-chart=\"alpha\"] .lab-plot');"
                           " return g && g.data && g.data.length && g.data[0].x.includes(t); }", arg=t, timeout=WAIT)
    for cls, ready in (("nbl-docs", f"at t = {t}:"), ("nbl-maths", "document ")):
        page.locator(f".{cls}").first.scroll_into_view_if_needed()
        page.wait_for_function("([c, s]) => { const h = document.querySelector('.' + c + ' .nbl-panel-title');"
                               " return h && h.textContent.includes(s); }", arg=[cls, ready], timeout=WAIT)


def lab_numbers(page, t: int, K: int) -> dict:
    charts = page.evaluate(CHARTS_JS, ".lab-chart .lab-plot")
    return {"alpha": [series_at(charts["alpha"], None, t, k) for k in range(K)], "acc": series_at(charts["acc"], "EM", t),
            "ll": series_at(charts["ll"], "log-likelihood", t), "obj": series_at(charts["ll"], "objective", t)}


LAB_DOCS_JS = """() => {
    const P = document.querySelector('.nbl-docs');
    const heads = [...P.querySelectorAll('.nbl-doc-table thead th')].map((h) => h.textContent.replace(/[▲▼↕]/g, '').trim());
    const rows = [...P.querySelectorAll('.nbl-doc-table tbody tr')].slice(0, 40).map((tr) => {
        const r = {};
        [...tr.children].forEach((c, j) => { r[heads[j]] = c.textContent.trim(); });
        return r;
    });
    const ch = [...P.querySelectorAll('.nbl-confusion-table thead th')].map((h) => h.textContent.trim());
    const confusion = [];
    for (const tr of P.querySelectorAll('.nbl-confusion-table tbody tr')) {
        const c = [...tr.children].map((x) => x.textContent.trim());
        for (let j = 1; j < c.length; j++) confusion.push([c[0].replace(/^true /, ''), ch[j].replace(/^EM: /, ''), c[j]]);
    }
    return { title: P.querySelector('.nbl-panel-title').textContent, rows, confusion };
}"""

LAB_MATHS_JS = """() => {
    const P = document.querySelector('.nbl-maths');
    const rows = (sel) => [...P.querySelectorAll(sel + ' tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent.trim()));
    const cap = P.querySelector('.nbl-mstep caption');
    const txt = P.querySelector('.nbl-doctext');
    return { heading: P.querySelector('.nbl-panel-title').textContent, e: rows('.nbl-estep'), alpha: rows('.nbl-alpha'),
             m: rows('.nbl-mstep'), caption: cap ? cap.textContent : null, text: txt && !txt.hidden ? txt.textContent : null };
}"""


def lab_maths(page) -> dict:
    got = page.evaluate(LAB_MATHS_JS)
    out = {"doc": int(re.search(r"document (\d+)$", got["heading"]).group(1)),
           "e": [[lab_number(c) for c in r[1:]] for r in got["e"]] or None,
           "alpha": [[lab_number(c) for c in r[1:]] for r in got["alpha"]] or None}
    if got["text"]:
        out["text"] = re.fullmatch(r"Document \d+: “(.*)”", got["text"], flags=re.S).group(1)
    if got["m"]:
        out["m"] = []
        for r in got["m"]:
            lam, counts = r[1].split(" + ")
            left, totals = r[2].split(" + ")
            c, lam2 = left.split("·")
            out["m"].append([lab_number(lam), lab_number(counts), c, lab_number(lam2), lab_number(totals), lab_number(r[3])])
        out["row"] = re.search(r"for “(.*)”$", got["caption"], flags=re.S).group(1).replace("␣", " ")
    return out


# ---- fixtures ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def lab_pages(tmp_path_factory):
    from nblab.page import write_lab

    d = tmp_path_factory.mktemp("agree")
    names = sorted({c["dataset"] for c in CASES.values()})
    return {n: write_lab(d / f"{n}.html", n).as_uri() for n in names}


# ---- the test ------------------------------------------------------------------------------------------------

class Report:
    """Every disagreement of one case, named with the settings, t, both values and nbcore's."""

    def __init__(self, name: str):
        self.name, self.bad = name, []

    def close(self, what: str, t: int, app, lab, truth, rel: float = REL):
        ok = lambda a, b: a == b or (isinstance(a, float) and isinstance(b, float) and  # noqa: E731
                                     math.isclose(a, b, rel_tol=rel, abs_tol=0.0))
        if not (ok(app, lab) and ok(app, truth) and ok(lab, truth)):
            self.bad.append(f"{self.name} t={t} {what}: app {app!r}, lab {lab!r}, nbcore {truth!r}")

    def same(self, what: str, t: int, app, lab, truth=None):
        if app != lab or (truth is not None and (app != truth or lab != truth)):
            self.bad.append(f"{self.name} t={t} {what}: app {app!r}, lab {lab!r}" +
                            ("" if truth is None else f", nbcore {truth!r}"))


def same_order(app_docs: list[int], lab_docs: list[int], conf: list[float]) -> bool:
    """The same documents in the same order, or (the engines agreeing to 1e-9, not bit for bit) two whose
    confidence ties to 1e-9 in the other order."""
    if app_docs == lab_docs:
        return True
    groups, cur = [], [0]
    for j in range(1, len(app_docs)):
        if math.isclose(conf[j], conf[cur[-1]], rel_tol=1e-9):
            cur.append(j)
        else:
            groups.append(cur)
            cur = [j]
    if len(cur) == 1 or not groups:   # a tie at the end may be cut by the end of the rows read: left out
        groups.append(cur)
    return all(sorted(app_docs[j] for j in g) == sorted(lab_docs[j] for j in g) for g in groups)


@pytest.mark.parametrize("name", list(CASES))
def test_app_and_lab_show_the_same_numbers(name, server, browser, lab_pages):
    case = CASES[name]
    rep = Report(name)
    # every page asked for at once: on a loaded machine most of a page's time is waiting, not work. One
    # browser context for the app's tabs (they share the HTTP cache: the app's scripts are fetched and
    # compiled once), one for the lab's.
    app_ctx = browser.new_context(viewport={"width": 1500, "height": 2600})
    lab_ctx = browser.new_context(viewport={"width": 1500, "height": 2600})
    apps = {t: open_app(app_ctx, server, case, t) for t in TS}
    labs = {t: open_lab(lab_ctx, lab_pages[case["dataset"]], case, t) for t in TS}
    try:
        truth = Truth(case)   # while the pages load
        K = truth.prep.n_classes
        names = [str(c) for c in truth.prep.class_names]
        for t in TS:
            app, lab = apps[t], labs[t]
            ready_app(app, t)
            ready_lab(lab, t)
            # ---- the charts: α, accuracy, log-likelihood, objective (full precision on both sides)
            a, b, n = app_numbers(app, t, K), lab_numbers(lab, t, K), truth.series(t)
            for k in range(K):
                rep.close(f"α[{names[k]}]", t, a["alpha"][k], b["alpha"][k], n["alpha"][k])
            rep.same("accuracy on the hidden labels", t, a["acc"], b["acc"], n["acc"])
            rep.close("log-likelihood", t, a["ll"], b["ll"], n["ll"])
            rep.close("objective", t, a["obj"], b["obj"], n["obj"])

            # ---- the documents panel
            ad, ld = app_documents(app), lab.evaluate(LAB_DOCS_JS)
            rep.same("documents title", t, ad["title"], ld["title"])
            lab_conf = {(a, b): int(c.replace(",", "")) for a, b, c in ld["confusion"]}
            assert len(ad["confusion"]) >= 2 * K, f"{name} t={t}: the app's confusion matrix shows {ad['confusion']}"
            rep.same("confusion matrix (rows = true class)", t, ad["confusion"],
                     {key: lab_conf.get(key) for key in ad["confusion"]})
            pred = np.asarray(truth.run.predict_proba(t=t))[truth.rows].argmax(axis=1)
            want = nbcore.confusion(truth.prep.y_eval[truth.rows], pred, K)   # nbcore: rows = predicted
            rep.same("confusion matrix: every cell against nbcore", t, lab_conf,
                     {(names[a], names[b]): int(want[b, a]) for a in range(K) for b in range(K)})
            rows = ad["rows"][:min(len(ad["rows"]), len(ld["rows"]))]
            assert len(rows) >= 5, f"{name} t={t}: the app's documents table shows {len(ad['rows'])} rows"
            lrows = ld["rows"][:len(rows)]
            app_docs, lab_docs = [int(r["doc"]) for r in rows], [int(r["doc"]) for r in lrows]
            conf = [app_confidence(r) for r in rows]
            if not same_order(app_docs, lab_docs, conf):
                rep.same("documents table: the first rows' doc ids (least sure first)", t, app_docs, lab_docs)
            else:
                by_doc = {int(r["doc"]): r for r in lrows}
                split = [c for c in rows[0] if c.startswith(("words present", "words absent"))]
                for r in rows:
                    d = int(r["doc"])
                    lr = by_doc[d]
                    rep.same(f"doc {d}: true class", t, r["true"], lr["true"], names[truth.prep.y_eval[d]])
                    rep.same(f"doc {d}: EM's class", t, r["EM says"], lr["EM says"])
                    rep.same(f"doc {d}: r(true class)", t, f"{float(r['r(true class)']):.3f}", lr["r(true class)"])
                    rep.same(f"doc {d}: confidence", t, f"{app_confidence(r):.3f}", lr["confidence"])
                    for col in split:   # the app's header leaves out the class pair ("words present")
                        lab_col = next((c for c in lr if c.startswith(col)), col)
                        rep.same(f"doc {d}: {col}", t, f"{float(r[col]):.1f}", lr.get(lab_col))
                if K == 2 and case["model"] == "bernoulli":
                    rep.same("documents table: words present / absent columns", t, len(split), 2)

            # ---- the maths panel: the same document, the same numbers as displayed
            am, lm = app_maths(app), lab_maths(lab)
            rep.same("maths panel: document", t, am["doc"], lm["doc"], truth.default_doc)
            if am.get("text") is not None or lm.get("text") is not None:
                rep.same("maths panel: the document's text", t, am.get("text"), lm.get("text"))
            want = truth.maths(t, am["doc"])
            rep.same("maths panel: E-step (log α, log p(x|k), log joint, posterior)", t, am.get("e"), lm["e"], want["e"])
            if t == 0:
                rep.same("maths panel at t = 0: no M-step numbers", t, am.get("alpha"), lm["alpha"])
            else:
                rep.same("maths panel: Σ r, N, α (eq. 23)", t, am.get("alpha"), lm["alpha"], want["alpha"])
                rep.same("maths panel: eq. 24's row", t, am.get("row"), lm.get("row"), want.get("row"))
                rep.same("maths panel: eq. 24 (λ, counts, c, λ, totals, value)", t, am.get("m"), lm.get("m"), want.get("m"))
            assert not app.locator('[data-testid="stException"]').count(), f"{name} t={t}: the app raised"
            assert not lab.lab_errors, lab.lab_errors
    finally:
        app_ctx.close()
        lab_ctx.close()
    assert not rep.bad, "the app and the lab disagree:\n" + "\n".join(rep.bad)
