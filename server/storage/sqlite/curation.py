"""The SQLite store's curation role: what curate_memory and the archive change and read (curation/).

store.py composes the roles into the Store; the SQL is SQLite's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from server.storage import shapes
from server.storage.protocol import (
    MemoryRow,
    Original,
    PromptExport,
    ThreadExport,
)
from server.storage.sqlite.common import SqliteStoreBase, _in


class SqliteCuration(SqliteStoreBase):
    # -- curation (curation/: curator, archive) -----------------------------------
    rows = shapes.rows

    set_superseded = shapes.set_superseded

    set_pinned = shapes.set_pinned

    def originals(self, conn: Any, ids: Sequence[int]) -> dict[int, Original]:
        """Archived original text and compression time of compressed memories."""
        out: dict[int, Original] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            for memory_id, content, at in conn.execute(
                f"SELECT memory_id, content, compressed_at FROM memory_originals WHERE memory_id IN {_in(chunk)}",
                chunk,
            ):
                out[memory_id] = Original(content, at)
        return out

    def _reindex(self, conn: Any, memory_id: int, text: str) -> None:
        """New keyword terms now, a new vector from the backfill (the old one serves meanwhile)."""
        self.fts_delete(conn, memory_id)
        self.fts_insert(conn, memory_id, text)
        conn.execute("INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (?)", (memory_id,))

    def set_compressed(
        self, conn: Any, memory_id: int, content: str, tier: str, original: str | None, now: int, text: str
    ) -> None:
        """Replace the content by its compressed form; `original` is archived on the first compression."""
        if original is not None:
            conn.execute(
                "INSERT INTO memory_originals(memory_id, content, compressed_at) VALUES (?, ?, ?)",
                (memory_id, original, now),
            )
        conn.execute(
            "UPDATE memories SET content = ?, compression = ?, updated_at = ? WHERE id = ?",
            (content, tier, now, memory_id),
        )
        self._reindex(conn, memory_id, text)

    set_restored = shapes.set_restored

    def undelete(self, conn: Any, memory_id: int, now: int, text: str) -> None:
        """Undo soft_delete: back in the keyword index and in vector search."""
        conn.execute("UPDATE memories SET deleted_at = NULL, updated_at = ? WHERE id = ?", (now, memory_id))
        self.fts_insert(conn, memory_id, text)
        if conn.execute("SELECT 1 FROM vector_rows WHERE memory_id = ?", (memory_id,)).fetchone() is None:
            conn.execute("INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (?)", (memory_id,))

    def hard_delete(self, conn: Any, memory_id: int, successor: int | None) -> None:
        """Erase a memory for good. Memories it replaced now point at what replaced it."""
        conn.execute(
            "UPDATE memories SET superseded_by = ? WHERE superseded_by = ? AND namespace = ?",
            (successor, memory_id, self.namespace),
        )
        self.fts_delete(conn, memory_id)
        conn.execute("DELETE FROM vector_rows WHERE memory_id = ?", (memory_id,))
        conn.execute("DELETE FROM promotions WHERE namespace = ? AND memory_id = ?", (self.namespace, memory_id))
        # memory_tags, pending_embeddings, update_checks and memory_originals go by ON DELETE CASCADE.
        conn.execute("DELETE FROM memories WHERE id = ? AND namespace = ?", (memory_id, self.namespace))

    promoted = shapes.promoted

    def record_promotion(self, conn: Any, memory_id: int, section: str, now: int) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO promotions(namespace, memory_id, section, promoted_at) VALUES (?, ?, ?, ?)",
            (self.namespace, memory_id, section, now),
        )

    def stats(self, conn: Any) -> dict[str, Any]:
        ns = (self.namespace,)
        one = lambda sql: conn.execute(sql, ns).fetchone()  # noqa: E731
        # Memories only: the units of the memory files are counted apart (file_units).
        live, deleted, superseded, pinned, compressed, oldest, newest, units = one(
            "SELECT count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL), "
            "count(*) FILTER (WHERE deleted_at IS NOT NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL AND superseded_by IS NOT NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL AND pinned), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL AND compression IS NOT NULL), "
            "min(created_at) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL), "
            "max(created_at) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NOT NULL) "
            "FROM memories WHERE namespace = ?"
        )
        group = lambda col: dict(conn.execute(  # noqa: E731
            f"SELECT {col}, count(*) FROM memories WHERE namespace = ? AND deleted_at IS NULL AND file_key IS NULL "
            "GROUP BY 1 ORDER BY 1", ns
        ).fetchall())
        pending = one(
            "SELECT count(*) FROM pending_embeddings p JOIN memories m ON m.id = p.memory_id WHERE m.namespace = ?"
        )[0]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        return {
            "live": live, "deleted": deleted, "superseded": superseded, "pinned": pinned, "compressed": compressed,
            "oldest": oldest, "newest": newest, "pending_embeddings": pending, "file_units": units,
            "by_kind": group("kind"), "by_thread": group("thread"), "by_compression": group("compression"),
            "database_bytes": page_size * pages,
        }

    def archived_originals(self, conn: Any, thread: str | None = None) -> dict[int, Original]:
        sql = "SELECT o.memory_id, o.content, o.compressed_at FROM memory_originals o JOIN memories m ON m.id = o.memory_id WHERE m.namespace = ?"
        params: list[Any] = [self.namespace]
        if thread is not None:
            sql += " AND m.thread = ?"
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
        """Insert an archived memory with all its fields (its own id when free), queued for a vector."""
        cur = conn.execute(
            "INSERT INTO memories(id, namespace, thread, content, kind, source, origin, importance, tags, content_hash, "
            "created_at, updated_at, deleted_at, superseded_by, recall_count, last_recalled_at, pinned, compression, "
            "file_key, file_line, file_section) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)",
            (
                memory_id, self.namespace, row.thread, row.content, row.kind, row.source, row.origin, row.importance,
                json.dumps(list(row.tags), ensure_ascii=False), row.content_hash, row.created_at, row.updated_at,
                row.deleted_at, row.recall_count, row.last_recalled_at, int(row.pinned), row.compression,
                file_key, row.file_line, row.file_section,
            ),
        )
        new_id = cur.lastrowid
        conn.executemany(
            "INSERT OR IGNORE INTO memory_tags(memory_id, tag) VALUES (?, ?)", [(new_id, t) for t in row.tags]
        )
        if row.deleted_at is None:
            self.fts_insert(conn, new_id, text)
        if original is not None:
            conn.execute(
                "INSERT INTO memory_originals(memory_id, content, compressed_at) VALUES (?, ?, ?)",
                (new_id, original.content, original.compressed_at),
            )
        conn.execute("INSERT INTO pending_embeddings(memory_id) VALUES (?)", (new_id,))
        return new_id

    def put_thread(self, conn: Any, thread: ThreadExport) -> bool:
        """Insert an archived thread unless it exists; True if inserted."""
        cur = conn.execute(
            "INSERT OR IGNORE INTO threads(namespace, id, title, system_prompt, archived, created_at, last_active_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.namespace, thread["id"], thread["title"], thread["system_prompt"], thread["archived"],
             thread["created_at"], thread["last_active_at"]),
        )
        return cur.rowcount == 1

    def import_global_prompt(self, conn: Any, prompt: PromptExport) -> bool:
        cur = conn.execute(
            "INSERT OR IGNORE INTO global_prompts(namespace, name, content, active, priority, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.namespace, prompt["name"], prompt["content"], prompt["active"], prompt["priority"],
             prompt["created_at"], prompt["updated_at"]),
        )
        return cur.rowcount == 1
