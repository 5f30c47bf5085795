"""The one place that opens SQLite connections: driver choice, sqlite-vec, pragmas, transactions.

Many Python builds (pyenv, macOS system Python, python.org installers) compile the
standard `sqlite3` module without loadable-extension support, so sqlite-vec cannot
load there. We try drivers that can, in order, and fail with an exact instruction
when none can.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from server.config import private_folder
from server.errors import DiskFull, DriverUnavailable, StoreBusy, StoreReadOnly
from server.storage.waits import WriteWaits

log = logging.getLogger(__name__)

#: How long a *read* may wait on SQLite's busy handler. In WAL mode readers never wait
#: for a writer; this only covers the brief moments another process rebuilds the WAL index.
BUSY_TIMEOUT_MS = 10_000
#: How long a write waits, by default, for another process's write lock (MEMVAULT_WRITE_WAIT).
WRITE_WAIT_SECONDS = 5.0
PAGE_SIZE = 8192
# SQLite's primary result codes (sqlite_errorcode & 0xff), for the errors a caller can act on.
_SQLITE_READONLY, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_FULL = 8, 5, 6, 13


def _candidate_drivers() -> Iterator[tuple[str, ModuleType]]:
    try:
        # lazy: the first driver that imports wins; the others may not be installed
        import sqlean

        yield "sqlean", sqlean
    except ImportError:
        pass
    try:
        # lazy: the first driver that imports wins; the others may not be installed
        from pysqlite3 import dbapi2

        yield "pysqlite3", dbapi2
    except ImportError:
        pass
    # lazy: the last resort, imported only when neither driver above is there
    import sqlite3

    yield "sqlite3", sqlite3


def _vec_path() -> str:
    """The sqlite-vec extension file the `sqlite_vec` package ships, found without importing the
    package: its __init__ imports NumPy, a third of a hook process's start-up (bench/hooks.py)."""
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


