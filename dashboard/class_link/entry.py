"""How a request under ``/class/`` reaches the class routes: ahead of Streamlit's own middleware, within a
budget per client.

:class:`ClassLink` is an ASGI middleware (``st.App(middleware=...)``, dashboard/server.py). A request for
``/class`` or ``/class/...`` goes straight to the routes of dashboard/class_link/routes.py; everything else
goes on to Streamlit. The class routes keep every body ready in both forms (gzip and not), so they skip
Streamlit's gzip middleware, which would otherwise compress an identity answer again on every request
whose ``Accept-Encoding`` merely mentions gzip (``gzip;q=0`` too) and add a second ``Vary``.

**The budget.** Each client (its network address as the app sees it: behind the deployment's HAProxy the
``X-Forwarded-For`` address, which uvicorn trusts from 127.0.0.1; an IPv6 address by its /64) has two token
buckets, each holding at most ``BURST_SECONDS`` (20) seconds of its rate:

* requests: ``NBLAB_CLASS_BUDGET`` tokens a second (default 200). A request costs one token, plus
  ``STORE_READ_COST`` (20) when it has to ask the store (a class state that is not in this process's read
  cache, a shared data set's check), or ``ANSWER_COST`` (2) for a student's answer or its read-back
  (dashboard/class_link/answers.py bounds answers per token and per question besides);
* bytes, for the routes with big bodies (the data sets and the assets): ``NBLAB_CLASS_MB_PER_S`` MB a
  second (default 10), spent by what each answer sent; a client in debt waits before its next download,
  while its polls of the state go on.

A whole class behind one school address (300 students polling every 2 s from the read cache, each loading
the page and its data once) fits, while one client's flood of data downloads, state polls or random class
ids gets ``429 Too Many Requests`` with ``Retry-After`` long before it takes the process's event loop, its
store reads or its shared read cache from everyone else. The clients' buckets are kept for the newest
``MAX_CLIENTS`` clients.
"""
from __future__ import annotations

import math
import os
import threading
import time
from collections import OrderedDict

from starlette.routing import Router
from streamlit import config

from dashboard.serve import sessions

DEFAULT_RATE = 200.0        # request tokens a second per client
DEFAULT_MB_PER_S = 10.0     # MB a second of data and asset bodies per client
BURST_SECONDS = 20.0        # a full bucket holds this many seconds of tokens
STORE_READ_COST = 20        # tokens a store read costs on top of its request's
ANSWER_COST = 2             # tokens a student's answer (one small write) costs on top of its request's: a
                            # lecture hall behind one address answering one question fits the burst
BODY_UNIT = 64 * 1024       # bytes of a body that cost one token
MAX_CLIENTS = 50_000
SCOPE_KEY = "nblab.class_client"      # the request's client, in the ASGI scope
SCOPE_BUDGET = "nblab.class_budget"   # the Budget it is counted in


def _env_rate(name: str, default: float) -> float:
    try:
        v = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return v if math.isfinite(v) and v > 0 else default


def _rate() -> float:
    return _env_rate("NBLAB_CLASS_BUDGET", DEFAULT_RATE)


def _byte_rate() -> float:
    """The bytes bucket's rate, in BODY_UNITs a second."""
    return _env_rate("NBLAB_CLASS_MB_PER_S", DEFAULT_MB_PER_S) * 1024 * 1024 / BODY_UNIT


def client_key(scope) -> str:
    """The client of an ASGI request, by the rule of dashboard.serve.client(): its address (IPv6 by its
    /64, an IPv4-mapped one as IPv4), or "address:unknown" when the server gives none."""
    return sessions.address_key((scope.get("client") or (None,))[0])


