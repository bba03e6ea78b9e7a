"""Class-link load: one teacher publishes, N students open /class/<cid> as a browser does and follow.

Used by ``run_load.py --class-link`` (see loadtest/README.md, "Class link"); this module has the parts:

* ``HTTPConn``: a small raw HTTP/1.1 keep-alive client on asyncio streams (Content-Length and chunked
  bodies, cookies kept per student, one retry on a keep-alive connection the server closed while it was
  idle, as browsers do). Cheap enough that 1,000 students polling every 2 s do not need a second core.
* ``ClassStudent``: GET /class/<cid> (HTML), then every stylesheet/script it names in parallel (up to 3
  connections, like a browser's parallel fetches) and then the data JSON ``dataUrl`` of the page's
  ``#nblab-config`` (after the scripts, as the lab script fetches it), all with ``Accept-Encoding: gzip``,
  each once (the assets and data are immutable: a browser's cache answers any later use); then the
  class state ``follow.state`` at once and every ``follow.intervalMs`` after each answer, with
  ``If-None-Match`` of the last ETag. A state naming another data key fetches that data once.
* the teacher: ``python -m loadtest.class_link teacher`` in its own process (so the students' event loop
  does not delay its store calls): ``dashboard.classroom.open_class`` once, then
  ``dashboard.classroom.publish`` with t + 1 every 3-5 s, against the store the servers use
  (NBLAB_STORE_URL / NBLAB_STORE_DIR inherited). One JSON line per call on stdout with its
  ``time.monotonic()`` start and end (CLOCK_MONOTONIC: the same clock in every process of the machine).
* ``browser_follow_check``: real Chromium pages (Playwright) that open the class link during the load and
  check the lab drew (``window.__nblab.ready``) and follows (``window.__nblab.follow.applied`` reaches the
  teacher's latest v); where the page has no follow object yet, only that it drew.

Measured: page time (request of the HTML -> last byte of its assets and its data), follow latency (the
start of the teacher's publish of v -> the end of the first poll of a student that sees v or later, for
every v published after the student's first state), the teacher's publish time, errors (HTTP status other
than 200/304, connection failures, timeouts, bodies that are not what the contract says, a v going back,
versions a student never saw), bytes and requests, and the CPU of the server processes.
"""
from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import re
import sys
import time
from pathlib import Path
from urllib.parse import urljoin, urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

UA = "Mozilla/5.0 (X11; Linux x86_64) nblab-loadtest/1 (class link)"
ACCEPT_ENCODING = "gzip"
REQUEST_TIMEOUT = 30.0
MAX_POLLS = 100_000          # hard bound on a student's polls on top of the time bound
MAX_BODY = 64 * 1024 * 1024  # a body larger than this is an error (nothing the class page names is)

_LINK_RE = re.compile(r"<link\b[^>]*>", re.I)
_SCRIPT_SRC_RE = re.compile(r"<script\b[^>]*\bsrc\s*=\s*[\"']([^\"']+)[\"'][^>]*>", re.I)
_HREF_RE = re.compile(r"\bhref\s*=\s*[\"']([^\"']+)[\"']", re.I)
_REL_STYLESHEET_RE = re.compile(r"\brel\s*=\s*[\"']?stylesheet", re.I)
_CONFIG_RE = re.compile(r"<script\b[^>]*\bid\s*=\s*[\"']nblab-config[\"'][^>]*>(.*?)</script>", re.I | re.S)


def now() -> float:
    return time.monotonic()


# ---------------------------------------------------------------------------- HTTP/1.1
class HTTPError(Exception):
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


class HTTPConn:
    """One keep-alive connection to host:port; ``jar`` (a dict) is shared by a student's connections."""

    def __init__(self, host: str, port: int, jar: dict):
        self.host, self.port, self.jar = host, port, jar
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.used = 0          # requests answered on the current connection
        self.connects = 0
        self.retries = 0

    async def _open(self) -> None:
        await self.close()
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port, limit=1 << 20)
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
        for attempt in (0, 1):
            fresh = self.writer is None or self.used == 0
            if self.writer is None:
                await asyncio.wait_for(self._open(), timeout)
            try:
                return await asyncio.wait_for(self._get(path, headers or {}), timeout)
            except (ConnectionError, asyncio.IncompleteReadError, _ClosedBeforeAnswer) as e:
                await self.close()
                if fresh or attempt:
                    raise HTTPError(f"{type(e).__name__}: {e}") from None
                self.retries += 1
            except asyncio.TimeoutError:
                await self.close()
                raise HTTPError(f"timeout after {timeout:g} s") from None
        raise HTTPError("unreachable")

    async def _get(self, path: str, headers: dict) -> Response:
        lines = [f"GET {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"User-Agent: {UA}",
                 f"Accept-Encoding: {ACCEPT_ENCODING}", "Connection: keep-alive"]
        for k, v in headers.items():
            lines.append(f"{k}: {v}")
        if self.jar:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.jar.items()))
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        await self.writer.drain()
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as e:
            if not e.partial:
                raise _ClosedBeforeAnswer("connection closed before the answer") from None
            raise
        t_first = now()
        wire = len(head)
        status_line, *hlines = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise HTTPError(f"bad status line {status_line[:80]!r}")
        status = int(parts[1])
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
                    self.jar[ck.strip()] = cv.strip()
            hdrs[k] = v if k not in hdrs else hdrs[k] + ", " + v
        body = b""
        if status in (204, 304) or 100 <= status < 200:
            pass
        elif "chunked" in hdrs.get("transfer-encoding", "").lower():
            chunks = []
            size_total = 0
            while True:
                line = await self.reader.readuntil(b"\r\n")
                wire += len(line)
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while True:   # trailers, then the empty line
                        t = await self.reader.readuntil(b"\r\n")
                        wire += len(t)
                        if t == b"\r\n":
                            break
                    break
                size_total += size
                if size_total > MAX_BODY:
                    raise HTTPError(f"body over {MAX_BODY} bytes")
                chunks.append(await self.reader.readexactly(size))
                await self.reader.readexactly(2)
                wire += size + 2
            body = b"".join(chunks)
        elif "content-length" in hdrs:
            n = int(hdrs["content-length"].split(",")[0])
            if n > MAX_BODY:
                raise HTTPError(f"body over {MAX_BODY} bytes")
            body = await self.reader.readexactly(n)
            wire += n
        else:   # until the server closes
            body = await self.reader.read(MAX_BODY)
            wire += len(body)
            hdrs["connection"] = "close"
        self.used += 1
        if hdrs.get("connection", "").lower() == "close":
            await self.close()
        return Response(status, hdrs, body, wire, t_first, now())


