"""Writing a memory into the FTS5 keyword index: its terms, its conversation context, its scope.

Shared by the store (every write) and the migrations that rebuild the index into a new table, so
both index a memory the same way; kept out of store.py so that the migrations need not import the
store (which imports the migrations' schema constants).
"""

from __future__ import annotations

import hashlib
from typing import Any

from server import ranking
from server.clock import from_millis
from server.models import CONVERSATION_KIND
from server.storage.protocol import GLOBAL
from server.textindex import context_text


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

    Context is up to CONTEXT_PREVIOUS earlier live turns of the same thread, each
    within CONTEXT_MAX_GAP_SECONDS of the next (a new session starts fresh).
    Other kinds are self-contained statements: their neighbours are unrelated
    memories that happen to be written minutes apart, so they get no context.
    """
    row = conn.execute("SELECT namespace, thread, created_at, kind FROM memories WHERE id = ?", (memory_id,)).fetchone()
    if row is None or row[3] != CONVERSATION_KIND:
        return None
    namespace, thread, created_at, _ = row
    previous = conn.execute(
        "SELECT content, created_at FROM memories WHERE namespace = ? AND thread = ? AND kind = ? "
        "AND deleted_at IS NULL AND (created_at < ? OR (created_at = ? AND id < ?)) "
        "ORDER BY created_at DESC, id DESC LIMIT ?",
        (namespace, thread, CONVERSATION_KIND, created_at, created_at, memory_id, ranking.CONTEXT_PREVIOUS),
    ).fetchall()
    # ranking owns the rule (how many turns, what gap breaks a session)
    rows = list(reversed(previous))  # oldest first, then this memory
    order = [(n, from_millis(at)) for n, (_, at) in enumerate(rows)] + [(len(rows), from_millis(created_at))]
    chain = [rows[n][0] for n in ranking.context_ids(order, len(rows))]
    return context_text(chain) or None


def insert(conn: Any, table: str, memory_id: int, text: str) -> None:
    """Index a memory's terms, its conversation context (turn_context) and its scope."""
    row = conn.execute("SELECT namespace, thread FROM memories WHERE id = ?", (memory_id,)).fetchone()
    scope = scope_token(row[0], row[1]) if row is not None else None
    conn.execute(f"INSERT INTO {table}(rowid, text, context, scope) VALUES (?, ?, ?, ?)",
                 (memory_id, text, turn_context(conn, memory_id), scope))
