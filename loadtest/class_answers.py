"""The class answers under load: while the class follows its teacher, the teacher asks one question and every
student answers it once, at a random moment of the answer window, as a phone would after a tap.

``run_load.py --class-link --answers choice`` (a one-tap choice among three) or ``--answers report`` (a
student's own EM start: the page asks for its seed and share, then reports three numbers) runs it; the
teacher is the store's teacher process (loadtest/class_teacher.py), which opens the question and reads its
tally through ``dashboard.class_link.answers`` as the lesson view does, once every ``TALLY_EVERY`` seconds.

Each student (its page, its polls and its answer) comes from an address of its own (127.1.x.y on this
machine's loopback, as phones on a lecture hall's network): the server's and the proxy's budgets per client
address are not what is measured.
Measured: each answer's time (the POST -> the last byte of its 200), the tally's lag (the last answer
acknowledged -> the first tally that counts every acknowledged answer), the teacher's Steps while the room
answers, and every answer that was not a 200 (an error).
"""
from __future__ import annotations

import asyncio
import json
import random
import secrets

from loadtest.http_client import HTTPConn, HTTPError, now
from loadtest.stats import pct, rnd

QID = "load1"
TALLY_EVERY = 0.5          # seconds between the teacher's tally reads (the lesson view refreshes about so)
CHOICES = ("up", "down", "same")


def source_of(i: int, host: str) -> str | None:
    """Student ``i``'s own loopback address when the server is on this machine's loopback, else None."""
    if not host.startswith("127."):
        return None
    return f"127.1.{i // 250}.{i % 250 + 1}"


async def _answer(i: int, delay: float, host: str, port: int, cid: str, kind: str, rng: random.Random,
                  out: dict) -> None:
    await asyncio.sleep(delay)
    conn = HTTPConn(host, port, {}, source_of(i, host))
    token = secrets.token_urlsafe(24)
    base = f"/class/{cid}/q/{QID}"
    try:
        if kind == "report":
            r = await conn.post(base + "/assignment", json.dumps({"token": token}).encode())
            if r.status != 200:
                out["errors"].append([i, "assignment", r.status, r.text()[:200]])
                return
            got = r.json()
            if not isinstance(got.get("seed"), int):
                out["errors"].append([i, "assignment", r.status, "no seed in " + r.text()[:200]])
                return
            answer = {"loglik": -rng.uniform(1e3, 1e5), "accuracy": rng.random(), "alpha": rng.random()}
        else:
            answer = rng.choice(CHOICES)
        t0 = now()
        r = await conn.post(base + "/answer", json.dumps({"token": token, "answer": answer}).encode())
        if r.status != 200:
            out["errors"].append([i, "answer", r.status, r.text()[:200]])
            return
        out["ack_s"].append(r.t_end - t0)
        out["last_ack"] = max(out["last_ack"], r.t_end)
    except (HTTPError, OSError) as e:
        out["errors"].append([i, "answer", None, f"{type(e).__name__}: {e}"[:200]])
    finally:
        await conn.close()


async def _tallies(teacher, stop: asyncio.Event, polls: list) -> None:
    while not stop.is_set():
        rep = await teacher.command(f"tally {QID}")
        polls.append(rep)
        try:
            await asyncio.wait_for(stop.wait(), TALLY_EVERY)
        except asyncio.TimeoutError:
            pass


async def answer_round(args, base_url: str, cid: str, teacher, delay: float) -> dict:
    """After ``delay`` s (the students have loaded): ask, let --sessions students answer within
    --answer-window s, read the tally until it counts them all (or 30 s after the last answer)."""
    from urllib.parse import urlsplit

    await asyncio.sleep(delay)
    kind, window = args.answers, args.answer_window
    rep = await teacher.command(f"ask {QID} {kind}")
    if rep.get("event") != "asked":
        return {"kind": kind, "error": rep.get("what", "the teacher could not ask"), "passed": False}
    t_ask = rep["t1"]
    u = urlsplit(base_url)
    rng = random.Random(args.seed + 11)
    out = {"ack_s": [], "errors": [], "last_ack": t_ask}
    polls: list = []
    stop = asyncio.Event()
    tally_task = asyncio.create_task(_tallies(teacher, stop, polls))
    await asyncio.gather(*(_answer(i, rng.uniform(0, window), u.hostname, u.port or 80, cid, kind,
                                   random.Random(rng.random()), out) for i in range(args.sessions)))
    answered = len(out["ack_s"])
    deadline = now() + 30.0
    while now() < deadline and not any(p.get("n", -1) >= answered and p["t0"] >= out["last_ack"] - 5
                                       for p in polls[-3:]):
        await asyncio.sleep(0.1)
    stop.set()
    await tally_task
    complete = [p for p in polls if p.get("event") == "tally" and p["n"] >= answered]
    tally_errors = [p for p in polls if p.get("event") != "tally"]
    lag = max(0.0, complete[0]["t1"] - out["last_ack"]) if complete else None
    steps = [d for t0, d in teacher.steps if t_ask <= t0 <= out["last_ack"]]
    res = {
        "kind": kind, "students": args.sessions, "window_s": window, "answered": answered,
        "answer_p50": rnd(pct(out["ack_s"], 0.5)), "answer_p95": rnd(pct(out["ack_s"], 0.95)),
        "answer_max": rnd(max(out["ack_s"]) if out["ack_s"] else None),
        "answers_over_s": rnd(out["last_ack"] - t_ask), "tally_s": rnd(lag),
        "tally_final": complete[0]["n"] if complete else (polls[-1].get("n") if polls else None),
        "tally_reads": len(polls), "tally_read_p95": rnd(pct([p["t1"] - p["t0"] for p in polls if "t1" in p], 0.95)),
        "teacher_step_p95": rnd(pct(steps, 0.95)), "teacher_steps": len(steps),
        "errors": len(out["errors"]) + len(tally_errors),
        "error_samples": (out["errors"] + [["tally", p.get("what")] for p in tally_errors])[:12],
    }
    res["checks"] = {
        "every_answer_acknowledged": answered == args.sessions and not out["errors"],
        "answer_p95_under_1s": res["answer_p95"] is not None and res["answer_p95"] < 1.0,
        "tally_complete_within_3s": lag is not None and lag <= 3.0,
        "teacher_step_p95_under_0.3s": bool(steps) and res["teacher_step_p95"] < 0.3,
    }
    res["passed"] = all(res["checks"].values())
    return res
