"""What the two SQL dialects differ in, for the SQL both stores write the same way.

The stores' shared SQL (storage/tokens.py, storage/rows.py) is written once with `?`
placeholders and a namespace condition that only SQLite needs; `Dialect.sql` turns it into
the backend's text. Everything else that differs (upserts, FTS5 against tsvector, vec0
against pgvector, row-level security) stays in the backend's own package.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    name: str
    #: The DB-API placeholder: sqlite3's `?`, psycopg's `%s`.
    placeholder: str
    #: SQLite confines a statement by naming its namespace; PostgreSQL's row-level security
    #: adds the tenant to every statement itself, so its SQL carries no tenant condition.
    names_namespace: bool

    def sql(self, text: str) -> str:
        """`text`, written with `?` placeholders, in this dialect (shared SQL holds no literal `?` or `%`)."""
        return text if self.placeholder == "?" else text.replace("?", self.placeholder)

    def in_namespace(self, prefix: str = "") -> str:
        """`namespace = ? AND ` where the dialect names the namespace, else nothing (params: in_namespace_params)."""
        return f"{prefix}namespace = ? AND " if self.names_namespace else ""

    def namespace_params(self, namespace: str) -> tuple[str, ...]:
        return (namespace,) if self.names_namespace else ()


SQLITE = Dialect("sqlite", "?", names_namespace=True)
POSTGRES = Dialect("postgres", "%s", names_namespace=False)
