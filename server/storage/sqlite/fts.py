"""Writing a memory into the FTS5 keyword index: its terms, its conversation context, its scope.

Shared by the store (every write) and the migrations that rebuild the index into a new table, so
both index a memory the same way; kept out of store.py so that the migrations need not import the
store (which imports the migrations' schema constants).
"""

from __future__ import annotations

import hashlib
from typing import Any

from server.models import CONVERSATION_KIND
from server.storage import rows
from server.storage.dialect import SQLITE
from server.storage.protocol import GLOBAL


def scope_token(namespace: str, thread: str) -> str:
    """The word a memory's `scope` column holds in the keyword index: its namespace and thread.

    One token per row (weight 0 in bm25), so `<terms> AND scope:(<thread> OR <global>)` makes
    FTS5 intersect the terms' doclists with the scope's: a search in a thread costs what the
    thread's matches cost, not the store's (docs/design/vec0-index.md). Hex of a hash: any thread
    name becomes one tokenizer-safe word of fixed length; 't' a thread, 'g' the global memories.
    """
    digest = hashlib.sha1(f"{namespace}\x00{thread}".encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return ("g" if thread == GLOBAL else "t") + digest


def turn_context(conn: Any, memory_id: int) -> str | None:
    """The keyword context of a conversation turn: the live turns of its thread just before it;
    None for other kinds.

    The rule is storage/rows.py's, shared with PostgreSQL.
    """
    row = conn.execute("SELECT namespace, thread, created_at, kind FROM memories WHERE id = ?", (memory_id,)).fetchone()
    if row is None or row[3] != CONVERSATION_KIND:
        return None
    namespace, thread, created_at, _ = row
    return rows.turn_context(conn, SQLITE, namespace, thread, created_at, memory_id)


def insert(conn: Any, table: str, memory_id: int, text: str) -> None:
    """Index a memory's terms, its conversation context (turn_context) and its scope."""
    row = conn.execute("SELECT namespace, thread FROM memories WHERE id = ?", (memory_id,)).fetchone()
    scope = scope_token(row[0], row[1]) if row is not None else None
    conn.execute(f"INSERT INTO {table}(rowid, text, context, scope) VALUES (?, ?, ?, ?)",
                 (memory_id, text, turn_context(conn, memory_id), scope))
