"""The class link's HTTP routes (the class-link contract), added to the Streamlit app by dashboard/server.py.

* ``GET /class/{cid}``: the class page, :func:`nblab.site.shell_html` with the teacher's settings, the
  data's relative URL and ``follow`` (the state's relative URL, polled every 2 s);
* ``GET /class/assets/{name}``: the lab's hashed files (:func:`nblab.site.assets`), immutable;
* ``GET /class/data/{key}.json``: the lab data (``nblab.data.lab_data``) of a shipped data set or of a
  share (re-read with exactly the checks of an upload), immutable for its key;
* ``GET /class/{cid}/state.json``: the teacher's state, ``ETag: "<v>"`` (``"<v>a"`` while the teacher's
  page is away), ``no-cache``, 304 when unchanged; a stored state that cannot be read is a 500;
* ``POST /class/{cid}/q/{qid}/answer``, ``POST /class/{cid}/q/{qid}/assignment``, ``GET /class/{cid}/q/{qid}/mine``,
  ``GET /class/{cid}/q/{qid}``, ``GET /class/{cid}/q/{qid}/tally``: a student's answer to the teacher's
  question, a report question's seed and labelled share, the answer's read-back, the question, and the
  tally once revealed (dashboard/class_link/answers.py; statuses in docs/class_link.md).

Any app process answers for any class (the state is in the shared store; the data is rebuilt from the
store or the shipped files). Ids are checked for their shape before the store is asked; a bad or unknown
id is a 404 whose body never repeats it; a store that cannot answer is a 503; nothing raises past a
handler (a traceback never reaches a student). Database reads and building the data run in the thread
pool, never on the event loop. The bodies are gzipped once (level 6) and kept in both forms: the data per
key in an LRU bounded by bytes (``NBLAB_CLASS_DATA_CACHE_MB``, default 96 MB, counting both), the assets for
the process's life; a request gets one of them as it is, whatever its Accept-Encoding (``q=0`` honoured).
The routes are served ahead of Streamlit's middleware and within a budget per client (entry.py: 429 with
Retry-After over it, a store read costing more than an answer from memory).
"""
from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import logging
import os
import threading
from collections import OrderedDict

from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import nbcore
from dashboard.class_link import answers as A
from dashboard.class_link import entry
from dashboard.class_link import store as CS
from dashboard.data import store as S
from dashboard.data import uploads
from nblab import site
from nblab.data import lab_data
from nblab.page import _default, _finite, check_settings

log = logging.getLogger(__name__)

IMMUTABLE = "public, max-age=31536000, immutable"
#: a shared data set: the browser keeps it as it keeps a shipped one, but no shared cache (the deployment's
#: proxy) may store it, so that every request of it reaches a server that asks the store whether the
#: share still exists
PRIVATE_IMMUTABLE = "private, max-age=31536000, immutable"
JSON_TYPE = "application/json; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"
FOLLOW_MS = 2000
GZIP_LEVEL = 6
GZIP_MIN = 500            # bytes: smaller bodies go as they are
#: the HTTP header's policy: the shell's own (nblab.site.CSP) plus what only a header can say
FRAME_POLICY = "; frame-ancestors 'none'"


def _cache_budget() -> int:
    try:
        mb = float(os.environ.get("NBLAB_CLASS_DATA_CACHE_MB", "96"))
    except ValueError:
        mb = 96.0
    return int(max(1.0, mb) * 1024 * 1024)


# ---- responses --------------------------------------------------------------------------------------

def _accepts_gzip(request: Request) -> bool:
    """Whether the request's Accept-Encoding takes gzip: its own q (``gzip`` or ``x-gzip``) when it names it,
    else the q of ``*``; q=0 means "not acceptable" (RFC 9110, 12.5.3); no header takes none."""
    own = star = None
    for part in request.headers.get("accept-encoding", "").lower().split(","):
        bits = [b.strip() for b in part.split(";")]
        q = 1.0
        for b in bits[1:]:
            if b.startswith("q="):
                try:
                    q = float(b[2:])
                except ValueError:
                    q = 0.0
        if bits[0] in ("gzip", "x-gzip"):
            own = q if own is None else max(own, q)
        elif bits[0] == "*":
            star = q
    got = own if own is not None else star
    return got is not None and got > 0


