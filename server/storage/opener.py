"""The one place that picks and builds a storage backend: SQLite by default, PostgreSQL when
MEMVAULT_DATABASE_URL (or a location) is a postgresql:// URL. Everything above talks to the
protocols of server.storage.protocol; the backend packages are imported here only, and lazily
(a SQLite user never needs the PostgreSQL driver)."""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING

from server.config import Settings
from server.errors import DataDirUnusable, MemvaultError, SetupError, StoreBusy, StoreDamaged, StoreReadOnly

if TYPE_CHECKING:
    import argparse

    from server.storage.protocol import Database, Store, TokenTable


class NotAStore(SetupError):
    """A SQLite location that cannot be read as a database (not a memvault store, or damaged)."""


def is_postgres(location: object) -> bool:
    return str(location).startswith(("postgresql://", "postgres://"))


def open_database(settings: Settings, dimensions: int) -> Database:
    """Open the configured store, schema up to date (SQLite migrates itself; PostgreSQL must be initialised).

    A SQLite file that cannot be opened says why in one message, as a SetupError the CLI
    turns into its exit status: DataDirUnusable (read-only, not a folder, no space, no
    permission) or StoreDamaged (not a database, or damaged).
    """
    if settings.database_url:
        # lazy: the opener loads one backend, the configured one (PostgreSQL's store ~0.43 s)
        from server.storage.pg.db import PgDatabase

        db: Database = PgDatabase.from_settings(settings)
        try:
            prepare_schema(db, dimensions)
        except BaseException:
            db.close()
            raise
        return db
    # lazy: the opener loads one backend, the configured one (~11 ms, none for `--help`)
    from server.storage.sqlite.db import Database as SqliteDatabase

    try:
        db = SqliteDatabase(settings.db_path, write_wait=settings.write_wait_seconds)
        try:
            prepare_schema(db, dimensions)
        except BaseException:
            db.close()
            raise
    except MemvaultError as exc:
        if isinstance(exc, (SetupError, StoreBusy)):
            raise
        raise (sqlite_open_error(settings, exc) or exc) from None
    except Exception as exc:
        problem = sqlite_open_error(settings, exc)
        if problem is None:
            raise
        raise problem from None
    return db


#: SQLite result codes (primary) that mean the file is not a usable database.
_DAMAGED = {11: "SQLITE_CORRUPT", 26: "SQLITE_NOTADB"}


def sqlite_open_error(settings: Settings, exc: BaseException) -> SetupError | None:
    """The one clear start-up message for an exception opening the SQLite store (None: not one we know)."""
    path, home = settings.db_path, settings.home
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc)
    lowered = text.lower()
    if primary in _DAMAGED or "not a database" in lowered or "malformed" in lowered:
        return StoreDamaged(
            f"the database {path} is damaged ({text}); memvault did not change it. Restore a backup of it "
            f"(see 'Where data lives' in the README), or move it aside (mv {path} {path}.damaged) to start an "
            f"empty store; `sqlite3 {path} .recover` salvages what is still readable. `memvault doctor` checks the rest."
        )
    full = isinstance(exc, OSError) and exc.errno == errno.ENOSPC or primary == 13 or "disk is full" in lowered
    if full:
        return DataDirUnusable(
            f"disk full: memvault cannot write its data directory {home}. Free some space and start again. "
            "`memvault doctor` checks the rest."
        )
    if isinstance(exc, NotADirectoryError) or isinstance(exc, FileExistsError):
        return DataDirUnusable(
            f"{exc.filename or home} is a file, not a folder: memvault keeps its database and memory files in "
            f"the data directory {home}. Move the file aside, or set MEMVAULT_HOME to another folder. "
            "`memvault doctor` checks the rest."
        )
    cannot_write = (
        isinstance(exc, PermissionError) or (isinstance(exc, OSError) and exc.errno == errno.EROFS)
        or primary in (8, 14) or "readonly" in lowered or "unable to open" in lowered
    )
    if cannot_write or isinstance(exc, StoreReadOnly):
        return DataDirUnusable(
            f"memvault cannot write its data directory {home} ({text}): it needs to create and write "
            f"memvault.db, its -wal and -shm files and files/ there. Make the folder writable by this user, or set "
            "MEMVAULT_HOME to a writable folder. `memvault doctor` checks the rest."
        )
    return None


