"""What the two SQL dialects differ in, for the SQL both stores write the same way.

The stores' shared SQL (storage/tokens.py, storage/rows.py) is written once with `?`
placeholders and a namespace condition that only SQLite needs; `Dialect.sql` turns it into
the backend's text. Everything else that differs (upserts, FTS5 against tsvector, vec0
against pgvector, row-level security) stays in the backend's own package.
"""

from __future__ import annotations

from server.frozen import record


@record
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

    def where(self, conditions: list[str]) -> str:
        """` WHERE a AND b` of these conditions after the namespace's (nothing when there are none)."""
        every = (["namespace = ?"] if self.names_namespace else []) + conditions
        return " WHERE " + " AND ".join(every) if every else ""

    def is_false(self, column: str) -> str:
        """A flag column is off: SQLite stores flags as 0/1 integers, PostgreSQL as booleans."""
        return f"{column} = 0" if self.name == "sqlite" else f"NOT {column}"

    def is_true(self, column: str) -> str:
        return f"{column} = 1" if self.name == "sqlite" else column

    def flag_value(self, value: object) -> int | bool:
        """A flag as the column stores it (SQLite 0/1, PostgreSQL a boolean)."""
        return int(bool(value)) if self.name == "sqlite" else bool(value)

    def flag(self, column: str) -> str:
        """A flag column selected as the integer 0/1 (what an export holds on both backends)."""
        return column if self.name == "sqlite" else f"{column}::int"


SQLITE = Dialect("sqlite", "?", names_namespace=True)
POSTGRES = Dialect("postgres", "%s", names_namespace=False)
