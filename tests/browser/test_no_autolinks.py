"""Streamlit's own Markdown renderer (in Chromium) shows no live link for a user string that went
through derive.md_escape: URLs (http://, https://, www., mailto:) and e-mail addresses stay text.

GFM turns URLs in text into links after the backslash escapes are read, so this is checked where it
happens: a tiny Streamlit app renders each string as st.markdown, st.caption and inside a warning,
and the page's links are counted. The raw strings are rendered too, as the control (they do link)."""
from __future__ import annotations

import textwrap

from kit import ROOT
from kit.browser import require_chromium
from kit.server import streamlit_server

sync_api = require_chromium()

URLS = ['=HYPERLINK("http://127.0.0.1:8799/x","y")', "https://evil.example/a?b=1", "see www.evil.example",
        "mailto:pupil@school.example", "write to pupil@school.example", "ftp://files.example/x", "_http://u.example"]


def test_escaped_urls_are_never_links_in_chromium(tmp_path, browser):
    app = tmp_path / "probe.py"
    app.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import streamlit as st
        from dashboard.ui.derive import md_escape
        urls = {URLS!r}
        with st.container(key="escaped"):
            for u in urls:
                st.markdown("Class " + md_escape(u, 200))
                st.caption("Caption " + md_escape(u, 200))
                st.warning("- `k=v` is " + md_escape(u, 200))
        with st.container(key="raw"):
            for u in urls:
                st.markdown("Raw " + u)
        st.markdown("done-marker")
    """))
    with streamlit_server(root=tmp_path, entry=app.name) as srv:
        page = browser.new_page()
        try:
            page.goto(srv.url + "/")
            page.get_by_text("done-marker").wait_for(timeout=60_000)
            escaped = page.eval_on_selector_all(".st-key-escaped a", "els => els.map(e => e.href)")
            raw = page.eval_on_selector_all(".st-key-raw a", "els => els.map(e => e.href)")
            text = page.inner_text(".st-key-escaped")
        finally:
            page.close()
    assert len(raw) >= 5, f"the control did not link ({raw}): the probe does not see Streamlit's links"
    assert escaped == [], escaped
    for u in ("127.0.0.1:8799/x", "https://evil.example/a?b=1", "www.evil.example", "pupil@school.example"):
        assert u in text.replace("\u2060", ""), (u, text[:500])
