"""The class-link teacher, two ways.

* ``StreamlitTeacher``: a real Streamlit session of the lesson page over its websocket (stclient.py, through
  the proxy with its cookie like a browser): "Open for the class", then Step every 3-5 s.
* ``Teacher``: ``python -m loadtest.class_link teacher`` (``teacher_main``) in its own process (so the
  students' event loop does not delay its store calls): ``dashboard.class_link.open_class`` once, then
  ``dashboard.class_link.publish`` with t + 1 every 3-5 s, against the store the servers use
  (NBLAB_STORE_URL / NBLAB_STORE_DIR inherited). One JSON line per call on stdout with its
  ``time.monotonic()`` start and end (CLOCK_MONOTONIC: the same clock in every process of the machine).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import threading
from pathlib import Path

from dashboard.lesson.panels.class_link import K_OPEN as OPEN_KEY  # the "Open for the class" button
from dashboard.ui.controls import K_RESET, K_STEP
from loadtest.class_student import Shared
from loadtest.http_client import now
from loadtest.stclient import Session

ROOT = Path(__file__).resolve().parent.parent


def teacher_state(t: int, data_key: str, settings: dict, half=None) -> dict:
    """What the teacher's session publishes (the /class/{cid}/state.json fields the teacher sets)."""
    return {"data": data_key, "settings": dict(settings), "t": int(t), "half": half}


