"""A chart page's HTML starts loading plotly.js at once (dashboard/serve/early.py).

The middleware is driven here as the server drives it (ASGI messages), around Streamlit's own static handler
and gzip middleware, on the app's real index.html; which pages get the tags is checked against what each page
draws (AppTest). The browser side (the build evaluated before the first chart mounts, drawn once) is in
tests/browser/test_first_open.py.
"""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import streamlit
from streamlit.testing.v1 import AppTest

from dashboard import pages
from dashboard.serve import early
from kit import ROOT
from kit.apptest import chart_specs

STATIC = Path(streamlit.__file__).parent / "static"
SOURCES = {"bundle": "app/static/plotly-nbem.min.js.gz", "chunk": "static/js/PlotlyChart.abc.js"}
TAGS = early.snippet(SOURCES, "nbem-js/early_plotly.0123456789abcdef.js")


def call(app, path: str, *, method: str = "GET", headers=(), root_path: str = "") -> tuple[int, dict, bytes]:
    """One request through an ASGI app: (status, headers as a dict of lists, body)."""
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "root_path": root_path,
             "query_string": b"", "headers": [(k.lower().encode(), v.encode()) for k, v in headers],
             "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1)}
    got: dict = {"body": b""}
    asked = []

    async def receive():   # the request once; then, as a server does, nothing until the client leaves
        if not asked:
            asked.append(1)
            return {"type": "http.request", "body": b"", "more_body": False}
        await got["done"].wait()
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            got["status"] = message["status"]
            hs: dict = {}
            for k, v in message.get("headers", []):
                hs.setdefault(k.decode().lower(), []).append(v.decode())
            got["headers"] = hs
        elif message["type"] == "http.response.body":
            got["body"] += message.get("body", b"")
            if not message.get("more_body", False):
                got["done"].set()

    async def main():
        got["done"] = asyncio.Event()
        await asyncio.wait_for(app(scope, receive, send), 30)

    asyncio.run(main())
    return got["status"], got["headers"], got["body"]


def streamlit_static(base_url: str = ""):
    """Streamlit's own static handler (index.html for every page path) inside its own gzip middleware."""
    from streamlit.web.server.starlette.starlette_gzip_middleware import SelectiveGZipMiddleware
    from streamlit.web.server.starlette.starlette_static_routes import create_streamlit_static_handler
    return SelectiveGZipMiddleware(create_streamlit_static_handler(str(STATIC), base_url), minimum_size=10,
                                   base_url=base_url)


def wrapped(inner=None, base_url: str = ""):
    return early.EarlyPlotly(inner or streamlit_static(base_url), paths=early.page_paths(), tags=TAGS,
                             base_url=base_url)


def test_a_chart_page_gets_the_build_preloaded_and_the_module_before_head_ends():
    status, hs, body = call(wrapped(), "/coin", headers=[("Accept-Encoding", "gzip, br")])
    assert status == 200
    page = body.decode()
    original = (STATIC / "index.html").read_text(encoding="utf-8")
    # Streamlit's page, untouched but for the tags right before </head>
    assert page == original.replace("</head>", TAGS.decode() + "</head>", 1)
    assert '<link rel="preload" href="./app/static/plotly-nbem.min.js.gz" as="fetch"' in page
    assert '<script type="module" async src="./nbem-js/early_plotly.0123456789abcdef.js"' in page
    # never compressed, the length is the new one, and nothing lets a browser keep an old copy
    assert "content-encoding" not in hs
    assert hs["content-length"] == [str(len(body))]
    assert "etag" not in hs and "last-modified" not in hs
    assert hs["cache-control"] == ["no-cache"]


def test_the_sources_are_html_escaped_json_in_the_data_attribute():
    tags = early.snippet({"bundle": None, "chunk": 'static/js/"<x>&.js'}, "nbem-js/e.0123456789abcdef.js").decode()
    assert "preload" not in tags                    # no build to preload: the module alone
    assert '"<x>' not in tags and "&quot;" in tags and "&lt;x&gt;" in tags and "&amp;" in tags
    import html
    import re
    value = re.search(r'data-nbem-plotly="([^"]*)"', tags).group(1)
    assert json.loads(html.unescape(value)) == {"bundle": None, "chunk": 'static/js/"<x>&.js'}


@pytest.mark.parametrize("path", ["/", "/coin", "/smoothing", "/climb"])
def test_every_chart_page_and_the_default_page_get_it(path):
    assert TAGS in call(wrapped(), path)[2]


@pytest.mark.parametrize("path", ["/guided", "/vocabulary", "/no_such_page", "/static/js/x.js", "/favicon.png",
                                  "/coin/more"])
