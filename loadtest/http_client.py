"""A small raw HTTP/1.1 keep-alive client on asyncio streams, cheap enough that 1,000 class-link students
polling every 2 s do not need a second core: GET only, Content-Length and chunked bodies, cookies kept in a
jar shared by a student's connections, one retry on a keep-alive connection the server closed while it was
idle (as browsers do)."""
from __future__ import annotations

import asyncio
import gzip
import json
import time

UA = "Mozilla/5.0 (X11; Linux x86_64) nblab-loadtest/1 (class link)"
ACCEPT_ENCODING = "gzip"
REQUEST_TIMEOUT = 30.0
MAX_BODY = 64 * 1024 * 1024  # a body larger than this is an error (nothing the class page names is)


def now() -> float:
    """CLOCK_MONOTONIC: the same clock in every process of the machine (the teacher's process too)."""
    return time.monotonic()


class HTTPError(Exception):
    pass


class _ClosedBeforeAnswer(Exception):
    pass


class Response:
    __slots__ = ("status", "headers", "body", "wire_bytes", "t_first", "t_end")

    def __init__(self, status: int, headers: dict, body: bytes, wire_bytes: int, t_first: float, t_end: float):
        self.status, self.headers, self.body, self.wire_bytes = status, headers, body, wire_bytes
        self.t_first, self.t_end = t_first, t_end

    def text(self) -> str:
        return self.decoded().decode("utf-8", errors="replace")

    def decoded(self) -> bytes:
        if self.headers.get("content-encoding", "").lower() == "gzip":
            return gzip.decompress(self.body)
        return self.body

    def json(self):
        return json.loads(self.decoded())


def parse_head(head: bytes, jar: dict) -> tuple[int, dict]:
    """The status and the headers (lower-case names, repeated ones joined) of a response head; its
    Set-Cookie values go into ``jar``."""
    status_line, *hlines = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
        raise HTTPError(f"bad status line {status_line[:80]!r}")
    hdrs: dict[str, str] = {}
    for ln in hlines:
        if not ln or ":" not in ln:
            continue
        k, v = ln.split(":", 1)
        k, v = k.strip().lower(), v.strip()
        if k == "set-cookie":
            nv = v.split(";", 1)[0]
            if "=" in nv:
                ck, cv = nv.split("=", 1)
                jar[ck.strip()] = cv.strip()
        hdrs[k] = v if k not in hdrs else hdrs[k] + ", " + v
    return int(parts[1]), hdrs


class HTTPConn:
    """One keep-alive connection to host:port; ``jar`` (a dict) is shared by a student's connections."""

    def __init__(self, host: str, port: int, jar: dict, source: str | None = None):
        self.host, self.port, self.jar, self.source = host, port, jar, source
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.used = 0          # requests answered on the current connection
        self.connects = 0
        self.retries = 0

    async def _open(self) -> None:
        await self.close()
        self.reader, self.writer = await asyncio.open_connection(
            self.host, self.port, limit=1 << 20, local_addr=(self.source, 0) if self.source else None)
        self.used = 0
        self.connects += 1

    async def close(self) -> None:
        w, self.writer, self.reader = self.writer, None, None
        if w is not None:
            try:
                w.close()
                await asyncio.wait_for(w.wait_closed(), 2.0)
            except Exception:  # noqa: BLE001
                pass

    async def get(self, path: str, headers: dict | None = None, timeout: float = REQUEST_TIMEOUT) -> Response:
        """GET ``path``; a keep-alive connection the server closed while idle is reopened and the request
        sent once more (what a browser does for a GET)."""
        return await self.request("GET", path, headers, None, timeout)

    async def post(self, path: str, body: bytes, content_type: str = "application/json",
                   timeout: float = REQUEST_TIMEOUT) -> Response:
        """POST ``body`` to ``path``. Sent once more only when an idle keep-alive connection turns out closed
        before any answer (the server saw nothing; the class answers replace a token's earlier answer)."""
        return await self.request("POST", path, {"Content-Type": content_type}, body, timeout)

    async def request(self, method: str, path: str, headers: dict | None, body: bytes | None,
                      timeout: float = REQUEST_TIMEOUT) -> Response:
        for attempt in (0, 1):
            fresh = self.writer is None or self.used == 0
            if self.writer is None:
                await asyncio.wait_for(self._open(), timeout)
            try:
                return await asyncio.wait_for(self._exchange(method, path, headers or {}, body), timeout)
            except (ConnectionError, asyncio.IncompleteReadError, _ClosedBeforeAnswer) as e:
                await self.close()
                if fresh or attempt or (method != "GET" and not isinstance(e, _ClosedBeforeAnswer)):
                    raise HTTPError(f"{type(e).__name__}: {e}") from None
                self.retries += 1
            except asyncio.TimeoutError:
                await self.close()
                raise HTTPError(f"timeout after {timeout:g} s") from None
        raise HTTPError("unreachable")

    async def _exchange(self, method: str, path: str, headers: dict, body: bytes | None) -> Response:
        await self._send(method, path, headers, body)
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as e:
            if not e.partial:
                raise _ClosedBeforeAnswer("connection closed before the answer") from None
            raise
        t_first = now()
        status, hdrs = parse_head(head, self.jar)
        got, wire = await self._body(status, hdrs)
        self.used += 1
        if hdrs.get("connection", "").lower() == "close":
            await self.close()
        return Response(status, hdrs, got, len(head) + wire, t_first, now())

    async def _send(self, method: str, path: str, headers: dict, body: bytes | None) -> None:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"User-Agent: {UA}",
                 f"Accept-Encoding: {ACCEPT_ENCODING}", "Connection: keep-alive"]
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        for k, v in headers.items():
            lines.append(f"{k}: {v}")
        if self.jar:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.jar.items()))
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        await self.writer.drain()

    async def _body(self, status: int, hdrs: dict) -> tuple[bytes, int]:
        """The body after the head, and its bytes on the wire (framing included)."""
        if status in (204, 304) or 100 <= status < 200:
            return b"", 0
        if "chunked" in hdrs.get("transfer-encoding", "").lower():
            return await self._chunked()
        if "content-length" in hdrs:
            n = int(hdrs["content-length"].split(",")[0])
            if n > MAX_BODY:
                raise HTTPError(f"body over {MAX_BODY} bytes")
            return await self.reader.readexactly(n), n
        body = await self.reader.read(MAX_BODY)   # until the server closes
        hdrs["connection"] = "close"
        return body, len(body)

    async def _chunked(self) -> tuple[bytes, int]:
        chunks, size_total, wire = [], 0, 0
        while True:
            line = await self.reader.readuntil(b"\r\n")
            wire += len(line)
            size = int(line.split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while True:   # trailers, then the empty line
                    t = await self.reader.readuntil(b"\r\n")
                    wire += len(t)
                    if t == b"\r\n":
                        return b"".join(chunks), wire
            size_total += size
            if size_total > MAX_BODY:
                raise HTTPError(f"body over {MAX_BODY} bytes")
            chunks.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)
            wire += size + 2
