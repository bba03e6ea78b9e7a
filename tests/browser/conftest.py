"""The browser tier's shared parts: one Chromium for the session, and one Streamlit server per (entry,
environment) for the session, started on first use. Every test opens its pages in a context of its own
(``browser.new_page()`` / ``browser.new_context()``), so no cookie, storage or session leaks between tests;
a test that changes what a server holds (its store, its limits) starts a server of its own instead."""
from __future__ import annotations

import contextlib

import pytest

from kit.browser import launch, require_chromium
from kit.server import streamlit_server


@pytest.fixture(scope="session")
def browser():
    """The session's one Chromium (Playwright, Debian's /usr/bin/chromium)."""
    sync_api = require_chromium()
    with sync_api.sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture(scope="session")
def app_server():
    """``app_server(*args, env=None, entry=None)``: the base URL of a running ``streamlit run`` with those
    command-line arguments, environment and entry; the first call starts it, later calls with the same
    arguments get the same server, and all stop at the session's end."""
    servers: dict = {}
    with contextlib.ExitStack() as stack:
        def get(*args: str, env: dict | None = None, entry: str | None = None, timeout: float = 120.0) -> str:
            key = (args, tuple(sorted((env or {}).items())), entry)
            if key not in servers:
                servers[key] = stack.enter_context(streamlit_server(*args, env=env, entry=entry, timeout=timeout))
            return servers[key].url
        yield get


@pytest.fixture(scope="session")
def server(app_server):
    """The base URL of the session's app server (the README's run command: dashboard/server.py)."""
    return app_server()


@pytest.fixture(scope="module", autouse=True)
def _close_the_modules_pages(request):
    """At the end of each test module, close every browser context (and its pages) the module opened, as a
    browser of the module's own would have been: no page of one module runs on beside the next."""
    b = request.getfixturevalue("browser")
    b = getattr(b, "b", b)  # a module may wrap the session's browser
    before = set(map(id, b.contexts))
    yield
    for ctx in list(b.contexts):
        if id(ctx) not in before:
            ctx.close()
