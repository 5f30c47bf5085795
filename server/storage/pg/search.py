"""The PostgreSQL store's search role: keyword and vector search, turn neighbours, the embedding and judging queues, and index integrity.

store.py composes the roles into the Store; the SQL is PostgreSQL's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from server import ranking
from server.errors import SetupError
from server.models import CONVERSATION_KIND
from server.storage import shapes
from server.storage.pg.migrations import LATEST
from server.storage.protocol import (
    HealthCounts,
    IndexDrift,
    KeywordQuery,
    Neighbours,
    PendingEmbedding,
    PossibleUpdate,
    Scope,
    TurnRef,
)

# Weights of ts_rank_cd for labels {D, C, B, A}: own text is A, a turn's context D.
_WEIGHTS = "{%s, 0, 0, 1}" % ranking.CONTEXT_COLUMN_WEIGHT
from server.storage.pg.common import PgStoreBase, _matching, _scope_filters


class PgSearch(PgStoreBase):
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

    def scope_size(self, scope: Scope, cap: int | None = None) -> int:
        sql = "SELECT count(*) FROM memories WHERE deleted_at IS NULL"
        params: list[Any] = []
        if scope.threads is not None:
            sql += " AND thread = ANY(%s)"
            params.append(list(scope.threads))
        if cap is not None:
            sql = f"SELECT count(*) FROM ({sql.replace('count(*)', '1', 1)} LIMIT %s) AS capped"
            params.append(cap)
        with self.db.read() as conn:
            return conn.execute(sql, params).fetchone()[0]

    def knn(self, vector: np.ndarray, k: int, scope: Scope, exact: bool = True) -> dict[int, float]:
        """Nearest live memories by cosine distance (HNSW, iterative scan so filters never starve it;
        `exact` changes nothing: pgvector's distances are float32's)."""
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

    def set_possible_update(self, conn: Any, memory_id: int,
                            possible: PossibleUpdate | Sequence[PossibleUpdate] | None) -> None:
        """Record the earlier memories this one possibly updates, unlinked, in place of what was recorded
        for it (one or several; None or none clears them)."""
        conn.execute("DELETE FROM possible_updates WHERE memory_id = %s", (memory_id,))
        for maybe in shapes.possible_list(possible):
            # Both memories must still be there (one may have been purged since it was judged).
            conn.execute(
                "INSERT INTO possible_updates(tenant, memory_id, older, probability) SELECT %s, %s, %s, %s WHERE "
                "(SELECT COUNT(*) FROM memories WHERE id = ANY(%s)) = 2",
                (self.namespace, memory_id, maybe.older, maybe.probability, [memory_id, maybe.older]),
            )

    def possible_update_rows(self, conn: Any, ids: Sequence[int] | None = None,
                             older: int | None = None) -> list[tuple[int, PossibleUpdate]]:
        """(newer id, possible update) recorded for these memories (None: every one of the tenant's), or with
        `older`, those naming that memory; by newer id, each newer's most probable first."""
        order = " ORDER BY memory_id, probability DESC, older"
        if older is not None:
            rows = conn.execute(
                "SELECT memory_id, older, probability FROM possible_updates WHERE older = %s" + order, (older,)
            ).fetchall()
        elif ids is None:
            rows = conn.execute("SELECT memory_id, older, probability FROM possible_updates" + order).fetchall()
        else:
            rows = conn.execute(
                "SELECT memory_id, older, probability FROM possible_updates WHERE memory_id = ANY(%s)" + order,
                (list(ids),),
            ).fetchall()
        return [(r[0], PossibleUpdate(r[1], r[2])) for r in rows]

    possible_updates = shapes.possible_updates
    possible_updates_all = shapes.possible_updates_all

    def set_analyses(self, conn: Any, analyses: Mapping[int, tuple[str, str]], version: str) -> None:
        # Only for a memory still there (one may have been purged since it was judged).
        for memory_id, (key, analysis) in analyses.items():
            conn.execute(
                "INSERT INTO statement_analyses(tenant, memory_id, version, text_key, analysis) "
                "SELECT %s, %s, %s, %s, %s WHERE EXISTS (SELECT 1 FROM memories WHERE id = %s) "
                "ON CONFLICT (tenant, memory_id) DO UPDATE SET version = excluded.version, "
                "text_key = excluded.text_key, analysis = excluded.analysis",
                (self.namespace, memory_id, version, key, analysis, memory_id),
            )

    def analyses(self, ids: Sequence[int], version: str) -> dict[int, tuple[str, str]]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT memory_id, text_key, analysis FROM statement_analyses WHERE memory_id = ANY(%s) AND version = %s",
                (list(ids), version),
            ).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

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