class _ClosedBeforeAnswer(Exception):
    pass


# ---------------------------------------------------------------------------- the class page
def parse_page(html: str, page_url: str) -> dict:
    """Stylesheets, scripts, and the config of a class page (URLs resolved against ``page_url``)."""
    css = []
    for tag in _LINK_RE.findall(html):
        if _REL_STYLESHEET_RE.search(tag):
            m = _HREF_RE.search(tag)
            if m:
                css.append(urljoin(page_url, m.group(1)))
    scripts = [urljoin(page_url, s) for s in _SCRIPT_SRC_RE.findall(html)]
    m = _CONFIG_RE.search(html)
    cfg = None
    if m:
        try:
            cfg = json.loads(m.group(1))
        except ValueError:
            cfg = None
    return {"css": css, "scripts": scripts, "config": cfg}


def path_of(url: str) -> str:
    p = urlsplit(url)
    return p.path + ("?" + p.query if p.query else "")


class Shared:
    """What the students, the teacher and the browsers share: the publishes and the tallies."""

    def __init__(self):
        self.published: dict[int, tuple[float, float, int]] = {}   # v -> (t start, t end, t of the lab)
        self.latest_v: int | None = None
        self.latest_t: int = 0
        self.page_s: list[float] = []
        self.follow_s: list[float] = []
        self.seen: list[tuple[int, int, float]] = []   # (v seen before, v now, time) of each poll that saw news
        self.state_req_s: list[float] = []     # each state poll's own time (request -> last byte)
        self.errors: list = []
        self.error_count = 0
        self.requests: dict[str, int] = {}
        self.bytes_total = 0
        self.bytes_page = 0
        self.students_loaded = 0
        self.students_following = 0
        self.missed_versions = 0
        self.gzip_seen: dict[str, bool] = {}
        self.immutable_ok: dict[str, bool] = {}
        self.retries = 0
        self.connects = 0
        self.req_s: dict[str, list[float]] = {}   # kind -> seconds of each request (send -> last byte)
        self.verified: dict[str, bytes] = {}      # data URL -> a body already decoded and checked
        self.pages: dict[tuple[str, bytes], dict] = {}   # (page URL, body) -> parse_page of it

    def error(self, who: str, what: str, detail: str) -> None:
        self.error_count += 1
        if len(self.errors) < 12:
            self.errors.append([who, what, detail[:300]])

    def count(self, kind: str, resp: Response | None) -> None:
        self.requests[kind] = self.requests.get(kind, 0) + 1
        if resp is not None:
            self.bytes_total += resp.wire_bytes


