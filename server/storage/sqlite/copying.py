"""The SQLite store's copying role: every stored field in and out, ids kept (storage/copy.py, `memvault migrate`).

store.py composes the roles into the Store; the SQL is SQLite's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from server.storage import shapes
from server.storage.protocol import (
    MemoryDump,
    Original,
    ThreadMessage,
)
from server.storage.rows import MEMORY_COLUMN_COUNT, memory_columns
from server.storage.sqlite.common import SqliteStoreBase, _in, _memory_row

if TYPE_CHECKING:  # NumPy and the vector modules load with the first vector operation: a hook
    import numpy as np  # process answering by keyword never imports them (bench/hooks.py)


class SqliteCopying(SqliteStoreBase):
    # -- copying a namespace between stores (storage/copy.py) ---------------------
    def namespaces(self, conn: Any) -> list[str]:
        """Namespaces of this file that hold memories, threads, messages or global prompts."""
        rows = conn.execute(
            "SELECT namespace FROM memories UNION SELECT namespace FROM threads "
            "UNION SELECT namespace FROM thread_messages UNION SELECT namespace FROM global_prompts ORDER BY 1"
        )
        return [r[0] for r in rows]

    def dump_memories(self, conn: Any, after: int, limit: int) -> list[MemoryDump]:
        """Up to `limit` memories of the namespace with ids above `after`, in id order, every stored
        field: the row, who wrote it, its file key, whether a vector is queued, its daily-log queue
        time and its archived original — forgotten ones too."""
        columns = memory_columns("m")
        rows = conn.execute(
            f"SELECT {columns}, m.user_id, m.agent, m.file_key, p.memory_id IS NOT NULL, q.queued_at, "
            "o.content, o.compressed_at, u.memory_id IS NOT NULL FROM memories m "
            "LEFT JOIN pending_embeddings p ON p.memory_id = m.id LEFT JOIN daily_log_queue q ON q.memory_id = m.id "
            "LEFT JOIN memory_originals o ON o.memory_id = m.id "
            "LEFT JOIN update_checks u ON u.memory_id = m.id "
            "WHERE m.namespace = ? AND m.id > ? ORDER BY m.id LIMIT ?",
            (self.namespace, after, limit),
        ).fetchall()
        n = MEMORY_COLUMN_COUNT
        return [
            MemoryDump(
                **_memory_row(r[:n]).__dict__, user=r[n], agent=r[n + 1], file_key=r[n + 2], queued=bool(r[n + 3]),
                daily_queued_at=r[n + 4], original=None if r[n + 5] is None else Original(r[n + 5], r[n + 6]),
                judge_later=bool(r[n + 7]),
            )
            for r in rows
        ]

    def load_memories(
        self, conn: Any, memories: Sequence[MemoryDump], texts: Sequence[str | None],
        vectors: Mapping[int, np.ndarray],
    ) -> None:
        """Insert dump_memories' rows with their own ids, tags, keyword text (`texts`, None for a
        forgotten one), daily-log queue, original, vector (as given, never re-embedded) and place
        in the embedding queue. superseded_by is left empty: link_superseded sets it once its
        target exists."""
        conn.executemany(
            "INSERT INTO memories(id, namespace, thread, content, kind, source, origin, importance, tags, "
            "content_hash, created_at, updated_at, deleted_at, recall_count, last_recalled_at, file_key, file_line, "
            "file_section, pinned, compression, user_id, agent) VALUES (" + ", ".join("?" * 22) + ")",
            [
                (m.id, self.namespace, m.thread, m.content, m.kind, m.source, m.origin,
                 m.importance, json.dumps(list(m.tags), ensure_ascii=False), m.content_hash, m.created_at,
                 m.updated_at, m.deleted_at, m.recall_count, m.last_recalled_at, m.file_key,
                 m.file_line, m.file_section, int(m.pinned), m.compression, m.user, m.agent)
                for m in memories
            ],
        )
        conn.executemany(
            "INSERT OR IGNORE INTO memory_tags(memory_id, tag) VALUES (?, ?)",
            [(m.id, t) for m in memories for t in m.tags],
        )
        for m, text in zip(memories, texts):
            if text is not None:
                self.fts_insert(conn, m.id, text)
        # store_vectors only takes queued memories: queue all, store, then leave queued what was.
        conn.executemany("INSERT INTO pending_embeddings(memory_id) VALUES (?)", [(m.id,) for m in memories])
        mine = {m.id for m in memories}
        self.store_vectors({i: v for i, v in vectors.items() if i in mine})
        conn.executemany(
            "INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (?)", [(m.id,) for m in memories if m.queued]
        )
        conn.executemany("DELETE FROM pending_embeddings WHERE memory_id = ?", [(m.id,) for m in memories if not m.queued])
        conn.executemany(
            "INSERT INTO daily_log_queue(memory_id, queued_at) VALUES (?, ?)",
            [(m.id, m.daily_queued_at) for m in memories if m.daily_queued_at is not None],
        )
        conn.executemany(
            "INSERT INTO memory_originals(memory_id, content, compressed_at) VALUES (?, ?, ?)",
            [(m.id, m.original.content, m.original.compressed_at) for m in memories if m.original is not None],
        )
        conn.executemany(
            "INSERT INTO update_checks(memory_id) VALUES (?)", [(m.id,) for m in memories if m.judge_later]
        )

    def ids_taken(self, conn: Any, ids: Sequence[int]) -> set[int]:
        """Which of these ids a memory of this namespace could not be inserted with (SQLite numbers
        memories across the whole file, so another namespace's id counts)."""
        out: set[int] = set()
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            out.update(r[0] for r in conn.execute(f"SELECT id FROM memories WHERE id IN {_in(chunk)}", chunk))
        return out

    def id_high_water(self, conn: Any) -> int:
        """The highest memory id ever handed out (purged ids included; for the whole file)."""
        row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'memories'").fetchone()
        return row[0] if row else 0

    def raise_id_high_water(self, conn: Any, value: int) -> None:
        """Never hand out an id up to `value` (a copied store keeps its purged ids retired)."""
        raised = conn.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'memories'", (value,))
        if raised.rowcount == 0:
            conn.execute("INSERT INTO sqlite_sequence(name, seq) VALUES ('memories', ?)", (value,))

    dump_messages = shapes.dump_messages

    def load_messages(self, conn: Any, messages: Sequence[ThreadMessage]) -> None:
        """Append dump_messages' rows in order, with their times (ids are new)."""
        conn.executemany(
            "INSERT INTO thread_messages(namespace, thread, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
            [(self.namespace, m.thread, m.role, m.content, m.created_at) for m in messages],
        )

    promotions = shapes.promotions
