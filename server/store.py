"""The only module that writes SQL: memories, threads, tags, vectors and the keyword index.

Every query is confined to one namespace (`Store.namespace`), the isolation unit
above threads. Threads are stored as text, '' meaning a global memory.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from server.db import Database

GLOBAL = ""

MEMORY_COLUMNS = (
    "id, thread, content, kind, source, origin, importance, tags, content_hash, "
    "created_at, updated_at, deleted_at, superseded_by, recall_count, last_recalled_at"
)


@dataclass(frozen=True)
class MemoryRow:
    id: int
    thread: str
    content: str
    kind: str
    source: str
    origin: str | None
    importance: float
    tags: tuple[str, ...]
    content_hash: str
    created_at: int
    updated_at: int
    deleted_at: int | None
    superseded_by: int | None
    recall_count: int
    last_recalled_at: int | None

    @classmethod
    def from_sql(cls, row: Sequence[Any]) -> MemoryRow:
        values = list(row)
        values[7] = tuple(json.loads(values[7]))
        return cls(*values)


@dataclass(frozen=True)
class NewMemory:
    thread: str
    content: str
    kind: str
    source: str
    origin: str | None
    importance: float
    tags: tuple[str, ...]
    content_hash: str
    created_at: int
    updated_at: int
    index_text: str


@dataclass(frozen=True)
class Scope:
    """Which memories a search may return. `threads=None` means every thread."""

    threads: tuple[str, ...] | None = None
    kinds: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    since: int | None = None
    until: int | None = None


@dataclass(frozen=True)
class IndexDrift:
    """Where the keyword index, the vectors or the embedding queue disagree with `memories`.

    Every write keeps them in step inside one transaction, so drift means a store
    edited by hand, restored from a partial copy, or written by a buggy version.
    """

    missing_text: tuple[int, ...] = ()  # live memories without a keyword-index row
    stale_text: tuple[int, ...] = ()  # keyword-index rows of forgotten or missing memories
    unqueued: tuple[int, ...] = ()  # live memories with neither a vector nor a queued embedding
    orphan_vectors: tuple[int, ...] = ()  # vectors whose memory is gone
    wrong_vector_flags: tuple[int, ...] = ()  # vectors whose deleted flag disagrees with the memory
    orphan_queue: tuple[int, ...] = ()  # queued embeddings whose memory is gone

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    def describe(self) -> str:
        parts = []
        for f in fields(self):
            ids = getattr(self, f.name)
            if ids:
                shown = ", ".join(map(str, ids[:10])) + (", ..." if len(ids) > 10 else "")
                parts.append(f"{f.name.replace('_', ' ')}: {len(ids)} (ids {shown})")
        return "; ".join(parts) or "none"


def _in(values: Sequence[Any]) -> str:
    return "(" + ",".join("?" * len(values)) + ")"


class Store:
    def __init__(self, db: Database, namespace: str) -> None:
        self.db = db
        self.namespace = namespace

    # -- meta ---------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, conn: Any, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- threads ------------------------------------------------------------
    def touch_thread(self, conn: Any, thread: str, now: int) -> None:
        if thread == GLOBAL:
            return
        conn.execute(
            "INSERT INTO threads(namespace, id, created_at, last_active_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(namespace, id) DO UPDATE SET last_active_at = max(last_active_at, excluded.last_active_at)",
            (self.namespace, thread, now, now),
        )

    # -- memories -----------------------------------------------------------
    def find_live(self, conn: Any, thread: str, content_hash: str) -> int | None:
        row = conn.execute(
            "SELECT id FROM memories WHERE namespace = ? AND thread = ? AND content_hash = ? AND deleted_at IS NULL",
            (self.namespace, thread, content_hash),
        ).fetchone()
        return row[0] if row else None

    def insert_memory(self, conn: Any, new: NewMemory) -> int:
        """Insert the memory, its tags and keyword terms; its vector is queued for the backfill."""
        cur = conn.execute(
            "INSERT INTO memories(namespace, thread, content, kind, source, origin, importance, tags, "
            "content_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            ),
        )
        memory_id = cur.lastrowid
        conn.executemany(
            "INSERT OR IGNORE INTO memory_tags(memory_id, tag) VALUES (?, ?)", [(memory_id, t) for t in new.tags]
        )
        conn.execute("INSERT INTO memory_fts(rowid, text) VALUES (?, ?)", (memory_id, new.index_text))
        conn.execute("INSERT INTO pending_embeddings(memory_id) VALUES (?)", (memory_id,))
        return memory_id

    def get(self, ids: Iterable[int], include_deleted: bool = True) -> dict[int, MemoryRow]:
        ids = list(ids)
        if not ids:
            return {}
        out: dict[int, MemoryRow] = {}
        with self.db.read() as conn:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE namespace = ? AND id IN {_in(chunk)}"
                if not include_deleted:
                    sql += " AND deleted_at IS NULL"
                for row in conn.execute(sql, (self.namespace, *chunk)):
                    out[row[0]] = MemoryRow.from_sql(row)
        return out

    def soft_delete(self, conn: Any, memory_id: int, now: int) -> None:
        conn.execute("UPDATE memories SET deleted_at = ?, updated_at = ? WHERE id = ?", (now, now, memory_id))
        conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (memory_id,))
        conn.execute("UPDATE memory_vectors SET deleted = 1 WHERE memory_id = ?", (memory_id,))

    def count(self) -> dict[str, int]:
        with self.db.read() as conn:
            live, deleted = conn.execute(
                "SELECT count(*) FILTER (WHERE deleted_at IS NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL) "
                "FROM memories WHERE namespace = ?",
                (self.namespace,),
            ).fetchone()
            pending = conn.execute(
                "SELECT count(*) FROM pending_embeddings p JOIN memories m ON m.id = p.memory_id WHERE m.namespace = ?",
                (self.namespace,),
            ).fetchone()[0]
        return {"live": live, "deleted": deleted, "pending_embeddings": pending}

    # -- index consistency ----------------------------------------------------
    def index_drift(self, conn: Any) -> IndexDrift:
        """Compare the keyword index, vectors and queue with `memories` (whole file, every namespace)."""

        def ids(sql: str) -> tuple[int, ...]:
            return tuple(r[0] for r in conn.execute(sql))

        return IndexDrift(
            missing_text=ids(
                "SELECT id FROM memories WHERE deleted_at IS NULL AND id NOT IN (SELECT rowid FROM memory_fts) ORDER BY id"
            ),
            stale_text=ids(
                "SELECT rowid FROM memory_fts WHERE rowid NOT IN (SELECT id FROM memories WHERE deleted_at IS NULL) "
                "ORDER BY rowid"
            ),
            unqueued=ids(
                "SELECT id FROM memories WHERE deleted_at IS NULL "
                "AND id NOT IN (SELECT memory_id FROM pending_embeddings) "
                "AND id NOT IN (SELECT memory_id FROM memory_vectors) ORDER BY id"
            ),
            orphan_vectors=ids(
                "SELECT memory_id FROM memory_vectors WHERE memory_id NOT IN (SELECT id FROM memories) ORDER BY memory_id"
            ),
            wrong_vector_flags=self._wrong_vector_flags(conn),
            orphan_queue=ids(
                "SELECT memory_id FROM pending_embeddings WHERE memory_id NOT IN (SELECT id FROM memories) "
                "ORDER BY memory_id"
            ),
        )

    def _wrong_vector_flags(self, conn: Any) -> tuple[int, ...]:
        # Joining vec0 on its metadata column reads it row by row (0.55 s for 50k
        # vectors); two plain scans compared as sets take a fifth of that.
        flagged = {r[0] for r in conn.execute("SELECT memory_id FROM memory_vectors WHERE deleted = 1")}
        vectors = {r[0] for r in conn.execute("SELECT memory_id FROM memory_vectors")}
        gone = {r[0] for r in conn.execute("SELECT id FROM memories WHERE deleted_at IS NOT NULL")}
        live = {r[0] for r in conn.execute("SELECT id FROM memories WHERE deleted_at IS NULL")}
        return tuple(sorted(((gone & vectors) - flagged) | (flagged & live)))

    def repair_index(self, conn: Any, drift: IndexDrift, text_of: Callable[[str], str]) -> None:
        """Bring the index back in step with `memories`; `text_of` turns content into indexed text."""
        for memory_id in drift.missing_text:
            (content,) = conn.execute("SELECT content FROM memories WHERE id = ?", (memory_id,)).fetchone()
            conn.execute("INSERT INTO memory_fts(rowid, text) VALUES (?, ?)", (memory_id, text_of(content)))
        for memory_id in drift.stale_text:
            conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (memory_id,))
        conn.executemany(
            "INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (?)", [(i,) for i in drift.unqueued]
        )
        for memory_id in drift.orphan_vectors:
            conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
        for memory_id in drift.wrong_vector_flags:
            conn.execute(
                "UPDATE memory_vectors SET deleted = (SELECT deleted_at IS NOT NULL FROM memories WHERE id = ?) "
                "WHERE memory_id = ?",
                (memory_id, memory_id),
            )
        conn.executemany("DELETE FROM pending_embeddings WHERE memory_id = ?", [(i,) for i in drift.orphan_queue])

    # -- vectors ------------------------------------------------------------
    def pending(self, limit: int) -> list[tuple[int, str]]:
        """Memories (of every namespace: the backfill serves the whole file) still without a vector."""
        with self.db.read() as conn:
            return conn.execute(
                "SELECT m.id, m.content FROM pending_embeddings p JOIN memories m ON m.id = p.memory_id "
                "ORDER BY p.memory_id LIMIT ?",
                (limit,),
            ).fetchall()

    def has_pending(self) -> bool:
        with self.db.read() as conn:
            return conn.execute("SELECT 1 FROM pending_embeddings LIMIT 1").fetchone() is not None

    def store_vectors(self, items: Sequence[tuple[int, np.ndarray]]) -> int:
        """Write vectors for memories that still await one; returns how many were written.

        Idempotent: a vector another process already wrote is left alone, so two
        processes backfilling the same store never double-insert.
        """
        written = 0
        with self.db.write() as conn:
            for memory_id, vector in items:
                row = conn.execute(
                    "SELECT m.namespace, m.thread, m.kind, m.created_at, m.deleted_at FROM pending_embeddings p "
                    "JOIN memories m ON m.id = p.memory_id WHERE p.memory_id = ?",
                    (memory_id,),
                ).fetchone()
                if row is None:
                    continue
                namespace, thread, kind, created_at, deleted_at = row
                # vec0 has no upsert (INSERT OR REPLACE fails): delete, then insert.
                conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
                conn.execute(
                    "INSERT INTO memory_vectors(memory_id, embedding, namespace, thread, kind, deleted, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        memory_id,
                        np.ascontiguousarray(vector, dtype=np.float32),
                        namespace,
                        thread,
                        kind,
                        int(deleted_at is not None),
                        created_at,
                    ),
                )
                conn.execute("DELETE FROM pending_embeddings WHERE memory_id = ?", (memory_id,))
                written += 1
        return written

    def reset_vectors(self, conn: Any, dimensions: int) -> int:
        """Drop every vector (all namespaces) and queue every memory for embedding again."""
        from server.migrations import vectors_ddl

        conn.execute("DROP TABLE memory_vectors")
        conn.execute(vectors_ddl(dimensions))
        conn.execute("INSERT OR IGNORE INTO pending_embeddings(memory_id) SELECT id FROM memories")
        return conn.execute("SELECT count(*) FROM pending_embeddings").fetchone()[0]

    # -- search -------------------------------------------------------------
    def knn(self, vector: np.ndarray, k: int, scope: Scope) -> list[tuple[int, float]]:
        """Nearest live memories by cosine distance, every filter applied inside the vec0 scan."""
        where = ["embedding MATCH ?", "k = ?", "namespace = ?", "deleted = 0"]
        params: list[Any] = [np.ascontiguousarray(vector, dtype=np.float32), k, self.namespace]
        if scope.threads is not None:
            where.append(f"thread IN {_in(scope.threads)}")
            params.extend(scope.threads)
        if scope.kinds:
            where.append(f"kind IN {_in(scope.kinds)}")
            params.extend(scope.kinds)
        if scope.since is not None:
            where.append("created_at >= ?")
            params.append(scope.since)
        if scope.until is not None:
            where.append("created_at <= ?")
            params.append(scope.until)
        with self.db.read() as conn:
            if scope.tags:
                # Tags are many-valued, so they cannot be a vec0 column; the tagged
                # ids go into the KNN as a rowid filter, still inside the scan.
                ids = self._tagged_ids(conn, scope.tags)
                if not ids:
                    return []
                where.append(f"memory_id IN {_in(ids)}")
                params.extend(ids)
            sql = "SELECT memory_id, distance FROM memory_vectors WHERE " + " AND ".join(where)
            # A zero vector has no cosine distance (NULL): it matches nothing.
            return [(r[0], r[1]) for r in conn.execute(sql, params) if r[1] is not None]

    def _tagged_ids(self, conn: Any, tags: Sequence[str]) -> list[int]:
        rows = conn.execute(
            f"SELECT DISTINCT t.memory_id FROM memory_tags t JOIN memories m ON m.id = t.memory_id "
            f"WHERE t.tag IN {_in(tags)} AND m.namespace = ? AND m.deleted_at IS NULL",
            (*tags, self.namespace),
        ).fetchall()
        return [r[0] for r in rows]

    def keyword(self, expression: str, limit: int, scope: Scope) -> list[tuple[int, float]]:
        """FTS5 matches ranked by bm25 (more negative is better, as SQLite reports it)."""
        where = ["memory_fts MATCH ?", "m.namespace = ?", "m.deleted_at IS NULL"]
        params: list[Any] = [expression, self.namespace]
        if scope.threads is not None:
            where.append(f"m.thread IN {_in(scope.threads)}")
            params.extend(scope.threads)
        if scope.kinds:
            where.append(f"m.kind IN {_in(scope.kinds)}")
            params.extend(scope.kinds)
        if scope.since is not None:
            where.append("m.created_at >= ?")
            params.append(scope.since)
        if scope.until is not None:
            where.append("m.created_at <= ?")
            params.append(scope.until)
        if scope.tags:
            where.append(f"m.id IN (SELECT memory_id FROM memory_tags WHERE tag IN {_in(scope.tags)})")
            params.extend(scope.tags)
        sql = (
            "SELECT f.rowid, bm25(memory_fts) AS rank FROM memory_fts f JOIN memories m ON m.id = f.rowid WHERE "
            + " AND ".join(where)
            + " ORDER BY rank LIMIT ?"
        )
        params.append(limit)
        with self.db.read() as conn:
            return [(r[0], r[1]) for r in conn.execute(sql, params)]
