"""The lab page's lower panels in Chromium (nblab/js/panels/): the real page (nblab.page.write_lab), EM run
in the browser, the panels read against nbcore.

* a click on a document (or Enter on its button) puts it in the maths panel, whose E-step numbers are
  nbcore.explain's for that document under the page's θ_{t−1};
* the documents table sorts as the app does (the Order box and the column headers);
* a typed message's posterior is nbcore's for the same message (the data set's own vectorizer) under the
  page's θ_t;
* between the half-steps the responsibilities panel says so;
* hostile texts and names (``<img src=x onerror=alert(1)>``) are shown as text: no element, no dialog;
* the Why EM climbs panel, opened at t = 2, shows nbcore.bound.climb's numbers in full (formatted here from
  nbcore's values), at a desktop's and a phone's width, with no number cut (screenshots of the panel:
  artifacts/screenshots/lab_climb_desktop.png, lab_climb_phone.png);
* classroom mode: the panels' text at 18 px or more; a 390×844 phone: no horizontal overflow.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from kit.browser import require_chromium
from kit.lab import settled
from kit.lab import show_panel as lab_show_panel

sync_api = require_chromium()

import nbcore  # noqa: E402
from kit import ROOT  # noqa: E402
from nbcore import bound  # noqa: E402
from nblab.config import DataConfig  # noqa: E402
from nblab.prepare import build_run  # noqa: E402

SHOTS = ROOT / "artifacts" / "screenshots"

HOSTILE = "<img src=x onerror=alert(1)>"

READY = "() => window.__nblab && window.__nblab.ready === true"


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Lab pages written once for the module: {name: file URL}."""
    page_mod = pytest.importorskip("nblab.page")
    data_mod = pytest.importorskip("nblab.data")
    d = tmp_path_factory.mktemp("lab")
    out = {}
    out["sms"] = page_mod.write_lab(d / "sms.html", "sms_spam").as_uri()
    out["synthetic"] = page_mod.write_lab(d / "synthetic.html", "synthetic_spam").as_uri()
    out["hostile"] = page_mod.write_lab(d / "hostile.html", hostile_lab_data(data_mod)).as_uri()
    return out


def hostile_lab_data(data_mod) -> dict:
    """synthetic_spam's lab data with hostile class names, feature names and texts."""
    lab = data_mod.lab_data("synthetic_spam")
    lab = json.loads(json.dumps(lab))
    for key in ("classNames", "class_names"):
        if key in lab:
            lab[key] = [HOSTILE, HOSTILE + " & <b>bold</b>"]
    for key in ("featureNames", "feature_names"):
        if key in lab:
            lab[key] = [f"{HOSTILE}{j}" if j % 3 == 0 else f"w{j}</td>" for j in range(len(lab[key]))]
    n = lab.get("n") or (lab.get("matrix") or {}).get("n")
    lab["texts"] = [f"{HOSTILE} document {i} <script>alert(2)</script>" for i in range(n)]
    return lab


def open_lab(browser, url, *, width=1400, height=1000, fragment=""):
    page = browser.new_page(viewport={"width": width, "height": height})
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + fragment)
    page.wait_for_function(READY, timeout=120_000)
    page.dialogs, page.errors = dialogs, errors
    return page


def step(page, n=1):
    for _ in range(n):
        before = page.evaluate("() => window.__nblab.lab.latest")
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("(b) => window.__nblab.lab.latest > b", arg=before, timeout=60_000)
    settled(page)


def show_panel(page, cls):
    """Scroll a panel into view (the page draws the panels below the charts when they are in view)."""
    lab_show_panel(page, f".{cls}")


def snapshot(page, t):
    """The page's θ_t: α and the model's parameters as numpy arrays (N*K flat → (V, K))."""
    got = page.evaluate("""(t) => {
        const G = window.__nblab, s = G.lab.run.history[t], K = G.lab.prep.K;
        const p = {};
        for (const [k, v] of Object.entries(s.params)) p[k] = Array.isArray(v) ? v.map((a) => Array.from(a)) : Array.from(v);
        return { alpha: Array.from(s.alpha), params: p, K, model: G.settings.model };
    }""", t)
    K = got["K"]
    params = {k: (np.asarray(v).reshape(-1, K) if not isinstance(v[0], list) else [np.asarray(a).reshape(-1, K) for a in v])
              for k, v in got["params"].items()}
    return got["model"], np.asarray(got["alpha"]), params


