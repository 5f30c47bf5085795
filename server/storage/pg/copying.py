"""The PostgreSQL store's copying role: every stored field in and out, ids kept (storage/copy.py, `memvault migrate`).

store.py composes the roles into the Store; the SQL is PostgreSQL's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from server import ranking
from server.models import CONVERSATION_KIND
from server.storage.dialect import POSTGRES
from server.storage.protocol import (
    MemoryDump,
    Original,
    ThreadMessage,
)
from server.storage.rows import MEMORY_COLUMN_COUNT, memory_columns, turn_context

# Weights of ts_rank_cd for labels {D, C, B, A}: own text is A, a turn's context D.
_WEIGHTS = "{%s, 0, 0, 1}" % ranking.CONTEXT_COLUMN_WEIGHT
from server.storage import shapes
from server.storage.pg.common import PgStoreBase, _row


class PgCopying(PgStoreBase):
    # -- copying a namespace between stores (storage/copy.py) ---------------------
    def namespaces(self, conn: Any) -> list[str]:
        """Tenants holding memories, threads, messages or global prompts that this connection sees:
        under row-level security at most its own (listing every tenant needs an administrator)."""
        rows = conn.execute(
            "SELECT tenant FROM memories UNION SELECT tenant FROM threads "
            "UNION SELECT tenant FROM thread_messages UNION SELECT tenant FROM global_prompts ORDER BY 1"
        )
        return [r[0] for r in rows]

    def dump_memories(self, conn: Any, after: int, limit: int) -> list[MemoryDump]:
        """Up to `limit` memories with ids above `after`, in id order, every stored field (see sqlite/store.py)."""
        columns = memory_columns("m")
        rows = conn.execute(
            f"SELECT {columns}, m.user_id, m.agent, m.file_key, m.embed_pending, q.queued_at, "
            "o.content, o.compressed_at, u.memory_id IS NOT NULL FROM memories m "
            "LEFT JOIN daily_log_queue q ON q.tenant = m.tenant AND q.memory_id = m.id "
            "LEFT JOIN memory_originals o ON o.tenant = m.tenant AND o.memory_id = m.id "
            "LEFT JOIN update_checks u ON u.tenant = m.tenant AND u.memory_id = m.id "
            "WHERE m.id > %s ORDER BY m.id LIMIT %s",
            (after, limit),
        ).fetchall()
        n = MEMORY_COLUMN_COUNT
        return [
            MemoryDump(
                **_row(r[:n]).__dict__, user=r[n], agent=r[n + 1], file_key=r[n + 2], queued=bool(r[n + 3]),
                daily_queued_at=r[n + 4], original=None if r[n + 5] is None else Original(r[n + 5], r[n + 6]),
                judge_later=bool(r[n + 7]),
            )
            for r in rows
        ]

    def load_memories(
        self, conn: Any, memories: Sequence[MemoryDump], texts: Sequence[str | None],
        vectors: Mapping[int, np.ndarray],
    ) -> None:
        """Insert dump_memories' rows with their own ids and vectors (see sqlite/store.py); the tenant's id
        counter moves past them. One INSERT per row with its vector: every later UPDATE of a row
        that has a vector is another HNSW insert."""
        if not memories:
            return
        self._next_id(conn, at_least=max(m.id for m in memories))
        sql = (
            "INSERT INTO memories(id, tenant, user_id, agent, thread, content, kind, source, origin, importance, "
            "tags, content_hash, created_at, updated_at, deleted_at, recall_count, last_recalled_at, file_key, "
            "file_line, file_section, pinned, compression, search_text, search_context, embedding, embed_pending) "
            "VALUES (" + ", ".join(["%s"] * 26) + ")"
        )

        def values(m: MemoryDump, text: str | None, context: str | None) -> tuple[Any, ...]:
            vector = vectors.get(m.id)
            return (
                m.id, self.namespace, m.user, m.agent, m.thread, m.content, m.kind, m.source,
                m.origin, m.importance, list(m.tags), m.content_hash, m.created_at, m.updated_at,
                m.deleted_at, m.recall_count, m.last_recalled_at, m.file_key, m.file_line,
                m.file_section, bool(m.pinned), m.compression, text, context,
                None if vector is None else np.ascontiguousarray(np.atleast_2d(vector)[0], dtype=np.float32),
                bool(m.queued),
            )

        # A live turn's context is read from the turns before it, so turns go in one by one, in
        # order, after the rest (which no context reads); each row is written once, vector included.
        pairs = list(zip(memories, texts))
        turns = [(m, t) for m, t in pairs if t is not None and m.kind == CONVERSATION_KIND]
        turn_ids = {m.id for m, _ in turns}
        with conn.cursor() as cur:
            cur.executemany(sql, [values(m, t, None) for m, t in pairs if m.id not in turn_ids])
            for m, text in turns:
                context = turn_context(conn, POSTGRES, self.namespace, m.thread, m.created_at, m.id)
                cur.execute(sql, values(m, text, context))
            cur.executemany(
                "INSERT INTO daily_log_queue(tenant, memory_id, queued_at) VALUES (%s, %s, %s)",
                [(self.namespace, m.id, m.daily_queued_at) for m in memories if m.daily_queued_at is not None],
            )
            cur.executemany(
                "INSERT INTO memory_originals(tenant, memory_id, content, compressed_at) VALUES (%s, %s, %s, %s)",
                [(self.namespace, m.id, m.original.content, m.original.compressed_at)
                 for m in memories if m.original is not None],
            )
            cur.executemany(
                "INSERT INTO update_checks(tenant, memory_id) VALUES (%s, %s)",
                [(self.namespace, m.id) for m in memories if m.judge_later],
            )
        mine = {m.id for m in memories}
        self._write_passages(conn, {m: np.atleast_2d(v) for m, v in vectors.items() if m in mine and np.ndim(v) == 2})

    def ids_taken(self, conn: Any, ids: Sequence[int]) -> set[int]:
        """Which of these ids this tenant already uses (ids are per tenant here)."""
        if not ids:
            return set()
        return {r[0] for r in conn.execute("SELECT id FROM memories WHERE id = ANY(%s)", (list(ids),))}

    def id_high_water(self, conn: Any) -> int:
        row = conn.execute("SELECT value FROM tenant_counters WHERE name = 'memories'").fetchone()
        return row[0] if row else 0

    def raise_id_high_water(self, conn: Any, value: int) -> None:
        if value > 0:
            self._next_id(conn, at_least=value)

    dump_messages = shapes.dump_messages

    def load_messages(self, conn: Any, messages: Sequence[ThreadMessage]) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO thread_messages(tenant, thread, role, content, created_at) VALUES (%s, %s, %s, %s, %s)",
                [(self.namespace, m.thread, m.role, m.content, m.created_at) for m in messages],
            )

    promotions = shapes.promotions