def store_error(exc: BaseException, path: str, waited: float | None = None) -> Exception | None:
    """The MemvaultError a caller can act on for a SQLite error (busy, full, read-only), else None.

    Python 3.11+ drivers carry the result code; older ones only the message, which is
    matched as a fallback.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc).lower()
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED) or (primary is None and "database is locked" in text):
        shown = f" (waited {waited:.1f} s, MEMVAULT_WRITE_WAIT)" if waited is not None else ""
        return StoreBusy(
            f"the store is busy (another memvault process is writing); retry{shown}. Nothing was changed."
        )
    # sqlite-vec reports a chunk it could not allocate (its blob insert failed: on a full disk)
    # as its own error, without SQLite's result code.
    if primary == _SQLITE_FULL or "disk is full" in text or "could not insert a new vector chunk" in text:
        return DiskFull(
            f"disk full: nothing was stored. Free space on the disk that holds {path} and retry."
        )
    if primary == _SQLITE_READONLY or "readonly database" in text:
        return StoreReadOnly(
            f"the store is read-only: {path} or its folder cannot be written, so nothing was stored. "
            "Check the permissions of the file and folder (they must be writable by this user)."
        )
    return None


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

    def __init__(self, path: Path | str, write_wait: float = WRITE_WAIT_SECONDS) -> None:
        self.path = str(path)
        self.write_wait = write_wait
        if self.path != ":memory:":
            private_folder(Path(self.path).parent)
            # Made private before SQLite creates it (0644 by default); SQLite gives the -wal and
            # -shm files the mode of the database file, so they are 0600 too.
            with contextlib.suppress(FileExistsError):
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
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
            self._enter_wal()
        # NORMAL in WAL mode is durable across application crashes (kill -9);
        # only an OS crash or power loss can drop the last transactions.
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute("PRAGMA foreign_keys = ON")
        self._lock = threading.RLock()
        self._depth = 0
        self._writing = False  # the open transaction (depth > 0) is a write
        self._waits = WriteWaits()  # waiting_at_most() of the calling thread
        self._aside: Database | None = None
        self._aside_lock = threading.Lock()

    def _enter_wal(self) -> None:
        """Switch the file to WAL, waiting out other processes opening it at the same moment.

        Changing the journal mode takes a lock that SQLite's busy handler does not wait for: when
        several servers start at once on a new store (windows opened together), one of them got
        "database is locked" here and exited before its first request (1 in 25 rounds of six
        openers). Retried for as long as any other write would wait (busy_timeout).
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        pause = 0.005
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode = WAL")
                return
            except self.errors.OperationalError as exc:
                if not isinstance(store_error(exc, self.path), StoreBusy) or time.monotonic() >= deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)

    def for_tenant(self, tenant: str) -> Database:
        """Itself: every namespace lives in the one file, and each store's statements name theirs."""
        return self

    def _begin_write(self, wait: float) -> None:
        """Open a write transaction, returning with the connection's lock held.

        Another process's write lock is waited for *outside* this process's lock: SQLite's
        own busy handler would sleep while holding it, and every read of this process
        (recalls, resources) would queue behind a writer elsewhere. Each attempt fails at
        once when the file is locked; between attempts the lock is free for readers.
        Raises StoreBusy when the lock is still taken after `wait` seconds.
        """
        started = time.monotonic()
        pause = 0.001
        while True:
            self._lock.acquire()
            if self._depth:  # this thread's own open transaction: the caller joins it
                return
            try:
                self.conn.execute("PRAGMA busy_timeout = 0")
                try:
                    self.conn.execute("BEGIN IMMEDIATE")
                finally:
                    self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                return
            except self.errors.OperationalError as exc:
                self._lock.release()
                waited = time.monotonic() - started
                problem = store_error(exc, self.path, waited)
                if not isinstance(problem, StoreBusy):
                    raise (problem or exc) from None
                if waited >= wait:
                    raise problem from None
                time.sleep(min(pause, wait - waited))
                pause = min(pause * 2, 0.05)
            except BaseException:
                self._lock.release()
                raise

    @contextmanager
    def write(self, wait: float | None = None) -> Iterator[Any]:
        """A write transaction (BEGIN IMMEDIATE); nested calls join the outer one.

        Waits at most `wait` seconds (default `write_wait`) for another process's write
        lock, then raises StoreBusy; `wait=0` tries once (for best-effort writes inside a
        read). A full disk or a read-only file raises DiskFull / StoreReadOnly after the
        rollback: nothing of the transaction is kept.
        """
        if wait is None:
            wait = self._waits.current(self.write_wait)
        self._begin_write(wait)
        try:
            if self._depth:
                self._depth += 1
                self._writing = True  # a write joining a read makes it one until it ends
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            self._depth, self._writing = 1, True
            try:
                yield self.conn
            except BaseException as exc:
                self._depth, self._writing = 0, False
                self._rollback()
                problem = store_error(exc, self.path) if isinstance(exc, self.errors.Error) else None
                if problem is not None:
                    raise problem from exc
                raise
            self._depth, self._writing = 0, False
            try:
                self.conn.execute("COMMIT")
            except self.errors.Error as exc:
                self._rollback()
                raise (store_error(exc, self.path) or exc) from exc
        finally:
            self._lock.release()

    @contextmanager
    def waiting_at_most(self, seconds: float) -> Iterator[None]:
        """Within this block, this thread's writes wait at most `seconds` for the lock (unless they say otherwise).

        For best-effort writes inside a read (a recall's counters, its embedding drain): they
        are skipped when another process is writing, so the read never waits for it.
        """
        with self._waits.at_most(seconds):
            yield

    def _rollback(self) -> None:
        try:
            self.conn.execute("ROLLBACK")
        except self.errors.Error:  # SQLite may have rolled back already (a full disk does)
            pass

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
                self._depth, self._writing = 0, False
                self.conn.execute("COMMIT")

    def in_write(self) -> bool:
        """Whether this connection has a write transaction open (the caller holds the connection: inside
        read() or write()). A read that joined one sees changes that may yet roll back; a read that
        joined an outer read (a recall's search stages share one) sees committed data, as its own would."""
        return self._depth > 0 and self._writing

    def aside(self) -> Database | None:
        """A second connection to the file, for a read that runs beside this connection's (a recall's
        keyword search in another thread while this one searches vectors: SQLite releases the GIL,
        so the two take the longer one's time, not their sum); opened once, on first use.

        None when the calling thread has a transaction open here (the second connection would not
        see its changes) and for an in-memory database (no second connection sees it).
        """
        if self.path == ":memory:" or not self._outside_transaction():
            return None
        with self._aside_lock:
            if self._aside is None:
                self._aside = Database(self.path, self.write_wait)
            return self._aside

    def beside(self) -> Database:
        """A new connection to the file for a long read in another thread (the caller closes it): reads on
        this connection hold its lock, so a whole-table read here would stall every recall."""
        return self if self.path == ":memory:" else Database(self.path, self.write_wait)

    def _outside_transaction(self) -> bool:
        if not self._lock.acquire(blocking=False):
            return True  # another thread holds the connection: not this thread's transaction
        try:
            return self._depth == 0
        finally:
            self._lock.release()

    def close(self) -> None:
        with self._aside_lock:
            if self._aside is not None:
                self._aside.close()
                self._aside = None
        with self._lock:
            try:
                # optimize may run ANALYZE, which needs the write lock: skipped when another process
                # writes (busy_timeout 0), or closing a reader (a hook, `memvault recall`) would wait
                # the whole busy timeout for a writer it never needed.
                self.conn.execute("PRAGMA busy_timeout = 0")
                self.conn.execute("PRAGMA optimize")
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
            self.conn.close()