def fmt(v, d=3):
    """The panels' number format (common.fmt) for ordinary values."""
    s = f"{v:.{d}f}"
    return s.replace("-", "\u2212")


# ---- the documents table and the maths panel --------------------------------------------------------------

def test_click_a_document_puts_it_in_the_maths_panel(browser, pages):
    page = open_lab(browser, pages["synthetic"])
    step(page, 3)
    show_panel(page, "nbl-docs")
    rows = page.locator(".nbl-doc-table tbody tr")
    assert rows.count() > 5
    doc = int(rows.nth(4).get_attribute("data-doc"))
    rows.nth(4).locator("td").nth(1).click()
    show_panel(page, "nbl-maths")
    heading = page.locator(".nbl-maths .nbl-panel-title").inner_text()
    assert heading.endswith(f"document {doc}")
    # the E-step under θ_{t−1} is nbcore's for that document
    t = page.evaluate("() => window.__nblab.lab.t")
    model, alpha, params = snapshot(page, t - 1)
    ds = nbcore.load_dataset("synthetic_spam")
    x = np.asarray(ds.for_model(model)[doc].toarray() if hasattr(ds.for_model(model), "tocsr") else ds.for_model(model)[doc]).ravel()
    ex = nbcore.explain(model, alpha, params, x)
    shown = [page.locator(f".nbl-estep [data-post='{k}']").inner_text() for k in range(len(alpha))]
    assert shown == [fmt(p, 3) for p in ex.posterior]
    assert page.locator(".nbl-maths").inner_text().count("✓ same as the engine's") >= 1
    assert not page.errors, page.errors
    page.close()


def test_keyboard_enter_on_a_document_button(browser, pages):
    page = open_lab(browser, pages["synthetic"])
    step(page, 2)
    show_panel(page, "nbl-docs")
    btn = page.locator(".nbl-doc-table tbody tr").nth(2).locator("button.nbl-docbtn")
    doc = int(btn.inner_text())
    btn.focus()
    page.keyboard.press("Enter")
    show_panel(page, "nbl-maths")
    assert page.locator(".nbl-maths .nbl-panel-title").inner_text().endswith(f"document {doc}")
    assert btn.get_attribute("aria-pressed") == "true"
    page.close()


def test_documents_sort_as_the_app(browser, pages):
    page = open_lab(browser, pages["synthetic"])
    step(page, 2)
    show_panel(page, "nbl-docs")

    def column(name):
        # by the header's text: the Bernoulli model with two classes adds the words present / absent columns
        i = page.eval_on_selector_all(".nbl-doc-table thead th",
                                      "(hs, n) => hs.findIndex((h) => h.innerText.replace(/[▲▼↕]/g, '').trim() === n)", name)
        assert i >= 0, name
        return page.eval_on_selector_all(".nbl-doc-table tbody tr",
                                         f"(rs) => rs.map((r) => r.children[{i}].innerText.trim())")

    conf = [float(v) for v in column("confidence")]
    assert conf == sorted(conf)                                      # least sure first (the default)
    page.select_option(".nbl-sort", "most sure first")
    conf = [float(v) for v in column("confidence")]
    assert conf == sorted(conf, reverse=True)
    page.locator(".nbl-doc-table thead button", has_text="doc").click()  # the header: document order
    docs = [int(v) for v in column("doc")]
    assert docs == sorted(docs)
    assert page.locator(".nbl-doc-table thead th[aria-sort]").count() == 1
    page.select_option(".nbl-sort", "wrong first")
    marks = column("correct")
    wrong = [m.startswith("✗") for m in marks]
    assert wrong == sorted(wrong, reverse=True)
    # the confusion matrix: rows are the true classes, the counts add up to the hidden documents
    cells = page.eval_on_selector_all(".nbl-confusion-table tbody td", "(cs) => cs.map((c) => +c.innerText.replace(/,/g, ''))")
    head = page.locator(".nbl-docs .nbl-panel-title").inner_text()
    n_hidden = int(head.split("The ")[1].split(" hidden")[0].replace(",", ""))
    assert sum(cells) == n_hidden
    page.close()


