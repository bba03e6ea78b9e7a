"""A minimal Streamlit websocket client: speaks the protocol the JS frontend speaks.

One `Session` = one browser tab. It connects to ws://host:port/_stcore/stream,
sends BackMsg.rerun_script with a ClientState (query_string, widget_states,
page_script_hash, fragment_id, is_auto_rerun) exactly like the frontend's
`sendRerunBackMsg`, and reads ForwardMsgs:

* delta.new_element   -> widgets (their proto carries `id`, which ends in
                          "-<user key>"), exceptions, alerts, text
* script_finished     -> the end of a script (or fragment) run
* auto_rerun          -> a fragment with run_every: the frontend then sends a
                          rerun_script(fragment_id=..., is_auto_rerun=True)
                          every `interval` seconds until stop_auto_rerun
* new_session         -> the page_script_hash to send with later reruns
* delta.new_element.bidi_component -> a components-v2 component (the lesson's
                          player): its id, fragment and the JSON data the
                          server gave it; the client answers like the
                          component's JS (`set_component_state`: a persistent
                          `json_value` state, `component_trigger`: a one-shot
                          `json_trigger_value` on the component's
                          `$$STREAMLIT_INTERNAL_KEY_<id>__events` widget)

Behind a reverse proxy with cookie stickiness, `Session.cookies` holds the
cookies the proxy set on the page request (see `fetch_page`); they go with
the websocket handshake and with every upload, so a student's socket and
uploads reach the same server process, as in a browser.

Only the standard library, `websockets` (a streamlit dependency) and the
protobuf classes inside the `streamlit` package are used.
"""
from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

FS = ForwardMsg.ScriptFinishedStatus
FINAL = {FS.FINISHED_SUCCESSFULLY, FS.FINISHED_FRAGMENT_RUN_SUCCESSFULLY, FS.FINISHED_WITH_COMPILE_ERROR}

# element oneof name -> WidgetState value field the frontend uses for it
WIDGET_TYPES = {
    "slider", "select_slider", "selectbox", "number_input", "checkbox", "radio", "button",
    "button_group", "file_uploader", "download_button", "text_input", "text_area",
    "multiselect", "color_picker", "date_input", "time_input", "toggle",
}


@dataclass
class Widget:
    id: str
    kind: str            # element oneof name, e.g. "slider"
    proto: object        # the element's widget proto (options, min/max, disabled, ...)
    fragment_id: str     # "" when not inside a fragment
    delta_path: tuple

    @property
    def key(self) -> str:
        # "$$ID-<hash>-<user key>"; keyless widgets end in "-None"
        parts = self.id.split("-", 2)
        return parts[2] if len(parts) == 3 else self.id

    @property
    def disabled(self) -> bool:
        return bool(getattr(self.proto, "disabled", False))


#: the internal-key prefix of Streamlit's widget ids (streamlit.runtime.state.session_state)
INTERNAL_KEY_PREFIX = "$$STREAMLIT_INTERNAL_KEY"
#: scalar fields read from a component's JSON data without parsing all of it (the player's data
#: carries whole chart specs: parsing them for every rerun of 300 students would load the generator)
_HEAD_FIELDS = re.compile(r'"(role|sid|run|n|done|seq|t|revealed|fps|lower|drawn|lowerWaiting)": ("[^"]*"|-?\d+|true|false|null)')


@dataclass
class Component:
    """A components-v2 element (st.components.v2 ``component(...)`` call) as the server last sent it."""
    id: str
    name: str            # the registered component name
    fragment_id: str
    head: dict           # the scalar top-level fields of its JSON data (see _HEAD_FIELDS)
    data_bytes: int

    @property
    def key(self) -> str:
        parts = self.id.split("-", 2)
        return parts[2] if len(parts) == 3 else self.id

    @property
    def trigger_id(self) -> str:
        """The id of the component's trigger aggregator widget (one per component; every
        ``setTriggerValue`` of the JS lands there as ``{"event": name, "value": v}``)."""
        return f"{INTERNAL_KEY_PREFIX}_{self.id}__events"


