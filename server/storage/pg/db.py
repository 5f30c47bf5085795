"""Connections to PostgreSQL: a small pool, one transaction per read()/write(), the tenant set in each.

Row-level security (forced, see migrations.py) confines every statement to the rows
whose `tenant` equals the transaction-local setting `app.tenant`. It is set with
`set_config(..., true)` at the start of every transaction, so it ends with the
transaction and a pooled connection never carries one tenant into the next
borrower's work; with no tenant set, every query returns nothing (fail closed).

The service layer was written against SQLite's one-writer-at-a-time transactions
(read, decide, write: dedupe by content hash, compress what has not changed). A
write transaction here takes a transaction-level advisory lock on its tenant, so the
writers of one tenant are serialised the same way and other tenants never wait.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from server.config import Settings
from server.errors import DiskFull, SetupError, StoreBusy, StoreReadOnly
from server.storage.waits import WriteWaits

log = logging.getLogger(__name__)

#: What a connection string may not contain for the pool to stay safe: the tenant is
#: chosen per transaction, never per connection.
APP_NAME = "memvault"


def redact_url(url: str) -> str:
    """The URL without its password, for logs and cache keys."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def _import_driver() -> tuple[Any, Any, Any]:
    try:
        # lazy: psycopg, ~0.37 s that a SQLite server and the CLI (both import this module) never need;
        # an ImportError says what to install
        import psycopg
        import psycopg_pool
        from pgvector.psycopg import register_vector
    except ImportError as exc:
        raise SetupError(
            f"MEMVAULT_DATABASE_URL is set but the PostgreSQL driver is missing ({exc}); "
            "install it with `pip install 'memvault[postgres]'` or unset MEMVAULT_DATABASE_URL."
        ) from None
    return psycopg, psycopg_pool, register_vector


