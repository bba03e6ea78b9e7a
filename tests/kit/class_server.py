"""A class link's URLs served from a folder, as the app's class routes serve them: the class page, its data
and the teacher's state.json (with ETag and 304), and the failures a test sets (a status, a busy server, a
held answer). Shared by the class page's browser tests."""
from __future__ import annotations

import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATA = "synthetic_spam"
#: the teacher's settings (the lab's URL keys, as nblab.export.lesson_settings gives them)
SETTINGS = {"dataset": DATA, "model": "bernoulli", "hidden": 90, "lam": 1.0, "init": "labeled", "seed": 0,
            "max_iter": 100, "tol": 1e-6}
INTERVAL = 500


# ---- the class server ----------------------------------------------------------------------------------------------

class ClassServer:
    """The class link's URLs over a folder. `states[cid]` is the teacher's state (None: the class is gone);
    `fail[path]` answers that path with a status instead; `busy[path] = n` answers its next n requests 429
    with Retry-After: 1 (a server too busy for one more student); `log` records (path, status) of every
    request."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.states: dict[str, dict | None] = {}
        self.fail: dict[str, int | bytes] = {}
        self.busy: dict[str, int] = {}
        self.hold: dict[str, threading.Event] = {}      # a path answered once its event is set
        self.etag_suffix: dict[str, str] = {}           # a class whose ETag says more than its version
        self.log: list[tuple[str, int]] = []
        self.lock = threading.Lock()
        srv = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *a, **kw):
                super().__init__(*a, directory=str(srv.folder), **kw)

            def log_message(self, *a):
                pass

            def _send(self, status, body=b"", ctype="application/json", headers=()):
                with srv.lock:
                    srv.log.append((self.path, status))
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                if status != 304:
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if status != 304:
                    self.wfile.write(body)

            def do_GET(self):
                path = self.path.split("?")[0]
                if path in srv.hold:
                    srv.hold[path].wait(30)
                with srv.lock:
                    busy = srv.busy.get(path, 0)
                    if busy:
                        srv.busy[path] = busy - 1
                if busy:
                    return self._send(429, b'{"error": "Too many requests"}', headers=[("Retry-After", "1")])
                got = srv.fail.get(path)
                if isinstance(got, int):
                    return self._send(got, b'{"error": "no"}')
                if isinstance(got, bytes):
                    return self._send(200, got)
                parts = path.strip("/").split("/")
                if len(parts) == 3 and parts[0] == "class" and parts[2] == "state.json":
                    st = srv.states.get(parts[1])
                    if st is None:
                        return self._send(404, b'{"error": "This class has ended."}')
                    etag = f'"{st["v"]}{srv.etag_suffix.get(parts[1], "")}"'
                    hdr = [("ETag", etag), ("Cache-Control", "no-cache")]
                    if self.headers.get("If-None-Match") == etag:
                        return self._send(304, headers=hdr)
                    return self._send(200, json.dumps(st).encode(), headers=hdr)
                if len(parts) == 2 and parts[0] == "class" and parts[1] not in ("data", "assets"):
                    f = srv.folder / "class" / f"{parts[1]}.html"
                    if f.is_file():
                        return self._send(200, f.read_bytes(), "text/html; charset=utf-8")
                with srv.lock:
                    srv.log.append((self.path, 200))
                return super().do_GET()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def publish(self, cid, t, settings=None, half=None, **over):
        """The teacher's next state (v one more than the last)."""
        old = self.states.get(cid) or {"v": 0}
        st = {"class": cid, "v": old["v"] + 1, "data": DATA, "settings": dict(settings or SETTINGS), "t": t,
              "half": half, "open": True}
        st.update(over)
        self.states[cid] = st
        return st["v"]

    def requests(self, needle):
        with self.lock:
            return [(p, s) for p, s in self.log if needle in p]

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def write_class(folder: Path, cid: str, lab_data: dict, follow=True, key=DATA) -> None:
    from nblab.site import assets, shell_html

    cls = folder / "class"
    (cls / "assets").mkdir(parents=True, exist_ok=True)
    (cls / "data").mkdir(exist_ok=True)
    for name, (body, _) in assets().items():
        (cls / "assets" / name).write_bytes(body)
    (cls / "data" / f"{key}.json").write_text(json.dumps(lab_data), encoding="utf-8")
    page = shell_html(lab_data, data_url=f"data/{key}.json",
                      follow={"state": f"{cid}/state.json", "intervalMs": INTERVAL} if follow else None)
    (cls / f"{cid}.html").write_text(page, encoding="utf-8")