def component_head(raw: str) -> dict:
    """The scalar fields of a component's JSON data; the whole JSON is parsed only when the
    fast read finds none of them."""
    head = {}
    if raw.startswith('"'):  # the data was sent as one JSON text (the lesson player does): unwrap it
        try:
            raw = json.loads(raw)
        except ValueError:
            return {}
        if not isinstance(raw, str):
            return {}
    for k, v in _HEAD_FIELDS.findall(raw[:2000]):
        if k not in head:
            head[k] = json.loads(v)
    if not head and raw:
        try:
            data = json.loads(raw)
        except ValueError:
            return {}
        if isinstance(data, dict):
            head = {k: v for k, v in data.items() if isinstance(v, (str, int, float, bool)) or v is None}
    return head


@dataclass
class RunResult:
    ok: bool
    latency: float
    status: str
    exceptions: list = field(default_factory=list)


class ProtocolError(RuntimeError):
    pass


class Session:
    """One simulated browser tab."""

    def __init__(self, url: str, *, name: str = "s", query_string: str = "", origin: str | None = None,
                 run_timeout: float = 30.0, report_initial_values: bool = True, cookies: dict | None = None):
        self.url = url                      # ws://127.0.0.1:PORT/_stcore/stream
        self.name = name
        self.query_string = query_string
        self.origin = origin
        self.run_timeout = run_timeout
        self.report_initial_values = report_initial_values
        self.ws = None
        self.page_script_hash = ""
        self.session_id = ""
        self.file_urls: asyncio.Queue = asyncio.Queue()
        self.widgets: dict[str, Widget] = {}     # by user key (or id for keyless)
        self.components: dict[str, Component] = {}  # components-v2 elements, by user key
        self.cookies: dict[str, str] = dict(cookies or {})   # sent with the handshake and uploads
        self.values: dict[str, object] = {}      # widget id -> (field, value) the client "holds"
        self.exceptions: list[str] = []          # every exception element ever received
        self.warnings: list[str] = []            # exception elements with is_warning (deprecations)
        self.alerts: list[tuple[str, str]] = []  # (format, body) of st.error/warning/... of the last run
        self.texts: list[str] = []               # markdown/text bodies of the last run (cleared per full run)
        self.auto_reruns: dict[str, float] = {}  # fragment id -> interval
        self.msgs_received = 0
        self.bytes_received = 0
        self._finished: asyncio.Queue = asyncio.Queue()
        self._reader_task = None
        self._closed = False
        self.reader_error: BaseException | None = None

    # ---- connection ---------------------------------------------------------------
    async def connect(self, open_timeout: float = 20.0) -> None:
        kw = dict(subprotocols=["streamlit"], max_size=None, open_timeout=open_timeout,
                  ping_interval=None, close_timeout=2)
        if self.origin:
            kw["origin"] = self.origin
        if self.cookies:
            kw["additional_headers"] = {"Cookie": self.cookie_header()}
        self.ws = await websockets.connect(self.url, **kw)
        self._reader_task = asyncio.create_task(self._reader(), name=f"reader-{self.name}")

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    async def fetch_page(self, timeout: float = 30.0) -> int:
        """GET the page like a browser opening the link (through a proxy this is the request that
        gets the stickiness cookie); keeps the cookies it sets. Returns the HTTP status."""
        http = self.url.replace("wss://", "https://").replace("ws://", "http://").replace("/_stcore/stream", "/")
        if self.query_string:
            http += "?" + self.query_string
        return await asyncio.to_thread(_get_with_cookies, http, self.cookies, timeout)

    async def close(self) -> None:
        self._closed = True
        if self.ws is not None:
            try:
                await self.ws.close()
            except Exception:
                pass
        if self._reader_task is not None:
            self._reader_task.cancel()
            try:
                await self._reader_task
            except (asyncio.CancelledError, Exception):
                pass

    # ---- reading ------------------------------------------------------------------
    async def _reader(self) -> None:
        try:
            async for raw in self.ws:
                if isinstance(raw, str):
                    continue
                self.msgs_received += 1
                self.bytes_received += len(raw)
                msg = ForwardMsg()
                msg.ParseFromString(raw)
                self._handle(msg)
        except asyncio.CancelledError:
            raise
        except websockets.ConnectionClosed as e:
            if not self._closed:
                self.reader_error = e
        except Exception as e:  # noqa: BLE001 - reported to the caller
            self.reader_error = e
        finally:
            await self._finished.put(None)  # wake a waiter

    def _handle(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            if msg.new_session.initialize.session_id:
                self.session_id = msg.new_session.initialize.session_id
            # like the frontend: a full (non-fragment) run drops every auto-rerun timer;
            # the fragments that still want one send auto_rerun again in this run
            if not list(msg.metadata.run.fragment_ids):
                self.auto_reruns.clear()
            if msg.new_session.page_script_hash:
                self.page_script_hash = msg.new_session.page_script_hash
        elif kind == "delta":
            d = msg.delta
            if d.WhichOneof("type") == "new_element":
                el = d.new_element
                etype = el.WhichOneof("type")
                path = tuple(msg.metadata.delta_path)
                if etype == "exception":
                    text = f"{el.exception.type}: {el.exception.message}"
                    (self.warnings if el.exception.is_warning else self.exceptions).append(text)
                elif etype == "alert":
                    self.alerts.append((el.alert.Format.Name(el.alert.format), el.alert.body))
                elif etype == "markdown":
                    self.texts.append(el.markdown.body)
                elif etype == "text":   # st.text: plain text (e.g. a shared file's name)
                    self.texts.append(el.text.body)
                elif etype == "bidi_component":
                    bc = el.bidi_component
                    raw = bc.json if bc.WhichOneof("data") == "json" else (
                        bc.mixed.json if bc.WhichOneof("data") == "mixed" else "")
                    comp = Component(bc.id, bc.component_name, d.fragment_id, component_head(raw), len(raw))
                    self.components[comp.key] = comp
                elif etype in WIDGET_TYPES:
                    w = getattr(el, etype)
                    wid = getattr(w, "id", "")
                    if wid:
                        widget = Widget(wid, etype, w, d.fragment_id, path)
                        self.widgets[widget.key] = widget
                        # like the frontend: a widget reports its value as soon as it is shown and
                        # keeps it across reruns; the server overrides it only with set_value
                        if self.report_initial_values and (wid not in self.values or getattr(w, "set_value", False)):
                            try:
                                iv = initial_value(widget)
                            except Exception:  # noqa: BLE001 - an unknown proto layout: leave it out
                                iv = None
                            if iv is not None:
                                self.values[wid] = iv
        elif kind == "script_finished":
            self._finished.put_nowait(msg.script_finished)
        elif kind == "auto_rerun":
            self.auto_reruns[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
        elif kind == "stop_auto_rerun":
            for fid in msg.stop_auto_rerun.fragment_ids:
                self.auto_reruns.pop(fid, None)
        elif kind == "file_urls_response":
            self.file_urls.put_nowait(msg.file_urls_response)
        elif kind == "page_not_found":
            self.exceptions.append(f"page_not_found: {msg.page_not_found.page_name}")

    # ---- writing ------------------------------------------------------------------
    def _back_msg(self, fragment_id: str = "", is_auto_rerun: bool = False, triggers=(),
                  json_triggers=None) -> bytes:
        bm = BackMsg()
        cs = bm.rerun_script
        cs.query_string = self.query_string
        cs.page_script_hash = self.page_script_hash
        cs.page_name = ""
        cs.fragment_id = fragment_id
        cs.is_auto_rerun = is_auto_rerun
        for wid, (fname, value) in self.values.items():
            ws = cs.widget_states.widgets.add()
            ws.id = wid
            _set_value(ws, fname, value)
        for wid in triggers:
            ws = cs.widget_states.widgets.add()
            ws.id = wid
            ws.trigger_value = True
        for wid, payloads in (json_triggers or {}).items():   # a component's setTriggerValue calls
            ws = cs.widget_states.widgets.add()
            ws.id = wid
            ws.json_trigger_value = json.dumps(payloads)
        cs.context_info.timezone = "UTC"
        cs.context_info.timezone_offset = 0
        cs.context_info.locale = "en-US"
        cs.context_info.url = self.url.replace("ws://", "http://").replace("/_stcore/stream", "/")
        cs.context_info.is_embedded = False
        cs.context_info.color_scheme = "light"
        return bm.SerializeToString()

    async def rerun(self, *, fragment_id: str = "", is_auto_rerun: bool = False, triggers=(),
                    json_triggers=None) -> RunResult:
        """Send one rerun_script and wait for the run it starts to finish.

        Latency = send -> first ForwardMsg.script_finished with a final status
        (FINISHED_EARLY_FOR_RERUN means the run was replaced by another one, e.g.
        st.rerun(scope="app") from a fragment: keep waiting)."""
        while not self._finished.empty():  # stale notifications (e.g. late auto-rerun runs)
            self._finished.get_nowait()
        n_exc = len(self.exceptions)
        if not fragment_id:
            self.alerts.clear()
            self.texts.clear()
        t0 = time.perf_counter()
        await self.ws.send(self._back_msg(fragment_id, is_auto_rerun, triggers, json_triggers))
        deadline = t0 + self.run_timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return RunResult(False, time.perf_counter() - t0, "timeout", self.exceptions[n_exc:])
            try:
                st = await asyncio.wait_for(self._finished.get(), timeout=remaining)
            except asyncio.TimeoutError:
                return RunResult(False, time.perf_counter() - t0, "timeout", self.exceptions[n_exc:])
            if st is None:
                return RunResult(False, time.perf_counter() - t0,
                                 f"disconnected: {self.reader_error!r}", self.exceptions[n_exc:])
            if st in FINAL:
                lat = time.perf_counter() - t0
                new_exc = self.exceptions[n_exc:]
                ok = st != FS.FINISHED_WITH_COMPILE_ERROR and not new_exc
                return RunResult(ok, lat, FS.Name(st), new_exc)

    # ---- widget helpers (what a user does) --------------------------------------------
    def widget(self, key: str) -> Widget | None:
        return self.widgets.get(key)

    async def load(self) -> RunResult:
        """What the browser does on page load: rerun_script with no widget states."""
        return await self.rerun()

    async def set_value(self, key: str, value) -> RunResult:
        """Change a widget the way the frontend does: store its new value, send all values."""
        w = self.widgets[key]
        self.values[w.id] = encode_value(w, value)
        return await self.rerun(fragment_id=w.fragment_id)

    async def click(self, key: str) -> RunResult:
        w = self.widgets[key]
        return await self.rerun(fragment_id=w.fragment_id, triggers=[w.id])

    def component(self, key: str) -> Component | None:
        return self.components.get(key)

    async def set_component_state(self, key: str, name: str, value) -> RunResult:
        """The component's JS calling ``setStateValue(name, value)``: the component's whole state
        (every name it has set) is sent as the widget's ``json_value``, in the component's fragment,
        and kept for every later rerun like any widget value."""
        c = self.components[key]
        old = self.values.get(c.id)
        state = json.loads(old[1]) if old else {}
        state[name] = value
        self.values[c.id] = ("json_value", json.dumps(state))
        return await self.rerun(fragment_id=c.fragment_id)

    async def component_trigger(self, key: str, event: str, value) -> RunResult:
        """The component's JS calling ``setTriggerValue(event, value)``: one rerun of the component's
        fragment carrying ``[{"event": ..., "value": ...}]`` on its trigger widget (not kept)."""
        c = self.components[key]
        return await self.rerun(fragment_id=c.fragment_id,
                                json_triggers={c.trigger_id: [{"event": event, "value": value}]})

    async def auto_tick(self) -> RunResult | None:
        """One auto rerun of the first fragment that asked for it (Play); None if none did."""
        if not self.auto_reruns:
            return None
        fid = next(iter(self.auto_reruns))
        return await self.rerun(fragment_id=fid, is_auto_rerun=True)


# ---- file upload (what the frontend's file_uploader does) ---------------------------------
def _get_with_cookies(url: str, cookies: dict, timeout: float) -> int:
    """GET url sending ``cookies``; the cookies the answer sets are added to ``cookies``."""
    import urllib.error
    import urllib.request
    req = urllib.request.Request(url)
    if cookies:
        req.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()))
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            headers, status = r.headers, r.status
    except urllib.error.HTTPError as e:
        headers, status = e.headers, e.code
    for header in headers.get_all("Set-Cookie") or []:
        name, _, rest = header.partition("=")
        cookies[name.strip()] = rest.split(";", 1)[0]
    return status


