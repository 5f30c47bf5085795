"""What both stores read the same way: a memory row by column name, and a turn's keyword context.

MEMORY_COLUMNS is made from MemoryRow's own field names, so the SELECT list and the record
cannot drift apart; a backend only says how its dialect stores tags and `pinned`
(SQLite: a JSON list and an integer; PostgreSQL: a text[] and a boolean).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from server import ranking
from server.clock import from_millis
from server.models import CONVERSATION_KIND
from server.storage.dialect import Dialect
from server.storage.records import MemoryRow, Thread
from server.textindex import context_text

MEMORY_FIELDS = tuple(field.name for field in dataclasses.fields(MemoryRow))
MEMORY_COLUMNS = ", ".join(MEMORY_FIELDS)
#: How many values a memory row takes (a dump selects more after them).
MEMORY_COLUMN_COUNT = len(MEMORY_FIELDS)
_TAGS = MEMORY_FIELDS.index("tags")
_PINNED = MEMORY_FIELDS.index("pinned")

THREAD_COLUMNS = "id, title, system_prompt, archived, created_at, last_active_at"


def memory_columns(alias: str) -> str:
    """MEMORY_COLUMNS of a table named `alias` in the query (`m.id, m.thread, ...`)."""
    return ", ".join(f"{alias}.{name}" for name in MEMORY_FIELDS)


def memory_row(values: Sequence[Any], tags: Callable[[Any], tuple[str, ...]]) -> MemoryRow:
    """A row selected as MEMORY_COLUMNS; `tags` reads the dialect's stored tags."""
    values = list(values)
    values[_TAGS] = tags(values[_TAGS])
    values[_PINNED] = bool(values[_PINNED])
    return MemoryRow(*values)


def thread_row(row: Sequence[Any]) -> Thread:
    """A row selected as THREAD_COLUMNS (archived: SQLite's integer, PostgreSQL's boolean)."""
    return Thread(row[0], row[1], row[2], bool(row[3]), row[4], row[5])


def turn_context(
    conn: Any, dialect: Dialect, namespace: str, thread: str, created_at: int, memory_id: int
) -> str | None:
    """The keyword context of a conversation turn: the live turns of its thread just before it.

    Context is up to CONTEXT_PREVIOUS earlier live turns of the same thread, each
    within CONTEXT_MAX_GAP_SECONDS of the next (a new session starts fresh).
    Other kinds are self-contained statements: their neighbours are unrelated
    memories that happen to be written minutes apart, so they get no context
    (the caller asks only for turns).
    """
    previous = conn.execute(
        dialect.sql(
            f"SELECT content, created_at FROM memories WHERE {dialect.in_namespace()}thread = ? AND kind = ? "
            "AND deleted_at IS NULL AND (created_at < ? OR (created_at = ? AND id < ?)) "
            "ORDER BY created_at DESC, id DESC LIMIT ?"
        ),
        (*dialect.namespace_params(namespace), thread, CONVERSATION_KIND, created_at, created_at, memory_id,
         ranking.CONTEXT_PREVIOUS),
    ).fetchall()
    # ranking owns the rule (how many turns, what gap breaks a session)
    rows = list(reversed(previous))  # oldest first, then this memory
    order = [(n, from_millis(at)) for n, (_, at) in enumerate(rows)] + [(len(rows), from_millis(created_at))]
    chain = [rows[n][0] for n in ranking.context_ids(order, len(rows))]
    return context_text(chain) or None
