"""Size limits on a request's header and body in the server itself, for a server exposed without the proxy.

``streamlit run dashboard/server.py`` serves the app with uvicorn, whose httptools protocol keeps a
request's header, however long, until it ends: a 96 MB header was read whole (10.6 s), eight of 32 MB in
parallel raised the process's memory by 210 MB and slowed every other student's poll. :func:`install`
gives that protocol (uvicorn.protocols.http.httptools_impl.HttpToolsProtocol, the one uvicorn picks when
httptools is installed; the h11 one already stops a header at 16 KB) two limits:

* the request line and headers together: ``NBLAB_MAX_HEADER_KB`` (default 64 KB, Tornado's default). Over
  it, the request gets ``431 Request Header Fields Too Large`` as soon as that many bytes arrived, and
  the connection is closed: the header is never held whole;
* the body: ``NBLAB_MAX_BODY_MB`` (default Streamlit's ``server.maxUploadSize`` plus 1 MB for a form's
  framing). A Content-Length over it gets ``413 Payload Too Large`` before the app sees the request;
  a chunked body that grows over it has its connection closed.

A refused connection is answered, then read no more, and closed a moment later (so that the client has
the answer before the connection ends). uvicorn calls the methods patched here from its event loop only.
"""
from __future__ import annotations

import logging
import os

from streamlit import config

log = logging.getLogger(__name__)

DEFAULT_HEADER_KB = 64
CLOSE_AFTER = 1.0    # s between a refusal's answer and closing its connection
REASONS = {413: "Payload Too Large", 431: "Request Header Fields Too Large"}
MESSAGES = {413: "The request's body is larger than this server takes.",
            431: "The request's header is larger than this server takes."}
_LIMITS: dict[str, int] = {}


def _env_number(name: str) -> float | None:
    try:
        v = float(os.environ.get(name, ""))
    except ValueError:
        return None
    return v if v > 0 else None


def max_header_bytes() -> int:
    if "header" not in _LIMITS:
        kb = _env_number("NBLAB_MAX_HEADER_KB") or DEFAULT_HEADER_KB
        _LIMITS["header"] = int(kb * 1024)
    return _LIMITS["header"]


def max_body_bytes() -> int:
    if "body" not in _LIMITS:
        mb = _env_number("NBLAB_MAX_BODY_MB")
        if mb is None:
            try:
                mb = float(config.get_option("server.maxUploadSize")) + 1.0
            except Exception:  # noqa: BLE001 - an option renamed in a future Streamlit
                mb = 201.0
        _LIMITS["body"] = int(mb * 1024 * 1024)
    return _LIMITS["body"]


class _Refused(Exception):
    """Raised from a parser callback: httptools stops parsing, uvicorn's error path answers."""


def _answer(proto, status: int) -> None:
    """Answer ``status`` on this connection, read no more from it, close it a moment later."""
    if getattr(proto, "_nblab_refused", False):
        return
    proto._nblab_refused = True
    msg = MESSAGES[status].encode()
    head = (f"HTTP/1.1 {status} {REASONS[status]}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"content-length: {len(msg)}\r\nconnection: close\r\nx-content-type-options: nosniff\r\n\r\n")
    transport = proto.transport
    try:
        transport.write(head.encode() + msg)
        transport.pause_reading()
    except Exception:  # noqa: BLE001 - the client went away meanwhile
        pass
    if proto.cycle is not None:
        proto.cycle.disconnected = True        # the app, if it runs, sees a client that left
        proto.cycle.message_event.set()
    try:
        proto.loop.call_later(CLOSE_AFTER, transport.close)
    except Exception:  # noqa: BLE001
        transport.close()
    log.warning("request refused with %d: %s (client %s)", status, MESSAGES[status],
                (proto.client or ("?",))[0])


def install() -> bool:
    """Give uvicorn's httptools protocol the limits above; False when it is not there (nothing changed)."""
    try:
        from uvicorn.protocols.http import httptools_impl as H
    except Exception:  # noqa: BLE001 - no httptools: uvicorn uses h11, whose header limit is 16 KB
        return False
    cls = H.HttpToolsProtocol
    if getattr(cls, "_nblab_limits", False):
        return True
    needed = ("data_received", "on_url", "on_headers_complete", "on_body", "on_message_complete",
              "send_400_response")
    if not all(callable(getattr(cls, n, None)) for n in needed):
        log.warning("uvicorn's httptools protocol has changed: the server's header and body limits are off")
        return False
    orig = {n: getattr(cls, n) for n in needed}

    def data_received(self, data: bytes) -> None:
        if getattr(self, "_nblab_refused", False):
            return
        in_head = not getattr(self, "_nblab_head_done", False)
        if in_head:
            self._nblab_head = getattr(self, "_nblab_head", 0) + len(data)
        orig["data_received"](self, data)
        if in_head and not getattr(self, "_nblab_head_done", False) and self._nblab_head > max_header_bytes():
            _answer(self, 431)      # a header still not ended after the limit's bytes

    def on_url(self, url: bytes) -> None:
        self._nblab_head_done = False
        orig["on_url"](self, url)

    def on_headers_complete(self) -> None:
        self._nblab_head_done = True
        self._nblab_head = 0
        self._nblab_body = 0
        size = len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers)
        if size > max_header_bytes():
            self._nblab_status = 431
            raise _Refused()
        for n, v in self.headers:
            if n == b"content-length":
                try:
                    too_big = int(v) > max_body_bytes()
                except ValueError:
                    too_big = False     # httptools refuses a bad length itself
                if too_big:
                    self._nblab_status = 413
                    raise _Refused()
        orig["on_headers_complete"](self)

    def on_body(self, body: bytes) -> None:
        self._nblab_body = getattr(self, "_nblab_body", 0) + len(body)
        if self._nblab_body > max_body_bytes() and not (self.parser.should_upgrade() and self._should_upgrade()):
            self._nblab_status = 413
            raise _Refused()
        orig["on_body"](self, body)

    def on_message_complete(self) -> None:
        self._nblab_head_done = False
        self._nblab_head = 0
        orig["on_message_complete"](self)

    def send_400_response(self, msg: str) -> None:
        status = getattr(self, "_nblab_status", None)
        if status is None:
            orig["send_400_response"](self, msg)
        else:
            _answer(self, status)

    for name, fn in (("data_received", data_received), ("on_url", on_url),
                     ("on_headers_complete", on_headers_complete), ("on_body", on_body),
                     ("on_message_complete", on_message_complete), ("send_400_response", send_400_response)):
        setattr(cls, name, fn)
    cls._nblab_limits = True
    return True