# ---- the typed message ------------------------------------------------------------------------------------------

def test_typed_message_posterior_is_nbcores(browser, pages):
    page = open_lab(browser, pages["sms"])
    step(page, 2)
    show_panel(page, "nbl-message")
    text = "WINNER!! You have won a FREE prize, call 09061701461 now to claim"
    page.fill(".nbl-msg-input", text)
    page.wait_for_selector(".nbl-msg-post [data-post='1']", timeout=10_000)
    t = page.evaluate("() => window.__nblab.lab.t")
    model, alpha, params = snapshot(page, t)
    ds = nbcore.load_dataset("sms_spam")
    x = np.asarray(ds.transform(text).toarray()).ravel()
    if model == "bernoulli":
        x = (x > 0).astype(float)
    ex = nbcore.explain(model, alpha, params, x)
    shown = [page.locator(f".nbl-msg-post [data-post='{k}'] .nbl-metric-value").inner_text() for k in range(len(alpha))]
    assert shown == [f"{p:.4f}" for p in ex.posterior]
    assert "Scoring the typed text:" in page.locator(".nbl-message").inner_text()
    page.close()


def test_between_the_half_steps(browser, pages):
    page = open_lab(browser, pages["synthetic"])
    step(page, 1)
    page.keyboard.press("e")
    page.wait_for_function("() => window.__nblab.lab.half === 'e'")
    show_panel(page, "nbl-resp")
    assert "Between the half-steps" in page.locator(".nbl-resp .nbl-panel-title").inner_text()
    assert "have no class above 0.8" in page.locator(".nbl-resp").inner_text()
    page.close()


# ---- why EM climbs ---------------------------------------------------------------------------------------------

def _full(v):
    """The climb panel's number in full: Python's f"{v:,.4f}" with a real minus."""
    return f"{v:,.4f}".replace("-", "\u2212")


def _change(v):
    """The climb panel's signed change, for changes of 0.001 or more."""
    assert abs(v) >= 1e-3, "the check needs a visible change"
    return ("+" if v > 0 else "\u2212") + _full(abs(v))


def _nbcore_climb(page, t):
    """nbcore.bound.climb at t for the run the page shows (its settings: data set, model, hidden share, λ, start)."""
    s = page.evaluate("() => window.__nblab.settings")
    cfg = DataConfig(dataset=s["dataset"], model=s["model"], hidden_pct=s["hidden"], init=s["init"], seed=s["seed"],
                     unlabeled_weight=1.0, max_iter=s["max_iter"], tol=s["tol"])
    _, run = build_run(cfg, s["lam"])
    while run.iteration < t:
        run.step()
    return bound.climb(run, t)


@pytest.mark.parametrize("tag,width,height", [("desktop", 1280, 900), ("phone", 390, 844)])
def test_climb_panel_shows_nbcore_s_numbers_in_full(browser, pages, tag, width, height):
    page = open_lab(browser, pages["sms"], width=width, height=height)
    step(page, 2)
    show_panel(page, "nbl-climb")
    panel = page.locator(".nbl-climb")
    assert panel.locator(".nbl-panel-title").inner_text() == "Why EM climbs: the lower bound at this iteration"
    assert panel.locator("table").count() == 0          # closed, it computes nothing
    if tag == "desktop":
        panel.locator("summary").click()
    else:                                               # from the keyboard: Enter on its summary opens it
        panel.locator("summary").focus()
        page.keyboard.press("Enter")
    panel.locator("table").wait_for(timeout=30_000)
    text = panel.inner_text()
    c = _nbcore_climb(page, 2)
    for v in (c.objective_before, c.bound_before, c.bound_after, c.objective_after):
        assert _full(v) in text, (_full(v), text)
    assert "M-step's gain" in text and _change(c.m_step_gain) in text
    assert _change(c.gap_after) in text and _change(c.total) in text
    assert f"raises the bound by {_change(c.m_step_gain)}" in text
    assert "θ₃ here is the M-step from the E-step at θ₂, at the current λ = 0.01: the run has not taken it yet." in text
    # nothing cut: every cell shows all of its text, and the panel stays inside the page
    cut = page.evaluate("""() => Array.from(document.querySelectorAll('.nbl-climb td, .nbl-climb th, .nbl-climb p'))
        .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent)""")
    assert cut == []
    box = panel.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    SHOTS.mkdir(parents=True, exist_ok=True)
    panel.screenshot(path=str(SHOTS / f"lab_climb_{tag}.png"))
    # back to t = 1: the open panel follows the slider
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => window.__nblab.lab.t === 1")
    settled(page)
    c1 = _nbcore_climb(page, 1)
    assert _full(c1.objective_before) in panel.inner_text()
    if tag == "desktop":
        # while playing it computes nothing and says so; on Pause the numbers of the iteration shown come back
        page.evaluate("() => window.__nblab.api.play()")
        page.wait_for_function("() => document.querySelector('.nbl-climb').textContent.includes('Pause to see')",
                               timeout=30_000)
        page.evaluate("() => window.__nblab.api.pause()")
        settled(page)
        t = page.evaluate("() => window.__nblab.lab.t")
        page.wait_for_function("() => !!document.querySelector('.nbl-climb table')", timeout=30_000)
        assert _full(_nbcore_climb(page, t).objective_after) in panel.inner_text()
    assert page.errors == []
    page.close()


