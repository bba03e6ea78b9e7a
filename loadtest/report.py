"""The Streamlit load run's summary (``summarise``: latency, errors, memory, CPU, the checks), its table
on stdout (``print_table``) and its JSON (``write_json``)."""
from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

from loadtest import server
from loadtest.stats import Stats, pct, rnd


def write_json(summary: dict, path: str | None) -> None:
    """The summary as JSON to ``path`` ('-' = stdout; None = not at all)."""
    if not path:
        return
    text = json.dumps(summary, indent=2, default=str)
    if path == "-":
        print(text)
    else:
        Path(path).write_text(text)


def report(args, stats: Stats, run: dict, startup: float) -> int:
    """Summarise, print, write the JSON; the exit status (0 when every check passed, else 1)."""
    log_text = "\n".join(args.log_texts)
    summary = summarise(args, stats, run, log_text, startup)
    if summary["server_log_tracebacks"]:
        summary["server_log_excerpt"] = server.traceback_excerpt(log_text)
    print_table(summary)
    write_json(summary, args.json)
    return 0 if summary["passed"] else 1


# ---------------------------------------------------------------------------- the summary
def warm_growth(mem: list[tuple[float, float, int]], t0: float, t1: float):
    """RSS growth over the warm phase (the second half of the student period): MB, KB per interaction,
    and the least-squares slope of RSS against interactions (KB per interaction; robust to one spike)."""
    mid = t0 + (t1 - t0) / 2
    warm = [m for m in mem if t0 <= m[0] <= t1 and m[0] >= mid]
    growth_mb = growth_kb_per = slope = None
    if len(warm) >= 2:
        growth_mb = warm[-1][1] - warm[0][1]
        n_int = warm[-1][2] - warm[0][2]
        growth_kb_per = (growth_mb * 1024 / n_int) if n_int else None
        xs = [m[2] for m in warm]
        ys = [m[1] for m in warm]
        if len(set(xs)) > 1:
            mx, my = statistics.fmean(xs), statistics.fmean(ys)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs) * 1024
    return growth_mb, growth_kb_per, slope


def wave_growth(waves: list[dict]) -> tuple[float | None, dict | None]:
    """RSS growth between the waves' settled values, and the two waves compared. The first wave also warms
    caches (imports, st.cache_data of the shipped sets, allocator arenas): with 3+ waves the last wave is
    compared with the second."""
    if len(waves) <= 1 or any(w["settled_rss_mb"] is None for w in waves):
        return None, None
    ref = waves[1] if len(waves) >= 3 else waves[0]
    return waves[-1]["settled_rss_mb"] - ref["settled_rss_mb"], ref


def _loadavg_summary(samples, t0: float, t1: float) -> dict:
    """The 1-minute load average while the students acted: its peak, its mean over the second half
    (the 1-minute average lags the start by about a minute) and its value at the end."""
    during = [v for t, v in samples if t0 <= t <= t1]
    late = [v for t, v in samples if t0 + (t1 - t0) / 2 <= t <= t1]
    return {"peak": rnd(max(during), 2) if during else None,
            "mean_second_half": rnd(statistics.fmean(late), 2) if late else None,
            "end": rnd(during[-1], 2) if during else None}


def _settings_part(args, stats: Stats, run: dict, startup_s: float) -> dict:
    return {
        "sessions": args.sessions, "replicas": args.replicas, "echo_initial_values": not args.no_initial_values,
        "duration_s": args.duration, "ramp_s": args.ramp,
        "think_s": [args.think_min, args.think_max], "profile": args.profile,
        "proxy": args.proxy, "deploy": args.deploy,
        "students_per_process": dict(sorted(stats.backends.items())) if args.proxy else None,
        "cpu_count": os.cpu_count(), "loadavg_before": args.loadavg_before,
        "server_startup_s": round(startup_s, 2),
        "cold_first_load_s": None if run["cold_load_s"] is None else round(run["cold_load_s"], 2),
    }


def _students_part(stats: Stats, tracebacks: int) -> dict:
    lat = stats.latencies
    return {
        "sessions_started": stats.sessions_started, "sessions_completed": stats.sessions_completed,
        "interactions": len(lat["interaction"]), "play_ticks": len(lat["tick"]),
        "player": {"plays": stats.plays, "need_triggers": len(lat["need"]), "lower_refreshes": len(lat["lower"]),
                   "play_s": rnd(stats.play_s, 1), "stalled_s": rnd(stats.stall_s, 1),
                   "stalled_fraction": rnd(stats.stall_s / stats.play_s, 3) if stats.play_s else None},
        "errors": len(stats.errors) + tracebacks, "server_log_tracebacks": tracebacks,
        "error_samples": stats.errors[:10],
        "st_error_messages_shown": len(stats.error_alerts),
        "st_error_samples": sorted(set(e[2] for e in stats.error_alerts))[:5],
        "latency_s": {
            kind: {"n": len(xs), "p50": rnd(pct(xs, 0.5)), "p95": rnd(pct(xs, 0.95)), "max": rnd(max(xs) if xs else None)}
            for kind, xs in lat.items()},
        "latency_by_action_s": {a: {"n": len(xs), "p50": rnd(pct(xs, 0.5)), "p95": rnd(pct(xs, 0.95))}
                                for a, xs in sorted(stats.by_action.items())},
    }


