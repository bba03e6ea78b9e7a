"""Streamlit's AppTest, as the app's tests use it: open a page of the app as a first request would, and read
what it drew (metrics, texts, every element's proto, the plotly specs)."""
from __future__ import annotations

import json

from kit import ROOT

#: the app's entry file (st.navigation over the pages in dashboard/views/)
APP = str(ROOT / "dashboard" / "app.py")


def run(at):
    """Run the script once more and fail with its exception, if it raised one; returns ``at``."""
    at.run()
    assert not at.exception, at.exception
    return at


def page_text(at) -> str:
    """Every element proto of an AppTest page (main + sidebar), as text."""
    out, stack = [], [at._tree]
    while stack:
        node = stack.pop()
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            stack.extend(children.values())
    return "\n".join(out)


def chart_specs(at) -> list[dict]:
    """The plotly figures of an AppTest page, each parsed from the JSON Streamlit sends.

    Read them as JSON, never by searching the raw string: how Streamlit serialises the
    spec (non-ASCII as ``\\u03bb`` or as UTF-8, key order, spacing) changes between releases.
    """
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart") if c.proto.spec]


def spec_strings(spec) -> str:
    """Every string inside a parsed figure spec (titles, trace names, annotations, ticks), joined
    by newlines: what a test searches for words shown on a chart."""
    out, stack = [], [spec]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return "\n".join(out)


def chart_with(at, text: str) -> dict:
    """The first figure of the page that shows ``text`` somewhere (title, trace name, annotation)."""
    for spec in chart_specs(at):
        if text in spec_strings(spec):
            return spec
    raise AssertionError(f"no chart on the page shows {text!r}")


def guided_narrative(at) -> str:
    """The guided lesson's panel of a page (its title, then its text), in the main area under the page's
    title; "" when the page shows none. Fails when a lesson's narrative is drawn in the sidebar."""
    assert not any("Guided lesson" in m.value for m in at.sidebar.markdown), "the narrative is in the sidebar"
    boxes = [e for e in at.main.expander if e.label.startswith("Guided lesson")]
    return " ".join(e.label + " " + " ".join(m.value for m in e.markdown) for e in boxes)


def dashes_without_reason(at) -> list[str]:
    """The labels of the metrics on a page that show "—" with nothing under them to say why."""
    return [m.label for m in at.metric if m.value == "—" and not (m.proto.delta or "").strip()]
