"""The server under test: a free port, `streamlit run` started and stopped, a deployment of
deploy/nblab_deploy.py started and stopped, and the part of a server log written during a run."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy" / "nblab_deploy.py"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(app: str, port: int, log_path: Path, extra: list[str] | None = None,
                 root: Path = ROOT) -> subprocess.Popen:
    """`streamlit run <app>` from the checkout ``root`` (its own packages first on the path)."""
    cmd = [sys.executable, "-m", "streamlit", "run", app,
           "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
           "--server.runOnSave", "false"] + list(extra or [])
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if root != ROOT:
        env["PYTHONPATH"] = str(root)
    return subprocess.Popen(cmd, cwd=str(root), stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)


def wait_health(port: int, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    """Seconds until /_stcore/health answers 200; RuntimeError if the server exits or stays silent."""
    t0 = time.perf_counter()
    url = f"http://127.0.0.1:{port}/_stcore/health"
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return time.perf_counter() - t0
        except Exception:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"no answer from {url} within {timeout:.0f} s")


def stop_server(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 10 s."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def start_deployment(processes: int, server_args: list[str]) -> str | None:
    """deploy/nblab_deploy.py start with ``processes`` app processes in a temporary state directory; its
    path, or None (said why) when it did not start."""
    state_dir = tempfile.mkdtemp(prefix="loadtest_deploy_")
    prefix = [sys.executable, str(DEPLOY)]
    cmd = prefix + ["start", "--processes", str(processes),
                    "--port", str(free_port()), "--bind", "127.0.0.1", "--state-dir", state_dir] + (
        ["--allow-root"] if os.geteuid() == 0 else [])
    for a in server_args:
        cmd += ["--streamlit-arg=" + a]
    print("starting deploy/nblab_deploy.py", " ".join(cmd[len(prefix):]), flush=True)
    r = subprocess.run(cmd, cwd=str(ROOT), timeout=300)
    if r.returncode != 0:
        print(f"the deployment did not start (exit {r.returncode})", file=sys.stderr)
        return None
    return state_dir


def stop_deployment(state_dir: str) -> None:
    subprocess.run([sys.executable, str(DEPLOY), "stop", "--purge", "--state-dir", state_dir],
                   cwd=str(ROOT), timeout=120)


def deployment_state(state_dir: str | None) -> dict | None:
    """The deployment's state.json ({} without a state directory), or None (said why) when unreadable."""
    if not state_dir:
        return {}
    try:
        return json.loads((Path(state_dir) / "state.json").read_text())
    except (OSError, ValueError) as e:
        print(f"no deployment state in {state_dir}: {e}", file=sys.stderr)
        return None


def log_offsets(logs: list[Path]) -> list[int]:
    """Each log's size now: where this run's part of it begins."""
    return [f.stat().st_size if f.exists() else 0 for f in logs]


def read_from(logs: list[Path], offsets: list[int]) -> list[str]:
    """What each log got since its offset ("" for a log that cannot be read)."""
    texts = []
    for f, off in zip(logs, offsets):
        try:
            with open(f, "rb") as fh:
                fh.seek(off)
                texts.append(fh.read().decode(errors="replace"))
        except OSError:
            texts.append("")
    return texts


def count_tracebacks(log_text: str) -> int:
    return log_text.count("Traceback (most recent call last)")


def traceback_excerpt(log_text: str) -> str:
    """The first traceback of a log and what follows it (2,000 characters)."""
    i = log_text.find("Traceback")
    return log_text[i:i + 2000]
