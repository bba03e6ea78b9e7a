"""A chart page's HTML starts loading plotly.js at once (dashboard/serve/early_plotly.js).

Every page of the app is Streamlit's one ``index.html``; its charts are drawn by components that mount ~1 s
after the page's first element on a fresh tab, and only then did plotly.js get fetched, evaluated and set up
(~0.35 s of the tab's main thread, on the critical path of every chart page). :class:`EarlyPlotly` is an ASGI
middleware (``st.App(middleware=...)``, dashboard/server.py) that adds two tags to that HTML when the request
is for a page with ``charts`` in dashboard/pages.py:

* ``<link rel="preload" as="fetch">`` for the app's plotly.js build: its bytes come while Streamlit's own
  code loads;
* ``<script type="module" async>`` of early_plotly.js (served by dashboard/serve/modules.py), which evaluates it
  when the main thread is idle and draws one hidden chart.

Everything else passes through untouched: other paths and methods, a response that is not a 200 HTML page,
and a page without ``</head>`` (a future Streamlit); then the page loads plotly.js as before, when its first
chart mounts. The answer to a chart page is never compressed (the request's Accept-Encoding is dropped: the
HTML is ~8 KB, and Streamlit serves its root page uncompressed too) and carries no ETag or Last-Modified, so a browser never
keeps an old copy naming a module the server no longer has.
"""
from __future__ import annotations

import html
import json
import logging
from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from streamlit import config as st_config

from dashboard import pages
from dashboard.serve import modules, plotly_build
from nblab.bundle import module_text

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]


def page_paths() -> frozenset[str]:
    """URL paths (under the app's root, without slashes) of the pages that draw charts when they open."""
    return frozenset(p.url_path for p in pages.PAGES if p.charts)


def snippet(sources: dict, module_path: str) -> bytes:
    """The tags put before ``</head>``: the build's preload and the module with ``sources`` (plotly_sources)
    in its data attribute. URLs are relative to the page, as Streamlit's own (``./static/...``)."""
    tags = []
    if sources.get("bundle"):
        tags.append(f'<link rel="preload" href="./{html.escape(sources["bundle"])}" as="fetch" '
                    'type="application/gzip" crossorigin="anonymous">')
    tags.append(f'<script type="module" async src="./{html.escape(module_path)}" '
                f'data-nbem-plotly="{html.escape(json.dumps(sources))}"></script>')
    return "".join(tags).encode("utf-8")


def inject(page: bytes, tags: bytes) -> bytes | None:
    """``page`` with ``tags`` before its ``</head>``; None when it has none."""
    i = page.find(b"</head>")
    return None if i < 0 else page[:i] + tags + page[i:]


def _strip(path: str, prefix: str) -> str:
    prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        return path[len(prefix):]
    return path


def route_path(scope, base_url: str) -> str:
    """The request's path under the app's root: the ASGI root_path and Streamlit's server.baseUrlPath
    stripped, without slashes ("" for the root)."""
    path = _strip(scope.get("path", ""), scope.get("root_path", ""))
    return _strip(path, base_url).strip("/")


class EarlyPlotly:
    """ASGI middleware: the tags of :func:`snippet` in the HTML of the pages in ``paths`` (module docstring)."""

    def __init__(self, app, *, paths: frozenset[str], tags: bytes, base_url: str | None = None):
        self.app = app
        self.paths = paths
        self.tags = tags
        self.base_url = base_url

    def _base_url(self) -> str:
        """server.baseUrlPath, read at the first request (the command line's flags are loaded by then)."""
        if self.base_url is None:
            try:
                self.base_url = str(st_config.get_option("server.baseUrlPath") or "")
            except Exception:  # pragma: no cover - an option renamed in a future Streamlit
                self.base_url = ""
        return self.base_url

    def _wants(self, scope) -> bool:
        return (scope["type"] == "http" and scope.get("method") == "GET"
                and route_path(scope, self._base_url()) in self.paths)

    async def __call__(self, scope, receive, send):
        if not self._wants(scope):
            await self.app(scope, receive, send)
            return
        scope = dict(scope)
        scope["headers"] = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"accept-encoding"]
        held: dict = {}
        body: list[bytes] = []

        async def send_page(message):
            kind = message["type"]
            if kind == "http.response.start":
                headers = MutableHeaders(raw=list(message.get("headers", [])))
                if (message.get("status") == 200 and headers.get("content-type", "").startswith("text/html")
                        and "content-encoding" not in headers):
                    held["start"] = message      # the page: held until its whole body is here
                    return
            elif kind == "http.response.body" and "start" in held:
                body.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                start = held.pop("start")
                page = b"".join(body)
                new = inject(page, self.tags)
                headers = MutableHeaders(raw=list(start.get("headers", [])))
                if new is not None:
                    page = new
                    for name in ("etag", "last-modified"):
                        if name in headers:
                            del headers[name]
                headers["content-length"] = str(len(page))
                await send({**start, "headers": headers.raw})
                await send({"type": "http.response.body", "body": page, "more_body": False})
                return
            await send(message)

        await self.app(scope, receive, send_page)


def middleware() -> list:
    """The middleware for ``st.App``: [] when there is no plotly.js to load (no build and no chunk) or
    no page draws charts."""
    try:
        sources = plotly_build.plotly_sources()
        paths = page_paths()
        if not sources or not paths or not modules.serving():
            return []
        path = modules.register("early_plotly", module_text("dashboard/serve/early_plotly.js", ROOT))
    except Exception:  # the pages then load plotly.js when their first chart mounts, as before
        log.exception("plotly.js will not be loaded early")
        return []
    return [Middleware(EarlyPlotly, paths=paths, tags=snippet(sources, path))]
