"""Bidi controls in the lab's data never reorder what a page shows (nblab/js/dom.js, lab.css), in Chromium.

The offline file is written with data whose names and texts still hold every bidi control (put in after
nblab.data.lab_data, which drops them, as data from elsewhere could): the page drops them before it draws,
and every element showing text is a bidi island (``unicode-bidi: isolate``)."""
from __future__ import annotations

import pytest

from kit.browser import require_chromium
from kit.lab_page import close_ok, open_lab

pytestmark = pytest.mark.browser
sync_api = require_chromium()

CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def test_bidi_controls_in_the_data_are_dropped_and_text_is_isolated(browser, tmp_path):
    from nblab.data import lab_data
    from nblab.page import write_lab
    data = lab_data("sms_spam")
    data["classNames"] = [f"{n}\u202e" for n in data["classNames"]]
    data["name"] = "mail\u202e" + CONTROLS
    data["texts"] = [f"\u2067{t}\u2069{CONTROLS}" for t in data["texts"]]
    path = write_lab(tmp_path / "bidi.html", data, hidden=50)
    o = open_lab(browser, path, viewport={"width": 1280, "height": 900})
    o.press("ArrowRight", 2)
    o.page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    o.settle()
    found = o.ev("(cs) => { const t = document.body.innerText + document.title;"
                 " return [...new Set([...t].filter(c => cs.includes(c)))].map(c => c.codePointAt(0).toString(16)); }",
                 CONTROLS)
    assert found == [], found
    body = o.page.locator("body").inner_text()
    assert "Accuracy" in body and "spam" in body
    # every element that shows text is a bidi island: a right-to-left name stays in its box
    not_isolated = o.ev("""() => [...document.querySelectorAll(`.lab-root p, .lab-root span, .lab-root td, .lab-root th,
        .lab-root li, .lab-root label, .lab-root button, .lab-root option, .lab-root h2, .lab-root h3`)]
        .filter(e => e.textContent.trim() && getComputedStyle(e).unicodeBidi !== 'isolate').map(e => e.tagName).slice(0, 5)""")
    assert not_isolated == [], not_isolated
    close_ok(o)
