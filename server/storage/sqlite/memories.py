"""The SQLite store's memories role: the memories themselves, their key/value settings (meta) and the memory files' units.

store.py composes the roles into the Store; the SQL is SQLite's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from server.storage import shapes
from server.storage.protocol import (
    MemoryRow,
    NewMemory,
)
from server.storage.rows import MEMORY_COLUMNS, memory_columns
from server.storage.sqlite import fts, impacts
from server.storage.sqlite.common import SqliteStoreBase, _in, _memory_row

if TYPE_CHECKING:  # NumPy and the vector modules load with the first vector operation: a hook
    import numpy as np  # process answering by keyword never imports them (bench/hooks.py)


class SqliteMemories(SqliteStoreBase):
    # -- meta ---------------------------------------------------------------------
    get_meta = shapes.get_meta

    def set_meta(self, conn: Any, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    meta_items = shapes.meta_items

    # -- memories -----------------------------------------------------------------
    find_live = shapes.find_live

    def insert_memory(self, conn: Any, new: NewMemory) -> int:
        """Insert the memory, its tags and keyword terms; its vector is queued for the backfill."""
        cur = conn.execute(
            "INSERT INTO memories(namespace, thread, content, kind, source, origin, importance, tags, "
            "content_hash, created_at, updated_at, file_key, file_line, file_section, pinned, user_id, agent) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.namespace,
                new.thread,
                new.content,
                new.kind,
                new.source,
                new.origin,
                new.importance,
                json.dumps(list(new.tags), ensure_ascii=False),
                new.content_hash,
                new.created_at,
                new.updated_at,
                new.file_key,
                new.file_line,
                new.file_section,
                int(new.pinned),
                new.user,
                new.agent,
            ),
        )
        memory_id = cur.lastrowid
        conn.executemany(
            "INSERT OR IGNORE INTO memory_tags(memory_id, tag) VALUES (?, ?)", [(memory_id, t) for t in new.tags]
        )
        self.fts_insert(conn, memory_id, new.index_text)
        conn.execute("INSERT INTO pending_embeddings(memory_id) VALUES (?)", (memory_id,))
        if new.judge_later:
            conn.execute("INSERT INTO update_checks(memory_id) VALUES (?)", (memory_id,))
        if new.log_daily:
            conn.execute("INSERT INTO daily_log_queue(memory_id, queued_at) VALUES (?, ?)", (memory_id, new.updated_at))
        return memory_id

    @staticmethod
    def fts_writer(table: str) -> Callable[[Any, int, str], None]:
        """fts_insert into another table of the same columns (the migration that rebuilds the index)."""

        def write(conn: Any, memory_id: int, text: str) -> None:
            fts.insert(conn, table, memory_id, text)

        return write

    def fts_insert(self, conn: Any, memory_id: int, text: str) -> None:
        fts.insert(conn, "memory_fts", memory_id, text)
        impacts.touch(conn, memory_id)  # indexed again under an old id: keyword impact lists must score it

    def fts_delete(self, conn: Any, memory_id: int) -> None:
        conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (memory_id,))

    def get(self, ids: Iterable[int], include_deleted: bool = True) -> dict[int, MemoryRow]:
        ids = list(ids)
        if not ids:
            return {}
        out: dict[int, MemoryRow] = {}
        with self.db.read() as conn:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                # `+namespace`: without ANALYZE statistics (a new store) SQLite would walk the
                # namespace's index (every memory) instead of looking up these ids.
                sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE +namespace = ? AND id IN {_in(chunk)}"
                if not include_deleted:
                    sql += " AND deleted_at IS NULL"
                for row in conn.execute(sql, (self.namespace, *chunk)):
                    out[row[0]] = _memory_row(row)
        return out

    recent_memories = shapes.recent_memories

    nth_newest_time = shapes.nth_newest_time

    memory_state = shapes.memory_state

    soft_delete = shapes.soft_delete
        # The vector stays (undelete reuses it); vector_changes takes it out of search.

    link_superseded = shapes.link_superseded

    def mark_recalled(self, conn: Any, ids: Sequence[int], now: int) -> None:
        """Count a recall of these memories: the retention score weighs how often they are used."""
        if ids:
            conn.execute(
                f"UPDATE memories SET recall_count = recall_count + 1, last_recalled_at = ? WHERE id IN {_in(ids)}",
                (now, *ids),
            )

    def count(self) -> dict[str, int]:
        """Live and forgotten memories, the memory files' units (apart: they are the files' text, not
        memories anyone stored), and what still waits for a vector (both kinds)."""
        with self.db.read() as conn:
            live, deleted, units = conn.execute(
                "SELECT count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NULL), "
                "count(*) FILTER (WHERE deleted_at IS NOT NULL), "
                "count(*) FILTER (WHERE deleted_at IS NULL AND file_key IS NOT NULL) FROM memories WHERE namespace = ?",
                (self.namespace,),
            ).fetchone()
            pending = conn.execute(
                "SELECT count(*) FROM pending_embeddings p JOIN memories m ON m.id = p.memory_id WHERE m.namespace = ?",
                (self.namespace,),
            ).fetchone()[0]
        return {"live": live, "deleted": deleted, "file_units": units, "pending_embeddings": pending}

    def vectors(self, conn: Any, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Each memory's vectors as a (passages x dims) matrix, from vec0 (one lookup per row)."""
        return self._vectors.vec0_rows(conn, list(ids))

    unqueue_daily = shapes.unqueue_daily

    def daily_backlog(self, queued_before: int, limit: int = 500) -> list[MemoryRow]:
        """Memories of this namespace whose daily-log line was never written (oldest first)."""
        with self.db.read() as conn:
            rows = conn.execute(
                # CROSS JOIN keeps SQLite from walking every memory of the namespace to probe the
                # (nearly always empty) queue: 4 ms per remember at 20k memories, 0.01 ms this way.
                f"SELECT {memory_columns('m')} FROM daily_log_queue q "
                "CROSS JOIN memories m ON m.id = q.memory_id WHERE m.namespace = ? AND q.queued_at <= ? "
                "ORDER BY q.memory_id LIMIT ?",
                (self.namespace, queued_before, limit),
            ).fetchall()
        return [_memory_row(r) for r in rows]

    # -- memory files -------------------------------------------------------------
    file_units = shapes.file_units

    def file_sources(self, conn: Any) -> list[str]:
        rows = conn.execute(
            "SELECT DISTINCT source FROM memories WHERE namespace = ? AND file_key IS NOT NULL", (self.namespace,)
        ).fetchall()
        return [r[0] for r in rows]

    move_file_unit = shapes.move_file_unit

    def delete_derived(self, conn: Any, memory_id: int) -> None:
        """Remove a memory derived from a file (the file is its record) with its index rows."""
        self.fts_delete(conn, memory_id)
        conn.execute("DELETE FROM vector_rows WHERE memory_id = ?", (memory_id,))  # its vec0 rows go too (trigger)
        conn.execute("DELETE FROM memories WHERE id = ? AND namespace = ? AND file_key IS NOT NULL", (memory_id, self.namespace))
