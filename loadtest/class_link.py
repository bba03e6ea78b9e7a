"""Class-link load: one teacher publishes, N students open /class/<cid> as a browser does and follow.

``python -m loadtest.run_load --class-link`` runs it (see loadtest/README.md, "Class link"); the parts:

* class_student.py: ``ClassStudent`` (the page, its assets, the data, then the state polls) over
  http_client.py's small keep-alive HTTP/1.1 client, and ``Shared``, the tallies;
* class_teacher.py: the teacher, a Streamlit session of the lesson page (``StreamlitTeacher``) or
  ``python -m loadtest.class_link teacher`` in a process of its own (``Teacher``);
* browsers.py: ``browser_follow_check``, real Chromium pages that must draw and follow;
* this module: the run (``run_class_link``: the server or deployment; ``run_class``: the teacher, the
  students, the CPU meters) and its summary.

Measured: page time (request of the HTML -> last byte of its assets and its data), follow latency (the
start of the teacher's publish of v -> the end of the first poll of a student that sees v or later, for
every v published after the student's first state), the teacher's publish time, errors (HTTP status other
than 200/304, connection failures, timeouts, bodies that are not what the contract says, a v going back,
versions a student never saw), bytes and requests, and the CPU of the server processes.
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from loadtest import server
from loadtest.browsers import browser_follow_check
from loadtest.class_answers import answer_round, source_of
from loadtest.class_student import ClassStudent, Shared
from loadtest.class_teacher import ROOT, StreamlitTeacher, Teacher, teacher_main
from loadtest.http_client import REQUEST_TIMEOUT, now
from loadtest.procstat import CpuMeter, cpu_pressure_total, proc_cpu
from loadtest.report import write_json
from loadtest.spy import start_spies, stop_spies
from loadtest.stats import pct, rnd


# ---------------------------------------------------------------------------- the server or deployment
def run_class_link(args) -> int:
    """--class-link: a teacher's class link (/class/<cid>) opened by --sessions students who follow it.
    With --deploy K / --proxy URL [--deploy-state DIR] through a deployment, else one
    `streamlit run dashboard/server.py` with a temporary SQLite store."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    t0 = time.perf_counter()
    target = {"proc": None, "deployed": None}
    try:
        where = _deployment(args, env, target) if args.deploy or args.proxy else _one_server(args, env, target)
        if where is None:
            return 2
        base, groups, pg_data, warm_targets, logs = where
        offsets = server.log_offsets(logs)
        startup = time.perf_counter() - t0
        print(f"class link through {base}: {args.sessions} students over {args.ramp:g} s, following for "
              f"{args.duration:g} s; a teacher Steps every {args.teacher_every[0]:g}-{args.teacher_every[1]:g} s"
              + (f"; {args.browsers} Chromium page(s)" if args.browsers else "") + " ...", flush=True)
        try:
            summary = asyncio.run(run_class(args, base, env, groups, pg_data, warm_targets))
        except RuntimeError as e:
            print(f"class-link run failed: {e}", file=sys.stderr)
            return 2
        texts = server.read_from(logs, offsets)
    finally:
        if target["proc"] is not None:
            server.stop_server(target["proc"])
        if target["deployed"]:
            server.stop_deployment(target["deployed"])
    summary = _with_settings(args, startup, _with_log_errors(summary, "\n".join(texts)))
    print_summary(summary)
    write_json(summary, args.json)
    return 0 if summary["passed"] else 1


