"""A throwaway PostgreSQL server for the store tests (Debian's `postgresql` package).

``cluster()`` runs initdb in a temporary directory, starts the server on a Unix socket
in that directory only (no TCP port is opened), creates a database and yields its URL;
afterwards the server is stopped and the directory removed. initdb refuses to run as
root, so as root the server runs as the `postgres` user the Debian package creates.

Set NBLAB_TEST_PG_URL to use an existing server instead. With no PostgreSQL binaries
the tests skip, unless CI is set (then they fail: .ci/run installs `postgresql`).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from kit.deploy import deploy_module


def pg_bindir() -> Path | None:
    """The directory of initdb and pg_ctl, found as the deployment script finds it (PG_BIN, else
    Debian's newest /usr/lib/postgresql/*/bin, else PATH); None when PostgreSQL is not installed."""
    return deploy_module().find_pg_bindir()


def _as_owner(cmd: list[str], user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--", *cmd] if user else cmd


@contextlib.contextmanager
def cluster(dbname: str = "nblab_test"):
    """Yield a postgresql:// URL of a fresh database on a private, temporary server."""
    import pytest

    url = os.environ.get("NBLAB_TEST_PG_URL")
    if url:
        yield url
        return
    bindir = pg_bindir()
    if bindir is None:
        msg = "PostgreSQL is not installed (apt-get install -y postgresql); the PostgreSQL store tests need it"
        if os.environ.get("CI"):
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    user = None
    if os.geteuid() == 0:  # initdb refuses root: run the server as Debian's postgres user
        import pwd
        try:
            pw = pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail("running as root but there is no 'postgres' user to run PostgreSQL as", pytrace=False)
        user = "postgres"
    tmp = Path(tempfile.mkdtemp(prefix="nblab_pg_"))
    data, log = tmp / "data", tmp / "server.log"
    if user:
        os.chown(tmp, pw.pw_uid, pw.pw_gid)
    started = False
    try:
        def run(cmd, **kw):
            return subprocess.run(_as_owner(cmd, user), check=True, capture_output=True, text=True,
                                  cwd=str(tmp), timeout=120, **kw)
        try:
            run([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "nblab", "-E", "UTF8",
                 "--locale=C", "--no-sync"])
            # Unix socket in tmp only (listen_addresses=''): nothing is reachable from the network.
            opts = f"-c listen_addresses='' -k {tmp} -p 54329 -c fsync=off -c full_page_writes=off"
            run([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", opts, "-w", "-t", "60", "start"])
            started = True
            run([str(bindir / "createdb"), "-h", str(tmp), "-p", "54329", "-U", "nblab", dbname])
        except subprocess.CalledProcessError as e:
            detail = (e.stderr or "") + (log.read_text() if log.exists() else "")
            pytest.fail(f"could not start a throwaway PostgreSQL: {' '.join(e.cmd)}\n{detail[-2000:]}",
                        pytrace=False)
        yield f"postgresql://nblab@/{dbname}?host={tmp}&port=54329"
    finally:
        if started:
            subprocess.run(_as_owner([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                                     user), capture_output=True, timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)


def drop_tables(url: str) -> None:
    """Empty the store's tables (each test starts from an empty store)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS nblab_shares, nblab_share_log, nblab_gone")


class OwnServer:
    """A throwaway PostgreSQL server of one test alone (``own_server()``): its URL, and the server
    stopped, started again or frozen while the test runs."""

    def __init__(self, url: str):
        from urllib.parse import parse_qs, urlparse
        q = parse_qs(urlparse(url).query)
        self.url, self.dir, self.port = url, Path(q["host"][0]), q["port"][0]
        self._user = "postgres" if os.geteuid() == 0 else None
        self._opts = (f"-c listen_addresses='' -k {self.dir} -p {self.port} -c fsync=off "
                      "-c full_page_writes=off")

    def _ctl(self, *args: str) -> None:
        subprocess.run(_as_owner([str(pg_bindir() / "pg_ctl"), "-D", str(self.dir / "data"), *args], self._user),
                       check=True, capture_output=True, timeout=60, cwd=str(self.dir))

    def stop(self) -> None:
        self._ctl("-m", "fast", "-w", "stop")

    def start(self) -> None:
        self._ctl("-l", str(self.dir / "server.log"), "-o", self._opts, "-w", "-t", "60", "start")

    def pids(self) -> list[int]:
        """The postmaster and every backend process it started."""
        master = int((self.dir / "data" / "postmaster.pid").read_text().split()[0])
        kids = subprocess.run(["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True, text=True).stdout
        return [master] + [int(p) for p in kids.split()]

    @contextlib.contextmanager
    def frozen(self):
        """The whole server frozen (SIGSTOP: the postmaster and every backend, as a stalled machine or
        a paused VM): connections stay open and nothing answers. Thawed (SIGCONT) on leaving."""
        import signal
        pids = self.pids()
        try:
            for pid in pids:
                os.kill(pid, signal.SIGSTOP)
            yield
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)


@contextlib.contextmanager
def own_server(dbname: str = "nblab_faults"):
    """Yield an :class:`OwnServer`: a PostgreSQL server nobody else uses, which the test may stop,
    start and freeze. Skips where ``NBLAB_TEST_PG_URL`` names a shared server (it must not be stopped)."""
    import pytest
    pytest.importorskip("psycopg")
    if os.environ.get("NBLAB_TEST_PG_URL"):
        pytest.skip("stops and starts its own server; NBLAB_TEST_PG_URL names a shared one")
    with cluster(dbname) as url:
        yield OwnServer(url)