class Budget:
    """Token buckets per client. ``take`` spends tokens only when the client has them; ``charge`` spends
    them regardless (the bucket may go into debt: the client then waits until it is paid back)."""

    def __init__(self, rate: float | None = None, burst: float | None = None, clock=time.monotonic):
        self.rate = float(rate) if rate is not None else _rate()
        self.burst = float(burst) if burst is not None else self.rate * BURST_SECONDS
        self.clock = clock
        self._lock = threading.Lock()
        self._buckets: "OrderedDict[str, list[float]]" = OrderedDict()

    def _bucket(self, key: str) -> list[float]:
        now = self.clock()
        b = self._buckets.get(key)
        if b is None:
            b = self._buckets[key] = [self.burst, now]
            while len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
            b[0] = min(self.burst, b[0] + (now - b[1]) * self.rate)
            b[1] = now
        return b

    def take(self, key: str, cost: float) -> bool:
        with self._lock:
            b = self._bucket(key)
            if b[0] < cost:
                return False
            b[0] -= cost
            return True

    def charge(self, key: str, cost: float) -> None:
        with self._lock:
            self._bucket(key)[0] -= cost

    def retry_after(self, key: str, cost: float = 1.0) -> int:
        """Whole seconds until the client has ``cost`` tokens again (at least 1)."""
        with self._lock:
            have = self._bucket(key)[0]
        return max(1, math.ceil((cost - have) / self.rate))


BUDGET = Budget()
BYTES = Budget(rate=_byte_rate())
BULK = ("/class/data/", "/class/assets/")   # the routes whose answers spend the bytes bucket


def store_read_allowed(scope, cost: float = STORE_READ_COST) -> bool:
    """Spend a store read's tokens (``cost``) of this request's client; False when it has not got them (the
    route then answers 429 without asking the store). A request that did not come through
    :class:`ClassLink` (a test calling a route) is not counted."""
    key, budget = scope.get(SCOPE_KEY), scope.get(SCOPE_BUDGET)
    return key is None or budget is None or budget.take(key, cost)


def retry_after(scope, cost: float = STORE_READ_COST) -> int:
    """Seconds until this request's client can afford a store read (``cost`` tokens) again."""
    key, budget = scope.get(SCOPE_KEY), scope.get(SCOPE_BUDGET)
    return 1 if key is None or budget is None else budget.retry_after(key, cost)


def _strip(path: str, prefix: str) -> str:
    prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        return path[len(prefix):]
    return path


class ClassLink:
    """ASGI middleware: ``/class`` and ``/class/...`` to the class routes, within the client's budget;
    anything else to Streamlit."""

    def __init__(self, app, *, routes: list, refuse, base_url: str | None = None, budget: Budget | None = None,
                 bytes_budget: Budget | None = None):
        self.app = app
        self.router = Router(routes=routes)
        self.refuse = refuse        # (path, retry_after) -> Response: the 429 of the routes' kind
        self.base_url = base_url
        self.budget = budget
        self.bytes_budget = bytes_budget

    def _base(self) -> str:
        if self.base_url is None:
            try:
                self.base_url = str(config.get_option("server.baseUrlPath") or "")
            except Exception:  # pragma: no cover - an option renamed in a future Streamlit
                self.base_url = ""
        return self.base_url

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        root = scope.get("root_path", "")
        path = _strip(_strip(scope.get("path", ""), root), self._base())
        if path != "/class" and not path.startswith("/class/"):
            await self.app(scope, receive, send)
            return
        budget = self.budget or BUDGET
        key = client_key(scope)
        bulk = path.startswith(BULK)
        spent = self.bytes_budget or BYTES
        if bulk and not spent.take(key, 0.0):      # in debt from earlier downloads: wait
            await self.refuse(path, spent.retry_after(key, 0.0))(scope, receive, send)
            return
        if not budget.take(key, 1):
            await self.refuse(path, budget.retry_after(key))(scope, receive, send)
            return
        base = self._base().strip("/")
        scope = dict(scope, **{SCOPE_KEY: key, SCOPE_BUDGET: budget, "root_path": root + ("/" + base if base else "")})
        if not bulk:
            await self.router(scope, receive, send)
            return

        async def counted(message):
            if message["type"] == "http.response.body":
                n = len(message.get("body", b""))
                if n:
                    spent.charge(key, n / BODY_UNIT)
            await send(message)

        await self.router(scope, receive, counted)
