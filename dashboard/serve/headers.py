"""Security headers on every response the app serves (an ASGI middleware, dashboard/server.py).

Streamlit's own ``index.html`` (the teacher's page, and whatever path falls through to it: ``/CLASS/<id>``,
``/class;x/<id>``, ``/./class/<id>``) comes without any; so does every other response of Streamlit's.
:class:`SecurityHeaders` adds, where the response does not say them itself (the class routes set stricter
ones of their own, dashboard/class_link/routes.py):

* on every response: ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer`` (a class
  link or a share id in the URL never leaves in a Referer);
* on HTML: ``Content-Security-Policy`` :data:`APP_CSP` and ``X-Frame-Options: SAMEORIGIN``. The app's
  pages may be framed only by the app itself (Streamlit draws components in iframes of its own origin);
  no other site can frame the teacher's page. Plugins and ``<base>`` are refused and forms post only to
  the app. Scripts and styles are not restricted further: Streamlit's components run inline scripts in
  ``srcdoc`` frames, which inherit the page's policy.
"""
from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware

APP_CSP = "frame-ancestors 'self'; object-src 'none'; base-uri 'self'; form-action 'self'"
ALWAYS = (("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer"))
HTML = (("content-security-policy", APP_CSP), ("x-frame-options", "SAMEORIGIN"))


class SecurityHeaders:
    """ASGI middleware: the headers above on every HTTP response that lacks them."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(raw=list(message.get("headers", [])))
                extra = ALWAYS + (HTML if headers.get("content-type", "").lower().startswith("text/html") else ())
                for name, value in extra:
                    if name not in headers:
                        headers[name] = value
                message = {**message, "headers": headers.raw}
            await send(message)

        await self.app(scope, receive, with_headers)


def middleware() -> list:
    return [Middleware(SecurityHeaders)]