class ClassStudent:
    def __init__(self, idx: int, host: str, port: int, page_path: str, shared: Shared, deadline: float,
                 rng: random.Random, parallel: int = 3):
        self.name = f"c{idx:04d}"
        self.host, self.port, self.page_path = host, port, page_path
        self.base = f"http://{host}:{port}"
        self.shared, self.deadline, self.rng = shared, deadline, rng
        self.jar: dict = {}
        self.parallel = max(1, parallel)
        self.conns: list[HTTPConn] = []
        self.data_keys: set[str] = set()
        self.seen_v: int | None = None

    def _conn(self, i: int) -> HTTPConn:
        while len(self.conns) <= i:
            self.conns.append(HTTPConn(self.host, self.port, self.jar))
        return self.conns[i]

    async def _fetch(self, i: int, kind: str, url: str, headers: dict | None = None) -> Response | None:
        t0 = now()
        try:
            r = await self._conn(i).get(path_of(url), headers)
        except HTTPError as e:
            self.shared.count(kind, None)
            self.shared.error(self.name, kind, f"{path_of(url)[:80]}: {e}")
            return None
        except OSError as e:
            self.shared.count(kind, None)
            self.shared.error(self.name, kind, f"{path_of(url)[:80]}: {type(e).__name__}: {e}")
            return None
        self.shared.count(kind, r)
        k = kind if kind != "asset" else "asset:" + url.rsplit("/", 1)[-1].split(".", 1)[0]
        self.shared.req_s.setdefault(k, []).append(r.t_end - t0)
        return r

    async def run(self) -> None:
        try:
            await self._run()
        finally:
            for c in self.conns:
                self.shared.retries += c.retries
                self.shared.connects += c.connects
                await c.close()

    async def _asset(self, i: int, url: str, kind: str) -> bool:
        r = await self._fetch(i, kind, url, {"Accept": "*/*"})
        if r is None:
            return False
        if r.status != 200 or not r.body:
            self.shared.error(self.name, kind, f"{path_of(url)[:80]}: HTTP {r.status}, {len(r.body)} bytes")
            return False
        name = url.rsplit("/", 1)[-1]
        self.shared.gzip_seen.setdefault(name, r.headers.get("content-encoding", "").lower() == "gzip")
        self.shared.immutable_ok.setdefault(name, "immutable" in r.headers.get("cache-control", ""))
        self.shared.bytes_page += r.wire_bytes
        return True

    async def _data(self, url: str) -> bool:
        r = await self._fetch(0, "data", url, {"Accept": "application/json"})
        if r is None:
            return False
        self.shared.bytes_page += r.wire_bytes
        if r.status != 200:
            self.shared.error(self.name, "data", f"{path_of(url)[:80]}: HTTP {r.status}")
            return False
        self.shared.gzip_seen.setdefault("data", r.headers.get("content-encoding", "").lower() == "gzip")
        self.shared.immutable_ok.setdefault("data", "immutable" in r.headers.get("cache-control", ""))
        # the same bytes as a body already checked are the same data (decoding ~370 KB of gzipped JSON is
        # ~13 ms: a thousand students would cost the load generator a core during their arrival)
        if self.shared.verified.get(url) == r.body:
            return True
        try:
            d = r.json()
        except (ValueError, OSError, EOFError) as e:
            self.shared.error(self.name, "data", f"not JSON: {e}")
            return False
        if not isinstance(d, dict) or d.get("format") != "nblab-data/1":
            self.shared.error(self.name, "data", f"format {d.get('format') if isinstance(d, dict) else type(d)}")
            return False
        self.shared.verified.setdefault(url, r.body)
        return True

    async def _run(self) -> None:
        sh = self.shared
        page_url = self.base + self.page_path
        t0 = now()
        r = await self._fetch(0, "html", page_url, {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
        if r is None:
            return
        sh.bytes_page += r.wire_bytes
        if r.status != 200 or "html" not in r.headers.get("content-type", ""):
            sh.error(self.name, "html", f"HTTP {r.status} {r.headers.get('content-type')}: {r.text()[:120]}")
            return
        # every student of a class gets the same page: parse each distinct body once (its config is JSON of
        # some size; decoding it for each of a thousand students would load the load generator)
        page = sh.pages.get((page_url, r.body))
        if page is None:
            try:
                page = parse_page(r.text(), page_url)
            except (OSError, EOFError) as e:
                sh.error(self.name, "html", f"undecodable page: {e}")
                return
            if len(sh.pages) < 16:
                sh.pages[(page_url, r.body)] = page
        cfg = page["config"]
        if not cfg or not cfg.get("dataUrl"):
            sh.error(self.name, "html", "no #nblab-config with dataUrl in the page")
            return
        assets = [(u, "asset") for u in page["css"] + page["scripts"]]
        if not assets:
            sh.error(self.name, "html", "the page names no stylesheet or script")
        # a browser fetches the stylesheet and the scripts in parallel (a few connections), runs the
        # scripts in order, and the lab script then fetches the data
        queue = list(assets)

        async def worker(i: int) -> bool:
            ok = True
            while queue:
                u, kind = queue.pop(0)
                ok = await self._asset(i, u, kind) and ok
            return ok
        oks = await asyncio.gather(*(worker(i) for i in range(min(self.parallel, max(1, len(assets))))))
        data_url = urljoin(page_url, cfg["dataUrl"])
        self.data_keys.add(data_url)
        if not await self._data(data_url) or not all(oks):
            return
        sh.page_s.append(now() - t0)
        sh.students_loaded += 1
        for c in self.conns[1:]:       # the page is loaded: the extra connections go idle and close
            await c.close()
        follow = cfg.get("follow")
        if not isinstance(follow, dict) or not follow.get("state"):
            sh.error(self.name, "html", "the class page's config has no follow.state")
            return
        await self.follow(urljoin(page_url, follow["state"]), float(follow.get("intervalMs") or 2000) / 1000.0,
                          page_url)

    async def follow(self, state_url: str, interval: float, page_url: str) -> None:
        sh = self.shared
        etag = None
        first_v = None
        polls = 0
        followed = False
        while now() < self.deadline and polls < MAX_POLLS:
            polls += 1
            t_req = now()
            r = await self._fetch(0, "state", state_url, {"Accept": "application/json", **(
                {"If-None-Match": etag} if etag else {})})
            if r is not None:
                sh.state_req_s.append(r.t_end - t_req)
                if r.status == 304:
                    sh.requests["state_304"] = sh.requests.get("state_304", 0) + 1
                    if etag is None:
                        sh.error(self.name, "state", "304 to a request without If-None-Match")
                elif r.status == 200:
                    sh.requests["state_200"] = sh.requests.get("state_200", 0) + 1
                    etag = r.headers.get("etag")
                    try:
                        st = r.json()
                        v = int(st["v"])
                    except (ValueError, KeyError, TypeError, OSError, EOFError) as e:
                        sh.error(self.name, "state", f"bad state JSON: {e}: {r.body[:80]!r}")
                        v = None
                        st = {}
                    if v is not None:
                        if self.seen_v is not None and v < self.seen_v:
                            sh.error(self.name, "state", f"v went back from {self.seen_v} to {v}")
                        if first_v is None:
                            first_v = v
                            if not followed:
                                followed = True
                                sh.students_following += 1
                        elif v > (self.seen_v or first_v):
                            # the versions after the last one seen up to v reached this student now (the
                            # latencies are worked out at the end, when every publish time is known)
                            sh.seen.append(((self.seen_v or first_v), v, r.t_end))
                        self.seen_v = v if self.seen_v is None else max(self.seen_v, v)
                        key = st.get("data")
                        if isinstance(key, str) and key:
                            durl = urljoin(page_url, f"data/{key}.json")
                            if durl not in self.data_keys:     # the teacher changed the data set
                                self.data_keys.add(durl)
                                await self._data(durl)
                        if st.get("open") is not True:
                            sh.error(self.name, "state", f"open is {st.get('open')!r}")
                else:
                    sh.error(self.name, "state", f"HTTP {r.status}: {r.body[:100]!r}")
            left = self.deadline - now()
            if left <= 0:
                break
            await asyncio.sleep(min(interval, left))
        # versions published early enough that this student should have seen them
        if first_v is not None:
            cutoff = self.deadline - interval - 5.0
            missed = [pv for pv, (t_s, _, _) in sh.published.items()
                      if pv > (self.seen_v or first_v) and pv > first_v and t_s < cutoff]
            if missed:
                sh.missed_versions += len(missed)
                sh.error(self.name, "follow", f"never saw v {missed[:5]} (last seen {self.seen_v})")


# ---------------------------------------------------------------------------- the teacher
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

    def out(d):
        sys.stdout.write(json.dumps(d) + "\n")
        sys.stdout.flush()
    try:
        from dashboard import classroom
    except Exception as e:  # noqa: BLE001
        out({"event": "error", "what": f"import dashboard.classroom: {type(e).__name__}: {e}"})
        return 2
    rng = random.Random(args.seed)
    settings = default_settings(args.data)
    t = 0
    t0 = now()
    try:
        cid, write_key = classroom.open_class(args.data, teacher_state(t, args.data, settings))
    except Exception as e:  # noqa: BLE001
        out({"event": "error", "what": f"open_class: {type(e).__name__}: {e}"})
        return 2
    out({"event": "open", "cid": cid, "t0": t0, "t1": now()})
    # stdin closing (the load tool ended) stops the teacher too
    import threading
    stop = threading.Event()

    def watch_stdin():
        try:
            sys.stdin.read()
        finally:
            stop.set()
    threading.Thread(target=watch_stdin, daemon=True).start()
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
            v = classroom.publish(cid, write_key, teacher_state(t, args.data, settings))
        except Exception as e:  # noqa: BLE001
            out({"event": "error", "what": f"publish: {type(e).__name__}: {e}", "t0": t0, "t1": now()})
            continue
        out({"event": "publish", "v": int(v), "t": t, "t0": t0, "t1": now()})
    out({"event": "done"})
    return 0


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
            elif ev == "error":
                self.errors.append(d.get("what", "?"))
                sh.error("teacher", "publish", d.get("what", "?"))
                if self.cid is None:
                    self.opened.set()

    def describe(self) -> str:
        return "store: dashboard.classroom.publish in a process of its own (teacher_step = the publish call)"

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
        from dashboard.classroom import store as CS
        CS.clear_cache()
        v, body = CS.read(self.cid)
        return int(v), json.loads(body)

    async def start(self) -> str:
        sys.path.insert(0, str(ROOT))
        from loadtest.stclient import Session

        class CodeSession(Session):
            """The websocket client, keeping the st.code texts too (the class link is shown in one)."""
            def _handle(self, msg):
                super()._handle(msg)
                if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
                    el = msg.delta.new_element
                    if el.WhichOneof("type") == "code":
                        self.codes.append(el.code.code_text)

        ws = self.base.replace("https://", "wss://").replace("http://", "ws://") + "/_stcore/stream"
        self.s = CodeSession(ws, name="teacher", run_timeout=self.run_timeout)
        self.s.codes = []
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
        if self.s.widget("class_open_btn") is None:
            raise RuntimeError("the lesson page has no 'Open for the class' button (class_open_btn)")
        if self.s.widget("class_key_typed") is not None:
            # a server with a share key: opening a class is for teachers, who type it above the button
            key = self.env.get("NBLAB_SHARE_KEY") or os.environ.get("NBLAB_SHARE_KEY")
            if not key:
                raise RuntimeError("the server asks for its share key and the load test does not know it "
                                   "(give --deploy-state DIR with its share_key, or NBLAB_SHARE_KEY)")
            r = await self.s.set_value("class_key_typed", key)
            if not r.ok:
                raise RuntimeError(f"typing the share key: {r.status} {r.exceptions[:1]}")
        t0 = now()
        r = await self.s.click("class_open_btn")
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
            w = self.s.widget("step")
            key = "step" if w is not None and not w.disabled else "reset"
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
            if key == "step":
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


# ---------------------------------------------------------------------------- real browsers
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]


async def browser_follow_check(url: str, n: int, shared: Shared, deadline: float, ramp: float,
                               executable: str) -> dict:
    """n real Chromium pages open the class link (spread over the ramp) during the load: the lab draws
    (window.__nblab.ready), and, when the page has the follow UI, window.__nblab.follow.applied reaches
    the teacher's latest v (and the lab shows that v's t)."""
    out = {"pages": n, "drew": 0, "follow_ui": None, "followed": 0, "checks": 0, "load_s": [], "follow_s": [],
           "errors": []}
    try:
        from playwright.async_api import async_playwright
    except Exception as e:  # noqa: BLE001
        out["errors"].append(f"playwright unavailable: {e!r}")
        return out
    if not Path(executable).exists():
        out["errors"].append(f"{executable} not found: browser check skipped")
        return out
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=executable, args=BROWSER_ARGS, headless=True)
        try:
            async def one(i: int):
                await asyncio.sleep(ramp * (i + 0.5) / max(1, n))
                ctx = await browser.new_context(viewport={"width": 1300, "height": 900})
                page = await ctx.new_page()
                page_errors: list[str] = []
                page.on("pageerror", lambda e: page_errors.append(str(e)[:200]))
                try:
                    t0 = now()
                    await page.goto(url, timeout=90_000)
                    await page.wait_for_function("() => window.__nblab && window.__nblab.ready === true",
                                                 timeout=90_000)
                    out["load_s"].append(now() - t0)
                    out["drew"] += 1
                    has_follow = await page.evaluate("() => !!(window.__nblab && window.__nblab.follow)")
                    out["follow_ui"] = bool(has_follow) if out["follow_ui"] is None else out["follow_ui"] and has_follow
                    reached = False
                    k = 0
                    while has_follow and now() < deadline - 3 and k < 30:
                        k += 1
                        # wait for the teacher's next Step, then for the page to apply it: the time from the
                        # start of that publish to the page's follow.applied reaching it
                        v0 = shared.latest_v
                        while shared.latest_v == v0 and now() < deadline - 3:
                            await asyncio.sleep(0.05)
                        v = shared.latest_v
                        if v is None or v == v0:
                            break
                        pub = shared.published.get(v)
                        try:
                            await page.wait_for_function(
                                "(v) => window.__nblab.follow && window.__nblab.follow.applied >= v", arg=v,
                                timeout=15_000)
                        except Exception as e:  # noqa: BLE001
                            got = await page.evaluate("() => window.__nblab.follow && window.__nblab.follow.applied")
                            out["errors"].append(f"browser {i}: follow.applied {got} did not reach v {v} in 15 s "
                                                 f"({type(e).__name__})")
                            break
                        out["checks"] += 1
                        if pub is not None:
                            out["follow_s"].append(now() - pub[0])
                        got = await page.evaluate(
                            "() => [window.__nblab.follow.applied, window.__nblab.lab && window.__nblab.lab.t]")
                        if got[0] == v and pub is not None and got[1] is not None and got[1] != pub[2]:
                            out["errors"].append(f"browser {i}: applied v {v} but the lab shows t={got[1]}, "
                                                 f"the teacher's t={pub[2]}")
                        reached = True
                    if reached:
                        out["followed"] += 1
                    if page_errors:
                        out["errors"].append(f"browser {i}: page errors: {page_errors[:3]}")
                except Exception as e:  # noqa: BLE001
                    out["errors"].append(f"browser {i}: {type(e).__name__}: {str(e)[:200]}")
                finally:
                    await ctx.close()
            await asyncio.gather(*(one(i) for i in range(n)))
        finally:
            await browser.close()
    return out


