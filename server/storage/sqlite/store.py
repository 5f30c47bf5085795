"""The SQLite implementation of server.storage.protocol.Store: the only SQL in SQLite's dialect.

Every query is confined to one namespace (`Store.namespace`), the isolation unit
above threads. Threads are stored as text, '' meaning a global memory. Keyword
search is FTS5 (`memory_fts`: a memory's own text and, for a conversation turn, the
turns before it as context), ranked by bm25; vectors live in vec0, one row per passage,
searched there for thread scopes and through a shared sidecar file otherwise (vectors.py). Methods come in the order of the protocol's roles.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from server import ranking
from server.models import CONVERSATION_KIND
from server.storage.protocol import (
    GLOBAL,
    FileUnit,
    GlobalPrompt,
    HealthCounts,
    IndexDrift,
    KeywordQuery,
    MemoryDump,
    MemoryFilter,
    MemoryRow,
    MemoryState,
    Message,
    Neighbours,
    NewMemory,
    NewMessage,
    Original,
    PendingEmbedding,
    PossibleUpdate,
    Promotion,
    PromptExport,
    Scope,
    Thread,
    ThreadExport,
    ThreadFigures,
    ThreadMessage,
    TimelineRow,
    TurnRef,
)
from server.storage.rows import MEMORY_COLUMN_COUNT, MEMORY_COLUMNS, THREAD_COLUMNS, memory_columns, memory_row, thread_row
from server.storage.sqlite import fts
from server.storage.sqlite.db import Database
from server.storage.sqlite.fts import scope_token
from server.storage.sqlite.migrations import PASSAGE_SLOTS

if TYPE_CHECKING:  # NumPy and the vector modules load with the first vector operation: a hook
    import numpy as np  # process answering by keyword never imports them (bench/hooks.py)

    from server.storage.sqlite.vectors import VectorIndex

def _tags(stored: str) -> tuple[str, ...]:
    """SQLite keeps a memory's tags as a JSON list."""
    return tuple(json.loads(stored)) if stored != "[]" else ()  # most memories have no tags


def _memory_row(row: Sequence[Any]) -> MemoryRow:
    """A row selected as MEMORY_COLUMNS (storage/rows.py maps it by name)."""
    return memory_row(row, _tags)


def _quote(term: str) -> str:
    # FTS5 reads its query as a C string: a NUL would end it inside the quotes.
    return '"' + term.replace("\x00", "").replace('"', '""') + '"'


def _any_of(terms: Sequence[str], column: str) -> str:
    return " OR ".join(column + _quote(t) for t in terms)


def fts5_match(query: KeywordQuery) -> str | None:
    """`query` as an FTS5 MATCH expression; None when it has no terms (nothing can match).

    Every term is double-quoted, so FTS5 operators and punctuation in it are inert. The
    groups are ORs of terms: `"a" OR "b"`, `("a" OR "b") AND ("c")`, `("a") NOT ("c")`;
    own text only puts each term in the `text` column (`text : "a"`). bm25 sees each term
    once, so the rank of a memory matching `terms AND also` is its rank for all of them.
    """
    if not query.terms:
        return None
    column = "text : " if query.own_text_only else ""
    expression = _any_of(query.terms, column)
    if query.also:
        expression = f"({expression}) AND ({_any_of(query.also, column)})"
    if query.excluded:
        expression = f"({expression}) NOT ({_any_of(query.excluded, column)})"
    return expression


def _in_scope(expression: str, namespace: str, threads: Sequence[str] | None) -> str:
    """`expression` limited to memories of these threads (no limit when threads is None)."""
    if threads is None:
        return expression
    tokens = " OR ".join(scope_token(namespace, t) for t in threads)
    return f"({expression}) AND scope : ({tokens})"


#: bm25's column weights: the memory's own words, a turn's context, the scope token (never ranked).
_BM25 = f"bm25(memory_fts, 1.0, {ranking.CONTEXT_COLUMN_WEIGHT}, 0.0)"


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


#: Files with at least this many memories (by id) run a recall's keyword search beside its vector
#: search (Store.beside). Below, the search takes well under a millisecond. Measured with
#: bench/scale.py, pairs of runs on the same machine, over MCP stdio (p50/p95 ms, all threads):
#: 10k 9.9-11.8 / 12.7-15.3 beside against 14.3-14.9 / 19.0-19.5 in turn; 2k 10.5-11.1 against
#: 11.4-12.4 (in-process 8.1-8.4 against 10.0-10.5).
BESIDE_FROM = 1_000