def _deployment(args, env: dict, target: dict):
    """The deployment's address, pids, PostgreSQL data directory, app processes and logs; ``env`` gets its
    store and share key (the teacher's). None (said why) when it did not start or is not known."""
    state_dir = args.deploy_state
    if args.deploy:
        state_dir = target["deployed"] = server.start_deployment(args.deploy, args.server_arg)
        if state_dir is None:
            return None
    st = server.deployment_state(state_dir)
    if st is None:
        return None
    base = (args.proxy or st["url"]).rstrip("/")
    procs = st.get("processes", [])
    groups = {"app": [p["pid"] for p in procs]}
    if st.get("haproxy"):
        groups["haproxy"] = [st["haproxy"]["pid"]]
    warm_targets = [f"http://127.0.0.1:{p['port']}" for p in procs if p.get("port")]
    try:   # the key teachers type to open a class (deploy/nblab_deploy.py keeps it there)
        env["NBLAB_SHARE_KEY"] = (Path(state_dir) / "share_key").read_text().strip() if state_dir else \
            env.get("NBLAB_SHARE_KEY", "")
    except OSError:
        pass
    if st.get("store_url"):
        env["NBLAB_STORE_URL"] = st["store_url"]
        env.pop("NBLAB_STORE_DIR", None)
    elif not os.environ.get("NBLAB_STORE_URL") and not os.environ.get("NBLAB_STORE_DIR"):
        print("warning: the deployment's store is not known (no --deploy-state): the teacher uses "
              "this environment's store settings", file=sys.stderr)
    args.replicas = len(procs) or 1
    args.app_entry = "(the deployment's)"
    return base, groups, st.get("pg_data"), warm_targets, [Path(p["log"]) for p in procs]


def _one_server(args, env: dict, target: dict):
    """One `streamlit run dashboard/server.py` (or --app) with a temporary SQLite store in ``env``; as
    _deployment, None when it did not start."""
    store_dir = tempfile.mkdtemp(prefix="loadtest_class_store_")
    env["NBLAB_STORE_DIR"] = store_dir
    env.pop("NBLAB_STORE_URL", None)
    port = args.port or server.free_port()
    log_path = Path(tempfile.gettempdir()) / f"loadtest_class_server_{port}.log"
    app = args.app if args.app != "dashboard/app.py" else "dashboard/server.py"
    args.app_entry = app
    print(f"starting streamlit run {app} on 127.0.0.1:{port} (store {store_dir}, log {log_path}) ...", flush=True)
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        proc = target["proc"] = server.start_server(app, port, log_path, args.server_arg)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    try:
        server.wait_health(port, proc)
    except RuntimeError as e:
        print(f"server did not start: {e}\n{log_path.read_text()[-3000:]}", file=sys.stderr)
        return None
    base = f"http://127.0.0.1:{port}"
    return base, {"app": [proc.pid]}, None, [base], [log_path]


def _with_log_errors(summary: dict, log_text: str) -> dict:
    """Tracebacks in the servers' logs count as errors."""
    tb = server.count_tracebacks(log_text)
    summary["server_log_tracebacks"] = tb
    if tb:
        summary["server_log_excerpt"] = server.traceback_excerpt(log_text)
        summary["errors"] += tb
        summary["checks"]["zero_errors"] = False
        summary["passed"] = False
    return summary


def _with_settings(args, startup: float, summary: dict) -> dict:
    return {"mode": "class-link", "sessions": args.sessions, "duration_s": args.duration, "ramp_s": args.ramp,
            "deploy": args.deploy, "proxy": args.proxy, "processes": args.replicas, "entry": args.app_entry,
            "browsers": args.browsers, "teacher_every_s": list(args.teacher_every),
            "poll": "follow.intervalMs of the page",
            "cpu_count": os.cpu_count(), "loadavg_before": args.loadavg_before,
            "loadavg_after": [round(x, 2) for x in os.getloadavg()], "server_startup_s": round(startup, 1),
            **summary}