def _xsrf_cookie(http_base: str, cookies: dict | None = None) -> str | None:
    import urllib.request
    req = urllib.request.Request(http_base + "/_stcore/health")
    if cookies:   # the proxy's stickiness cookie: the same server process as the websocket
        req.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()))
    with urllib.request.urlopen(req, timeout=10) as r:  # sets the XSRF cookie
        for header in r.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            if name.strip() == "_streamlit_xsrf":
                return rest.split(";", 1)[0]
    return None


def _put_multipart(url: str, name: str, data: bytes, xsrf: str | None, mime: str,
                   cookies: dict | None = None) -> int:
    """PUT one file as multipart/form-data; returns the HTTP status (0 = no answer).

    Sent in chunks with http.client so that a server refusing early (413 on the
    Content-Length) is read as a status instead of a broken pipe."""
    import http.client
    import urllib.parse
    import uuid
    boundary = uuid.uuid4().hex
    safe = name.replace('"', "_").replace("\r", "_").replace("\n", "_")
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{safe}\"\r\n"
            f"Content-Type: {mime}\r\n\r\n").encode("utf-8") + data + f"\r\n--{boundary}--\r\n".encode()
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    try:
        conn.putrequest("PUT", u.path + (f"?{u.query}" if u.query else ""))
        conn.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
        conn.putheader("Content-Length", str(len(body)))
        jar = dict(cookies or {})
        if xsrf:
            conn.putheader("X-Xsrftoken", xsrf)
            jar["_streamlit_xsrf"] = xsrf
        if jar:
            conn.putheader("Cookie", "; ".join(f"{k}={v}" for k, v in jar.items()))
        conn.endheaders()
        try:
            for i in range(0, len(body), 64 * 1024):
                conn.send(body[i:i + 64 * 1024])
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading: its answer says why
        try:
            return conn.getresponse().status
        except (OSError, http.client.HTTPException):
            return 0
    finally:
        conn.close()


