"""The one place that opens SQLite connections: driver choice, sqlite-vec, pragmas, transactions.

Many Python builds (pyenv, macOS system Python, python.org installers) compile the
standard `sqlite3` module without loadable-extension support, so sqlite-vec cannot
load there. We try drivers that can, in order, and fail with an exact instruction
when none can.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from server.errors import DriverUnavailable

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 10_000
PAGE_SIZE = 8192


def _candidate_drivers() -> Iterator[tuple[str, ModuleType]]:
    try:
        import sqlean

        yield "sqlean", sqlean
    except ImportError:
        pass
    try:
        from pysqlite3 import dbapi2

        yield "pysqlite3", dbapi2
    except ImportError:
        pass
    import sqlite3

    yield "sqlite3", sqlite3


def _vec_path() -> str:
    """The sqlite-vec extension file the `sqlite_vec` package ships, found without importing the
    package: its __init__ imports NumPy, a third of a hook process's start-up (bench/hooks.py)."""
    import importlib.util
    import os

    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        import sqlite_vec  # noqa: F401 - let its own import error say what is missing

        return sqlite_vec.loadable_path()
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")  # as sqlite_vec.loadable_path()


def _load_vec(conn: Any) -> None:
    conn.enable_load_extension(True)
    try:
        conn.load_extension(_vec_path())
    finally:
        conn.enable_load_extension(False)


_driver: ModuleType | None = None
_driver_lock = threading.Lock()


def driver() -> ModuleType:
    """The first DB-API driver that can load sqlite-vec here (cached for the process)."""
    global _driver
    with _driver_lock:
        if _driver is not None:
            return _driver
        tried = []
        for name, module in _candidate_drivers():
            try:
                probe = module.connect(":memory:")
                try:
                    _load_vec(probe)
                    probe.execute("select vec_version()").fetchone()
                finally:
                    probe.close()
            except Exception as exc:  # noqa: BLE001 - any failure means "try the next driver"
                tried.append(f"{name}: {exc}")
                continue
            _driver = module
            return module
        raise DriverUnavailable(
            "No SQLite driver in this Python can load the sqlite-vec extension "
            f"({'; '.join(tried)}). Install one that can: `pip install sqlean.py` "
            "(Linux, macOS, Windows) or `pip install pysqlite3-binary` (Linux)."
        )


def integrity_errors(conn: Any) -> list[str]:
    rows = conn.execute("PRAGMA integrity_check").fetchall()
    return [r[0] for r in rows if r[0] != "ok"]


class Database:
    """One connection, shared by the threads of one process under a lock.

    SQLite serialises writers anyway; a single connection per process keeps
    prepared statements warm and avoids "database is locked" between our own
    threads. Write transactions start with BEGIN IMMEDIATE: a deferred
    transaction that reads then writes can fail at once with SQLITE_BUSY when
    another process writes, because SQLite skips the busy handler there.
    """

    backend: Literal["sqlite"] = "sqlite"

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        module = driver()
        self.errors = module
        self.conn = module.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        _load_vec(self.conn)
        self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # Takes effect only when the file is new. A 1,536-byte vector row fits twice in a
        # 4 KB page (25% of its bytes wasted) and five times in 8 KB (bench/scale.py).
        self.conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        if self.path != ":memory:":
            self.conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode is durable across application crashes (kill -9);
        # only an OS crash or power loss can drop the last transactions.
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute("PRAGMA foreign_keys = ON")
        self._lock = threading.RLock()
        self._depth = 0

    def for_tenant(self, tenant: str) -> Database:
        """Itself: every namespace lives in the one file, and each store's statements name theirs."""
        return self

    @contextmanager
    def write(self) -> Iterator[Any]:
        """A write transaction (BEGIN IMMEDIATE); nested calls join the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            self.conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self.conn
            except BaseException:
                self._depth = 0
                self.conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self.conn.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[Any]:
        """A consistent snapshot for several statements (joins an open write)."""
        with self._lock:
            if self._depth:
                # Counted, so code inside can tell it joined someone else's transaction (depth > 1).
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            self.conn.execute("BEGIN")
            self._depth = 1
            try:
                yield self.conn
            finally:
                self._depth = 0
                self.conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            try:
                self.conn.execute("PRAGMA optimize")
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
            self.conn.close()