# ---- hostile data, classroom, phone ---------------------------------------------------------------------------------

def test_hostile_texts_and_names_are_text(browser, pages):
    page = open_lab(browser, pages["hostile"])
    step(page, 2)
    for cls in ("nbl-params", "nbl-resp", "nbl-docs", "nbl-maths", "nbl-message"):
        if page.locator(f".{cls}").count():
            show_panel(page, cls)
    page.locator(".nbl-doc-table tbody tr").first.click()
    show_panel(page, "nbl-maths")
    assert page.dialogs == []
    assert page.evaluate("() => document.querySelectorAll('.nbl-panel img, .nbl-panel script, .nbl-panel b').length") == 0
    text = page.locator(".nbl-docs").inner_text()
    assert HOSTILE in text
    assert "<script>alert(2)</script>" in text
    assert HOSTILE in page.locator(".nbl-maths").inner_text()
    page.close()


def test_classroom_text_is_18px_or_more(browser, pages):
    page = open_lab(browser, pages["synthetic"], fragment="#classroom=true")
    step(page, 2)
    small = []
    for cls in ("nbl-params", "nbl-resp", "nbl-climb", "nbl-docs", "nbl-maths", "nbl-message"):
        if not page.locator(f".{cls}").count():
            continue
        show_panel(page, cls)
        if cls == "nbl-climb":
            page.locator(".nbl-climb summary").click()
            page.locator(".nbl-climb table").wait_for(timeout=30_000)
        small += page.evaluate("""(cls) => {
            const out = [];
            const walk = document.createTreeWalker(document.querySelector('.' + cls), NodeFilter.SHOW_TEXT);
            for (let n = walk.nextNode(); n; n = walk.nextNode()) {
                const el = n.parentElement;
                if (!n.textContent.trim() || el.closest('svg, .nbl-sr, [hidden], option')) continue;
                if (!el.getClientRects().length) continue;
                const px = parseFloat(getComputedStyle(el).fontSize);
                if (px < 18) out.push([cls, n.textContent.trim().slice(0, 30), px]);
            }
            return out;
        }""", cls)
    assert small == []
    page.close()


def test_phone_has_no_horizontal_overflow(browser, pages):
    page = open_lab(browser, pages["sms"], width=390, height=844)
    step(page, 2)
    page.locator(".nbl-msg-input").first.scroll_into_view_if_needed() if page.locator(".nbl-msg-input").count() else None
    wide = []
    for cls in ("nbl-params", "nbl-resp", "nbl-docs", "nbl-maths", "nbl-message"):
        if not page.locator(f".{cls}").count():
            continue
        show_panel(page, cls)
        wide += page.evaluate("""(cls) => {
            const p = document.querySelector('.' + cls), out = [];
            const r = p.getBoundingClientRect();
            if (r.right > window.innerWidth + 0.5 || p.scrollWidth > p.clientWidth + 1) out.push([cls, r.right, p.scrollWidth, p.clientWidth]);
            return out;
        }""", cls)
    assert wide == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.close()
