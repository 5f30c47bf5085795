"""The PostgreSQL store's curation role: what curate_memory and the archive change and read (curation/).

store.py composes the roles into the Store; the SQL is PostgreSQL's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server import ranking
from server.storage.protocol import (
    MemoryRow,
    Original,
    PromptExport,
    ThreadExport,
)

# Weights of ts_rank_cd for labels {D, C, B, A}: own text is A, a turn's context D.
_WEIGHTS = "{%s, 0, 0, 1}" % ranking.CONTEXT_COLUMN_WEIGHT
from server.storage import shapes
from server.storage.pg.common import PgStoreBase


class PgCuration(PgStoreBase):
    # -- curation (curation/: curator, archive) -----------------------------------
    rows = shapes.rows

    set_superseded = shapes.set_superseded

    set_pinned = shapes.set_pinned

    def originals(self, conn: Any, ids: Sequence[int]) -> dict[int, Original]:
        if not ids:
            return {}
        rows = conn.execute(
            "SELECT memory_id, content, compressed_at FROM memory_originals WHERE memory_id = ANY(%s)", (list(ids),)
        )
        return {r[0]: Original(r[1], r[2]) for r in rows}

    def _reindex(self, conn: Any, memory_id: int, text: str) -> None:
        """New keyword terms now, a new vector from the backfill (the old one serves meanwhile)."""
        self.fts_insert(conn, memory_id, text)
        conn.execute("UPDATE memories SET embed_pending = true WHERE id = %s", (memory_id,))

    def set_compressed(
        self, conn: Any, memory_id: int, content: str, tier: str, original: str | None, now: int, text: str
    ) -> None:
        if original is not None:
            conn.execute(
                "INSERT INTO memory_originals(tenant, memory_id, content, compressed_at) VALUES (%s, %s, %s, %s)",
                (self.namespace, memory_id, original, now),
            )
        conn.execute(
            "UPDATE memories SET content = %s, compression = %s, updated_at = %s WHERE id = %s",
            (content, tier, now, memory_id),
        )
        self._reindex(conn, memory_id, text)

    set_restored = shapes.set_restored

    def undelete(self, conn: Any, memory_id: int, now: int, text: str) -> None:
        conn.execute("UPDATE memories SET deleted_at = NULL, updated_at = %s WHERE id = %s", (now, memory_id))
        self.fts_insert(conn, memory_id, text)
        conn.execute("UPDATE memories SET embed_pending = true WHERE id = %s AND embedding IS NULL", (memory_id,))

    def hard_delete(self, conn: Any, memory_id: int, successor: int | None) -> None:
        conn.execute("UPDATE memories SET superseded_by = %s WHERE superseded_by = %s", (successor, memory_id))
        conn.execute("DELETE FROM promotions WHERE memory_id = %s", (memory_id,))
        # daily_log_queue, update_checks and memory_originals go by ON DELETE CASCADE; the vector is a column.
        conn.execute("DELETE FROM memories WHERE id = %s", (memory_id,))

    promoted = shapes.promoted

    def record_promotion(self, conn: Any, memory_id: int, section: str, now: int) -> None:
        conn.execute(
            "INSERT INTO promotions(tenant, memory_id, section, promoted_at) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (self.namespace, memory_id, section, now),
        )

    def stats(self, conn: Any) -> dict[str, Any]:
        one = lambda sql: conn.execute(sql).fetchone()  # noqa: E731
        # Memories only: the units of the memory files are counted apart (file_units).
        live, deleted, superseded, pinned, compressed, oldest, newest, pending, units = one(
            "SELECT count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL), "
            "count(*) FILTER (WHERE deleted_at IS NOT NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL AND superseded_by IS NOT NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL AND pinned), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL AND compression IS NOT NULL), "
            "min(created_at) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL), "
            "max(created_at) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL), "
            "count(*) FILTER (WHERE embed_pending), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NOT NULL) FROM memories"
        )
        group = lambda col: dict(conn.execute(  # noqa: E731
            f"SELECT {col}, count(*) FROM memories WHERE deleted_at IS NULL AND file_key IS NULL GROUP BY 1 ORDER BY 1"
        ).fetchall())
        return {
            "live": live, "deleted": deleted, "superseded": superseded, "pinned": pinned, "compressed": compressed,
            "oldest": oldest, "newest": newest, "pending_embeddings": pending, "file_units": units,
            "by_kind": group("kind"), "by_thread": group("thread"), "by_compression": group("compression"),
            # The whole database (every tenant): PostgreSQL has no per-tenant size.
            "database_bytes": one("SELECT pg_database_size(current_database())")[0],
        }

    def archived_originals(self, conn: Any, thread: str | None = None) -> dict[int, Original]:
        sql = (
            "SELECT o.memory_id, o.content, o.compressed_at FROM memory_originals o "
            "JOIN memories m ON m.tenant = o.tenant AND m.id = o.memory_id"
        )
        params: list[Any] = []
        if thread is not None:
            sql += " WHERE m.thread = %s"
            params.append(thread)
        return {r[0]: Original(r[1], r[2]) for r in conn.execute(sql, params)}

    threads = shapes.threads

    export_global_prompts = shapes.export_global_prompts

    find_identity = shapes.find_identity

    id_taken = shapes.id_taken

    def insert_archived(
        self, conn: Any, memory_id: int | None, row: MemoryRow, original: Original | None, text: str,
        file_key: str | None = None,
    ) -> int:
        columns = (
            "tenant, thread, content, kind, source, origin, importance, tags, content_hash, created_at, updated_at, "
            "deleted_at, superseded_by, recall_count, last_recalled_at, pinned, compression, file_key, file_line, "
            "file_section"
        )
        values: list[Any] = [
            self.namespace, row.thread, row.content, row.kind, row.source, row.origin, row.importance,
            list(row.tags), row.content_hash, row.created_at, row.updated_at, row.deleted_at, None,
            row.recall_count, row.last_recalled_at, bool(row.pinned), row.compression, file_key, row.file_line,
            row.file_section,
        ]
        columns = "id, " + columns
        values.insert(0, self._next_id(conn, at_least=memory_id))
        marks = ", ".join(["%s"] * len(values))
        (new_id,) = conn.execute(
            f"INSERT INTO memories({columns}) VALUES ({marks}) RETURNING id", values
        ).fetchone()
        if row.deleted_at is None:
            self.fts_insert(conn, new_id, text)
        if original is not None:
            conn.execute(
                "INSERT INTO memory_originals(tenant, memory_id, content, compressed_at) VALUES (%s, %s, %s, %s)",
                (self.namespace, new_id, original.content, original.compressed_at),
            )
        return new_id

    def put_thread(self, conn: Any, thread: ThreadExport) -> bool:
        cur = conn.execute(
            "INSERT INTO threads(tenant, id, title, system_prompt, archived, created_at, last_active_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (self.namespace, thread["id"], thread["title"], thread["system_prompt"], bool(thread["archived"]),
             thread["created_at"], thread["last_active_at"]),
        )
        return cur.rowcount == 1

    def import_global_prompt(self, conn: Any, prompt: PromptExport) -> bool:
        cur = conn.execute(
            "INSERT INTO global_prompts(tenant, name, content, active, priority, created_at, updated_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (self.namespace, prompt["name"], prompt["content"], bool(prompt["active"]), prompt["priority"],
             prompt["created_at"], prompt["updated_at"]),
        )
        return cur.rowcount == 1