class Store:
    def __init__(self, db: Database, namespace: str) -> None:
        self.db = db
        self.namespace = namespace
        self._index: VectorIndex | None = None

    @property
    def _vectors(self) -> VectorIndex:
        if self._index is None:
            from server.storage.sqlite.vectors import VectorIndex

            self._index = VectorIndex(self.db.path, self.namespace)
        return self._index

    # -- meta ---------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, conn: Any, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def meta_items(self, conn: Any) -> dict[str, str]:
        """Every meta key (SQLite's meta is one per file, shared by its namespaces)."""
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())

    # -- memories -----------------------------------------------------------------
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

    def recent_memories(self, thread: str, limit: int) -> list[MemoryRow]:
        """The thread's newest live memories (not file units), newest first."""
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE namespace = ? AND thread = ? AND deleted_at IS NULL "
                "AND file_key IS NULL ORDER BY created_at DESC, id DESC LIMIT ?",
                (self.namespace, thread, limit),
            ).fetchall()
        return [_memory_row(r) for r in rows]

    def memory_state(self, conn: Any, memory_id: int) -> MemoryState | None:
        row = conn.execute(
            "SELECT content, compression, deleted_at FROM memories WHERE id = ? AND namespace = ?",
            (memory_id, self.namespace),
        ).fetchone()
        return MemoryState(row[0], row[1], row[2]) if row else None

    def soft_delete(self, conn: Any, memory_id: int, now: int) -> None:
        conn.execute("UPDATE memories SET deleted_at = ?, updated_at = ? WHERE id = ?", (now, now, memory_id))
        self.fts_delete(conn, memory_id)
        # The vector stays (undelete reuses it); vector_changes takes it out of search.

    def link_superseded(self, conn: Any, memory_id: int, by: int | None) -> None:
        """Point a memory at its replacement without touching updated_at (restoring an archived link)."""
        conn.execute(
            "UPDATE memories SET superseded_by = ? WHERE id = ? AND namespace = ?", (by, memory_id, self.namespace)
        )

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

    def unqueue_daily(self, memory_id: int) -> None:
        with self.db.write() as conn:
            conn.execute("DELETE FROM daily_log_queue WHERE memory_id = ?", (memory_id,))

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
    def file_units(self, conn: Any, source: str) -> dict[str, FileUnit]:
        rows = conn.execute(
            "SELECT file_key, id, file_line, file_section FROM memories "
            "WHERE namespace = ? AND source = ? AND file_key IS NOT NULL",
            (self.namespace, source),
        ).fetchall()
        return {r[0]: FileUnit(r[1], r[2], r[3]) for r in rows}

    def file_sources(self, conn: Any) -> list[str]:
        rows = conn.execute(
            "SELECT DISTINCT source FROM memories WHERE namespace = ? AND file_key IS NOT NULL", (self.namespace,)
        ).fetchall()
        return [r[0] for r in rows]

    def move_file_unit(
        self, conn: Any, memory_id: int, line: int, section: str, key: str | None = None,
        content_hash: str | None = None,
    ) -> None:
        """A unit seen at another line (or, with `key`, under another section): same memory, same id."""
        conn.execute(
            "UPDATE memories SET file_line = ?, file_section = ?, file_key = coalesce(?, file_key), "
            "content_hash = coalesce(?, content_hash) WHERE id = ?",
            (line, section, key, content_hash, memory_id),
        )

    def delete_derived(self, conn: Any, memory_id: int) -> None:
        """Remove a memory derived from a file (the file is its record) with its index rows."""
        self.fts_delete(conn, memory_id)
        conn.execute("DELETE FROM vector_rows WHERE memory_id = ?", (memory_id,))  # its vec0 rows go too (trigger)
        conn.execute("DELETE FROM memories WHERE id = ? AND namespace = ? AND file_key IS NOT NULL", (memory_id, self.namespace))

    # -- threads and prompts ------------------------------------------------------
    def touch_thread(self, conn: Any, thread: str, now: int) -> None:
        if thread == GLOBAL:
            return
        conn.execute(
            "INSERT INTO threads(namespace, id, created_at, last_active_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(namespace, id) DO UPDATE SET last_active_at = max(last_active_at, excluded.last_active_at)",
            (self.namespace, thread, now, now),
        )

    def get_thread(self, thread: str) -> Thread | None:
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {THREAD_COLUMNS} FROM threads WHERE namespace = ? AND id = ?", (self.namespace, thread)
            ).fetchone()
        return thread_row(row) if row else None

    def list_threads(self, include_archived: bool = False) -> list[Thread]:
        sql = f"SELECT {THREAD_COLUMNS} FROM threads WHERE namespace = ?"
        if not include_archived:
            sql += " AND archived = 0"
        with self.db.read() as conn:
            rows = conn.execute(sql + " ORDER BY last_active_at DESC, id", (self.namespace,)).fetchall()
        return [thread_row(r) for r in rows]

    def update_thread(self, conn: Any, thread: str, **fields: Any) -> None:
        allowed = {"title", "system_prompt", "archived"}
        assert set(fields) <= allowed, fields
        if fields:
            sets = ", ".join(f"{name} = ?" for name in fields)
            conn.execute(
                f"UPDATE threads SET {sets} WHERE namespace = ? AND id = ?", (*fields.values(), self.namespace, thread)
            )

    def add_messages(self, conn: Any, thread: str, messages: Sequence[NewMessage], now: int, keep: int) -> None:
        conn.executemany(
            "INSERT INTO thread_messages(namespace, thread, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
            [(self.namespace, thread, m.role, m.content, now) for m in messages],
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

    # -- search index -------------------------------------------------------------
    def beside(self) -> Store | None:
        """This namespace's search index on a second connection (Database.aside); None in a file of
        fewer than BESIDE_FROM memories, where the keyword search costs less than the hand-off."""
        if self.db.path == ":memory:":
            return None
        with self.db.read() as conn:
            top = conn.execute("SELECT max(id) FROM memories").fetchone()[0] or 0
        db = self.db.aside() if top >= BESIDE_FROM else None  # a small store opens no second connection
        return Store(db, self.namespace) if db is not None else None

    def match_count(self, query: KeywordQuery, cap: int, scope: Scope = Scope()) -> int:
        """FTS5 rows matching `query` in the scope's threads (every namespace of the file when
        threads is None), counted up to `cap`."""
        expression = fts5_match(query)
        if expression is None:
            return 0
        expression = _in_scope(expression, self.namespace, scope.threads)
        # Without bm25 a match costs a doclist step (~0.05 us), and LIMIT stops the walk.
        sql = "SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)"
        with self.db.read() as conn:
            return conn.execute(sql, (expression, cap)).fetchone()[0]

    def keyword(self, query: KeywordQuery, limit: int, scope: Scope) -> dict[int, float]:
        """FTS5 matches ranked by bm25 (more negative is better, as SQLite reports it).

        A turn's context column counts CONTEXT_COLUMN_WEIGHT as much as its own words.
        With `query.newest`, only the newest matches in scope are ranked: FTS5 walks
        a doclist newest first natively and computes bm25 only for the rows it returns.
        """
        expression, window = fts5_match(query), query.newest
        if expression is None:
            return {}
        # In threads, FTS5 itself keeps to the scope (scope_token): only the scope's matches are ranked.
        expression = _in_scope(expression, self.namespace, scope.threads)
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
            f"SELECT f.rowid, {_BM25} AS rank FROM memory_fts f "
            "JOIN memories m ON m.id = f.rowid WHERE "
            + " AND ".join(where)
        )
        sql, extra = _windowed(sql, "f.rowid", window)
        params += [*extra, limit]
        with self.db.read() as conn:
            return {r[0]: r[1] for r in conn.execute(sql, params)}

    def _keyword_unscoped(self, expression: str, limit: int, window: int | None) -> dict[int, float] | None:
        """The top matches of a search over every thread, or None when the cheap plan cannot tell.

        Joining `memories` to check namespace and deleted_at reads one row per match
        (thousands for a common word), which cost as much as the full-text search
        itself at 10k memories. Forgotten memories have no keyword row, so in a
        one-namespace file nearly every match passes: rank the index alone, then check
        only the best 2 x limit. If fewer than `limit` of them pass, the joined query decides.
        """
        fetch = 2 * limit
        sql, extra = _windowed(
            f"SELECT rowid, {_BM25} AS rank FROM memory_fts WHERE memory_fts MATCH ?",
            "rowid",
            window,
        )
        with self.db.read() as conn:
            ranked = conn.execute(sql, (expression, *extra, fetch)).fetchall()
            if not ranked:
                return {}
            ids = [r[0] for r in ranked]
            passing = {
                r[0] for r in conn.execute(
                    f"SELECT id FROM memories WHERE id IN {_in(ids)} AND +namespace = ? AND deleted_at IS NULL",
                    (*ids, self.namespace),
                )
            }
        kept = [(r[0], r[1]) for r in ranked if r[0] in passing]
        if len(kept) >= limit or len(ranked) < fetch:
            return dict(kept[:limit])
        return None

    def document_frequency(self, query: KeywordQuery, scope: Scope) -> int:
        """How many live memories in `scope` match `query`."""
        expression = fts5_match(query)
        if expression is None:
            return 0
        if scope.threads is not None:
            # The index holds live memories only, and the scope token names the namespace: a
            # count of the scope's matches, whatever the store's size.
            with self.db.read() as conn:
                return conn.execute(
                    "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?",
                    (_in_scope(expression, self.namespace, scope.threads),),
                ).fetchone()[0]
        # The matches are materialised once (one pass over the term's doclist) and the
        # namespace's rows probed against them.
        sql = (
            "SELECT count(*) FROM memories m WHERE m.namespace = ? AND m.deleted_at IS NULL "
            "AND m.id IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?)"
        )
        with self.db.read() as conn:
            return conn.execute(sql, (self.namespace, expression)).fetchone()[0]

    def scope_size(self, scope: Scope) -> int:
        """Live memories a search over `scope` covers (kind/time/tag filters ignored)."""
        sql = "SELECT count(*) FROM memories WHERE namespace = ? AND deleted_at IS NULL"
        params: list[Any] = [self.namespace]
        if scope.threads is not None:
            sql += f" AND thread IN {_in(scope.threads)}"
            params.extend(scope.threads)
        with self.db.read() as conn:
            return conn.execute(sql, params).fetchone()[0]

    def knn(self, vector: np.ndarray, k: int, scope: Scope) -> dict[int, float]:
        """Nearest live memories by cosine distance (1 - cosine) of their best passage, every filter
        applied before the top-k cut: vec0 for scopes of up to VEC0_SCOPE_MAX rows (exact), else
        the sidecar, whose candidates are re-checked against `memories`."""
        from server.storage.sqlite import vectors as vec

        if not vector.any():  # a zero vector has no cosine distance to anything
            return {}
        index = self._vectors
        with self.db.read() as conn:
            ids = None
            if scope.tags:
                # Tags are many-valued: the tagged ids become one more filter of the scan.
                ids = set(self._tagged_ids(conn, scope.tags))
                if not ids:
                    return {}
            side = self._sidecar(conn)
            if side is None or (scope.threads is not None and index.scope_rows(conn, scope.threads) <= vec.VEC0_SCOPE_MAX):
                return dict(index.vec0_knn(conn, vector, k, scope.threads, scope.kinds, scope.since, scope.until, ids))
            found = index.sidecar_knn(side, vector, 2 * k, scope.threads, scope.kinds, scope.since, scope.until, ids)
            if not found:
                return {}
            where = ["+namespace = ?", "deleted_at IS NULL", f"id IN {_in(found)}"]
            params: list[Any] = [self.namespace, *(m for m, _ in found)]
            _scope_filters(scope, "", where, params)
            passing = {r[0] for r in conn.execute(f"SELECT id FROM memories WHERE {' AND '.join(where)}", params)}
        return dict([(m, d) for m, d in found if m in passing][:k])

    def _sidecar(self, conn: Any):  # noqa: ANN202 - Sidecar | None
        """The namespace's sidecar brought up to date; inside someone's write transaction (whose
        changes may yet roll back) the file as it is, without applying anything."""
        if self._nested():
            return self._vectors._current() if self._vectors.path is not None else None
        return self._vectors.sync(conn)

    def _nested(self) -> bool:
        # Database.read() joins a transaction already open on this connection (its
        # changes may still be rolled back); depth 1 is the read this call opened.
        return self.db._depth > 1

    def _tagged_ids(self, conn: Any, tags: Sequence[str]) -> list[int]:
        rows = conn.execute(
            f"SELECT DISTINCT t.memory_id FROM memory_tags t JOIN memories m ON m.id = t.memory_id "
            f"WHERE t.tag IN {_in(tags)} AND m.namespace = ? AND m.deleted_at IS NULL",
            (*tags, self.namespace),
        ).fetchall()
        return [r[0] for r in rows]

    def cosines(self, vector: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Cosine similarity of the query to these memories' best passage (those that have a vector):
        the sidecar's float16 rows (error < 1e-4), vec0's for what it does not hold yet."""
        import numpy as np

        query = np.asarray(vector, dtype=np.float32)
        qnorm = float(np.linalg.norm(query))
        with self.db.read() as conn:
            side = self._sidecar(conn)
            out = self._vectors.sidecar_cosines(side, query, ids) if side is not None else {}
            rest = [i for i in ids if i not in out]
            for memory_id, matrix in self._vectors.vec0_rows(conn, rest).items() if rest else ():
                norms = np.linalg.norm(matrix, axis=1) * qnorm
                if len(matrix) and matrix.shape[1] == len(query) and norms.max() > 0:
                    with np.errstate(divide="ignore", invalid="ignore"):
                        out[memory_id] = float(np.nanmax(np.where(norms > 0, (matrix @ query) / norms, np.nan)))
        return out

    def neighbours(self, ids: Sequence[int]) -> dict[int, Neighbours]:
        """For each conversation turn: the live turn just before and just after it."""
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

        def turn(text: str | None) -> TurnRef | None:
            if text is None:
                return None
            a, b = text.split(":")
            return TurnRef(int(a), int(b))

        with self.db.read() as conn:
            return {r[0]: Neighbours(turn(r[1]), turn(r[2])) for r in conn.execute(sql, (self.namespace, *ids))}

    def pending(self, limit: int, threads: Sequence[str] | None = None) -> list[PendingEmbedding]:
        """Memories (of every namespace: the backfill serves the whole file) still without a vector;
        with `threads`, only those of threads so named."""
        where, params = "", []
        if threads is not None:
            # The queue drives the join (CROSS JOIN): it is what is small, next to the memories.
            where = f"WHERE m.thread IN {_in(threads)} "
            params = list(threads)
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT m.id, m.content FROM pending_embeddings p CROSS JOIN memories m ON m.id = p.memory_id "
                f"{where}ORDER BY p.memory_id LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [PendingEmbedding(r[0], r[1]) for r in rows]

    def pending_of(self, ids: Sequence[int]) -> list[PendingEmbedding]:
        """Those of these memories still waiting for a vector, in the order of `ids`."""
        if not ids:
            return []
        with self.db.read() as conn:
            found = dict(conn.execute(
                f"SELECT m.id, m.content FROM pending_embeddings p CROSS JOIN memories m ON m.id = p.memory_id "
                f"WHERE p.memory_id IN {_in(ids)}",
                list(ids),
            ).fetchall())
        return [PendingEmbedding(i, found[i]) for i in ids if i in found]

    def has_pending(self) -> bool:
        with self.db.read() as conn:
            return conn.execute("SELECT 1 FROM pending_embeddings LIMIT 1").fetchone() is not None

    def unjudged(self, limit: int) -> list[int]:
        """The namespace's memories whose update check waits (NewMemory.judge_later) and whose
        vector is stored now, oldest first (as they were written)."""
        with self.db.read() as conn:
            return [r[0] for r in conn.execute(
                # CROSS JOIN keeps the (small) mark table outside: SQLite has no statistics for it and
                # otherwise walks the namespace's memories (75 ms at a million).
                "SELECT u.memory_id FROM update_checks u CROSS JOIN memories m ON m.id = u.memory_id "
                "WHERE m.namespace = ? AND u.memory_id NOT IN (SELECT memory_id FROM pending_embeddings) "
                "ORDER BY m.created_at, m.id LIMIT ?",
                (self.namespace, limit),
            )]

    def judged(self, conn: Any, ids: Sequence[int]) -> None:
        """Their update checks are done."""
        conn.executemany("DELETE FROM update_checks WHERE memory_id = ?", [(i,) for i in ids])

    def set_possible_update(self, conn: Any, memory_id: int, possible: PossibleUpdate | None) -> None:
        """Record (or with None clear) the earlier memory this one most likely updates, unlinked."""
        if possible is None:
            conn.execute("DELETE FROM possible_updates WHERE memory_id = ?", (memory_id,))
            return
        # Both memories must still be there (one may have been purged since it was judged).
        conn.execute(
            "INSERT INTO possible_updates(memory_id, older, probability) SELECT ?, ?, ? WHERE "
            "(SELECT COUNT(*) FROM memories WHERE id IN (?, ?)) = 2 ON CONFLICT(memory_id) "
            "DO UPDATE SET older = excluded.older, probability = excluded.probability",
            (memory_id, possible.older, possible.probability, memory_id, possible.older),
        )

    def possible_updates(self, conn: Any, ids: Sequence[int] | None = None,
                         older: int | None = None) -> dict[int, PossibleUpdate]:
        """The possible updates recorded for these memories (None: every one of the namespace), or with
        `older`, those naming that memory as what they possibly update."""
        if older is not None:
            rows = conn.execute(
                "SELECT memory_id, older, probability FROM possible_updates WHERE older = ? ORDER BY memory_id", (older,)
            ).fetchall()
        elif ids is None:
            rows = conn.execute(
                "SELECT p.memory_id, p.older, p.probability FROM possible_updates p "
                "JOIN memories m ON m.id = p.memory_id WHERE m.namespace = ? ORDER BY p.memory_id",
                (self.namespace,),
            ).fetchall()
        else:
            rows = []
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                rows += conn.execute(
                    f"SELECT memory_id, older, probability FROM possible_updates WHERE memory_id IN {_in(chunk)}", chunk
                ).fetchall()
        return {r[0]: PossibleUpdate(r[1], r[2]) for r in rows}

    def pending_count(self, scope: Scope, cap: int | None = None) -> int:
        """Live memories of the namespace in `scope`'s threads still waiting for a vector (up to `cap`)."""
        # The queue first (CROSS JOIN fixes the order): without ANALYZE statistics SQLite walked
        # the namespace's memories instead, 0.67 s per recall over all threads at 100k with an
        # empty queue; the queue is what is small.
        sql = (
            "SELECT 1 FROM pending_embeddings p CROSS JOIN memories m ON m.id = p.memory_id "
            "WHERE +m.namespace = ? AND m.deleted_at IS NULL"
        )
        params: list[Any] = [self.namespace]
        if scope.threads is not None:
            sql += f" AND m.thread IN {_in(scope.threads)}"
            params.extend(scope.threads)
        if cap is not None:
            sql += " LIMIT ?"
            params.append(cap)
        with self.db.read() as conn:
            return conn.execute(f"SELECT count(*) FROM ({sql})", params).fetchone()[0]

    def store_vectors(self, vectors: Mapping[int, np.ndarray]) -> int:
        """Write vectors (one row, or a passages x dims matrix) of memories that still await them.

        Each memory's rows are written in the transaction that removes its queue row, so a
        crash leaves either both or neither. Idempotent: a memory another process already
        embedded is left alone, so two processes backfilling the same store never double-insert.
        Rows go to vec0 grouped by partition (namespace, thread); after the commit this process
        appends them to the shared sidecar (vectors.py), unless it is inside a caller's
        transaction (then the next search applies them).
        """
        import numpy as np

        from server.storage.sqlite.vectors import prune_changes

        written: dict[int, np.ndarray] = {}
        with self.db.write() as conn:
            queued = [m for m in vectors if conn.execute(
                "DELETE FROM pending_embeddings WHERE memory_id = ?", (m,)).rowcount]
            states: dict[int, tuple] = {}
            for start in range(0, len(queued), 500):
                chunk = queued[start : start + 500]
                for row in conn.execute(
                    f"SELECT id, namespace, thread, kind, deleted_at IS NOT NULL, created_at FROM memories "
                    f"WHERE id IN {_in(chunk)}", chunk,
                ):
                    states[row[0]] = row
            for memory_id in sorted(states, key=lambda m: (states[m][1], states[m][2], m)):
                _, namespace, thread, kind, deleted, created_at = states[memory_id]
                matrix = np.atleast_2d(np.asarray(vectors[memory_id], dtype="<f4"))[:PASSAGE_SLOTS]
                conn.execute("DELETE FROM vector_rows WHERE memory_id = ?", (memory_id,))  # a re-embedding
                conn.executemany(
                    "INSERT INTO vec_memories(row_id, embedding, namespace, thread, kind, deleted, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(memory_id * PASSAGE_SLOTS + p, np.ascontiguousarray(row).tobytes(), namespace, thread, kind,
                      int(deleted), created_at) for p, row in enumerate(matrix)],
                )
                conn.execute("INSERT INTO vector_rows(memory_id, passages) VALUES (?, ?)", (memory_id, len(matrix)))
                written[memory_id] = matrix
            if written:
                prune_changes(conn)
        if written and not self.db._depth:
            with self.db.read() as conn:
                self._vectors.sync(conn, fresh=written, wait=True)
        return len(written)

    def reset_vectors(self, conn: Any, dimensions: int) -> int:
        """Drop every vector (all namespaces) and queue every memory for embedding again."""
        conn.execute("DELETE FROM vector_rows")  # triggers remove their vec0 rows
        (ddl,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_memories'").fetchone()
        if f"FLOAT[{int(dimensions)}]" not in ddl.upper():  # another model: a table of its dimensions
            from server.storage.sqlite.migrations import vec0_ddl

            conn.execute("DROP TABLE vec_memories")
            conn.execute(vec0_ddl(dimensions))
        from server.storage.sqlite.vectors import prune_changes

        prune_changes(conn)
        conn.execute("INSERT OR IGNORE INTO pending_embeddings(memory_id) SELECT id FROM memories")
        return conn.execute("SELECT count(*) FROM pending_embeddings").fetchone()[0]

    # -- integrity ----------------------------------------------------------------
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
                "AND id NOT IN (SELECT memory_id FROM vector_rows) ORDER BY id"
            ),
            orphan_vectors=ids(
                "SELECT memory_id FROM vector_rows WHERE memory_id NOT IN (SELECT id FROM memories) ORDER BY memory_id"
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
            conn.execute("DELETE FROM vector_rows WHERE memory_id = ?", (memory_id,))
        conn.executemany("DELETE FROM pending_embeddings WHERE memory_id = ?", [(i,) for i in drift.orphan_queue])

    def integrity_errors(self, conn: Any, quick: bool = True) -> list[str]:
        """What SQLite's own check finds wrong with the file (empty when healthy)."""
        rows = conn.execute("PRAGMA quick_check" if quick else "PRAGMA integrity_check").fetchall()
        return [r[0] for r in rows if r[0] != "ok"]

    def health_counts(self, conn: Any) -> HealthCounts:
        """Live, forgotten, and live still waiting for a vector, over every namespace of the file."""
        live, deleted = conn.execute(
            "SELECT count(*) FILTER (WHERE deleted_at IS NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL) "
            "FROM memories"
        ).fetchone()
        pending = conn.execute(
            "SELECT count(*) FROM pending_embeddings p JOIN memories m ON m.id = p.memory_id WHERE m.deleted_at IS NULL"
        ).fetchone()[0]
        return HealthCounts(live, deleted, pending)

    # -- curation (curation/: curator, archive) -----------------------------------
    def rows(  # noqa: PLR0913
        self,
        conn: Any,
        thread: str | None = None,
        deleted: bool | None = False,
        since: int | None = None,
        until: int | None = None,
    ) -> list[MemoryRow]:
        """Memories of the namespace, oldest first; `deleted` None means live and forgotten alike."""
        where: list[str] = ["namespace = ?"]
        params: list[Any] = [self.namespace]
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
        return [_memory_row(r) for r in conn.execute(sql, params)]

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

    def threads(self, conn: Any, only: str | None = None) -> list[ThreadExport]:
        sql = "SELECT id, title, system_prompt, archived, created_at, last_active_at FROM threads WHERE namespace = ?"
        params: list[Any] = [self.namespace]
        if only is not None:
            sql += " AND id = ?"
            params.append(only)
        return [
            ThreadExport(id=r[0], title=r[1], system_prompt=r[2], archived=r[3], created_at=r[4], last_active_at=r[5])
            for r in conn.execute(sql + " ORDER BY id", params)
        ]

    def export_global_prompts(self, conn: Any) -> list[PromptExport]:
        rows = conn.execute(
            "SELECT name, content, active, priority, created_at, updated_at FROM global_prompts WHERE namespace = ? "
            "ORDER BY name",
            (self.namespace,),
        )
        return [
            PromptExport(name=r[0], content=r[1], active=r[2], priority=r[3], created_at=r[4], updated_at=r[5])
            for r in rows
        ]

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

    def dump_messages(self, conn: Any) -> list[ThreadMessage]:
        """Every recent-message window of the namespace, in order."""
        rows = conn.execute(
            "SELECT thread, role, content, created_at FROM thread_messages WHERE namespace = ? ORDER BY id",
            (self.namespace,),
        )
        return [ThreadMessage(r[0], r[1], r[2], r[3]) for r in rows]

    def load_messages(self, conn: Any, messages: Sequence[ThreadMessage]) -> None:
        """Append dump_messages' rows in order, with their times (ids are new)."""
        conn.executemany(
            "INSERT INTO thread_messages(namespace, thread, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
            [(self.namespace, m.thread, m.role, m.content, m.created_at) for m in messages],
        )

    def promotions(self, conn: Any) -> list[Promotion]:
        """Every memory promoted into MEMORY.md, by id."""
        rows = conn.execute(
            "SELECT memory_id, section, promoted_at FROM promotions WHERE namespace = ? ORDER BY memory_id",
            (self.namespace,),
        )
        return [Promotion(r[0], r[1], r[2]) for r in rows]

    # -- browsing (server/browse.py: memvault list|show|stats|edit, the web page) ---------
    def _browse_where(self, where: MemoryFilter) -> tuple[str, list[Any]]:
        sql: list[str] = ["namespace = ?"]
        params: list[Any] = [self.namespace]
        _scope_filters(Scope(threads=where.threads, kinds=where.kinds, since=where.since, until=where.until),
                       "", sql, params)
        for column, wanted in (("deleted_at", where.forgotten), ("superseded_by", where.superseded)):
            if wanted is not None:
                sql.append(f"{column} IS {'NOT ' if wanted else ''}NULL")
        if where.pinned is not None:
            sql.append("pinned = ?")
            params.append(int(where.pinned))
        if where.replaced_by is not None:
            sql.append("superseded_by = ?")
            params.append(where.replaced_by)
        if where.files is not None:
            sql.append(f"source {'' if where.files else 'NOT '}LIKE 'file:%'")
        return " AND ".join(sql), params

    def browse(self, conn: Any, where: MemoryFilter, limit: int, offset: int = 0) -> list[MemoryRow]:
        condition, params = self._browse_where(where)
        rows = conn.execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {condition} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [_memory_row(r) for r in rows]

    def browse_count(self, conn: Any, where: MemoryFilter) -> int:
        condition, params = self._browse_where(where)
        return conn.execute(f"SELECT count(*) FROM memories WHERE {condition}", params).fetchone()[0]

    def record(self, conn: Any, memory_id: int) -> MemoryDump | None:
        """Every stored field of one memory (dump_memories' row for this id)."""
        found = self.dump_memories(conn, memory_id - 1, 1)
        return found[0] if found and found[0].id == memory_id else None

    def thread_figures(self, conn: Any) -> list[ThreadFigures]:
        kinds: dict[str, dict[str, int]] = {}
        for thread, kind, n in conn.execute(
            "SELECT thread, kind, count(*) FROM memories WHERE namespace = ? AND deleted_at IS NULL "
            "AND source NOT LIKE 'file:%' GROUP BY 1, 2 ORDER BY 1, 2", (self.namespace,)
        ):
            kinds.setdefault(thread, {})[kind] = n
        live = "m.deleted_at IS NULL AND m.source NOT LIKE 'file:%'"
        rows = conn.execute(
            f"SELECT m.thread, count(*) FILTER (WHERE {live}), "
            f"coalesce(sum(length(m.content)) FILTER (WHERE {live}), 0), max(m.created_at) FILTER (WHERE {live}), "
            f"count(p.memory_id) FILTER (WHERE {live}), "
            f"count(*) FILTER (WHERE {live} AND m.superseded_by IS NOT NULL), count(*) FILTER (WHERE {live} AND m.pinned), "
            f"count(*) FILTER (WHERE {live} AND m.compression IS NOT NULL), count(*) FILTER (WHERE m.deleted_at IS NOT NULL), "
            "count(*) FILTER (WHERE m.deleted_at IS NULL AND m.source LIKE 'file:%') "
            "FROM memories m LEFT JOIN pending_embeddings p ON p.memory_id = m.id "
            "WHERE m.namespace = ? GROUP BY 1 ORDER BY 1", (self.namespace,)
        )
        return [ThreadFigures(r[0], kinds.get(r[0], {}), *r[1:]) for r in rows]

    def timeline(self, conn: Any, width: int, offset: int = 0) -> list[TimelineRow]:
        counts: dict[tuple[int, str, str], list[int]] = {}
        for column, slots, condition in (
            ("created_at", (0, 1), "1"), ("deleted_at", (2,), "deleted_at IS NOT NULL"),
            ("updated_at", (3,), "superseded_by IS NOT NULL"),
        ):
            for bucket, thread, kind, n, chars in conn.execute(
                f"SELECT ({column} + ?) / ?, thread, kind, count(*), sum(length(content)) FROM memories "
                f"WHERE namespace = ? AND source NOT LIKE 'file:%' AND {condition} GROUP BY 1, 2, 3", (offset, width, self.namespace)
            ):
                figures = counts.setdefault((bucket * width - offset, thread, kind), [0, 0, 0, 0])
                figures[slots[0]] = n
                if len(slots) > 1:
                    figures[slots[1]] = chars
        return [TimelineRow(start, thread, kind, *figures) for (start, thread, kind), figures in sorted(counts.items())]

    def set_details(
        self, conn: Any, memory_id: int, kind: str, tags: tuple[str, ...], importance: float, now: int
    ) -> None:
        conn.execute(
            "UPDATE memories SET kind = ?, tags = ?, importance = ?, updated_at = ? WHERE id = ? AND namespace = ?",
            (kind, json.dumps(list(tags), ensure_ascii=False), importance, now, memory_id, self.namespace),
        )
        conn.execute("DELETE FROM memory_tags WHERE memory_id = ?", (memory_id,))
        conn.executemany("INSERT OR IGNORE INTO memory_tags(memory_id, tag) VALUES (?, ?)", [(memory_id, t) for t in tags])
