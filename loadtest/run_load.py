#!/usr/bin/env python
"""Load test: N simulated students on one Streamlit server.

    python loadtest/run_load.py                 # 30 sessions, 60 s, + 2 real-browser checks
    python loadtest/run_load.py --quick         # 3 sessions, 10 s, no browser (CI smoke)
    python loadtest/run_load.py --sessions 50 --duration 120 --json out.json
    python loadtest/run_load.py --deploy 2 --profile calm --sessions 300   # through HAProxy, 2 processes
    python loadtest/run_load.py --proxy http://host:8080 --sessions 30     # an existing deployment
    python loadtest/run_load.py --deploy 2 --class-link --sessions 300 --json out.json   # the class link

With --class-link (loadtest/class_link.py) the students are not Streamlit sessions: a teacher opens a
class and Steps every 3-5 s, the students open /class/<cid> as a browser does (the page, its assets,
the data) and poll its state.json every 2 s; the summary gives page_p95, follow_p95, teacher_step_p95,
errors, bytes and requests per student and the server's CPU per student per minute.

It starts `streamlit run dashboard/app.py` itself on 127.0.0.1 and a free port
(or, with --deploy K, deploy/nblab_deploy.py's K processes behind HAProxy with
the shares on PostgreSQL; with --proxy URL it uses a deployment that runs),
waits for /_stcore/health, opens the page once (cold start, timed apart), then
runs the students: each is a websocket client speaking Streamlit's own protocol
(loadtest/stclient.py: BackMsg.rerun_script with widget_states, ForwardMsg
deltas / script_finished / auto_rerun), and does what a student does for
`--duration` seconds with a think time between actions (--profile busy:
0.5-2 s, calm: 3-8 s): moves the "labels hidden" and "λ" sliders, presses
Step, Play and Pause, drags the iteration slider, Reset, Run to convergence,
now and then another data set.

Play and the iteration slider belong to the lesson's browser player (the
components-v2 element `nbem_player_main`); the students send its traffic as
dashboard/lesson/player/player.js does: a student with the panels below the charts
in view (--lower-in-view, the share of students) sends the `refresh` trigger of
their marker (`nbem_player_lower`) whenever they show another state than the
charts (after the first page, after every action); Play = state `view` {run, t, revealed, playing: true, play}, then
while the playhead advances at the page's fps, a `need` trigger {run, upto,
t, revealed, play} whenever fewer than max(3, fps) iterations are left ahead
(at most one outstanding per 3 s, as the JS), Pause (or the run's end) = state
`view` with playing false; a drag of the slider = state `view` with the
iteration dropped on. Without the player (?player=off) Play is the server's
button and its auto-reruns, as before.

Through a proxy (--proxy/--deploy) a student first GETs the page, as a
browser does, and keeps the cookies the proxy sets (HAProxy's stickiness
cookie) for the websocket and uploads: which process each student landed on
is reported.

Measured:
  latency  send of a BackMsg -> ForwardMsg.script_finished of the run it caused
           (FINISHED_EARLY_FOR_RERUN is not an end: st.rerun(scope="app") from
           the fragment continues into a full run). Page loads and Play ticks
           (auto-reruns) are reported apart from interactions.
  errors   exception elements in the ForwardMsg deltas, compile errors,
           timeouts (> --run-timeout), dropped websockets, failed connects,
           tracebacks in the server log.
  memory   VmRSS of the server pid from /proc every second; peak, and growth
           over the warm second half of the run (MB and KB per interaction).

Every loop is bounded in count and time; the server is stopped at the end
(SIGTERM, then SIGKILL after 10 s), also on Ctrl-C. Exit status 0 when the
targets hold (0 errors, p95 < --p95-target s, warm growth < --growth-target
KB/interaction), 1 otherwise, 2 when the server did not start.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: think time between a student's actions, seconds (--profile)
PROFILES = {"busy": (0.5, 2.0), "calm": (3.0, 8.0)}


def _student_flags(ap: argparse.ArgumentParser) -> None:
    """What the students do, for how long, and the targets."""
    ap.add_argument("--sessions", type=int, default=30, help="simulated students (default 30)")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds each student keeps interacting (default 60)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 3 sessions, 10 s, no browsers")
    ap.add_argument("--ramp", type=float, default=None,
                    help="students join evenly over this many seconds (default 5; 10 with --class-link)")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="busy",
                    help="how often a student acts: busy = every 0.5-2 s, calm = every 3-8 s (default busy)")
    ap.add_argument("--think-min", type=float, default=None, help="seconds between actions, low end (overrides --profile)")
    ap.add_argument("--think-max", type=float, default=None, help="seconds between actions, high end (overrides --profile)")
    ap.add_argument("--browsers", type=int, default=None,
                    help="real Chromium pages beside the clients (default 2, 0 = none; with --class-link default 0)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--run-timeout", type=float, default=30.0, help="a run slower than this is an error")
    ap.add_argument("--p95-target", type=float, default=2.0)
    ap.add_argument("--growth-target", type=float, default=50.0, help="KB of RSS per interaction, warm half")
    ap.add_argument("--waves", type=int, default=1,
                    help="run the students this many times one after the other (new sessions each wave); "
                         "with >1 the server gets --server.disconnectedSessionTTL 5 and the memory check compares "
                         "the RSS after each wave has left (no growth from wave to wave = no leak)")
    ap.add_argument("--settle", type=float, default=15.0, help="seconds to wait after a wave before reading RSS")
    ap.add_argument("--wave-growth-target", type=float, default=10.0,
                    help="MB of RSS growth allowed from wave 2 to the last wave (wave 1 to 2 when --waves 2)")
    ap.add_argument("--no-initial-values", action="store_true",
                    help="do not echo the values of widgets the student never touched (the browser does); "
                         "a workaround for measuring around a bug that this echo triggers")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--lower-in-view", type=float, default=0.5, metavar="FRACTION",
                    help="share of students with the panels below the charts in view: the browser asks for them "
                         "after every action (default 0.5; 0 = nobody scrolls down, 1 = everybody reads them)")


def _server_flags(ap: argparse.ArgumentParser) -> None:
    """Which servers: started here, a deployment started here, or one that runs."""
    ap.add_argument("--app", default="dashboard/app.py")
    ap.add_argument("--port", type=int, default=0, help="default: a free port")
    ap.add_argument("--replicas", type=int, default=1,
                    help="start this many servers; students are spread over them like sticky sessions (default 1)")
    ap.add_argument("--proxy", metavar="URL",
                    help="go through a running deployment's proxy (http://host:port) instead of starting servers; "
                         "with --deploy-state its processes' memory and CPU are measured too")
    ap.add_argument("--deploy-state", metavar="DIR",
                    help="with --proxy: the state directory of deploy/nblab_deploy.py (pids, logs, cookie values)")
    ap.add_argument("--deploy", type=int, metavar="K", default=0,
                    help="start deploy/nblab_deploy.py with K processes behind HAProxy and shares on PostgreSQL "
                         "(a temporary state directory), go through its proxy, stop it at the end")
    ap.add_argument("--shared", metavar="CSV",
                    help="shared-link scenario: store this CSV in a fresh share store (a temporary NBLAB_STORE_DIR "
                         "the servers use too) and have every student open the same ?dataset=shared&data=<id> link "
                         "(use --ramp 0 for all at once); checks that the file is parsed once per server process")


def _class_link_flags(ap: argparse.ArgumentParser) -> None:
    """The class-link scenario."""
    ap.add_argument("--class-link", action="store_true",
                    help="class-link scenario (loadtest/class_link.py): a teacher opens a class and Steps every "
                         "--teacher-every seconds; --sessions students open /class/<cid> like a browser (page, "
                         "assets, data) and poll its state.json; reports page_p95, follow_p95, teacher_step_p95")
    ap.add_argument("--class-data", default="sms_spam", help="--class-link: the class's data key (default sms_spam)")
    ap.add_argument("--teacher-every", type=float, nargs=2, default=[3.0, 5.0], metavar=("MIN", "MAX"),
                    help="--class-link: seconds between the teacher's Steps (default 3 5)")
    ap.add_argument("--teacher", choices=["auto", "streamlit", "store"], default="auto",
                    help="--class-link: the teacher is a Streamlit session pressing 'Open for the class' and Step "
                         "(streamlit), or dashboard.class_link.publish called directly (store); auto = streamlit "
                         "when the lesson page has the button, else store")
    ap.add_argument("--flood", type=float, metavar="RATE",
                    help="--class-link: one hostile client beside the students (loadtest/flood.py): RATE GETs a "
                         "second of the class's data set with --flood-encoding; the summary's `flood` has its answers")
    ap.add_argument("--flood-encoding", default="gzip;q=0",
                    help="--flood: the Accept-Encoding it sends (default gzip;q=0; identity, gzip, ...)")
    ap.add_argument("--flood-random-class", action="store_true",
                    help="--flood: ask a new random class id's state.json each time instead of the data")
    ap.add_argument("--answers", choices=["choice", "report"],
                    help="--class-link: once the students have loaded, the teacher asks one question and every "
                         "student answers it once within --answer-window s (loadtest/class_answers.py): a choice "
                         "among three, or a report of a student's own EM start; the summary's `answers` has "
                         "answer_p95, tally_s and the teacher's Steps meanwhile")
    ap.add_argument("--answer-window", type=float, default=10.0,
                    help="--answers: the seconds over which the students answer (default 10)")
    ap.add_argument("--spy", metavar="DIR",
                    help="--class-link: py-spy records each app process while the students are there (raw stacks "
                         "in DIR/app<i>.txt); the summary's `profile` lists the functions with the most samples")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _student_flags(ap)
    _server_flags(ap)
    _class_link_flags(ap)
    ap.add_argument("--json", metavar="FILE", help="also write the summary as JSON ('-' = stdout)")
    ap.add_argument("--server-arg", action="append", default=[], help="extra `streamlit run` flag, repeatable")
    return ap


def check_args(ap: argparse.ArgumentParser, args) -> None:
    """Defaults that depend on the scenario, the --quick run, the flags that do not go together, bounds."""
    if args.ramp is None:
        args.ramp = 10.0 if args.class_link else 5.0
    if args.browsers is None:
        args.browsers = 0 if args.class_link else 2
    if args.quick:
        args.sessions, args.duration, args.browsers, args.ramp = 3, 10.0, 0, 1.0
    lo, hi = PROFILES[args.profile]
    args.think_min = lo if args.think_min is None else args.think_min
    args.think_max = hi if args.think_max is None else args.think_max
    if not 0 <= args.think_min <= args.think_max:
        ap.error(f"think times must satisfy 0 <= min <= max (got {args.think_min:g}..{args.think_max:g})")
    if args.deploy and args.proxy:
        ap.error("--deploy starts its own proxy: give --deploy or --proxy, not both")
    if args.deploy_state and not args.proxy:
        ap.error("--deploy-state goes with --proxy URL")
    if (args.deploy or args.proxy) and (args.replicas != 1 or args.shared):
        ap.error("--replicas and --shared start their own servers; with --deploy/--proxy the deployment decides")
    if args.proxy and not re.match(r"^https?://[^/\s]+/?$", args.proxy):
        ap.error(f"--proxy wants the deployment's address like http://host:8080 (got {args.proxy!r})")
    if not 0 <= args.deploy <= 8:
        ap.error("--deploy takes 1 to 8 processes")
    if args.class_link and (args.shared or args.waves != 1 or args.replicas != 1):
        ap.error("--class-link goes with --deploy K, --proxy URL [--deploy-state DIR] or one server it starts; "
                 "not with --shared, --waves or --replicas")
    if args.answers and not args.class_link:
        ap.error("--answers goes with --class-link")
    if not 0.5 <= args.answer_window <= 600:
        ap.error("--answer-window must be between 0.5 and 600 s")
    if args.answers and args.duration < args.answer_window + 10:
        ap.error("--answers needs --duration of at least --answer-window + 10 s (the students follow meanwhile)")
    args.sessions = max(1, min(args.sessions, 5000 if args.class_link else 500))
    args.duration = max(1.0, min(args.duration, 3600.0))
    args.replicas = max(1, min(args.replicas, 8))
    args.waves = max(1, min(args.waves, 10))


def share_file(args) -> None:
    """--shared CSV: store the file in a fresh share store (a temporary NBLAB_STORE_DIR the servers inherit);
    every student opens its link and must see its name."""
    from dashboard.data import store as share_store

    data = Path(args.shared).read_bytes()
    args.store_dir = tempfile.mkdtemp(prefix="loadtest_store_")
    os.environ["NBLAB_STORE_DIR"] = args.store_dir       # the servers inherit it
    os.environ.pop("NBLAB_STORE_URL", None)
    url, limits = share_store.settings()
    st_ = share_store.open_store(url, limits)
    receipt = st_.put(Path(args.shared).name, data, {}, owner="loadtest")
    st_.close()
    args.share_id, args.shared_bytes = receipt.id, len(data)
    args.query_string = f"dataset=shared&data={receipt.id}"
    args.expect_text = share_store.clean_name(Path(args.shared).name)
    print(f"shared {args.shared} ({len(data):,} bytes) as data={receipt.id[:6]}… in {args.store_dir}", flush=True)


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    check_args(ap, args)
    if args.waves > 1:
        args.server_arg = ["--server.disconnectedSessionTTL", "5"] + list(args.server_arg)
    args.loadavg_before = [round(x, 2) for x in os.getloadavg()]
    args.query_string, args.expect_text = "", None
    if args.shared:
        share_file(args)
    args.cookie_name, args.backend_cookies = "NBLAB", []
    if args.class_link:
        from loadtest.class_link import run_class_link

        args.teacher_every = sorted(max(0.2, x) for x in args.teacher_every)
        return run_class_link(args)
    from loadtest.streamlit_load import run_local, run_through_proxy

    return run_through_proxy(args) if args.deploy or args.proxy else run_local(args)


if __name__ == "__main__":
    sys.exit(main())
