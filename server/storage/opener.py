"""The one place that picks the storage backend: SQLite by default, PostgreSQL when
MEMVAULT_DATABASE_URL is set. Everything above talks to server.storage.protocol's protocols."""

from __future__ import annotations

from typing import Any

from server.config import Settings


def is_postgres(location: object) -> bool:
    return str(location).startswith(("postgresql://", "postgres://"))


def open_database(settings: Settings, dimensions: int) -> Any:
    """Open the configured store, schema up to date (SQLite migrates itself; PostgreSQL must be initialised)."""
    if settings.database_url:
        from server.storage.pg.db import PgDatabase
        from server.storage.pg.migrations import require_current

        db = PgDatabase.from_settings(settings)
        try:
            require_current(db, dimensions)
        except BaseException:
            db.close()
            raise
        return db
    from server.storage.sqlite.db import Database
    from server.storage.sqlite.migrations import SchemaContext, migrate

    db = Database(settings.db_path)
    try:
        migrate(db, SchemaContext(dimensions=dimensions))
    except BaseException:
        db.close()
        raise
    return db


def make_store(db: Any, namespace: str, vector_prescan_from: int | None = None) -> Any:
    """The store of `namespace` on `db`; `vector_prescan_from` tunes SQLite's in-process vector search."""
    if getattr(db, "backend", "sqlite") == "postgres":
        from server.storage.pg.store import PgStore

        return PgStore(db, namespace)  # pgvector's HNSW index decides for itself
    from server.storage.sqlite.store import Store

    if vector_prescan_from is None:
        return Store(db, namespace)
    return Store(db, namespace, vector_prescan_from=vector_prescan_from)


def open_location(location: str, namespace: str = "") -> tuple[Any, Any]:
    """(database, store) for a path or URL, for read-only checks (health)."""
    if is_postgres(location):
        from server.storage.pg.db import PgDatabase

        db = PgDatabase(location, tenant=namespace, pool_size=1)
        return db, make_store(db, namespace)
    from server.storage.sqlite.db import Database

    db = Database(location)
    return db, make_store(db, namespace)