def latest_key(widgets, key: str) -> str:
    """``key``, or the newest ``key_<n>`` the page has drawn: the app draws a new, empty uploader under
    "uploader_1", "uploader_2"… after each file it refuses (dashboard/ui/controls.py, uploader_key)."""
    numbered = [int(k.rsplit("_", 1)[1]) for k in widgets
                if k.startswith(key + "_") and k.rsplit("_", 1)[1].isdigit()]
    return f"{key}_{max(numbered)}" if numbered else key


async def upload_file(sess: Session, key: str, name: str, data: bytes, mime: str = "text/csv") -> RunResult:
    """Upload `data` through the file_uploader widget `key`, like a browser:
    BackMsg.file_urls_request -> ForwardMsg.file_urls_response -> HTTP PUT (multipart,
    XSRF cookie + header) -> rerun_script with a file_uploader_state_value.
    Returns the RunResult of that rerun; an HTTP refusal (e.g. 413 above
    server.maxUploadSize) gives ok=False and status "http <code>"."""
    w = sess.widgets[latest_key(sess.widgets, key)]
    http_base = sess.url.replace("ws://", "http://").replace("/_stcore/stream", "")
    req_id = f"req-{time.perf_counter_ns()}"
    bm = BackMsg()
    bm.file_urls_request.request_id = req_id
    bm.file_urls_request.file_names.append(name)
    bm.file_urls_request.session_id = sess.session_id
    t0 = time.perf_counter()
    await sess.ws.send(bm.SerializeToString())
    resp = await asyncio.wait_for(sess.file_urls.get(), timeout=sess.run_timeout)
    if resp.error_msg or not resp.file_urls:
        return RunResult(False, time.perf_counter() - t0, f"file_urls error: {resp.error_msg}")
    fu = resp.file_urls[0]
    upload_url = fu.upload_url if fu.upload_url.startswith("http") else http_base + "/" + fu.upload_url.lstrip("/")
    xsrf = await asyncio.to_thread(_xsrf_cookie, http_base, sess.cookies)
    code = await asyncio.to_thread(_put_multipart, upload_url, name, data, xsrf, mime, sess.cookies)
    if code not in (200, 204):
        return RunResult(False, time.perf_counter() - t0, f"http {code}")
    sess.values[w.id] = ("file_uploader_state_value", (name, len(data), fu))
    return await sess.rerun(fragment_id=w.fragment_id)


