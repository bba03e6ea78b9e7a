"""The browser code of the app's components, served once per browser instead of in every element.

A components-v2 component given its JavaScript as text sends that text inside every element it draws: the
lesson player's ~95 KB went to the browser four times on a first open (preload, charts, parameters, lower
panels) and twice on every Step, 95 % of a Step's bytes. With the app's routes (dashboard/server.py calls
:func:`serve` before anything registers a component), :func:`component_js` gives a component a stub of a
few hundred bytes instead: it imports the module from ``GET /nbem-js/<name>.<hash>.js`` (immutable, gzipped
once, kept by the browser) and hands it each mount. Without the routes (``streamlit run dashboard/app.py``)
the component keeps its whole text, as before.

A bad name is a 404 whose body never repeats it; nothing raises past the handler.
"""
from __future__ import annotations

import gzip
import hashlib
import logging
import re
import threading

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

log = logging.getLogger(__name__)

PREFIX = "nbem-js"
IMMUTABLE = "public, max-age=31536000, immutable"
_NAME = re.compile(r"^[a-z_]{1,40}\.[0-9a-f]{16}\.js$")

_served = False
_lock = threading.Lock()
#: name -> (module text, its gzip, ETag)
_modules: dict[str, tuple[bytes, bytes, str]] = {}

# The component's JavaScript when its module is served: the module is imported once per page (the promise is
# kept on window, per URL) and each mount is handed to its default export. A mount returns its clean-up at
# once, as components v2 asks; it runs the module's own once that has been called.
STUB = """// the component's module is served by the app (dashboard/serve/modules.py) and imported once per page
const PATH = %(path)s;
function base() {
  const s = [...document.querySelectorAll("script[src]")].map((e) => e.src).find((u) => u.includes("/static/js/"));
  return s ? s.slice(0, s.indexOf("/static/js/") + 1) : new URL("./", document.baseURI).href;
}
export default function mount(component) {
  const w = window, loads = (w.__nbemModules = w.__nbemModules || {});
  let cleanup = null, gone = false;
  const run = (m) => { if (!gone) cleanup = m.default(component); };
  const got = loads[PATH];
  if (got && got.module) run(got.module);
  else {
    const entry = got || (loads[PATH] = { module: null, promise: null });
    entry.promise = entry.promise || import(new URL(PATH, base()).href).then((m) => (entry.module = m));
    entry.promise.then(run, (e) => {
      entry.promise = null;   // tried again at the next mount
      component.parentElement.textContent = "This part of the page could not be loaded: reload the page.";
      console.error(e);
    });
  }
  return () => { gone = true; if (typeof cleanup === "function") cleanup(); };
}
"""


def serve() -> None:
    """The app's routes are there (dashboard/server.py): components registered from now on get a stub."""
    global _served
    _served = True


def serving() -> bool:
    return _served


def module_name(stem: str, text: str) -> str:
    """``<stem>.<16 hex digits of the text's SHA-256>.js``: a new text is a new name, so it can be cached for good."""
    return f"{stem}.{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}.js"


def register(stem: str, text: str) -> str:
    """Serve ``text`` as an ES module; returns its URL path relative to the app's root
    (``nbem-js/<stem>.<hash>.js``, :func:`module_name`)."""
    name = module_name(stem, text)
    body = text.encode("utf-8")
    with _lock:
        if name not in _modules:
            _modules[name] = (body, gzip.compress(body, 6), '"' + name[len(stem) + 1:-3] + '"')
    return f"{PREFIX}/{name}"


def component_js(stem: str, text: str) -> str:
    """The JavaScript to register a component with: ``text`` itself, or, when the app serves modules, a stub
    that imports ``text`` from its route (:func:`register`)."""
    if not _served:
        return text
    return STUB % {"path": repr(register(stem, text)).replace("'", '"')}


def _accepts_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("accept-encoding", "").lower()


async def module_route(request: Request) -> Response:
    try:
        name = request.path_params.get("name", "")
        got = _modules.get(name) if _NAME.match(name) else None
        if got is None:
            return Response("There is no such file.", status_code=404, media_type="text/plain; charset=utf-8",
                            headers={"Cache-Control": "no-store"})
        body, gz, etag = got
        headers = {"Cache-Control": IMMUTABLE, "ETag": etag, "Vary": "Accept-Encoding",
                   "X-Content-Type-Options": "nosniff"}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if _accepts_gzip(request):
            headers["Content-Encoding"] = "gzip"
            return Response(gz, media_type="text/javascript; charset=utf-8", headers=headers)
        return Response(body, media_type="text/javascript; charset=utf-8", headers=headers)
    except Exception:
        log.exception("module route failed")
        return Response("The server could not answer this request.", status_code=500,
                        media_type="text/plain; charset=utf-8")


def routes() -> list[Route]:
    return [Route(f"/{PREFIX}/{{name}}", module_route, methods=["GET"])]