def _server_part(run: dict, growth: tuple) -> dict:
    mem = run["mem"]
    rss = [m[1] for m in mem]
    growth_mb, growth_kb_per, slope = growth
    cpu, runs, wall = run["server_cpu_s"], run["server_runs"], run["students_wall_s"]
    return {
        "rss_mb": {"after_cold_load": rnd(run["rss_after_cold_mb"], 1), "peak": rnd(max(rss) if rss else None, 1),
                   "end": rnd(rss[-1] if rss else None, 1),
                   "warm_growth": rnd(growth_mb, 1), "warm_growth_kb_per_interaction": rnd(growth_kb_per, 1),
                   "warm_slope_kb_per_interaction": rnd(slope, 1)},
        "waves": run["waves"],
        "server_cpu": {
            "cpu_s": rnd(cpu, 1), "runs": runs,
            "cpu_s_per_run": rnd(cpu / runs) if cpu and runs else None,
            "cores_used": rnd(cpu / wall, 2) if cpu else None},
        "rss_samples": [(round(t, 1), round(r, 1), n) for t, r, n in mem],
        "rss_peak_per_process_mb": [rnd(x, 1) for x in run["per_process_peak_mb"]],
        "loadavg_1min": _loadavg_summary(run["loadavg"], run["students_start_s"], run["students_end_s"]),
        "loadgen_cores_used": rnd(run["loadgen_cpu_s"] / wall, 2) if run["loadgen_cpu_s"] else None,
        "browser": run["browser"],
    }


def _shared_part(args, stats: Stats) -> dict:
    """--shared: one "nblab: parsed shared data set" line per parse (dashboard/lesson/sharing.py), per log."""
    parses = [text.count("nblab: parsed shared data set") for text in args.log_texts]
    return {"file": args.shared, "bytes": args.shared_bytes, "id_prefix": args.share_id[:6],
            "students_seeing_it": stats.shared_seen, "parses_per_process": parses, "store_dir": args.store_dir}


def _checks(args, stats: Stats, summary: dict, growth_kb_per, wave_growth_mb) -> dict:
    p95 = pct(stats.latencies["interaction"], 0.95)
    checks = {
        "zero_errors": summary["errors"] == 0 and stats.sessions_completed == stats.sessions_started == args.sessions * args.waves,
        f"p95_under_{args.p95_target:g}s": p95 is not None and p95 < args.p95_target,
        "memory_bounded": (wave_growth_mb < args.wave_growth_target if wave_growth_mb is not None
                           else growth_kb_per is not None and growth_kb_per < args.growth_target),
    }
    if not summary["rss_samples"]:
        del checks["memory_bounded"]
    b = summary["browser"]
    if b:
        checks["browsers_ok"] = not b["errors"] and b["loaded"] == b["pages"]
    if args.shared:
        checks["shared_parsed_once_per_process"] = summary["shared"]["parses_per_process"] == [1] * args.replicas
        checks["every_student_saw_the_shared_data"] = stats.shared_seen == args.sessions * args.waves
    return checks


def summarise(args, stats: Stats, run: dict, log_text: str, startup_s: float) -> dict:
    growth = warm_growth(run["mem"], run["students_start_s"], run["students_end_s"])
    tracebacks = server.count_tracebacks(log_text)
    summary = {**_settings_part(args, stats, run, startup_s), **_students_part(stats, tracebacks),
               **_server_part(run, growth)}
    if args.shared:
        summary["shared"] = _shared_part(args, stats)
    b = run["browser"]
    if b:
        b["step_p50"] = rnd(pct(b["step_latencies"], 0.5))
        b["step_p95"] = rnd(pct(b["step_latencies"], 0.95))
        b["load_max"] = rnd(max(b["load_latencies"]) if b["load_latencies"] else None)
    wave_growth_mb, ref = wave_growth(run["waves"])
    if wave_growth_mb is not None:
        summary["rss_mb"]["growth_between_waves"] = rnd(wave_growth_mb, 1)
        summary["rss_mb"]["growth_compared"] = f"wave {ref['wave']} -> wave {run['waves'][-1]['wave']}"
    if not summary["rss_samples"]:   # --proxy without --deploy-state: the servers' memory is not visible here
        summary["rss_mb"]["note"] = "server processes not known (give --deploy-state): memory not measured"
    summary["checks"] = _checks(args, stats, summary, growth[1], wave_growth_mb)
    summary["passed"] = all(summary["checks"].values())
    return summary


