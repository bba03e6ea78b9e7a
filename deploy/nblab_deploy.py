#!/usr/bin/env python3
"""Serve the lab to a class from one machine: N Streamlit processes behind HAProxy, shares on PostgreSQL.

    python deploy/nblab_deploy.py start --processes 2 --port 8080   # start everything, return
    python deploy/nblab_deploy.py status                             # what runs, health of each part
    python deploy/nblab_deploy.py stop                               # stop everything (data kept)
    python deploy/nblab_deploy.py stop --purge                       # ... and delete the state directory
    python deploy/nblab_deploy.py run --processes 2                  # start, wait for Ctrl-C, stop

What `start` starts (all on this machine, every part from Debian's packages or this repository):

* N app processes: ``python -m streamlit run dashboard/server.py`` on 127.0.0.1:<app-port>+i (only the
  proxy can reach them), with the repository's .streamlit/config.toml (5 MB uploads, no file
  watcher, ...). One process uses about one core: run one per core. dashboard/server.py is the
  Streamlit app (dashboard/app.py) plus the class link's plain-HTTP routes under ``/class/`` (the page
  students open to follow the teacher, its assets, the data, the teacher's state: dashboard/class_link).
* HAProxy in front (``haproxy``; ``apt-get install -y haproxy``), listening on --bind:--port:
  cookie stickiness (``NBLAB`` cookie inserted on a student's first request: the page, its websocket
  and its uploads all go to the process that holds the student's session; a school behind one NAT
  address is still spread over the processes, which ``ip_hash`` would not do), ``leastconn`` for new
  students (websockets are long: the process with the fewest open tabs gets the next student),
  websocket upgrade (HAProxy passes ``Upgrade`` through in HTTP mode; ``timeout tunnel`` keeps an
  idle lesson tab open for --tunnel-timeout), the upload limit (a body over --max-upload-mb is
  refused with 413 before it reaches Python; Streamlit's own 5 MB cap stays), health checks of
  every process (``/_stcore/health``: a process that stops answering gets no new students), and
  ``X-Forwarded-For``, which Streamlit's server trusts from 127.0.0.1, so the share quota per
  client address counts the student's address, not the proxy's. Requests under ``/class/`` go to a
  backend of their own: no cookie and no stickiness (any process answers a class from the shared store
  and the data it rebuilds itself), ``roundrobin`` (each is a short GET: a class's page, its cached
  assets and data, then a poll of the teacher's state every 2 s), no websocket, GET/HEAD only (405
  otherwise), the same health checks. The shipped data sets and the page's assets are kept in HAProxy's
  own cache (--class-cache-mb of RAM, one copy per encoding the app sent), so a class that loads them,
  or a client that floods them, costs the app processes nothing after the first request; a shared
  data set is never kept there (the app marks it ``private``: a deleted or expired share stops at once).
* PostgreSQL for the shared data sets and the open classes (Debian's ``postgresql``: initdb/pg_ctl from
  /usr/lib/postgresql/*/bin), on a Unix socket in the state directory only (no TCP port), its data
  kept across stop/start (``stop --purge`` removes it). ``--store-url postgresql://...`` uses an
  existing server instead; the app processes get it as ``NBLAB_STORE_URL``.

Users: run it as an ordinary user and everything runs as that user (ports >= 1024). Run as root
and PostgreSQL runs as Debian's ``postgres`` user, HAProxy drops to ``nobody`` once its port is open,
and the app processes run as --user (default ``nobody``); when that user cannot run this Python,
`start` refuses (exit 1, saying why and what to do) unless --allow-root is given.

State (pids, ports, the generated haproxy.cfg, logs, the PostgreSQL data) lives in --state-dir
(default ``~/.local/state/nblab-deploy``); `status` and `stop` read it. Exit status: 0 done,
1 something failed to start (everything started so far is stopped again), 2 bad arguments or a
missing program.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_STATE = Path(os.environ.get("XDG_STATE_HOME", Path.home() / ".local" / "state")) / "nblab-deploy"
COOKIE = "NBLAB"
#: what each app process runs: the Streamlit app plus the class link's routes (/class/...)
APP_ENTRY = "dashboard/server.py"
PG_PORT = 54331   # names the Unix socket file only (no TCP listener)


class DeployError(RuntimeError):
    """A part did not start; the message says which and where its log is."""


# ---------------------------------------------------------------------------- programs
def find_haproxy() -> str | None:
    return shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy")
                                            if os.access(p, os.X_OK)), None)


def find_pg_bindir() -> Path | None:
    """The directory of initdb and pg_ctl: $PG_BIN, else Debian's newest /usr/lib/postgresql/*/bin,
    else the one on PATH; None when PostgreSQL is not installed. (tests/kit/pg.py uses this too.)"""
    env = os.environ.get("PG_BIN")
    if env and (Path(env) / "initdb").exists():
        return Path(env)
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    which = shutil.which("initdb")
    return Path(which).parent if which else None


def missing_programs(need_pg: bool = True) -> list[str]:
    """What this machine lacks to run a deployment, as messages naming the package to install."""
    out = []
    if find_haproxy() is None:
        out.append("HAProxy is not installed (apt-get install -y haproxy)")
    if need_pg and find_pg_bindir() is None:
        out.append("PostgreSQL is not installed (apt-get install -y postgresql), or pass --store-url")
    return out


# ---------------------------------------------------------------------------- helpers
def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_ok(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status == 200
    except (OSError, urllib.error.URLError):
        return False


def pid_alive(pid: int | None, marker: str | None = None) -> bool:
    """The process runs, and (when given) its command line contains `marker` (a reused pid is not ours)."""
    if not pid:
        return False
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z" and (marker is None or marker in cmd)


def stop_pid(pid: int | None, marker: str | None, grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after `grace` s; only a process whose command line has `marker`."""
    if not pid_alive(pid, marker):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.time() + grace
    while time.time() < deadline:
        if not pid_alive(pid):
            return
        time.sleep(0.1)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def as_user(cmd: list[str], user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--", *cmd] if user else cmd


def app_user(requested: str | None, allow_root: bool = False) -> tuple[str | None, str]:
    """(user to run the app processes as, None = this user; a note for the operator).

    As root the app (which parses every student's upload) never runs as root unless ``allow_root``
    (--allow-root) says so: when ``--user`` (default nobody) cannot run this Python with this
    repository, DeployError says why and what to do, before anything is started."""
    if os.geteuid() != 0:
        return None, ""
    user = requested or "nobody"
    if user == "root":
        if not allow_root:
            raise DeployError("refusing to run the app processes as root (--user root): the app reads every "
                              "student's upload, and a root process would do so with every right on this "
                              "machine. Use an unprivileged --user, or pass --allow-root if you really mean it.")
        return None, "app processes run as root (--user root --allow-root)"
    probe = subprocess.run(as_user([sys.executable, "-c", "import streamlit, nbcore, dashboard"], user),
                           cwd=str(ROOT), capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        why = (probe.stderr.strip().splitlines() or ["?"])[-1]
        if not allow_root:
            raise DeployError(
                f"refusing to run the app processes as root: user {user!r} cannot run {sys.executable} with "
                f"this repository ({why}). Fix: give {user!r} read (and execute) access to the virtualenv and "
                f"the repository (e.g. install them under /opt), or pass --user with a user that can; "
                f"--allow-root runs them as root anyway (not advised: the app reads every student's upload).")
        return None, (f"app processes run as ROOT (--allow-root): user {user!r} cannot run {sys.executable} "
                      f"with this repository ({why})")
    return user, f"app processes run as {user}"


def share_key(state: Path, given: str | None) -> str:
    """The key teachers type to share a data set (NBLAB_SHARE_KEY of the app processes): --share-key or
    the environment's, else the one kept in <state>/share_key, else a new random one written there
    (readable by the operator only). With it, sharing is decided by role, not by network address."""
    import secrets as _secrets

    key = given or os.environ.get("NBLAB_SHARE_KEY")
    f = state / "share_key"
    if not key and f.exists():
        key = f.read_text().strip()
    if not key:
        key = _secrets.token_urlsafe(12)
    f.write_text(key + "\n")
    f.chmod(0o600)
    return key


# ---------------------------------------------------------------------------- PostgreSQL
def pg_start(state: Path, log) -> tuple[str, dict]:
    """Start (initialising on first use) the store's PostgreSQL; returns (URL, state entries)."""
    bindir = find_pg_bindir()
    if bindir is None:
        raise DeployError("PostgreSQL is not installed (apt-get install -y postgresql), or pass --store-url")
    user = "postgres" if os.geteuid() == 0 else None   # initdb refuses root
    pg_dir, sock = state / "pg", state / "pg-socket"
    data, pg_log = pg_dir / "data", state / "logs" / "postgresql.log"
    for d in (pg_dir, sock):
        d.mkdir(parents=True, exist_ok=True)
    if user:
        import pwd
        pw = pwd.getpwnam(user)
        for d in (pg_dir, sock):
            os.chown(d, pw.pw_uid, pw.pw_gid)
        pg_log.touch()
        os.chown(pg_log, pw.pw_uid, pw.pw_gid)
    sock.chmod(0o755)   # the app processes (perhaps another user) reach the socket file

    def run(cmd):
        r = subprocess.run(as_user(cmd, user), capture_output=True, text=True, cwd=str(pg_dir), timeout=180)
        if r.returncode != 0:
            tail = pg_log.read_text(errors="replace")[-1500:] if pg_log.exists() else ""
            raise DeployError(f"{' '.join(cmd[:2])} failed: {r.stderr.strip()[-800:]}\n{tail}")
        return r
    if not (data / "PG_VERSION").exists():
        log(f"initialising PostgreSQL in {data}")
        run([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "nblab", "-E", "UTF8", "--locale=C"])
    opts = f"-c listen_addresses='' -k {sock} -p {PG_PORT} -c unix_socket_permissions=0777"
    run([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(pg_log), "-o", opts, "-w", "-t", "60", "start"])
    exists = run([str(bindir / "psql"), "-h", str(sock), "-p", str(PG_PORT), "-U", "nblab", "-d", "postgres",
                  "-tAc", "SELECT 1 FROM pg_database WHERE datname = 'nblab'"]).stdout.strip()
    if exists != "1":
        run([str(bindir / "createdb"), "-h", str(sock), "-p", str(PG_PORT), "-U", "nblab", "nblab"])
    url = f"postgresql://nblab@/nblab?host={sock}&port={PG_PORT}"
    return url, {"pg_bindir": str(bindir), "pg_data": str(data), "pg_user": user}


def pg_stop(st: dict) -> None:
    if not st.get("pg_data"):
        return
    cmd = [str(Path(st["pg_bindir"]) / "pg_ctl"), "-D", st["pg_data"], "-m", "fast", "-w", "-t", "60", "stop"]
    subprocess.run(as_user(cmd, st.get("pg_user")), capture_output=True, timeout=90)


# ---------------------------------------------------------------------------- HAProxy
#: the proxy's own error pages (HAProxy's texts), with the security headers every answer of the deployment has:
#: a request it refuses before any rule runs (a request line it cannot parse: 400) gets these as they are
ERRORS = {400: ("Bad request", "Your browser sent an invalid request."),
          403: ("Forbidden", "Request forbidden by administrative rules."),
          408: ("Request Time-out", "Your browser didn't send a complete request in time."),
          500: ("Internal Server Error", "An internal server error occurred."),
          502: ("Bad Gateway", "The server returned an invalid or incomplete response."),
          503: ("Service Unavailable", "No server is available to handle this request."),
          504: ("Gateway Time-out", "The server didn't respond in time.")}
SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
                    ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
                    ("X-Frame-Options", "DENY"))


def error_files(state: Path) -> dict[int, Path]:
    """Write the proxy's error pages into <state>/errors; {status: file}."""
    d = state / "errors"
    d.mkdir(parents=True, exist_ok=True)
    out = {}
    for code, (reason, text) in ERRORS.items():
        head = [f"HTTP/1.0 {code} {reason}", "Cache-Control: no-cache", "Connection: close",
                "Content-Type: text/html; charset=utf-8", *(f"{k}: {v}" for k, v in SECURITY_HEADERS)]
        body = f"<html><body><h1>{code} {reason}</h1>\n{text}\n</body></html>\n"
        f = d / f"{code}.http"
        f.write_bytes(("\r\n".join(head) + "\r\n\r\n" + body).encode())
        f.chmod(0o644)
        out[code] = f
    return out


def haproxy_config(args, ports: list[int], state: Path, drop_to: str | None) -> str:
    servers = "\n".join(f"    server app{i} 127.0.0.1:{p} cookie app{i} check inter 2s fall 2 rise 2 "
                        f"maxconn {args.maxconn_per_process}" for i, p in enumerate(ports))
    class_servers = "\n".join(f"    server app{i} 127.0.0.1:{p} check inter 2s fall 2 rise 2 "
                              f"maxconn {args.maxconn_per_process}" for i, p in enumerate(ports))
    user = f"    user {drop_to}\n    group nogroup\n" if drop_to else ""
    limit = int(args.max_upload_mb * 1024 * 1024)
    class_window = int(round(args.class_rate * 10))
    cache_bytes = int(args.class_cache_mb * 1024 * 1024)
    bytes_window = int(args.class_mb_per_s * 10 * 1024 * 1024)
    errors = "\n".join(f"    errorfile {code} {f}" for code, f in error_files(state).items())
    too_many = ('"{\\"error\\":\\"Too many requests from this computer: wait a few seconds and try '
                'again.\\"}"')
    return f"""# Written by deploy/nblab_deploy.py (regenerated on every start; edit the script's options instead).
global
    maxconn {args.maxconn}
    log stdout format raw local0 info
{user}
defaults
    mode http
    log global
    option httplog
    option dontlognull
    # the student's address for the app (Streamlit's server trusts X-Forwarded-For from 127.0.0.1)
    option forwardfor
    timeout connect 5s
    # a request (headers and body) must arrive within this; a slow upload of 6 MB fits easily
    timeout http-request 60s
    timeout client {args.client_timeout}s
    timeout server {args.client_timeout}s
    # an open lesson tab is one websocket; it may sit idle for a whole lecture
    timeout tunnel {args.tunnel_timeout}s
    timeout client-fin 10s
    timeout queue 30s
    # the proxy's own error pages, with the security headers (see error_files)
{errors}

frontend nblab
    bind {args.bind}:{args.port}
    # uploads: Streamlit caps a file at 5 MB; a body over {args.max_upload_mb:g} MB (the file plus its
    # multipart framing) is refused here, before it reaches the app
    http-request deny deny_status 413 if {{ req.hdr_val(content-length) gt {limit} }}
    # the class link (/class/...): plain GETs any process answers from the shared store
    acl class_link path_beg /class/
    # a budget per client address (an IPv6 one by its /64) on the class link: over {args.class_rate:g} requests
    # a second, averaged over 10 s, a client gets 429 here, before any app process spends a thing on it
    # (the app processes have a finer budget of their own, dashboard/class_link/entry.py)
    # and over {args.class_mb_per_s:g} MB a second of data sets and assets (also averaged over 10 s: a class of 300
    # loading sms_spam behind one address takes about 110 MB), so one client's flood of downloads cannot
    # take the proxy's own CPU either (the proxy's cache answers them without any app process)
    stick-table type ipv6 size 200k expire 60s store http_req_rate(10s),bytes_out_rate(10s)
    http-request track-sc0 src,ipmask(32,64) if class_link
    http-request deny status 429 content-type "application/json; charset=utf-8" string {too_many} hdr Retry-After 10 if class_link {{ sc_http_req_rate(0) gt {class_window} }}
    http-request deny status 429 content-type "application/json; charset=utf-8" string {too_many} hdr Retry-After 10 if {{ path_beg /class/data/ /class/assets/ }} {{ sc_bytes_out_rate(0) gt {bytes_window} }}
    use_backend classlink if class_link
    default_backend app
    # every answer, the proxy's own error pages too: no sniffing, no Referer with a class or share id; an
    # HTML page without a policy of its own (only the proxy's: the app sets one on each of its pages) may
    # load nothing and be framed by nobody
    http-after-response set-header X-Content-Type-Options nosniff
    http-after-response set-header Referrer-Policy no-referrer unless {{ res.hdr(referrer-policy) -m found }}
    http-after-response set-header Content-Security-Policy "default-src 'none'; frame-ancestors 'none'" if {{ res.hdr(content-type) -m beg text/html }} !{{ res.hdr(content-security-policy) -m found }}
    http-after-response set-header X-Frame-Options DENY if {{ res.hdr(content-type) -m beg text/html }} !{{ res.hdr(x-frame-options) -m found }}

cache classlink
    # the shipped data sets (spam_assassin is 13.8 MB sent as it is, 5.2 MB in gzip) and the class page's
    # assets, each kept once per encoding (Vary: Accept-Encoding; a client's q=0 is honoured) until the
    # proxy restarts or max-age passes; only answers the app calls public are stored
    total-max-size {args.class_cache_mb}
    max-object-size {cache_bytes // 2 - 1}
    max-age 3600
    process-vary on
    max-secondary-entries 4

backend classlink
    # no cookie, no stickiness, no websocket: a student's page, assets, data and 2-second polls of the
    # teacher's state may each go to any process (the class lives in the shared store)
    balance roundrobin
    # the cache holds the data and the assets only (a request's path is not known to a response rule: a
    # transaction variable carries it over)
    http-request set-var(txn.cacheable) bool(1) if {{ path_beg /class/data/ /class/assets/ }}
    http-request cache-use classlink if {{ var(txn.cacheable) -m bool }}
    http-response cache-store classlink if {{ var(txn.cacheable) -m bool }}
    # a process that is restarting (connection refused) is skipped at once, before its health checks fail
    retries 2
    option redispatch 1
    # GET (HEAD) only, but for a student's answer to a class question and the request for their share (the
    # app's answer routes check everything else: dashboard/class_link/answers.py)
    acl answer_route path_reg ^/class/[A-Za-z0-9_-]+/q/[A-Za-z0-9_-]+/(answer|assignment)$
    http-request deny deny_status 405 unless METH_GET || METH_POST answer_route
    option httpchk GET /_stcore/health
    http-check expect status 200
{class_servers}

backend app
    # a new student goes to the process with the fewest open connections (websockets last a lesson);
    # the cookie keeps each student on that process afterwards (session, uploads, share links)
    balance leastconn
    cookie {COOKIE} insert indirect nocache httponly attr "SameSite=Lax"
    # the cookie's process is gone (killed, restarting: its connection is refused): the request goes to a
    # healthy one at once instead of waiting for the health checks to fail, so a tab whose process died
    # reconnects to the other within a second (it gets a new session there, and a new cookie)
    retries 2
    option redispatch 1
    option httpchk GET /_stcore/health
    http-check expect status 200
{servers}
"""


# ---------------------------------------------------------------------------- start / stop
def read_state(state: Path) -> dict | None:
    f = state / "state.json"
    try:
        return json.loads(f.read_text())
    except (OSError, ValueError):
        return None


def write_state(state: Path, st: dict) -> None:
    tmp = state / "state.json.tmp"
    tmp.write_text(json.dumps(st, indent=2))
    tmp.replace(state / "state.json")


def start(args) -> dict:
    state = Path(args.state_dir).expanduser().resolve()
    old = read_state(state)
    if old and any(pid_alive(p, m) for p, m in running_parts(old)):
        raise DeployError(f"a deployment from {state} is running (proxy {old.get('url')}): stop it first "
                          f"(python deploy/nblab_deploy.py stop --state-dir {state})")
    missing = missing_programs(need_pg=not args.store_url)
    if missing:
        raise DeployError("; ".join(missing))
    if not port_free(args.port, args.bind if args.bind not in ("0.0.0.0", "*", "::") else "0.0.0.0"):
        raise DeployError(f"port {args.port} on {args.bind} is in use: pick another with --port")
    ports = [args.app_port + i for i in range(args.processes)] if args.app_port else \
        [free_port() for _ in range(args.processes)]
    busy = [p for p in ports if not port_free(p)]
    if busy:
        raise DeployError(f"app port(s) {busy} in use: pick another --app-port")
    (state / "logs").mkdir(parents=True, exist_ok=True)
    state.chmod(0o755)
    log = (lambda m: None) if args.quiet else (lambda m: print("nblab-deploy: " + m, flush=True))
    st: dict = {"state_dir": str(state), "processes": [], "haproxy": None, "started": time.time()}
    try:
        user, note = app_user(args.user, args.allow_root)   # before anything starts: may refuse root
        if args.store_url:
            store_url = args.store_url
        else:
            store_url, pg = pg_start(state, log)
            st.update(pg)
            write_state(state, st)
        st["store_url"] = store_url
        if note:
            log(note)
        key = share_key(state, args.share_key)
        log(f"share key for teachers (they type it under Share this data set): {key}  "
            f"(kept in {state / 'share_key'})")
        home = state / "home"   # the app user's HOME (Streamlit looks for ~/.streamlit there)
        home.mkdir(exist_ok=True)
        if user:
            import pwd
            pw = pwd.getpwnam(user)
            os.chown(home, pw.pw_uid, pw.pw_gid)
            for i in range(len(ports)):
                f = state / "logs" / f"app{i}.log"
                f.touch()
                os.chown(f, pw.pw_uid, pw.pw_gid)
        # MALLOC_ARENA_MAX=2: glibc keeps fewer per-thread arenas, so less freed memory stays with the
        # process after a wave of heavy sessions (the app also trims after heavy work: dashboard/serve)
        env = dict(os.environ, NBLAB_STORE_URL=store_url, PYTHONUNBUFFERED="1", HOME=str(home),
                   NBLAB_SHARE_KEY=key)
        env.setdefault("MALLOC_ARENA_MAX", "2")
        env.pop("NBLAB_STORE_DIR", None)
        for i, port in enumerate(ports):
            cmd = [sys.executable, "-m", "streamlit", "run", APP_ENTRY, "--server.headless", "true",
                   "--server.address", "127.0.0.1", "--server.port", str(port),
                   "--browser.gatherUsageStats", "false", *args.streamlit_arg]
            logf = open(state / "logs" / f"app{i}.log", "a")
            proc = subprocess.Popen(as_user(cmd, user), cwd=str(ROOT), env=env, stdout=logf,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            logf.close()
            st["processes"].append({"name": f"app{i}", "port": port, "pid": proc.pid,
                                    "log": str(state / "logs" / f"app{i}.log")})
            write_state(state, st)
        deadline = time.time() + args.start_timeout
        for p in st["processes"]:
            while not http_ok(f"http://127.0.0.1:{p['port']}/_stcore/health"):
                if not pid_alive(p["pid"]):
                    raise DeployError(f"{p['name']} exited; see {p['log']}")
                if time.time() > deadline:
                    raise DeployError(f"{p['name']} did not answer within {args.start_timeout:g} s; see {p['log']}")
                time.sleep(0.2)
            p["pid"] = app_pid(p["pid"])   # runuser's child: the Python process itself
        log(f"{len(ports)} app process(es) up on 127.0.0.1:{', '.join(map(str, ports))}")
        haproxy = find_haproxy()
        cfg = state / "haproxy.cfg"
        cfg.write_text(haproxy_config(args, ports, state, "nobody" if os.geteuid() == 0 else None))
        check = subprocess.run([haproxy, "-c", "-q", "-f", str(cfg)], capture_output=True, text=True, timeout=30)
        if check.returncode != 0:
            raise DeployError(f"haproxy refused {cfg}: {(check.stderr or check.stdout).strip()[-1000:]}")
        hlog = open(state / "logs" / "haproxy.log", "a")
        hp = subprocess.Popen([haproxy, "-db", "-f", str(cfg)], stdout=hlog, stderr=subprocess.STDOUT,
                              start_new_session=True)
        hlog.close()
        host = "127.0.0.1" if args.bind in ("0.0.0.0", "*", "::", "") else args.bind
        st["haproxy"] = {"pid": hp.pid, "config": str(cfg), "log": str(state / "logs" / "haproxy.log")}
        st["url"] = f"http://{host}:{args.port}"
        st["cookie"] = COOKIE
        write_state(state, st)
        while not http_ok(st["url"] + "/_stcore/health"):
            if hp.poll() is not None:
                raise DeployError(f"haproxy exited ({hp.returncode}); see {st['haproxy']['log']}")
            if time.time() > deadline:
                raise DeployError(f"the proxy did not answer within {args.start_timeout:g} s; see {st['haproxy']['log']}")
            time.sleep(0.2)
        log(f"HAProxy on {args.bind}:{args.port} -> {len(ports)} process(es); shares on PostgreSQL "
            f"({'existing server' if args.store_url else 'socket in ' + str(state / 'pg-socket')})")
        log(f"open {st['url']}/   (stop: python deploy/nblab_deploy.py stop --state-dir {state})")
        return st
    except BaseException:
        stop_parts(st)
        raise


def app_pid(pid: int) -> int:
    """The Python process of an app: `pid` itself, or its child when it was started through runuser."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return pid
    if not cmd.endswith(b"runuser"):
        return pid
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return pid
    return int(kids[0]) if kids else pid


def running_parts(st: dict) -> list[tuple[int, str]]:
    parts = [(p["pid"], "streamlit") for p in st.get("processes", [])]
    if st.get("haproxy"):
        parts.append((st["haproxy"]["pid"], "haproxy"))
    return parts


def stop_parts(st: dict) -> None:
    if st.get("haproxy"):
        stop_pid(st["haproxy"]["pid"], "haproxy")
    for p in st.get("processes", []):
        stop_pid(p["pid"], "streamlit")
    pg_stop(st)


def stop(args) -> int:
    state = Path(args.state_dir).expanduser().resolve()
    st = read_state(state)
    if st is None:
        print(f"nblab-deploy: nothing to stop: no deployment state in {state}")
        return 0
    stop_parts(st)
    if args.purge:
        shutil.rmtree(state, ignore_errors=True)
        print(f"nblab-deploy: stopped; {state} removed (shares deleted)")
    else:
        (state / "state.json").unlink(missing_ok=True)
        print(f"nblab-deploy: stopped (logs and shares kept in {state})")
    return 0


def status(args) -> int:
    state = Path(args.state_dir).expanduser().resolve()
    st = read_state(state)
    if st is None:
        print(f"no deployment state in {state}")
        return 1
    ok = True
    for p in st.get("processes", []):
        alive = pid_alive(p["pid"], "streamlit")
        healthy = alive and http_ok(f"http://127.0.0.1:{p['port']}/_stcore/health")
        ok &= healthy
        print(f"{p['name']}: pid {p['pid']} port {p['port']} {'healthy' if healthy else 'DOWN'}  log {p['log']}")
    if st.get("haproxy"):
        healthy = pid_alive(st["haproxy"]["pid"], "haproxy") and http_ok(st["url"] + "/_stcore/health")
        ok &= healthy
        print(f"haproxy: pid {st['haproxy']['pid']} {st['url']} {'healthy' if healthy else 'DOWN'}")
    print(f"store: {st.get('store_url')}")
    return 0 if ok else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--state-dir", default=str(DEFAULT_STATE), help=f"pids, config, logs, data (default {DEFAULT_STATE})")
    for name in ("start", "run"):
        p = sub.add_parser(name, parents=[common], help="start the deployment" + (", wait for Ctrl-C, stop" if name == "run" else ""))
        p.add_argument("--processes", type=int, default=os.cpu_count() or 1, help="app processes (default: one per core)")
        p.add_argument("--port", type=int, default=8080, help="the proxy's port (default 8080)")
        p.add_argument("--bind", default="0.0.0.0", help="the proxy's address (default 0.0.0.0: the network)")
        p.add_argument("--app-port", type=int, default=0, help="first app port (default: free ports)")
        p.add_argument("--store-url", help="an existing postgresql:// URL for the shares (default: start one)")
        p.add_argument("--user", help="as root: run the app processes as this user (default nobody)")
        p.add_argument("--allow-root", action="store_true",
                       help="as root: run the app processes as root when --user cannot run them (else refused)")
        p.add_argument("--share-key", help="the key teachers type to share (default: kept in the state "
                                           "directory, made on first start)")
        p.add_argument("--max-upload-mb", type=float, default=6.0, help="largest request body the proxy passes (default 6)")
        p.add_argument("--client-timeout", type=int, default=60, help="HTTP idle timeout, s (default 60)")
        p.add_argument("--tunnel-timeout", type=int, default=3 * 3600, help="idle websocket timeout, s (default 3 h)")
        p.add_argument("--class-rate", type=float, default=200.0,
                       help="requests a second one client address may make under /class/ (default 200: a lecture "
                            "of 300 behind one address polls 150 a second)")
        p.add_argument("--class-mb-per-s", type=float, default=20.0,
                       help="MB a second of data sets and assets one client address may download under /class/, "
                            "averaged over 10 s (default 20)")
        p.add_argument("--class-cache-mb", type=int, default=64,
                       help="the proxy's RAM cache for the shipped data sets and the class page's assets, MB "
                            "(default 64; at least 32 holds spam_assassin in both encodings)")
        p.add_argument("--maxconn", type=int, default=4000, help="proxy connections in all (default 4000)")
        p.add_argument("--maxconn-per-process", type=int, default=1000, help="connections per app process (default 1000)")
        p.add_argument("--start-timeout", type=float, default=120.0)
        p.add_argument("--streamlit-arg", action="append", default=[], help="extra `streamlit run` flag, repeatable")
        p.add_argument("--quiet", action="store_true")
    p = sub.add_parser("stop", parents=[common], help="stop everything")
    p.add_argument("--purge", action="store_true", help="also delete the state directory (logs, shares)")
    sub.add_parser("status", parents=[common], help="what runs and whether it answers")
    args = ap.parse_args(argv)
    if args.cmd == "stop":
        return stop(args)
    if args.cmd == "status":
        return status(args)
    if not 1 <= args.processes <= 64:
        ap.error("--processes must be between 1 and 64")
    if not 1 <= args.port <= 65535:
        ap.error("--port must be between 1 and 65535")
    if args.max_upload_mb <= 0:
        ap.error("--max-upload-mb must be positive")
    if not 1 <= args.class_mb_per_s <= 10_000:
        ap.error("--class-mb-per-s must be between 1 and 10000")
    if not 32 <= args.class_cache_mb <= 4095:
        ap.error("--class-cache-mb must be between 32 and 4095")
    if not 0.1 <= args.class_rate <= 100_000:
        ap.error("--class-rate must be between 0.1 and 100000")
    try:
        st = start(args)
    except DeployError as e:
        print(f"nblab-deploy: {e}", file=sys.stderr)
        return 2 if "not installed" in str(e) else 1
    if args.cmd == "start":
        return 0
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    try:
        while not stopping and all(pid_alive(p, m) for p, m in running_parts(st)):
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    stop_parts(st)
    (Path(st["state_dir"]) / "state.json").unlink(missing_ok=True)
    print("nblab-deploy: stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