def default_settings(data_key: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from nblab.defaults import DEFAULTS
    return {"dataset": data_key, "model": "bernoulli", "hidden": int(DEFAULTS["hidden"]),
            "lam": float(DEFAULTS["lam"]), "init": DEFAULTS["init"], "seed": int(DEFAULTS["seed"]),
            "max_iter": int(DEFAULTS["max_iter"]), "tol": float(DEFAULTS["tol"])}


def teacher_main(argv=None) -> int:
    """Open a class and Step: one JSON line per call on stdout; stops at --until (time.monotonic())
    or when stdin closes."""
    ap = argparse.ArgumentParser(prog="class_link teacher")
    ap.add_argument("--data", default="sms_spam")
    ap.add_argument("--every", type=float, nargs=2, default=[3.0, 5.0], metavar=("MIN", "MAX"))
    ap.add_argument("--until", type=float, required=True, help="time.monotonic() to stop at")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    try:
        from dashboard import class_link
    except Exception as e:  # noqa: BLE001
        _out({"event": "error", "what": f"import dashboard.class_link: {type(e).__name__}: {e}"})
        return 2
    settings = default_settings(args.data)
    t0 = now()
    try:
        cid, write_key = class_link.open_class(args.data, teacher_state(0, args.data, settings))
    except Exception as e:  # noqa: BLE001
        _out({"event": "error", "what": f"open_class: {type(e).__name__}: {e}"})
        return 2
    _out({"event": "open", "cid": cid, "t0": t0, "t1": now()})
    _publish_steps(class_link, cid, write_key, args, settings, _stdin_closed(class_link, cid, write_key))
    _out({"event": "done"})
    return 0


def _out(d: dict) -> None:
    sys.stdout.write(json.dumps(d) + "\n")
    sys.stdout.flush()


def _stdin_closed(class_link=None, cid: str = "", write_key: str = "") -> threading.Event:
    """An event set when stdin closes (the load tool ended: the teacher stops too). Each line read before is
    a command of the class answers' load (loadtest/class_answers.py), answered with one JSON line:
    ``ask <qid> choice|report`` opens a question, ``tally <qid>`` counts its answers."""
    stop = threading.Event()

    def watch_stdin():
        try:
            for line in sys.stdin:
                if class_link is not None:
                    _command(class_link, cid, write_key, line.split())
        finally:
            stop.set()
    threading.Thread(target=watch_stdin, daemon=True).start()
    return stop


#: the fields a student's own EM start reports (a report question): the names and ranges the class
#: answers' load sends (loadtest/class_answers.py)
REPORT_FIELDS = {"loglik": (-1e9, 0.0), "accuracy": (0.0, 1.0), "alpha": (0.0, 1.0)}


def _command(class_link, cid: str, write_key: str, words: list[str]) -> None:
    from dashboard.class_link import answers
    if len(words) < 2:
        return
    t0 = now()
    try:
        if words[0] == "ask":
            kind = words[2] if len(words) > 2 else "choice"
            if kind == "report":
                answers.ask(cid, write_key, words[1], "report", fields=REPORT_FIELDS, shares=[0.05, 0.1, 0.2, 0.5])
            else:
                answers.ask(cid, write_key, words[1], "choice", options=["up", "down", "same"])
            _out({"event": "asked", "qid": words[1], "t0": t0, "t1": now()})
        elif words[0] == "tally":
            got = answers.tally(cid, write_key, words[1])
            _out({"event": "tally", "qid": words[1], "n": int(got["n"]), "t0": t0, "t1": now()})
    except Exception as e:  # noqa: BLE001
        _out({"event": "error", "what": f"{words[0]}: {type(e).__name__}: {e}", "t0": t0, "t1": now()})


def _publish_steps(class_link, cid: str, write_key: str, args, settings: dict, stop: threading.Event) -> None:
    """Publish t + 1 every args.every seconds until args.until or ``stop``."""
    rng = random.Random(args.seed)
    t = 0
    n = 0
    while not stop.is_set() and now() < args.until and n < 10_000:
        n += 1
        if stop.wait(max(0.0, min(rng.uniform(*args.every), args.until - now()))):
            break
        if now() >= args.until:
            break
        t = t + 1 if t < settings["max_iter"] else 0
        t0 = now()
        try:
            v = class_link.publish(cid, write_key, teacher_state(t, args.data, settings))
        except Exception as e:  # noqa: BLE001
            _out({"event": "error", "what": f"publish: {type(e).__name__}: {e}", "t0": t0, "t1": now()})
            continue
        _out({"event": "publish", "v": int(v), "t": t, "t0": t0, "t1": now()})


class Teacher:
    """The teacher process, seen from the load tool."""

    def __init__(self, shared: Shared, data_key: str, until: float, env: dict, seed: int,
                 every: tuple[float, float] = (3.0, 5.0)):
        self.shared, self.data_key, self.until, self.env, self.seed, self.every = shared, data_key, until, env, seed, every
        self.proc: asyncio.subprocess.Process | None = None
        self.cid: str | None = None
        self.opened = asyncio.Event()
        self.steps: list[tuple[float, float]] = []   # (start, seconds) of each publish
        self.open_s: float | None = None
        self.errors: list[str] = []
        self.task: asyncio.Task | None = None
        self.replies: asyncio.Queue = asyncio.Queue()   # the answers to ask / tally, in order

    async def command(self, line: str, timeout: float = 30.0) -> dict:
        """Send one command (``ask q1 choice``, ``tally q1``) to the teacher's process; its answer."""
        self.proc.stdin.write((line + "\n").encode())
        await self.proc.stdin.drain()
        return await asyncio.wait_for(self.replies.get(), timeout)

    async def start(self, timeout: float = 60.0) -> str:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "loadtest.class_link", "teacher", "--data", self.data_key,
            "--every", str(self.every[0]), str(self.every[1]), "--until", repr(self.until), "--seed", str(self.seed),
            cwd=str(ROOT), env=self.env, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        self.task = asyncio.create_task(self._read())
        try:
            await asyncio.wait_for(self.opened.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        if self.cid is None:
            await self.stop()
            err = (await self.proc.stderr.read()).decode(errors="replace")[-1500:] if self.proc.stderr else ""
            raise RuntimeError("the teacher could not open a class: " + "; ".join(self.errors) + (" " + err if err else ""))
        return self.cid

    async def _read(self) -> None:
        sh = self.shared
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                break
            try:
                d = json.loads(line)
            except ValueError:
                continue
            ev = d.get("event")
            if ev == "open":
                self.cid = d["cid"]
                self.open_s = d["t1"] - d["t0"]
                self.opened.set()
            elif ev == "publish":
                sh.published[d["v"]] = (d["t0"], d["t1"], d["t"])
                sh.latest_v = d["v"] if sh.latest_v is None else max(sh.latest_v, d["v"])
                sh.latest_t = d["t"]
                self.steps.append((d["t0"], d["t1"] - d["t0"]))
            elif ev in ("asked", "tally"):
                self.replies.put_nowait(d)
            elif ev == "error" and self.cid is not None and d.get("what", "").startswith(("ask:", "tally:")):
                self.replies.put_nowait(d)
            elif ev == "error":
                self.errors.append(d.get("what", "?"))
                sh.error("teacher", "publish", d.get("what", "?"))
                if self.cid is None:
                    self.opened.set()

    def describe(self) -> str:
        return "store: dashboard.class_link.publish in a process of its own (teacher_step = the publish call)"

    async def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.stdin and not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 15)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        if self.task is not None:
            try:
                await asyncio.wait_for(self.task, 5)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                pass


class CodeSession(Session):
    """The websocket client, keeping the st.code texts too (the class link is shown in one)."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.codes: list[str] = []

    def _handle(self, msg):
        super()._handle(msg)
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el = msg.delta.new_element
            if el.WhichOneof("type") == "code":
                self.codes.append(el.code.code_text)


class StreamlitTeacher:
    """The teacher as a real Streamlit session (loadtest/stclient.py's websocket client, through the proxy
    with its cookie like a browser): the lesson page, "Open for the class" (``class_open_btn``), then Step
    every 3-5 s (Reset when the run has converged). The lesson view publishes what is on screen in the
    Step's own rerun, so ``teacher_step`` is the click -> script_finished of that rerun. Each publish's
    v is read back from the store (the load tool's own read, no cache); its start is the click's."""

    _CID = re.compile(r"/class/([A-Za-z0-9_-]{16})\b")

    def __init__(self, shared: Shared, base_url: str, every: tuple[float, float], seed: int, env: dict,
                 run_timeout: float = 60.0):
        self.shared, self.base, self.every, self.env = shared, base_url.rstrip("/"), every, env
        self.rng = random.Random(seed + 1)
        self.run_timeout = run_timeout
        self.s = None
        self.cid: str | None = None
        self.v = 0
        self.data_key = "?"
        self.steps: list[tuple[float, float]] = []
        self.resets = 0
        self.open_s: float | None = None
        self.load_s: float | None = None

    def describe(self) -> str:
        return ("streamlit: the lesson page's session over its websocket (Open for the class, then Step; "
                "teacher_step = Step click -> the end of its rerun, which publishes)")

    def _store_env(self) -> None:
        for k in ("NBLAB_STORE_URL", "NBLAB_STORE_DIR"):
            if self.env.get(k):
                os.environ[k] = self.env[k]
            else:
                os.environ.pop(k, None)

    def _read_store(self) -> tuple[int, dict]:
        from dashboard.class_link import store as CS
        CS.clear_cache()
        v, body = CS.read(self.cid)
        return int(v), json.loads(body)

    async def start(self) -> str:
        ws = self.base.replace("https://", "wss://").replace("http://", "ws://") + "/_stcore/stream"
        self.s = CodeSession(ws, name="teacher", run_timeout=self.run_timeout)
        self._store_env()
        try:
            await self.s.fetch_page()
            await self.s.connect()
        except Exception as e:  # noqa: BLE001
            raise RuntimeError(f"the teacher's page: {type(e).__name__}: {e}") from None
        t0 = now()
        r = await self.s.load()
        self.load_s = now() - t0
        if not r.ok:
            raise RuntimeError(f"the teacher's page: {r.status} {r.exceptions[:1]}")
        if self.s.widget(OPEN_KEY) is None:
            raise RuntimeError("the lesson page has no 'Open for the class' button (class_open_btn)")
        await self._type_share_key()
        return await self._open_class()

    async def _type_share_key(self) -> None:
        """Opening a class is for teachers, who type the teacher key above the button: the server's share key,
        else the key a server without one keeps in its store's folder (the one this machine's server uses)."""
        from dashboard.class_link import teacher_key
        from dashboard.lesson.panels.class_link import K_KEY

        if self.s.widget(K_KEY) is None:
            return
        key = self.env.get("NBLAB_SHARE_KEY") or os.environ.get("NBLAB_SHARE_KEY")
        if not key:
            try:
                key = teacher_key.own_key(teacher_key.key_dir({**os.environ, **self.env}), say=lambda _: None)
            except OSError:
                key = None
        if not key:
            raise RuntimeError("the server asks for its teacher key and the load test does not know it "
                               "(give --deploy-state DIR with its share_key, or NBLAB_SHARE_KEY)")
        r = await self.s.set_value(K_KEY, key)
        if not r.ok:
            raise RuntimeError(f"typing the share key: {r.status} {r.exceptions[:1]}")

    async def _open_class(self) -> str:
        """Press "Open for the class", read the link off the page and the first version off the store."""
        t0 = now()
        r = await self.s.click(OPEN_KEY)
        t1 = now()
        self.open_s = t1 - t0
        found = [m.group(1) for c in self.s.codes for m in [self._CID.search(c)] if m]
        if not r.ok or not found:
            alerts = [b for f, b in self.s.alerts if f == "ERROR"]
            raise RuntimeError(f"Open for the class: {r.status}, no class link shown {alerts[:1]}")
        self.cid = found[-1]
        v, st = await asyncio.to_thread(self._read_store)
        self.v = v
        self.data_key = str(st.get("data"))
        self.shared.published[v] = (t0, t1, int(st.get("t") or 0))
        self.shared.latest_v, self.shared.latest_t = v, int(st.get("t") or 0)
        return self.cid

    async def loop(self, deadline: float) -> None:
        sh = self.shared
        n = 0
        while now() < deadline - 1.0 and n < 10_000:
            n += 1
            await asyncio.sleep(max(0.0, min(self.rng.uniform(*self.every), deadline - 1.0 - now())))
            if now() >= deadline - 1.0:
                break
            w = self.s.widget(K_STEP)
            key = K_STEP if w is not None and not w.disabled else K_RESET
            if self.s.widget(key) is None:
                sh.error("teacher", "step", f"no '{key}' button on the teacher's page")
                return
            t0 = now()
            try:
                r = await self.s.click(key)
            except Exception as e:  # noqa: BLE001
                sh.error("teacher", key, f"{type(e).__name__}: {e}")
                return
            t1 = now()
            if not r.ok:
                sh.error("teacher", key, f"{r.status} {r.exceptions[:1]}")
                if r.status == "timeout" or r.status.startswith("disconnected"):
                    return
                continue
            if key == K_STEP:
                self.steps.append((t0, r.latency))
            else:
                self.resets += 1
            for f, b in self.s.alerts:
                if f == "ERROR" and "class" in b.lower():
                    sh.error("teacher", key, f"the page says: {b[:200]}")
            self.s.alerts.clear()
            try:
                v, st = await asyncio.to_thread(self._read_store)
            except Exception as e:  # noqa: BLE001
                sh.error("teacher", "read back", f"{type(e).__name__}: {e}")
                continue
            if v <= self.v:
                sh.error("teacher", key, f"the {key} published nothing (v stays {v})")
                continue
            for pv in range(self.v + 1, v + 1):
                sh.published[pv] = (t0, t1, int(st.get("t") or 0))
            self.v = v
            sh.latest_v, sh.latest_t = v, int(st.get("t") or 0)

    async def stop(self) -> None:
        if self.s is not None:
            try:
                await self.s.close()
            except Exception:  # noqa: BLE001
                pass
