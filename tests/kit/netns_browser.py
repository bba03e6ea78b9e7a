"""Chromium driven through stdin/stdout, one JSON line per command: run inside a network namespace by
tests/kit/netns.py (``Browser``), whose test process cannot reach the namespace's addresses itself.

Commands (``{"op": ...}``): ``page`` (name, viewport) opens a page in a fresh context; ``goto`` (name, url);
``wait_function`` (name, js, timeout); ``eval`` (name, js); ``click_role`` (name, role, label); ``press`` (name, key); ``wait_text``
(name, text, timeout); ``text`` (name, selector) the inner text of the first match; ``all_text`` (name,
selector) of every match; ``screenshot`` (name, path); ``requests`` (name) every URL the page requested; ``wait_idle`` (name) kit.browser.wait_idle; ``quit``.
Each answer is ``{"value": ...}`` or ``{"error": "..."}``."""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kit.browser import ARGS, CHROMIUM, wait_idle  # noqa: E402

#: Chromium's own background services (account sign-in, push messaging's registration, autofill hints, its
#: updater): the browser asks for them by itself, whatever page it shows and at moments of its own (a loaded
#: machine moves them into the test's window), so they are answered "no such host" inside the browser: every
#: name under google.com (Google's own services, none a page's asset) and the googleapis.com hosts Chromium
#: calls. Any other name a page asks for (a font's on fonts.googleapis.com, a script's, an image's host) still
#: goes to the namespace's resolver, and every URL the pages requested is checked to be the room's besides.
OWN_SERVICES = ("*.google.com", "content-autofill.googleapis.com", "update.googleapis.com",
                "optimizationguide-pa.googleapis.com", "safebrowsingohttpgateway.googleapis.com")
QUIET = "--host-resolver-rules=" + ", ".join(f"MAP {h} ~NOTFOUND" for h in OWN_SERVICES)


def main() -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[*ARGS, QUIET])
        pages: dict = {}
        requests: dict = {}
        for line in sys.stdin:
            cmd = json.loads(line)
            op = cmd.pop("op")
            try:
                if op == "quit":
                    print(json.dumps({"value": None}), flush=True)
                    break
                page = pages.get(cmd.get("name"))
                if op == "page":
                    ctx = b.new_context(viewport=cmd.get("viewport") or {"width": 1280, "height": 900})
                    page = pages[cmd["name"]] = ctx.new_page()
                    requests[cmd["name"]] = seen = []
                    page.on("request", lambda r, seen=seen: seen.append(r.url))
                    val = None
                elif op == "requests":
                    val = requests[cmd["name"]]
                elif op == "goto":
                    page.goto(cmd["url"], wait_until="domcontentloaded", timeout=120_000)
                    val = page.url
                elif op == "wait_function":
                    page.wait_for_function(cmd["js"], timeout=cmd.get("timeout", 120_000))
                    val = None
                elif op == "eval":
                    val = page.evaluate(cmd["js"])
                elif op == "click_role":
                    page.get_by_role(cmd["role"], name=cmd["label"]).first.click(timeout=60_000)
                    val = None
                elif op == "fill":
                    page.get_by_role(cmd["role"], name=cmd["label"]).first.fill(cmd["value"], timeout=60_000)
                    val = None
                elif op == "press":
                    page.keyboard.press(cmd["key"])
                    val = None
                elif op == "wait_text":
                    page.get_by_text(cmd["text"]).first.wait_for(timeout=cmd.get("timeout", 120_000))
                    val = None
                elif op == "text":
                    loc = page.locator(cmd["selector"]).first
                    loc.wait_for(timeout=cmd.get("timeout", 60_000))
                    val = loc.inner_text()
                elif op == "all_text":
                    val = page.locator(cmd["selector"]).all_inner_texts()
                elif op == "screenshot":
                    page.screenshot(path=cmd["path"])
                    val = cmd["path"]
                elif op == "wait_idle":
                    wait_idle(page)
                    val = None
                else:
                    raise ValueError(f"unknown op {op!r}")
                print(json.dumps({"value": val}), flush=True)
            except Exception as e:   # the test sees the driver's error as its own assertion
                print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)
        b.close()


if __name__ == "__main__":
    main()
