"""The PostgreSQL implementation of server.storage.protocol.Store (the SQLite one is sqlite/store.py).

Method for method the same behaviour as the SQLite store, in the same order; the
contract tests in tests/contract/ run both. Reads carry no tenant condition of their
own: row-level security adds `tenant = app.tenant` to every statement (see db.py), so
a query cannot forget it. Inserts name the tenant, and the policy's WITH CHECK refuses
any other. Differences that show:

* keyword ranks are `-ts_rank_cd(tsv, query)` with the context weighted
  CONTEXT_COLUMN_WEIGHT (SQLite: bm25). Both are "more negative is better" and
  ranking.fuse only uses each rank's ratio to the best, so ranking works the same;
  the absolute values differ, and stemming is PostgreSQL's English snowball stemmer
  without diacritics folding (SQLite: porter over unicode61 with diacritics removed);
* vectors come from an HNSW index with iterative scans (approximate, like any ANN;
  exact for small or thread-scoped sets, where the planner scans the btree instead);
* index drift has no orphan vectors or queue rows to find: vectors and the queue are
  columns of `memories`, so they cannot outlive their memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from server import ranking
from server.errors import SetupError
from server.models import CONVERSATION_KIND
from server.storage.dialect import POSTGRES
from server.storage.pg.db import PgDatabase
from server.storage.pg.migrations import LATEST
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
from server.storage.rows import MEMORY_COLUMN_COUNT, MEMORY_COLUMNS, THREAD_COLUMNS, memory_columns, memory_row, thread_row, turn_context

# Weights of ts_rank_cd for labels {D, C, B, A}: own text is A, a turn's context D.
_WEIGHTS = "{%s, 0, 0, 1}" % ranking.CONTEXT_COLUMN_WEIGHT


def _row(values: Sequence[Any]) -> MemoryRow:
    """A row selected as MEMORY_COLUMNS (storage/rows.py maps it by name; tags are a text[])."""
    return memory_row(values, tuple)


def _array(value: Any) -> np.ndarray:
    """A stored vector as float32 (pgvector's adapter hands back numpy arrays or Vector objects)."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy else value, dtype=np.float32)


_WEBSEARCH = "websearch_to_tsquery('english', %s)"


def websearch_text(terms: Sequence[str]) -> str:
    """Terms ORed as websearch_to_tsquery text ('' for none). Query terms are runs of word
    characters, so joined with ` or ` they cannot form any other websearch syntax (and whatever
    a term holds, websearch_to_tsquery never fails: it is a parameter, read as words)."""
    terms = [t.replace("\x00", "") for t in terms]  # PostgreSQL text cannot hold NUL
    return " or ".join(t for t in terms if t)


def _tsquery(query: KeywordQuery) -> tuple[str, list[str]] | None:
    """A FROM item giving the tsquery `q` of `query`, and its parameters; None when it has no terms.

    `also` and `excluded` become `&&` and `&& !!` of a second websearch query.
    """
    text = websearch_text(query.terms)
    if not text:
        return None
    item, params = _WEBSEARCH, [text]
    for group, negate in ((query.also, ""), (query.excluded, "!!")):
        other = websearch_text(group)
        if other:
            item += f" && {negate}{_WEBSEARCH}"
            params.append(other)
    if len(params) == 1:
        return f"{item} AS q", params
    return f"(SELECT {item} AS q) AS tsq", params


def _matching(query: KeywordQuery) -> tuple[str, str, list[Any]] | None:
    """(the tsvector searched, `FROM ... WHERE ...` of live memories matching `query`, its parameters)."""
    tsquery = _tsquery(query)
    if tsquery is None:
        return None
    from_item, params = tsquery
    vector = "ts_filter(tsv, '{a}')" if query.own_text_only else "tsv"
    return vector, f"FROM memories, {from_item} WHERE {vector} @@ q AND deleted_at IS NULL", list(params)


def _scope_filters(scope: Scope, prefix: str, where: list[str], params: list[Any]) -> None:
    if scope.threads is not None:
        where.append(f"{prefix}thread = ANY(%s)")
        params.append(list(scope.threads))
    if scope.kinds:
        where.append(f"{prefix}kind = ANY(%s)")
        params.append(list(scope.kinds))
    if scope.since is not None:
        where.append(f"{prefix}created_at >= %s")
        params.append(scope.since)
    if scope.until is not None:
        where.append(f"{prefix}created_at <= %s")
        params.append(scope.until)
    if scope.tags:
        where.append(f"{prefix}tags && %s::text[]")
        params.append(list(scope.tags))


class PgStore:
    def __init__(self, db: PgDatabase, namespace: str) -> None:
        self.db = db
        self.namespace = namespace

    # -- meta ---------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, conn: Any, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO meta(tenant, key, value) VALUES (%s, %s, %s) "
            "ON CONFLICT (tenant, key) DO UPDATE SET value = excluded.value",
            (self.namespace, key, value),
        )

    def meta_items(self, conn: Any) -> dict[str, str]:
        """Every meta key of this tenant."""
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())

    # -- memories -----------------------------------------------------------------
    def find_live(self, conn: Any, thread: str, content_hash: str) -> int | None:
        row = conn.execute(
            "SELECT id FROM memories WHERE thread = %s AND content_hash = %s AND deleted_at IS NULL",
            (thread, content_hash),
        ).fetchone()
        return row[0] if row else None

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

    def recent_memories(self, thread: str, limit: int) -> list[MemoryRow]:
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE thread = %s AND deleted_at IS NULL "
                "AND file_key IS NULL ORDER BY created_at DESC, id DESC LIMIT %s",
                (thread, limit),
            ).fetchall()
        return [_row(r) for r in rows]

    def memory_state(self, conn: Any, memory_id: int) -> MemoryState | None:
        row = conn.execute(
            "SELECT content, compression, deleted_at FROM memories WHERE id = %s", (memory_id,)
        ).fetchone()
        return MemoryState(row[0], row[1], row[2]) if row else None

    def soft_delete(self, conn: Any, memory_id: int, now: int) -> None:
        conn.execute("UPDATE memories SET deleted_at = %s, updated_at = %s WHERE id = %s", (now, now, memory_id))
        self.fts_delete(conn, memory_id)

    def link_superseded(self, conn: Any, memory_id: int, by: int | None) -> None:
        conn.execute("UPDATE memories SET superseded_by = %s WHERE id = %s", (by, memory_id))

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

    def unqueue_daily(self, memory_id: int) -> None:
        with self.db.write() as conn:
            conn.execute("DELETE FROM daily_log_queue WHERE memory_id = %s", (memory_id,))

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
    def file_units(self, conn: Any, source: str) -> dict[str, FileUnit]:
        rows = conn.execute(
            "SELECT file_key, id, file_line, file_section FROM memories WHERE source = %s AND file_key IS NOT NULL",
            (source,),
        ).fetchall()
        return {r[0]: FileUnit(r[1], r[2], r[3]) for r in rows}

    def file_sources(self, conn: Any) -> list[str]:
        rows = conn.execute("SELECT DISTINCT source FROM memories WHERE file_key IS NOT NULL").fetchall()
        return [r[0] for r in rows]

    def move_file_unit(
        self, conn: Any, memory_id: int, line: int, section: str, key: str | None = None,
        content_hash: str | None = None,
    ) -> None:
        """A unit seen at another line (or, with `key`, under another section): same memory, same id."""
        conn.execute(
            "UPDATE memories SET file_line = %s, file_section = %s, file_key = coalesce(%s, file_key), "
            "content_hash = coalesce(%s, content_hash) WHERE id = %s",
            (line, section, key, content_hash, memory_id),
        )

    def delete_derived(self, conn: Any, memory_id: int) -> None:
        conn.execute("DELETE FROM memories WHERE id = %s AND file_key IS NOT NULL", (memory_id,))

    # -- threads and prompts ------------------------------------------------------
    def touch_thread(self, conn: Any, thread: str, now: int) -> None:
        if thread == GLOBAL:
            return
        conn.execute(
            "INSERT INTO threads(tenant, id, created_at, last_active_at) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (tenant, id) DO UPDATE SET last_active_at = "
            "greatest(threads.last_active_at, excluded.last_active_at)",
            (self.namespace, thread, now, now),
        )

    def get_thread(self, thread: str) -> Thread | None:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {THREAD_COLUMNS} FROM threads WHERE id = %s", (thread,)).fetchone()
        return thread_row(row) if row else None

    def list_threads(self, include_archived: bool = False) -> list[Thread]:
        sql = f"SELECT {THREAD_COLUMNS} FROM threads"
        if not include_archived:
            sql += " WHERE NOT archived"
        with self.db.read() as conn:
            rows = conn.execute(sql + " ORDER BY last_active_at DESC, id").fetchall()
        return [thread_row(r) for r in rows]

    def update_thread(self, conn: Any, thread: str, **fields: Any) -> None:
        allowed = {"title", "system_prompt", "archived"}
        assert set(fields) <= allowed, fields
        if "archived" in fields:
            fields["archived"] = bool(fields["archived"])
        if fields:
            sets = ", ".join(f"{name} = %s" for name in fields)
            conn.execute(f"UPDATE threads SET {sets} WHERE id = %s", (*fields.values(), thread))

    def add_messages(self, conn: Any, thread: str, messages: Sequence[NewMessage], now: int, keep: int) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO thread_messages(tenant, thread, role, content, created_at) VALUES (%s, %s, %s, %s, %s)",
                [(self.namespace, thread, m.role, m.content, now) for m in messages],
            )
        conn.execute(
            "DELETE FROM thread_messages WHERE thread = %s AND id NOT IN "
            "(SELECT id FROM thread_messages WHERE thread = %s ORDER BY id DESC LIMIT %s)",
            (thread, thread, keep),
        )

    def recent_messages(self, thread: str, limit: int) -> list[Message]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT id, role, content, created_at FROM thread_messages WHERE thread = %s ORDER BY id DESC LIMIT %s",
                (thread, limit),
            ).fetchall()
        return [Message(*r) for r in reversed(rows)]

    def global_prompts(self, active_only: bool) -> list[GlobalPrompt]:
        sql = "SELECT name, content, active, priority, created_at, updated_at FROM global_prompts"
        if active_only:
            sql += " WHERE active"
        with self.db.read() as conn:
            rows = conn.execute(sql + " ORDER BY priority DESC, name").fetchall()
        return [GlobalPrompt(r[0], r[1], bool(r[2]), r[3], r[4], r[5]) for r in rows]

    def put_global_prompt(self, conn: Any, name: str, content: str, priority: int, now: int) -> None:
        conn.execute(
            "INSERT INTO global_prompts(tenant, name, content, active, priority, created_at, updated_at) "
            "VALUES (%s, %s, %s, true, %s, %s, %s) ON CONFLICT (tenant, name) DO UPDATE SET "
            "content = excluded.content, priority = excluded.priority, updated_at = excluded.updated_at",
            (self.namespace, name, content, priority, now, now),
        )

    def set_global_prompt(self, conn: Any, name: str, now: int, **fields: Any) -> bool:
        assert set(fields) <= {"active", "priority"}, fields
        if "active" in fields:
            fields["active"] = bool(fields["active"])
        sets = ", ".join(f"{k} = %s" for k in fields)
        cur = conn.execute(
            f"UPDATE global_prompts SET {sets}, updated_at = %s WHERE name = %s", (*fields.values(), now, name)
        )
        return cur.rowcount > 0

    def delete_global_prompt(self, conn: Any, name: str) -> bool:
        return conn.execute("DELETE FROM global_prompts WHERE name = %s", (name,)).rowcount > 0

    # -- search index -------------------------------------------------------------
    def beside(self) -> None:
        """None: PostgreSQL answers a recall's keyword search in a millisecond or two; it runs in turn."""
        return None

    def match_count(self, query: KeywordQuery, cap: int, scope: Scope = Scope()) -> int:
        """Live memories of the tenant in the scope's threads matching `query`, counted up to `cap`."""
        matching = _matching(query)
        if matching is None:
            return 0
        _, live, params = matching
        if scope.threads is not None:
            live += " AND thread = ANY(%s)"
            params = [*params, list(scope.threads)]
        with self.db.read() as conn:
            return conn.execute(f"SELECT count(*) FROM (SELECT 1 {live} LIMIT %s) AS hits", (*params, cap)).fetchone()[0]

    def keyword(self, query: KeywordQuery, limit: int, scope: Scope) -> dict[int, float]:
        """Full-text matches as {id: -ts_rank_cd}: more negative is better, like SQLite's bm25.

        With `query.newest`, only the newest matches in scope are ranked.
        """
        matching = _matching(query)
        if matching is None:
            return {}
        vector, live, params = matching
        where: list[str] = []
        _scope_filters(scope, "", where, params)
        # ts_rank_cd counts every occurrence (like bm25's term frequency); normalisation 1 divides by
        # 1 + log(length) so long texts do not win by size alone (bm25 normalises length too).
        sql = f"SELECT id, -ts_rank_cd('{_WEIGHTS}', {vector}, q, 1) AS rank {live}" + "".join(f" AND {w}" for w in where)
        if query.newest is not None:
            sql = f"SELECT * FROM ({sql} ORDER BY id DESC LIMIT %s) AS newest"
            params.append(query.newest)
        sql += " ORDER BY rank, id LIMIT %s"
        params.append(limit)
        with self.db.read() as conn:
            return {r[0]: float(r[1]) for r in conn.execute(sql, params)}

    def document_frequency(self, query: KeywordQuery, scope: Scope) -> int:
        matching = _matching(query)
        if matching is None:
            return 0
        _, live, params = matching
        sql = f"SELECT count(*) {live}"
        if scope.threads is not None:
            sql += " AND thread = ANY(%s)"
            params.append(list(scope.threads))
        with self.db.read() as conn:
            return conn.execute(sql, params).fetchone()[0]

    def scope_size(self, scope: Scope) -> int:
        sql = "SELECT count(*) FROM memories WHERE deleted_at IS NULL"
        params: list[Any] = []
        if scope.threads is not None:
            sql += " AND thread = ANY(%s)"
            params.append(list(scope.threads))
        with self.db.read() as conn:
            return conn.execute(sql, params).fetchone()[0]

    def knn(self, vector: np.ndarray, k: int, scope: Scope) -> dict[int, float]:
        """Nearest live memories by cosine distance (HNSW, iterative scan so filters never starve it)."""
        where = ["deleted_at IS NULL", "embedding IS NOT NULL"]
        params: list[Any] = [np.ascontiguousarray(vector, dtype=np.float32)]
        _scope_filters(scope, "", where, params)
        params.append(k)
        # relaxed_order may return slightly out of order: sort the k again outside
        # (`+ 0` stops the planner reusing the inner ordering).
        sql = (
            "WITH r AS MATERIALIZED (SELECT id, embedding <=> %s AS dist FROM memories WHERE "
            + " AND ".join(where)
            + " ORDER BY dist LIMIT %s) SELECT id, dist FROM r ORDER BY dist + 0, id"
        )
        # The other passages of long memories: their own HNSW index, the memory's filters joined.
        where_p = ["m.deleted_at IS NULL"]
        params_p: list[Any] = [np.ascontiguousarray(vector, dtype=np.float32)]
        _scope_filters(scope, "m.", where_p, params_p)
        params_p.append(k)
        sql_p = (
            "WITH r AS MATERIALIZED (SELECT p.memory_id AS id, p.embedding <=> %s AS dist FROM memory_passages p "
            "JOIN memories m ON m.tenant = p.tenant AND m.id = p.memory_id WHERE "
            + " AND ".join(where_p)
            + " ORDER BY dist LIMIT %s) SELECT id, min(dist) FROM r GROUP BY id"
        )
        best: dict[int, float] = {}
        with self.db.read() as conn:
            for query, args in ((sql, params), (sql_p, params_p)):
                for memory_id, dist in conn.execute(query, args):
                    # A zero vector has no cosine distance (NaN): it matches nothing.
                    if dist is not None and dist == dist and dist < best.get(memory_id, np.inf):
                        best[memory_id] = float(dist)
        return dict(sorted(best.items(), key=lambda item: (item[1], item[0]))[:k])

    def cosines(self, vector: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        if not ids:
            return {}
        query = np.asarray(vector, dtype=np.float32)
        with self.db.read() as conn:
            matrices = self.vectors(conn, ids)
        return {m: float(np.max(matrix @ query)) for m, matrix in matrices.items()}

    def neighbours(self, ids: Sequence[int]) -> dict[int, Neighbours]:
        if not ids:
            return {}
        around = (
            "SELECT n.id::text || ':' || n.created_at::text FROM memories n WHERE n.thread = m.thread "
            "AND n.deleted_at IS NULL AND n.kind = m.kind AND "
        )
        sql = (
            f"SELECT m.id, ({around}(n.created_at, n.id) < (m.created_at, m.id) "
            "ORDER BY n.created_at DESC, n.id DESC LIMIT 1), "
            f"({around}(n.created_at, n.id) > (m.created_at, m.id) ORDER BY n.created_at, n.id LIMIT 1) "
            "FROM memories m WHERE m.kind = %s AND m.id = ANY(%s)"
        )

        def turn(text: str | None) -> TurnRef | None:
            if text is None:
                return None
            a, b = text.split(":")
            return TurnRef(int(a), int(b))

        with self.db.read() as conn:
            return {
                r[0]: Neighbours(turn(r[1]), turn(r[2])) for r in conn.execute(sql, (CONVERSATION_KIND, list(ids)))
            }

    def pending(self, limit: int, threads: Sequence[str] | None = None) -> list[PendingEmbedding]:
        """This tenant's memories still waiting for a vector (RLS: a backfill serves its own tenant);
        with `threads`, only those of these threads."""
        where, params = "embed_pending", []
        if threads is not None:
            where += " AND thread = ANY(%s)"
            params.append(list(threads))
        with self.db.read() as conn:
            return [PendingEmbedding(r[0], r[1]) for r in conn.execute(
                f"SELECT id, content FROM memories WHERE {where} ORDER BY id LIMIT %s", (*params, limit)
            )]

    def pending_of(self, ids: Sequence[int]) -> list[PendingEmbedding]:
        """Those of these memories still waiting for a vector, in the order of `ids`."""
        if not ids:
            return []
        with self.db.read() as conn:
            found = dict(conn.execute(
                "SELECT id, content FROM memories WHERE embed_pending AND id = ANY(%s)", (list(ids),)
            ).fetchall())
        return [PendingEmbedding(i, found[i]) for i in ids if i in found]

    def has_pending(self) -> bool:
        with self.db.read() as conn:
            return conn.execute("SELECT 1 FROM memories WHERE embed_pending LIMIT 1").fetchone() is not None

    def unjudged(self, limit: int) -> list[int]:
        """This tenant's memories whose update check waits for their vector and has it now, oldest first."""
        with self.db.read() as conn:
            return [r[0] for r in conn.execute(
                "SELECT u.memory_id FROM update_checks u JOIN memories m ON m.tenant = u.tenant AND m.id = u.memory_id "
                "WHERE NOT m.embed_pending ORDER BY m.created_at, m.id LIMIT %s",
                (limit,),
            )]

    def judged(self, conn: Any, ids: Sequence[int]) -> None:
        conn.execute("DELETE FROM update_checks WHERE memory_id = ANY(%s)", (list(ids),))

    def set_possible_update(self, conn: Any, memory_id: int, possible: PossibleUpdate | None) -> None:
        """Record (or with None clear) the earlier memory this one most likely updates, unlinked."""
        if possible is None:
            conn.execute("DELETE FROM possible_updates WHERE memory_id = %s", (memory_id,))
            return
        # Both memories must still be there (one may have been purged since it was judged).
        conn.execute(
            "INSERT INTO possible_updates(tenant, memory_id, older, probability) SELECT %s, %s, %s, %s WHERE "
            "(SELECT COUNT(*) FROM memories WHERE id = ANY(%s)) = 2 "
            "ON CONFLICT (tenant, memory_id) DO UPDATE SET older = excluded.older, probability = excluded.probability",
            (self.namespace, memory_id, possible.older, possible.probability, [memory_id, possible.older]),
        )

    def possible_updates(self, conn: Any, ids: Sequence[int] | None = None,
                         older: int | None = None) -> dict[int, PossibleUpdate]:
        """The possible updates recorded for these memories (None: every one of the tenant's), or with
        `older`, those naming that memory as what they possibly update."""
        if older is not None:
            rows = conn.execute(
                "SELECT memory_id, older, probability FROM possible_updates WHERE older = %s ORDER BY memory_id", (older,)
            ).fetchall()
        elif ids is None:
            rows = conn.execute("SELECT memory_id, older, probability FROM possible_updates ORDER BY memory_id").fetchall()
        else:
            rows = conn.execute(
                "SELECT memory_id, older, probability FROM possible_updates WHERE memory_id = ANY(%s)", (list(ids),)
            ).fetchall()
        return {r[0]: PossibleUpdate(r[1], r[2]) for r in rows}

    def pending_count(self, scope: Scope, cap: int | None = None) -> int:
        """Live memories of the tenant in `scope`'s threads still waiting for a vector (up to `cap`)."""
        where, params = ["embed_pending", "deleted_at IS NULL"], []
        if scope.threads is not None:
            where.append("thread = ANY(%s)")
            params.append(list(scope.threads))
        sql = f"SELECT 1 FROM memories WHERE {' AND '.join(where)}"
        if cap is not None:
            sql += " LIMIT %s"
            params.append(cap)
        with self.db.read() as conn:
            return conn.execute(f"SELECT count(*) FROM ({sql}) p", params).fetchone()[0]

    def store_vectors(self, vectors: Mapping[int, np.ndarray]) -> int:
        """Write vectors of memories still waiting for one (idempotent, like the SQLite store)."""
        if not vectors:
            return 0
        matrices = {m: np.atleast_2d(np.asarray(v, dtype=np.float32)) for m, v in vectors.items()}
        with self.db.write() as conn, conn.cursor() as cur:
            # Only memories still waiting are written (idempotent); passage 0 goes in the row.
            waiting = [r[0] for r in cur.execute(
                "SELECT id FROM memories WHERE id = ANY(%s) AND embed_pending FOR UPDATE", (list(matrices),))]
            # executemany pipelines the updates: one round trip per batch, not per vector
            # (4-5x faster for a backfill batch or a migration, each update being an HNSW insert).
            cur.executemany(
                "UPDATE memories SET embedding = %s, embed_pending = false WHERE id = %s AND embed_pending",
                [(np.ascontiguousarray(matrices[m][0]), m) for m in waiting],
            )
            self._write_passages(conn, {m: matrices[m] for m in waiting})
            return len(waiting)

    def reset_vectors(self, conn: Any, dimensions: int) -> int:
        """Clear every vector of the tenant and queue every memory again."""
        (have,) = conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname = 'embedding'"
        ).fetchone()
        if have != dimensions:
            raise SetupError(
                f"The database's vector column holds {have} dimensions, the embedder makes {dimensions}: "
                "changing it is a schema change for the database owner (a new migration), not a re-embed."
            )
        conn.execute("DELETE FROM memory_passages")
        conn.execute("UPDATE memories SET embedding = NULL, embed_pending = true")
        return conn.execute("SELECT count(*) FROM memories WHERE embed_pending").fetchone()[0]

    # -- integrity ----------------------------------------------------------------
    def index_drift(self, conn: Any) -> IndexDrift:
        """Keyword text and queue against `memories` (this tenant: RLS)."""

        def ids(where: str) -> tuple[int, ...]:
            return tuple(r[0] for r in conn.execute(f"SELECT id FROM memories WHERE {where} ORDER BY id"))

        return IndexDrift(
            missing_text=ids("deleted_at IS NULL AND search_text IS NULL"),
            stale_text=ids("deleted_at IS NOT NULL AND search_text IS NOT NULL"),
            unqueued=ids("deleted_at IS NULL AND embedding IS NULL AND NOT embed_pending"),
        )

    def repair_index(self, conn: Any, drift: IndexDrift, text_of: Callable[[str], str]) -> None:
        for memory_id in drift.missing_text:
            (content,) = conn.execute("SELECT content FROM memories WHERE id = %s", (memory_id,)).fetchone()
            self.fts_insert(conn, memory_id, text_of(content))
        for memory_id in drift.stale_text:
            self.fts_delete(conn, memory_id)
        if drift.unqueued:
            conn.execute("UPDATE memories SET embed_pending = true WHERE id = ANY(%s)", (list(drift.unqueued),))

    def integrity_errors(self, conn: Any, quick: bool = True) -> list[str]:
        """PostgreSQL checks its own pages; what can be wrong for us is an index left invalid
        (a failed CREATE INDEX CONCURRENTLY) or a schema behind this version."""
        problems = [
            f"index {r[0]} is invalid; rebuild it (REINDEX INDEX {r[0]})"
            for r in conn.execute(
                "SELECT i.indexrelid::regclass::text FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
                "WHERE c.relname = ANY(%s) AND NOT (i.indisvalid AND i.indisready)",
                (["memories", "threads", "thread_messages", "global_prompts", "memory_originals"],),
            )
        ]
        version = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[0]
        if version != LATEST:
            problems.append(f"schema version {version}, expected {LATEST}")
        return problems

    def health_counts(self, conn: Any) -> HealthCounts:
        live, deleted, pending = conn.execute(
            "SELECT count(*) FILTER (WHERE deleted_at IS NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND embed_pending) FROM memories"
        ).fetchone()
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
        where: list[str] = ["true"]
        params: list[Any] = []
        if thread is not None:
            where.append("thread = %s")
            params.append(thread)
        if deleted is not None:
            where.append("deleted_at IS NOT NULL" if deleted else "deleted_at IS NULL")
        if since is not None:
            where.append("created_at >= %s")
            params.append(since)
        if until is not None:
            where.append("created_at <= %s")
            params.append(until)
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {' AND '.join(where)} ORDER BY created_at, id"
        return [_row(r) for r in conn.execute(sql, params)]

    def set_superseded(self, conn: Any, memory_id: int, by: int | None, now: int) -> None:
        conn.execute(
            "UPDATE memories SET superseded_by = %s, updated_at = %s WHERE id = %s", (by, now, memory_id)
        )

    def set_pinned(self, conn: Any, memory_id: int, pinned: bool, now: int) -> None:
        conn.execute("UPDATE memories SET pinned = %s, updated_at = %s WHERE id = %s", (bool(pinned), now, memory_id))

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

    def set_restored(self, conn: Any, memory_id: int, original: str, now: int, text: str) -> None:
        conn.execute(
            "UPDATE memories SET content = %s, compression = NULL, updated_at = %s WHERE id = %s",
            (original, now, memory_id),
        )
        conn.execute("DELETE FROM memory_originals WHERE memory_id = %s", (memory_id,))
        self._reindex(conn, memory_id, text)

    def undelete(self, conn: Any, memory_id: int, now: int, text: str) -> None:
        conn.execute("UPDATE memories SET deleted_at = NULL, updated_at = %s WHERE id = %s", (now, memory_id))
        self.fts_insert(conn, memory_id, text)
        conn.execute("UPDATE memories SET embed_pending = true WHERE id = %s AND embedding IS NULL", (memory_id,))

    def hard_delete(self, conn: Any, memory_id: int, successor: int | None) -> None:
        conn.execute("UPDATE memories SET superseded_by = %s WHERE superseded_by = %s", (successor, memory_id))
        conn.execute("DELETE FROM promotions WHERE memory_id = %s", (memory_id,))
        # daily_log_queue, update_checks and memory_originals go by ON DELETE CASCADE; the vector is a column.
        conn.execute("DELETE FROM memories WHERE id = %s", (memory_id,))

    def promoted(self, conn: Any) -> set[int]:
        return {r[0] for r in conn.execute("SELECT memory_id FROM promotions")}

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

    def threads(self, conn: Any, only: str | None = None) -> list[ThreadExport]:
        sql = "SELECT id, title, system_prompt, archived::int, created_at, last_active_at FROM threads"
        params: list[Any] = []
        if only is not None:
            sql += " WHERE id = %s"
            params.append(only)
        return [
            ThreadExport(id=r[0], title=r[1], system_prompt=r[2], archived=r[3], created_at=r[4], last_active_at=r[5])
            for r in conn.execute(sql + " ORDER BY id", params)
        ]

    def export_global_prompts(self, conn: Any) -> list[PromptExport]:
        rows = conn.execute(
            "SELECT name, content, active::int, priority, created_at, updated_at FROM global_prompts ORDER BY name"
        )
        return [
            PromptExport(name=r[0], content=r[1], active=r[2], priority=r[3], created_at=r[4], updated_at=r[5])
            for r in rows
        ]

    def find_identity(self, conn: Any, thread: str, content_hash: str, created_at: int) -> int | None:
        row = conn.execute(
            "SELECT id FROM memories WHERE thread = %s AND content_hash = %s AND created_at = %s ORDER BY id LIMIT 1",
            (thread, content_hash, created_at),
        ).fetchone()
        return row[0] if row else None

    def id_taken(self, conn: Any, memory_id: int) -> bool:
        # Ids are unique per tenant (primary key (tenant, id)): another tenant's id is no clash.
        return conn.execute("SELECT 1 FROM memories WHERE id = %s", (memory_id,)).fetchone() is not None

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

    def dump_messages(self, conn: Any) -> list[ThreadMessage]:
        rows = conn.execute("SELECT thread, role, content, created_at FROM thread_messages ORDER BY id")
        return [ThreadMessage(r[0], r[1], r[2], r[3]) for r in rows]

    def load_messages(self, conn: Any, messages: Sequence[ThreadMessage]) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO thread_messages(tenant, thread, role, content, created_at) VALUES (%s, %s, %s, %s, %s)",
                [(self.namespace, m.thread, m.role, m.content, m.created_at) for m in messages],
            )

    def promotions(self, conn: Any) -> list[Promotion]:
        rows = conn.execute("SELECT memory_id, section, promoted_at FROM promotions ORDER BY memory_id")
        return [Promotion(r[0], r[1], r[2]) for r in rows]

    # -- browsing (server/browse.py: memvault list|show|stats|edit, the web page) ---------
    def _browse_where(self, where: MemoryFilter) -> tuple[str, list[Any]]:
        sql: list[str] = ["true"]
        params: list[Any] = []
        _scope_filters(Scope(threads=where.threads, kinds=where.kinds, since=where.since, until=where.until),
                       "", sql, params)
        for column, wanted in (("deleted_at", where.forgotten), ("superseded_by", where.superseded)):
            if wanted is not None:
                sql.append(f"{column} IS {'NOT ' if wanted else ''}NULL")
        if where.pinned is not None:
            sql.append("pinned = %s")
            params.append(bool(where.pinned))
        if where.replaced_by is not None:
            sql.append("superseded_by = %s")
            params.append(where.replaced_by)
        if where.files is not None:
            sql.append(f"source {'' if where.files else 'NOT '}LIKE 'file:%%'")
        return " AND ".join(sql), params

    def browse(self, conn: Any, where: MemoryFilter, limit: int, offset: int = 0) -> list[MemoryRow]:
        condition, params = self._browse_where(where)
        rows = conn.execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {condition} ORDER BY created_at DESC, id DESC "
            "LIMIT %s OFFSET %s",
            (*params, limit, offset),
        )
        return [_row(r) for r in rows]

    def browse_count(self, conn: Any, where: MemoryFilter) -> int:
        condition, params = self._browse_where(where)
        return conn.execute(f"SELECT count(*) FROM memories WHERE {condition}", params).fetchone()[0]

    def record(self, conn: Any, memory_id: int) -> MemoryDump | None:
        found = self.dump_memories(conn, memory_id - 1, 1)
        return found[0] if found and found[0].id == memory_id else None

    def thread_figures(self, conn: Any) -> list[ThreadFigures]:
        kinds: dict[str, dict[str, int]] = {}
        for thread, kind, n in conn.execute(
            "SELECT thread, kind, count(*) FROM memories WHERE deleted_at IS NULL AND source NOT LIKE 'file:%' "
            "GROUP BY 1, 2 ORDER BY 1, 2"
        ):
            kinds.setdefault(thread, {})[kind] = n
        live = "deleted_at IS NULL AND source NOT LIKE 'file:%'"
        rows = conn.execute(
            f"SELECT thread, count(*) FILTER (WHERE {live}), "
            f"coalesce(sum(length(content)) FILTER (WHERE {live}), 0), max(created_at) FILTER (WHERE {live}), "
            f"count(*) FILTER (WHERE {live} AND embed_pending), "
            f"count(*) FILTER (WHERE {live} AND superseded_by IS NOT NULL), count(*) FILTER (WHERE {live} AND pinned), "
            f"count(*) FILTER (WHERE {live} AND compression IS NOT NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL), "
            "count(*) FILTER (WHERE deleted_at IS NULL AND source LIKE 'file:%') "
            "FROM memories GROUP BY 1 ORDER BY 1"
        )
        return [ThreadFigures(r[0], kinds.get(r[0], {}), *(int(v) if v is not None else None for v in r[1:]))
                for r in rows]

    def timeline(self, conn: Any, width: int, offset: int = 0) -> list[TimelineRow]:
        counts: dict[tuple[int, str, str], list[int]] = {}
        for column, slots, condition in (
            ("created_at", (0, 1), "true"), ("deleted_at", (2,), "deleted_at IS NOT NULL"),
            ("updated_at", (3,), "superseded_by IS NOT NULL"),
        ):
            for bucket, thread, kind, n, chars in conn.execute(
                f"SELECT ({column} + %s::bigint) / %s::bigint, thread, kind, count(*), sum(length(content)) "
                f"FROM memories WHERE source NOT LIKE 'file:%%' AND {condition} GROUP BY 1, 2, 3", (offset, width)
            ):
                figures = counts.setdefault((int(bucket) * width - offset, thread, kind), [0, 0, 0, 0])
                figures[slots[0]] = int(n)
                if len(slots) > 1:
                    figures[slots[1]] = int(chars)
        return [TimelineRow(start, thread, kind, *figures) for (start, thread, kind), figures in sorted(counts.items())]

    def set_details(
        self, conn: Any, memory_id: int, kind: str, tags: tuple[str, ...], importance: float, now: int
    ) -> None:
        conn.execute(
            "UPDATE memories SET kind = %s, tags = %s, importance = %s, updated_at = %s WHERE id = %s",
            (kind, list(tags), importance, now, memory_id),
        )