# ---------------------------------------------------------------------------- the run
async def open_class(args, base_url: str, env: dict, shared: Shared, t_begin: float):
    """The teacher opens a class: a Streamlit session when --teacher is auto or streamlit and the page has
    the button, else the store's teacher process. (teacher, cid, why the Streamlit teacher was not used)."""
    mode = getattr(args, "teacher", "auto")
    why_store = None
    if getattr(args, "answers", None):
        # the question is asked and tallied with the teacher's write key: the store's teacher holds it
        mode, why_store = "store", "--answers: the teacher's process asks and tallies"
    if mode in ("auto", "streamlit"):
        teacher = StreamlitTeacher(shared, base_url, tuple(args.teacher_every), args.seed, env)
        try:
            return teacher, await teacher.start(), None
        except RuntimeError as e:
            await teacher.stop()
            if mode == "streamlit":
                raise
            why_store = str(e)[:300]
            print(f"note: no Streamlit teacher ({why_store}); the teacher publishes through the store instead",
                  flush=True)
    # the teacher's process stops when told (stdin closed, after the students); --until is a bound only
    teacher = Teacher(shared, args.class_data, t_begin + 900.0 + args.ramp + args.duration, env, args.seed,
                      tuple(args.teacher_every))
    return teacher, await teacher.start(), why_store


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


class CpuSeries:
    """The CPU seconds of the app processes, HAProxy and the load generator, sampled every second (and
    PostgreSQL's backends every other second, through the meter)."""

    def __init__(self, groups: dict[str, list[int]], meter: CpuMeter):
        self.groups, self.meter = groups, meter
        self.points: list[tuple] = []    # (t, app CPU s, haproxy CPU s, load generator CPU s)

    def point(self) -> None:
        app = [proc_cpu(p) for p in self.groups.get("app", [])]
        hp = [proc_cpu(p) for p in self.groups.get("haproxy", [])]
        self.points.append((now(), sum(x or 0.0 for x in app), sum(x or 0.0 for x in hp),
                            proc_cpu(os.getpid()) or 0.0))

    async def sample_until(self, t_stop: float) -> None:
        k = 0
        while now() < t_stop:
            self.point()
            if k % 2 == 0:
                self.meter.sample()
            k += 1
            await asyncio.sleep(1.0)

    def cores(self, a: float, b: float) -> dict | None:
        """Cores used by the app processes, HAProxy and the load generator between times a and b (the
        samples nearest inside)."""
        pts = [p for p in self.points if a - 0.5 <= p[0] <= b + 0.5]
        if len(pts) < 2 or pts[-1][0] - pts[0][0] < 0.5:
            return None
        dt = pts[-1][0] - pts[0][0]
        return {"seconds": round(dt, 1), "app": round((pts[-1][1] - pts[0][1]) / dt, 2),
                "haproxy": round((pts[-1][2] - pts[0][2]) / dt, 2),
                "load_generator": round((pts[-1][3] - pts[0][3]) / dt, 2)}


async def _students(args, base_url: str, page_path: str, shared: Shared, deadline: float):
    """--sessions students arriving evenly over the ramp, and the browsers; the browsers' result or None."""
    u = urlsplit(base_url)
    master = random.Random(args.seed)
    # with --answers each student is a phone of its own on the room's network: its own address (the budgets
    # per client address are then not what is measured)
    own = bool(getattr(args, "answers", None))
    students = [ClassStudent(i, u.hostname, u.port or 80, page_path, shared, deadline, random.Random(master.random()),
                             source=source_of(i, u.hostname or "") if own else None)
                for i in range(args.sessions)]

    async def start(st: ClassStudent, delay: float):
        await asyncio.sleep(delay)
        await st.run()

    tasks = [start(st, args.ramp * i / max(1, args.sessions)) for i, st in enumerate(students)]
    if args.browsers > 0:
        tasks.append(browser_follow_check(base_url.rstrip("/") + page_path, args.browsers, shared, deadline,
                                          args.ramp, args.chromium))
    hard = args.ramp + args.duration + 2 * REQUEST_TIMEOUT + 120
    try:
        results = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), hard)
    except asyncio.TimeoutError:
        results = []
        shared.error("all", "run", f"hard time limit {hard:.0f} s hit")
    browser = None
    for r in results:
        if isinstance(r, BaseException):
            shared.error("task", "run", repr(r)[:300])
        elif isinstance(r, dict):
            browser = r
    return browser


