"""A class-link student: GET /class/<cid> (HTML), then every stylesheet/script it names in parallel (up to 3
connections, like a browser's parallel fetches) and then the data JSON ``dataUrl`` of the page's
``#nblab-config`` (after the scripts, as the lab script fetches it), all with ``Accept-Encoding: gzip``, each
once (the assets and data are immutable: a browser's cache answers any later use); then the class state
``follow.state`` at once and every ``follow.intervalMs`` after each answer, with ``If-None-Match`` of the last
ETag, as nblab/js/boot.js does. A state naming another data key fetches that data once.

``Shared`` holds what the students, the teacher and the browsers share: the publishes and the tallies."""
from __future__ import annotations

import asyncio
import json
import random
import re
from urllib.parse import urljoin, urlsplit

from loadtest.http_client import HTTPConn, HTTPError, Response, now

MAX_POLLS = 100_000          # hard bound on a student's polls on top of the time bound

_LINK_RE = re.compile(r"<link\b[^>]*>", re.I)
_SCRIPT_SRC_RE = re.compile(r"<script\b[^>]*\bsrc\s*=\s*[\"']([^\"']+)[\"'][^>]*>", re.I)
_HREF_RE = re.compile(r"\bhref\s*=\s*[\"']([^\"']+)[\"']", re.I)
_REL_STYLESHEET_RE = re.compile(r"\brel\s*=\s*[\"']?stylesheet", re.I)
_CONFIG_RE = re.compile(r"<script\b[^>]*\bid\s*=\s*[\"']nblab-config[\"'][^>]*>(.*?)</script>", re.I | re.S)


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
                 rng: random.Random, parallel: int = 3, source: str | None = None):
        self.name = f"c{idx:04d}"
        self.host, self.port, self.page_path = host, port, page_path
        self.base = f"http://{host}:{port}"
        self.shared, self.deadline, self.rng = shared, deadline, rng
        self.jar: dict = {}
        self.parallel = max(1, parallel)
        self.conns: list[HTTPConn] = []
        self.data_keys: set[str] = set()
        self.seen_v: int | None = None      # the newest version a poll answered
        self.first_v: int | None = None     # the version of the first poll answered
        self.etag: str | None = None
        self.source = source                # the local address its connections come from (None: any)

    def _conn(self, i: int) -> HTTPConn:
        while len(self.conns) <= i:
            self.conns.append(HTTPConn(self.host, self.port, self.jar, self.source))
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
        """Poll the class state until the deadline; then the versions this student should have seen."""
        self.etag = None
        self.first_v = None
        polls = 0
        while now() < self.deadline and polls < MAX_POLLS:
            polls += 1
            t_req = now()
            r = await self._fetch(0, "state", state_url, {"Accept": "application/json", **(
                {"If-None-Match": self.etag} if self.etag else {})})
            if r is not None:
                self.shared.state_req_s.append(r.t_end - t_req)
                await self._on_state(r, page_url)
            left = self.deadline - now()
            if left <= 0:
                break
            await asyncio.sleep(min(interval, left))
        self._missed(interval)

    async def _on_state(self, r: Response, page_url: str) -> None:
        sh = self.shared
        if r.status == 304:
            sh.requests["state_304"] = sh.requests.get("state_304", 0) + 1
            if self.etag is None:
                sh.error(self.name, "state", "304 to a request without If-None-Match")
            return
        if r.status != 200:
            sh.error(self.name, "state", f"HTTP {r.status}: {r.body[:100]!r}")
            return
        sh.requests["state_200"] = sh.requests.get("state_200", 0) + 1
        self.etag = r.headers.get("etag")
        try:
            st = r.json()
            v = int(st["v"])
        except (ValueError, KeyError, TypeError, OSError, EOFError) as e:
            sh.error(self.name, "state", f"bad state JSON: {e}: {r.body[:80]!r}")
            return
        self._saw(v, r.t_end)
        key = st.get("data")
        if isinstance(key, str) and key:
            durl = urljoin(page_url, f"data/{key}.json")
            if durl not in self.data_keys:     # the teacher changed the data set
                self.data_keys.add(durl)
                await self._data(durl)
        if st.get("open") is not True:
            sh.error(self.name, "state", f"open is {st.get('open')!r}")

    def _saw(self, v: int, t_end: float) -> None:
        """A poll answered with version v at t_end."""
        sh = self.shared
        if self.seen_v is not None and v < self.seen_v:
            sh.error(self.name, "state", f"v went back from {self.seen_v} to {v}")
        if self.first_v is None:
            self.first_v = v
            sh.students_following += 1
        elif v > (self.seen_v or self.first_v):
            # the versions after the last one seen up to v reached this student now (the latencies are
            # worked out at the end, when every publish time is known)
            sh.seen.append(((self.seen_v or self.first_v), v, t_end))
        self.seen_v = v if self.seen_v is None else max(self.seen_v, v)

    def _missed(self, interval: float) -> None:
        """Versions published early enough that this student should have seen them."""
        if self.first_v is None:
            return
        sh = self.shared
        cutoff = self.deadline - interval - 5.0
        missed = [pv for pv, (t_s, _, _) in sh.published.items()
                  if pv > (self.seen_v or self.first_v) and pv > self.first_v and t_s < cutoff]
        if missed:
            sh.missed_versions += len(missed)
            sh.error(self.name, "follow", f"never saw v {missed[:5]} (last seen {self.seen_v})")