def test_other_paths_pass_through_untouched(path):
    direct = call(streamlit_static(), path, headers=[("Accept-Encoding", "gzip")])
    through = call(wrapped(), path, headers=[("Accept-Encoding", "gzip")])
    assert through == direct
    assert TAGS not in through[2]


def test_other_methods_pass_through_untouched():
    head = call(wrapped(), "/coin", method="HEAD")
    assert head == call(streamlit_static(), "/coin", method="HEAD") and "etag" in head[1]
    from starlette.exceptions import HTTPException
    with pytest.raises(HTTPException) as err:     # the static files' own 405, which Starlette turns into a page
        call(wrapped(), "/coin", method="POST")
    assert err.value.status_code == 405


def test_under_a_base_url_path_or_a_proxys_root_path_the_page_is_found():
    assert TAGS in call(wrapped(base_url="class/room"), "/class/room/coin")[2]
    assert TAGS in call(wrapped(base_url="class/room"), "/class/room")[2]
    assert TAGS not in call(wrapped(base_url="class/room"), "/class/room/guided")[2]
    assert TAGS in call(wrapped(), "/lab/coin", root_path="/lab")[2]


def _app_answering(status: int, content_type: str, body: bytes, chunks: int = 1):
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
                                (b"etag", b'"abc"')]})
        step = max(1, len(body) // chunks)
        parts = [body[i:i + step] for i in range(0, len(body), step)] or [b""]
        for i, part in enumerate(parts):
            await send({"type": "http.response.body", "body": part, "more_body": i < len(parts) - 1})
    return app


def test_a_page_sent_in_pieces_is_joined_then_changed():
    page = b"<html><head><title>x</title></head><body>" + b"y" * 5000 + b"</body></html>"
    status, hs, body = call(wrapped(_app_answering(200, "text/html; charset=utf-8", page, chunks=7)), "/coin")
    assert body == page.replace(b"</head>", TAGS + b"</head>")
    assert hs["content-length"] == [str(len(body))] and "etag" not in hs


@pytest.mark.parametrize("status, ctype, page", [
    (200, "application/json", b'{"head": "</head>"}'),         # not a page
    (500, "text/html", b"<html><head></head></html>"),        # an error page
    (200, "text/html", b"<html><body>no head</body></html>"),  # a page without </head> (a future Streamlit)
])
def test_anything_else_is_left_as_it_was(status, ctype, page):
    got = call(wrapped(_app_answering(status, ctype, page)), "/coin")
    assert got[0] == status and got[2] == page
    assert got[1]["content-length"] == [str(len(page))]
    if status == 200 and ctype == "text/html":
        assert got[1]["etag"] == ['"abc"']               # unchanged, so still the file's own


def test_without_a_plotly_source_or_the_apps_routes_there_is_no_middleware(monkeypatch):
    from dashboard.serve import modules, plotly_build
    monkeypatch.setattr(modules, "_served", True)
    assert len(early.middleware()) == 1
    monkeypatch.setattr(plotly_build, "plotly_sources", lambda: None)
    assert early.middleware() == []
    monkeypatch.undo()
    monkeypatch.setattr(modules, "_served", False)
    assert early.middleware() == []


def test_the_served_module_is_the_early_loader_with_its_imports(monkeypatch):
    from dashboard.serve import modules
    monkeypatch.setattr(modules, "_served", True)
    mw = early.middleware()[0]
    path = mw.kwargs["tags"].decode().split('async src="./')[1].split('"')[0]
    name = path.split("/", 1)[1]
    text = modules._modules[name][0].decode()
    assert "requestIdleCallback" in text and "function loadPlotly" in text and "function warmUp" in text


def test_the_pages_marked_as_drawing_charts_are_the_pages_that_draw_charts():
    """What dashboard/pages.py says (charts=True) against what each page draws when it opens, by AppTest:
    a plotly chart, or the lesson's player (its charts are drawn in the browser)."""
    assert early.page_paths() == {p.url_path for p in pages.PAGES if p.charts}
    assert "" in early.page_paths()           # the lesson, the default page at the app's root
    for p in pages.PAGES:
        at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=300)
        at.switch_page(p.path).run()
        assert not at.exception, p.path
        if p is pages.LESSON:
            drawn = any("nbem_player" in str(getattr(el, "proto", "")) for el in at.main) or bool(chart_specs(at))
        else:
            drawn = bool(chart_specs(at))
        assert drawn == p.charts, f"{p.path}: charts={p.charts} in dashboard/pages.py, but it draws " \
                                  f"{'charts' if drawn else 'none'}"
