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

from server import ranking
from server.clock import from_millis
from server.storage.sqlite.db import Database
from server.models import CONVERSATION_KIND
from server.textindex import context_text
from server.storage.sqlite.vectors import DEFAULT_PRESCAN_FROM, VectorIndex, prune_changes

GLOBAL = ""

MEMORY_COLUMNS = (
    "id, thread, content, kind, source, origin, importance, tags, content_hash, "
    "created_at, updated_at, deleted_at, superseded_by, recall_count, last_recalled_at, "
    "file_line, file_section, pinned, compression"
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
    file_line: int | None = None
    file_section: str | None = None
    pinned: bool = False
    compression: str | None = None  # None = full text; else the tier (see compress.py)

    @classmethod
    def from_sql(cls, row: Sequence[Any]) -> MemoryRow:
        values = list(row)
        values[7] = tuple(json.loads(values[7])) if values[7] != "[]" else ()  # most memories have no tags
        values[17] = bool(values[17])  # pinned
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
    # Set for a unit of a memory file (SOUL.md, MEMORY.md, a daily log).
    file_key: str | None = None
    file_line: int | None = None
    file_section: str | None = None
    # Whether the memory still needs its line in the daily log.
    log_daily: bool = True
    pinned: bool = False
    # Who wrote it (server.models.Principal); None when not configured.
    user: str | None = None
    agent: str | None = None


@dataclass(frozen=True)
class Thread:
    id: str
    title: str | None
    system_prompt: str | None
    archived: bool
    created_at: int
    last_active_at: int


@dataclass(frozen=True)
class GlobalPrompt:
    name: str
    content: str
    active: bool
    priority: int
    created_at: int
    updated_at: int


@dataclass(frozen=True)
class Message:
    id: int
    role: str
    content: str
    created_at: int


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


def _windowed(sql: str, rowid: str, window: int | None) -> tuple[str, list[Any]]:
    """`sql` (selecting a rowid and a bm25 `rank`) ordered best first, ending in `LIMIT ?`.

    With a window, only the newest `window` rows are ranked: the inner query walks
    the doclists newest first and stops, so bm25 runs `window` times at most.
    """
    if window is None:
        return f"{sql} ORDER BY rank, {rowid} LIMIT ?", []
    return f"SELECT * FROM ({sql} ORDER BY {rowid} DESC LIMIT ?) ORDER BY rank, rowid LIMIT ?", [window]


def _scope_filters(scope: Scope, prefix: str, where: list[str], params: list[Any]) -> None:
    """Thread, kind and time conditions of `scope` on columns named `prefix + column`."""
    if scope.threads is not None:
        where.append(f"{prefix}thread IN {_in(scope.threads)}")
        params.extend(scope.threads)
    if scope.kinds:
        where.append(f"{prefix}kind IN {_in(scope.kinds)}")
        params.extend(scope.kinds)
    if scope.since is not None:
        where.append(f"{prefix}created_at >= ?")
        params.append(scope.since)
    if scope.until is not None:
        where.append(f"{prefix}created_at <= ?")
        params.append(scope.until)


class Store:
    def __init__(self, db: Database, namespace: str, vector_prescan_from: int = DEFAULT_PRESCAN_FROM) -> None:
        self.db = db
        self.namespace = namespace
        self._vectors = VectorIndex(namespace, prescan_from=vector_prescan_from)

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
        if new.log_daily:
            conn.execute("INSERT INTO daily_log_queue(memory_id, queued_at) VALUES (?, ?)", (memory_id, new.updated_at))
        return memory_id

    def fts_insert(self, conn: Any, memory_id: int, text: str) -> None:
        """Index a memory's terms; a conversation turn also gets the turns just before it as context.

        Context is up to CONTEXT_PREVIOUS earlier live turns of the same thread, each
        within CONTEXT_MAX_GAP_SECONDS of the next (a new session starts fresh).
        Other kinds are self-contained statements: their neighbours are unrelated
        memories that happen to be written minutes apart, so they get no context.
        """
        row = conn.execute("SELECT thread, created_at, kind FROM memories WHERE id = ?", (memory_id,)).fetchone()
        context = None
        if row is not None and row[2] == CONVERSATION_KIND:
            thread, created_at, _ = row
            previous = conn.execute(
                "SELECT content, created_at FROM memories WHERE namespace = ? AND thread = ? AND kind = ? "
                "AND deleted_at IS NULL AND (created_at < ? OR (created_at = ? AND id < ?)) "
                "ORDER BY created_at DESC, id DESC LIMIT ?",
                (self.namespace, thread, CONVERSATION_KIND, created_at, created_at, memory_id, ranking.CONTEXT_PREVIOUS),
            ).fetchall()
            # ranking owns the rule (how many turns, what gap breaks a session)
            rows = list(reversed(previous))  # oldest first, then this memory
            order = [(n, from_millis(at)) for n, (_, at) in enumerate(rows)] + [(len(rows), from_millis(created_at))]
            chain = [rows[n][0] for n in ranking.context_ids(order, len(rows))]
            context = context_text(chain) or None
        conn.execute("INSERT INTO memory_fts(rowid, text, context) VALUES (?, ?, ?)", (memory_id, text, context))

    def fts_delete(self, conn: Any, memory_id: int) -> None:
        conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (memory_id,))

    def delete_derived(self, conn: Any, memory_id: int) -> None:
        """Remove a memory derived from a file (the file is its record) with its index rows."""
        self.fts_delete(conn, memory_id)
        conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
        conn.execute("DELETE FROM memories WHERE id = ? AND namespace = ? AND file_key IS NOT NULL", (memory_id, self.namespace))

    # -- memory files -------------------------------------------------------
    def file_units(self, conn: Any, source: str) -> dict[str, tuple[int, int | None, str | None]]:
        """key -> (memory id, line, section) of the indexed units of one file."""
        rows = conn.execute(
            "SELECT file_key, id, file_line, file_section FROM memories "
            "WHERE namespace = ? AND source = ? AND file_key IS NOT NULL",
            (self.namespace, source),
        ).fetchall()
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def file_sources(self, conn: Any) -> list[str]:
        rows = conn.execute(
            "SELECT DISTINCT source FROM memories WHERE namespace = ? AND file_key IS NOT NULL", (self.namespace,)
        ).fetchall()
        return [r[0] for r in rows]

    def move_file_unit(self, conn: Any, memory_id: int, line: int, section: str) -> None:
        conn.execute("UPDATE memories SET file_line = ?, file_section = ? WHERE id = ?", (line, section, memory_id))

    # -- daily log queue ------------------------------------------------------
    def unqueue_daily(self, memory_id: int) -> None:
        with self.db.write() as conn:
            conn.execute("DELETE FROM daily_log_queue WHERE memory_id = ?", (memory_id,))

    def daily_backlog(self, queued_before: int, limit: int = 500) -> list[MemoryRow]:
        """Memories of this namespace whose daily-log line was never written (oldest first)."""
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {', '.join('m.' + c.strip() for c in MEMORY_COLUMNS.split(','))} FROM daily_log_queue q "
                "JOIN memories m ON m.id = q.memory_id WHERE m.namespace = ? AND q.queued_at <= ? "
                "ORDER BY q.memory_id LIMIT ?",
                (self.namespace, queued_before, limit),
            ).fetchall()
        return [MemoryRow.from_sql(r) for r in rows]

    # -- threads (details) ----------------------------------------------------
    _THREAD_COLUMNS = "id, title, system_prompt, archived, created_at, last_active_at"

    def get_thread(self, thread: str) -> Thread | None:
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {self._THREAD_COLUMNS} FROM threads WHERE namespace = ? AND id = ?", (self.namespace, thread)
            ).fetchone()
        return Thread(row[0], row[1], row[2], bool(row[3]), row[4], row[5]) if row else None

    def list_threads(self, include_archived: bool = False) -> list[Thread]:
        sql = f"SELECT {self._THREAD_COLUMNS} FROM threads WHERE namespace = ?"
        if not include_archived:
            sql += " AND archived = 0"
        with self.db.read() as conn:
            rows = conn.execute(sql + " ORDER BY last_active_at DESC, id", (self.namespace,)).fetchall()
        return [Thread(r[0], r[1], r[2], bool(r[3]), r[4], r[5]) for r in rows]

    def update_thread(self, conn: Any, thread: str, **fields: Any) -> None:
        allowed = {"title", "system_prompt", "archived"}
        assert set(fields) <= allowed, fields
        if fields:
            sets = ", ".join(f"{name} = ?" for name in fields)
            conn.execute(
                f"UPDATE threads SET {sets} WHERE namespace = ? AND id = ?", (*fields.values(), self.namespace, thread)
            )

    def recent_memories(self, thread: str, limit: int) -> list[MemoryRow]:
        """The thread's newest live memories (not file units), newest first."""
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE namespace = ? AND thread = ? AND deleted_at IS NULL "
                "AND file_key IS NULL ORDER BY created_at DESC, id DESC LIMIT ?",
                (self.namespace, thread, limit),
            ).fetchall()
        return [MemoryRow.from_sql(r) for r in rows]

    # -- the recent-message window -------------------------------------------
    def add_messages(self, conn: Any, thread: str, messages: Sequence[tuple[str, str]], now: int, keep: int) -> None:
        conn.executemany(
            "INSERT INTO thread_messages(namespace, thread, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
            [(self.namespace, thread, role, content, now) for role, content in messages],
        )
        conn.execute(
            "DELETE FROM thread_messages WHERE namespace = ? AND thread = ? AND id NOT IN "
            "(SELECT id FROM thread_messages WHERE namespace = ? AND thread = ? ORDER BY id DESC LIMIT ?)",
            (self.namespace, thread, self.namespace, thread, keep),
        )

    def recent_messages(self, thread: str, limit: int) -> list[Message]:
        """The last `limit` messages of the thread, oldest first (newest last)."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT id, role, content, created_at FROM thread_messages WHERE namespace = ? AND thread = ? "
                "ORDER BY id DESC LIMIT ?",
                (self.namespace, thread, limit),
            ).fetchall()
        return [Message(*r) for r in reversed(rows)]

    # -- global prompts -------------------------------------------------------
    def global_prompts(self, active_only: bool) -> list[GlobalPrompt]:
        sql = "SELECT name, content, active, priority, created_at, updated_at FROM global_prompts WHERE namespace = ?"
        if active_only:
            sql += " AND active = 1"
        with self.db.read() as conn:
            rows = conn.execute(sql + " ORDER BY priority DESC, name", (self.namespace,)).fetchall()
        return [GlobalPrompt(r[0], r[1], bool(r[2]), r[3], r[4], r[5]) for r in rows]

    def put_global_prompt(self, conn: Any, name: str, content: str, priority: int, now: int) -> None:
        conn.execute(
            "INSERT INTO global_prompts(namespace, name, content, active, priority, created_at, updated_at) "
            "VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT(namespace, name) DO UPDATE SET content = excluded.content, "
            "priority = excluded.priority, updated_at = excluded.updated_at",
            (self.namespace, name, content, priority, now, now),
        )

    def set_global_prompt(self, conn: Any, name: str, now: int, **fields: Any) -> bool:
        assert set(fields) <= {"active", "priority"}, fields
        sets = ", ".join(f"{k} = ?" for k in fields)
        cur = conn.execute(
            f"UPDATE global_prompts SET {sets}, updated_at = ? WHERE namespace = ? AND name = ?",
            (*fields.values(), now, self.namespace, name),
        )
        return cur.rowcount > 0

    def delete_global_prompt(self, conn: Any, name: str) -> bool:
        cur = conn.execute("DELETE FROM global_prompts WHERE namespace = ? AND name = ?", (self.namespace, name))
        return cur.rowcount > 0

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
                    out[row[0]] = MemoryRow.from_sql(row)
        return out

    def soft_delete(self, conn: Any, memory_id: int, now: int) -> None:
        conn.execute("UPDATE memories SET deleted_at = ?, updated_at = ? WHERE id = ?", (now, now, memory_id))
        self.fts_delete(conn, memory_id)
        # The vector stays (undelete reuses it); vector_changes takes it out of search.

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
            orphan_queue=ids(
                "SELECT memory_id FROM pending_embeddings WHERE memory_id NOT IN (SELECT id FROM memories) "
                "ORDER BY memory_id"
            ),
        )

    def repair_index(self, conn: Any, drift: IndexDrift, text_of: Callable[[str], str]) -> None:
        """Bring the index back in step with `memories`; `text_of` turns content into indexed text."""
        for memory_id in drift.missing_text:
            (content,) = conn.execute("SELECT content FROM memories WHERE id = ?", (memory_id,)).fetchone()
            self.fts_insert(conn, memory_id, text_of(content))
        for memory_id in drift.stale_text:
            conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (memory_id,))
        conn.executemany(
            "INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (?)", [(i,) for i in drift.unqueued]
        )
        for memory_id in drift.orphan_vectors:
            conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
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

        Each vector is written in the transaction that removes its queue row, so a
        crash leaves either both or neither. Idempotent: a vector another process
        already wrote is left alone, so two processes backfilling the same store
        never double-insert.
        """
        written = 0
        with self.db.write() as conn:
            for memory_id, vector in items:
                if conn.execute("DELETE FROM pending_embeddings WHERE memory_id = ?", (memory_id,)).rowcount == 0:
                    continue
                conn.execute(
                    "INSERT OR REPLACE INTO memory_vectors(memory_id, embedding) VALUES (?, ?)",
                    (memory_id, np.ascontiguousarray(vector, dtype="<f4").tobytes()),
                )
                written += 1
            if written:
                prune_changes(conn)
        return written

    def reset_vectors(self, conn: Any, dimensions: int) -> int:
        """Drop every vector (all namespaces) and queue every memory for embedding again."""
        conn.execute("DELETE FROM memory_vectors")
        prune_changes(conn)  # every reader reloads: the log no longer reaches back to what it saw
        conn.execute("INSERT OR IGNORE INTO pending_embeddings(memory_id) SELECT id FROM memories")
        return conn.execute("SELECT count(*) FROM pending_embeddings").fetchone()[0]

    # -- search -------------------------------------------------------------
    def knn(self, vector: np.ndarray, k: int, scope: Scope) -> list[tuple[int, float]]:
        """Nearest live memories by cosine distance (1 - cosine), every filter applied before the top-k cut."""
        with self.db.read() as conn:
            self._vectors.sync(conn, in_outer_transaction=self._nested())
            ids = None
            if scope.tags:
                # Tags are many-valued: the tagged ids become one more filter of the scan.
                ids = self._tagged_ids(conn, scope.tags)
                if not ids:
                    return []
            mask = self._vectors.mask(scope.threads, scope.kinds, scope.since, scope.until, ids)
            return self._vectors.nearest(vector, k, mask)

    def _nested(self) -> bool:
        # Database.read() joins a transaction already open on this connection (its
        # changes may still be rolled back); depth 1 is the read this call opened.
        return self.db._depth > 1

    def scope_size(self, scope: Scope) -> int:
        """Live memories a search over `scope` covers (kind/time/tag filters ignored)."""
        sql = "SELECT count(*) FROM memories WHERE namespace = ? AND deleted_at IS NULL"
        params: list[Any] = [self.namespace]
        if scope.threads is not None:
            sql += f" AND thread IN {_in(scope.threads)}"
            params.extend(scope.threads)
        with self.db.read() as conn:
            return conn.execute(sql, params).fetchone()[0]

    def document_frequency(self, expression: str, scope: Scope) -> int:
        """How many live memories in `scope` match `expression`."""
        # The matches are materialised once (one pass over the term's doclist) and the
        # scope's rows, read from the (namespace, thread) index, are probed against
        # them. Written the other way round, SQLite ran one full-text query per memory
        # of the scope: 0.24-0.6 s per term at 100k memories against 16-47 ms this way.
        sql = "SELECT count(*) FROM memories m WHERE m.namespace = ? AND m.deleted_at IS NULL"
        params: list[Any] = [self.namespace]
        if scope.threads is not None:
            sql += f" AND m.thread IN {_in(scope.threads)}"
            params.extend(scope.threads)
        sql += " AND m.id IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?)"
        params.append(expression)
        with self.db.read() as conn:
            return conn.execute(sql, params).fetchone()[0]

    def cosines(self, vector: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Exact cosine similarity of the query to these live memories (those that have a vector)."""
        with self.db.read() as conn:
            self._vectors.sync(conn, in_outer_transaction=self._nested())
            return self._vectors.cosines(vector, ids)

    def neighbours(self, ids: Sequence[int]) -> dict[int, tuple[tuple[int, int] | None, tuple[int, int] | None]]:
        """For each conversation turn: (id, created_at) of the live turn just before and just after it."""
        if not ids:
            return {}
        around = (
            "SELECT n.id || ':' || n.created_at FROM memories n WHERE n.namespace = m.namespace AND n.thread = m.thread "
            "AND n.deleted_at IS NULL AND n.kind = m.kind AND "
        )
        sql = (
            f"SELECT m.id, ({around}(n.created_at, n.id) < (m.created_at, m.id) ORDER BY n.created_at DESC, n.id DESC LIMIT 1), "
            f"({around}(n.created_at, n.id) > (m.created_at, m.id) ORDER BY n.created_at, n.id LIMIT 1) "
            f"FROM memories m WHERE +m.namespace = ? AND m.kind = '{CONVERSATION_KIND}' AND m.id IN {_in(ids)}"
        )

        def pair(text: str | None) -> tuple[int, int] | None:
            if text is None:
                return None
            a, b = text.split(":")
            return int(a), int(b)

        with self.db.read() as conn:
            return {r[0]: (pair(r[1]), pair(r[2])) for r in conn.execute(sql, (self.namespace, *ids))}

    def _tagged_ids(self, conn: Any, tags: Sequence[str]) -> list[int]:
        rows = conn.execute(
            f"SELECT DISTINCT t.memory_id FROM memory_tags t JOIN memories m ON m.id = t.memory_id "
            f"WHERE t.tag IN {_in(tags)} AND m.namespace = ? AND m.deleted_at IS NULL",
            (*tags, self.namespace),
        ).fetchall()
        return [r[0] for r in rows]

    def match_count(self, expression: str, cap: int) -> int:
        """FTS5 rows (every namespace of the file) matching `expression`, counted up to `cap`."""
        # Without bm25 a match costs a doclist step (~0.05 us), and LIMIT stops the walk.
        sql = "SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)"
        with self.db.read() as conn:
            return conn.execute(sql, (expression, cap)).fetchone()[0]

    def keyword(self, expression: str, limit: int, scope: Scope, window: int | None = None) -> list[tuple[int, float]]:
        """FTS5 matches ranked by bm25 (more negative is better, as SQLite reports it).

        A turn's context column counts CONTEXT_COLUMN_WEIGHT as much as its own words.
        With `window`, only the newest `window` matches in scope are ranked: FTS5 walks
        a doclist newest first natively and computes bm25 only for the rows it returns.
        """
        if scope == Scope():
            top = self._keyword_unscoped(expression, limit, window)
            if top is not None:
                return top
        where = ["memory_fts MATCH ?", "m.namespace = ?", "m.deleted_at IS NULL"]
        params: list[Any] = [expression, self.namespace]
        _scope_filters(scope, "m.", where, params)
        if scope.tags:
            where.append(f"m.id IN (SELECT memory_id FROM memory_tags WHERE tag IN {_in(scope.tags)})")
            params.extend(scope.tags)
        sql = (
            f"SELECT f.rowid, bm25(memory_fts, 1.0, {ranking.CONTEXT_COLUMN_WEIGHT}) AS rank FROM memory_fts f "
            "JOIN memories m ON m.id = f.rowid WHERE "
            + " AND ".join(where)
        )
        sql, extra = _windowed(sql, "f.rowid", window)
        params += [*extra, limit]
        with self.db.read() as conn:
            return [(r[0], r[1]) for r in conn.execute(sql, params)]

    def _keyword_unscoped(self, expression: str, limit: int, window: int | None) -> list[tuple[int, float]] | None:
        """The top matches of a search over every thread, or None when the cheap plan cannot tell.

        Joining `memories` to check namespace and deleted_at reads one row per match
        (thousands for a common word), which cost as much as the full-text search
        itself at 10k memories. Forgotten memories have no keyword row, so in a
        one-namespace file nearly every match passes: rank the index alone, then check
        only the best 2 x limit. If fewer than `limit` of them pass, the joined query decides.
        """
        fetch = 2 * limit
        sql, extra = _windowed(
            f"SELECT rowid, bm25(memory_fts, 1.0, {ranking.CONTEXT_COLUMN_WEIGHT}) AS rank FROM memory_fts "
            "WHERE memory_fts MATCH ?",
            "rowid",
            window,
        )
        with self.db.read() as conn:
            ranked = conn.execute(sql, (expression, *extra, fetch)).fetchall()
            if not ranked:
                return []
            ids = [r[0] for r in ranked]
            passing = {
                r[0] for r in conn.execute(
                    f"SELECT id FROM memories WHERE id IN {_in(ids)} AND +namespace = ? AND deleted_at IS NULL",
                    (*ids, self.namespace),
                )
            }
        kept = [(r[0], r[1]) for r in ranked if r[0] in passing]
        if len(kept) >= limit or len(ranked) < fetch:
            return kept[:limit]
        return None

    # -- curation (curator.py, archive.py) ------------------------------------
    def mark_recalled(self, conn: Any, ids: Sequence[int], now: int) -> None:
        """Count a recall of these memories: the retention score weighs how often they are used."""
        if ids:
            conn.execute(
                f"UPDATE memories SET recall_count = recall_count + 1, last_recalled_at = ? WHERE id IN {_in(ids)}",
                (now, *ids),
            )

    def rows(  # noqa: PLR0913
        self,
        conn: Any,
        thread: str | None = None,
        deleted: bool | None = False,
        since: int | None = None,
        until: int | None = None,
    ) -> list[MemoryRow]:
        """Memories of the namespace, oldest first; `deleted` None means live and forgotten alike."""
        where, params = ["namespace = ?"], [self.namespace]
        if thread is not None:
            where.append("thread = ?")
            params.append(thread)
        if deleted is not None:
            where.append("deleted_at IS NOT NULL" if deleted else "deleted_at IS NULL")
        if since is not None:
            where.append("created_at >= ?")
            params.append(since)
        if until is not None:
            where.append("created_at <= ?")
            params.append(until)
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {' AND '.join(where)} ORDER BY created_at, id"
        return [MemoryRow.from_sql(r) for r in conn.execute(sql, params)]

    def vectors(self, conn: Any, ids: Sequence[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            for memory_id, blob in conn.execute(
                f"SELECT memory_id, embedding FROM memory_vectors WHERE memory_id IN {_in(chunk)}", chunk
            ):
                out[memory_id] = np.frombuffer(blob, dtype=np.float32)
        return out

    def set_superseded(self, conn: Any, memory_id: int, by: int | None, now: int) -> None:
        conn.execute(
            "UPDATE memories SET superseded_by = ?, updated_at = ? WHERE id = ? AND namespace = ?",
            (by, now, memory_id, self.namespace),
        )

    def set_pinned(self, conn: Any, memory_id: int, pinned: bool, now: int) -> None:
        conn.execute(
            "UPDATE memories SET pinned = ?, updated_at = ? WHERE id = ? AND namespace = ?",
            (int(pinned), now, memory_id, self.namespace),
        )

    def originals(self, conn: Any, ids: Sequence[int]) -> dict[int, tuple[str, int]]:
        """Archived original text and compression time of compressed memories."""
        out: dict[int, tuple[str, int]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            for memory_id, content, at in conn.execute(
                f"SELECT memory_id, content, compressed_at FROM memory_originals WHERE memory_id IN {_in(chunk)}",
                chunk,
            ):
                out[memory_id] = (content, at)
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

    def set_restored(self, conn: Any, memory_id: int, original: str, now: int, text: str) -> None:
        conn.execute(
            "UPDATE memories SET content = ?, compression = NULL, updated_at = ? WHERE id = ?",
            (original, now, memory_id),
        )
        conn.execute("DELETE FROM memory_originals WHERE memory_id = ?", (memory_id,))
        self._reindex(conn, memory_id, text)

    def undelete(self, conn: Any, memory_id: int, now: int, text: str) -> None:
        """Undo soft_delete: back in the keyword index and in vector search."""
        conn.execute("UPDATE memories SET deleted_at = NULL, updated_at = ? WHERE id = ?", (now, memory_id))
        self.fts_insert(conn, memory_id, text)
        if conn.execute("SELECT 1 FROM memory_vectors WHERE memory_id = ?", (memory_id,)).fetchone() is None:
            conn.execute("INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (?)", (memory_id,))

    def hard_delete(self, conn: Any, memory_id: int, successor: int | None) -> None:
        """Erase a memory for good. Memories it replaced now point at what replaced it."""
        conn.execute(
            "UPDATE memories SET superseded_by = ? WHERE superseded_by = ? AND namespace = ?",
            (successor, memory_id, self.namespace),
        )
        self.fts_delete(conn, memory_id)
        conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
        conn.execute("DELETE FROM promotions WHERE namespace = ? AND memory_id = ?", (self.namespace, memory_id))
        # memory_tags, pending_embeddings and memory_originals go by ON DELETE CASCADE.
        conn.execute("DELETE FROM memories WHERE id = ? AND namespace = ?", (memory_id, self.namespace))

    def promoted(self, conn: Any) -> set[int]:
        return {r[0] for r in conn.execute("SELECT memory_id FROM promotions WHERE namespace = ?", (self.namespace,))}

    def record_promotion(self, conn: Any, memory_id: int, section: str, now: int) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO promotions(namespace, memory_id, section, promoted_at) VALUES (?, ?, ?, ?)",
            (self.namespace, memory_id, section, now),
        )

    def stats(self, conn: Any) -> dict[str, Any]:
        ns = (self.namespace,)
        one = lambda sql: conn.execute(sql, ns).fetchone()  # noqa: E731
        live, deleted, superseded, pinned, compressed, oldest, newest = one(
            "SELECT count(*) FILTER (WHERE deleted_at IS NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND superseded_by IS NOT NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND pinned), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND compression IS NOT NULL), "
            "min(created_at) FILTER (WHERE deleted_at IS NULL), max(created_at) FILTER (WHERE deleted_at IS NULL) "
            "FROM memories WHERE namespace = ?"
        )
        group = lambda col: dict(conn.execute(  # noqa: E731
            f"SELECT {col}, count(*) FROM memories WHERE namespace = ? AND deleted_at IS NULL GROUP BY 1 ORDER BY 1", ns
        ).fetchall())
        pending = one(
            "SELECT count(*) FROM pending_embeddings p JOIN memories m ON m.id = p.memory_id WHERE m.namespace = ?"
        )[0]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        return {
            "live": live, "deleted": deleted, "superseded": superseded, "pinned": pinned, "compressed": compressed,
            "oldest": oldest, "newest": newest, "pending_embeddings": pending,
            "by_kind": group("kind"), "by_thread": group("thread"), "by_compression": group("compression"),
            "database_bytes": page_size * pages,
        }

    # -- archive ------------------------------------------------------------
    def archived_originals(self, conn: Any, thread: str | None = None) -> dict[int, tuple[str, int]]:
        sql = "SELECT o.memory_id, o.content, o.compressed_at FROM memory_originals o JOIN memories m ON m.id = o.memory_id WHERE m.namespace = ?"
        params: list[Any] = [self.namespace]
        if thread is not None:
            sql += " AND m.thread = ?"
            params.append(thread)
        return {r[0]: (r[1], r[2]) for r in conn.execute(sql, params)}

    def threads(self, conn: Any, only: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT id, title, system_prompt, archived, created_at, last_active_at FROM threads WHERE namespace = ?"
        params: list[Any] = [self.namespace]
        if only is not None:
            sql += " AND id = ?"
            params.append(only)
        keys = ("id", "title", "system_prompt", "archived", "created_at", "last_active_at")
        return [dict(zip(keys, r)) for r in conn.execute(sql + " ORDER BY id", params)]

    def export_global_prompts(self, conn: Any) -> list[dict[str, Any]]:
        keys = ("name", "content", "active", "priority", "created_at", "updated_at")
        rows = conn.execute(
            f"SELECT {', '.join(keys)} FROM global_prompts WHERE namespace = ? ORDER BY name", (self.namespace,)
        )
        return [dict(zip(keys, r)) for r in rows]

    def find_identity(self, conn: Any, thread: str, content_hash: str, created_at: int) -> int | None:
        """The memory that is this one (same thread, original text and creation time), forgotten or not."""
        row = conn.execute(
            "SELECT id FROM memories WHERE namespace = ? AND thread = ? AND content_hash = ? AND created_at = ? "
            "ORDER BY id LIMIT 1",
            (self.namespace, thread, content_hash, created_at),
        ).fetchone()
        return row[0] if row else None

    def id_taken(self, conn: Any, memory_id: int) -> bool:
        return conn.execute("SELECT 1 FROM memories WHERE id = ?", (memory_id,)).fetchone() is not None

    def insert_archived(self, conn: Any, memory_id: int | None, row: MemoryRow, original: tuple[str, int] | None, text: str) -> int:
        """Insert an archived memory with all its fields (its own id when free), queued for a vector."""
        cur = conn.execute(
            "INSERT INTO memories(id, namespace, thread, content, kind, source, origin, importance, tags, content_hash, "
            "created_at, updated_at, deleted_at, superseded_by, recall_count, last_recalled_at, pinned, compression) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)",
            (
                memory_id, self.namespace, row.thread, row.content, row.kind, row.source, row.origin, row.importance,
                json.dumps(list(row.tags), ensure_ascii=False), row.content_hash, row.created_at, row.updated_at,
                row.deleted_at, row.recall_count, row.last_recalled_at, int(row.pinned), row.compression,
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
                (new_id, original[0], original[1]),
            )
        conn.execute("INSERT INTO pending_embeddings(memory_id) VALUES (?)", (new_id,))
        return new_id

    def put_thread(self, conn: Any, thread: dict[str, Any]) -> bool:
        """Insert an archived thread unless it exists; True if inserted."""
        cur = conn.execute(
            "INSERT OR IGNORE INTO threads(namespace, id, title, system_prompt, archived, created_at, last_active_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.namespace, thread["id"], thread["title"], thread["system_prompt"], thread["archived"],
             thread["created_at"], thread["last_active_at"]),
        )
        return cur.rowcount == 1

    def import_global_prompt(self, conn: Any, prompt: dict[str, Any]) -> bool:
        cur = conn.execute(
            "INSERT OR IGNORE INTO global_prompts(namespace, name, content, active, priority, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.namespace, prompt["name"], prompt["content"], prompt["active"], prompt["priority"],
             prompt["created_at"], prompt["updated_at"]),
        )
        return cur.rowcount == 1

    # -- backend-neutral helpers (the service layer runs no SQL of its own) ----
    def memory_state(self, conn: Any, memory_id: int) -> tuple[str, str | None, int | None] | None:
        """(content, compression, deleted_at) of a memory of this namespace, None if there is none."""
        row = conn.execute(
            "SELECT content, compression, deleted_at FROM memories WHERE id = ? AND namespace = ?",
            (memory_id, self.namespace),
        ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def link_superseded(self, conn: Any, memory_id: int, by: int | None) -> None:
        """Point a memory at its replacement without touching updated_at (restoring an archived link)."""
        conn.execute(
            "UPDATE memories SET superseded_by = ? WHERE id = ? AND namespace = ?", (by, memory_id, self.namespace)
        )

    def integrity_errors(self, conn: Any, quick: bool = True) -> list[str]:
        """What SQLite's own check finds wrong with the file (empty when healthy)."""
        rows = conn.execute("PRAGMA quick_check" if quick else "PRAGMA integrity_check").fetchall()
        return [r[0] for r in rows if r[0] != "ok"]

    def health_counts(self, conn: Any) -> tuple[int, int, int]:
        """(live, forgotten, live still waiting for a vector) over every namespace of the file."""
        live, deleted = conn.execute(
            "SELECT count(*) FILTER (WHERE deleted_at IS NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL) "
            "FROM memories"
        ).fetchone()
        pending = conn.execute(
            "SELECT count(*) FROM pending_embeddings p JOIN memories m ON m.id = p.memory_id WHERE m.deleted_at IS NULL"
        ).fetchone()[0]
        return live, deleted, pending

    # -- copying a namespace between stores (server/migrate.py) ------------------
    def namespaces(self, conn: Any) -> list[str]:
        """Namespaces of this file that hold memories, threads, messages or global prompts."""
        rows = conn.execute(
            "SELECT namespace FROM memories UNION SELECT namespace FROM threads "
            "UNION SELECT namespace FROM thread_messages UNION SELECT namespace FROM global_prompts ORDER BY 1"
        )
        return [r[0] for r in rows]

    def dump_memories(self, conn: Any, after: int, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` memories of the namespace with ids above `after`, in id order, every stored
        field: the row (MemoryRow's fields), who wrote it, its file key, whether a vector is queued,
        its daily-log queue time and its archived original (text, time) — forgotten ones too."""
        columns = ", ".join("m." + c.strip() for c in MEMORY_COLUMNS.split(","))
        rows = conn.execute(
            f"SELECT {columns}, m.user_id, m.agent, m.file_key, p.memory_id IS NOT NULL, q.queued_at, "
            "o.content, o.compressed_at FROM memories m "
            "LEFT JOIN pending_embeddings p ON p.memory_id = m.id LEFT JOIN daily_log_queue q ON q.memory_id = m.id "
            "LEFT JOIN memory_originals o ON o.memory_id = m.id "
            "WHERE m.namespace = ? AND m.id > ? ORDER BY m.id LIMIT ?",
            (self.namespace, after, limit),
        ).fetchall()
        out = []
        for r in rows:
            row = MemoryRow.from_sql(r[:19])
            out.append({
                **row.__dict__, "user": r[19], "agent": r[20], "file_key": r[21], "queued": bool(r[22]),
                "daily_queued_at": r[23], "original": None if r[24] is None else (r[24], r[25]),
            })
        return out

    def load_memories(
        self, conn: Any, memories: Sequence[dict[str, Any]], texts: Sequence[str | None],
        vectors: dict[int, np.ndarray],
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
                (m["id"], self.namespace, m["thread"], m["content"], m["kind"], m["source"], m["origin"],
                 m["importance"], json.dumps(list(m["tags"]), ensure_ascii=False), m["content_hash"], m["created_at"],
                 m["updated_at"], m["deleted_at"], m["recall_count"], m["last_recalled_at"], m["file_key"],
                 m["file_line"], m["file_section"], int(m["pinned"]), m["compression"], m["user"], m["agent"])
                for m in memories
            ],
        )
        conn.executemany(
            "INSERT OR IGNORE INTO memory_tags(memory_id, tag) VALUES (?, ?)",
            [(m["id"], t) for m in memories for t in m["tags"]],
        )
        for m, text in zip(memories, texts):
            if text is not None:
                self.fts_insert(conn, m["id"], text)
        # store_vectors only takes queued memories: queue all, store, then leave queued what was.
        conn.executemany("INSERT INTO pending_embeddings(memory_id) VALUES (?)", [(m["id"],) for m in memories])
        mine = {m["id"] for m in memories}
        self.store_vectors([(i, v) for i, v in vectors.items() if i in mine])
        conn.executemany(
            "INSERT OR IGNORE INTO pending_embeddings(memory_id) VALUES (?)",
            [(m["id"],) for m in memories if m["queued"]],
        )
        conn.executemany(
            "DELETE FROM pending_embeddings WHERE memory_id = ?", [(m["id"],) for m in memories if not m["queued"]]
        )
        conn.executemany(
            "INSERT INTO daily_log_queue(memory_id, queued_at) VALUES (?, ?)",
            [(m["id"], m["daily_queued_at"]) for m in memories if m["daily_queued_at"] is not None],
        )
        conn.executemany(
            "INSERT INTO memory_originals(memory_id, content, compressed_at) VALUES (?, ?, ?)",
            [(m["id"], *m["original"]) for m in memories if m["original"] is not None],
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

    def dump_messages(self, conn: Any) -> list[tuple[str, str, str, int]]:
        """Every recent-message window of the namespace as (thread, role, content, created_at), in order."""
        rows = conn.execute(
            "SELECT thread, role, content, created_at FROM thread_messages WHERE namespace = ? ORDER BY id",
            (self.namespace,),
        )
        return [tuple(r) for r in rows]

    def load_messages(self, conn: Any, messages: Sequence[tuple[str, str, str, int]]) -> None:
        """Append dump_messages' rows in order, with their times (ids are new)."""
        conn.executemany(
            "INSERT INTO thread_messages(namespace, thread, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
            [(self.namespace, *m) for m in messages],
        )

    def promotions(self, conn: Any) -> list[tuple[int, str, int]]:
        """(memory id, MEMORY.md section, time) of every memory promoted into MEMORY.md."""
        rows = conn.execute(
            "SELECT memory_id, section, promoted_at FROM promotions WHERE namespace = ? ORDER BY memory_id",
            (self.namespace,),
        )
        return [tuple(r) for r in rows]

    def meta_items(self, conn: Any) -> dict[str, str]:
        """Every meta key (SQLite's meta is one per file, shared by its namespaces)."""
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())