async def run_class(args, base_url: str, env: dict, cpu_groups: dict[str, list[int]], pg_data: str | None,
                    warm_targets: list[str]) -> dict:
    """The teacher opens a class; N students arrive over args.ramp seconds, each loads the page and follows
    until ramp + duration; optional real browsers alongside. Returns the summary (without the settings)."""
    shared = Shared()
    teacher, cid, why_store = await open_class(args, base_url, env, shared, now())
    page_path = f"/class/{cid}"
    m = {"cold": await warm(warm_targets or [base_url], page_path, shared), "cold_errors": shared.error_count}
    meter = CpuMeter(cpu_groups, pg_data)
    psi0, gen0 = cpu_pressure_total(), proc_cpu(os.getpid())
    meter.start()
    t_students = now()
    deadline = t_students + args.ramp + args.duration
    teacher_task = asyncio.create_task(teacher.loop(deadline)) if isinstance(teacher, StreamlitTeacher) else None
    series = CpuSeries(cpu_groups, meter)
    samp = asyncio.create_task(series.sample_until(deadline + 5))
    spies = start_spies(getattr(args, "spy", None), cpu_groups.get("app", []))
    flooder = await _start_flood(args, base_url, deadline - now())
    asking = (asyncio.create_task(answer_round(args, base_url, cid, teacher, args.ramp + 2.0))
              if getattr(args, "answers", None) else None)
    browser = await _students(args, base_url, page_path, shared, deadline)
    if asking is not None:
        try:
            m["answers"] = await asyncio.wait_for(asking, 120)
        except Exception as e:  # noqa: BLE001
            m["answers"] = {"error": f"{type(e).__name__}: {e}"[:300], "passed": False}
    t_end = now()
    psi1 = cpu_pressure_total()
    series.point()
    m.update(cpu=meter.stop(), profile=stop_spies(spies), browser=browser, series=series,
             t_students=t_students, t_end=t_end)
    if teacher_task is not None:
        teacher_task.cancel()
        try:
            await teacher_task
        except (asyncio.CancelledError, Exception):  # noqa: BLE001
            pass
    follow_latencies(shared)
    m["flood"] = await _end_flood(flooder)
    gen1 = proc_cpu(os.getpid())
    samp.cancel()
    await teacher.stop()
    m["loadgen_s"] = gen1 - gen0 if gen0 is not None and gen1 is not None else None
    m["psi_us"] = psi1 - psi0 if psi0 is not None and psi1 is not None else None
    return class_summary(args, shared, teacher, cid, why_store, m)


async def _start_flood(args, base_url: str, seconds: float):
    """--flood RATE: one hostile client (loadtest/flood.py, a process of its own) beside the students, for as
    long as they are there; None without --flood."""
    rate = getattr(args, "flood", None)
    if not rate:
        return None
    if getattr(args, "flood_random_class", False):
        url, extra = base_url + "/class/", ["--random-class"]
    else:
        url, extra = f"{base_url}/class/data/{args.class_data}.json", []
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "loadtest.flood", url, "--rate", str(rate), "--seconds", f"{max(1.0, seconds):.1f}",
        "--encoding", args.flood_encoding, *extra, *_flood_source(base_url), cwd=str(ROOT),
        stdout=asyncio.subprocess.PIPE)


def _flood_source(base_url: str) -> list[str]:
    """Another address than the students' for the flood when the server is on this machine's loopback
    (127.0.0.2: the server's budget per client tells them apart, as it would a hostile student's laptop)."""
    host = urlsplit(base_url).hostname or ""
    return ["--source", "127.0.0.2"] if host.startswith("127.") and host != "127.0.0.2" else []