def prepare_schema(db: Database, dimensions: int) -> None:
    """SQLite: migrate the file to this version's schema, as serving it would. PostgreSQL: require it
    initialised and current (`memvault db init` / `db migrate` change it, with the owner's rights)."""
    if db.backend == "postgres":
        # lazy: PostgreSQL's side, ~20 ms a SQLite store never loads
        from server.storage.pg.migrations import require_current

        require_current(db, dimensions)
    else:
        # lazy: SQLite's side, ~11 ms a PostgreSQL store never loads
        from server.storage.sqlite.migrations import SchemaContext, migrate

        migrate(db, SchemaContext(dimensions=dimensions))  # type: ignore[arg-type]


def require_current_schema(db: Database, dimensions: int) -> None:
    """PostgreSQL: a SetupError unless the schema is initialised and current (read-only; SQLite migrates
    itself when served, so there is nothing to require)."""
    if db.backend == "postgres":
        # lazy: PostgreSQL's side, ~20 ms a SQLite store never loads
        from server.storage.pg.migrations import require_current

        require_current(db, dimensions)  # type: ignore[arg-type]


def sqlite_driver() -> tuple[str, str]:
    """(the driver package, its SQLite version) that memvault would use; DriverUnavailable if none
    can load the sqlite-vec extension."""
    # lazy: ~11 ms that CLI commands other than doctor skip
    from server.storage.sqlite.db import driver

    module = driver()
    probe = module.connect(":memory:")
    try:
        version = probe.execute("select sqlite_version()").fetchone()[0]
    finally:
        probe.close()
    return module.__name__.split(".")[0], version


def make_store(db: Database, namespace: str) -> Store:
    """The store of `namespace` on `db`."""
    if db.backend == "postgres":
        # lazy: PostgreSQL's store, ~0.43 s (psycopg) a SQLite store never loads
        from server.storage.pg.store import PgStore

        return PgStore(db, namespace)  # type: ignore[arg-type]  # pgvector's HNSW index decides for itself
    # lazy: SQLite's store, ~0.22 s that `--help` and the commands that open no store skip
    from server.storage.sqlite.store import Store as SqliteStore

    return SqliteStore(db, namespace)  # type: ignore[arg-type]


def connect(location: str, namespace: str = "", pool_size: int = 1, check_reachable: bool = False) -> Database:
    """A path or URL opened as it is (no schema change). PostgreSQL: confined to the tenant
    `namespace`; with `check_reachable`, an unreachable server or a refused login fails at once
    with what to check (the pool would retry for its whole timeout). SQLite: a file that is not
    a database raises NotAStore."""
    if is_postgres(location):
        # lazy: PostgreSQL's side, ~20 ms a SQLite store never loads
        from server.storage.pg import db as pg

        if check_reachable:
            pg.check_reachable(location)
        return pg.PgDatabase(location, tenant=namespace, pool_size=pool_size)
    # lazy: SQLite's side, ~11 ms a PostgreSQL store never loads
    from server.storage.sqlite.db import Database as SqliteDatabase, driver

    try:
        return SqliteDatabase(location)
    except driver().DatabaseError as exc:
        raise NotAStore(str(exc)) from None


def open_location(location: str, namespace: str = "") -> tuple[Database, Store]:
    """(database, store) for a path or URL, for read-only checks (health)."""
    db = connect(location, namespace)
    return db, make_store(db, namespace)


def list_tenants(admin_url: str, tables: tuple[str, ...]) -> list[str]:
    """Every tenant with rows in `tables` of a PostgreSQL database, read with a superuser's URL
    (row-level security hides the other tenants from the application role)."""
    # lazy: PostgreSQL's side, ~20 ms a SQLite store never loads
    from server.storage.pg.db import list_tenants as pg_list_tenants

    return pg_list_tenants(admin_url, tables)


def add_database_commands(sub: argparse._SubParsersAction) -> None:
    """The arguments of `memvault db init|migrate` (PostgreSQL set-up); imports no driver."""
    # lazy: ~36 ms; the CLI imports the opener for every command
    from server.storage.pg import commands

    commands.add_parser(sub)


def run_database_command(settings: Settings, args: argparse.Namespace, dimensions: int) -> int:
    """`memvault db init|migrate`, for vectors of `dimensions`."""
    # lazy: ~36 ms; the CLI imports the opener for every command
    from server.storage.pg import commands

    return commands.run(settings, args, dimensions)


def token_table(db: Database) -> TokenTable:
    """The bearer tokens of the HTTP transport, in `db`."""
    if db.backend == "postgres":
        # lazy: each backend's token table, ~80 ms, only for `serve --http` and `token`
        from server.storage.pg.tokens import PgTokens

        return PgTokens(db)  # type: ignore[arg-type]
    # lazy: each backend's token table, ~80 ms, only for `serve --http` and `token`
    from server.storage.sqlite.tokens import SqliteTokens

    return SqliteTokens(db)  # type: ignore[arg-type]
