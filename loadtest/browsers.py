"""Real Chromium pages (Playwright, Debian's /usr/bin/chromium) beside the simulated students.

* ``browser_check``: a few lesson pages that load, press Step and look for tracebacks;
* ``browser_follow_check``: class-link pages (spread over the ramp) that must draw
  (``window.__nblab.ready``) and, where the page has the follow UI, follow the teacher: every teacher Step
  while a page is open must reach it (``window.__nblab.follow.applied``) within 15 s with the teacher's t.
"""
from __future__ import annotations

import asyncio
import contextlib
import re
import time
from pathlib import Path

BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MAX_STEPS_PER_PAGE = 20
MAX_FOLLOWS_PER_PAGE = 30


@contextlib.asynccontextmanager
async def chromium(executable: str, out: dict, extra_args: tuple[str, ...] = ()):
    """A Chromium browser, or None (the reason appended to out["errors"]) when it cannot run here."""
    try:
        from playwright.async_api import async_playwright
    except Exception as e:  # noqa: BLE001
        out["errors"].append(f"playwright unavailable: {e!r}")
        yield None
        return
    if not Path(executable).exists():
        out["errors"].append(f"{executable} not found: browser check skipped")
        yield None
        return
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=executable, args=[*extra_args, *BROWSER_ARGS],
                                          headless=True)
        try:
            yield browser
        finally:
            await browser.close()


# ---------------------------------------------------------------------------- the lesson page
async def browser_check(url: str, n: int, deadline: float, executable: str) -> dict:
    """A few real Chromium pages next to the simulated students: load, Step, look for tracebacks."""
    out = {"pages": n, "loaded": 0, "steps": 0, "step_latencies": [], "load_latencies": [], "errors": []}
    async with chromium(executable, out, ("--headless",)) as browser:
        if browser is not None:
            await asyncio.gather(*(_lesson_page(browser, i, url, deadline, out) for i in range(n)))
    return out


async def _lesson_page(browser, i: int, url: str, deadline: float, out: dict) -> None:
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    try:
        t0 = time.perf_counter()
        await page.goto(url, timeout=90_000)
        await page.get_by_text("Iteration", exact=True).first.wait_for(timeout=90_000)
        out["load_latencies"].append(time.perf_counter() - t0)
        out["loaded"] += 1
        k = 0
        while time.perf_counter() < deadline and k < MAX_STEPS_PER_PAGE:
            k += 1
            if not await _step_once(page, i, out):
                break
            await page.wait_for_timeout(1500)
    except Exception as e:  # noqa: BLE001
        out["errors"].append(f"browser {i}: {type(e).__name__}: {str(e)[:200]}")
    finally:
        await ctx.close()


async def _step_once(page, i: int, out: dict) -> bool:
    """Press Step (Reset when Step is disabled) and time it to the new iteration number; False when the
    page shows an exception."""
    # .first: while a rerun replaces the fragment, the old and new button can coexist
    step = page.get_by_role("button", name=re.compile("Step")).first
    if await step.is_disabled():
        await page.get_by_role("button", name=re.compile("Reset")).first.click()
        return True
    metric = page.locator('[data-testid="stMetricValue"]').first
    before = (await metric.inner_text()).strip()
    t0 = time.perf_counter()
    await step.click()
    for _ in range(300):  # bounded wait for the iteration number to change
        if (await metric.inner_text()).strip() != before:
            break
        await page.wait_for_timeout(20)
    out["step_latencies"].append(time.perf_counter() - t0)
    out["steps"] += 1
    exc = page.locator('[data-testid="stException"]')
    if await exc.count():
        out["errors"].append(f"browser {i}: exception shown: " + (await exc.first.inner_text())[:300])
        return False
    return True


# ---------------------------------------------------------------------------- the class link
async def browser_follow_check(url: str, n: int, shared, deadline: float, ramp: float, executable: str) -> dict:
    """n real Chromium pages open the class link (spread over the ramp) during the load: the lab draws
    (window.__nblab.ready), and, when the page has the follow UI, window.__nblab.follow.applied reaches
    the teacher's latest v (and the lab shows that v's t). ``shared``: the class run's tallies
    (class_student.Shared: the teacher's publishes)."""
    out = {"pages": n, "drew": 0, "follow_ui": None, "followed": 0, "checks": 0, "load_s": [], "follow_s": [],
           "errors": []}
    async with chromium(executable, out) as browser:
        if browser is not None:
            await asyncio.gather(*(_class_page(browser, i, n, url, shared, deadline, ramp, out) for i in range(n)))
    return out


async def _class_page(browser, i: int, n: int, url: str, shared, deadline: float, ramp: float, out: dict) -> None:
    await asyncio.sleep(ramp * (i + 0.5) / max(1, n))
    ctx = await browser.new_context(viewport={"width": 1300, "height": 900})
    page = await ctx.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda e: page_errors.append(str(e)[:200]))
    try:
        t0 = time.monotonic()
        await page.goto(url, timeout=90_000)
        await page.wait_for_function("() => window.__nblab && window.__nblab.ready === true", timeout=90_000)
        out["load_s"].append(time.monotonic() - t0)
        out["drew"] += 1
        has_follow = await page.evaluate("() => !!(window.__nblab && window.__nblab.follow)")
        out["follow_ui"] = bool(has_follow) if out["follow_ui"] is None else out["follow_ui"] and has_follow
        if has_follow and await _follow_steps(page, i, shared, deadline, out):
            out["followed"] += 1
        if page_errors:
            out["errors"].append(f"browser {i}: page errors: {page_errors[:3]}")
    except Exception as e:  # noqa: BLE001
        out["errors"].append(f"browser {i}: {type(e).__name__}: {str(e)[:200]}")
    finally:
        await ctx.close()


async def _follow_steps(page, i: int, shared, deadline: float, out: dict) -> bool:
    """Wait for each teacher Step, then for the page to apply it: the time from the start of that publish
    to the page's follow.applied reaching it. True when the page followed at least one Step."""
    reached = False
    k = 0
    while time.monotonic() < deadline - 3 and k < MAX_FOLLOWS_PER_PAGE:
        k += 1
        v0 = shared.latest_v
        while shared.latest_v == v0 and time.monotonic() < deadline - 3:
            await asyncio.sleep(0.05)
        v = shared.latest_v
        if v is None or v == v0:
            break
        pub = shared.published.get(v)
        try:
            await page.wait_for_function("(v) => window.__nblab.follow && window.__nblab.follow.applied >= v",
                                         arg=v, timeout=15_000)
        except Exception as e:  # noqa: BLE001
            got = await page.evaluate("() => window.__nblab.follow && window.__nblab.follow.applied")
            out["errors"].append(f"browser {i}: follow.applied {got} did not reach v {v} in 15 s ({type(e).__name__})")
            break
        out["checks"] += 1
        if pub is not None:
            out["follow_s"].append(time.monotonic() - pub[0])
        got = await page.evaluate("() => [window.__nblab.follow.applied, window.__nblab.lab && window.__nblab.lab.t]")
        if got[0] == v and pub is not None and got[1] is not None and got[1] != pub[2]:
            out["errors"].append(f"browser {i}: applied v {v} but the lab shows t={got[1]}, the teacher's t={pub[2]}")
        reached = True
    return reached
