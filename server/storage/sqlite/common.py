"""What every role of the SQLite store shares: its helpers and its base (database, namespace).

The roles are the modules beside this one; store.py composes them into the Store.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from server import ranking
from server.storage.dialect import SQLITE
from server.storage.protocol import (
    KeywordQuery,
    MemoryRow,
    Scope,
)
from server.storage.rows import memory_row
from server.storage.sqlite.db import Database
from server.storage.sqlite.fts import scope_token

if TYPE_CHECKING:  # NumPy and the vector modules load with the first vector operation: a hook

    from server.storage.sqlite.vectors import VectorIndex


def _tags(stored: str) -> tuple[str, ...]:
    """SQLite keeps a memory's tags as a JSON list."""
    return tuple(json.loads(stored)) if stored != "[]" else ()  # most memories have no tags


def _memory_row(row: Sequence[Any]) -> MemoryRow:
    """A row selected as MEMORY_COLUMNS (storage/rows.py maps it by name)."""
    return memory_row(row, _tags)


def _quote(term: str) -> str:
    # FTS5 reads its query as a C string: a NUL would end it inside the quotes.
    return '"' + term.replace("\x00", "").replace('"', '""') + '"'


def _any_of(terms: Sequence[str], column: str) -> str:
    return " OR ".join(column + _quote(t) for t in terms)


def fts5_match(query: KeywordQuery) -> str | None:
    """`query` as an FTS5 MATCH expression; None when it has no terms (nothing can match).

    Every term is double-quoted, so FTS5 operators and punctuation in it are inert. The
    groups are ORs of terms: `"a" OR "b"`, `("a" OR "b") AND ("c")`, `("a") NOT ("c")`;
    each of `every` is a group of its own (`(("a") AND ("b")) AND ("c")`); own text only puts
    each term in the `text` column (`text : "a"`). bm25 sees each term once, so the rank of a
    memory matching `terms AND also` is its rank for all of them. Only ANDs of OR groups (and a
    NOT) keep that: `("a" AND "b") OR "c"` ranks a row holding b and c, not a, by c alone.
    """
    if not query.terms:
        return None
    column = "text : " if query.own_text_only else ""
    expression = _any_of(query.terms, column)
    if query.also:
        expression = f"({expression}) AND ({_any_of(query.also, column)})"
    for term in query.every:
        expression = f"({expression}) AND ({_any_of((term,), column)})"
    if query.excluded:
        expression = f"({expression}) NOT ({_any_of(query.excluded, column)})"
    return expression


def _in_scope(expression: str, namespace: str, threads: Sequence[str] | None) -> str:
    """`expression` limited to memories of these threads (no limit when threads is None)."""
    if threads is None:
        return expression
    tokens = " OR ".join(scope_token(namespace, t) for t in threads)
    return f"({expression}) AND scope : ({tokens})"


#: bm25's column weights: the memory's own words, a turn's context, the scope token (never ranked).
_BM25 = f"bm25(memory_fts, 1.0, {ranking.CONTEXT_COLUMN_WEIGHT}, 0.0)"


def _in(values: Sequence[Any]) -> str:
    return "(" + ",".join("?" * len(values)) + ")"


def _windowed(sql: str, rowid: str, window: int | None) -> tuple[str, list[Any]]:
    """`sql` (selecting a rowid and a bm25 `rank`) ordered best first, ending in `LIMIT ?`.

    With a window, only the newest `window` rows are ranked: the inner query walks
    the doclists newest first and stops, so bm25 runs `window` times at most.
    """
    if window is None:
        return f"{sql} ORDER BY rank, {rowid} LIMIT ?", []
    return f"SELECT * FROM ({sql} ORDER BY {rowid} DESC LIMIT ?) ORDER BY rank, rowid LIMIT ?", [window]


def _scope_filters(scope: Scope, prefix: str, where: list[str], params: list[Any]) -> None:
    """Thread, kind and time conditions of `scope` on columns named `prefix + column`."""
    if scope.threads is not None:
        where.append(f"{prefix}thread IN {_in(scope.threads)}")
        params.extend(scope.threads)
    if scope.kinds:
        where.append(f"{prefix}kind IN {_in(scope.kinds)}")
        params.extend(scope.kinds)
    if scope.since is not None:
        where.append(f"{prefix}created_at >= ?")
        params.append(scope.since)
    if scope.until is not None:
        where.append(f"{prefix}created_at <= ?")
        params.append(scope.until)


class SqliteStoreBase:
    """The database and namespace every role works in, and the vector index it opens on first use."""

    dialect = SQLITE
    memory_row = staticmethod(_memory_row)  # the shared methods' rows (storage/shapes.py)

    def __init__(self, db: Database, namespace: str) -> None:
        self.db = db
        self.namespace = namespace
        self._index: VectorIndex | None = None

    @property
    def _vectors(self) -> VectorIndex:
        if self._index is None:
            # lazy: vectors (NumPy), ~0.22 s that a hook process (keyword recall) never needs
            from server.storage.sqlite.vectors import VectorIndex

            self._index = VectorIndex(self.db.path, self.namespace)
        return self._index