def _set_value(ws, fname: str, value) -> None:
    if fname == "file_uploader_state_value":
        name, size, fu = value
        info = ws.file_uploader_state_value.uploaded_file_info.add()
        info.name, info.size, info.file_id = name, size, fu.file_id
        info.file_urls.CopyFrom(fu)
        return
    if fname == "double_array_value":
        ws.double_array_value.data.extend([float(v) for v in value])
    elif fname == "int_array_value":
        ws.int_array_value.data.extend([int(v) for v in value])
    elif fname == "string_array_value":
        ws.string_array_value.data.extend([str(v) for v in value])
    else:   # scalar fields, json_value (a component's state) among them
        setattr(ws, fname, value)


def encode_value(w: Widget, value) -> tuple[str, object]:
    """(WidgetState field, value) the JS frontend would send for `value` on this widget.

    For option widgets `value` is the *formatted* option label as shown in the
    UI (what the frontend sends since streamlit 1.4x)."""
    k = w.kind
    if k == "slider" and w.proto.type == w.proto.SELECT_SLIDER:
        vals = value if isinstance(value, (list, tuple)) else [value]
        return "string_array_value", [str(v) for v in vals]
    if k == "slider":
        vals = value if isinstance(value, (list, tuple)) else [value]
        return "double_array_value", [float(v) for v in vals]
    if k in ("selectbox", "radio", "text_input", "text_area", "color_picker"):
        return "string_value", str(value)
    if k == "number_input":
        if w.proto.data_type == w.proto.INT:
            return "int_value", int(value)
        return "double_value", float(value)
    if k in ("checkbox", "toggle"):
        return "bool_value", bool(value)
    if k in ("button_group", "multiselect"):
        vals = value if isinstance(value, (list, tuple)) else [value]
        return "string_array_value", [str(v) for v in vals]
    raise ValueError(f"don't know how to set a {k} widget")


def initial_value(w: Widget):
    """(field, value) the JS frontend reports for a widget it has just drawn, or None."""
    p, k = w.proto, w.kind
    if k == "slider":
        vals = list(p.value) if p.set_value and len(p.value) else list(p.default)
        if p.type == p.SELECT_SLIDER:
            return "string_array_value", [p.options[int(v)] for v in vals]
        return "double_array_value", [float(v) for v in vals]
    if k in ("selectbox", "radio"):
        if p.set_value and p.HasField("raw_value"):
            return "string_value", p.raw_value
        if p.HasField("default") and 0 <= p.default < len(p.options):
            return "string_value", p.options[p.default]
        return None
    if k == "number_input":
        v = p.value if p.set_value else p.default
        if p.data_type == p.INT:
            return "int_value", int(v)
        return "double_value", float(v)
    if k == "checkbox":
        return "bool_value", bool(p.value if p.set_value else p.default)
    return None


def options_of(w: Widget) -> list[str]:
    return list(getattr(w.proto, "options", []))