# ---------------------------------------------------------------------------- the table
def _table_rows(s: dict) -> list[tuple[str, str]]:
    L = s["latency_s"]
    return [
        ("sessions (started / completed)", f"{s['sessions_started']} / {s['sessions_completed']} of {s['sessions'] * len(s['waves'])}"
                                           f" on {s['replicas']} server process(es)"),
        ("machine: cores / load average before", f"{s['cpu_count']} / {s['loadavg_before']}"),
        ("load average (1 min) during: peak / mean 2nd half / end",
         f"{s['loadavg_1min']['peak']} / {s['loadavg_1min']['mean_second_half']} / {s['loadavg_1min']['end']}"
         f"   (load generator itself: {s['loadgen_cores_used']} cores)"),
        ("duration per student", f"{s['duration_s']:g} s (ramp {s['ramp_s']:g} s, profile {s['profile']}: "
                                 f"think {s['think_s'][0]:g}-{s['think_s'][1]:g} s)"),
        ("server start / cold first page", f"{s['server_startup_s']} s / {s['cold_first_load_s']} s"),
        ("interactions / Play ticks", f"{s['interactions']} / {s['play_ticks']}"),
        ("errors (of which server tracebacks)", f"{s['errors']} ({s['server_log_tracebacks']})"),
        ("st.error messages shown to students", f"{s['st_error_messages_shown']}"),
        ("interaction -> script_finished p50 / p95 / max",
         f"{L['interaction']['p50']} / {L['interaction']['p95']} / {L['interaction']['max']} s"),
        ("Play tick p50 / p95 (server Play, ?player=off)", f"{L['tick']['p50']} / {L['tick']['p95']} s"),
        ("player: plays / need triggers / lower refreshes", f"{s['player']['plays']} / {s['player']['need_triggers']} / "
                                                            f"{s['player']['lower_refreshes']}"),
        ("player: need -> frames p50 / p95 / max", f"{L['need']['p50']} / {L['need']['p95']} / {L['need']['max']} s"),
        ("player: time playing / playhead waiting for frames",
         f"{s['player']['play_s']} s / {s['player']['stalled_s']} s ({s['player']['stalled_fraction']})"),
        ("server CPU per run (interaction or tick) / cores used",
         f"{s['server_cpu']['cpu_s_per_run']} s / {s['server_cpu']['cores_used']}"),
        ("page load p50 / p95 / max", f"{L['load']['p50']} / {L['load']['p95']} / {L['load']['max']} s"),
        ("server RSS (all replicas) after cold load / peak / end",
         f"{s['rss_mb']['after_cold_load']} / {s['rss_mb']['peak']} / {s['rss_mb']['end']} MB"),
        ("RSS per wave (peak / after it left)",
         "  ".join(f"#{w['wave']}: {w['peak_rss_mb']} / {w['settled_rss_mb']}" for w in s["waves"]) + " MB"),
        ("RSS growth, warm half", f"{s['rss_mb']['warm_growth']} MB = {s['rss_mb']['warm_growth_kb_per_interaction']} KB/interaction "
                                  f"(slope {s['rss_mb']['warm_slope_kb_per_interaction']} KB/interaction)"),
    ]


def _optional_rows(s: dict, rows: list) -> None:
    if s.get("proxy"):
        rows.insert(1, ("through the proxy / students per process",
                        f"{s['proxy']} / {s['students_per_process']}  (RSS peak per process "
                        f"{s['rss_peak_per_process_mb']} MB)"))
    if s.get("shared"):
        sh = s["shared"]
        rows.append(("shared link: students who saw it / parses per process",
                     f"{sh['students_seeing_it']} / {sh['parses_per_process']} ({sh['file']}, {sh['bytes']:,} bytes)"))
    b = s.get("browser")
    if b:
        rows.append(("real browsers (loaded / steps / errors)", f"{b['loaded']}/{b['pages']} / {b['steps']} / {len(b['errors'])}"))
        rows.append(("browser Step -> new iteration p50 / p95", f"{b['step_p50']} / {b['step_p95']} s"))


def print_table(s: dict) -> None:
    rows = _table_rows(s)
    _optional_rows(s, rows)
    w = max(len(r[0]) for r in rows)
    print()
    for k, v in rows:
        print(f"  {k:<{w}}  {v}")
    print("\n  by action (n, p50, p95 s):  " + ",  ".join(
        f"{a} {d['n']} {d['p50']} {d['p95']}" for a, d in s["latency_by_action_s"].items()))
    for e in s["error_samples"]:
        print("  ERROR", e)
    b = s.get("browser")
    if b:
        for e in b["errors"]:
            print("  BROWSER", e)
    print("\n  checks: " + ", ".join(f"{k}={'ok' if v else 'FAIL'}" for k, v in s["checks"].items())
          + f"  => {'PASS' if s['passed'] else 'FAIL'}")
