"""Check an install of the app's lock alone (requirements.lock: the README's run command), in the environment
this runs in: every module of nbcore, nblab and dashboard imports, the app starts (``streamlit run
dashboard/server.py``) and serves its health route, the lesson page and the class page's script; then print
how many packages the environment holds and its size on disk.

    python3 -m venv /tmp/run && . /tmp/run/bin/activate
    python3 -m pip install -r requirements.lock -e . && python3 scripts/check_app_install.py

.ci/run does this in a fresh virtualenv. Modules of the optional extras (nbcore.dask_em, nbcore.dask_chunks: Dask; the
notebook widget's anywidget is imported only when nblab.show is called) are left out of the import check, and so
are the entry scripts (dashboard/app.py, dashboard/server.py), which the started app runs.
Exits non-zero, saying what failed.
"""
from __future__ import annotations

import importlib
import importlib.metadata as md
import os
import pkgutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: modules of an optional extra, not in the app's lock, and the app's entry scripts (run by serve_once, not imported)
EXTRAS = {"nbcore.dask_chunks", "nbcore.dask_em", "dashboard.app", "dashboard.server"}
#: what the test bench brings and the app must not need
TEST_ONLY = ("pytest", "hypothesis", "playwright", "jupyterlab", "dask", "distributed", "psycopg", "zxing-cpp",
             "ruff", "ipykernel", "anywidget")


def modules() -> list[str]:
    out = []
    for pkg in ("nbcore", "nblab", "dashboard"):
        mod = importlib.import_module(pkg)
        out.append(pkg)
        for info in pkgutil.walk_packages(mod.__path__, pkg + "."):
            if info.name not in EXTRAS and not any(info.name.startswith(e + ".") for e in EXTRAS):
                out.append(info.name)
    return out


def size_of(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def serve_once() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "dashboard/server.py", "--server.headless",
                             "true", "--server.port", str(port), "--server.address", "127.0.0.1"],
                            cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "NBLAB_WARM": "0"})
    try:
        deadline = time.time() + 120
        while True:
            if proc.poll() is not None:
                sys.exit(f"the app exited ({proc.returncode}):\n{proc.stdout.read()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.time() > deadline:
                sys.exit("the app did not answer /_stcore/health within 120 s")
            time.sleep(0.3)
        for path in ("/", "/class/data/toy_spam.json"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
                if r.status != 200 or not r.read():
                    sys.exit(f"GET {path}: {r.status}")
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def main() -> None:
    names = sorted({d.metadata["Name"].lower() for d in md.distributions()})
    stray = [n for n in TEST_ONLY if n in names]
    if stray:
        sys.exit(f"the app's install holds test-bench packages: {', '.join(stray)}")
    failed = []
    for name in modules():
        try:
            importlib.import_module(name)
        except ImportError as e:
            failed.append(f"{name}: {e}")
    if failed:
        sys.exit("modules that do not import on the app's lock:\n  " + "\n  ".join(failed))
    serve_once()
    mb = size_of(Path(sys.prefix)) / 1e6
    print(f"app install: {len(names)} packages (pip list, pip and nbcore included), {mb:.0f} MB in {sys.prefix}")


if __name__ == "__main__":
    main()