async def _end_flood(proc) -> dict | None:
    if proc is None:
        return None
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), 120)
        return json.loads(out.decode().strip().splitlines()[-1])
    except (asyncio.TimeoutError, ValueError, IndexError):
        proc.kill()
        return {"error": "the flood did not report"}


def follow_latencies(shared: Shared) -> None:
    """For every version a poll saw first: the time from the start of its publish to that poll's end."""
    for a, b, t_seen in shared.seen:
        for pv in range(a + 1, b + 1):
            pub = shared.published.get(pv)
            if pub is not None:
                shared.follow_s.append(t_seen - pub[0])


# ---------------------------------------------------------------------------- the summary
def _p50_p95_max(xs: list[float], name: str) -> dict:
    return {f"{name}_p95": rnd(pct(xs, 0.95)), f"{name}_p50": rnd(pct(xs, 0.5)),
            f"{name}_max": rnd(max(xs) if xs else None)}


def _teacher_part(shared: Shared, teacher, cid: str, why_store, m: dict) -> dict:
    t_students, t_end = m["t_students"], m["t_end"]
    # the teacher's Steps while the students were there (those during the warm-up are not under load)
    during = [(t0, d) for t0, d in teacher.steps if t_students <= t0 <= t_end]
    return {
        "class": {"cid_prefix": cid[:4], "data": teacher.data_key, "published": len(shared.published),
                  "latest_v": shared.latest_v, "teacher": teacher.describe(),
                  **({"why_not_streamlit": why_store} if why_store else {})},
        **_p50_p95_max(shared.page_s, "page"),
        **_p50_p95_max(shared.follow_s, "follow"), "follow_n": len(shared.follow_s),
        **_p50_p95_max([d for _, d in during], "teacher_step"), "teacher_steps": len(during),
        "teacher_steps_at": [[round(t0 - t_students, 1), round(d, 3)] for t0, d in during],  # (s after the first student, Step seconds)
        "teacher_open_s": rnd(teacher.open_s),
        "teacher_page_load_s": rnd(getattr(teacher, "load_s", None)),
        "teacher_resets": getattr(teacher, "resets", 0),
        "publishes_during_students": sum(1 for t0, _, _ in shared.published.values() if t_students <= t0 <= t_end),
    }


def _traffic_part(args, shared: Shared, m: dict) -> dict:
    n = args.sessions
    requests = sum(v for k, v in shared.requests.items() if k not in ("state_200", "state_304"))
    return {
        "state_poll_p95": rnd(pct(shared.state_req_s, 0.95)), "state_poll_p50": rnd(pct(shared.state_req_s, 0.5)),
        "request_s_by_kind": {k: {"n": len(v), "p50": rnd(pct(v, 0.5)), "p95": rnd(pct(v, 0.95)), "max": rnd(max(v))}
                              for k, v in sorted(shared.req_s.items())},
        "errors": shared.error_count, "error_samples": shared.errors, "warmup_errors": m["cold_errors"],
        "missed_versions": shared.missed_versions,
        "students_loaded": shared.students_loaded, "students_following": shared.students_following,
        "bytes_per_student": round(shared.bytes_total / n) if n else None,
        "page_bytes_per_student": round(shared.bytes_page / max(1, shared.students_loaded)),
        "requests": requests,
        "requests_by_kind": dict(sorted(shared.requests.items())),
        "requests_per_s": round(requests / max(1e-9, m["t_end"] - m["t_students"]), 1),
        "connections_opened": shared.connects, "keepalive_retries": shared.retries,
        "gzip": shared.gzip_seen, "immutable": shared.immutable_ok,
        "cold_page_s": rnd(m["cold"]),
    }