# ---------------------------------------------------------------------------- CPU of the server side
def proc_cpu(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                out += [int(x) for x in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def postgres_pids(pg_data: str | None) -> list[int]:
    """The postmaster of the deployment's PostgreSQL and its backends (pids at the time of the call)."""
    if not pg_data:
        return []
    try:
        pm = int(Path(pg_data, "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    return [pm] + children(pm)


class CpuMeter:
    """utime+stime of groups of pids between start() and stop(); the PostgreSQL backends that come and go
    during the run are summed from their own start (a backend gone before stop() is lost: a lower bound)."""

    def __init__(self, groups: dict[str, list[int]], pg_data: str | None = None):
        self.groups, self.pg_data = groups, pg_data
        self.t0 = self.t1 = None
        self.c0: dict = {}
        self.pg0: dict[int, float] = {}
        self.pg_seen: dict[int, float] = {}

    def start(self) -> None:
        self.t0 = now()
        self.c0 = {g: [proc_cpu(p) for p in pids] for g, pids in self.groups.items()}
        for pid in postgres_pids(self.pg_data):
            c = proc_cpu(pid)
            if c is not None:
                self.pg0[pid] = c
                self.pg_seen[pid] = c

    def sample(self) -> None:
        """Call now and then: PostgreSQL backends that started since are counted from 0."""
        for pid in postgres_pids(self.pg_data):
            c = proc_cpu(pid)
            if c is not None:
                self.pg0.setdefault(pid, 0.0)
                self.pg_seen[pid] = c

    def stop(self) -> dict:
        self.t1 = now()
        self.sample()
        out = {}
        for g, pids in self.groups.items():
            c1 = [proc_cpu(p) for p in pids]
            vals = [b - a for a, b in zip(self.c0[g], c1) if a is not None and b is not None]
            out[g] = round(sum(vals), 2) if vals else None
            if len(vals) > 1:
                out[g + "_each"] = [round(v, 2) for v in vals]
        if self.pg_data:
            out["postgresql"] = round(sum(self.pg_seen[p] - self.pg0.get(p, 0.0) for p in self.pg_seen), 2)
        out["seconds"] = round(self.t1 - self.t0, 1)
        return out


# ---------------------------------------------------------------------------- where the servers' CPU goes
def start_spies(out_dir: str | None, pids: list[int], rate: int = 100) -> list | None:
    """--spy DIR: py-spy records each app process (raw stacks, all threads, --nonblocking) while the
    students are there; stop_spies() summarises them (loadtest/profile_server.py's top_functions)."""
    if not out_dir:
        return None
    import shutil
    import subprocess
    spy = shutil.which("py-spy") or (str(Path(sys.executable).parent / "py-spy")
                                     if (Path(sys.executable).parent / "py-spy").exists() else None)
    if spy is None:
        print("--spy: py-spy is not installed (pip install py-spy)", file=sys.stderr)
        return None
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    out = []
    for i, pid in enumerate(pids):
        raw = Path(out_dir) / f"app{i}.txt"
        proc = subprocess.Popen([spy, "record", "--pid", str(pid), "--rate", str(rate), "--format", "raw",
                                 "--output", str(raw), "--nonblocking", "--threads"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        out.append((f"app{i}", pid, raw, proc))
    return out


#: a sample whose innermost frame is one of these is a thread waiting (py-spy shows no frame for a C call
#: such as time.sleep or select: the waiting line itself is the leaf)
IDLE_LEAVES = ("select (", "wait (", "sleep (", "acquire (", "epoll", "_worker (concurrent",
               "polling_path_watcher.py:90)")
GENERIC = ("threading.py", "asyncio/", "click/", "runpy", "bootstrap.py", "streamlit/web/cli", "streamlit/__main__",
           "concurrent/futures/thread.py", "uvicorn/_compat.py", "uvicorn/server.py", "starlette_server.py")


def top_functions(raw: Path, n: int) -> tuple[int, list[tuple[str, float, float]]]:
    """(working samples, [(function, inclusive share, self share)]) from py-spy's raw output
    (`frame;frame;... count`); waiting threads and the frames every sample passes are left out
    (as loadtest/profile_server.py, with the waits of the class routes' server added)."""
    import collections
    incl: collections.Counter = collections.Counter()
    own: collections.Counter = collections.Counter()
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        c = int(count)
        frames = [f for f in stack.split(";") if f and not f.startswith("process ") and not f.startswith("thread ")]
        if not frames or any(k in frames[-1] for k in IDLE_LEAVES):
            continue
        total += c
        for f in set(frames):
            incl[f] += c
        own[frames[-1]] += c
    if not total:
        return 0, []
    rows = [(f, c / total, own[f] / total) for f, c in incl.most_common() if not any(g in f for g in GENERIC)]
    return total, rows[:n]


def self_by_module(raw: Path, n: int = 15) -> list:
    """Working samples by the package of their innermost frame (where the CPU is spent: h11, starlette,
    gzip, json, the store, ...)."""
    import collections
    by: collections.Counter = collections.Counter()
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = [f for f in stack.split(";") if f and not f.startswith("process ") and not f.startswith("thread ")]
        if not frames or any(k in frames[-1] for k in IDLE_LEAVES):
            continue
        c = int(count)
        total += c
        m = re.search(r"\(([^:()]+)", frames[-1])
        path = m.group(1) if m else frames[-1]
        parts = path.split("/")
        by["/".join(parts[:2]) if len(parts) > 1 else path] += c
    return [[k, round(v / total, 3)] for k, v in by.most_common(n)] if total else []


def stop_spies(spies: list | None, top: int = 25) -> dict | None:
    if not spies:
        return None
    import signal
    import subprocess
    res = {}
    for name, pid, raw, proc in spies:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if not raw.exists():
            res[name] = {"error": (proc.stderr.read().decode(errors="replace") if proc.stderr else "")[-300:]}
            continue
        total, rows = top_functions(raw, top)
        res[name] = {"pid": pid, "raw": str(raw), "working_samples": total,
                     "self_by_module": self_by_module(raw),
                     "top": [[f[:160], round(inc, 3), round(own, 3)] for f, inc, own in rows]}
    return res


# ---------------------------------------------------------------------------- the run
def pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def cpu_pressure_total() -> int | None:
    """/proc/pressure/cpu's "some" total (microseconds some task waited for a CPU), or None."""
    try:
        for line in Path("/proc/pressure/cpu").read_text().splitlines():
            if line.startswith("some "):
                return int(line.rsplit("total=", 1)[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cores(series: list[tuple], a: float, b: float) -> dict | None:
    """Cores used by the app processes, HAProxy and the load generator between times a and b (the samples
    nearest inside)."""
    pts = [p for p in series if a - 0.5 <= p[0] <= b + 0.5]
    if len(pts) < 2 or pts[-1][0] - pts[0][0] < 0.5:
        return None
    dt = pts[-1][0] - pts[0][0]
    return {"seconds": round(dt, 1), "app": round((pts[-1][1] - pts[0][1]) / dt, 2),
            "haproxy": round((pts[-1][2] - pts[0][2]) / dt, 2), "load_generator": round((pts[-1][3] - pts[0][3]) / dt, 2)}


def _r(x, nd=3):
    return None if x is None else round(x, nd)


async def warm(targets: list[str], page_path: str, shared: Shared) -> float | None:
    """One page with its assets and data from each app process directly (``targets``: their base URLs)
    before the students: the first request of each process builds and compresses what it serves. Timed
    apart."""
    cold = None
    for base in targets:
        u = urlsplit(base)
        st = ClassStudent(-1, u.hostname, u.port or 80, page_path, Shared(), now(), random.Random(0))
        st.name = f"warm {base}"
        t0 = now()
        st.deadline = 0.0    # the page, its assets and its data; no following
        try:
            await st._run()
        finally:
            for c in st.conns:
                await c.close()
        if st.shared.errors:
            for e in st.shared.errors:
                shared.error(*e)
        cold = max(cold or 0.0, now() - t0)
    return cold


async def run_class(args, base_url: str, env: dict, cpu_groups: dict[str, list[int]], pg_data: str | None,
                    warm_targets: list[str]) -> dict:
    """The teacher opens a class; N students arrive over args.ramp seconds, each loads the page and follows
    until ramp + duration; optional real browsers alongside. Returns the summary (without the settings)."""
    u = urlsplit(base_url)
    host, port = u.hostname, u.port or 80
    shared = Shared()
    t_begin = now()
    teacher_task = None
    teacher = None
    mode = getattr(args, "teacher", "auto")
    why_store = None
    if mode in ("auto", "streamlit"):
        teacher = StreamlitTeacher(shared, base_url, tuple(args.teacher_every), args.seed, env)
        try:
            cid = await teacher.start()
        except RuntimeError as e:
            await teacher.stop()
            if mode == "streamlit":
                raise
            why_store = str(e)[:300]
            print(f"note: no Streamlit teacher ({why_store}); the teacher publishes through the store instead",
                  flush=True)
            teacher = None
    if teacher is None:
        # the teacher's process stops when told (stdin closed, after the students); --until is a bound only
        teacher = Teacher(shared, args.class_data, t_begin + 900.0 + args.ramp + args.duration, env, args.seed,
                          tuple(args.teacher_every))
        cid = await teacher.start()
    page_path = f"/class/{cid}"
    cold = await warm(warm_targets or [base_url], page_path, shared)
    cold_errors = shared.error_count
    meter = CpuMeter(cpu_groups, pg_data)
    psi0 = cpu_pressure_total()
    gen0 = proc_cpu(os.getpid())
    meter.start()
    t_students = now()
    deadline = t_students + args.ramp + args.duration
    master = random.Random(args.seed)
    students = [ClassStudent(i, host, port, page_path, shared, deadline, random.Random(master.random()))
                for i in range(args.sessions)]
    if isinstance(teacher, StreamlitTeacher):
        teacher_task = asyncio.create_task(teacher.loop(deadline))

    async def start(st: ClassStudent, delay: float):
        await asyncio.sleep(delay)
        await st.run()

    series: list[tuple] = []    # (t, app CPU s, haproxy CPU s, load generator CPU s), every second

    def cpu_point():
        app = [proc_cpu(p) for p in cpu_groups.get("app", [])]
        hp = [proc_cpu(p) for p in cpu_groups.get("haproxy", [])]
        series.append((now(), sum(x or 0.0 for x in app), sum(x or 0.0 for x in hp), proc_cpu(os.getpid()) or 0.0))

    async def sampler():
        k = 0
        while now() < deadline + 5:
            cpu_point()
            if k % 2 == 0:
                meter.sample()
            k += 1
            await asyncio.sleep(1.0)

    samp = asyncio.create_task(sampler())
    spies = start_spies(getattr(args, "spy", None), cpu_groups.get("app", []))
    tasks = [start(st, args.ramp * i / max(1, args.sessions)) for i, st in enumerate(students)]
    browser = None
    if args.browsers > 0:
        tasks.append(browser_follow_check(base_url.rstrip("/") + page_path, args.browsers, shared, deadline,
                                          args.ramp, args.chromium))
    hard = args.ramp + args.duration + 2 * REQUEST_TIMEOUT + 120
    try:
        results = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), hard)
    except asyncio.TimeoutError:
        results = []
        shared.error("all", "run", f"hard time limit {hard:.0f} s hit")
    for r in results:
        if isinstance(r, BaseException):
            shared.error("task", "run", repr(r)[:300])
        elif isinstance(r, dict):
            browser = r
    t_end = now()
    psi1 = cpu_pressure_total()
    cpu_point()
    cpu = meter.stop()
    profile = stop_spies(spies)
    if teacher_task is not None:
        teacher_task.cancel()
        try:
            await teacher_task
        except (asyncio.CancelledError, Exception):  # noqa: BLE001
            pass
    for a, b, t_seen in shared.seen:
        for pv in range(a + 1, b + 1):
            pub = shared.published.get(pv)
            if pub is not None:
                shared.follow_s.append(t_seen - pub[0])
    gen1 = proc_cpu(os.getpid())
    samp.cancel()
    await teacher.stop()
    minutes = (t_end - t_students) / 60.0
    # the teacher's Steps while the students were there (those during the warm-up are not under load)
    step_s = [d for t0, d in teacher.steps if t_students <= t0 <= t_end]
    server_cpu = sum(v for k, v in cpu.items() if k in ("app", "haproxy", "postgresql") and v is not None)
    app_haproxy = sum(v for k, v in cpu.items() if k in ("app", "haproxy") and v is not None)
    n = args.sessions
    errors = shared.error_count
    summary = {
        "class": {"cid_prefix": cid[:4], "data": teacher.data_key, "published": len(shared.published),
                  "latest_v": shared.latest_v, "teacher": teacher.describe(),
                  **({"why_not_streamlit": why_store} if why_store else {})},
        "page_p95": _r(pct(shared.page_s, 0.95)), "page_p50": _r(pct(shared.page_s, 0.5)),
        "page_max": _r(max(shared.page_s) if shared.page_s else None),
        "follow_p95": _r(pct(shared.follow_s, 0.95)), "follow_p50": _r(pct(shared.follow_s, 0.5)),
        "follow_max": _r(max(shared.follow_s) if shared.follow_s else None), "follow_n": len(shared.follow_s),
        "teacher_step_p95": _r(pct(step_s, 0.95)), "teacher_step_p50": _r(pct(step_s, 0.5)),
        "teacher_step_max": _r(max(step_s) if step_s else None), "teacher_steps": len(step_s),
        "teacher_steps_at": [[round(t0 - t_students, 1), round(d, 3)] for t0, d in teacher.steps
                             if t_students <= t0 <= t_end],   # (s after the first student, Step seconds)
        "teacher_open_s": _r(teacher.open_s),
        "teacher_page_load_s": _r(getattr(teacher, "load_s", None)),
        "teacher_resets": getattr(teacher, "resets", 0),
        "publishes_during_students": sum(1 for t0, _, _ in shared.published.values() if t_students <= t0 <= t_end),
        "state_poll_p95": _r(pct(shared.state_req_s, 0.95)), "state_poll_p50": _r(pct(shared.state_req_s, 0.5)),
        "request_s_by_kind": {k: {"n": len(v), "p50": _r(pct(v, 0.5)), "p95": _r(pct(v, 0.95)), "max": _r(max(v))}
                              for k, v in sorted(shared.req_s.items())},
        "errors": errors, "error_samples": shared.errors, "warmup_errors": cold_errors,
        "missed_versions": shared.missed_versions,
        "students_loaded": shared.students_loaded, "students_following": shared.students_following,
        "bytes_per_student": round(shared.bytes_total / n) if n else None,
        "page_bytes_per_student": round(shared.bytes_page / max(1, shared.students_loaded)),
        "requests": sum(v for k, v in shared.requests.items() if k not in ("state_200", "state_304")),
        "requests_by_kind": dict(sorted(shared.requests.items())),
        "requests_per_s": round(sum(v for k, v in shared.requests.items() if k not in ("state_200", "state_304"))
                                / max(1e-9, t_end - t_students), 1),
        "connections_opened": shared.connects, "keepalive_retries": shared.retries,
        "gzip": shared.gzip_seen, "immutable": shared.immutable_ok,
        "cold_page_s": _r(cold),
        "server_cpu_s": cpu,
        "server_cpu_s_per_student_per_min": _r(server_cpu / n / minutes, 4) if n and minutes else None,
        "app_haproxy_cpu_s_per_student_per_min": _r(app_haproxy / n / minutes, 4) if n and minutes else None,
        "server_cores_used": _r(server_cpu / (t_end - t_students), 2),
        "loadgen_cores_used": _r((gen1 - gen0) / (t_end - t_students), 2) if gen0 is not None and gen1 is not None else None,
        "wall_s": round(t_end - t_students, 1),
        # the share of the time some runnable task of the machine waited for a CPU (/proc/pressure/cpu):
        # high means the machine (this run and whatever else runs on it) wanted more cores than it has
        "cpu_pressure_some": _r((psi1 - psi0) / 1e6 / (t_end - t_students), 2) if psi0 is not None and psi1 is not None else None,
        # cores used while the students arrived (the page loads) and while they only followed
        "cores_arriving": _cores(series, t_students, t_students + args.ramp),
        "cores_following": _cores(series, t_students + args.ramp + 2.0, t_end),
        "browser": None,
    }
    if profile is not None:
        summary["profile"] = profile
    if browser is not None:
        b = dict(browser)
        b["load_p95"] = _r(pct(b.pop("load_s"), 0.95))
        fs = b.pop("follow_s")
        b["follow_p95"] = _r(pct(fs, 0.95))
        b["follow_max"] = _r(max(fs) if fs else None)
        summary["browser"] = b
    goals = {"page_p95_under_1s": summary["page_p95"] is not None and summary["page_p95"] < 1.0,
             "follow_p95_under_3s": summary["follow_p95"] is not None and summary["follow_p95"] < 3.0,
             "teacher_step_p95_under_0.3s": summary["teacher_step_p95"] is not None and summary["teacher_step_p95"] < 0.3,
             "zero_errors": errors == 0 and shared.students_loaded == n}
    if browser is not None:
        goals["browsers_ok"] = not browser["errors"] and browser["drew"] == browser["pages"]
    summary["checks"] = goals
    summary["passed"] = all(goals.values())
    return summary


def print_summary(s: dict) -> None:
    rows = [
        ("students loaded / following", f"{s['students_loaded']} / {s['students_following']} of {s['sessions']}"),
        ("page p50 / p95 / max (HTML -> last byte of assets + data)",
         f"{s['page_p50']} / {s['page_p95']} / {s['page_max']} s   (cold, once per process: {s['cold_page_s']} s)"),
        ("follow p50 / p95 / max (teacher's publish -> a student's poll sees it)",
         f"{s['follow_p50']} / {s['follow_p95']} / {s['follow_max']} s   (n {s['follow_n']})"),
        ("teacher step p50 / p95 / max", f"{s['teacher_step_p50']} / {s['teacher_step_p95']} / {s['teacher_step_max']} s"
                                         f"   ({s['teacher_steps']} steps)"),
        ("state poll p50 / p95", f"{s['state_poll_p50']} / {s['state_poll_p95']} s"),
        ("request p50 / p95 by kind", ",  ".join(f"{k} {d['p50']}/{d['p95']}" for k, d in s["request_s_by_kind"].items())),
        ("errors (missed versions)", f"{s['errors']} ({s['missed_versions']})"),
        ("bytes per student (page)", f"{s['bytes_per_student']:,} ({s['page_bytes_per_student']:,})"),
        ("requests (per s) / by kind", f"{s['requests']} ({s['requests_per_s']}) / {s['requests_by_kind']}"),
        ("server CPU s / per student per minute / cores",
         f"{s['server_cpu_s']} / {s['server_cpu_s_per_student_per_min']} / {s['server_cores_used']}"),
        ("load generator cores", f"{s['loadgen_cores_used']}"),
        ("cores while arriving / while following", f"{s['cores_arriving']} / {s['cores_following']}"),
        ("CPU pressure (share of time some task waited for a core)", f"{s['cpu_pressure_some']}   "
                                                                      f"(load average before {s.get('loadavg_before')})"),
        ("gzip / immutable", f"{s['gzip']} / {s['immutable']}"),
    ]
    b = s.get("browser")
    if b:
        rows.append(("browsers drew / followed / follow UI", f"{b['drew']}/{b['pages']} / {b['followed']} / {b['follow_ui']}"))
        rows.append(("browsers load p95 / follow p95", f"{b['load_p95']} / {b['follow_p95']} s"))
    w = max(len(r[0]) for r in rows)
    print()
    for k, v in rows:
        print(f"  {k:<{w}}  {v}")
    for name, prof in (s.get("profile") or {}).items():
        print(f"\n  py-spy {name}: {prof.get('working_samples')} working samples; inclusive / self share:")
        print("    self, by module: " + ", ".join(f"{m} {100 * x:.0f} %" for m, x in prof.get("self_by_module") or []))
        for f, inc, own in (prof.get("top") or [])[:15]:
            print(f"    {100 * inc:5.1f} % {100 * own:5.1f} %  {f[:130]}")
    for e in s["error_samples"]:
        print("  ERROR", e)
    if b:
        for e in b["errors"]:
            print("  BROWSER", e)
    print("\n  checks: " + ", ".join(f"{k}={'ok' if v else 'FAIL'}" for k, v in s["checks"].items())
          + f"  => {'PASS' if s['passed'] else 'FAIL'}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "teacher":
        sys.exit(teacher_main(sys.argv[2:]))
    print("usage: python -m loadtest.class_link teacher --until T  (the load itself: run_load.py --class-link)",
          file=sys.stderr)
    sys.exit(2)