class PgDatabase:
    """A pool of connections as the application role; tenant-scoped transactions."""

    backend: Literal["postgres"] = "postgres"

    def __init__(
        self, url: str, tenant: str, pool_size: int = 4, ef_search: int = 200, write_wait: float = 5.0
    ) -> None:
        psycopg, psycopg_pool, register_vector = _import_driver()
        self.url = url
        self.write_wait = write_wait
        self.path = redact_url(url)
        self.tenant = tenant
        self.ef_search = int(ef_search)
        self.errors = psycopg.errors
        self._local = threading.local()
        self._waits = WriteWaits()

        def configure(conn: Any) -> None:
            try:
                register_vector(conn)
            except psycopg.ProgrammingError:
                # `vector` type not installed yet (a database `memvault db init` has not set up):
                # require_current() says what to do; the pool must still open to let it ask.
                pass

        try:
            self.pool = psycopg_pool.ConnectionPool(
                url,
                min_size=1,
                max_size=max(1, pool_size),
                # autocommit: transactions are explicit (conn.transaction()), nothing idles in one.
                # prepare_threshold None: a generic plan would ignore how selective a thread filter is.
                kwargs={"autocommit": True, "prepare_threshold": None, "application_name": APP_NAME},
                # No reset callback: the tenant is only ever set transaction-locally, so a
                # connection back in the pool holds none (and a reset costs a round trip per use).
                configure=configure,
                open=True,
                timeout=30,
                name="memvault",
            )
            self.pool.wait(timeout=15)
        except psycopg_pool.PoolTimeout as exc:
            raise SetupError(
                f"Could not connect to PostgreSQL at {self.path} ({exc}); check MEMVAULT_DATABASE_URL, "
                "that the server is running and that the role may log in."
            ) from None

    def for_tenant(self, tenant: str) -> PgDatabase:
        """The same pool, confined to another tenant: one per authenticated principal of a
        multi-tenant transport (HTTP with tokens), so requests never share a tenant by accident."""
        view = object.__new__(PgDatabase)
        view.__dict__.update(self.__dict__)
        view.tenant = tenant
        view._local = threading.local()
        view._waits = WriteWaits()
        return view

    @classmethod
    def from_settings(cls, settings: Settings) -> PgDatabase:
        assert settings.database_url
        return cls(settings.database_url, settings.namespace, settings.pg_pool_size, settings.pg_ef_search,
                   settings.write_wait_seconds)

    # -- transactions ---------------------------------------------------------
    @contextmanager
    def _transaction(self, write: bool, wait: float | None = None) -> Iterator[Any]:
        current = getattr(self._local, "conn", None)
        if current is not None:
            # Nested: join the open transaction of this thread (as SQLite's Database does).
            yield current
            return
        # A write waits a bounded time for the tenant's writer lock (lock_timeout; 0 would mean
        # forever in PostgreSQL, so "try once" is 1 ms), then fails as StoreBusy.
        if wait is None:
            wait = self._waits.current(self.write_wait)
        wait_ms = max(1, int(1000 * wait))
        with self.pool.connection() as conn:
            try:
                with conn.pipeline():  # BEGIN and the settings in one round trip
                    # Reads get one snapshot for all their statements, as SQLite's do.
                    conn.execute("BEGIN" if write else "BEGIN ISOLATION LEVEL REPEATABLE READ")
                    # The tenant (transaction-local, so it ends with the transaction); iterative
                    # HNSW scans (every vector query is filtered: RLS adds the tenant, and without
                    # them a selective filter can leave fewer than k rows, even none); the candidate
                    # list size; and for a write the bounded wait and the tenant's writer lock.
                    conn.execute(
                        "SELECT set_config('app.tenant', %s, true), "
                        "set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                        "set_config('hnsw.ef_search', %s, true)"
                        + (", set_config('lock_timeout', %s, true)" if write else ""),
                        (self.tenant, str(self.ef_search), *((f"{wait_ms}ms",) if write else ())),
                    )
                    if write:
                        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 7))", ("memvault:" + self.tenant,))
            except self.errors.Error as exc:
                self._rollback(conn)
                raise (self._store_error(exc, wait_ms / 1000) or exc) from None
            self._local.conn = conn
            try:
                yield conn
            except BaseException as exc:
                self._rollback(conn)
                problem = self._store_error(exc) if isinstance(exc, self.errors.Error) else None
                if problem is not None:
                    raise problem from exc
                raise
            finally:
                self._local.conn = None
            try:
                conn.execute("COMMIT")
            except self.errors.Error as exc:
                raise (self._store_error(exc) or exc) from exc

    @contextmanager
    def waiting_at_most(self, seconds: float) -> Iterator[None]:
        """Within this block, this thread's writes wait at most `seconds` for the tenant's writer lock."""
        with self._waits.at_most(seconds):
            yield

    @staticmethod
    def _rollback(conn: Any) -> None:
        try:
            conn.execute("ROLLBACK")
        except Exception:  # noqa: BLE001 - a broken connection rolls back by itself
            pass

    def _store_error(self, exc: BaseException, waited: float | None = None) -> Exception | None:
        """The MemvaultError a caller can act on (busy, disk full, read-only), else None."""
        if isinstance(exc, (self.errors.LockNotAvailable, self.errors.DeadlockDetected)):
            shown = f" (waited {waited:.1f} s, MEMVAULT_WRITE_WAIT)" if waited is not None else ""
            return StoreBusy(
                f"the store is busy (another memvault process is writing); retry{shown}. Nothing was changed."
            )
        if isinstance(exc, self.errors.DiskFull):
            return DiskFull(f"disk full: nothing was stored. The PostgreSQL server at {self.path} is out of disk space.")
        if isinstance(exc, self.errors.ReadOnlySqlTransaction):
            return StoreReadOnly(
                f"the store is read-only: the PostgreSQL server at {self.path} refuses writes (a standby, or "
                "default_transaction_read_only); nothing was stored."
            )
        return None

    def write(self, wait: float | None = None) -> Any:
        return self._transaction(write=True, wait=wait)

    def read(self) -> Any:
        return self._transaction(write=False)

    def beside(self) -> PgDatabase:
        """Itself: each read takes its own connection from the pool."""
        return self

    def close(self) -> None:
        self.pool.close()


def check_reachable(url: str, timeout: int = 10) -> None:
    """Fail fast, with what to check, when the server at `url` cannot be reached or refuses the login
    (the pool would retry for its whole timeout first)."""
    psycopg, _, _ = _import_driver()
    try:
        psycopg.connect(url, connect_timeout=timeout, autocommit=True).close()
    except psycopg.OperationalError as exc:
        reason = " ".join(str(exc).split())
        raise SetupError(
            f"Could not connect to PostgreSQL at {redact_url(url)} ({reason}); check the URL, "
            "that the server is running and that the role may log in."
        ) from None


def list_tenants(admin_url: str, tables: tuple[str, ...]) -> list[str]:
    """Every tenant with rows in `tables`, read as a superuser (row-level security hides the other
    tenants from the application role, so only an administrator can list them)."""
    psycopg, _, _ = _import_driver()
    check_reachable(admin_url)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        role = conn.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user").fetchone()
        if not (role and role[0]):
            raise SetupError(
                f"--admin-url {redact_url(admin_url)} is not a superuser (or BYPASSRLS role), so row-level "
                "security hides the tenants; give a superuser's URL, or name the tenants with --namespace."
            )
        union = " UNION ".join(f"SELECT tenant FROM {t}" for t in tables)
        return [r[0] for r in conn.execute(union + " ORDER BY 1")]