def _cpu_part(args, m: dict) -> dict:
    cpu, n, wall = m["cpu"], args.sessions, m["t_end"] - m["t_students"]
    minutes = wall / 60.0
    server_cpu = sum(v for k, v in cpu.items() if k in ("app", "haproxy", "postgresql") and v is not None)
    app_haproxy = sum(v for k, v in cpu.items() if k in ("app", "haproxy") and v is not None)
    return {
        "server_cpu_s": cpu,
        "server_cpu_s_per_student_per_min": rnd(server_cpu / n / minutes, 4) if n and minutes else None,
        "app_haproxy_cpu_s_per_student_per_min": rnd(app_haproxy / n / minutes, 4) if n and minutes else None,
        "server_cores_used": rnd(server_cpu / wall, 2),
        "loadgen_cores_used": rnd(m["loadgen_s"] / wall, 2) if m["loadgen_s"] is not None else None,
        "wall_s": round(wall, 1),
        # the share of the time some runnable task of the machine waited for a CPU (/proc/pressure/cpu):
        # high means the machine (this run and whatever else runs on it) wanted more cores than it has
        "cpu_pressure_some": rnd(m["psi_us"] / 1e6 / wall, 2) if m["psi_us"] is not None else None,
        # cores used while the students arrived (the page loads) and while they only followed
        "cores_arriving": m["series"].cores(m["t_students"], m["t_students"] + args.ramp),
        "cores_following": m["series"].cores(m["t_students"] + args.ramp + 2.0, m["t_end"]),
    }


def _browser_part(browser: dict | None) -> dict | None:
    if browser is None:
        return None
    b = dict(browser)
    b["load_p95"] = rnd(pct(b.pop("load_s"), 0.95))
    fs = b.pop("follow_s")
    b["follow_p95"] = rnd(pct(fs, 0.95))
    b["follow_max"] = rnd(max(fs) if fs else None)
    return b


def class_summary(args, shared: Shared, teacher, cid: str, why_store, m: dict) -> dict:
    """The run's summary (without the settings) and its goals (``checks``, ``passed``)."""
    summary = {**_teacher_part(shared, teacher, cid, why_store, m), **_traffic_part(args, shared, m),
               **_cpu_part(args, m), "browser": None}
    if m["profile"] is not None:
        summary["profile"] = m["profile"]
    summary["browser"] = _browser_part(m["browser"])
    summary["flood"] = m.get("flood")
    summary["answers"] = m.get("answers")
    goals = {"page_p95_under_1s": summary["page_p95"] is not None and summary["page_p95"] < 1.0,
             "follow_p95_under_3s": summary["follow_p95"] is not None and summary["follow_p95"] < 3.0,
             "teacher_step_p95_under_0.3s": summary["teacher_step_p95"] is not None and summary["teacher_step_p95"] < 0.3,
             "zero_errors": shared.error_count == 0 and shared.students_loaded == args.sessions}
    if m["browser"] is not None:
        goals["browsers_ok"] = not m["browser"]["errors"] and m["browser"]["drew"] == m["browser"]["pages"]
    if summary["answers"] is not None:
        goals["answers_ok"] = bool(summary["answers"].get("passed"))
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
    f = s.get("flood")
    if f:
        rows.append(("flood (one client: answers, rate got/asked, encoding)",
                     f"{f.get('answers')}, {f.get('rate_got')}/{f.get('rate_asked')} a second, {f.get('encoding')!r}"))
    a = s.get("answers")
    if a and "answered" in a:
        rows.append((f"answers ({a['kind']}): answered / p50 / p95 / max",
                     f"{a['answered']} of {a['students']} in {a['answers_over_s']} s / {a['answer_p50']} / "
                     f"{a['answer_p95']} / {a['answer_max']} s   (errors {a['errors']})"))
        rows.append(("answers: tally complete after the last / teacher step p95 meanwhile",
                     f"{a['tally_s']} s ({a['tally_final']}) / {a['teacher_step_p95']} s ({a['teacher_steps']} steps)"))
    elif a:
        rows.append(("answers", f"ERROR {a.get('error')}"))
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
    for e in (a or {}).get("error_samples", []):
        print("  ANSWER", e)
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
