"""The PostgreSQL store's memories role: the memories themselves, their key/value settings (meta) and the memory files' units.

store.py composes the roles into the Store; the SQL is PostgreSQL's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from server import ranking
from server.models import CONVERSATION_KIND
from server.storage.dialect import POSTGRES
from server.storage.protocol import (
    MemoryRow,
    NewMemory,
)
from server.storage.rows import MEMORY_COLUMNS, memory_columns, turn_context

# Weights of ts_rank_cd for labels {D, C, B, A}: own text is A, a turn's context D.
_WEIGHTS = "{%s, 0, 0, 1}" % ranking.CONTEXT_COLUMN_WEIGHT
from server.storage import shapes
from server.storage.pg.common import PgStoreBase, _array, _row


class PgMemories(PgStoreBase):
    # -- meta ---------------------------------------------------------------------
    get_meta = shapes.get_meta

    def set_meta(self, conn: Any, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO meta(tenant, key, value) VALUES (%s, %s, %s) "
            "ON CONFLICT (tenant, key) DO UPDATE SET value = excluded.value",
            (self.namespace, key, value),
        )

    meta_items = shapes.meta_items

    # -- memories -----------------------------------------------------------------
    find_live = shapes.find_live

    def insert_memory(self, conn: Any, new: NewMemory) -> int:
        """Insert the memory and its keyword text; embed_pending queues it for the backfill."""
        turn = new.kind == CONVERSATION_KIND
        (memory_id,) = conn.execute(
            "INSERT INTO memories(id, tenant, user_id, agent, thread, content, kind, source, origin, importance, tags, "
            "content_hash, created_at, updated_at, file_key, file_line, file_section, pinned, search_text) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (
                self._next_id(conn), self.namespace, new.user, new.agent, new.thread, new.content, new.kind,
                new.source, new.origin, new.importance, list(new.tags), new.content_hash, new.created_at,
                new.updated_at, new.file_key, new.file_line, new.file_section, bool(new.pinned),
                None if turn else new.index_text,  # only a turn needs its neighbours read for context
            ),
        ).fetchone()
        if turn:
            self.fts_insert(conn, memory_id, new.index_text)
        if new.log_daily:
            conn.execute(
                "INSERT INTO daily_log_queue(tenant, memory_id, queued_at) VALUES (%s, %s, %s)",
                (self.namespace, memory_id, new.updated_at),
            )
        if new.judge_later:
            conn.execute("INSERT INTO update_checks(tenant, memory_id) VALUES (%s, %s)", (self.namespace, memory_id))
        return memory_id

    def _next_id(self, conn: Any, at_least: int | None = None) -> int:
        """The tenant's next memory id, or `at_least` itself (an archived id) with the counter moved past it.

        Like SQLite's AUTOINCREMENT, per tenant: never an id handed out before. The
        counter row is locked until commit, so concurrent writers cannot take one id twice.
        """
        if at_least is None:
            sql = (
                "INSERT INTO tenant_counters(tenant, name, value) VALUES (%s, 'memories', 1) "
                "ON CONFLICT (tenant, name) DO UPDATE SET value = tenant_counters.value + 1 RETURNING value"
            )
            return conn.execute(sql, (self.namespace,)).fetchone()[0]
        conn.execute(
            "INSERT INTO tenant_counters(tenant, name, value) VALUES (%s, 'memories', %s) "
            "ON CONFLICT (tenant, name) DO UPDATE SET value = greatest(tenant_counters.value, excluded.value)",
            (self.namespace, at_least),
        )
        return at_least

    def fts_insert(self, conn: Any, memory_id: int, text: str) -> None:
        """Index a memory's terms; a conversation turn also gets the turns just before it (see store.py)."""
        row = conn.execute("SELECT thread, created_at, kind FROM memories WHERE id = %s", (memory_id,)).fetchone()
        context = None
        if row is not None and row[2] == CONVERSATION_KIND:
            context = turn_context(conn, POSTGRES, self.namespace, row[0], row[1], memory_id)
        conn.execute(
            "UPDATE memories SET search_text = %s, search_context = %s WHERE id = %s", (text, context, memory_id)
        )

    def fts_delete(self, conn: Any, memory_id: int) -> None:
        conn.execute("UPDATE memories SET search_text = NULL, search_context = NULL WHERE id = %s", (memory_id,))

    def get(self, ids: Iterable[int], include_deleted: bool = True) -> dict[int, MemoryRow]:
        ids = list(ids)
        if not ids:
            return {}
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ANY(%s)"
        if not include_deleted:
            sql += " AND deleted_at IS NULL"
        with self.db.read() as conn:
            return {r[0]: _row(r) for r in conn.execute(sql, (ids,))}

    recent_memories = shapes.recent_memories

    nth_newest_time = shapes.nth_newest_time

    memory_state = shapes.memory_state

    soft_delete = shapes.soft_delete

    link_superseded = shapes.link_superseded

    def mark_recalled(self, conn: Any, ids: Sequence[int], now: int) -> None:
        if ids:
            conn.execute(
                "UPDATE memories SET recall_count = recall_count + 1, last_recalled_at = %s WHERE id = ANY(%s)",
                (now, list(ids)),
            )

    def count(self) -> dict[str, int]:
        with self.db.read() as conn:
            live, deleted, units, pending = conn.execute(
                "SELECT count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL), "
                "count(*) FILTER (WHERE deleted_at IS NOT NULL), "
                "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NOT NULL), "
                "count(*) FILTER (WHERE embed_pending) FROM memories"
            ).fetchone()
        return {"live": live, "deleted": deleted, "file_units": units, "pending_embeddings": pending}

    def vectors(self, conn: Any, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Each memory's vectors as a (passages x dims) matrix: memories.embedding, then its passages."""
        if not ids:
            return {}
        rows = conn.execute(
            "SELECT id, embedding FROM memories WHERE id = ANY(%s) AND embedding IS NOT NULL", (list(ids),),
            binary=True,  # pgvector's binary form is the float32 bytes; its text form is parsed number by number
        ).fetchall()
        out = {r[0]: [_array(r[1])] for r in rows}
        for memory_id, embedding in conn.execute(
            "SELECT memory_id, embedding FROM memory_passages WHERE memory_id = ANY(%s) ORDER BY memory_id, passage",
            (list(out),), binary=True,
        ):
            out[memory_id].append(_array(embedding))
        return {m: np.stack(v) for m, v in out.items()}

    def _write_passages(self, conn: Any, vectors: Mapping[int, np.ndarray]) -> None:
        """Replace the passages (rows 1..) of these memories; row 0 is memories.embedding."""
        with conn.cursor() as cur:
            cur.execute("DELETE FROM memory_passages WHERE memory_id = ANY(%s)", (list(vectors),))
            cur.executemany(
                "INSERT INTO memory_passages(tenant, memory_id, passage, embedding) VALUES (%s, %s, %s, %s)",
                [(self.namespace, m, p, np.ascontiguousarray(row, dtype=np.float32))
                 for m, matrix in vectors.items() for p, row in enumerate(matrix) if p > 0],
            )

    unqueue_daily = shapes.unqueue_daily

    def daily_backlog(self, queued_before: int, limit: int = 500) -> list[MemoryRow]:
        columns = memory_columns("m")
        with self.db.read() as conn:
            rows = conn.execute(
                # The queue first (usually empty, but full of dead rows between vacuums): joined the
                # other way round, a fresh table without statistics got a nested loop over memories.
                "WITH q AS MATERIALIZED (SELECT memory_id FROM daily_log_queue WHERE queued_at <= %s "
                f"ORDER BY memory_id LIMIT %s) SELECT {columns} FROM q JOIN memories m ON m.id = q.memory_id "
                "ORDER BY q.memory_id",
                (queued_before, limit),
            ).fetchall()
        return [_row(r) for r in rows]

    # -- memory files -------------------------------------------------------------
    file_units = shapes.file_units

    def file_sources(self, conn: Any) -> list[str]:
        rows = conn.execute("SELECT DISTINCT source FROM memories WHERE file_key IS NOT NULL").fetchall()
        return [r[0] for r in rows]

    move_file_unit = shapes.move_file_unit

    def delete_derived(self, conn: Any, memory_id: int) -> None:
        conn.execute("DELETE FROM memories WHERE id = %s AND file_key IS NOT NULL", (memory_id,))
