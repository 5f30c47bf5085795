"""What every role of the PostgreSQL store shares: its helpers and its base (database, namespace).

The roles are the modules beside this one; store.py composes them into the Store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from server import ranking
from server.storage.dialect import POSTGRES
from server.storage.pg.db import PgDatabase
from server.storage.protocol import (
    KeywordQuery,
    MemoryRow,
    Scope,
)
from server.storage.rows import memory_row

# Weights of ts_rank_cd for labels {D, C, B, A}: own text is A, a turn's context D.
_WEIGHTS = "{%s, 0, 0, 1}" % ranking.CONTEXT_COLUMN_WEIGHT


def _row(values: Sequence[Any]) -> MemoryRow:
    """A row selected as MEMORY_COLUMNS (storage/rows.py maps it by name; tags are a text[])."""
    return memory_row(values, tuple)


def _array(value: Any) -> np.ndarray:
    """A stored vector as float32 (pgvector's adapter hands back numpy arrays or Vector objects)."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy else value, dtype=np.float32)


_WEBSEARCH = "websearch_to_tsquery('english', %s)"


def websearch_text(terms: Sequence[str]) -> str:
    """Terms ORed as websearch_to_tsquery text ('' for none). Query terms are runs of word
    characters, so joined with ` or ` they cannot form any other websearch syntax (and whatever
    a term holds, websearch_to_tsquery never fails: it is a parameter, read as words)."""
    terms = [t.replace("\x00", "") for t in terms]  # PostgreSQL text cannot hold NUL
    return " or ".join(t for t in terms if t)


def _tsquery(query: KeywordQuery) -> tuple[str, list[str]] | None:
    """A FROM item giving the tsquery `q` of `query`, and its parameters; None when it has no terms.

    `also` and `excluded` become `&&` and `&& !!` of a second websearch query, each of `every`
    `&&` of one more.
    """
    text = websearch_text(query.terms)
    if not text:
        return None
    item, params = _WEBSEARCH, [text]
    for group, negate in ((query.also, ""), *(((t,), "") for t in query.every), (query.excluded, "!!")):
        other = websearch_text(group)
        if other:
            item += f" && {negate}{_WEBSEARCH}"
            params.append(other)
    if len(params) == 1:
        return f"{item} AS q", params
    return f"(SELECT {item} AS q) AS tsq", params


def _matching(query: KeywordQuery) -> tuple[str, str, list[Any]] | None:
    """(the tsvector searched, `FROM ... WHERE ...` of live memories matching `query`, its parameters)."""
    tsquery = _tsquery(query)
    if tsquery is None:
        return None
    from_item, params = tsquery
    vector = "ts_filter(tsv, '{a}')" if query.own_text_only else "tsv"
    return vector, f"FROM memories, {from_item} WHERE {vector} @@ q AND deleted_at IS NULL", list(params)


def _scope_filters(scope: Scope, prefix: str, where: list[str], params: list[Any]) -> None:
    if scope.threads is not None:
        where.append(f"{prefix}thread = ANY(%s)")
        params.append(list(scope.threads))
    if scope.kinds:
        where.append(f"{prefix}kind = ANY(%s)")
        params.append(list(scope.kinds))
    if scope.since is not None:
        where.append(f"{prefix}created_at >= %s")
        params.append(scope.since)
    if scope.until is not None:
        where.append(f"{prefix}created_at <= %s")
        params.append(scope.until)
    if scope.tags:
        where.append(f"{prefix}tags && %s::text[]")
        params.append(list(scope.tags))


class PgStoreBase:
    """The database (confined to a tenant) and the tenant every role works in."""

    dialect = POSTGRES
    memory_row = staticmethod(_row)  # the shared methods' rows (storage/shapes.py)

    def __init__(self, db: PgDatabase, namespace: str) -> None:
        self.db = db
        self.namespace = namespace