def _etag_matches(request: Request, etag: str) -> bool:
    got = request.headers.get("if-none-match")
    if not got:
        return False
    tags = [t.strip() for t in got.split(",")]
    return "*" in tags or etag in tags or ("W/" + etag) in tags


SLICE = 256 * 1024         # bytes: a big body goes to the server in slices of this size


class _Sliced(Response):
    """A big body handed to the server a slice at a time: the event loop's transport then holds at most a
    slice it could not send yet (one 13.8 MB write of an identity data set was copied into the transport's
    buffer and shifted after every partial send, which costs more the slower the client reads)."""

    async def __call__(self, scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        body = memoryview(b"" if scope.get("method") == "HEAD" else self.body)   # HEAD: the headers only
        for i in range(0, len(body), SLICE):
            await send({"type": "http.response.body", "body": bytes(body[i:i + SLICE]),
                        "more_body": i + SLICE < len(body)})
        if not len(body):
            await send({"type": "http.response.body", "body": b""})


def _response(body: bytes, status: int, ctype: str, headers: dict) -> Response:
    kind = _Sliced if len(body) > 4 * SLICE else Response
    return kind(body, status_code=status, media_type=ctype, headers=headers)


def _body(request: Request, plain: bytes, gz: bytes | None, ctype: str, headers: dict, status: int = 200
          ) -> Response:
    """``plain`` or its gzip ``gz`` (when the client takes gzip and it is worth it), both made once and kept:
    the class routes are served outside Streamlit's gzip middleware (dashboard/class_link/entry.py), so no
    request compresses or decompresses anything, and ``Vary`` is said once."""
    h = dict(headers)
    h["Vary"] = "Accept-Encoding"
    if gz is not None and _accepts_gzip(request):
        h["Content-Encoding"] = "gzip"
        return _response(gz, status, ctype, h)
    return _response(plain, status, ctype, h)


def _gz(plain: bytes) -> bytes | None:
    return gzip.compress(plain, GZIP_LEVEL, mtime=0) if len(plain) >= GZIP_MIN else None


BASE_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def _error(status: int, message: str, *, retry: bool = False) -> Response:
    """A short JSON error; never the request's input, never a traceback."""
    h = dict(BASE_HEADERS, **{"Cache-Control": "no-store"})
    if retry:
        h["Retry-After"] = "5"
    return Response(json.dumps({"error": message}).encode(), status_code=status, media_type=JSON_TYPE, headers=h)


_PAGE_ERROR = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Naive Bayes + EM Lab: class link</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto; line-height: 1.5">
<h1>{head}</h1><p>{text}</p></body></html>
"""
_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"


def _page_error(status: int, head: str, text: str, *, retry: bool = False) -> Response:
    """The page route's error: a fixed text (the id is never shown)."""
    h = dict(BASE_HEADERS, **{"Cache-Control": "no-store", "Content-Security-Policy": _PAGE_CSP})
    if retry:
        h["Retry-After"] = "5"
    return Response(_PAGE_ERROR.format(head=head, text=text).encode(), status_code=status, media_type=HTML_TYPE,
                    headers=h)


NOT_OPEN = ("This class is not open", "This class link is not open on this server: it was closed, it was not "
            "used for 12 hours, or the link was cut off when it was copied. Ask your teacher for the link again.")
UNREADABLE = ("This class cannot be shown", "The server holds this class's state in a form it cannot read. Ask "
              "your teacher to open the class again.")
BUSY = ("The server is busy", "The server's store cannot answer right now. Reload this page in a minute.")
TOO_MANY = ("Too many requests", "This computer asked this server for class pages more often than it answers "
            "one computer. Wait a few seconds, then reload this page.")


def too_many(path: str, retry_after: int, *, page: bool | None = None) -> Response:
    """The 429 of a client over its budget (dashboard/class_link/entry.py): the page's kind for a class page
    (``page``, else told by the route's ``path``), JSON for everything else."""
    parts = path.strip("/").split("/")
    if page is None:
        page = len(parts) == 2 and parts[0] == "class" and parts[1] not in ("assets", "data")
    if page:
        r = _page_error(429, *TOO_MANY)
    else:
        r = _error(429, "Too many requests from this computer: wait a few seconds and try again.")
    r.headers["Retry-After"] = str(max(1, int(retry_after)))
    return r


def _retry(request: Request) -> int:
    return entry.retry_after(request.scope)


def _over_budget(request: Request) -> bool:
    """Whether this request's client cannot afford a store read now (it then gets a 429)."""
    return not entry.store_read_allowed(request.scope)


# ---- the assets ---------------------------------------------------------------------------------------

_ASSETS: dict[str, tuple[bytes, bytes | None, str, str]] | None = None
_ASSETS_LOCK = threading.Lock()


def _assets() -> dict[str, tuple[bytes, bytes | None, str, str]]:
    """``{name: (bytes, gzip bytes, content type, etag)}``, built once per process."""
    global _ASSETS
    with _ASSETS_LOCK:
        if _ASSETS is None:
            _ASSETS = {name: (body, _gz(body), ctype, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')
                       for name, (body, ctype) in site.assets().items()}
        return _ASSETS


async def asset_route(request: Request) -> Response:
    try:
        name = request.path_params.get("name", "")
        got = (_ASSETS if _ASSETS is not None else await run_in_threadpool(_assets)).get(name)
        if got is None:
            return _error(404, "There is no such file.")
        body, gz, ctype, etag = got
        headers = dict(BASE_HEADERS, **{"Cache-Control": IMMUTABLE, "ETag": etag})
        if _etag_matches(request, etag):
            return Response(status_code=304, headers=headers)
        return _body(request, body, gz, ctype, headers)
    except Exception:
        log.exception("class asset route failed")
        return _error(500, "The server could not answer this request.")


# ---- the data -----------------------------------------------------------------------------------------

class DataMissing(Exception):
    """The key names no data set this server can serve (the message says why)."""


class _Entry:
    """One data set's answer: its JSON as sent without compression and its gzip, both kept (an identity
    request costs what a gzip one does: no decompression per request)."""
    __slots__ = ("plain", "gz", "etag", "meta", "size")

    def __init__(self, plain: bytes, gz: bytes, etag: str, meta: dict):
        self.plain, self.gz, self.etag, self.meta = plain, gz, etag, meta
        self.size = len(plain) + len(gz) + 1024


_DATA: "OrderedDict[str, _Entry]" = OrderedDict()
_DATA_BYTES = {"n": 0}
_DATA_LOCK = threading.Lock()
_KEY_LOCKS: dict[str, asyncio.Lock] = {}
#: one data set is built at a time per process (parsing and encoding are CPU work; the app's students
#: come first)
_BUILD = threading.Semaphore(1)
_BUILDS = {"n": 0}


def build_count() -> int:
    """How many data sets this process built (tests check the cache with it)."""
    return _BUILDS["n"]


def _shipped() -> frozenset[str]:
    return frozenset(nbcore.list_datasets())


def _meta(data: dict) -> dict:
    """What the page's config reads of the data (nblab.site.shell_html takes this much)."""
    return {"name": data.get("name"), "models": list(data.get("models") or [])}


def _encode(data: dict) -> bytes:
    return json.dumps(_finite(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                      default=_default).encode("utf-8")


def _dataset_for(key: str):
    """The nbcore Dataset a key names (a shipped name, or a share id read like an upload)."""
    if key in _shipped():
        return nbcore.load_dataset(key)
    if not S.valid_id(key):
        raise DataMissing("There is no such data set.")
    store = CS.get_store()
    try:
        share = store.lookup(key)
        raw = store.read(key)
    except (S.NotFound, S.Gone, S.BadId) as e:
        raise DataMissing("This shared data set is no longer on the server.") from e
    if hashlib.sha256(raw).hexdigest() != share.sha256:
        raise DataMissing("The stored file does not match its checksum.")
    try:  # the one way a user's CSV is read
        return uploads.read_upload(raw, dict(share.options))
    except ValueError as e:
        raise DataMissing("The shared file can no longer be read.") from e


def _build(key: str) -> _Entry:
    with _BUILD:
        ds = _dataset_for(key)
        data = lab_data(ds)
        plain = _encode(data)
        _BUILDS["n"] += 1
    return _Entry(plain, gzip.compress(plain, GZIP_LEVEL, mtime=0),
                  '"' + hashlib.sha256(plain).hexdigest()[:32] + '"', _meta(data))


def _cached(key: str) -> _Entry | None:
    with _DATA_LOCK:
        e = _DATA.get(key)
        if e is not None:
            _DATA.move_to_end(key)
        return e


def _keep(key: str, entry: _Entry) -> None:
    budget = _cache_budget()
    with _DATA_LOCK:
        old = _DATA.pop(key, None)
        if old is not None:
            _DATA_BYTES["n"] -= old.size
        _DATA[key] = entry
        _DATA_BYTES["n"] += entry.size
        while _DATA_BYTES["n"] > budget and len(_DATA) > 1:
            _, gone = _DATA.popitem(last=False)
            _DATA_BYTES["n"] -= gone.size


async def data_entry(key: str) -> _Entry:
    """The data of ``key``, built once per process (concurrent requests wait for one build).
    Raises DataMissing or StoreUnavailable."""
    if not CS.valid_data_key(key):
        raise DataMissing("There is no such data set.")
    e = _cached(key)
    if e is not None:
        return e
    lock = _KEY_LOCKS.setdefault(key, asyncio.Lock())
    async with lock:
        e = _cached(key)
        if e is None:
            e = await run_in_threadpool(_build, key)
            _keep(key, e)
    _KEY_LOCKS.pop(key, None)
    return e


async def data_route(request: Request) -> Response:
    try:
        name = request.path_params.get("name", "")
        if not name.endswith(".json"):
            return _error(404, "There is no such data set.")
        key = name[:-len(".json")]
        if not CS.valid_data_key(key):
            return _error(404, "There is no such data set.")
        if key not in _shipped():
            if not S.valid_id(key):
                return _error(404, "There is no such data set.")
            # a share: ask the store every time (a deleted or expired share stops at once on every process)
            if _over_budget(request):
                return too_many("", _retry(request), page=False)
            await run_in_threadpool(_check_share, key)
        e = await data_entry(key)
        cache = IMMUTABLE if key in _shipped() else PRIVATE_IMMUTABLE
        headers = dict(BASE_HEADERS, **{"Cache-Control": cache, "ETag": e.etag})
        if _etag_matches(request, e.etag):
            return Response(status_code=304, headers=headers)
        return _body(request, e.plain, e.gz, JSON_TYPE, headers)
    except DataMissing as e:
        return _error(404, str(e))
    except S.StoreUnavailable:
        return _error(503, "The server's store cannot answer right now. Try again in a minute.", retry=True)
    except Exception:
        log.exception("class data route failed")
        return _error(500, "The server could not answer this request.")


def _check_share(key: str) -> None:
    try:
        CS.get_store().lookup(key)
    except (S.NotFound, S.Gone, S.BadId) as e:
        with _DATA_LOCK:
            old = _DATA.pop(key, None)
            if old is not None:
                _DATA_BYTES["n"] -= old.size
        raise DataMissing("This shared data set is no longer on the server.") from e


# ---- the state and the page ---------------------------------------------------------------------------

async def state_route(request: Request) -> Response:
    try:
        cid = request.path_params.get("cid", "")
        if not CS.valid_class_id(cid):
            return _error(404, "There is no such class.")
        try:
            got = CS.peek(cid)   # most polls: this process read the class less than 0.25 s ago
            if got is None and _over_budget(request):
                return too_many("", _retry(request), page=False)
            v, body = got if got is not None else await run_in_threadpool(CS.read, cid)
        except (CS.ClassNotFound, CS.ClassGone, S.NotFound, S.Gone):
            return _error(404, "This class is not open (it was closed, or not used for 12 hours).")
        except CS.BadState:
            log.error("class state route: the stored state of a class cannot be read")
            return _error(500, "This class's state on the server cannot be read.")
        # the teacher's page coming and going changes the answer, not the version
        etag = f'"{int(v)}a"' if b'"away":true' in body else f'"{int(v)}"'
        headers = dict(BASE_HEADERS, **{"Cache-Control": "no-cache", "ETag": etag})
        if _etag_matches(request, etag):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type=JSON_TYPE, headers=headers)
    except S.StoreUnavailable:
        return _error(503, "The server's store cannot answer right now. Try again in a moment.", retry=True)
    except Exception:
        log.exception("class state route failed")
        return _error(500, "The server could not answer this request.")


def page_settings(settings, meta: dict) -> dict:
    """The teacher's settings that this page can open with: each one the shell accepts (one that it
    refuses, e.g. a data set name that is not the data's, is left out: the lab's default stands)."""
    out = {}
    for k, v in (settings or {}).items() if isinstance(settings, dict) else ():
        try:
            out.update(check_settings({k: v}, meta))
        except (ValueError, TypeError):
            continue
    return out


def _page_html(cid: str, state: dict, meta: dict) -> bytes:
    name = str(meta.get("name") or "the lesson")
    html = site.shell_html(meta, settings=page_settings(state.get("settings"), meta),
                           title=f"Class: {name} (Naive Bayes + EM Lab)",
                           data_url=f"data/{state['data']}.json",
                           follow={"state": f"{cid}/state.json", "intervalMs": FOLLOW_MS})
    return html.encode("utf-8")


#: class pages built, per (class, data, settings): (html, its gzip, ETag); the newest PAGE_ENTRIES kept
PAGE_ENTRIES = 512
_PAGES: OrderedDict = OrderedDict()
_PAGES_LOCK = threading.Lock()


def _page_cached(key: tuple):
    with _PAGES_LOCK:
        got = _PAGES.get(key)
        if got is not None:
            _PAGES.move_to_end(key)
        return got


def _page_store(key: tuple, plain: bytes, gz: bytes | None) -> tuple:
    got = (plain, gz, '"' + hashlib.sha256(plain).hexdigest()[:32] + '"')
    with _PAGES_LOCK:
        _PAGES[key] = got
        _PAGES.move_to_end(key)
        while len(_PAGES) > PAGE_ENTRIES:
            _PAGES.popitem(last=False)
    return got


def page_csp() -> str:
    return site.CSP + FRAME_POLICY


async def page_route(request: Request) -> Response:
    try:
        cid = request.path_params.get("cid", "")
        if not CS.valid_class_id(cid):
            return _page_error(404, *NOT_OPEN)
        try:
            got = CS.peek(cid)
            if got is None and _over_budget(request):
                return too_many("", _retry(request), page=True)
            _, body = got if got is not None else await run_in_threadpool(CS.read, cid)
        except (CS.ClassNotFound, CS.ClassGone, S.NotFound, S.Gone):
            return _page_error(404, *NOT_OPEN)
        except CS.BadState:
            log.error("class page route: the stored state of a class cannot be read")
            return _page_error(500, *UNREADABLE)
        state = json.loads(body)
        try:
            e = await data_entry(str(state.get("data")))
        except DataMissing:
            return _page_error(404, "This class's data set is gone",
                               "The data set this class was opened on is no longer on the server. Ask your "
                               "teacher to open the class again.")
        # the page depends on the class, its data and the teacher's settings, never on t: while they stay the
        # same (a lecture's students arriving) every request is the bytes built for the first one
        pkey = (cid, str(state.get("data")), json.dumps(state.get("settings") or {}, sort_keys=True))
        got = _page_cached(pkey)
        if got is None:
            plain = await run_in_threadpool(_page_html, cid, state, e.meta)
            got = _page_store(pkey, plain, _gz(plain))
        plain, gz, etag = got
        headers = dict(BASE_HEADERS, **{"Cache-Control": "no-cache", "Content-Security-Policy": page_csp(),
                                        "X-Frame-Options": "DENY", "ETag": etag})
        if _etag_matches(request, etag):
            return Response(status_code=304, headers=headers)
        return _body(request, plain, gz, HTML_TYPE, headers)
    except S.StoreUnavailable:
        return _page_error(503, *BUSY, retry=True)
    except Exception:
        log.exception("class page route failed")
        return _page_error(500, "Something went wrong", "The server could not show this class. Reload the page "
                                                         "in a minute; if it keeps happening, tell your teacher.")


async def not_found_route(request: Request) -> Response:
    return _error(404, "There is nothing here.")


# ---- the class answers (dashboard/class_link/answers.py) -------------------------------------------------

TOKEN_HEADER = "x-nblab-token"   # the student's token on a GET (never in the URL: proxies log URLs)
NOT_JSON_TYPE = "Send the answer as JSON (Content-Type: application/json)."
TOO_BIG = f"The answer is over {A.MAX_BODY} bytes: send only the token and the answer."
NO_CLASS = "There is no such class."


def _json(obj, status: int = 200) -> Response:
    h = dict(BASE_HEADERS, **{"Cache-Control": "no-store"})
    return Response(json.dumps(obj, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode(),
                    status_code=status, media_type=JSON_TYPE, headers=h)


def _answer_error(e: Exception) -> Response:
    """The status and message of an error of the answer calls (the message never repeats the request)."""
    status = A.status_of(e)
    if isinstance(e, CS.BadClassId):
        return _error(404, NO_CLASS)
    r = _error(status, str(e))
    if isinstance(e, A.TooManyAnswers):
        r.headers["Retry-After"] = str(e.retry_after)
    return r


async def _small_body(request: Request) -> bytes | None:
    """The request's body, or None as soon as it is over MAX_BODY bytes (the rest is never read)."""
    got = bytearray()
    async for chunk in request.stream():
        got += chunk
        if len(got) > A.MAX_BODY:
            return None
    return bytes(got)


def _ids(request: Request) -> tuple[str, str] | Response:
    cid, qid = request.path_params.get("cid", ""), request.path_params.get("qid", "")
    if not CS.valid_class_id(cid):
        return _error(404, NO_CLASS)
    if not A.ID_RE.fullmatch(qid):
        return _error(404, A.NO_QUESTION)
    return cid, qid


async def _guarded(what: str, go) -> Response:
    """``await go()``, a class answers route's body: the answers' refusals as their statuses, the store's
    absence as 503, anything else as 500 with one log line (a student never sees a traceback)."""
    try:
        return await go()
    except (A.AnswerError, CS.ClassNotFound, CS.ClassGone, CS.BadClassId) as e:
        return _answer_error(e)
    except S.StoreUnavailable:
        return _error(503, "The server's store cannot answer right now. Try again in a moment.", retry=True)
    except Exception:
        log.exception(f"class {what} route failed")
        return _error(500, "The server could not answer this request.")


async def _write_route(request: Request, parse, call) -> Response:
    """A student's write (an answer, a report's share): JSON of at most MAX_BODY bytes, parsed by ``parse``
    into ``call``'s arguments after the class and question ids, within the client's budget."""
    async def go() -> Response:
        ids = _ids(request)
        if isinstance(ids, Response):
            return ids
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return _error(400, NOT_JSON_TYPE)
        length = request.headers.get("content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > A.MAX_BODY):
            return _error(413 if length.strip().isdigit() else 400, TOO_BIG if length.strip().isdigit()
                          else "The request's Content-Length is not a number.")
        body = await _small_body(request)
        if body is None:
            return _error(413, TOO_BIG)
        args = parse(body)
        if not entry.store_read_allowed(request.scope, entry.ANSWER_COST):
            return too_many("", entry.retry_after(request.scope, entry.ANSWER_COST), page=False)
        return _json(await run_in_threadpool(call, ids[0], ids[1], *args))

    return await _guarded("answer", go)


async def answer_route(request: Request) -> Response:
    """``POST /class/{cid}/q/{qid}/answer`` with ``{"token": "...", "answer": ...}``."""
    return await _write_route(request, A.parse_body, lambda cid, qid, token, value: A.answer(cid, qid, token, value))


async def assignment_route(request: Request) -> Response:
    """``POST /class/{cid}/q/{qid}/assignment`` with ``{"token": "..."}``: a report question's seed and share."""
    return await _write_route(request, lambda body: (A.parse_token_body(body),),
                              lambda cid, qid, token: A.assign(cid, qid, token))


async def _read_route(request: Request, call, cost: float, *, token: bool = False, cached: str = "") -> Response:
    """A read of the class answers: ``cost`` tokens of the client's budget, or, for a read this process
    caches (``cached``: its kind), a store read's cost only when the cache cannot answer."""
    async def go() -> Response:
        ids = _ids(request)
        if isinstance(ids, Response):
            return ids
        args = list(ids)
        if token:
            args.append(request.headers.get(TOKEN_HEADER, ""))
            if not A.TOKEN_RE.fullmatch(args[-1]):
                return _error(400, A.BAD_TOKEN)
        spend = (0 if A.is_cached(cached, *ids) else entry.STORE_READ_COST) if cached else cost
        if spend and not entry.store_read_allowed(request.scope, spend):
            return too_many("", entry.retry_after(request.scope, spend), page=False)
        return _json(await run_in_threadpool(call, *args))

    return await _guarded("answers read", go)


async def mine_route(request: Request) -> Response:
    """``GET /class/{cid}/q/{qid}/mine`` with the header ``X-NBLab-Token``: the question and this token's answer."""
    return await _read_route(request, A.mine, entry.ANSWER_COST, token=True)


async def question_route(request: Request) -> Response:
    """``GET /class/{cid}/q/{qid}``: the question as students see it (from this process's short cache)."""
    return await _read_route(request, A.question, 0, cached="question")


async def tally_route(request: Request) -> Response:
    """``GET /class/{cid}/q/{qid}/tally``: the class's answers, once the teacher revealed the right one."""
    return await _read_route(request, A.public_tally, 0, cached="tally")


def middleware() -> list:
    """The middleware for ``st.App`` that serves these routes ahead of Streamlit's (entry.ClassLink)."""
    return [Middleware(entry.ClassLink, routes=routes(), refuse=too_many)]


def routes() -> list[Route]:
    """The class routes, in the order they are matched (the fixed prefixes first)."""
    return [
        Route("/class/assets/{name}", asset_route, methods=["GET"]),
        Route("/class/data/{name}", data_route, methods=["GET"]),
        Route("/class/{cid}/state.json", state_route, methods=["GET"]),
        Route("/class/{cid}", page_route, methods=["GET"]),
        # the class answers: a student's answer, its read-back, the question, the tally once revealed
        Route("/class/{cid}/q/{qid}/answer", answer_route, methods=["POST"]),
        Route("/class/{cid}/q/{qid}/assignment", assignment_route, methods=["POST"]),
        Route("/class/{cid}/q/{qid}/mine", mine_route, methods=["GET"]),
        Route("/class/{cid}/q/{qid}/tally", tally_route, methods=["GET"]),
        Route("/class/{cid}/q/{qid}", question_route, methods=["GET"]),
        # anything else under /class/ is a 404 here (not the Streamlit app's page, which its catch-all serves)
        Route("/class/{rest:path}", not_found_route, methods=["GET", "POST"]),
        Route("/class", not_found_route, methods=["GET", "POST"]),
    ]
